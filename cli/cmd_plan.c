/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "core/resolve/containers.h"
#include "core/resolve/driver.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/str.h"
#include "installers/prepare.h"
#include "report.h"
#include "term.h"

static void
prepare_in(struct cu_app *app, bool unconstrained, const struct cu_facts *facts, struct cu_prepare_in *in)
{
    *in = (struct cu_prepare_in){
        .cfg = &app->cfg,
        .facts = facts,
        .catalog = app->catalog,
        .envp = app->envp,
        .prefix = app->prefix,
        .root = app->root.path,
        .state_dir = app->state_dir,
        .cache_dir = app->cache_dir,
        .is_root = app->is_root,
        .unconstrained = unconstrained,
        .low_speed_time_s = app->low_speed_time_s,
        .retry_base_ms = app->retry_base_ms,
    };
}

enum cu_status
cu_app_check_request(struct cu_app *app, struct cu_error *err)
{
    struct cu_prepare_in in;
    prepare_in(app, false, NULL, &in);
    return cu_prepare_check(&in, err);
}

enum cu_status
cu_app_prepare(struct cu_app *app, bool unconstrained, struct cu_facts **facts,
               struct cu_mirror **mirror, struct cu_plan **plan, struct cu_error *err)
{
    enum cu_status st = cu_app_probe(app, facts, err);
    if (st != CU_OK)
        return st;
    struct cu_prepare_in in;
    prepare_in(app, unconstrained, *facts, &in);
    return cu_prepare_plan(&in, mirror, plan, err);
}

/* "LABEL     text", the label bold and padded to 10 columns, the text wrapped under itself at @width. */
static void
head_line(struct cu_app *app, const char *label, const char *text, int width)
{
    printf("%s", cu_color(app, CU_COLOR_BOLD, false));
    cu_print_padded(stdout, label, 10);
    printf("%s ", cu_color_reset(app, false));
    cu_print_wrapped_at(stdout, 11, 11, text, width);
}

