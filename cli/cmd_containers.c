/* SPDX-License-Identifier: MIT */
/* GPU containers from the command line: repair's part and `uninstall containers` (cli/containers_cli.h). */
#include "config.h"

#include "containers_cli.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/doctor/container_host.h"
#include "core/machine/syscmd.h"
#include "installers/containers/containers.h"
#include "progress.h"
#include "report.h"
#include "term.h"

json_t *cu_steps_json(const struct cu_run_ctx *ctx);

enum cu_status
cu_repair_containers(struct cu_app *app, struct cu_run_ctx *ctx, struct cu_problems *seen, struct cu_strv *plan, size_t *fixable,
                     int *rc, struct cu_error *err)
{
    struct cu_facts *facts = NULL;
    struct cu_problems all, fix;
    struct cu_engines en = {0};
    struct cu_cdi cdi = {0};
    struct cu_sys sys;
    enum cu_status st;
    CU_AUTOFREE char *rec = cu_path_join(app->state_dir, "containers.json");
    *fixable = 0;
    if ((st = cu_app_probe(app, &facts, err)) != CU_OK)
        return st;
    cu_problems_init(&all);
    cu_problems_init(&fix);
    cu_sys_init(&sys, app->envp, app->root.path, false);
    if (facts->container.inside)
        goto out;
    inst_containers_probe(&sys, app->envp, false, &en, &cdi);
    cu_ctr_doctor(facts, app->catalog, &en, &cdi, access(rec, F_OK) == 0, &all);
    for (size_t i = 0; i < all.n; i++) {
        const struct cu_problem *p = &all.v[i];
        cu_problems_add(seen, p->code, p->severity, cu_xstrdup(p->message), cu_xstrdup(p->fix));
        if (inst_containers_repairs(p->code))
            cu_problems_add(&fix, p->code, p->severity, cu_xstrdup(p->message), cu_xstrdup(p->fix));
        if (!app->cfg.quiet && !app->cfg.json)
            printf("%s [%s]\n", p->message, p->code);
    }
    *fixable = fix.n;
    if (!fix.n)
        goto out;
    struct cu_strv lines;
    cu_strv_init(&lines);
    inst_containers_repair_plan(facts, &fix, &lines);
    for (size_t i = 0; i < lines.n; i++) {
        cu_strv_push(plan, lines.v[i]);
        if (!app->cfg.quiet && !app->cfg.json)
            printf("  - %s\n", lines.v[i]);
    }
    cu_strv_fini(&lines);
    if (!cu_app_confirm(app, _("Regenerate the CDI spec?"), rc)) {
        st = CU_E_USAGE;
        goto out;
    }
    cu_app_open_log(app);
    struct inst_ctr_ctx cc = {&sys, NULL, app->state_dir, app->cache_dir, ctx, app->catalog, app->envp, NULL, NULL, NULL};
    st = inst_containers_repair(&cc, facts, &fix, err);
out:
    cu_sys_fini(&sys);
    cu_engines_fini(&en);
    cu_cdi_fini(&cdi);
    cu_problems_fini(&all);
    cu_problems_fini(&fix);
    cu_facts_free(facts);
    return st;
}

int
cu_uninstall_containers(struct cu_app *app)
{
    struct cu_error err;
    struct cu_run_ctx ctx;
    struct cu_strv plan, lines;
    int rc = 0;
    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    cu_strv_init(&plan);
    cu_strv_init(&lines);
    /* What it will do, before the question; a record that is not sound is refused before anything is touched. */
    if (inst_containers_uninstall_plan(app->state_dir, &plan, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    if (plan.n && !app->cfg.json && !app->cfg.quiet && (app->cfg.yes || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)))) {
        cu_say(stdout, "", "%s", _("Undoing cudaup's set-up of GPU containers will:"));
        for (size_t i = 0; i < plan.n; i++)
            cu_say(stdout, "  - ", "%s", plan.v[i]);
    }
    if (!cu_app_confirm(app, _("Undo it?"), &rc))
        goto out;
    cu_app_open_log(app);
    struct cu_progress *prog = cu_progress_new(app);
    struct cu_events evs = cu_progress_events(prog);
    ctx.events = &evs;
    ctx.envp = app->envp;
    ctx.cache_dir = app->cache_dir;
    struct cu_sys sys;
    cu_sys_init(&sys, app->envp, app->root.path, false);
    struct inst_ctr_ctx cc = {&sys, NULL, app->state_dir, app->cache_dir, &ctx, app->catalog, app->envp, NULL, NULL, NULL};
    enum cu_status st = inst_containers_uninstall(&cc, &lines, &err);
    cu_sys_fini(&sys);
    cu_progress_flush(prog);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : "error"));
        json_object_set_new(doc, "changed", json_boolean(cu_run_changed(&ctx) || lines.n > 1));
        json_object_set_new(doc, "steps", cu_steps_json(&ctx));
        json_t *a = json_array();
        for (size_t i = 0; i < lines.n; i++)
            json_array_append_new(a, json_string(lines.v[i]));
        json_object_set_new(doc, "done", a);
        rc = cu_report_json_result(app, doc, st, &err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        for (size_t i = 0; i < lines.n; i++)
            cu_say(stdout, "", "%s", lines.v[i]);
    }
    cu_progress_free(prog);
out:
    cu_run_ctx_fini(&ctx);
    cu_strv_fini(&plan);
    cu_strv_fini(&lines);
    return rc;
}
