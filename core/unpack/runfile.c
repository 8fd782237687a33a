/* SPDX-License-Identifier: MIT */
/* Reading NVIDIA's CUDA runfiles without running them: see runfile.h. */
#include "config.h"

#define CU_LOG_TAG "runfile"
#include "core/unpack/runfile.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/base/str.h"

#define HEAD_MAX (1u << 20) /* a makeself header is a few dozen KiB; more is not one */

/* ---------------------------------------------------------------- header */

/* The decimal number after @key in @s (bounded by @end), or -1. */
static long long
number_after(const char *s, const char *end, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = s; p + kl < end; p++) {
        if (memcmp(p, key, kl) != 0)
            continue;
        const char *q = p + kl;
        long long v = 0;
        int digits = 0;
        while (q < end && *q >= '0' && *q <= '9' && digits < 12) {
            v = v * 10 + (*q - '0');
            q++;
            digits++;
        }
        if (digits)
            return v;
    }
    return -1;
}

enum cu_status
cu_runfile_header(const char *head, size_t head_len, uint64_t file_size, const char *what,
                  struct cu_runfile_payload *p, struct cu_error *err)
{
    memset(p, 0, sizeof(*p));
    if (head_len > HEAD_MAX)
        head_len = HEAD_MAX;
    if (head_len < 2 || memcmp(head, "#!", 2) != 0)
        return cu_error_set(err, CU_E_ARCHIVE, 0, _("%s is not a runfile (no shell header)"), what);
    const char *end = head + head_len;
    /* makeself 2.1-2.3 write `head -n N "$0"`, 2.4 `skip="N"`: the payload starts after N lines. */
    long long lines = number_after(head, end, "skip=\"");
    if (lines < 0)
        lines = number_after(head, end, "head -n ");
    const char *fs = NULL;
    for (const char *q = head; q + 11 < end; q++)
        if (memcmp(q, "filesizes=\"", 11) == 0) {
            fs = q + 11;
            break;
        }
    if (lines <= 0 || !fs)
        return cu_error_set(err, CU_E_ARCHIVE, 0, _("%s is not a makeself runfile (no payload offset or size in its header)"), what);
    uint64_t off = 0;
    long long n = 0;
    for (const char *q = head; q < end && n < lines; q++) {
        off++;
        if (*q == '\n')
            n++;
    }
    if (n < lines)
        return cu_error_set(err, CU_E_ARCHIVE, 0, _("%s: its header says the payload starts after line %lld, past the header"), what, lines);
    /* filesizes="A B ...": the payload is their sum, to the file's last byte. */
    uint64_t size = 0;
    int count = 0;
    const char *q = fs;
    while (q < end && *q != '"') {
        if (*q == ' ') {
            q++;
            continue;
        }
        if (*q < '0' || *q > '9')
            return cu_error_set(err, CU_E_ARCHIVE, 0, _("%s: its header's filesizes are not numbers"), what);
        uint64_t v = 0;
        int digits = 0;
        while (q < end && *q >= '0' && *q <= '9') {
            if (++digits > 15)
                return cu_error_set(err, CU_E_ARCHIVE, 0, _("%s: its header's filesizes are out of range"), what);
            v = v * 10 + (uint64_t)(*q - '0');
            q++;
        }
        size += v;
        count++;
    }
    if (q >= end || count == 0)
        return cu_error_set(err, CU_E_ARCHIVE, 0, _("%s: its header's filesizes are not closed"), what);
    if (off > file_size || size != file_size - off)
        return cu_error_set(err, CU_E_ARCHIVE, 0,
                            _("%s: its header says %llu payload bytes from byte %llu, but the file has %llu bytes; it was refused"),
                            what, (unsigned long long)size, (unsigned long long)off, (unsigned long long)file_size);
    p->offset = off;
    p->size = size;
    return CU_OK;
}

