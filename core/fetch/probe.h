/* SPDX-License-Identifier: MIT */
/*
 * Before the first byte of a download: is every archive there, and of the size its manifest lists?
 *
 * One 404 should not be found by the first archive's download while the others are stopped
 * half-way, nor one at a time over several runs: every URL is asked at once (HEAD, or, where the
 * server refuses HEAD, a GET of the first byte), at most --jobs at a time; a file:// mirror is
 * asked by stat.  Only sure answers count: a missing file (404, 410, no such file), a refusal (401,
 * 403) and a size that differs from the manifest's.  Anything else (a timeout, a 5xx, a refused
 * redirect) is left to the download, which retries and says what went wrong.
 */
#ifndef CU_PROBE_H
#define CU_PROBE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/fetch/net.h"

enum cu_probe_verdict {
    CU_PROBE_UNKNOWN, /* no sure answer: the download will tell */
    CU_PROBE_OK,      /* there, of the size listed (or of a size the server did not give) */
    CU_PROBE_MISSING, /* 404, 410, or no such file */
    CU_PROBE_REFUSED, /* 401, 403 */
    CU_PROBE_SIZE,    /* there, but of another size than the manifest's */
};

struct cu_probe_item {
    const char *url;
    const char *name;      /* the component, for messages */
    uint64_t size;         /* from the manifest */
    bool size_is_limit;    /* @size is only an upper bound (the source publishes none) */
    /* outcome, set by cu_probe_run */
    enum cu_probe_verdict verdict;
    long http;             /* the HTTP status that decided it (0: file://) */
    uint64_t found_size;   /* the size the server reported (Content-Length, Content-Range, stat); 0 when it gave none */
};

/**
 * Probe every item, at most @parallel at once, on the calling thread.  Returns CU_OK when no item
 * is sure to fail; else CU_E_NETWORK (one is missing or refused) or CU_E_CHECKSUM (only sizes
 * differ), with @err naming every such item (one log line each, with its URL, when there are
 * several), or CU_E_CANCELLED when @cancel was set.  Nothing is written.
 */
CU_NODISCARD enum cu_status cu_probe_run(const struct cu_net *net, struct cu_probe_item *items, size_t n,
                                         unsigned parallel, const atomic_int *cancel, struct cu_error *err);

/**
 * Advice for a download that failed for good (@st CU_E_NETWORK or CU_E_CHECKSUM) from a mirror
 * that is not NVIDIA's, when @err has none: check that mirror (that it holds this file, or the
 * @n_failed files), or the mirror's Python when @python.
 */
void cu_download_advise(const struct cu_net *net, enum cu_status st, bool python, size_t n_failed,
                        struct cu_error *err);

#endif /* CU_PROBE_H */
