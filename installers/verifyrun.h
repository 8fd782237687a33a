/* SPDX-License-Identifier: MIT */
/*
 * What `verify` checks, chosen once for `cudaup verify` and the wizard's Validation and rerun menu (verifyrun.c): the
 * CUDA install, or, where there is none, the environment that holds its own toolkit (--toolkit wheels or none, issue 50).
 */
#ifndef CU_INST_VERIFYRUN_H
#define CU_INST_VERIFYRUN_H

#include <stdbool.h>

#include "core/verify/verify.h"

/* An environment cudaup made that holds its own toolkit, as STATE/pyenv.json records it. */
struct cu_toolkit_env {
    char *path;       /* the environment's folder */
    const char *kind; /* "wheels" or "none" (static) */
    char *home;       /* wheels: its toolkit folder (CUDA_HOME of its activation), or NULL */
    char *release;    /* wheels: the CUDA release of its compiler wheels ("13.0.2"), or NULL */
};

/**
 * The environment STATE/pyenv.json records first, where it holds its own toolkit (--toolkit wheels or none) and, with
 * @version ("13.0"; NULL: any), its compiler wheels are of that release (major.minor): true and @out filled (free it with
 * cu_toolkit_env_fini); else false.  verify, repair and the wizard turn to it where there is no CUDA install.
 */
bool cu_toolkit_env_find(const char *state_dir, const char *version, struct cu_toolkit_env *out);
void cu_toolkit_env_fini(struct cu_toolkit_env *e);

/**
 * verify of what cudaup installed: @o->dir the CUDA install, with every environment STATE/pyenv.json records
 * (cu_verify_run); @o->dir NULL, where there is no CUDA install, those environments with the toolkits they hold
 * (cu_verify_run_toolkit_env); then GPU containers where STATE/containers.json records them.  @o's environment fields
 * are set from STATE/pyenv.json for the call and cleared after it.  The outcome is in @out, never an error.
 */
void cu_verify_installed(struct cu_verify_opts *o, struct cu_checks *out);

#endif /* CU_INST_VERIFYRUN_H */
