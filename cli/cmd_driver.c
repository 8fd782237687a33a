/* SPDX-License-Identifier: MIT */
/* `repair` and `uninstall driver` for the NVIDIA driver (installers/driver.c does the work). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "core/doctor/doctor.h"
#include "core/doctor/driver_doctor.h"
#include "core/install/exec.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/machine/syscmd.h"
#include "installers/driver.h"
#include "installers/driver_removal.h"
#include "progress.h"
#include "report.h"

json_t *cu_steps_json(const struct cu_run_ctx *ctx);

/* The driver's problems repair reports (with their fix) but leaves to their own step. */
static const char *const report_codes[] = {"driver-flavor-unsupported"};

static bool
in_list(const char *code, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(code, list[i]) == 0)
            return true;
    return false;
}

enum cu_status
cu_repair_driver(struct cu_app *app, struct cu_run_ctx *ctx, struct cu_problems *seen, size_t *fixable, bool *reboot,
                 int *rc, struct cu_error *err)
{
    struct cu_facts *facts = NULL;
    struct cu_problems all, fix;
    enum cu_status st;
    *fixable = 0;
    *reboot = false;
    if ((st = cu_app_probe(app, &facts, err)) != CU_OK)
        return st;
    cu_problems_init(&all);
    cu_problems_init(&fix);
    cu_doctor_check(facts, app->catalog, &app->root, app->envp, &all);
    cu_drv_doctor(facts, app->catalog, &all, &all);
    for (size_t i = 0; i < all.n; i++) {
        const struct cu_problem *p = &all.v[i];
        bool act = inst_driver_repairs(p->code); /* another flavor or branch is an install of its own */
        if (!act && !in_list(p->code, report_codes, CU_N_ELEMENTS(report_codes)))
            continue;
        cu_problems_add(seen, p->code, p->severity, cu_xstrdup(p->message), cu_xstrdup(p->fix));
        if (act)
            cu_problems_add(&fix, p->code, p->severity, cu_xstrdup(p->message), cu_xstrdup(p->fix));
    }
    *fixable = fix.n;
    if (!app->cfg.quiet && !app->cfg.json)
        for (size_t i = 0; i < seen->n; i++)
            printf("%s [%s]\n", seen->v[i].message, seen->v[i].code);
    if (fix.n == 0)
        goto out;
    if (!cu_app_confirm(app, _("Repair the driver?"), rc)) {
        st = CU_E_USAGE;
        goto out;
    }
    cu_app_open_log(app);
    struct cu_sys sys;
    cu_sys_init(&sys, app->envp, app->root.path, isatty(STDIN_FILENO) && !app->cfg.json);
    struct inst_driver_ctx dctx = {&sys, NULL, app->state_dir, app->cache_dir, ctx, app->catalog, NULL};
    st = inst_driver_repair(&dctx, facts, app->catalog, &fix, reboot, err);
    cu_sys_fini(&sys);
out:
    cu_problems_fini(&all);
    cu_problems_fini(&fix);
    cu_facts_free(facts);
    return st;
}

int
cu_uninstall_driver(struct cu_app *app)
{
    struct cu_error err;
    struct cu_run_ctx ctx;
    int rc = 0;
    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    CU_AUTOFREE char *rec = cu_path_join(app->state_dir, "driver.json");
    if (access(rec, F_OK) != 0) {
        cu_error_set(&err, CU_E_NOT_FOUND, 0, _("cudaup has not installed a driver here (no %s); remove it with your package manager."), rec);
        return cu_report_error(app, &err);
    }
    /* What goes, from the record, before the question (a record that is not sound is refused here, first). */
    struct cu_removal rm;
    if (inst_driver_removal(app->state_dir, app->catalog, &rm, &err) != CU_OK) {
        cu_removal_fini(&rm);
        return cu_report_error(app, &err);
    }
    bool asks = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    if (!app->cfg.json && !app->cfg.quiet && (app->cfg.yes || asks))
        cu_removal_print(app, _("Uninstalling the NVIDIA driver undoes what cudaup did:"), &rm);
    json_t *said = cu_removal_json(&rm);
    cu_removal_fini(&rm);
    if (!cu_app_confirm(app, _("Remove the NVIDIA driver packages cudaup installed, and their pin?"), &rc)) {
        json_decref(said);
        return rc;
    }
    cu_app_open_log(app);
    struct cu_sys sys;
    cu_sys_init(&sys, app->envp, app->root.path, false);
    ctx.envp = app->envp;
    struct cu_progress *prog = cu_progress_new(app);
    struct cu_events evs = cu_progress_events(prog);
    ctx.events = &evs;
    struct inst_driver_ctx dctx = {&sys, NULL, app->state_dir, app->cache_dir, &ctx, app->catalog, NULL};
    enum cu_status st = inst_driver_uninstall(&dctx, &err);
    cu_sys_fini(&sys);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : "error"));
        json_object_set_new(doc, "changed", json_boolean(cu_run_changed(&ctx)));
        json_object_set_new(doc, "steps", cu_steps_json(&ctx));
        json_object_set(doc, "removal", said); /* what it said it would undo */
        rc = cu_report_json_result(app, doc, st, &err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        printf("%s\n", _("The NVIDIA driver packages cudaup installed are removed; reboot to unload the module."));
    }
    json_decref(said);
    cu_progress_free(prog);
    cu_run_ctx_fini(&ctx);
    return rc;
}