/* gzip or xz magic at the payload's start; anything else is refused. */
static enum cu_status
payload_magic(const unsigned char *b, size_t n, const char *what, struct cu_runfile_payload *p,
              struct cu_error *err)
{
    static const unsigned char xz[] = {0xfd, '7', 'z', 'X', 'Z', 0};
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        p->gzip = true;
        return CU_OK;
    }
    if (n >= sizeof(xz) && memcmp(b, xz, sizeof(xz)) == 0) {
        p->gzip = false;
        return CU_OK;
    }
    return cu_error_set(err, CU_E_ARCHIVE, 0, _("%s: no gzip or xz payload where its header says it starts; it was refused"), what);
}

/* ---------------------------------------------------------------- components */

static bool
starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *
cu_runfile_component(const char *t)
{
    static const struct {
        const char *prefix, *component;
    } lib[] = {
        {"libcudart", "cuda_cudart"}, {"libcudadevrt", "cuda_cudart"}, {"libculibos", "cuda_cudart"},
        {"libcublas", "libcublas"},   {"libnvblas", "libcublas"},      {"libcufft", "libcufft"},
        {"libcurand", "libcurand"},   {"libcusolver", "libcusolver"},  {"libcusparse", "libcusparse"},
        {"libnvrtc", "cuda_nvrtc"},   {"libnvToolsExt", "cuda_nvtx"},  {"stubs/", "cuda_cudart"},
    };
    static const struct {
        const char *prefix, *component;
    } inc[] = {
        {"cublas", "libcublas"},   {"nvblas", "libcublas"},  {"cufft", "libcufft"},  {"curand", "libcurand"},
        {"cusolver", "libcusolver"}, {"cusparse", "libcusparse"}, {"nvrtc", "cuda_nvrtc"},
        {"nvToolsExt", "cuda_nvtx"}, {"nvtx3", "cuda_nvtx"}, {"thrust/", "cuda_cccl"}, {"cub/", "cuda_cccl"},
        {"crt/", "cuda_nvcc"},     {"fatbinary", "cuda_nvcc"}, {"nvPTXCompiler", "cuda_nvcc"},
        /* what NPP, nvGRAPH, nvJPEG and friends bring is not placed */
        {"npp", NULL}, {"nvgraph", NULL}, {"nvjpeg", NULL}, {"cudaProfiler", "cuda_cudart"},
    };
    if (!t || !*t)
        return NULL;
    if (starts(t, "lib64/") || starts(t, "lib/")) {
        const char *b = strchr(t, '/') + 1;
        for (size_t i = 0; i < CU_N_ELEMENTS(lib); i++)
            if (starts(b, lib[i].prefix))
                return lib[i].component;
        return NULL;
    }
    if (starts(t, "include/")) {
        const char *b = t + 8;
        if (!*b)
            return NULL;
        for (size_t i = 0; i < CU_N_ELEMENTS(inc); i++)
            if (starts(b, inc[i].prefix))
                return inc[i].component;
        return "cuda_cudart"; /* cuda.h, cuda_runtime.h, the vector types nvcc needs */
    }
    if (starts(t, "nvvm/"))
        return "cuda_nvcc";
    if (starts(t, "extras/CUPTI/"))
        return "cuda_cupti";
    if (starts(t, "bin/")) {
        static const char *const nvcc[] = {"nvcc", "ptxas", "fatbinary", "nvlink", "cudafe", "bin2c",
                                           "crt/", "nvcc.profile", "cicc"};
        const char *b = t + 4;
        for (size_t i = 0; i < CU_N_ELEMENTS(nvcc); i++)
            if (starts(b, nvcc[i]))
                return "cuda_nvcc";
        return NULL; /* cuda-gdb, nvprof, nsight, nvvp, cuobjdump...: not placed from a runfile */
    }
    if (strcmp(t, "version.txt") == 0 || strcmp(t, "version.json") == 0 || strcmp(t, "EULA.txt") == 0)
        return "cuda_cudart";
    return NULL;
}

