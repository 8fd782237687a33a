/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/install/exec.h"

#include <stdarg.h>
#include <stdlib.h>

#include "core/base/mem.h"
#include "core/install/prefixlock.h"

void
cu_run_result(struct cu_run_ctx *ctx, const char *installer, const char *action, const char *detail,
              enum cu_status st, bool changed)
{
    ctx->results = cu_xreallocarray(ctx->results, ctx->n_results + 1, sizeof(*ctx->results));
    ctx->results[ctx->n_results++] = (struct cu_step_result){cu_xstrdup(installer), cu_xstrdup(action),
                                                             cu_xstrdup(detail), st, changed};
    struct cu_event e = {.type = CU_EV_STEP_DONE, .installer = installer, .message = detail, .status = st,
                         .changed = changed};
    cu_emit(ctx->events, &e);
}

enum cu_status
cu_run_ctx_lock(struct cu_run_ctx *ctx, const char *prefix, struct cu_error *err)
{
    if (ctx->prefix_locked)
        return CU_OK;
    enum cu_status st = cu_prefix_lock(prefix, &ctx->prefix_lock_fd, err);
    if (st == CU_OK) {
        ctx->prefix_locked = ctx->prefix_lock_owned = true;
        free(ctx->prefix_lock_dir);
        ctx->prefix_lock_dir = cu_xstrdup(prefix);
    }
    return st;
}

void
cu_run_ctx_fini(struct cu_run_ctx *ctx)
{
    if (ctx->prefix_lock_owned) {
        cu_prefix_unlock_tidy(ctx->prefix_lock_fd, ctx->prefix_lock_dir);
        ctx->prefix_locked = ctx->prefix_lock_owned = false;
    }
    cu_clear_ptr(&ctx->prefix_lock_dir, free);
    for (size_t i = 0; i < ctx->n_results; i++) {
        free(ctx->results[i].installer);
        free(ctx->results[i].action);
        free(ctx->results[i].detail);
    }
    free(ctx->results);
    ctx->results = NULL;
    cu_clear_ptr(&ctx->python, free);
    ctx->n_results = 0;
}

void
cu_run_log(const struct cu_run_ctx *ctx, const char *installer, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = cu_xvasprintf(fmt, ap);
    va_end(ap);
    struct cu_event e = {.type = CU_EV_LOG, .installer = installer, .message = msg};
    cu_emit(ctx->events, &e);
    free(msg);
}

bool
cu_run_changed(const struct cu_run_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n_results; i++)
        if (ctx->results[i].changed)
            return true;
    return false;
}