void
cu_print_plan(struct cu_app *app, const struct cu_plan *p)
{
    char b1[32], b2[32];
    const char *bold = cu_color(app, CU_COLOR_BOLD, false), *reset = cu_color_reset(app, false);
    /* On a terminal every line breaks at word boundaries, under its own text, as the help does (a long
     * path stays whole); to a pipe or a file, one line each. */
    int width = cu_term_width(STDOUT_FILENO);
    CU_AUTOFREE char *cuda = cu_xasprintf("%s  %s", cu_version_format(&p->cuda, 0, b1, sizeof(b1)), p->cuda_path);
    head_line(app, _("CUDA"), cuda, width);
    CU_AUTOFREE char *cudnn = p->has_cudnn ? cu_xasprintf(_("%s (the CUDA %s build)"), p->cudnn_full ? p->cudnn_full : "?",
                                                         p->cudnn_variant)
                                           : cu_xstrdup(_("none"));
    head_line(app, _("cuDNN"), cudnn, width);
    if (p->framework) {
        /* Each environment: every framework's requirements, its Python and where it goes; the first under
         * the label, the others under it. */
        for (size_t e = 0; e <= p->n_envs; e++) {
            const struct cu_plan *q = e ? p->envs[e - 1] : p;
            size_t n;
            struct cu_plan_framework *const *fws = cu_plan_frameworks(q, &n);
            struct cu_buf b;
            cu_buf_init(&b);
            for (size_t i = 0; i < n; i++)
                for (char **r = fws[i]->pip; r && *r; r++)
                    cu_buf_printf(&b, "%s%s", b.len ? " " : "", *r);
            CU_AUTOFREE char *fw = q->env.tool && strcmp(q->env.tool, "venv") == 0
                                       ? cu_xasprintf(_("%s, Python %s, in the venv %s"), b.data, q->framework->python,
                                                      q->env.name)
                                       : cu_xasprintf(_("%s, Python %s, in the %s environment %s"), b.data,
                                                      q->framework->python, q->env.tool, q->env.name);
            head_line(app, e ? "" : _("Framework"), fw, width);
            cu_buf_fini(&b);
        }
    } else {
        head_line(app, _("Framework"), _("none"), width);
    }
    const struct cu_drv_plan *drv = p->driver;
    if (drv && strcmp(drv->action, "install") == 0) {
        CU_AUTOFREE char *dl = cu_xasprintf(_("%d (%s kernel modules) from %s with %s; Secure Boot: %s; %s"), drv->branch,
                                            cu_drv_flavor_word(drv->flavor),
                                            strcmp(drv->source, "distro") == 0 ? drv->distro : _("NVIDIA's repository"),
                                            drv->manager, cu_drv_secure_boot_word(drv->secure_boot),
                                            drv->reboot       ? _("a reboot will be needed")
                                            : drv->reboot_may ? _("a reboot may be needed (if the packages bring a newer kernel)")
                                                              : _("no reboot needed"));
        head_line(app, _("Driver"), dl, width);
    } else if (drv && drv->container) {
        /* Inside a container: the host's driver, never a step of the plan (the reasons say why). */
        CU_AUTOFREE char *dl = !drv->host.n ? cu_xstrdup(_("the host's; no NVIDIA driver seen in this container (start it with the GPU)"))
                               : drv->host_libs
                                   ? cu_xasprintf(_("the host's, %s (cudaup runs inside a container)"),
                                                  cu_driver_version_format(&drv->host, b1, sizeof(b1)))
                                   : cu_xasprintf(_("the host's, %s, without its libraries in this container (start it with the GPU)"),
                                                  cu_driver_version_format(&drv->host, b1, sizeof(b1)));
        head_line(app, _("Driver"), dl, width);
    }
    const struct cu_ctr_plan *ctr = p->containers;
    if (ctr && ctr->n_engines) {
        /* GPU containers: the toolkit, the engines and what keeps the CDI spec fresh (its steps and why are below). */
        struct cu_buf b;
        cu_buf_init(&b);
        for (size_t i = 0; i < ctr->n_engines; i++)
            cu_buf_printf(&b, "%s%s", i ? ", " : "", cu_engine_title(ctr->engines[i].kind));
        CU_AUTOFREE char *cl = ctr->toolkit ? cu_xasprintf(_("NVIDIA Container Toolkit %s for %s; CDI spec %s, kept fresh by %s"), ctr->toolkit,
                                                          b.data, ctr->cdi_path ? ctr->cdi_path : "-", ctr->refresh ? ctr->refresh : "-")
                                            : cu_xasprintf(_("%s: nothing to do"), b.data);
        head_line(app, _("Containers"), cl, width);
        cu_buf_fini(&b);
    }
    /* The count and the total take in every archive, the Python cudaup brings too; a size the
     * source does not publish is counted apart rather than guessed (as the wizard's Review says it). */
    bool py_dl = p->python && p->python->dl.url;
    CU_AUTOFREE char *count = cu_plan_download_text(p, NULL);
    printf("\n%s", bold);
    /* TRANSLATORS: %s is "3 downloads, 20 MB" (cu_plan_download_text), the heading of the table of archives */
    printf(_("%s:"), count);
    printf("%s\n", reset);
    /* The table's columns as wide as their longest entry, so that it fits a narrow terminal. */
    int cw = 0, vw = 0;
    for (size_t i = 0; i < p->n_downloads + (py_dl ? 1 : 0); i++) {
        const struct cu_plan_download *d = i < p->n_downloads ? &p->downloads[i] : &p->python->dl;
        const char *ver = i < p->n_downloads ? (d->version ? d->version : "") : p->python->version;
        cw = (int)strlen(d->component) > cw ? (int)strlen(d->component) : cw;
        vw = (int)strlen(ver) > vw ? (int)strlen(ver) : vw;
    }
    for (size_t i = 0; i < p->n_downloads + (py_dl ? 1 : 0); i++) {
        const struct cu_plan_download *d = i < p->n_downloads ? &p->downloads[i] : &p->python->dl;
        const char *ver = i < p->n_downloads ? (d->version ? d->version : "") : p->python->version;
        printf("  %-*s  %-*s  ", cw, d->component, vw, ver);
        bool known;
        uint64_t sz = cu_download_size(d, &known);
        const char *size = known ? cu_format_bytes(sz, b2, sizeof(b2)) : _("size unpublished");
        printf("%*s%s\n", !known ? 0 : 8 - (int)cu_text_cols(size) > 0 ? 8 - (int)cu_text_cols(size) : 0, "", size);
    }
    printf("\n%s%s%s\n", bold, _("Steps:"), reset);
    for (size_t i = 0; i < p->n_steps; i++) {
        CU_AUTOFREE char *num = cu_xasprintf("  %zu. ", i + 1);
        CU_AUTOFREE char *step = cu_xasprintf("[%s] %s", p->steps[i].installer, p->steps[i].detail);
        fputs(num, stdout);
        cu_print_wrapped_at(stdout, strlen(num), strlen(num), step, width);
    }
    printf("\n%s%s%s\n", bold, _("Why:"), reset);
    for (size_t i = 0; i < p->reasons.n; i++) {
        printf("  - ");
        cu_print_wrapped_at(stdout, 4, 4, p->reasons.v[i], width);
        /* Where the data comes from is for -v (and the log and JSON): the user reads the reason. */
        const char *src = i < p->reason_sources.n ? p->reason_sources.v[i] : "";
        if (app->cfg.verbose && *src) {
            CU_AUTOFREE char *line = cu_xasprintf(_("source: %s"), src);
            printf("    ");
            cu_print_wrapped_at(stdout, 4, 4, line, width);
        }
    }
    /* --offline (CUDAUP_OFFLINE=1, perhaps set by someone else): said, since no index was asked (issue 44); an
     * index that did not answer says so among the warnings. */
    bool offline_note = p->offline && app->cfg.offline;
    if (p->warnings.n || offline_note) {
        printf("\n%s%s%s\n", cu_color(app, CU_COLOR_YELLOW, false), _("Note:"), reset);
        for (size_t i = 0; i < p->warnings.n; i++) {
            printf("  - ");
            cu_print_wrapped_at(stdout, 4, 4, p->warnings.v[i], width);
        }
        if (offline_note) {
            printf("  - ");
            cu_print_wrapped_at(stdout, 4, 4, _("Planned offline (--offline): no package index was asked, so a framework release newer than cudaup's catalog is not seen."), width);
        }
    }
}

int
cu_cmd_plan(struct cu_app *app)
{
    struct cu_error err;
    struct cu_facts *facts = NULL;
    struct cu_mirror *mirror = NULL;
    struct cu_plan *plan = NULL;
    int rc = 0;

    cu_error_clear(&err);
    if (app->cfg.n_args > 0) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'plan' takes no arguments, but got '%s'."), app->cfg.args[0]);
        rc = cu_report_error(app, &err);
        goto out;
    }
    if (cu_app_prepare(app, false, &facts, &mirror, &plan, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    if (app->cfg.json)
        cu_report_json(app, cu_plan_to_json(plan));
    else if (!app->cfg.quiet)
        cu_print_plan(app, plan);
out:
    cu_plan_free(plan);
    cu_mirror_free(mirror);
    cu_facts_free(facts);
    return rc;
}
