/* SPDX-License-Identifier: MIT */
/* Shared by the pyenv and framework installers. */
#ifndef CU_INST_PYENV_H
#define CU_INST_PYENV_H

#include "core/install/exec.h"
#include "core/resolve/plan.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "pipprog.h"

/** "3.11" of @python, or NULL when it does not run. Caller frees. */
char *cu_pyenv_python_version(struct cu_run_ctx *ctx, const char *python);

/**
 * Write STATE/pyenv.json: what verify's framework check and uninstall read.  The environment of @p at
 * @path with interpreter @python, and (@with_framework) its frameworks; the first environment's keys
 * at the top, another of --framework given again (@p->extra_env) in "envs", with "made" (@made: this
 * run created it), what its activation does ("activation": enum cu_hook, "cuda_home") and its pip hold
 * ("hold", installers/pyhold.h: @hold, or with NULL what the record held for the same folder).
 */
CU_NODISCARD enum cu_status cu_pyenv_state_write(const struct cu_plan *p, const char *path, const char *python,
                                                 bool with_framework, bool made, const json_t *hold,
                                                 struct cu_error *err);

/** What the activation of @p's environment does (enum cu_hook, core/install/envfile.h). */
unsigned cu_pyenv_hooks(const struct cu_plan *p);
/**
 * STATE/pyenv.json as it reads, or NULL where it does not (no environment recorded; a record that does not read is
 * verify's to name).  The caller json_decref()s it.  Its @i-th environment record: the first (@i 0), then each of
 * "envs"; NULL past the last.
 */
json_t *cu_pyenv_json_load(const char *state_dir);
const json_t *cu_pyenv_json_env(const json_t *j, size_t i);

/** pip's output, line by line, as log lines of @installer, and, when @item is set, as progress
 *  events of that item (the environment's stage): the userdata of cu_pip_output. */
struct cu_pip_log {
    struct cu_run_ctx *ctx;
    const char *installer;
    struct cu_buf line;
    const char *item;
    struct cu_pip_progress pp;
};
void cu_pip_output(void *ud, const char *data, size_t len);

/**
 * Run pip as @argv (at most 4 hours), its output logged line by line under @installer, and its
 * progress reported as events of @item (NULL: none).  CU_OK when it ran to its end (the caller
 * reads res->exit_code); CU_E_CANCELLED when interrupted.  The caller finishes @res.
 */
CU_NODISCARD enum cu_status cu_pip_run(struct cu_run_ctx *ctx, const char *installer, const char *item,
                                       const struct cu_strv *argv, struct cu_exec_result *res, struct cu_error *err);

/** Report the environment's stage: @phase ("create", "pip-resolve", …) at @what. */
void cu_env_stage(struct cu_run_ctx *ctx, const char *installer, const char *phase, const char *what);

/**
 * Push where pip takes the framework from, then its requirements.  The user's pip configuration
 * wins (PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX, or the same in @python's pip.conf): the plan's
 * index goes in only when nothing is configured, or when it was named outright (--index-url, the
 * site mirror's index).  True when the plan's index went in.
 */
bool cu_pip_push_sources(struct cu_strv *argv, struct cu_run_ctx *ctx, const char *python,
                         const struct cu_plan_framework *fw);

/**
 * Write the plan's pins for the libraries pip brings (framework.constraints) to its constraints
 * file, which cu_pip_push_sources() hands pip with -c; nothing when the plan has none.
 * Errors: CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_pip_constraints_write(const struct cu_plan_framework *fw, struct cu_error *err);

/** The last line a failed tool wrote (stderr, else stdout), stripped; points into @res. */
const char *cu_exec_last_line(struct cu_exec_result *res);

#endif