/* ---------------------------------------------------------------- renaming */

struct names {
    const char *strip;             /* "builds/cuda-toolkit/" or "" (the tree itself) */
    bool by_folder;                /* builds/<component>/... */
    const char *const *components; /* NULL-terminated, or NULL for all */
    char *buf;
};

static bool
wanted(const struct names *nm, const char *component)
{
    if (!component)
        return false;
    if (!nm->components)
        return true;
    for (const char *const *c = nm->components; *c; c++)
        if (strcmp(*c, component) == 0)
            return true;
    return false;
}

static const char *
rename_member(void *ud, const char *name)
{
    struct names *nm = ud;
    while (starts(name, "./"))
        name += 2;
    if (!*name)
        return NULL; /* the payload's "./" */
    if (!cu_extract_name_ok(name))
        return name; /* an escaping or absolute name is refused by cu_extract, not skipped */
    if (!starts(name, nm->strip))
        return NULL;
    const char *rest = name + strlen(nm->strip);
    const char *component;
    if (nm->by_folder) {
        const char *slash = strchr(rest, '/');
        if (!slash || !slash[1])
            return NULL;
        char folder[64];
        size_t fl = (size_t)(slash - rest);
        if (fl >= sizeof(folder))
            return NULL;
        memcpy(folder, rest, fl);
        folder[fl] = 0;
        rest = slash + 1;
        /* the folder names the component; the tree inside still decides what cudaup places */
        if (!wanted(nm, folder) || !cu_runfile_component(rest))
            return NULL;
    } else {
        component = cu_runfile_component(rest);
        if (!wanted(nm, component))
            return NULL;
    }
    free(nm->buf);
    nm->buf = cu_xasprintf("cuda/%s", rest);
    return nm->buf;
}

/* ---------------------------------------------------------------- readers */

/*
 * The runfile, read once, front to back, through one descriptor: every byte handed to a decoder is
 * a byte hashed (the header's bytes, read first, included), so what is unpacked is what was vouched
 * for, whatever happens to the path meanwhile.
 */
struct fdrange {
    int fd;
    uint64_t left;                /* payload bytes still to hand out */
    const unsigned char *pre;     /* payload bytes already read (and hashed) with the header */
    size_t pre_len, pre_pos;
    struct cu_sha256 *h;
    uint64_t hashed;              /* bytes read from fd, all of them hashed */
    const atomic_int *cancel;
};

/* read(2) through the hash. */
static ssize_t
read_hashed(struct fdrange *r, void *buf, size_t len)
{
    ssize_t n;
    do
        n = read(r->fd, buf, len);
    while (n < 0 && errno == EINTR);
    if (n > 0) {
        cu_sha256_update(r->h, buf, (size_t)n);
        r->hashed += (uint64_t)n;
    }
    return n;
}

static ssize_t
read_range(void *ud, void *buf, size_t len)
{
    struct fdrange *r = ud;
    if (r->cancel && atomic_load(r->cancel))
        return -ECANCELED;
    if (r->left == 0)
        return 0;
    if (len > r->left)
        len = (size_t)r->left;
    ssize_t n;
    if (r->pre_pos < r->pre_len) {
        n = (ssize_t)(r->pre_len - r->pre_pos < len ? r->pre_len - r->pre_pos : len);
        memcpy(buf, r->pre + r->pre_pos, (size_t)n);
        r->pre_pos += (size_t)n;
    } else {
        n = read_hashed(r, buf, len);
        if (n < 0)
            return -errno;
        if (n == 0)
            return -EIO; /* shorter than the header said: truncated under us */
    }
    r->left -= (uint64_t)n;
    return n;
}

/* libarchive's view of the outer payload. */
struct la_src {
    struct fdrange *r;
    unsigned char buf[65536];
};

