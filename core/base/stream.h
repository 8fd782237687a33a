/* SPDX-License-Identifier: MIT */
/*
 * A file being downloaded, read by a consumer thread as the bytes land
 * (SPEED.md 3.1: download, hash and unpack overlap).  The writer appends
 * and says how far the file is good; the reader blocks until there is more
 * or the writer is done.  When the writer has to start over from byte 0
 * (a server that ignored Range), the generation changes and the reader is
 * told to start over too.
 */
#ifndef CU_STREAM_H
#define CU_STREAM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/error.h"

struct cu_stream {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fd;              /* read side */
    uint64_t avail;      /* bytes the writer has made good */
    uint64_t pos;        /* the reader's offset */
    unsigned generation; /* bumped on a restart from 0 */
    unsigned reader_gen;
    bool done;
    struct cu_error result; /* the writer's outcome once done */
    const atomic_int *cancel;
};

/** Open @path for reading (it must exist). Errors: CU_E_IO. */
CU_NODISCARD enum cu_status cu_stream_init(struct cu_stream *s, const char *path, const atomic_int *cancel,
                                           struct cu_error *err);
void cu_stream_fini(struct cu_stream *s);

/* Writer side; any thread. */
void cu_stream_advance(struct cu_stream *s, uint64_t avail);
void cu_stream_restart(struct cu_stream *s);
void cu_stream_finish(struct cu_stream *s, const struct cu_error *result);

/* Reader side. */
/** Read the next bytes: > 0, 0 at the end, -ESTALE after a restart, -ECANCELED, -EIO. */
ssize_t cu_stream_read(struct cu_stream *s, void *buf, size_t len);

/** True when cu_stream_read would return at once (bytes, the end, or a failure to report). */
bool cu_stream_ready(struct cu_stream *s);
/** Start reading from 0 of the current generation. */
void cu_stream_rewind(struct cu_stream *s);
/** Wait until the writer is done and copy its outcome. */
void cu_stream_wait(struct cu_stream *s, struct cu_error *result);

#endif /* CU_STREAM_H */
