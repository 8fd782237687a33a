/* SPDX-License-Identifier: MIT */
/*
 * How large a .tar.xz is unpacked, from its own index, without decompressing it (issue 49 item 3): an xz
 * stream ends with an index of its blocks (each block's compressed and uncompressed size) and a 12-byte
 * footer whose "backward size" says how long the index is. liblzma reads both: the footer with
 * lzma_stream_footer_decode, the index with lzma_index_buffer_decode. The tail of the file is all that is
 * needed, so that the plan can learn the size of an archive on a server with one range request.
 */
#include "config.h"
#include "core/unpack/xzsize.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/mem.h"

bool
cu_xz_tail_size(const unsigned char *tail, size_t n, uint64_t file_size, uint64_t *out)
{
    *out = 0;
    if (n < LZMA_STREAM_HEADER_SIZE || n > file_size || file_size < 2 * LZMA_STREAM_HEADER_SIZE)
        return false;
    lzma_stream_flags footer;
    if (lzma_stream_footer_decode(&footer, tail + n - LZMA_STREAM_HEADER_SIZE) != LZMA_OK)
        return false; /* stream padding after the footer, or not xz: no size rather than a wrong one */
    uint64_t isize = footer.backward_size;
    if (isize > n - LZMA_STREAM_HEADER_SIZE)
        return false; /* the index lies before the bytes given: ask for more */
    const unsigned char *ib = tail + n - LZMA_STREAM_HEADER_SIZE - isize;
    lzma_index *idx = NULL;
    uint64_t memlimit = 64u << 20;
    size_t pos = 0;
    if (lzma_index_buffer_decode(&idx, &memlimit, NULL, ib, &pos, (size_t)isize) != LZMA_OK)
        return false;
    /* One stream that fills the whole file: the index then accounts for every byte, and its sum is the tar's
     * size. Several streams (concatenated xz) would need each one's index: said as unknown. */
    bool whole = pos == isize && lzma_index_file_size(idx) == file_size;
    if (whole)
        *out = lzma_index_uncompressed_size(idx);
    lzma_index_end(idx, NULL);
    return whole;
}

bool
cu_xz_file_size(const char *path, uint64_t *out)
{
    *out = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    struct stat sb;
    bool ok = false;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        uint64_t size = (uint64_t)sb.st_size;
        size_t n = size < CU_XZ_TAIL ? (size_t)size : CU_XZ_TAIL;
        unsigned char *buf = cu_xmalloc(n);
        ssize_t got = pread(fd, buf, n, (off_t)(size - n));
        ok = got == (ssize_t)n && cu_xz_tail_size(buf, n, size, out);
        free(buf);
    }
    close(fd);
    return ok;
}
