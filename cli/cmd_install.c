/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "install"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "app.h"
#include "core/install/exec.h"
#include "core/install/envfile.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/linebreak.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/fetch/mirror.h"
#include "core/install/toolkit.h"
#include "core/machine/syscmd.h"
#include "core/verify/checks.h"
#include "core/resolve/containers.h"
#include "installers/containers/containers.h"
#include "installers/driver.h"
#include "installers/maintain.h"
#include "progress.h"
#include "report.h"
#include "term.h"

bool
cu_app_confirm(struct cu_app *app, const char *question, int *rc)
{
    struct cu_error err;
    if (app->cfg.yes)
        return true;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || app->cfg.json) {
        cu_error_set(&err, CU_E_USAGE, 0,
                     _("'%s' changes this system; run it on a terminal to confirm, or add --yes."),
                     cu_command_name(app->cfg.command));
        *rc = cu_report_error(app, &err);
        return false;
    }
    printf("%s [y/N] ", question);
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof(line), stdin) || (line[0] != 'y' && line[0] != 'Y')) {
        fprintf(stderr, "%s\n", _("cudaup: nothing was changed."));
        *rc = 1;
        return false;
    }
    return true;
}

/* A container engine's restart, asked on the terminal (installers/containers: only without --yes). */
static bool
confirm_restart(void *userdata, const char *question)
{
    struct cu_app *app = userdata;
    if (app->cfg.yes || app->cfg.json || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return false;
    printf("%s [y/N] ", question);
    fflush(stdout);
    char line[64];
    return fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y');
}

json_t *cu_steps_json(const struct cu_run_ctx *ctx);

json_t *
cu_steps_json(const struct cu_run_ctx *ctx)
{
    json_t *a = json_array();
    for (size_t i = 0; i < ctx->n_results; i++) {
        const struct cu_step_result *r = &ctx->results[i];
        json_t *o = json_object();
        json_object_set_new(o, "installer", json_string(r->installer));
        json_object_set_new(o, "action", json_string(r->action));
        json_object_set_new(o, "detail", cu_json_str_or_null(r->detail));
        json_object_set_new(o, "status", json_string(r->status == CU_OK ? "ok" : "failed"));
        json_object_set_new(o, "changed", json_boolean(r->changed));
        json_array_append_new(a, o);
    }
    return a;
}

/*
 * What this run took of memory, in its log: cudaup's own peak, and the largest process it ran and waited for
 * (the checks' nvcc and cicc, the libraries each check loads in a process of its own, pip).  A process tree's
 * peak, as GNU time reports it, is the larger of the two (issue 49 item 22: the 108 MiB read as the
 * installer's was nvcc's cicc compiling the check's kernel; cudaup itself stayed under 30 MiB).
 */
static void
log_peak_memory(void)
{
    struct rusage self, kids;
    if (getrusage(RUSAGE_SELF, &self) != 0 || getrusage(RUSAGE_CHILDREN, &kids) != 0)
        return;
    cu_log_info(_("Peak memory: %ld MiB in cudaup itself, %ld MiB in the largest process it ran"),
                (self.ru_maxrss + 1023) / 1024, (kids.ru_maxrss + 1023) / 1024);
}

int
cu_cmd_install(struct cu_app *app)
{
    struct cu_error err;
    struct cu_facts *facts = NULL;
    struct cu_mirror *mirror = NULL;
    struct cu_plan *plan = NULL;
    struct cu_progress *prog = NULL;
    struct cu_run_ctx ctx;
    enum cu_status st = CU_OK;
    int rc = 0;

    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    if (app->cfg.n_args > 0) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'install' takes no arguments, but got '%s'."), app->cfg.args[0]);
        return cu_report_error(app, &err);
    }
    if (!app->cfg.yes && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || app->cfg.json)) {
        int r;
        cu_app_confirm(app, "", &r);
        return r;
    }
    /* Bad input is exit 2 before anything else is judged, a resume record waiting included (issue 33). */
    if (cu_app_check_request(app, &err) != CU_OK)
        return cu_report_error(app, &err);
    /* After a reboot for the driver: it must load now, or nothing else can use the GPU. */
    bool resumed = false;
    CU_AUTOFREE char *resume_note = NULL;
    if (cu_app_probe(app, &facts, &err) != CU_OK ||
        inst_driver_resume(app->state_dir, facts, &resumed, &resume_note, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    cu_facts_free(facts);
    facts = NULL;
    if (resume_note && !app->cfg.quiet && !app->cfg.json)
        fprintf(stderr, "cudaup: %s\n", resume_note);
    if (cu_app_prepare(app, false, &facts, &mirror, &plan, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    if (!app->cfg.yes) {
        cu_print_plan_confirm(app, plan); /* one screen: the reasons are plan's (issue 49 item 10) */
        printf("\n");
        if (!cu_app_confirm(app, _("Go ahead?"), &rc))
            goto out;
    }
    cu_app_open_log(app);
    cu_plan_log_reasons(plan); /* the log keeps why, and the data each reason rests on */
    prog = cu_progress_new(app);
    cu_progress_set_plan(prog, plan);
    struct cu_events evs = cu_progress_events(prog);
    ctx = (struct cu_run_ctx){
        .plan = plan,
        .net = cu_mirror_net(mirror),
        .cache_dir = app->cache_dir,
        .jobs = (unsigned)app->cfg.jobs,
        .cancel = app->cancel,
        .events = &evs,
        .envp = app->envp,
        .is_root = app->is_root,
        .profile_d = app->profile_d,
        .root = &app->root,
    };
    /* The driver first, through the distribution's package manager; it may stop for a reboot (exit 5). */
    struct cu_sys sys;
    cu_sys_init(&sys, app->envp, app->root.path, isatty(STDIN_FILENO) && !app->cfg.json);
    struct inst_driver_ctx dctx = {&sys, cu_mirror_net(mirror), app->state_dir, app->cache_dir, &ctx, app->catalog, NULL};
    /* What can fail without touching the system is asked first: no reboot for an install that cannot finish. */
    if (plan->driver && strcmp(plan->driver->action, "install") == 0)
        st = cu_install_preflight(&ctx, &err);
    if (st == CU_OK)
        st = inst_driver_install(&dctx, plan, facts, &err);
    /* Then GPU containers (--containers): the toolkit, the engines' files, the CDI spec (installers/containers). */
    struct cu_strv ctr_notes;
    cu_strv_init(&ctr_notes);
    struct inst_ctr_ctx cctx = {&sys, cu_mirror_net(mirror), app->state_dir, app->cache_dir, &ctx, app->catalog, app->envp,
                                confirm_restart, app, &ctr_notes};
    if (st == CU_OK && plan->containers)
        st = inst_containers_install(&cctx, plan, facts, &err);
    cu_sys_fini(&sys);
    if (st == CU_OK)
        st = cu_install_run(&ctx, &err);
    cu_progress_end(prog, st != CU_OK ? &err : NULL); /* a failed step's sentence is said once, below */
    bool changed = cu_run_changed(&ctx);
    if (st == CU_E_CANCELLED) {
        /* Ctrl-C: what it left, and that nothing fetched is lost (the partial files resume). */
        CU_AUTOFREE char *kept = cu_path_join(app->cache_dir, "archives");
        if (!changed)
            cu_error_advise(&err, _("Nothing was changed. What was downloaded is kept in %s; run the same command again to resume."),
                            kept);
        else
            cu_error_advise(&err, _("What was finished before the interrupt stays in place, and nothing half-done is left. What was downloaded is kept in %s; run the same command again to carry on."),
                            kept);
    }
    /* The proof, as the wizard's Validation screen gives it: verify's checks on what was installed
     * (the exit-5 text promised verify on the rerun; a reboot stop has nothing to check yet). */
    struct cu_checks checks = {0};
    bool verified = false;
    /* --toolkit wheels or none: no CUDA folder; verify checks the environment that holds its own toolkit instead
     * (its Python, frameworks and the compiler wheels' nvcc), as `cudaup verify` then does. */
    bool sys_tk = cu_plan_system_toolkit(plan);
    if (st == CU_OK) {
        struct cu_facts *after = NULL;
        struct cu_error e2;
        if (!app->cfg.quiet && !app->cfg.json && isatty(STDERR_FILENO))
            cu_say(stderr, "", "%s", _("Running the checks (GPU checks take a few seconds)..."));
        /* The machine as it is now: a driver this run loaded counts. */
        if (cu_app_probe(app, &after, &e2) != CU_OK)
            after = NULL;
        cu_app_verify_dir(app, sys_tk ? plan->cuda_path : NULL, after ? after : facts, &checks);
        cu_facts_free(after);
        verified = true;
    }
    /* A check it ran failed: the install is in place but does not work as planned (DESIGN, exit 4), as the
     * wizard's Validation screen says with the same exit; a check skipped for a stated reason (no driver
     * yet, an image) is no failure. */
    bool problems = verified && cu_checks_failed(&checks);
    char vmm[32];
    const char *vver = cu_version_format(&plan->cuda, 2, vmm, sizeof(vmm));
    if (app->cfg.json) {
        json_t *doc = json_object();
        char b[32];
        if (plan->toolkit) /* where the toolkit came from (--toolkit, issue 50) */
            json_object_set_new(doc, "toolkit", json_string(plan->toolkit->kind));
        json_object_set_new(doc, "status", json_string(st == CU_OK ? (problems ? "problems" : "ok")
                                                       : st == CU_E_REBOOT ? "reboot" : "error"));
        json_t *rr = st == CU_E_REBOOT ? inst_driver_resume_record(app->state_dir) : NULL;
        if (rr) {
            json_t *res = json_object();
            json_object_set(res, "after", json_object_get(rr, "after"));
            json_object_set(res, "steps", json_object_get(rr, "steps"));
            json_object_set_new(doc, "resume", res);
            json_decref(rr);
        }
        if (plan->driver)
            json_object_set_new(doc, "driver", cu_drv_plan_json(plan->driver));
        if (resume_note)
            json_object_set_new(doc, "resumed", json_string(resume_note));
        if (plan->containers) {
            json_t *cj = cu_ctr_plan_json(plan->containers);
            json_t *nj = json_array();
            for (size_t i = 0; i < ctr_notes.n; i++)
                json_array_append_new(nj, json_string(ctr_notes.v[i]));
            json_object_set_new(cj, "notes", nj);
            json_object_set_new(doc, "containers", cj);
        }
        json_object_set_new(doc, "changed", json_boolean(changed));
        json_object_set_new(doc, "steps", cu_steps_json(&ctx));
        json_t *cuda = json_object();
        json_object_set_new(cuda, "version", json_string(cu_version_format(&plan->cuda, 0, b, sizeof(b))));
        json_object_set_new(cuda, "path", json_string(plan->cuda_path));
        json_object_set_new(doc, "cuda", cuda);
        if (st == CU_OK && plan->framework) {
            /* What the closing text offers to try: a call this release of the framework has. */
            char *try = cu_framework_try_line(&app->catalog->gpu_checks, plan->framework->name, plan->framework->version);
            json_object_set_new(doc, "try", try ? json_string(try) : json_null());
            free(try);
            /* Every environment's, each framework's (issue 36): "try" keeps the first framework's. */
            json_t *tries = json_array();
            for (size_t k = 0; k <= plan->n_envs; k++) {
                char **l = cu_plan_try_lines(k ? plan->envs[k - 1] : plan, &app->catalog->gpu_checks);
                for (char **x = l; *x; x++)
                    json_array_append_new(tries, json_string(*x));
                cu_strv_free(l);
            }
            json_object_set_new(doc, "tries", tries);
        }
        if (verified) {
            json_t *v = json_object();
            CU_AUTOFREE char *sum = cu_checks_summary(&checks);
            json_object_set_new(v, "status", json_string(cu_checks_failed(&checks) ? "fail" : "pass"));
            json_object_set_new(v, "summary", json_string(sum));
            json_object_set_new(v, "checks", cu_app_checks_json(app, &checks, vver));
            json_object_set_new(doc, "verify", v);
        }
        if (problems)
            json_object_set_new(doc, "exit_code", json_integer(cu_status_exit_code(CU_E_PROBLEMS)));
        rc = cu_report_json_result(app, doc, st, &err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        char b[32];
        CU_AUTOFREE char *envsh = cu_path_join(plan->state_dir, "env.sh");
        if (!sys_tk && strcmp(plan->toolkit->kind, "wheels") == 0)
            cu_say(stdout, "", _("No CUDA folder was installed (--toolkit wheels): CUDA %s's compiler is in the environment, from NVIDIA's wheels, and its activation sets CUDA_HOME and PATH for it."),
                   cu_version_format(&plan->toolkit->release, 0, b, sizeof(b)));
        else if (!sys_tk)
            cu_say(stdout, "", _("No CUDA toolkit was installed (--toolkit none): the frameworks use their own CUDA wheels; there is no nvcc and no CUDA_HOME."));
        else if (changed)
            cu_say(stdout, "", _("CUDA %s is installed in %s."), cu_version_format(&plan->cuda, 0, b, sizeof(b)), plan->cuda_path);
        else
            cu_say(stdout, "", _("CUDA %s in %s is already installed and intact; nothing changed."),
                   cu_version_format(&plan->cuda, 0, b, sizeof(b)), plan->cuda_path);
        /* GPU containers: what is left to the user (a restart cudaup did not do), one line each. */
        for (size_t i = 0; i < ctr_notes.n; i++)
            cu_say(stdout, "", "%s", ctr_notes.v[i]);
        /* Everything the plan put in place, not only CUDA: cuDNN, the environment and how to use it. */
        if (plan->has_cudnn)
            cu_say(stdout, "", _("cuDNN %s is in the same folder."), plan->cudnn_full ? plan->cudnn_full : cu_version_format(&plan->cudnn, 0, b, sizeof(b)));
        /* Each environment (one per --framework given), with every framework in it and how to use it. */
        struct cu_strv tries;
        cu_strv_init(&tries);
        for (size_t k = 0; k <= plan->n_envs; k++) {
            const struct cu_plan *q = k ? plan->envs[k - 1] : plan;
            CU_AUTOFREE char *act = cu_plan_activate_cmd(q);
            if (!act)
                continue;
            CU_AUTOFREE char *kact = cu_keep(act);
            size_t n;
            struct cu_plan_framework *const *fw = cu_plan_frameworks(q, &n);
            struct cu_buf what;
            cu_buf_init(&what);
            for (size_t i = 0; i < n; i++)
                cu_buf_printf(&what, "%s%s%s%s", i ? ", " : "", cu_framework_title(fw[i]->name),
                              i + 1 < n && fw[i]->version ? " " : "", i + 1 < n && fw[i]->version ? fw[i]->version : "");
            const char *last = n && fw[n - 1]->version ? fw[n - 1]->version : "";
            /* Under --root: the machine's venv, named as it is there (installers/pyroot.h). */
            CU_AUTOFREE char *seen = q->env.root && q->env.path ? cu_root_seen_path(q->env.root, q->env.path) : NULL;
            CU_AUTOFREE char *sact = seen ? cu_xasprintf(". %s/bin/activate", seen) : NULL;
            CU_AUTOFREE char *ksact = sact ? cu_keep(sact) : NULL;
            if (ksact && q->env.tool && strcmp(q->env.tool, "venv") == 0)
                cu_say(stdout, "", _("%s %s is in the venv %s, for the machine under %s; activate it there with: %s"), what.data,
                       last, q->env.path, q->env.root, ksact);
            else if (q->env.tool && strcmp(q->env.tool, "venv") == 0)
                cu_say(stdout, "", _("%s %s is in the venv %s; activate it with: %s"), what.data, last,
                       q->env.path ? q->env.path : q->env.name, kact);
            else
                cu_say(stdout, "", _("%s %s is in the %s environment %s; activate it with: %s"), what.data, last, q->env.tool,
                       q->env.path ? q->env.path : q->env.name, kact);
            CU_AUTOFREE char *hold = cu_plan_hold_line(q); /* issue 45: the pip hold, and how to lift it */
            if (hold)
                cu_say(stdout, "", "%s", hold);
            /* Each framework's call, one its release has: TensorFlow 1.x has no tf.config.list_physical_devices;
             * said after the checks, which it would fail with. */
            char **l = cu_plan_try_lines(q, &app->catalog->gpu_checks);
            for (char **x = l; *x; x++)
                cu_strv_push_owned(&tries, cu_keep(*x));
            cu_strv_free(l);
            cu_buf_fini(&what);
        }
        /* The command that checks this install, whatever --prefix and --state-dir were. */
        CU_AUTOFREE char *qp = cu_sh_quote(plan->prefix);
        CU_AUTOFREE char *qs = cu_sh_quote(plan->state_dir);
        const char *scope = plan->env.scope ? plan->env.scope : "user";
        CU_AUTOFREE char *pd_seen = cu_sysroot_is_host(&app->root) ? NULL : cu_root_seen_path(app->root.path, app->profile_d);
        bool profile_in_root = pd_seen != NULL; /* written for the machine under --root, not for this one's shells */
        /* Each command the user copies is kept on one line (cu_keep): a break in it pastes as two. */
        CU_AUTOFREE char *src = cu_xasprintf(CU_KEEP_OPEN ". %s" CU_KEEP_CLOSE, envsh);
        CU_AUTOFREE char *rootf = cu_app_root_flag(app); /* the same machine: --root where it was given */
        CU_AUTOFREE char *again = cu_xasprintf(CU_KEEP_OPEN "cudaup verify%s --prefix %s --state-dir %s" CU_KEEP_CLOSE, rootf, qp, qs);
        if (!sys_tk)
            ; /* no env.sh: the environment's activation is all there is (said above) */
        else if (strcmp(scope, "none") == 0)
            cu_say(stdout, "", _("Nothing sets the environment for you (--env-scope none); in each shell run: %s"), src);
        else if (strcmp(scope, "conda") == 0)
            cu_say(stdout, "", _("The environment's activation sets CUDA_HOME, PATH and LD_LIBRARY_PATH; deactivation undoes them."));
        else if (strcmp(scope, "system") == 0 && profile_in_root)
            cu_say(stdout, "", _("Login shells of the machine under %s set it from its /etc/profile.d/cudaup.sh (this machine's shells are left as they were)."),
                   app->root.path);
        else if (strcmp(scope, "system") == 0)
            cu_say(stdout, "", _("Login shells set it from /etc/profile.d; open a new login shell (or log in again), or run: %s"), src);
        else
            cu_say(stdout, "", _("Open a new shell, or run: %s"), src);
        /* The check, done: the one line the wizard's Validation screen ends with, each failure above it with its fix. */
        if (verified) {
            CU_AUTOFREE char *sum = cu_checks_summary(&checks);
            if (problems)
                cu_app_print_checks(app, &checks, true, vver);
            cu_say(stdout, "", _("Checked as cudaup verify does: %s"), sum);
            if (problems)
                cu_say(stdout, "", _("Check again after the fix: %s"), again);
        }
        /* The framework's own call last, once the checks say whether it can work: after a failure it would
         * fail too, so it is offered for after the fix. */
        for (size_t i = 0; i < tries.n; i++)
            cu_say(stdout, "", problems ? _("Once the checks pass, try it: %s") : _("Then try it: %s"), tries.v[i]);
        cu_strv_fini(&tries);
    }
    if (problems && app->cfg.quiet && !app->cfg.json)
        cu_app_print_checks(app, &checks, true, vver); /* -q: the failures alone */
    if (problems && rc == 0)
        rc = cu_status_exit_code(CU_E_PROBLEMS);
    if (verified)
        cu_checks_fini(&checks);
    cu_strv_fini(&ctr_notes);
    log_peak_memory();
out:
    cu_progress_free(prog);
    cu_run_ctx_fini(&ctx);
    cu_plan_free(plan);
    cu_mirror_free(mirror);
    cu_facts_free(facts);
    return rc;
}
