/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "containers_cli.h"
#include "core/install/envfile.h"
#include "core/install/exec.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/install/record.h"
#include "core/base/str.h"
#include "core/install/toolkit.h"
#include "installers/maintain.h"
#include "installers/pyenvrec.h"
#include "installers/removal.h"
#include "core/resolve/plan.h"
#include "report.h"
#include "term.h"

json_t *cu_steps_json(const struct cu_run_ctx *ctx);

/* The command's result: the JSON document, or the error, or one sentence. */
static int
report_removal(struct cu_app *app, struct cu_run_ctx *ctx, enum cu_status st, struct cu_error *err,
               const char *removed, const char *absent, json_t *preview)
{
    int rc = 0;
    bool changed = cu_run_changed(ctx);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : "error"));
        json_object_set_new(doc, "changed", json_boolean(changed));
        json_object_set_new(doc, "steps", cu_steps_json(ctx));
        if (preview) /* what it said it would remove, and what stays */
            json_object_set(doc, "removal", preview);
        rc = cu_report_json_result(app, doc, st, err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, err);
    } else if (!app->cfg.quiet) {
        cu_say(stdout, "", "%s", changed ? removed : absent);
        /* What became of the Python environment made for it: never a silent 2 GB left behind. */
        for (size_t i = 0; i < ctx->n_results; i++) {
            const struct cu_step_result *r = &ctx->results[i];
            if (strcmp(r->installer, "pyenv") != 0 || r->status != CU_OK)
                continue;
            if (strcmp(r->action, "remove") == 0 && r->changed)
                cu_say(stdout, "", _("The Python environment made for it, %s, was removed too (--keep-env keeps it)."),
                       r->detail);
            else if (strcmp(r->action, "keep") == 0)
                cu_say(stdout, "", _("The Python environment %s stays; its CUDA is gone, so remove it when you no longer need it."),
                       r->detail);
        }
    }
    json_decref(preview);
    return rc;
}

static int
uninstall_python(struct cu_app *app, const char *minor)
{
    struct cu_error err;
    struct cu_run_ctx ctx;
    int rc = 0;
    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    CU_AUTOFREE char *dir = cu_xasprintf("%s/cudaup/python/%s", app->prefix, minor);
    if (cu_path_exists(dir)) {
        char b[32];
        if (!app->cfg.json && !app->cfg.quiet && (app->cfg.yes || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))))
            cu_say(stdout, "", _("Python %s, which cudaup brought, will be removed: %s (%s)."), minor, dir,
                   cu_format_bytes(cu_tree_bytes(dir), b, sizeof(b)));
        if (!cu_app_confirm(app, _("Remove it?"), &rc))
            return rc;
    }
    cu_app_open_log(app);
    struct cu_maint_in in = {.prefix = app->prefix, .state_dir = app->state_dir, .cache_dir = app->cache_dir,
                             .catalog = app->catalog, .profile_d = app->profile_d, .root = &app->root};
    enum cu_status st = cu_python_uninstall_run(&in, minor, &ctx, &err);
    CU_AUTOFREE char *removed = cu_xasprintf(_("Python %s was removed from %s/cudaup/python."), minor, app->prefix);
    CU_AUTOFREE char *absent =
        cu_xasprintf(_("Python %s is not installed in %s/cudaup/python; nothing was removed."), minor, app->prefix);
    rc = report_removal(app, &ctx, st, &err, removed, absent, NULL);
    cu_run_ctx_fini(&ctx);
    return rc;
}

/* `uninstall env`: the environments cudaup made that hold their own toolkit (--toolkit wheels or none, issue 50). */
static int
uninstall_env(struct cu_app *app)
{
    struct cu_error err;
    struct cu_run_ctx ctx;
    int rc = 0;
    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    struct cu_maint_in in = {.prefix = app->prefix, .state_dir = app->state_dir, .cache_dir = app->cache_dir,
                             .catalog = app->catalog, .profile_d = app->profile_d, .root = &app->root, .envp = app->envp};
    if (!cu_app_confirm(app, _("Remove it?"), &rc))
        return rc;
    cu_app_open_log(app);
    enum cu_status st = cu_env_uninstall_run(&in, &ctx, &err);
    struct cu_buf gone;
    cu_buf_init(&gone);
    for (size_t i = 0; i < ctx.n_results; i++)
        if (strcmp(ctx.results[i].installer, "pyenv") == 0 && strcmp(ctx.results[i].action, "remove") == 0 && ctx.results[i].changed)
            cu_buf_printf(&gone, "%s%s", gone.len ? ", " : "", ctx.results[i].detail);
    CU_AUTOFREE char *removed = cu_xasprintf(_("The Python environment %s was removed, and the CUDA toolkit of its compiler wheels with it."),
                                             gone.len ? gone.data : "");
    CU_AUTOFREE char *absent = cu_xasprintf(_("%s records no environment of cudaup's that holds its own CUDA toolkit (--toolkit wheels or none); nothing was removed."),
                                            app->state_dir);
    /* report_removal's sentences are about a CUDA install: this one says its own. */
    bool changed = cu_run_changed(&ctx);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : "error"));
        json_object_set_new(doc, "changed", json_boolean(changed));
        json_object_set_new(doc, "steps", cu_steps_json(&ctx));
        rc = cu_report_json_result(app, doc, st, &err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        cu_say(stdout, "", "%s", changed ? removed : absent);
    }
    cu_buf_fini(&gone);
    cu_run_ctx_fini(&ctx);
    return rc;
}

