/* SPDX-License-Identifier: MIT */
/*
 * The hold of a Python environment cudaup makes (issue 45): once pip has installed the frameworks, each of them
 * and of their CUDA wheels stays at the release pip installed -- the build planned for this machine's GPUs, a
 * local version such as 2.14.1+cu126 included -- through ENV/cudaup-constraints.txt, which the environment's own
 * pip.conf (pip's site configuration, ENV/pip.conf for a venv and a conda environment alike) and its activation
 * (PIP_CONSTRAINT) name, beside the index the frameworks came from.  `pip install -U torch` then stays on a build
 * with code for the GPU, and `pip install` of another package cannot replace them.  `cudaup install --framework
 * X==V` plans another build and moves the hold (lifted before its pip runs, written again after); `cudaup repair`
 * puts it back from the record (STATE/pyenv.json's "hold").
 */
#ifndef CU_INST_PYHOLD_H
#define CU_INST_PYHOLD_H

#include <jansson.h>
#include <stdbool.h>

#include "core/catalog/catalog.h"
#include "core/install/exec.h"
#include "core/machine/sysinfo.h"
#include "core/resolve/plan.h"

/**
 * The hold of plan @p's environment: p->hold, the step that says what is held where, and the reason why (from
 * @cat and the GPUs of @f: what `pip install -U` would take without it).  Nothing without a framework or an
 * environment.  Called once the installers have planned their steps.
 */
void cu_pyhold_plan(struct cu_plan *p, const struct cu_catalog *cat, const struct cu_facts *f);

/** What lifting the hold of an environment put aside (cu_pyhold_lift), to put back when pip fails. */
struct cu_pyhold_saved {
    char *file, *conf;       /* the hold file and ENV/pip.conf */
    char *file_text, *conf_text; /* what they held before, or NULL: there was none (or pip.conf was not cudaup's) */
};

/**
 * Before pip runs in the environment at @env: lift its hold, so that the new plan's pip is held by the new plan
 * alone -- the hold file keeps only a comment (PIP_CONSTRAINT may name it: the user ran cudaup in the activated
 * environment), cudaup's own ENV/pip.conf goes (a pip.conf of the user's stays).  What they held goes to @s.
 * Errors: CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_pyhold_lift(const char *env, struct cu_pyhold_saved *s, struct cu_error *err);
/** Put back what cu_pyhold_lift set aside (pip failed: the environment still holds the old build). */
void cu_pyhold_unlift(const struct cu_pyhold_saved *s);
void cu_pyhold_saved_fini(struct cu_pyhold_saved *s);

/** An index a pip run of the plan was handed (--index-url). */
struct cu_pyhold_index {
    const char *url;
    bool explicit_; /* --index-url or the site mirror's: pip.conf's index-url; else an extra-index-url */
};

/**
 * After pip installed @p's frameworks in the environment at @env: write the hold -- every framework of the plan,
 * what each requires with an exact pin (under the extras asked for) and every nvidia-* wheel they require, at the
 * release installed, and the plan's constraints for what is not installed -- to the hold file, and cudaup's
 * ENV/pip.conf naming it with @indexes (the @n indexes cudaup handed pip; none: pip's own configuration stays in
 * charge).  A pip.conf of the user's is left as it is (the activation's PIP_CONSTRAINT holds alone).  *@rec gets
 * the record for STATE/pyenv.json (caller frees).  *@changed is set when a file differs from what it held before
 * the lift (@before, or NULL).  Errors: CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_pyhold_write(const struct cu_plan *p, const char *env, const struct cu_pyhold_index *indexes,
                                            size_t n, const struct cu_pyhold_saved *before, json_t **rec, bool *changed,
                                            struct cu_error *err);

/**
 * `cudaup repair`: put back the hold of each environment STATE/pyenv.json records -- the hold file, cudaup's
 * pip.conf and the activation that names it -- where it is missing or altered, and bring back a held package pip
 * has since moved (pip install of the held release, held by the restored files).  Records a "pyenv" "hold" step
 * per environment it changed.  Errors: CU_E_IO; CU_E_PROBLEMS when a held package could not be brought back.
 */
CU_NODISCARD enum cu_status cu_pyhold_repair(const char *state_dir, struct cu_run_ctx *ctx, struct cu_error *err);

#endif /* CU_INST_PYHOLD_H */
