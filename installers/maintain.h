/* SPDX-License-Identifier: MIT */
/*
 * Install, repair and uninstall, shared by their commands and the wizard.
 * Each records its steps in a struct cu_run_ctx.  They may run on any one
 * thread (the wizard runs them on its worker); events go to ctx->events.
 */
#ifndef CU_MAINTAIN_H
#define CU_MAINTAIN_H

#include "core/catalog/catalog.h"
#include "core/install/exec.h"
#include "core/base/str.h"
#include "core/verify/verify.h"

/**
 * Carry @ctx->plan out: the toolkit transaction (CUDA and cuDNN), then the
 * environment, the Python environment and the framework.  Stops at the
 * first failure or when ctx->cancel is set (CU_E_CANCELLED).
 */
CU_NODISCARD enum cu_status cu_install_run(struct cu_run_ctx *ctx, struct cu_error *err);

/**
 * What can fail without touching the system, asked before the first system change (the driver's
 * packages): every archive of the plan the cache does not hold, the Python cudaup brings, and the
 * package index the framework's wheels come from (when pip is not pointed elsewhere), each asked for
 * at once (core/fetch/probe.h).  Room on disk was checked when the plan was made.  Errors:
 * CU_E_NETWORK or CU_E_CHECKSUM naming each that will fail, CU_E_CANCELLED.
 */
CU_NODISCARD enum cu_status cu_install_preflight(struct cu_run_ctx *ctx, struct cu_error *err);

/**
 * The Python environment recorded in STATE/pyenv.json: its interpreter and
 * framework name, or NULL each.  The caller frees both.
 */
void cu_pyenv_recorded(const char *state_dir, char **python, char **framework);

/* Every Python environment STATE/pyenv.json records (the first, then "envs"), as verify checks them. */
struct cu_pyenv_recs {
    struct cu_verify_env *v;
    struct cu_verify_toolkit *tk; /* the toolkit of each (issue 50) */
    size_t n;
    struct cu_strv own; /* the strings they point at */
};
void cu_pyenv_recs_read(const char *state_dir, struct cu_pyenv_recs *out);

void cu_pyenv_recs_fini(struct cu_pyenv_recs *r);
/** Point @o's environment fields (python, framework, bundled, env_name, more) at @r (borrowed). */
void cu_pyenv_recs_apply(const struct cu_pyenv_recs *r, struct cu_verify_opts *o);

struct cu_maint_in {
    const char *prefix, *state_dir, *cache_dir;
    const char *mirror;            /* a --mirror overriding the record's, or NULL */
    const char *ca_cert;           /* --ca-cert, or NULL */
    const struct cu_catalog *catalog;
    unsigned retries;
    const char *profile_d;
    const struct cu_sysroot *root; /* the machine root PROFILE_D may lie in (cu_run_ctx's root), or NULL */
    bool keep_env;                 /* uninstall: keep the Python environment made for that CUDA */
    const char *const *envp;       /* for the tools uninstall runs (conda), or NULL */
    const char *shell_rc;          /* uninstall: --shell-rc, a start-up file whose cudaup block goes too (as install
                                      took it), beside those STATE records; or NULL */
};

/** The newest CUDA in @prefix that cudaup installed, other than cuda-@except_mm (NULL: any), as "cuda-X.Y";
 * NULL when none.  Caller frees.  (uninstall goes on to it; its preview names it.) */
char *cu_maint_newest_managed(const char *prefix, const char *except_mm);

/** Remove PREFIX/cuda-@mm; when it was the last, its environment lines go too. */
CU_NODISCARD enum cu_status cu_uninstall_run(const struct cu_maint_in *in, const char *mm, struct cu_run_ctx *ctx,
                                             struct cu_error *err);

/** `uninstall env`: remove the environments cudaup made that hold their own toolkit (--toolkit wheels or none), with their
 *  compiler wheels; "pyenv" "remove" steps, none when there is none. */
CU_NODISCARD enum cu_status cu_env_uninstall_run(const struct cu_maint_in *in, struct cu_run_ctx *ctx, struct cu_error *err);

/** Remove PREFIX/cudaup/python/@minor, unless a venv still uses it (CU_E_UNSUPPORTED). Gone already: CU_OK. */
CU_NODISCARD enum cu_status cu_python_uninstall_run(const struct cu_maint_in *in, const char *minor,
                                                    struct cu_run_ctx *ctx, struct cu_error *err);

struct cu_repair_out {
    char **components; /* re-created, NULL-terminated; caller frees (cu_strv_free) */
    size_t files, modes;
};

/**
 * Repair @dir from its record: modes put back in place, components owning a
 * missing or altered file re-created (from the cache when it has them).
 * ctx->net is set up here.  Errors: CU_E_UNSUPPORTED (no record),
 * CU_E_PROBLEMS (files still wrong afterwards), and install's.
 */
CU_NODISCARD enum cu_status cu_repair_run(const struct cu_maint_in *in, const char *dir, bool deep,
                                          struct cu_repair_out *out, struct cu_run_ctx *ctx, struct cu_error *err);

/** repair where there is no CUDA install and the recorded environment holds its own toolkit (--toolkit wheels or none):
 *  the Python cudaup brought for it, its pip hold and activation, its compiler wheels (pytoolkit.h). */
CU_NODISCARD enum cu_status cu_env_repair_run(const struct cu_maint_in *in, bool deep, struct cu_repair_out *out,
                                              struct cu_run_ctx *ctx, struct cu_error *err);

#endif
