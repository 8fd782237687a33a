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
#include "core/resolve/driver.h"
#include "installers/driver.h"
#include "installers/driver_removal.h"
#include "progress.h"
#include "report.h"

json_t *cu_steps_json(const struct cu_run_ctx *ctx);

/* The driver's problems repair reports (with their fix) but leaves to their own step. */
static const char *const report_codes[] = {"driver-flavor-unsupported"};
/* Inside a container: the host's driver problems that repair would act on elsewhere, reported and refused. */
static const char *const container_codes[] = {"container-nouveau", "container-driver-mismatch"};

static bool
in_list(const char *code, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(code, list[i]) == 0)
            return true;
    return false;
}

enum cu_status
cu_repair_driver(struct cu_app *app, struct cu_run_ctx *ctx, struct cu_problems *seen, struct cu_strv *plan,
                 size_t *fixable, bool *reboot, int *rc, struct cu_error *err)
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
    if (facts->container.inside) {
        /* The driver is the host's: what repair acts on elsewhere (nouveau, a module and libraries of two releases) is
         * said with its fix, and nothing of the driver is touched (issue 48); the install's files are repaired still. */
        for (size_t i = 0; i < all.n; i++)
            if (in_list(all.v[i].code, container_codes, CU_N_ELEMENTS(container_codes)))
                cu_problems_add(seen, all.v[i].code, all.v[i].severity, cu_xstrdup(all.v[i].message), cu_xstrdup(all.v[i].fix));
        if (!app->cfg.quiet && !app->cfg.json)
            for (size_t i = 0; i < seen->n; i++)
                printf("%s [%s]\n", seen->v[i].message, seen->v[i].code);
        if (seen->n) {
            CU_AUTOFREE char *where = cu_drv_container_where(&facts->container);
            st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                              _("cudaup runs inside a container (%s): the NVIDIA driver is the host's, and repair changes nothing of it from here."),
                              where);
            cu_error_advise(err, "%s", seen->v[0].fix);
        }
        goto out;
    }
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
    /* What it will do, each with its command, before it asks and runs. */
    inst_driver_repair_plan(facts, app->catalog, &fix, facts->drv && facts->drv->image, plan);
    if (!app->cfg.quiet && !app->cfg.json && plan->n) {
        printf("%s\n", _("The repair will:"));
        for (size_t i = 0; i < plan->n; i++)
            printf("  - %s\n", plan->v[i]);
    }
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

static json_t *
strv_json(const struct cu_strv *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(a, json_string(v->v[i]));
    return a;
}

int
cu_uninstall_driver(struct cu_app *app)
{
    struct cu_error err;
    struct cu_run_ctx ctx;
    struct drv_unplan up;
    json_t *said = NULL; /* what it said it would undo (DESIGN uninstall --json "removal") */
    int rc = 0;
    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    CU_AUTOFREE char *rec = cu_path_join(app->state_dir, "driver.json");
    if (access(rec, F_OK) != 0) {
        cu_error_set(&err, CU_E_NOT_FOUND, 0, _("cudaup has not installed a driver here (no %s); remove it with your package manager."), rec);
        return cu_report_error(app, &err);
    }
    struct cu_sys sys;
    cu_sys_init(&sys, app->envp, app->root.path, false);
    ctx.envp = app->envp;
    struct inst_driver_ctx dctx = {&sys, NULL, app->state_dir, app->cache_dir, &ctx, app->catalog, NULL};
    /* What goes and what stays, said before it asks. */
    drv_unplan_init(&up);
    if (inst_driver_uninstall_plan(&dctx, &up, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto done;
    }
    /* What goes, from the record with the packages the removal really takes, before the question. */
    struct cu_removal rmv;
    if (inst_driver_removal(app->state_dir, app->catalog, &up.remove, &rmv, &err) != CU_OK) {
        cu_removal_fini(&rmv);
        rc = cu_report_error(app, &err);
        goto done;
    }
    if (!app->cfg.json && !app->cfg.quiet)
        cu_removal_print(app, _("Uninstalling the NVIDIA driver undoes what cudaup did:"), &rmv);
    said = cu_removal_json(&rmv);
    cu_removal_fini(&rmv);
    if (!app->cfg.quiet && !app->cfg.json) {
        CU_AUTOFREE char *k = cu_strv_join(&up.kernels, " "), *h = cu_strv_join(&up.headers, " "), *d = cu_strv_join(&up.deps, " "),
                         *m = cu_strv_join(&up.dkms, " "), *tl = cu_strv_join(&up.tools, " ");
        if (up.kernels.n)
            printf(_("It keeps the kernels the install brought (the machine boots them, and their meta brings the kernel's security updates): %s\n"), k);
        if (up.headers.n)
            printf(_("It keeps the kernel headers the install brought, which other DKMS modules (%s) build against: %s\n"), m, h);
        if (up.tools.n)
            printf(_("It keeps what the install brought for logging in as the administrator (removing it could lock you out): %s\n"), tl);
        if (up.deps.n)
            printf(_("It keeps what those need: %s\n"), d);
    }
    if (!cu_app_confirm(app, _("Remove the NVIDIA driver packages cudaup installed, and their pin?"), &rc))
        goto done;
    cu_app_open_log(app);
    struct cu_progress *prog = cu_progress_new(app);
    struct cu_events evs = cu_progress_events(prog);
    ctx.events = &evs;
    enum cu_status st = inst_driver_uninstall(&dctx, &err);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : "error"));
        json_object_set_new(doc, "changed", json_boolean(cu_run_changed(&ctx)));
        json_object_set_new(doc, "removes", strv_json(&up.remove));
        json_t *keeps = json_array();
        const struct cu_strv *kl[] = {&up.kernels, &up.headers, &up.tools, &up.deps};
        for (size_t l = 0; l < CU_N_ELEMENTS(kl); l++)
            for (size_t i = 0; i < kl[l]->n; i++)
                json_array_append_new(keeps, json_string(kl[l]->v[i]));
        json_object_set_new(doc, "keeps", keeps);
        json_object_set_new(doc, "steps", cu_steps_json(&ctx));
        json_object_set(doc, "removal", said); /* what it said it would undo */
        rc = cu_report_json_result(app, doc, st, &err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        printf("%s\n", _("The NVIDIA driver packages cudaup installed are removed; reboot to unload the module."));
    }
    cu_progress_free(prog);
done:
    json_decref(said);
    drv_unplan_fini(&up);
    cu_sys_fini(&sys);
    cu_run_ctx_fini(&ctx);
    return rc;
}
