/* SPDX-License-Identifier: MIT */
/* What cudaup found: GPUs, the driver, CUDA already here, and each problem with its fix. */
#include "config.h"

#include <curses.h>
#include <string.h>

#include "core/base/i18n.h"
#include "advice.h"
#include "core/base/mem.h"
#include "installers/driver.h"
#include "widgets.h"

static const char *
title(void)
{
    return _("System");
}

static const char *
help(void)
{
    return _("What cudaup found on this machine. Problems marked as errors stop GPU programs from running; each comes with the command or step that fixes it. You can go on anyway: the toolkit installs, and verify tells you what still fails.");
}

static void
draw(struct tui *t)
{
    struct tui_doc d = {0};
    char b1[32], b2[32];
    const struct cu_facts *f = t->o.facts;
    int y = tui_frame(t, title(), _("Enter: next   Esc: back   arrows: scroll   ?: help   q: quit"));

    tui_doc_add(&d, TC_KEY, 0, "%s", _("GPUs"));
    if (f->n_gpus == 0)
        tui_doc_add(&d, TC_WARN, 2, "%s", _("none found"));
    for (size_t i = 0; i < f->n_gpus; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        char mem[32] = "";
        if (g->memory_mib)
            snprintf(mem, sizeof(mem), ", %llu MiB", (unsigned long long)g->memory_mib);
        tui_doc_add(&d, TC_NORMAL, 2, "%d  %s  [%s]  %s %s%s%s%s", g->index, g->name ? g->name : "?", g->pci_id,
                    _("compute capability"), g->cc.n ? cu_version_format(&g->cc, 2, b1, sizeof(b1)) : "?",
                    g->arch ? " (" : "", g->arch ? g->arch : "", g->arch ? ")" : "");
        if (mem[0])
            tui_doc_add(&d, TC_DIM, 5, "%s%s", g->bus, mem);
    }
    tui_doc_add(&d, TC_KEY, 0, "%s", _("Driver"));
    if (f->driver.kind == CU_DRIVER_NVIDIA || f->driver.kind == CU_DRIVER_WSL) {
        tui_doc_add(&d, TC_NORMAL, 2, "%s %s%s", cu_driver_kind_name(f->driver.kind),
                    cu_driver_version_format(&f->driver.version, b1, sizeof(b1)),
                    f->driver.kind == CU_DRIVER_WSL ? " (WSL)" : "");
        if (f->driver.cuda_max.n)
            tui_doc_add(&d, TC_NORMAL, 2, _("runs CUDA up to %s"), cu_version_format(&f->driver.cuda_max, 2, b2, sizeof(b2)));
    } else {
        tui_doc_add(&d, TC_WARN, 2, "%s", f->driver.kind == CU_DRIVER_NOUVEAU ? _("nouveau (the open-source driver; CUDA needs NVIDIA's)")
                                                                              : _("none loaded"));
    }
    if (f->os.pretty_name)
        tui_doc_add(&d, TC_DIM, 2, "%s, %s", f->os.pretty_name, f->os.machine);
    tui_doc_add(&d, TC_KEY, 0, "%s", _("CUDA on this machine"));
    if (f->n_installs == 0)
        tui_doc_add(&d, TC_DIM, 2, "%s", _("none"));
    for (size_t i = 0; i < f->n_installs; i++) {
        const struct cu_cuda_install *in = &f->installs[i];
        char dn[48] = "";
        if (in->cudnn.n)
            snprintf(dn, sizeof(dn), ", cuDNN %s", cu_version_format(&in->cudnn, 0, b2, sizeof(b2)));
        tui_doc_add(&d, TC_NORMAL, 2, "%s  %s%s%s", in->version.n ? cu_version_format(&in->version, 0, b1, sizeof(b1)) : "?",
                    in->path, dn, in->managed ? _(" (cudaup)") : "");
    }
    if (f->pyenv)
        tui_doc_add(&d, TC_DIM, 0, _("Python environments: %s %s"), f->pyenv->tool, f->pyenv->version ? f->pyenv->version : "");
    tui_doc_add(&d, TC_KEY, 0, "%s", _("Problems"));
    if (t->problems.n == 0)
        tui_doc_add(&d, TC_GOOD, 2, "%s", _("none found"));
    for (size_t i = 0; i < t->problems.n; i++) {
        const struct cu_problem *p = &t->problems.v[i];
        enum tui_color c = p->severity == CU_SEV_ERROR ? TC_BAD : p->severity == CU_SEV_WARNING ? TC_WARN : TC_DIM;
        CU_AUTOFREE char *said = cu_xasprintf(_("%s [%s]"), p->message, p->code); /* "。[no-cuda]" in Chinese */
        tui_doc_add(&d, c, 2, "%s %s", tui_mark(t, p->severity == CU_SEV_ERROR ? -1 : 0), said);
        if (p->fix && *p->fix) {
            CU_AUTOFREE char *fix = tui_problem_fix(t, p);
            tui_doc_add(&d, TC_NORMAL, 4, _("Fix: %s"), fix);
        }
        /* What the wizard itself does about it: the command line's fix is for running cudaup by hand. */
        const char *drv = t->o.cfg && t->o.cfg->driver ? t->o.cfg->driver : "auto";
        if (inst_driver_installs(p->code) && strcmp(drv, "keep") != 0 && strcmp(drv, "none") != 0)
            tui_doc_add(&d, TC_GOOD, 4, "%s", _("The wizard does this: it plans the NVIDIA driver, Review shows it, and the install carries it out (and says when to reboot)."));
        else if (inst_driver_repairs(p->code) && t->existing)
            tui_doc_add(&d, TC_GOOD, 4, "%s", _("The wizard does this: Repair, on its first screen, fixes the driver before the install's files."));
    }
    tui_doc_draw(t, &d, y, tui_body_end() - y + 1, &t->cur.top);
}

static bool
key(struct tui *t, int ch)
{
    return tui_doc_scroll(ch, &t->cur.top, 5);
}

const struct tui_screen_ops scr_system_ops = {
    .id = "system",
    .title = title,
    .draw = draw,
    .key = key,
    .help = help,
};
