/* SPDX-License-Identifier: MIT */
/* Everything that will be downloaded and changed, before anything is. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/resolve/driver.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/install/record.h"
#include "advice.h"
#include "widgets.h"

static const char *
title(void)
{
    return _("Review");
}

static const char *
help(void)
{
    return _("This is the whole plan: the versions and why they were chosen, every archive with its size, and each change to the system. Enter starts; the archives are checked against NVIDIA's SHA-256 sums, and a failure or a cancel puts everything back as it was.");
}

static void
enter(struct tui *t)
{
    tui_refresh(t, JOB_PLAN);
}

/* The Changes table's first two columns, in words of the screen's language (the plan keeps the
 * names its JSON gives: "envvars", "pip-install"). */
static const char *
step_label(const char *name)
{
    static const struct {
        const char *name, *label;
    } map[] = {
        {"cuda", "CUDA"},
        {"cudnn", "cuDNN"},
        {"python", "Python"},
        {"driver", N_("driver")},
        {"pyenv", N_("Python env")},
        {"envvars", N_("environment")},
        {"framework", N_("framework")},
        {"install", N_("install")},
        {"link", N_("link")},
        {"sources", N_("sources")},
        {"repository", N_("repository")},
        {"module", N_("module")},
        {"pin", N_("hold")},
        {"blacklist", N_("blacklist")},
        {"mok", N_("signing key")},
        {"reboot", N_("reboot")},
        {"load", N_("load")},
        {"create", N_("create")},
        {"write", N_("write")},
        {"pip-constraints", N_("constrain")},
        {"pip-install", N_("pip install")},
        {"hold", N_("hold")},
        {"keyring", N_("keyring")},
        {"update", N_("update")},
        {"refresh", N_("refresh")},
        {"crb", "CRB"},
        {"epel", "EPEL"},
        {"versionlock", N_("hold")},
        {"headers", N_("headers")},
        {"match", N_("match")},
        {"lock", N_("lock")},
        {"service", N_("service")},
        {"initramfs", "initramfs"},
        {"containers", N_("containers")},
        {"configure", N_("configure")},
        {"check", N_("check")},
        {"cdi", "CDI"},
        {"units", N_("units")},
        {"restart", N_("restart")},
        {"reload", N_("reload")},
        {"set-aside", N_("set aside")},
        {"prereq", N_("prepare")},
        {"hold", N_("hold")},
        {"yours", N_("yours")},
    };
    for (size_t i = 0; i < CU_N_ELEMENTS(map); i++)
        if (strcmp(map[i].name, name) == 0)
            return _(map[i].label);
    return name;
}

/* @s padded with spaces to @w columns (by display width, not bytes). Caller frees. */
static char *
padded(const char *s, int w)
{
    int n = w - tui_width(s);
    return cu_xasprintf("%s%*s", s, n > 0 ? n : 0, "");
}

/* A download's size: published, or reported by the mirror while planning (cu_download_size). */
static bool
dl_known(const struct cu_plan_download *d)
{
    bool known;
    cu_download_size(d, &known);
    return known;
}

static uint64_t
dl_bytes(const struct cu_plan_download *d)
{
    bool known;
    return cu_download_size(d, &known);
}

/* Which of the plan's archives the install at its CUDA path holds already (Add components); *n their count. */
static bool *
installed_already(const struct cu_plan *p, size_t *n)
{
    const char **names = cu_xcalloc(p->n_downloads + 1, sizeof(*names)), **sums = cu_xcalloc(p->n_downloads + 1, sizeof(*sums));
    bool *inst = cu_xcalloc(p->n_downloads + 1, sizeof(*inst));
    for (size_t i = 0; i < p->n_downloads; i++)
        names[i] = p->downloads[i].component, sums[i] = p->downloads[i].sha256;
    *n = cu_record_installed(p->cuda_path, names, sums, p->n_downloads, inst);
    free(names);
    free(sums);
    return inst;
}

/* Add components on an install that has them all: nothing to download, nothing to change (issue 35, item 7). */
static bool
nothing_to_add(const struct cu_plan *p)
{
    size_t n;
    free(installed_already(p, &n));
    return p->n_downloads && n == p->n_downloads && !(p->python && p->python->dl.url) && !p->framework &&
           !(p->driver && strcmp(p->driver->action, "install") == 0);
}

