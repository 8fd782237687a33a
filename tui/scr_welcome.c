/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <curses.h>
#include <string.h>

#include "core/base/i18n.h"
#include "widgets.h"

static const char *
title(void)
{
    return _("Welcome");
}

static void
draw(struct tui *t)
{
    struct tui_doc d = {0};
    char b1[32], b2[32];
    const struct cu_facts *f = t->o.facts;
    int y = tui_frame(t, title(), _("Enter: begin   ?: help   q: quit"));

    tui_doc_add(&d, TC_NORMAL, 0, "%s",
                _("cudaup makes this machine ready for deep learning on its NVIDIA GPU: it picks the CUDA toolkit and cuDNN that fit the GPU, the driver and your framework, downloads NVIDIA's archives, checks them, installs them, sets up the environment and a Python environment, and proves the result with real GPU work."));
    tui_doc_add(&d, TC_NORMAL, 0, "%s", "");
    if (f->n_gpus == 0)
        tui_doc_add(&d, TC_WARN, 2, "%s", _("No NVIDIA GPU was found. You can still install a toolkit for building."));
    for (size_t i = 0; i < f->n_gpus; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        if (g->cc.n)
            tui_doc_add(&d, TC_GOOD, 2, _("GPU %d: %s (compute capability %s)"), g->index, g->name ? g->name : "?",
                        cu_version_format(&g->cc, 2, b1, sizeof(b1)));
        else
            tui_doc_add(&d, TC_GOOD, 2, _("GPU %d: %s"), g->index, g->name ? g->name : "?");
    }
    if (f->driver.kind == CU_DRIVER_NVIDIA || f->driver.kind == CU_DRIVER_WSL) {
        if (f->driver.cuda_max.n)
            tui_doc_add(&d, TC_GOOD, 2, _("Driver %s: runs CUDA up to %s"),
                        cu_driver_version_format(&f->driver.version, b1, sizeof(b1)),
                        cu_version_format(&f->driver.cuda_max, 2, b2, sizeof(b2)));
        else
            tui_doc_add(&d, TC_GOOD, 2, _("Driver %s"), cu_driver_version_format(&f->driver.version, b1, sizeof(b1)));
    } else if (f->n_gpus) {
        /* Not the end of it (issue 35): say what the wizard does about it. */
        const char *mode = t->ans.driver && *t->ans.driver ? t->ans.driver : "auto";
        bool plans = strcmp(mode, "keep") != 0 && strcmp(mode, "none") != 0;
        tui_doc_add(&d, TC_WARN, 2, "%s",
                    f->driver.kind == CU_DRIVER_NOUVEAU
                        ? (plans ? _("The open-source nouveau driver holds the GPU, and CUDA needs NVIDIA's: the wizard plans the NVIDIA driver that fits, and the Review screen shows it before anything changes.")
                                 : _("The open-source nouveau driver holds the GPU, and CUDA needs NVIDIA's; cudaup was started to leave the driver as it is, so the toolkit installs for building only."))
                        : (plans ? _("No NVIDIA driver is loaded: the wizard plans the one that fits, and the Review screen shows it before anything changes.")
                                 : _("No NVIDIA driver is loaded, and cudaup was started to leave the driver as it is, so the toolkit installs for building only.")));
    }
    tui_doc_add(&d, TC_NORMAL, 0, "%s", "");
    if (t->existing && t->existing_tk) { /* no CUDA install: an environment that holds its own toolkit (issue 50) */
        tui_doc_add(&d, TC_NORMAL, 0, _("cudaup already made the Python environment %s, which holds its own CUDA toolkit (Toolkit: %s). Press Enter to check it, repair it or remove it."),
                    t->existing, t->existing_tk);
    } else if (t->existing) {
        tui_doc_add(&d, TC_NORMAL, 0, _("cudaup already installed CUDA %s in %s. Press Enter to check it, repair it, add to it, switch version or remove it."),
                    t->existing_version.n ? cu_version_format(&t->existing_version, 0, b1, sizeof(b1)) : "?",
                    t->existing);
    } else {
        tui_doc_add(&d, TC_NORMAL, 0, "%s",
                    _("The next screens ask what to install and where; each has a sensible answer already. Nothing is changed until you confirm on the Review screen."));
    }
    tui_doc_add(&d, TC_NORMAL, 0, "%s", "");
    tui_doc_add(&d, TC_DIM, 0, "%s", _("Enter goes on, Esc goes back, q quits, ? explains the keys of each screen."));
    tui_doc_draw(t, &d, y, tui_body_end() - y + 1, &t->cur.top);
}

static bool
key(struct tui *t, int ch)
{
    return tui_doc_scroll(ch, &t->cur.top, 5);
}

const struct tui_screen_ops scr_welcome_ops = {
    .id = "welcome",
    .title = title,
    .draw = draw,
    .key = key,
};
