/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "containers_cli.h"
#include "core/install/envfile.h"
#include "core/install/exec.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/fetch/mirror.h"
#include "core/install/record.h"
#include "core/base/str.h"
#include "core/install/toolkit.h"
#include "progress.h"
#include "core/base/fsutil.h"
#include "installers/maintain.h"
#include "installers/verifyrun.h"
#include "core/doctor/doctor.h"
#include "report.h"

json_t *cu_steps_json(const struct cu_run_ctx *ctx);

static json_t *
problems_json(const struct cu_problems *pr)
{
    json_t *codes = json_array();
    for (size_t i = 0; i < pr->n; i++)
        json_array_append_new(codes, json_string(pr->v[i].code));
    return codes;
}

/*
 * The driver first (nothing on the GPU works until it does), then the install's files, in one run: a
 * driver problem never blocks the files' repair, and what repair leaves to a step of its own (another
 * driver) is said with its command, not looped on.
 */
int
cu_cmd_repair(struct cu_app *app)
{
    struct cu_error err;
    CU_AUTOFREE char *dir = NULL;
    struct cu_progress *prog = NULL;
    struct cu_run_ctx ctx;
    struct cu_repair_out ro = {0};
    struct cu_problems drv;
    struct cu_strv plan;
    enum cu_status st = CU_OK;
    size_t fixable = 0;
    bool reboot = false;
    int rc = 0;

    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    cu_problems_init(&drv);
    cu_strv_init(&plan);
    prog = cu_progress_new(app);
    struct cu_events evs = cu_progress_events(prog);
    ctx.cache_dir = app->cache_dir;
    ctx.jobs = (unsigned)app->cfg.jobs;
    ctx.cancel = app->cancel;
    ctx.events = &evs;
    ctx.envp = app->envp;
    ctx.is_root = app->is_root;
    /* The driver's failure is said at the end; it never keeps the install's files from their repair. */
    struct cu_error derr;
    enum cu_status dst = CU_OK;
    cu_error_clear(&derr);
    if (app->cfg.n_args == 0) {
        dst = cu_repair_driver(app, &ctx, &drv, &plan, &fixable, &reboot, &rc, &derr);
        if (dst == CU_E_USAGE && rc) /* not confirmed */
            goto out;
        /* GPU containers: a CDI spec missing or stale is regenerated (issue 48). */
        size_t cfix = 0;
        struct cu_error cerr;
        enum cu_status cst = dst == CU_OK ? cu_repair_containers(app, &ctx, &drv, &plan, &cfix, &rc, &cerr) : CU_OK;
        if (cst == CU_E_USAGE && rc)
            goto out;
        fixable += cfix;
        if (cst != CU_OK) {
            dst = cst;
            derr = cerr;
        }
    }
    enum cu_status tst = cu_app_target(app, &dir, &err);
    bool env_only = false; /* no CUDA install: the environment holds its own toolkit (--toolkit wheels or none) */
    struct cu_toolkit_env te = {0}; /* the same choice as verify's and the wizard's (installers/verifyrun.h) */
    if (tst == CU_E_NOT_FOUND && app->cfg.n_args == 0 && cu_toolkit_env_find(app->state_dir, NULL, &te)) {
        cu_toolkit_env_fini(&te);
        cu_error_clear(&err);
        cu_app_open_log(app);
        struct cu_maint_in in = {.prefix = app->prefix, .state_dir = app->state_dir, .cache_dir = app->cache_dir,
                                 .mirror = app->cfg.mirror, .ca_cert = app->cfg.ca_cert, .catalog = app->catalog,
                                 .retries = (unsigned)app->cfg.retries, .root = &app->root};
        st = cu_env_repair_run(&in, app->cfg.deep, &ro, &ctx, &err);
        env_only = true;
    } else if (tst == CU_E_NOT_FOUND && (fixable || dst != CU_OK)) {
        cu_error_clear(&err); /* the driver was the repair: no install of CUDA to look at */
    } else if (tst != CU_OK) {
        st = tst;
    } else {
        CU_AUTOFREE char *rp = cu_path_join(dir, ".cudaup/record.json");
        if (!fixable && cu_path_exists(rp) && !cu_app_confirm(app, _("Repair it?"), &rc))
            goto out;
        cu_app_open_log(app);
        struct cu_maint_in in = {.prefix = app->prefix, .state_dir = app->state_dir, .cache_dir = app->cache_dir,
                                 .mirror = app->cfg.mirror, .ca_cert = app->cfg.ca_cert, .catalog = app->catalog,
                                 .retries = (unsigned)app->cfg.retries, .root = &app->root};
        st = cu_repair_run(&in, dir, app->cfg.deep, &ro, &ctx, &err);
    }
    cu_progress_flush(prog);
    if (st == CU_OK && dst != CU_OK) {
        st = dst;
        err = derr;
    }
    if (st == CU_OK && reboot) {
        st = cu_error_set(&err, CU_E_REBOOT, 0, _("The driver is repaired as far as a running system allows; a reboot finishes it."));
        cu_error_advise(&err, _("Reboot (enrol the signing key at the blue MokManager screen if one was queued), then run `cudaup doctor`."));
    }
    bool changed = cu_run_changed(&ctx);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : st == CU_E_REBOOT ? "reboot" : "error"));
        json_object_set_new(doc, "changed", json_boolean(changed));
        json_object_set_new(doc, "path", cu_json_str_or_null(dir));
        json_t *comps = json_array();
        for (char **b = ro.components; b && *b; b++)
            json_array_append_new(comps, json_string(*b));
        json_object_set_new(doc, "repaired_components", comps);
        json_object_set_new(doc, "modes_fixed", json_integer((json_int_t)ro.modes));
        json_object_set_new(doc, "driver_problems", problems_json(&drv));
        json_t *dp = json_array();
        for (size_t i = 0; i < plan.n; i++)
            json_array_append_new(dp, json_string(plan.v[i]));
        json_object_set_new(doc, "driver_plan", dp);
        json_object_set_new(doc, "steps", cu_steps_json(&ctx));
        rc = cu_report_json_result(app, doc, st, &err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        if (fixable)
            printf("%s\n", _("The driver is repaired."));
        for (size_t i = 0; i < drv.n; i++)
            if (strcmp(drv.v[i].code, "driver-flavor-unsupported") == 0)
                printf(_("Left as it is: %s\n"), drv.v[i].fix);
        if (env_only)
            printf("%s\n", cu_run_changed(&ctx) ? _("The Python environment and the CUDA toolkit of its compiler wheels are repaired.")
                                               : _("The Python environment and its toolkit are intact; nothing to repair."));
        else if (!dir)
            ;
        else if (!changed || (fixable && !ro.files && !ro.modes && !(ro.components && ro.components[0])))
            printf(_("%s is intact; nothing to repair.\n"), dir);
        else {
            char files[96], modes[96];
            snprintf(files, sizeof(files), ngettext_("%zu file re-created", "%zu files re-created", ro.files), ro.files);
            snprintf(modes, sizeof(modes), ngettext_("%zu mode put back", "%zu modes put back", ro.modes), ro.modes);
            printf(_("%s is repaired (%s, %s).\n"), dir, files, modes);
        }
    }
out:
    cu_progress_free(prog);
    cu_run_ctx_fini(&ctx);
    cu_strv_free(ro.components);
    cu_problems_fini(&drv);
    cu_strv_fini(&plan);
    return rc;
}