int
cu_cmd_uninstall(struct cu_app *app)
{
    struct cu_error err;
    struct cu_run_ctx ctx;
    struct cu_version v;
    char mm[32];
    int rc = 0;
    enum cu_status st;

    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    if (app->cfg.n_args != 1) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'uninstall' needs the CUDA version to remove, such as 12.4."));
        return cu_report_error(app, &err);
    }
    /* "python-3.11" (or "python3.11"): a Python that cudaup brought. */
    const char *a0 = app->cfg.args[0];
    if (strcmp(a0, "driver") == 0)
        return cu_uninstall_driver(app);
    if (strcmp(a0, "containers") == 0)
        return cu_uninstall_containers(app);
    if (strcmp(a0, "env") == 0)
        return uninstall_env(app);
    if (cu_str_has_prefix(a0, "python")) {
        const char *ver = a0 + 6 + (a0[6] == '-');
        if (!cu_version_parse(ver, &v) || v.n != 2) {
            cu_error_set(&err, CU_E_USAGE, 0, _("'%s' is not a Python that cudaup brings, such as python-3.11."), a0);
            return cu_report_error(app, &err);
        }
        return uninstall_python(app, ver);
    }
    if (!cu_version_parse(app->cfg.args[0], &v) || v.n < 2 || v.n > 3) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'%s' is not a CUDA version such as 12.4."), app->cfg.args[0]);
        return cu_report_error(app, &err);
    }
    if (app->cfg.shell_rc && *app->cfg.shell_rc && app->cfg.shell_rc[0] != '/') {
        cu_error_set(&err, CU_E_USAGE, 0, _("--shell-rc: '%s' is not an absolute path."), app->cfg.shell_rc);
        return cu_report_error(app, &err);
    }
    cu_version_format(&v, 2, mm, sizeof(mm));
    /* No CUDA install of that release, but an environment holds its compiler wheels (--toolkit wheels, issue 50):
     * that toolkit goes with its environment, which this command does not remove unasked. */
    CU_AUTOFREE char *cdir = cu_xasprintf("%s/cuda-%s", app->prefix, mm);
    CU_AUTOFREE char *tkenv = cu_path_exists(cdir) ? NULL : cu_pyenv_toolkit_env(app->state_dir, mm);
    if (tkenv) {
        CU_AUTOFREE char *qp = cu_sh_quote(app->prefix);
        CU_AUTOFREE char *qs = cu_sh_quote(app->state_dir);
        CU_AUTOFREE char *rootf = cu_app_root_flag(app);
        cu_error_set(&err, CU_E_UNSUPPORTED, 0,
                     _("CUDA %s is not installed in %s: its toolkit is the compiler wheels inside the Python environment %s (--toolkit wheels), and uninstalling CUDA leaves that environment alone."),
                     mm, app->prefix, tkenv);
        cu_error_advise(&err, _("cudaup uninstall env%s --prefix %s --state-dir %s removes that environment with its compiler wheels."),
                        rootf, qp, qs);
        return cu_report_error(app, &err);
    }
    struct cu_maint_in in = {.prefix = app->prefix, .state_dir = app->state_dir, .cache_dir = app->cache_dir,
                             .catalog = app->catalog, .profile_d = app->profile_d, .root = &app->root, .keep_env = app->cfg.keep_env,
                             .envp = app->envp, .shell_rc = app->cfg.shell_rc};
    /* What goes, with sizes, and what stays, before the question; a folder that is not cudaup's is refused first. */
    struct cu_removal rm;
    if (cu_uninstall_preview(&in, mm, &rm, &err) != CU_OK) {
        cu_removal_fini(&rm);
        return cu_report_error(app, &err);
    }
    if (rm.installed) {
        /* Said where it is asked or --yes goes ahead (not before the refusal that a pipe without --yes gets). */
        bool asks = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
        if (!app->cfg.json && !app->cfg.quiet && (app->cfg.yes || asks)) {
            CU_AUTOFREE char *head = cu_xasprintf(_("Uninstalling CUDA %s removes:"), mm);
            cu_removal_print(app, head, &rm);
        }
        if (!cu_app_confirm(app, _("Remove it?"), &rc)) {
            cu_removal_fini(&rm);
            return rc;
        }
    }
    cu_app_open_log(app);
    if (rm.installed && !app->cfg.json && !app->cfg.quiet) {
        /* Said at once: removing gigabytes takes seconds, and nothing else is said until it is done (issue 49). */
        printf(_("Removing CUDA %s from %s ...\n"), mm, app->prefix);
        fflush(stdout);
    }
    st = cu_uninstall_run(&in, mm, &ctx, &err);
    json_t *said = rm.installed ? cu_removal_json(&rm) : NULL;
    cu_removal_fini(&rm);
    CU_AUTOFREE char *removed = cu_xasprintf(_("CUDA %s was removed from %s."), mm, app->prefix);
    CU_AUTOFREE char *absent = cu_xasprintf(_("CUDA %s is not installed in %s; nothing was removed."), mm, app->prefix);
    rc = report_removal(app, &ctx, st, &err, removed, absent, said);
    cu_run_ctx_fini(&ctx);
    return rc;
}
