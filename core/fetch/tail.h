/* SPDX-License-Identifier: MIT */
/* The last bytes of a file on a server, with one suffix range request. */
#ifndef CU_FETCH_TAIL_H
#define CU_FETCH_TAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/str.h"
#include "core/fetch/net.h"

/**
 * GET @url with "Range: bytes=-@n": on true, @out holds the file's last bytes (at most @n) and *@total its
 * size. False (nothing to say: the caller does without) when the server does not answer 206 with a
 * Content-Range that ends at the file's end, or sends more than asked.
 */
bool cu_net_fetch_tail(const struct cu_net *net, const char *url, size_t n, struct cu_buf *out, uint64_t *total);

#endif
