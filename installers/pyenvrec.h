/* SPDX-License-Identifier: MIT */
/*
 * Which CUDA a Python environment was made for, and whether cudaup made it: two keys it adds to
 * STATE/pyenv.json ("cuda", "made"), so that uninstalling that CUDA removes the environment
 * (issue 26, item 7) and `list` can show it.  An environment cudaup found and reused is never
 * removed.
 */
#ifndef CU_PYENVREC_H
#define CU_PYENVREC_H

#include <jansson.h>
#include <stdbool.h>

#include "core/install/exec.h"
#include "maintain.h"

/** What STATE/pyenv.json said before a run: the environment's path and whether cudaup made it. */
struct cu_pyenv_mark {
    char *path;
    bool made;
};

void cu_pyenv_mark_read(const char *state_dir, struct cu_pyenv_mark *m);
void cu_pyenv_mark_fini(struct cu_pyenv_mark *m);

/**
 * After an install: write "cuda" (@cuda_path) and "made" into STATE/pyenv.json, "made" true when
 * this run created the environment (a pyenv "create" step that changed something) or @before
 * says cudaup had made the same one.  Nothing when there is no pyenv.json.
 */
void cu_pyenv_mark_write(const char *state_dir, const struct cu_pyenv_mark *before, const struct cu_run_ctx *ctx,
                         const char *cuda_path);

/**
 * After PREFIX/cuda-X.Y (@cuda_dir) was removed: remove the environment cudaup made for it (a venv,
 * or a conda environment through its tool) and STATE/pyenv.json, unless @in->keep_env.  An
 * environment recorded without its CUDA counts as made for it when @last (no cudaup install is
 * left).  Records a "pyenv" step: "remove" or "keep".
 */
CU_NODISCARD enum cu_status cu_pyenv_remove_for(const struct cu_maint_in *in, const char *cuda_dir, bool last,
                                                struct cu_run_ctx *ctx, struct cu_error *err);
/* With @cuda_dir NULL (`uninstall env`, issue 50): the environments cudaup made that hold their own toolkit (STATE/pyenv.json's
 * "toolkit" wheels or none), their compiler wheels with them; an environment made for a CUDA install is never one of them. */

/** The path of the environment STATE/pyenv.json records with --toolkit wheels at CUDA @mm ("13.0"), as this machine sees
 *  it; NULL when none.  Caller frees. */
char *cu_pyenv_toolkit_env(const char *state_dir, const char *mm);

/** The recorded environment for `list`: {tool, name, path, framework, cuda, made, hold {file, packages{}} or null},
 *  or NULL. */
json_t *cu_pyenv_list_json(const char *state_dir);

#endif /* CU_PYENVREC_H */
