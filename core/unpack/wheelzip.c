/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/unpack/wheelzip.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"

/* The end record is 22 bytes and its comment at most 65535: the last 64 KiB and a little hold it. */
#define TAIL_LEN (65536u + 22u)
#define CD_MAX (64u << 20) /* a wheel of many thousand files has a directory of a few MiB */

static uint16_t
le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t
le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t
le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
}

static enum cu_status
bad(struct cu_error *err, const char *what, const char *detail)
{
    return cu_error_set(err, CU_E_INPUT, 0, _("%s is not a wheel cudaup can read: %s"), what, detail);
}

/* Bytes [@off, @off + @len) from the tail already read, else from the reader. */
static enum cu_status
get(const struct cu_zip_reader *rd, const struct cu_buf *tail, uint64_t tail_off, uint64_t off, size_t len,
    struct cu_buf *out, struct cu_error *err)
{
    if (off >= tail_off && off + len <= tail_off + tail->len) {
        cu_buf_reset(out);
        cu_buf_append(out, tail->data + (off - tail_off), len);
        return CU_OK;
    }
    uint64_t total = 0;
    enum cu_status st = rd->read(rd->ctx, off, len, false, out, &total, err);
    if (st == CU_OK && out->len != len)
        return cu_error_set(err, CU_E_INPUT, 0, _("%zu bytes came where %zu were asked for"), out->len, len);
    return st;
}

/* Is @name a top-level NAME.dist-info/METADATA? */
static bool
is_metadata(const char *name, size_t n)
{
    const char *suffix = ".dist-info/METADATA";
    size_t sl = strlen(suffix);
    if (n <= sl || memcmp(name + n - sl, suffix, sl) != 0)
        return false;
    return memchr(name, '/', n - sl) == NULL;
}

static enum cu_status
inflate_raw(const unsigned char *in, size_t n, size_t usize, struct cu_buf *out, struct cu_error *err,
            const char *what)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
        return cu_error_set(err, CU_E_NOMEM, 0, _("Cannot start to inflate %s"), what);
    cu_buf_reset(out);
    char *dst = cu_xmalloc(usize + 1);
    z.next_in = (unsigned char *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = (unsigned char *)dst;
    z.avail_out = (uInt)(usize + 1);
    int rc = inflate(&z, Z_FINISH);
    size_t got = usize + 1 - z.avail_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END || got != usize) {
        free(dst);
        return bad(err, what, _("its METADATA does not inflate to the size its directory gives"));
    }
    cu_buf_append(out, dst, got);
    free(dst);
    return CU_OK;
}

