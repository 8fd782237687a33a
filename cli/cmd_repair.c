/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
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
#include "report.h"

json_t *cu_steps_json(const struct cu_run_ctx *ctx);

int
cu_cmd_repair(struct cu_app *app)
{
    struct cu_error err;
    CU_AUTOFREE char *dir = NULL;
    struct cu_progress *prog = NULL;
    struct cu_run_ctx ctx;
    struct cu_repair_out ro = {0};
    enum cu_status st;
    int rc = 0;

    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    /* The driver first: nothing on the GPU works until it does. */
    bool handled = false;
    if (app->cfg.n_args == 0 && (rc = cu_repair_driver(app, &handled), handled))
        return rc;
    if (cu_app_target(app, &dir, &err) != CU_OK)
        return cu_report_error(app, &err);
    CU_AUTOFREE char *rp = cu_path_join(dir, ".cudaup/record.json");
    if (cu_path_exists(rp) && !cu_app_confirm(app, _("Repair it?"), &rc))
        return rc;
    cu_app_open_log(app);
    prog = cu_progress_new(app);
    struct cu_events evs = cu_progress_events(prog);
    ctx.cache_dir = app->cache_dir;
    ctx.jobs = (unsigned)app->cfg.jobs;
    ctx.cancel = app->cancel;
    ctx.events = &evs;
    ctx.envp = app->envp;
    ctx.is_root = app->is_root;
    struct cu_maint_in in = {.prefix = app->prefix, .state_dir = app->state_dir, .cache_dir = app->cache_dir,
                             .mirror = app->cfg.mirror, .ca_cert = app->cfg.ca_cert, .catalog = app->catalog, .retries = (unsigned)app->cfg.retries};
    st = cu_repair_run(&in, dir, app->cfg.deep, &ro, &ctx, &err);
    cu_progress_flush(prog);
    bool changed = cu_run_changed(&ctx);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : "error"));
        json_object_set_new(doc, "changed", json_boolean(changed));
        json_object_set_new(doc, "path", json_string(dir));
        json_t *comps = json_array();
        for (char **b = ro.components; b && *b; b++)
            json_array_append_new(comps, json_string(*b));
        json_object_set_new(doc, "repaired_components", comps);
        json_object_set_new(doc, "modes_fixed", json_integer((json_int_t)ro.modes));
        json_object_set_new(doc, "steps", cu_steps_json(&ctx));
        rc = cu_report_json_result(app, doc, st, &err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        if (!changed)
            printf(_("%s is intact; nothing to repair.\n"), dir);
        else
        {
            char files[96], modes[96];
            snprintf(files, sizeof(files), ngettext_("%zu file re-created", "%zu files re-created", ro.files), ro.files);
            snprintf(modes, sizeof(modes), ngettext_("%zu mode put back", "%zu modes put back", ro.modes), ro.modes);
            printf(_("%s is repaired (%s, %s).\n"), dir, files, modes);
        }
    }
    cu_progress_free(prog);
    cu_run_ctx_fini(&ctx);
    cu_strv_free(ro.components);
    return rc;
}
