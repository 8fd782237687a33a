/* SPDX-License-Identifier: MIT */
/*
 * The frameworks, installed with pip inside the Python environment: one pip run per package index,
 * so that each framework keeps its own (PyTorch's CUDA index) while the CUDA wheels they share are
 * held by one constraints file.  The user's pip configuration wins: PIP_INDEX_URL, PIP_FIND_LINKS,
 * PIP_NO_INDEX (or the same in pip.conf) are left to pip, and PyTorch's CUDA index is added only
 * when none of them is set, so air-gapped sites keep working.
 */
#include "config.h"

#include "installer.h"

#include <stdlib.h>
#include <string.h>

#include "core/install/exec.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "pyenv.h"
#include "pyhold.h"

static bool
same_index(const struct cu_plan_framework *a, const struct cu_plan_framework *b)
{
    if (!a->index_url || !b->index_url)
        return !a->index_url && !b->index_url;
    return strcmp(a->index_url, b->index_url) == 0 && a->index_explicit == b->index_explicit;
}

/*
 * The pip runs of the environment, in the order the frameworks were named: the frameworks of one
 * index in one run.  Each run is a framework entry whose pip[] holds every requirement of its index;
 * the caller frees them with cu_pip_runs_free().
 */
static struct cu_plan_framework *
pip_runs(const struct cu_plan *p, size_t *n_runs)
{
    size_t n;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &n);
    struct cu_plan_framework *runs = cu_xcalloc(n + 1, sizeof(*runs));
    *n_runs = 0;
    for (size_t i = 0; i < n; i++) {
        struct cu_plan_framework *r = NULL;
        for (size_t k = 0; k < *n_runs && !r; k++)
            if (same_index(&runs[k], fw[i]))
                r = &runs[k];
        if (!r) {
            r = &runs[(*n_runs)++];
            *r = *fw[i]; /* borrows its strings; pip[] is the run's own */
            r->pip = NULL;
        }
        size_t have = 0, add = 0;
        for (char **q = r->pip; q && *q; q++)
            have++;
        for (char **q = fw[i]->pip; q && *q; q++)
            add++;
        r->pip = cu_xreallocarray(r->pip, have + add + 1, sizeof(char *));
        for (size_t k = 0; k < add; k++)
            r->pip[have + k] = fw[i]->pip[k]; /* borrowed */
        r->pip[have + add] = NULL;
    }
    return runs;
}

static void
pip_runs_free(struct cu_plan_framework *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(runs[i].pip);
    free(runs);
}

static void
inst_framework_plan(struct cu_plan *p)
{
    if (!p->framework || !p->env.tool || strcmp(p->env.tool, "none") == 0)
        return;
    struct cu_plan_framework *fw = p->framework;
    if (fw->constraints && fw->constraints[0] && p->state_dir && !fw->constraints_file) {
        CU_AUTOFREE char *name = cu_xasprintf("pip-constraints-%s.txt", p->env.name ? p->env.name : "env");
        size_t n;
        struct cu_plan_framework *const *all = cu_plan_frameworks(p, &n);
        for (size_t i = 0; i < n; i++) /* one file for the environment: every framework is held to it */
            if (!all[i]->constraints_file)
                all[i]->constraints_file = cu_path_join(p->state_dir, name);
        struct cu_buf c;
        cu_buf_init(&c);
        for (char **r = fw->constraints; *r; r++)
            cu_buf_printf(&c, "%s%s", c.len ? ", " : "", *r);
        cu_plan_add_step(p, "framework", "pip-constraints", _("hold pip to %s (%s)"), c.data, fw->constraints_file);
        cu_buf_fini(&c);
    }
    size_t n_runs;
    struct cu_plan_framework *runs = pip_runs(p, &n_runs);
    for (size_t i = 0; i < n_runs; i++) {
        struct cu_buf b;
        cu_buf_init(&b);
        for (char **r = runs[i].pip; r && *r; r++)
            cu_buf_printf(&b, "%s%s", b.len ? " " : "", *r);
        if (runs[i].index_url)
            cu_plan_add_step(p, "framework", "pip-install", _("pip install %s from %s inside %s"), b.data,
                             runs[i].index_url, p->env.name);
        else
            cu_plan_add_step(p, "framework", "pip-install", _("pip install %s inside %s"), b.data, p->env.name);
        cu_buf_fini(&b);
    }
    pip_runs_free(runs, n_runs);
}