enum cu_status
cu_wheel_metadata(const struct cu_zip_reader *rd, const char *what, size_t max, struct cu_buf *out,
                  struct cu_error *err)
{
    struct cu_buf tail, cd, part;
    uint64_t total = 0;
    enum cu_status st;
    cu_buf_init(&tail);
    cu_buf_init(&cd);
    cu_buf_init(&part);
    cu_buf_reset(out);
    if ((st = rd->read(rd->ctx, 0, TAIL_LEN, true, &tail, &total, err)) != CU_OK)
        goto out;
    if (tail.len > total || (tail.len < TAIL_LEN && tail.len != total)) {
        st = bad(err, what, _("its size and its last bytes disagree"));
        goto out;
    }
    uint64_t tail_off = total - tail.len;
    const unsigned char *t = (const unsigned char *)tail.data;
    /* The end record whose comment runs exactly to the end of the file. */
    size_t e = SIZE_MAX;
    for (size_t i = tail.len >= 22 ? tail.len - 22 + 1 : 0; i-- > 0;)
        if (le32(t + i) == 0x06054b50 && i + 22 + le16(t + i + 20) == tail.len) {
            e = i;
            break;
        }
    if (e == SIZE_MAX) {
        st = bad(err, what, _("no zip end record in its last 64 KiB"));
        goto out;
    }
    uint64_t entries = le16(t + e + 10), cd_size = le32(t + e + 12), cd_off = le32(t + e + 16);
    if (entries == 0xFFFF || cd_size == 0xFFFFFFFF || cd_off == 0xFFFFFFFF) {
        /* zip64: the locator right before the end record gives where the zip64 end record is. */
        if (e < 20 || le32(t + e - 20) != 0x07064b50) {
            st = bad(err, what, _("its zip64 locator is missing"));
            goto out;
        }
        uint64_t z64 = le64(t + e - 20 + 8);
        if (z64 + 56 > tail_off + e - 20) {
            st = bad(err, what, _("its zip64 end record lies outside the file"));
            goto out;
        }
        if ((st = get(rd, &tail, tail_off, z64, 56, &part, err)) != CU_OK)
            goto out;
        const unsigned char *z = (const unsigned char *)part.data;
        if (le32(z) != 0x06064b50) {
            st = bad(err, what, _("its zip64 end record is damaged"));
            goto out;
        }
        entries = le64(z + 32);
        cd_size = le64(z + 40);
        cd_off = le64(z + 48);
    }
    if (cd_size > CD_MAX || cd_off > total || cd_size > total - cd_off || entries > cd_size / 46) {
        st = bad(err, what, _("its central directory lies outside the file or is too large"));
        goto out;
    }
    if ((st = get(rd, &tail, tail_off, cd_off, (size_t)cd_size, &cd, err)) != CU_OK)
        goto out;
    const unsigned char *c = (const unsigned char *)cd.data;
    uint64_t found_off = 0, csize = 0, usize = 0;
    uint32_t crc = 0;
    uint16_t method = 0;
    int found = 0;
    size_t p = 0;
    for (uint64_t k = 0; k < entries; k++) {
        if (p + 46 > cd.len || le32(c + p) != 0x02014b50) {
            st = bad(err, what, _("its central directory is damaged"));
            goto out;
        }
        uint16_t nlen = le16(c + p + 28), elen = le16(c + p + 30), clen = le16(c + p + 32);
        if (p + 46 + (size_t)nlen + elen + clen > cd.len) {
            st = bad(err, what, _("its central directory is damaged"));
            goto out;
        }
        if (is_metadata((const char *)c + p + 46, nlen)) {
            if (found++) {
                st = bad(err, what, _("it has more than one .dist-info/METADATA"));
                goto out;
            }
            method = le16(c + p + 10);
            crc = le32(c + p + 16);
            csize = le32(c + p + 20);
            usize = le32(c + p + 24);
            found_off = le32(c + p + 42);
            /* zip64 extended information: the fields written as 0xFFFFFFFF, in this order. */
            const unsigned char *x = c + p + 46 + nlen, *xe = x + elen;
            while (x + 4 <= xe) {
                uint16_t id = le16(x), len = le16(x + 2);
                const unsigned char *v = x + 4, *ve = v + len;
                if (ve > xe)
                    break;
                if (id == 1) {
                    if (usize == 0xFFFFFFFF && v + 8 <= ve)
                        usize = le64(v), v += 8;
                    if (csize == 0xFFFFFFFF && v + 8 <= ve)
                        csize = le64(v), v += 8;
                    if (found_off == 0xFFFFFFFF && v + 8 <= ve)
                        found_off = le64(v);
                }
                x = ve;
            }
        }
        p += 46 + (size_t)nlen + elen + clen;
    }
    if (!found) {
        st = bad(err, what, _("it has no .dist-info/METADATA"));
        goto out;
    }
    if (usize > max || csize > max + (max >> 4) + 1024) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("The METADATA of %s is larger than %zu bytes"), what, max);
        goto out;
    }
    if (method != 0 && method != 8) {
        st = bad(err, what, _("its METADATA is compressed with a method other than deflate"));
        goto out;
    }
    if (found_off > cd_off || 30 > cd_off - found_off) {
        st = bad(err, what, _("its METADATA's local header lies outside the file"));
        goto out;
    }
    if ((st = get(rd, &tail, tail_off, found_off, 30, &part, err)) != CU_OK)
        goto out;
    const unsigned char *lh = (const unsigned char *)part.data;
    if (le32(lh) != 0x04034b50) {
        st = bad(err, what, _("its METADATA's local header is damaged"));
        goto out;
    }
    uint64_t data_off = found_off + 30 + le16(lh + 26) + le16(lh + 28);
    if (data_off > cd_off || csize > cd_off - data_off) {
        st = bad(err, what, _("its METADATA lies outside the file"));
        goto out;
    }
    if ((st = get(rd, &tail, tail_off, data_off, (size_t)csize, &part, err)) != CU_OK)
        goto out;
    if (method == 8) {
        if ((st = inflate_raw((const unsigned char *)part.data, part.len, (size_t)usize, out, err, what)) != CU_OK)
            goto out;
    } else if (csize != usize) {
        st = bad(err, what, _("its stored METADATA's sizes disagree"));
        goto out;
    } else {
        cu_buf_append(out, part.data, part.len);
    }
    if ((uint32_t)crc32(0L, (const Bytef *)out->data, (uInt)out->len) != crc) {
        st = bad(err, what, _("its METADATA does not match its CRC-32"));
        goto out;
    }
    if (memchr(out->data, '\0', out->len)) {
        st = bad(err, what, _("its METADATA is not text"));
        goto out;
    }
    st = CU_OK;
out:
    if (st != CU_OK)
        cu_buf_reset(out);
    cu_buf_fini(&tail);
    cu_buf_fini(&cd);
    cu_buf_fini(&part);
    return st;
}

enum cu_status
cu_zip_read_fd(void *ctx, uint64_t off, size_t len, bool from_end, struct cu_buf *out, uint64_t *total,
               struct cu_error *err)
{
    int fd = *(const int *)ctx;
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return cu_error_set(err, CU_E_IO, errno, "fstat");
    *total = (uint64_t)sb.st_size;
    if (from_end) {
        if (len > *total)
            len = (size_t)*total;
        off = *total - len;
    }
    cu_buf_reset(out);
    if (off > *total || len > *total - off)
        return cu_error_set(err, CU_E_INPUT, 0, _("%zu bytes at %llu lie past the end of the file"), len,
                            (unsigned long long)off);
    char *b = cu_xmalloc(len + 1);
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, b + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            free(b);
            return cu_error_set(err, CU_E_IO, n < 0 ? errno : 0, _("Cannot read the wheel"));
        }
        got += (size_t)n;
    }
    cu_buf_append(out, b, got);
    free(b);
    return CU_OK;
}
