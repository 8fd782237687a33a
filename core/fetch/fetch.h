/* SPDX-License-Identifier: MIT */
/*
 * Download archives with libcurl's multi interface, several at once, on the
 * calling thread (curl_multi_poll), each into a .partial file that a
 * consumer reads as it grows (core/base/stream.h).
 *
 * Resume: an existing .partial is continued with Range and If-Range (the
 * validator saved beside it); a server that ignores Range (200), starts
 * elsewhere (Content-Range) or reports another total is followed from byte
 * 0.  A body past the manifest's size is cut off.  5xx, 408, 429, resets,
 * stalls (under 1 KiB/s for the low-speed time) are retried with a jittered
 * back-off, honouring Retry-After; other 4xx are final.  The hash is not
 * checked here: the consumer hashes every byte it reads.
 */
#ifndef CU_FETCH_H
#define CU_FETCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/base/event.h"
#include "core/fetch/net.h"
#include "core/base/stream.h"

struct cu_fetch_item {
    const char *url;
    const char *name;       /* for messages and events */
    const char *installer;  /* for events */
    uint64_t size;          /* from the manifest: the most that is accepted */
    bool size_is_limit;     /* @size is only an upper bound: the source publishes no size */
    const char *partial;    /* the file to write */
    struct cu_stream *stream;
    /* outcome, set by cu_fetch_run */
    struct cu_error result;
    uint64_t resumed_from;  /* bytes already there when it started */
    uint64_t downloaded;    /* bytes received over the network */
};

/**
 * Download every item, at most @parallel at once, in the order given (put
 * the largest first).  Each item's stream is finished with its outcome.
 * On the first final failure the others are stopped (their partial files
 * stay for a later resume).  Returns the first failure, CU_E_CANCELLED when
 * @cancel was set, else CU_OK.
 */
CU_NODISCARD enum cu_status cu_fetch_run(const struct cu_net *net, struct cu_fetch_item *items, size_t n,
                                         unsigned parallel, const atomic_int *cancel,
                                         const struct cu_events *events, struct cu_error *err);

#endif /* CU_FETCH_H */
