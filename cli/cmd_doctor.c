/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "core/doctor/container_doctor.h"
#include "core/doctor/container_host.h"
#include "installers/containers/containers.h"
#include "core/doctor/doctor.h"
#include "core/doctor/driver_doctor.h"
#include "core/machine/driver_state.h"
#include "core/doctor/fwenv.h"
#include "core/doctor/shadow.h"
#include "core/base/i18n.h"
#include "core/base/linebreak.h"
#include "core/resolve/driver.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "installers/maintain.h"
#include "report.h"
#include "term.h"

static const char *
v(const struct cu_version *ver, char *buf, size_t len)
{
    return ver->n ? cu_version_format(ver, 0, buf, len) : "?";
}

/* The label column: as wide as the widest label, in the user's language, and no narrower than 8 ("Frameworks"
 * overflowed it, issue 49 item 18).  A new label goes into this list. */
static int
label_width(void)
{
    const char *labels[] = {_("GPU"), _("Driver"), _("Kernel"), _("CUDA"), _("Env"), _("Python"), _("Frameworks"), _("Containers")};
    int w = 8;
    for (size_t i = 0; i < CU_N_ELEMENTS(labels); i++)
        if (cu_text_width(labels[i]) > w)
            w = cu_text_width(labels[i]);
    return w;
}

/* A bold label padded to the label column. */
static void
label(struct cu_app *app, const char *text)
{
    int col = label_width();
    fputs(cu_color(app, CU_COLOR_BOLD, false), stdout);
    cu_print_padded(stdout, text, col);
    fputs(cu_color_reset(app, false), stdout);
    fputc(' ', stdout);
}

/* One entry: its bold label (or "" to line up under the last), the text wrapped at word boundaries under
 * its own column on a terminal (issue 35: the terminal cut lines mid-word), one line to a pipe. */
static void
entry(struct cu_app *app, const char *lab, struct cu_buf *text)
{
    int col = label_width();
    label(app, lab);
    cu_print_wrapped_at(stdout, (size_t)col + 1, (size_t)col + 1, text->data ? text->data : "", cu_term_width(STDOUT_FILENO));
    cu_buf_fini(text);
    cu_buf_init(text);
}

