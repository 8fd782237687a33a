/* SPDX-License-Identifier: MIT */
/*
 * The install transaction's own state, shared by its steps: pipeline.c (download each archive,
 * hash and unpack it as it lands), place.c (build the new tree from the staged files and the
 * old tree) and toolkit.c (the transaction: the prefix lock, the switch; python, mirror,
 * uninstall).  Not for callers outside core/install: they use toolkit.h.
 */
#ifndef CU_TOOLKIT_INT_H
#define CU_TOOLKIT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/stream.h"
#include "core/install/toolkit.h"
#include "core/unpack/extract.h"

struct cpus; /* the CPUs handed to decoders (pipeline.c) */
struct tree; /* the new tree (below) */

/* ---- pipeline.c -------------------------------------------------------------------------------- */

struct job {
    const struct cu_plan_download *d;
    struct tree *place_into; /* install: move the unpacked files into the new tree as soon as they are checked */
    char *final, *partial;
    int lock; /* this run's hold on the archive in the cache (core/fetch/cache.h); -1: none */
    bool cached;
    bool refetch;   /* the cache's copy failed its hash: deleted, to be downloaded again in this run */
    bool refetched; /* this is that second try (never a third) */
    dev_t cached_dev; /* the cache's copy that was read (only that one is deleted when it fails its hash) */
    ino_t cached_ino;
    struct cu_stream stream;
    bool stream_open;
    char *staging; /* unpack here; NULL: only hash */
    struct cu_extract_result res;
    struct cu_error result;
    const struct cu_run_ctx *ctx;
    atomic_int *stop;
    const char *installer;
    uint64_t have;    /* cached: the file's size */
    unsigned threads; /* xz decoder threads (a multi-block stream uses them) */
    bool ahead;       /* decode on a thread of its own, ahead of the unpacking */
    struct cpus *cpus; /* NULL: run without asking for a CPU */
    size_t idx;        /* this job's place in the line */
    int64_t wait_bytes, wait_cpu; /* microseconds, for the log */
};

/*
 * Fetch and consume @n downloads; jobs[i].staging set means unpack.  An archive the cache held
 * that fails its hash is deleted and downloaded again in the same run (a second round of the
 * pipeline for those alone), never failing the run by itself.  The
 * caller owns *jobs_out (cu_pipeline_jobs_fini) in the order largest first.  On a failure,
 * *@culprit (when given) names the installer whose archive failed ("cuda",
 * "cudnn", "python").
 */
CU_NODISCARD enum cu_status cu_pipeline(const struct cu_run_ctx *ctx, const struct cu_plan_download *const *dl,
                                        size_t n, const char *staging_root, struct tree *place_into,
                                        struct job **jobs_out, const char **culprit, struct cu_error *err);

/** Free the @n jobs of cu_pipeline() (their streams, cache holds and staging names) and the array. */
void cu_pipeline_jobs_fini(struct job *jobs, size_t n);

/* ---- place.c ----------------------------------------------------------------------------------- */

struct tree {
    int fd; /* the new tree */
    struct cu_record *rec;
    size_t cap;
    struct cu_error *err;
    const struct cu_plan *plan;   /* for the order of names in messages */
    pthread_mutex_t mu;           /* workers place their components as each is done */
    bool placing;                 /* mu is initialised */
};

/**
 * Move one unpacked entry of @component from its staging folder (@sfd) into the tree and record
 * it.  Errors (in t->err): CU_E_ARCHIVE (two components install one path with different
 * contents), CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_place(struct tree *t, int sfd, const char *component, const struct cu_extract_file *f);

/** A worker's finished component, into the new tree: one worker at a time (t->mu), errors in @err. Any thread. */
CU_NODISCARD enum cu_status cu_place_job(struct tree *t, const struct job *j, struct cu_error *err);

/** Bring a kept component's file @f over from the old tree (@oldfd): hard links, no copies. */
CU_NODISCARD enum cu_status cu_place_keep(struct tree *t, int oldfd, const struct cu_record_file *f);

/** cudaup's own files in the tree at @tree_path (lib64 -> lib, version.json), recorded as "cudaup". */
CU_NODISCARD enum cu_status cu_place_write_own_files(struct tree *t, const struct cu_plan *p, const char *tree_path);

#endif /* CU_TOOLKIT_INT_H */