static la_ssize_t
la_read_range(struct archive *a, void *ud, const void **out)
{
    struct la_src *s = ud;
    ssize_t n = read_range(s->r, s->buf, sizeof(s->buf));
    if (n < 0) {
        archive_set_error(a, (int)-n, "read failed");
        return -1;
    }
    *out = s->buf;
    return n;
}

/* The nested runfile's payload, streamed out of the outer tar: what was read to parse its header first. */
struct nested_src {
    struct archive *a;
    const unsigned char *pre;
    size_t pre_len, pre_pos;
    const atomic_int *cancel;
};

static ssize_t
read_nested(void *ud, void *buf, size_t len)
{
    struct nested_src *s = ud;
    if (s->cancel && atomic_load(s->cancel))
        return -ECANCELED;
    if (s->pre_pos < s->pre_len) {
        size_t n = s->pre_len - s->pre_pos;
        if (n > len)
            n = len;
        memcpy(buf, s->pre + s->pre_pos, n);
        s->pre_pos += n;
        return (ssize_t)n;
    }
    la_ssize_t n = archive_read_data(s->a, buf, len);
    return n < 0 ? -EIO : n;
}

/* "run_files/cuda-linux.10.0.130-24817639.run", nothing deeper. */
static bool
is_toolkit_runfile(const char *name)
{
    while (starts(name, "./"))
        name += 2;
    if (!starts(name, "run_files/cuda-linux"))
        return false;
    const char *b = name + strlen("run_files/");
    size_t n = strlen(b);
    return !strchr(b, '/') && n > 4 && strcmp(b + n - 4, ".run") == 0;
}

static enum cu_status
extract_nested(const struct cu_runfile_opts *o, struct fdrange *outer, const struct cu_runfile_payload *op,
               const struct cu_extract_opts *xo, struct cu_extract_result *res, struct cu_error *err)
{
    enum cu_status st;
    struct la_src *src = cu_xcalloc(1, sizeof(*src));
    unsigned char *head = NULL;
    struct archive *a = archive_read_new();
    src->r = outer;
    archive_read_support_format_tar(a);
    if (op->gzip)
        archive_read_support_filter_gzip(a);
    else
        archive_read_support_filter_xz(a);
    if (archive_read_open(a, src, NULL, la_read_range, NULL) != ARCHIVE_OK)
        goto la_fail;
    uint64_t entries = 0;
    for (;;) {
        struct archive_entry *e;
        if (o->cancel && atomic_load(o->cancel)) {
            st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
            goto out;
        }
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF) {
            st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s holds no toolkit runfile (run_files/cuda-linux*.run)"), o->what);
            goto out;
        }
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
            goto la_fail;
        if (++entries > (o->max_entries ? o->max_entries : 500000)) {
            st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s has too many entries; it was refused"), o->what);
            goto out;
        }
        if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e) ||
            !is_toolkit_runfile(archive_entry_pathname(e)))
            continue;
        /* The toolkit's own makeself archive: its header, then its payload streamed to cu_extract. */
        uint64_t size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
        size_t want = size < HEAD_MAX ? (size_t)size : HEAD_MAX;
        head = cu_xmalloc(want + 1);
        size_t got = 0;
        while (got < want) {
            la_ssize_t n = archive_read_data(a, head + got, want - got);
            if (n < 0)
                goto la_fail;
            if (n == 0)
                break;
            got += (size_t)n;
        }
        CU_AUTOFREE char *inner_what = cu_xasprintf("%s (%s)", o->what, archive_entry_pathname(e));
        struct cu_runfile_payload ip;
        if ((st = cu_runfile_header((const char *)head, got, size, inner_what, &ip, err)) != CU_OK)
            goto out;
        if (ip.offset >= got) {
            st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s: its payload starts past its header's first MiB; it was refused"), inner_what);
            goto out;
        }
        if ((st = payload_magic(head + ip.offset, got - ip.offset, inner_what, &ip, err)) != CU_OK)
            goto out;
        struct nested_src ns = {.a = a, .pre = head + ip.offset, .pre_len = got - (size_t)ip.offset, .cancel = o->cancel};
        struct cu_extract_opts io = *xo;
        io.what = inner_what;
        io.gzip = ip.gzip;
        /* One level only: a runfile inside the toolkit's runfile is no part of the tree, so it is skipped. */
        st = cu_extract(&io, read_nested, &ns, res, err);
        goto out;
    }