static void
draw(struct tui *t)
{
    struct tui_doc d = {0};
    char b1[32];
    bool no_plan = !tui_busy(t) && (t->plan_failed || !t->plan || tui_stale(t, JOB_PLAN));
    bool nothing = !tui_busy(t) && !no_plan && nothing_to_add(t->plan);
    /* Enter is offered only when there is a plan to carry out, and something in it to do. */
    int y = tui_frame(t, title(), tui_busy(t) ? _("working...   ?: help")
                                  : no_plan || nothing ? _("Esc: back   ?: help   q: quit")
                                                       : _("Enter: install   Esc: back   arrows: scroll   ?: help   q: quit"));
    if (tui_busy(t)) {
        tui_busy_line(t, y + 1, _("Working out the plan..."));
        return;
    }
    if (no_plan) {
        CU_AUTOFREE char *told = t->plan_failed ? tui_error_told(t, &t->plan_err) : cu_xstrdup(_("No plan yet."));
        tui_doc_add(&d, TC_BAD, 1, "%s", told);
        tui_doc_add(&d, TC_NORMAL, 0, "%s", "");
        tui_doc_add(&d, TC_NORMAL, 1, "%s", _("Esc goes back to change the answers."));
        tui_doc_draw(t, &d, y + 1, tui_body_end() - y, &t->cur.top);
        return;
    }
    const struct cu_plan *p = t->plan;
    const struct cu_drv_plan *drv = p->driver;
    if (drv && strcmp(drv->action, "install") == 0) {
        CU_AUTOFREE char *pk = cu_strv_join(&drv->packages, " ");
        tui_doc_add(&d, TC_KEY, 0, "%s", _("Driver"));
        tui_doc_add(&d, TC_NORMAL, 2, _("NVIDIA driver %d, %s kernel modules, from %s with %s"), drv->branch, cu_drv_flavor_word(drv->flavor),
                    strcmp(drv->source, "distro") == 0 ? drv->distro : _("NVIDIA's repository"), drv->manager);
        if (strcmp(drv->source, "nvidia") == 0 && !(t->ans.driver_source && strcmp(t->ans.driver_source, "nvidia") == 0))
            tui_doc_add(&d, TC_WARN, 2, "%s %s", tui_mark(t, 0),
                        _("This distribution's own packages carry no branch that fits, so the driver comes from NVIDIA's repository. Enter installs it from there; Esc goes back (run with --driver keep to leave the driver alone)."));
        tui_doc_add(&d, TC_NORMAL, 2, _("Packages: %s"), pk);
        if (drv->pin_file)
            tui_doc_add(&d, TC_NORMAL, 2, _("Held with: %s in %s"), drv->pin, drv->pin_file);
        else
            tui_doc_add(&d, TC_NORMAL, 2, _("Held with: %s"), drv->pin);
        tui_doc_add(&d, TC_NORMAL, 2, "%s",
                    strcmp(drv->secure_boot, "signed") == 0 ? _("Secure Boot: on; the distribution's signed modules load as they are")
                    : strcmp(drv->secure_boot, "mok") == 0  ? _("Secure Boot: on; DKMS's key must be enrolled at the blue MokManager screen after the reboot")
                                                            : _("Secure Boot: off; nothing to sign"));
        if (drv->reboot)
            tui_doc_add(&d, TC_WARN, 2, "%s %s", tui_mark(t, 0),
                        _("A reboot will be needed: the wizard stops there; run cudaup again afterwards to go on."));
        else if (drv->reboot_may)
            tui_doc_add(&d, TC_NORMAL, 2, "%s",
                        _("A reboot may be needed if the packages bring a newer kernel: the wizard then stops there; run cudaup again afterwards to go on."));
    }
    tui_doc_add(&d, TC_KEY, 0, "%s", _("Versions"));
    /* Where the toolkit comes from (the Components screen's t, --toolkit): no CUDA folder with wheels or none. */
    const char *tk = p->toolkit ? p->toolkit->kind : "system";
    if (strcmp(tk, "wheels") == 0)
        tui_doc_add(&d, TC_NORMAL, 2, _("CUDA %s's compiler from NVIDIA's wheels, in the environment (Toolkit: wheels; no CUDA folder)"),
                    cu_version_format(&p->toolkit->release, 0, b1, sizeof(b1)));
    else if (strcmp(tk, "none") == 0)
        tui_doc_add(&d, TC_NORMAL, 2, "%s", _("No CUDA toolkit: the frameworks' own CUDA wheels alone (Toolkit: none)"));
    else
        tui_doc_add(&d, TC_NORMAL, 2, _("CUDA %s in %s"), cu_version_format(&p->cuda, 0, b1, sizeof(b1)), p->cuda_path);
    if (strcmp(tk, "system") != 0)
        ; /* cuDNN, if the frameworks use it, is their own wheel */
    else if (p->has_cudnn)
        tui_doc_add(&d, TC_NORMAL, 2, _("cuDNN %s (the CUDA %s build), into the same folder"), p->cudnn_full ? p->cudnn_full : "?",
                    p->cudnn_variant ? p->cudnn_variant : "?");
    else
        tui_doc_add(&d, TC_NORMAL, 2, "%s", _("no cuDNN"));
    /* Every environment, each with every framework in it (it named the first framework alone, issue 49 item 12). */
    for (size_t k = 0; p->framework && k <= p->n_envs; k++) {
        const struct cu_plan *q = k ? p->envs[k - 1] : p;
        size_t nf;
        struct cu_plan_framework *const *fw = cu_plan_frameworks(q, &nf);
        struct cu_buf names;
        cu_buf_init(&names);
        for (size_t i = 0; i < nf; i++)
            cu_buf_printf(&names, "%s%s %s", i ? _(", ") : "", cu_framework_title(fw[i]->name),
                          fw[i]->version ? fw[i]->version : _("(newest)"));
        const char *py = nf ? fw[0]->python : "?";
        if (q->env.tool && strcmp(q->env.tool, "venv") == 0)
            tui_doc_add(&d, TC_NORMAL, 2, _("%s with Python %s, in the venv %s"), names.data ? names.data : "", py,
                        q->env.path ? q->env.path : q->env.name);
        else
            tui_doc_add(&d, TC_NORMAL, 2, _("%s with Python %s, in the %s environment %s"), names.data ? names.data : "", py,
                        q->env.tool ? q->env.tool : "", q->env.path ? q->env.path : q->env.name);
        cu_buf_fini(&names);
    }
    for (size_t i = 0; i < p->reasons.n; i++)
        tui_doc_add(&d, TC_DIM, 4, "%s", p->reasons.v[i]);
    for (size_t i = 0; i < p->warnings.n; i++)
        tui_doc_add(&d, TC_WARN, 2, "%s %s", tui_mark(t, 0), p->warnings.v[i]);

    /* What the install already holds is marked, and not promised as a download (Add components). */
    size_t n_inst;
    bool *inst = installed_already(p, &n_inst);
    bool py_dl = p->python && p->python->dl.url;
    /* Counted as plan counts them (cu_plan_download_text): the brought Python among them, and a size no
     * one publishes apart, never as its download cap. */
    CU_AUTOFREE char *count = cu_plan_download_text(p, inst);
    if (nothing)
        tui_doc_add(&d, TC_KEY, 0, "%s", _("Nothing to add: every component ticked is installed already"));
    else if (n_inst)
        tui_doc_add(&d, TC_KEY, 0, _("%s (%zu more installed already)"), count, n_inst);
    else
        tui_doc_add(&d, TC_KEY, 0, "%s", count);
    for (size_t i = 0; i < p->n_downloads + (py_dl ? 1 : 0); i++) {
        const struct cu_plan_download *dl = i < p->n_downloads ? &p->downloads[i] : &p->python->dl;
        const char *ver = i < p->n_downloads ? dl->version : p->python->version;
        tui_doc_add(&d, TC_NORMAL, 2, "%-28s %9s  %s", dl->component,
                    i < p->n_downloads && inst[i] ? _("installed") : !dl_known(dl) ? "?" : cu_format_bytes(dl_bytes(dl), b1, sizeof(b1)),
                    ver ? ver : "");
    }
    /* The room needed is said once, among the reasons (Disk: ...); a too-small disk is refused before this. */
    tui_doc_add(&d, TC_KEY, 0, "%s", _("Changes"));
    if (nothing) {
        /* No step to list: the plan's "download 5 archives" would promise what will not happen. */
        tui_doc_add(&d, TC_NORMAL, 2, _("None: %s holds every component ticked. Esc goes back to tick more."), p->cuda_path);
        free(inst);
        tui_doc_draw(t, &d, y, tui_body_end() - y + 1, &t->cur.top);
        return;
    }
    /* The toolkit's steps say what is left to fetch, not the whole plan, when part of it is installed. */
    size_t left = 0;
    uint64_t left_bytes = 0;
    bool cudnn_in = false;
    for (size_t i = 0; i < p->n_downloads; i++) {
        bool is_cudnn = strcmp(p->downloads[i].component, "cudnn") == 0;
        if (is_cudnn)
            cudnn_in = inst[i];
        else if (!inst[i])
            left++, left_bytes += dl_bytes(&p->downloads[i]);
    }
    int iw = 0, aw = 0;
    for (size_t i = 0; i < p->n_steps; i++) {
        iw = tui_width(step_label(p->steps[i].installer)) > iw ? tui_width(step_label(p->steps[i].installer)) : iw;
        aw = tui_width(step_label(p->steps[i].action)) > aw ? tui_width(step_label(p->steps[i].action)) : aw;
    }
    for (size_t i = 0; i < p->n_steps; i++) {
        CU_AUTOFREE char *who = padded(step_label(p->steps[i].installer), iw);
        CU_AUTOFREE char *act = padded(step_label(p->steps[i].action), aw);
        CU_AUTOFREE char *told = NULL;
        bool install = strcmp(p->steps[i].action, "install") == 0;
        if (n_inst && install && strcmp(p->steps[i].installer, "cuda") == 0)
            told = left ? cu_xasprintf(ngettext_("download %zu archive (%s), check its sha256 and unpack it into %s",
                                                 "download %zu archives (%s), check their sha256 and unpack them into %s", left),
                                       left, cu_format_bytes(left_bytes, b1, sizeof(b1)), p->cuda_path)
                        : cu_xasprintf(_("nothing to fetch: every CUDA component ticked is in %s"), p->cuda_path);
        else if (install && cudnn_in && strcmp(p->steps[i].installer, "cudnn") == 0)
            told = cu_xasprintf(_("nothing to fetch: cuDNN %s is in %s"), p->cudnn_full ? p->cudnn_full : "", p->cuda_path);
        tui_doc_add(&d, TC_NORMAL, 2, "%s %s %s", who, act, told ? told : p->steps[i].detail ? p->steps[i].detail : "");
        tui_doc_hang(&d, iw + aw + 2);
    }
    free(inst);
    tui_doc_draw(t, &d, y, tui_body_end() - y + 1, &t->cur.top);
}

