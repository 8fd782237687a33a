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
#include "report.h"

json_t *cu_steps_json(const struct cu_run_ctx *ctx);

static const char *const driver_codes[] = {"nouveau", "driver-mismatch", "driver-module-missing",
                                           "driver-unsigned-secure-boot", "driver-unpinned",
                                           "driver-flavor-unsupported"};

static bool
driver_code(const char *code)
{
    for (size_t i = 0; i < CU_N_ELEMENTS(driver_codes); i++)
        if (strcmp(code, driver_codes[i]) == 0)
            return true;
    return false;
}

/* The driver's problems as doctor sees them now. */
static void
driver_problems(struct cu_app *app, const struct cu_facts *f, struct cu_problems *out)
{
    struct cu_problems all;
    cu_problems_init(&all);
    cu_doctor_check(f, app->catalog, &app->root, app->envp, &all);
    cu_drv_doctor(f, app->catalog, &all, &all);
    for (size_t i = 0; i < all.n; i++)
        if (driver_code(all.v[i].code))
            cu_problems_add(out, all.v[i].code, all.v[i].severity, cu_xstrdup(all.v[i].message), cu_xstrdup(all.v[i].fix));
    cu_problems_fini(&all);
}

int
cu_repair_driver(struct cu_app *app, bool *handled)
{
    struct cu_error err;
    struct cu_facts *facts = NULL;
    struct cu_problems pr;
    struct cu_run_ctx ctx;
    int rc = 0;

    *handled = false;
    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    cu_problems_init(&pr);
    if (cu_app_probe(app, &facts, &err) != CU_OK) {
        *handled = true;
        rc = cu_report_error(app, &err);
        goto out;
    }
    driver_problems(app, facts, &pr);
    if (pr.n == 0)
        goto out;
    *handled = true;
    if (!app->cfg.quiet && !app->cfg.json)
        for (size_t i = 0; i < pr.n; i++)
            printf("%s [%s]\n", pr.v[i].message, pr.v[i].code);
    if (!cu_app_confirm(app, _("Repair the driver?"), &rc))
        goto out;
    cu_app_open_log(app);
    struct cu_sys sys;
    cu_sys_init(&sys, app->envp, isatty(STDIN_FILENO) && !app->cfg.json);
    ctx.envp = app->envp;
    ctx.is_root = app->is_root;
    struct inst_driver_ctx dctx = {&sys, NULL, app->state_dir, app->cache_dir, &ctx};
    bool reboot = false;
    enum cu_status st = inst_driver_repair(&dctx, facts, app->catalog, &pr, &reboot, &err);
    if (st == CU_OK && reboot) {
        st = cu_error_set(&err, CU_E_REBOOT, 0, _("The driver is repaired as far as a running system allows; a reboot finishes it."));
        cu_error_advise(&err, _("Reboot (enrol the signing key at the blue MokManager screen if one was queued), then run `cudaup doctor`."));
    }
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : st == CU_E_REBOOT ? "reboot" : "error"));
        json_object_set_new(doc, "changed", json_boolean(cu_run_changed(&ctx)));
        json_t *codes = json_array();
        for (size_t i = 0; i < pr.n; i++)
            json_array_append_new(codes, json_string(pr.v[i].code));
        json_object_set_new(doc, "driver_problems", codes);
        json_object_set_new(doc, "steps", cu_steps_json(&ctx));
        rc = cu_report_json_result(app, doc, st, &err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        printf("%s\n", _("The driver is repaired; run `cudaup repair` again for a CUDA install, and `cudaup doctor` to check."));
    }
out:
    cu_run_ctx_fini(&ctx);
    cu_problems_fini(&pr);
    cu_facts_free(facts);
    return rc;
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
    if (!cu_app_confirm(app, _("Remove the NVIDIA driver packages cudaup installed, and their pin?"), &rc))
        return rc;
    cu_app_open_log(app);
    struct cu_sys sys;
    cu_sys_init(&sys, app->envp, false);
    ctx.envp = app->envp;
    struct inst_driver_ctx dctx = {&sys, NULL, app->state_dir, app->cache_dir, &ctx};
    enum cu_status st = inst_driver_uninstall(&dctx, &err);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : "error"));
        json_object_set_new(doc, "changed", json_boolean(cu_run_changed(&ctx)));
        json_object_set_new(doc, "steps", cu_steps_json(&ctx));
        rc = cu_report_json_result(app, doc, st, &err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        printf("%s\n", _("The NVIDIA driver packages cudaup installed are removed; reboot to unload the module."));
    }
    cu_run_ctx_fini(&ctx);
    return rc;
}
