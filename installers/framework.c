/* SPDX-License-Identifier: MIT */
/*
 * The framework, installed with pip inside the Python environment.  The
 * user's pip configuration wins: PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX
 * (or the same in pip.conf) are left to pip, and PyTorch's CUDA index is
 * added only when none of them is set, so air-gapped sites keep working.
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

static void
inst_framework_plan(struct cu_plan *p)
{
    if (!p->framework || !p->env.tool || strcmp(p->env.tool, "none") == 0)
        return;
    struct cu_plan_framework *fw = p->framework;
    if (fw->constraints && fw->constraints[0] && p->state_dir && !fw->constraints_file) {
        CU_AUTOFREE char *name = cu_xasprintf("pip-constraints-%s.txt", p->env.name ? p->env.name : "env");
        fw->constraints_file = cu_path_join(p->state_dir, name);
        struct cu_buf c;
        cu_buf_init(&c);
        for (char **r = fw->constraints; *r; r++)
            cu_buf_printf(&c, "%s%s", c.len ? ", " : "", *r);
        cu_plan_add_step(p, "framework", "pip-constraints", _("hold pip to %s (%s)"), c.data, fw->constraints_file);
        cu_buf_fini(&c);
    }
    struct cu_buf b;
    cu_buf_init(&b);
    for (char **r = p->framework->pip; r && *r; r++)
        cu_buf_printf(&b, "%s%s", b.len ? " " : "", *r);
    if (p->framework->index_url)
        cu_plan_add_step(p, "framework", "pip-install", _("pip install %s from %s inside %s"), b.data,
                         p->framework->index_url, p->env.name);
    else
        cu_plan_add_step(p, "framework", "pip-install", _("pip install %s inside %s"), b.data, p->env.name);
    cu_buf_fini(&b);
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
    struct cu_event e = {.type = CU_EV_STEP_START, .installer = "framework", .message = fw->name};
    cu_emit(ctx->events, &e);

    struct cu_strv argv;
    cu_strv_init(&argv);
    cu_strv_push(&argv, ctx->python);
    cu_strv_push(&argv, "-m");
    cu_strv_push(&argv, "pip");
    cu_strv_push(&argv, "install");
    cu_strv_push(&argv, "--disable-pip-version-check");
    st = cu_pip_constraints_write(fw, err);
    if (st != CU_OK) {
        cu_strv_fini(&argv);
        cu_run_result(ctx, "framework", "pip-install", cu_error_text(err), st, false);
        return st;
    }
    /* pip 24.1 and later print the bytes of each download as lines: the stage shows them. */
    if (cu_pip_has_raw_progress(ctx->python)) {
        cu_strv_push(&argv, "--progress-bar");
        cu_strv_push(&argv, "raw");
    }
    cu_pip_push_sources(&argv, ctx, ctx->python, fw);
    cu_env_stage(ctx, "framework", "pip-resolve", fw->name);
    struct cu_exec_result res;
    st = cu_pip_run(ctx, "framework", "environment", &argv, &res, err);
    if (st == CU_OK && res.exit_code != 0) {
        st = cu_error_set(err, CU_E_TOOL, 0, _("pip could not install %s: %s"), fw->pip[0], cu_exec_last_line(&res));
        cu_error_advise(err, "%s", _("If it could not download packages, point pip at a local index or wheel folder (PIP_INDEX_URL, or PIP_FIND_LINKS with PIP_NO_INDEX=1), then run the command again."));
    } else if (st == CU_OK) {
        changed = strstr(res.out.data, "Successfully installed") != NULL;
        CU_AUTOFREE char *envdir = cu_xstrdup(ctx->python);
        for (int i = 0; i < 2; i++)
            *strrchr(envdir, '/') = '\0'; /* ENV/bin/python -> ENV */
        st = cu_pyenv_state_write(p->state_dir, p->env.tool, p->env.name, envdir, ctx->python, fw->name, fw->version,
                                  fw->pip, err);
    }
    cu_exec_result_fini(&res);
    cu_strv_fini(&argv);
    cu_run_result(ctx, "framework", "pip-install", st == CU_OK ? fw->pip[0] : cu_error_text(err), st, changed);
    return st;
}

const struct cu_installer_ops inst_framework_ops = {
    .name = "framework",
    .plan = inst_framework_plan,
    .run = inst_framework_run,
};