static void
print_text(struct cu_app *app, const struct cu_facts *f, const struct cu_fwenvs *fw, const char *containers, const struct cu_problems *pr)
{
    char b1[32], b2[32];
    const char *bold = cu_color(app, CU_COLOR_BOLD, false), *reset = cu_color_reset(app, false);
    struct cu_buf t;
    cu_buf_init(&t);

    if (f->n_gpus == 0) {
        cu_buf_puts(&t, _("none found"));
        entry(app, _("GPU"), &t);
    }
    for (size_t i = 0; i < f->n_gpus; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        CU_AUTOFREE char *name = cu_str_sanitize(g->name);
        if (g->pci_id[0] || g->bus[0]) /* NVML or libcuda alone (WSL2) may give no PCI id */
            cu_buf_printf(&t, "%d: %s (%s%s%s)", g->index, name, g->pci_id, g->pci_id[0] && g->bus[0] ? ", " : "", g->bus);
        else
            cu_buf_printf(&t, "%d: %s", g->index, name);
        entry(app, _("GPU"), &t);
        if (g->cc.n)
            cu_buf_printf(&t, "   %s %s%s%s%s", _("compute capability"), v(&g->cc, b1, sizeof(b1)),
                          g->arch ? " (" : "", g->arch ? g->arch : "", g->arch ? ")" : "");
        else
            cu_buf_printf(&t, "   %s", _("compute capability unknown"));
        if (g->memory_mib)
            cu_buf_printf(&t, ", %llu MiB", (unsigned long long)g->memory_mib);
        entry(app, "", &t);
    }
    const struct cu_driver_info *d = &f->driver;
    switch (d->kind) {
    case CU_DRIVER_WSL:
        /* WSL2 runs the Windows driver; its NVML in /usr/lib/wsl/lib says its version (issue 49 item 21: "NVIDIA ?"). */
        if (d->version.n)
            cu_buf_printf(&t, _("NVIDIA %s, the Windows driver (through WSL2)"),
                          cu_driver_version_format(&d->version, b1, sizeof(b1)));
        else
            cu_buf_puts(&t, _("the Windows NVIDIA driver (through WSL2)"));
        if (d->cuda_max.n)
            cu_buf_printf(&t, _(", runs CUDA up to %s"), v(&d->cuda_max, b2, sizeof(b2)));
        if (d->version.n)
            break;
        if (d->nvml_error)
            cu_buf_printf(&t, _("; its version is unread: NVML (%s) could not start: %s"),
                          d->nvml_path ? d->nvml_path : "libnvidia-ml.so.1", d->nvml_error);
        else if (d->nvml_path)
            cu_buf_printf(&t, _("; its version is unread: NVML (%s) did not say it"), d->nvml_path);
        else
            cu_buf_puts(&t, _("; its version is unread: /usr/lib/wsl/lib has no libnvidia-ml.so.1"));
        break;
    case CU_DRIVER_NVIDIA:
        cu_buf_printf(&t, f->container.inside ? _("NVIDIA %s (the host's)") : _("NVIDIA %s"),
                      d->version.n ? cu_driver_version_format(&d->version, b1, sizeof(b1)) : "?");
        if (d->kind == CU_DRIVER_NVIDIA && !d->libcuda_path)
            cu_buf_puts(&t, _(", but without libcuda.so.1: no CUDA program can run yet"));
        else if (d->cuda_max.n)
            cu_buf_printf(&t, _(", runs CUDA up to %s"), v(&d->cuda_max, b2, sizeof(b2)));
        break;
    case CU_DRIVER_NOUVEAU:
        cu_buf_puts(&t, _("nouveau (the open-source driver; CUDA needs NVIDIA's)"));
        break;
    case CU_DRIVER_NONE:
    default:
        cu_buf_puts(&t, f->container.inside ? _("none seen in this container") : _("no NVIDIA driver is loaded"));
        break;
    }
    entry(app, _("Driver"), &t);
    if (f->container.inside) {
        /* The driver above is the host's; the kernel, its module and Secure Boot are the host's business. */
        CU_AUTOFREE char *where = cu_drv_container_where(&f->container);
        cu_buf_printf(&t, _("cudaup runs inside one (%s): the host's driver serves it"), where);
        entry(app, _("Container"), &t);
    }
    const struct cu_drv_state *ds = f->drv;
    if (ds && f->n_gpus > 0 && !f->os.wsl && !f->container.inside) {
        cu_buf_puts(&t, ds->kernel_release ? ds->kernel_release : "?");
        cu_buf_printf(&t, "%s%s", _(", "), ds->secure_boot == 1 ? _("Secure Boot on") : ds->secure_boot == 0 ? _("Secure Boot off") : _("Secure Boot unknown"));
        if (ds->module_for_kernel >= 0)
            cu_buf_printf(&t, "%s%s", _(", "), ds->module_for_kernel ? (ds->module_signed == 1 ? _("nvidia module built for it (signed)")
                                                                                     : _("nvidia module built for it"))
                                                          : _("no nvidia module for it"));
        if (ds->flavor)
            cu_buf_printf(&t, _(", %s kernel modules loaded"), cu_drv_flavor_word(ds->flavor));
        if (ds->installed.n)
            cu_buf_printf(&t, "%s%s", _(", "), ds->pinned ? _("driver packages held") : _("driver packages not held"));
        entry(app, _("Kernel"), &t);
    }
    if (f->n_installs == 0) {
        cu_buf_puts(&t, _("none installed"));
        entry(app, _("CUDA"), &t);
    }
    for (size_t i = 0; i < f->n_installs; i++) {
        const struct cu_cuda_install *in = &f->installs[i];
        cu_buf_printf(&t, "%s  %s", v(&in->version, b1, sizeof(b1)), in->path);
        if (in->cudnn.n)
            cu_buf_printf(&t, _(", cuDNN %s"), v(&in->cudnn, b2, sizeof(b2)));
        if (in->managed)
            cu_buf_printf(&t, " [%s]", _("installed by cudaup"));
        for (char **l = in->links; l && *l; l++)
            cu_buf_printf(&t, " <- %s", *l);
        entry(app, i == 0 ? _("CUDA") : "", &t);
    }
    if (f->env.cuda_home) {
        cu_buf_printf(&t, "CUDA_HOME=%s", f->env.cuda_home);
        entry(app, _("Env"), &t);
    }
    if (f->pyenv) {
        cu_buf_printf(&t, "%s%s%s %s", f->pyenv->tool, f->pyenv->version ? " " : "", f->pyenv->version ? f->pyenv->version : "",
                      f->pyenv->path ? f->pyenv->path : "");
        entry(app, _("Python"), &t);
    }
    for (size_t i = 0; i < fw->n; i++) {
        const struct cu_fwenv *e = &fw->v[i];
        cu_buf_printf(&t, "%s %s%s%s%s  %s", e->framework, e->version ? e->version : "?",
                      e->cpu_only ? _(" (CPU only)") : "", e->cuda_build && !e->cpu_only ? _(", CUDA ") : "",
                      e->cuda_build && !e->cpu_only ? e->cuda_build : "", e->path);
        entry(app, i == 0 ? _("Frameworks") : "", &t);
    }
    if (containers) {
        cu_buf_puts(&t, containers);
        entry(app, _("Containers"), &t);
    }
    cu_buf_fini(&t);
    printf("\n");
    if (pr->n == 0) {
        printf("%s%s%s\n", cu_color(app, CU_COLOR_GREEN, false), _("No problems found."), reset);
        return;
    }
    printf("%s%s%s\n", bold, _("Problems:"), reset);
    for (size_t i = 0; i < pr->n; i++) {
        const struct cu_problem *p = &pr->v[i];
        enum cu_color c = p->severity == CU_SEV_ERROR     ? CU_COLOR_RED
                          : p->severity == CU_SEV_WARNING ? CU_COLOR_YELLOW
                                                          : CU_COLOR_DIM;
        const char *sev = p->severity == CU_SEV_ERROR     ? _("error")
                          : p->severity == CU_SEV_WARNING ? _("warning")
                                                          : _("info");
        CU_AUTOFREE char *msg = cu_str_sanitize(p->message);
        /* TRANSLATORS: a problem's sentence, then its code in brackets ("... [no-cuda]"); no space after a full stop that takes its own */
        CU_AUTOFREE char *line = cu_xasprintf(_("%s [%s]"), msg, p->code);
        /* Wrapped at word boundaries under the text's column; "fix: %s" as one message, so that a
         * translation joins the label its own way ("修复：请…", no space after a full-width colon). */
        int width = cu_term_width(STDOUT_FILENO);
        printf("  %s", cu_color(app, c, false));
        cu_print_padded(stdout, sev, 8);
        printf("%s ", reset);
        cu_print_wrapped_at(stdout, 11, 11, line, width);
        CU_AUTOFREE char *fix = cu_xasprintf(_("fix: %s"), p->fix);
        printf("%11s", "");
        cu_print_wrapped_at(stdout, 11, 11, fix, width);
        if (app->cfg.verbose && p->source) { /* where the finding's data comes from: -v only */
            CU_AUTOFREE char *src = cu_xasprintf(_("source: %s"), p->source);
            printf("%11s", "");
            cu_print_wrapped_at(stdout, 11, 11, src, width);
        }
    }
}