static bool
key(struct tui *t, int ch)
{
    if (tui_busy(t))
        return false;
    if (tui_doc_scroll(ch, &t->cur.top, 5))
        return true;
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        if (t->plan_failed || !t->plan || tui_stale(t, JOB_PLAN)) {
            tui_notice(t, true, "%s", _("There is no plan to carry out; go back and change the answers."));
            return true;
        }
        if (nothing_to_add(t->plan)) {
            tui_notice(t, false, "%s", _("Nothing to add: every component ticked is installed already. Esc goes back."));
            return true;
        }
        if (t->o.log) {
            /* The log keeps why, and the data each reason rests on (the screen shows the reason alone). */
            const struct cu_plan *p = t->plan;
            for (size_t i = 0; i < p->reasons.n; i++) {
                const char *src = i < p->reason_sources.n ? p->reason_sources.v[i] : "";
                fprintf(t->o.log, "why: %s%s%s%s\n", cu_english(p->reasons.v[i]), *src ? " (source: " : "", src,
                        *src ? ")" : "");
            }
            fflush(t->o.log);
        }
        t->progress_job = JOB_INSTALL;
        tui_goto(t, SCR_PROGRESS);
        return true;
    }
    return false;
}

const struct tui_screen_ops scr_review_ops = {
    .id = "review",
    .title = title,
    .enter = enter,
    .draw = draw,
    .key = key,
    .help = help,
};
