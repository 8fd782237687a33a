/* SPDX-License-Identifier: MIT */
/*
 * From what the user asked to a complete plan: open the mirror, resolve,
 * fill in where the environment goes, and let each installer add its steps.
 * Shared by `plan`, `install`, `mirror` and the wizard.
 */
#ifndef CU_PREPARE_H
#define CU_PREPARE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "core/base/advice.h"
#include "core/catalog/catalog.h"
#include "core/base/cfg.h"
#include "core/fetch/mirror.h"
#include "core/resolve/plan.h"
#include "core/machine/sysinfo.h"

struct cu_prepare_in {
    const struct cu_config *cfg;
    const struct cu_facts *facts;
    const struct cu_catalog *catalog;
    const char *const *envp;
    const char *prefix, *state_dir, *cache_dir; /* resolved, absolute */
    const char *root; /* --root DIR (its real path) when it is not this machine, else NULL */
    const char *profile_d; /* where scope system writes (the machine root's /etc/profile.d), or NULL */
    bool is_root;
    bool unconstrained; /* `mirror`: plan for other machines */
    bool toolkit_shared; /* the first of several environments, whose toolkit serves them all (envs.c) */
    long low_speed_time_s, retry_base_ms; /* test seams: CUDAUP_LOW_SPEED_TIME, CUDAUP_RETRY_BASE_MS */
};

/**
 * Is the request well formed: versions, the environment options and --driver, read from @in->cfg alone
 * (nothing of the machine, no record)?  So that bad input is exit 2 before anything else is judged, a
 * resume record waiting for a reboot included.  Errors: CU_E_USAGE.
 */
CU_NODISCARD enum cu_status cu_prepare_check(const struct cu_prepare_in *in, struct cu_error *err);

/**
 * Build the plan (installers/envs.c).  With --framework given again (A;B), an environment each: the
 * first environment's plan, with the others in its envs[] (the same CUDA).  *mirror is created here and must outlive the plan (the
 * plan borrows its manifests); the caller frees both.  Errors: those of
 * cu_resolve, and CU_E_USAGE for a bad --env-scope, --env-tool or --mirror.
 */
CU_NODISCARD enum cu_status cu_prepare_plan(const struct cu_prepare_in *in, struct cu_mirror **mirror,
                                            struct cu_plan **plan, struct cu_error *err);

/**
 * cu_prepare_plan() for one environment (--framework without ';'): installers/envs.c calls it for
 * each environment of the request.  Errors as cu_prepare_plan().
 */
CU_NODISCARD enum cu_status cu_prepare_one(const struct cu_prepare_in *in, struct cu_mirror **mirror,
                                           struct cu_plan **plan, struct cu_error *err);

/** One release and whether it fits this machine and the other wishes. */
struct cu_choice {
    bool automatic; /* the first entry: what "auto" gives; label is the version it picks, or NULL */
    char *label; /* "12.8.1", "9.10.2" */
    bool fits;
    char *note;  /* fits: what goes with it ("cuDNN 9.10.2, tensorflow 2.20.0"); else why not */
    enum cu_advice adv; /* does not fit: what its error's advice asks for (the mirror to check), or none */
    char *adv_arg;      /* its argument, or NULL */
};

/**
 * First what "auto" gives, then for each X.Y release of @product on the
 * mirror (the newest patch that fits, else the newest; newest first), ask
 * the resolver whether the wishes in in->cfg with that version give a plan.  For cuDNN the CUDA version is in->cfg->cuda.  Fetches the
 * manifests of the versions that pass the catalog's checks (they are
 * cached).  Errors: those of cu_mirror_new and cu_mirror_index, and
 * CU_E_CANCELLED.  The caller frees *out (cu_choices_free).
 */
CU_NODISCARD enum cu_status cu_prepare_choices(const struct cu_prepare_in *in, enum cu_product product,
                                               const atomic_int *cancel, struct cu_choice **out, size_t *n,
                                               struct cu_error *err);
void cu_choices_free(struct cu_choice *v, size_t n);

/** The shell start-up file cudaup edits for scope user, from $SHELL. Caller owns. */
char *cu_default_shell_rc(const char *const *envp);

#endif /* CU_PREPARE_H */
