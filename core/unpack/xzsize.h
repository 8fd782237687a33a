/* SPDX-License-Identifier: MIT */
/* The unpacked size of a .tar.xz from the index at its end (liblzma), without decompressing it. */
#ifndef CU_UNPACK_XZSIZE_H
#define CU_UNPACK_XZSIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How much of a file's end is read for its index: NVIDIA's archives, made by multi-threaded xz, hold a few
 * hundred blocks at most (about 8 bytes each in the index); 64 KiB holds thousands. */
#define CU_XZ_TAIL (64u << 10)

/**
 * @tail: the last @n bytes of an xz file of @file_size bytes. On true, *@out is the size of what it holds
 * uncompressed (for a .tar.xz: the tar, which is what its files take, give or take their blocks). False when
 * the bytes are not one xz stream's end, its index lies before them, or the file holds more than one stream:
 * no size rather than a wrong one.
 */
bool cu_xz_tail_size(const unsigned char *tail, size_t n, uint64_t file_size, uint64_t *out);

/** cu_xz_tail_size for a file on disk (a cached archive, a file:// mirror's). */
bool cu_xz_file_size(const char *path, uint64_t *out);

#endif
