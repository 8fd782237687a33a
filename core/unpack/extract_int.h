/* SPDX-License-Identifier: MIT */
/*
 * Private to core/unpack: the pieces of cu_extract (extract.h) that its files share.
 * extract_xz.c decodes the compressed input and hands libarchive the raw tar;
 * extract.c reads the tar and writes its entries.
 */
#ifndef CU_EXTRACT_INT_H
#define CU_EXTRACT_INT_H

#include <archive.h>
#include <lzma.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/error.h"
#include "core/unpack/extract.h"

/* ---- the xz layer (extract_xz.c) ------------------------------------------------ */

struct ahead; /* the decoding thread's hand-over (extract_xz.c) */

struct xzsrc {
    cu_read_fn rd;
    void *ud;
    lzma_stream z;
    unsigned char *in, *out;
    bool in_eof, stream_end;
    ssize_t read_err;   /* the reader's -errno */
    lzma_ret lz_err;    /* LZMA_OK when none */
    const atomic_int *cancel;
    uint64_t in_total;  /* compressed bytes read so far (by whoever decodes) */
    uint64_t in_taken;  /* compressed bytes behind what the tar reader has taken (the bomb guard's) */
    bool raw;           /* gzip, zstd: the bytes go to libarchive's own filter as they are */
    struct ahead *ahead; /* decoding on a thread of its own; NULL: on the caller's */
    const char *what;    /* the archive, for the log */
    unsigned threads;    /* the decoder's threads */
};

static inline bool
cu_extract_cancelled(const atomic_int *c)
{
    return c && atomic_load(c) != 0;
}

/** Set up @xs to read through @rd for the options @o (their defaults already filled in). */
void cu_xz_init(struct xzsrc *xs, const struct cu_extract_opts *o, cu_read_fn rd, void *rd_ud);

/**
 * Start the xz decoder (unless the input is gzip or zstd, left to libarchive) with o->memlimit,
 * concatenated streams and o->threads, and, when o->ahead, the thread that decodes ahead.
 * Errors: CU_E_NOMEM.
 */
CU_NODISCARD enum cu_status cu_xz_start(struct xzsrc *xs, const struct cu_extract_opts *o, struct cu_error *err);

/** Stop the decoding thread and wait for it; afterwards xs->read_err and xs->lz_err may be read. */
void cu_xz_ahead_stop(struct xzsrc *x);

/** The next decoded bytes, borrowed until the next call: their length, 0 at the end, -1 on an error. */
ssize_t cu_xz_next(struct xzsrc *x, const unsigned char **buf);

/** libarchive's read callback, over cu_xz_next; @ud is the struct xzsrc. */
la_ssize_t cu_xz_la_read(struct archive *a, void *ud, const void **buf);

/** Why liblzma refused the data, for the user. */
const char *cu_xz_error_text(lzma_ret r);

/** Release what cu_xz_init and cu_xz_start took, stopping the thread ahead first if it still runs. */
void cu_xz_fini(struct xzsrc *xs);

#endif /* CU_EXTRACT_INT_H */
