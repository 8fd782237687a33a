/* SPDX-License-Identifier: MIT */
/* `cudaup` with no command on a terminal: hand everything to the wizard. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "installers/driver.h"
#include "core/base/i18n.h"
#include "core/base/str.h"
#include "report.h"
#ifdef HAVE_NCURSESW
#include "tui/tui.h"
#endif

int
cu_cmd_wizard(struct cu_app *app)
{
#ifdef HAVE_NCURSESW
    struct cu_error err;
    struct cu_facts *facts = NULL;
    int rc;

    cu_error_clear(&err);
    if (app->cfg.n_args > 0) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'%s' is not a cudaup command; see cudaup --help."), app->cfg.args[0]);
        return cu_report_error(app, &err);
    }
    /* Bad input is judged before the machine and any resume record are read (issue 33). */
    if (app->cfg.keys_script && *app->cfg.keys_script && tui_keys_script_check(app->cfg.keys_script, &err) != CU_OK)
        return cu_report_error(app, &err);
    if (cu_app_probe(app, &facts, &err) != CU_OK)
        return cu_report_error(app, &err);
    /* After a reboot for the driver: it must load now (else say why, before any screen). */
    bool resumed = false;
    CU_AUTOFREE char *note = NULL;
    if (inst_driver_resume(app->state_dir, facts, &resumed, &note, &err) != CU_OK) {
        cu_facts_free(facts);
        return cu_report_error(app, &err);
    }
    cu_app_open_log(app);
    struct tui_opts o = {
        .cfg = &app->cfg,
        .catalog = app->catalog,
        .facts = facts,
        .root = &app->root,
        .envp = app->envp,
        .prefix = app->prefix,
        .state_dir = app->state_dir,
        .cache_dir = app->cache_dir,
        .self_exe = app->self_exe,
        .profile_d = app->profile_d,
        .is_root = app->is_root,
        .signal_cancel = app->cancel,
        .log = app->log,
        .log_path = app->log_path,
        .low_speed_time_s = app->low_speed_time_s,
        .retry_base_ms = app->retry_base_ms,
        .resumed = note,
    };
    rc = tui_run(&o, app->cfg.keys_script, app->cfg.iterations);
    cu_facts_free(facts);
    return rc;
#else
    struct cu_error err;
    cu_error_set(&err, CU_E_USAGE, 0,
                 _("This cudaup was built without ncursesw, so it has no wizard; run it headless: cudaup install --yes."));
    return cu_report_error(app, &err);
#endif
}