la_fail:
    if (outer->cancel && atomic_load(outer->cancel))
        st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
    else
        st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s: its payload is not a valid archive (%s)"), o->what,
                          archive_error_string(a) ? archive_error_string(a) : "truncated?");
out:
    archive_read_free(a);
    free(head);
    free(src);
    return st;
}

enum cu_status
cu_runfile_extract(const struct cu_runfile_opts *o, struct cu_extract_result *res, const char ***res_component,
                   struct cu_error *err)
{
    enum cu_status st;
    struct names nm = {.strip = "", .components = o->components};
    struct cu_sha256 h;
    bool hashing = false;
    char sha[65];
    int fd = -1;
    CU_AUTOFREE unsigned char *head = NULL;
    CU_AUTOFREE unsigned char *drain = NULL;
    memset(res, 0, sizeof(*res));
    if (res_component)
        *res_component = NULL;

    bool nested = strcmp(o->layout, "nested") == 0;
    if (strcmp(o->layout, "builds-toolkit") == 0) {
        nm.strip = "builds/cuda-toolkit/";
    } else if (strcmp(o->layout, "builds-components") == 0) {
        nm.strip = "builds/";
        nm.by_folder = true;
    } else if (!nested) {
        return cu_error_set(err, CU_E_INPUT, 0, _("%s: unknown runfile layout '%s'"), o->what, o->layout);
    }
    if (!o->sha256)
        return cu_error_set(err, CU_E_CHECKSUM, 0, _("%s has no sha256 to check it against; nothing was placed"), o->what);
    /*
     * One descriptor, read once: the header and the payload are hashed as they are read, and the
     * file is judged by the hash of those very bytes.  Hashing by path and opening again would
     * unpack whatever was renamed there in between.
     */
    fd = open(o->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return cu_error_set(err, errno == ENOENT ? CU_E_NOT_FOUND : CU_E_IO, errno, _("Cannot open %s"), o->path);
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = cu_error_set(err, CU_E_IO, errno, _("%s is not a regular file"), o->path);
        goto out;
    }
    if ((st = cu_sha256_init(&h, err)) != CU_OK)
        goto out;
    hashing = true;
    uint64_t fsize = (uint64_t)sb.st_size;
    size_t hl = fsize < HEAD_MAX ? (size_t)fsize : HEAD_MAX;
    head = cu_xmalloc(hl + 1);
    struct fdrange r = {.fd = fd, .h = &h, .cancel = o->cancel};
    size_t got = 0;
    while (got < hl) {
        ssize_t n = read_hashed(&r, head + got, hl - got);
        if (n < 0) {
            st = cu_error_set(err, CU_E_IO, errno, _("Cannot read %s"), o->path);
            goto out;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    struct cu_runfile_payload p;
    if ((st = cu_runfile_header((const char *)head, got, fsize, o->what, &p, err)) != CU_OK)
        goto check;
    if (p.offset < got) { /* the payload's first bytes came with the header */
        r.pre = head + p.offset;
        r.pre_len = got - (size_t)p.offset;
    } else { /* a header longer than what was read with it: read on to the payload, through the hash */
        drain = cu_xmalloc(1 << 16);
        for (uint64_t skip = p.offset - got; skip > 0;) {
            ssize_t n = read_hashed(&r, drain, skip < (1 << 16) ? (size_t)skip : (1 << 16));
            if (n <= 0) {
                st = cu_error_set(err, CU_E_IO, n < 0 ? errno : 0, _("Cannot read %s"), o->path);
                goto out;
            }
            skip -= (uint64_t)n;
        }
    }
    unsigned char magic[6] = {0};
    size_t mg = 0;
    if (r.pre_len > 0) {
        mg = r.pre_len < sizeof(magic) ? r.pre_len : sizeof(magic);
        memcpy(magic, r.pre, mg);
    }
    if (mg < sizeof(magic) && r.pre_len == 0) { /* peek through the hash: these bytes are the payload's */
        ssize_t n = read_hashed(&r, magic, sizeof(magic));
        mg = n > 0 ? (size_t)n : 0;
        r.pre = magic;
        r.pre_len = mg;
    }
    if ((st = payload_magic(magic, mg, o->what, &p, err)) != CU_OK)
        goto check;
    r.left = p.size;
    struct cu_extract_opts xo = {.dirfd = o->dirfd, .what = o->what, .max_bytes = o->max_bytes,
                                 .max_entries = o->max_entries, .gzip = p.gzip, .cancel = o->cancel,
                                 .rename = rename_member, .rename_ud = &nm};
    cu_log_info("%s: payload of %llu bytes from byte %llu (%s), layout %s", o->what, (unsigned long long)p.size,
                (unsigned long long)p.offset, p.gzip ? "gzip" : "xz", o->layout);
    if (nested)
        st = extract_nested(o, &r, &p, &xo, res, err);
    else
        st = cu_extract(&xo, read_range, &r, res, err);
    if (st == CU_OK && res->n == 0)
        st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s holds none of the toolkit's files asked for"), o->what);
check:
    /*
     * The rest of the file (what the decoders did not need) through the hash too, then the verdict:
     * a file that is not the catalog's is refused as such, whatever else went wrong with it.
     */
    if (st == CU_E_CANCELLED || (o->cancel && atomic_load(o->cancel)))
        goto out;
    if (!drain)
        drain = cu_xmalloc(1 << 16);
    for (;;) {
        ssize_t n = read_hashed(&r, drain, 1 << 16);
        if (n < 0) {
            if (st == CU_OK)
                st = cu_error_set(err, CU_E_IO, errno, _("Cannot read %s"), o->path);
            goto out;
        }
        if (n == 0)
            break;
        if (o->cancel && atomic_load(o->cancel)) {
            st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
            goto out;
        }
    }
    cu_sha256_final(&h, sha);
    if (strcmp(sha, o->sha256) != 0 || r.hashed != fsize) {
        st = cu_error_set(err, CU_E_CHECKSUM, 0,
                          _("%s has sha256 %s, not the catalog's %s; nothing was placed"), o->what, sha, o->sha256);
        goto out;
    }
    if (st == CU_OK && res_component) {
        const char **c = cu_xcalloc(res->n + 1, sizeof(*c));
        for (size_t i = 0; i < res->n; i++)
            c[i] = cu_runfile_component(res->files[i].path);
        *res_component = c;
    }
out:
    if (st != CU_OK)
        cu_extract_result_fini(res);
    if (hashing)
        cu_sha256_fini(&h);
    free(nm.buf);
    if (fd >= 0)
        close(fd);
    return st;
}

enum cu_status
cu_runfile_stage(const char *path, const char *what, const char *sha256, const char *layout, const char *staging,
                 char *const *components, const atomic_int *cancel, struct cu_extract_result *res,
                 struct cu_error *err)
{
    enum cu_status st;
    memset(res, 0, sizeof(*res));
    if ((st = cu_rm_rf(staging, err)) != CU_OK || (st = cu_mkdir_p(staging, 0755, err)) != CU_OK)
        return st;
    int dfd = open(staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot open %s"), staging);
    struct cu_runfile_opts o = {.path = path, .what = what, .sha256 = sha256, .layout = layout,
                                .dirfd = dfd, .components = (const char *const *)components, .cancel = cancel};
    st = cu_runfile_extract(&o, res, NULL, err);
    close(dfd);
    return st;
}