int
cu_cmd_doctor(struct cu_app *app)
{
    struct cu_error err;
    struct cu_facts *facts = NULL;
    struct cu_problems problems;
    int rc;

    cu_error_clear(&err);
    if (app->cfg.n_args > 0) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'doctor' takes no arguments, but got '%s'."),
                     app->cfg.args[0]);
        return cu_report_error(app, &err);
    }
    if (cu_app_probe(app, &facts, &err) != CU_OK)
        return cu_report_error(app, &err);
    cu_problems_init(&problems);
    cu_doctor_check(facts, app->catalog, &app->root, app->envp, &problems);
    cu_drv_doctor(facts, app->catalog, &problems, &problems);
    cu_drv_doctor_fixes(facts, app->catalog, &problems);
    /* The frameworks in the machine's environments, and in the one cudaup recorded. */
    CU_AUTOFREE char *py = NULL, *fwname = NULL, *recorded = NULL;
    cu_pyenv_recorded(app->state_dir, &py, &fwname);
    if (py && strrchr(py, '/')) {
        recorded = cu_xstrndup(py, (size_t)(strrchr(py, '/') - py)); /* ENV/bin/python -> ENV/bin */
        if (strrchr(recorded, '/'))
            *strrchr(recorded, '/') = '\0';
    }
    struct cu_fwenvs fw = {0};
    struct cu_sysroot host;
    cu_fwenvs_scan(&app->root, facts, app->catalog, app->envp, &fw);
    /* What each framework would load, in the loader's order, without importing it (issue 36). */
    json_t *loads = json_array();
    cu_fwenvs_shadow(&app->root, app->catalog, &fw, 0, app->envp, app->state_dir, app->cancel, &problems, loads);
    if (recorded && cu_sysroot_init(&host, "/", &err) == CU_OK) {
        /* cudaup wrote that path on this host: it is read there, whatever --root says. */
        size_t before = fw.n;
        cu_fwenvs_add(&host, app->catalog, recorded, &fw);
        cu_fwenvs_shadow(&host, app->catalog, &fw, before, app->envp, app->state_dir, app->cancel, &problems, loads);
        cu_sysroot_fini(&host);
    }
    cu_fwenvs_check(&fw, facts, app->catalog, app->envp, &problems);
    /* GPU containers on a host (issue 48): the engines (asked through the system runner) and the CDI specs. */
    struct cu_engines en = {0};
    struct cu_cdi cdi = {0};
    if (!facts->container.inside) {
        struct cu_sys sys;
        cu_sys_init(&sys, app->envp, app->root.path, false);
        inst_containers_probe(&sys, app->envp, false, &en, &cdi);
        cu_sys_fini(&sys);
        CU_AUTOFREE char *rec = cu_path_join(app->state_dir, "containers.json");
        cu_ctr_doctor(facts, app->catalog, &en, &cdi, access(rec, F_OK) == 0, &problems);
    }
    if (app->cfg.json) {
        json_t *doc = cu_doctor_json(facts, &problems);
        cu_drv_state_json(facts, json_object_get(doc, "driver"));
        json_object_set_new(doc, "framework_envs", cu_fwenvs_json(&fw, facts));
        /* What each environment's frameworks would load, walked as the loader does (issue 47). */
        json_object_set_new(doc, "framework_loads", json_incref(loads));
        json_object_set_new(doc, "container", cu_container_json(&facts->container));
        json_object_set_new(doc, "containers", facts->container.inside ? json_null() : cu_ctr_doctor_json(app->catalog, &en, &cdi));
        cu_report_json(app, doc);
    } else if (!app->cfg.quiet) {
        CU_AUTOFREE char *ctr = facts->container.inside ? NULL : cu_ctr_doctor_line(app->catalog, &en, &cdi);
        print_text(app, facts, &fw, ctr, &problems);
    } else {
        /* -q: the errors alone, each with its fix. */
        for (size_t i = 0; i < problems.n; i++) {
            const struct cu_problem *p = &problems.v[i];
            if (p->severity != CU_SEV_ERROR)
                continue;
            CU_AUTOFREE char *msg = cu_str_sanitize(p->message);
            CU_AUTOFREE char *fix = cu_xasprintf(_("fix: %s"), p->fix);
            cu_say(stdout, "", _("%s [%s]"), msg, p->code);
            cu_say(stdout, "  ", "%s", fix);
        }
    }
    rc = cu_problems_has_error(&problems) ? 3 : 0;
    json_decref(loads);
    cu_engines_fini(&en);
    cu_cdi_fini(&cdi);
    cu_fwenvs_fini(&fw);
    cu_problems_fini(&problems);
    cu_facts_free(facts);
    return rc;
}
