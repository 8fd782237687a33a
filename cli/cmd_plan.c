/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
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

void
cu_print_plan(struct cu_app *app, const struct cu_plan *p)
{
    char b1[32], b2[32];
    const char *bold = cu_color(app, CU_COLOR_BOLD, false), *reset = cu_color_reset(app, false);

    printf("%s", bold);
    cu_print_padded(stdout, _("CUDA"), 10);
    printf("%s %s  %s\n", reset, cu_version_format(&p->cuda, 0, b1, sizeof(b1)), p->cuda_path);
    printf("%s", bold);
    cu_print_padded(stdout, _("cuDNN"), 10);
    if (p->has_cudnn)
        printf(_("%s %s (the CUDA %s build)\n"), reset, p->cudnn_full ? p->cudnn_full : "?",
               p->cudnn_variant);
    else
        printf("%s %s\n", reset, _("none"));
    printf("%s", bold);
    cu_print_padded(stdout, _("Framework"), 10);
    if (p->framework) {
        struct cu_buf b;
        cu_buf_init(&b);
        for (char **r = p->framework->pip; r && *r; r++)
            cu_buf_printf(&b, "%s%s", b.len ? " " : "", *r);
        if (p->env.tool && strcmp(p->env.tool, "venv") == 0)
            printf(_("%s %s, Python %s, in the venv %s\n"), reset, b.data, p->framework->python, p->env.name);
        else
            printf(_("%s %s, Python %s, in the %s environment %s\n"), reset, b.data, p->framework->python, p->env.tool,
                   p->env.name);
        cu_buf_fini(&b);
    } else {
        printf("%s %s\n", reset, _("none"));
    }
    const struct cu_drv_plan *drv = p->driver;
    if (drv && strcmp(drv->action, "install") == 0) {
        printf("%s", bold);
        cu_print_padded(stdout, _("Driver"), 10);
        printf(_("%s %d (%s kernel modules) from %s with %s; Secure Boot: %s; %s\n"), reset, drv->branch,
               cu_drv_flavor_word(drv->flavor), strcmp(drv->source, "distro") == 0 ? drv->distro : _("NVIDIA's repository"),
               drv->manager, cu_drv_secure_boot_word(drv->secure_boot),
               drv->reboot ? _("a reboot will be needed") : _("no reboot needed"));
    }
    /* The count and the total take in every archive, the Python cudaup brings too; a size the
     * source does not publish is counted apart rather than guessed. */
    bool py_dl = p->python && p->python->dl.url;
    size_t n = p->n_downloads + (py_dl ? 1 : 0), unsized = py_dl && p->python->dl.size_unknown ? 1 : 0;
    for (size_t i = 0; i < p->n_downloads; i++)
        unsized += p->downloads[i].size_unknown;
    printf("\n%s", bold);
    if (unsized)
        printf(ngettext_("%zu download, %s and %zu of unpublished size:", "%zu downloads, %s and %zu of unpublished size:", n),
               n, cu_format_bytes(p->download_bytes, b1, sizeof(b1)), unsized);
    else
        printf(ngettext_("%zu download, %s:", "%zu downloads, %s:", n), n, cu_format_bytes(p->download_bytes, b1, sizeof(b1)));
    printf("%s\n", reset);
    for (size_t i = 0; i < p->n_downloads; i++) {
        const struct cu_plan_download *d = &p->downloads[i];
        printf("  %-26s %-16s %9s\n", d->component, d->version ? d->version : "",
               d->size_unknown ? _("size unpublished") : cu_format_bytes(d->size, b2, sizeof(b2)));
    }
    if (p->python && p->python->dl.url)
        printf("  %-26s %-16s %9s\n", p->python->dl.component, p->python->version,
               p->python->dl.size_unknown ? _("size unpublished") : cu_format_bytes(p->python->dl.size, b2, sizeof(b2)));
    printf("\n%s%s%s\n", bold, _("Steps:"), reset);
    for (size_t i = 0; i < p->n_steps; i++)
        printf("  %zu. [%s] %s\n", i + 1, p->steps[i].installer, p->steps[i].detail);
    printf("\n%s%s%s\n", bold, _("Why:"), reset);
    for (size_t i = 0; i < p->reasons.n; i++) {
        printf("  - %s\n", p->reasons.v[i]);
        /* Where the data comes from is for -v (and the log and JSON): the user reads the reason. */
        const char *src = i < p->reason_sources.n ? p->reason_sources.v[i] : "";
        if (app->cfg.verbose && *src) {
            CU_AUTOFREE char *line = cu_xasprintf(_("source: %s"), src);
            printf("    ");
            cu_print_wrapped_at(stdout, 4, 4, line, cu_term_width(STDOUT_FILENO));
        }
    }
    if (p->warnings.n) {
        printf("\n%s%s%s\n", cu_color(app, CU_COLOR_YELLOW, false), _("Note:"), reset);
        for (size_t i = 0; i < p->warnings.n; i++)
            printf("  - %s\n", p->warnings.v[i]);
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
