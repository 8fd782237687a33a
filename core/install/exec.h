/* SPDX-License-Identifier: MIT */
/*
 * The executor's context: what every installer's run() gets, and what it
 * reports back (each step's outcome and whether it changed anything).
 */
#ifndef CU_EXEC_H
#define CU_EXEC_H

#include <stdatomic.h>
#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/event.h"
#include "core/base/sysroot.h"
#include "core/fetch/net.h"
#include "core/resolve/plan.h"

struct cu_step_result {
    char *installer;
    char *action;
    char *detail;
    enum cu_status status;
    bool changed;
};

struct cu_run_ctx {
    const struct cu_plan *plan;
    const struct cu_net *net;
    const char *cache_dir;
    unsigned jobs;
    const atomic_int *cancel;
    const struct cu_events *events;
    const char *const *envp;
    bool is_root;
    const char *profile_d;   /* /etc/profile.d (CUDAUP_PROFILE_D in tests) */
    /* The machine root (--root), or NULL for this machine: what is written inside it (PROFILE_D there) is
     * opened through it, so that the tree's own absolute links lead inside it, never to this host. */
    const struct cu_sysroot *root;
    /* The command holds PREFIX's lock (cu_prefix_lock) from its first change to its end: every step
     * runs under it, and the toolkit transaction does not take it again.  When the command took it
     * through cu_run_ctx_lock, prefix_lock_fd is the lock, held until cu_run_ctx_fini: after the
     * command's result is reported, so that no other command comes between its last step and it. */
    bool prefix_locked;
    bool prefix_lock_owned;
    int prefix_lock_fd;
    char *prefix_lock_dir; /* the prefix it locks (its lock file goes at the end when nothing else is left there) */
    /* what happened */
    struct cu_step_result *results;
    size_t n_results;
    bool toolkit_changed, cudnn_changed;
    char *python;            /* the environment's interpreter, once pyenv made it */
};

/**
 * Take @prefix's lock for the rest of the command (a no-op when it holds it already): kept until
 * cu_run_ctx_fini.  Errors: as cu_prefix_lock (CU_E_BUSY when another cudaup holds it).
 */
CU_NODISCARD enum cu_status cu_run_ctx_lock(struct cu_run_ctx *ctx, const char *prefix, struct cu_error *err);

/** Record a step's outcome (copies the strings). */
void cu_run_result(struct cu_run_ctx *ctx, const char *installer, const char *action, const char *detail,
                   enum cu_status st, bool changed);
/** Free what the steps recorded, and let the prefix's lock go when the command took it. */
void cu_run_ctx_fini(struct cu_run_ctx *ctx);
/** Whether any step recorded in @ctx changed something. */
bool cu_run_changed(const struct cu_run_ctx *ctx);

/** Emit a log line as an event. */
void cu_run_log(const struct cu_run_ctx *ctx, const char *installer, const char *fmt, ...) CU_PRINTF(3, 4);

#endif /* CU_EXEC_H */