static enum cu_status
pip_install(struct cu_run_ctx *ctx, const struct cu_plan_framework *run, bool *changed, bool *pushed,
            struct cu_error *err)
{
    struct cu_strv argv;
    cu_strv_init(&argv);
    cu_strv_push(&argv, ctx->python);
    cu_strv_push(&argv, "-m");
    cu_strv_push(&argv, "pip");
    cu_strv_push(&argv, "install");
    cu_strv_push(&argv, "--disable-pip-version-check");
    /* pip 24.1 and later print the bytes of each download as lines: the stage shows them. */
    if (cu_pip_has_raw_progress(ctx->python)) {
        cu_strv_push(&argv, "--progress-bar");
        cu_strv_push(&argv, "raw");
    }
    *pushed = cu_pip_push_sources(&argv, ctx, ctx->python, run);
    cu_env_stage(ctx, "framework", "pip-resolve", run->name);
    struct cu_exec_result res;
    enum cu_status st = cu_pip_run(ctx, "framework", "environment", &argv, &res, err);
    if (st == CU_OK && res.exit_code != 0) {
        st = cu_error_set(err, CU_E_TOOL, 0, _("pip could not install %s: %s"), run->pip[0], cu_exec_last_line(&res));
        cu_error_advise(err, "%s", _("If it could not download packages, point pip at a local index or wheel folder (PIP_INDEX_URL, or PIP_FIND_LINKS with PIP_NO_INDEX=1), then run the command again."));
    } else if (st == CU_OK)
        *changed |= strstr(res.out.data, "Successfully installed") != NULL;
    cu_exec_result_fini(&res);
    cu_strv_fini(&argv);
    return st;
}

static enum cu_status
inst_framework_run(struct cu_run_ctx *ctx, struct cu_error *err)
{
    const struct cu_plan *p = ctx->plan;
    const struct cu_plan_framework *fw = p->framework;
    enum cu_status st;
    bool changed = false;
    if (!fw || !ctx->python)
        return CU_OK;
    CU_AUTOFREE char *names = cu_plan_framework_names(p, ",");
    struct cu_event e = {.type = CU_EV_STEP_START, .installer = "framework", .message = names};
    cu_emit(ctx->events, &e);
    CU_AUTOFREE char *envdir = cu_xstrdup(ctx->python);
    for (int i = 0; i < 2; i++)
        *strrchr(envdir, '/') = '\0'; /* ENV/bin/python -> ENV */
    /* The environment's hold is lifted while this plan's pip runs, and written again for what it installed. */
    struct cu_pyhold_saved saved = {0};
    st = cu_pip_constraints_write(fw, err);
    if (st == CU_OK && p->hold)
        st = cu_pyhold_lift(envdir, &saved, err);
    size_t n_runs = 0, n_idx = 0;
    struct cu_plan_framework *runs = st == CU_OK ? pip_runs(p, &n_runs) : NULL;
    struct cu_pyhold_index *idx = cu_xcalloc(n_runs + 1, sizeof(*idx));
    for (size_t i = 0; st == CU_OK && i < n_runs; i++) {
        bool pushed = false;
        st = pip_install(ctx, &runs[i], &changed, &pushed, err);
        if (pushed)
            idx[n_idx++] = (struct cu_pyhold_index){runs[i].index_url, runs[i].index_explicit};
    }
    json_t *hold = NULL;
    if (st == CU_OK && p->hold) {
        bool hc = false;
        st = cu_pyhold_write(p, envdir, idx, n_idx, &saved, &hold, &hc, err);
        changed |= hc;
    } else if (st != CU_OK && p->hold) {
        cu_pyhold_unlift(&saved); /* pip changed nothing it could not finish: the old hold stands */
    }
    free(idx);
    pip_runs_free(runs, n_runs);
    cu_pyhold_saved_fini(&saved);
    if (st == CU_OK)
        st = cu_pyenv_state_write(p, envdir, ctx->python, true, false, hold, err);
    json_decref(hold);
    cu_run_result(ctx, "framework", "pip-install", st == CU_OK ? fw->pip[0] : cu_error_text(err), st, changed);
    return st;
}

const struct cu_installer_ops inst_framework_ops = {
    .name = "framework",
    .plan = inst_framework_plan,
    .run = inst_framework_run,
};
