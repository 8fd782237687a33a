/* SPDX-License-Identifier: MIT */
/* GPU containers on this host (issue 48): shown when a container engine is installed on this Linux. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/machine/engines.h"
#include "core/machine/syscmd.h"
#include "widgets.h"

enum { ROW_CHOICE, ROW_CONTINUE, N_ROWS };

static const char *
title(void)
{
    return _("Containers");
}

static const char *
help(void)
{
    return _("cudaup can make this host ready for GPU containers: the NVIDIA Container Toolkit from NVIDIA's repository, held at the release cudaup's data vouches for; each engine's configuration written so that it still starts (your settings kept, the old file kept beside it, the new one checked by the engine's own parser first); and the CDI spec, which `--device nvidia.com/gpu=all` uses, kept fresh after each boot and driver update. An engine that runs containers is never restarted by the wizard: the end of the install says how to restart it. `cudaup uninstall containers` undoes it all.");
}

/* The engines installed on this Linux, by name; *@desktop: Docker Desktop's CLI is here (under WSL2). */
static size_t
engines_here(const struct tui *t, const char *out[], size_t max, bool *desktop)
{
    struct cu_sys sys;
    struct cu_engines en;
    cu_sys_init(&sys, t->o.envp, t->o.root ? t->o.root->path : "/", false);
    struct cu_engines_opts o = {&sys, t->o.envp, false, false}; /* files only: no command runs on the UI thread */
    cu_engines_probe(&o, &en);
    size_t n = 0;
    for (int k = 0; k < CU_N_ENGINES && n < max; k++)
        if (en.e[k].installed)
            out[n++] = cu_engine_name((enum cu_engine_kind)k);
    *desktop = en.e[CU_ENGINE_DOCKER].desktop;
    cu_engines_fini(&en);
    cu_sys_fini(&sys);
    return n;
}

static const char *
choice_of(const struct tui *t)
{
    return t->ans.containers && *t->ans.containers ? t->ans.containers : "none";
}

static const char *
choice_label(const char *c)
{
    return strcmp(c, "none") == 0 ? _("not now") : strcmp(c, "auto") == 0 ? _("every engine here") : c;
}

static void
draw(struct tui *t)
{
    const char *names[CU_N_ENGINES];
    bool desktop = false;
    size_t n = engines_here(t, names, CU_N_ENGINES, &desktop);
    int y = tui_frame(t, title(), _("Enter: continue   Left/Right: change   Esc: back   ?: help   q: quit"));
    int w = COLS - 6;
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        enum cu_engine_kind k;
        cu_buf_printf(&b, "%s%s", i ? _(", ") : "", cu_engine_parse(names[i], &k) ? cu_engine_title(k) : names[i]);
    }
    CU_AUTOFREE char *found = cu_xasprintf(_("Container engines on this machine: %s."), b.data ? b.data : _("none"));
    cu_buf_fini(&b);
    y += 1 + tui_wrap(y + 1, 3, w, 2, found);
    if (desktop)
        y += tui_dim_wrap(t, y, 3, w, 2, _("Docker Desktop's docker is Windows' (WSL2): it is set up in Docker Desktop's own settings, not here."));
    y += 1 + tui_wrap(y + 1, 3, w, 5,
                      _("cudaup can make this host ready for GPU containers: the NVIDIA Container Toolkit, each engine's configuration (your settings kept, checked by the engine's own parser first) and the CDI spec kept fresh."));
    y++;
    const char *label = _("GPU containers");
    int lw = tui_width(label);
    tui_text_color(t, TC_KEY, y, 3, lw, label);
    CU_AUTOFREE char *cv = cu_xasprintf("< %s >", choice_label(choice_of(t)));
    tui_edit_draw(t, y, 3 + lw + 2, tui_width(cv) + 2, cv, t->cur.sel == ROW_CHOICE);
    y += 2;
    const char *c = choice_of(t);
    if (strcmp(c, "none") != 0)
        y += tui_dim_wrap(t, y, 3, w, 3, _("An engine that runs containers is not restarted by the wizard: the end of the install says how to restart it. Review shows every step."));
    tui_button(t, y + 1, t->cur.sel == ROW_CONTINUE);
}

static void
enter(struct tui *t)
{
    t->cur.sel = ROW_CONTINUE;
}

static bool
key(struct tui *t, int ch)
{
    if (tui_form_move(ch, &t->cur.sel, N_ROWS, -1))
        return true;
    int dir = tui_cycle_dir(ch);
    if (dir && t->cur.sel == ROW_CHOICE) {
        const char *names[CU_N_ENGINES];
        const char *set[CU_N_ENGINES + 2] = {"none", "auto"};
        bool desktop;
        size_t n = engines_here(t, names, CU_N_ENGINES, &desktop);
        for (size_t i = 0; i < n; i++)
            set[2 + i] = names[i];
        tui_set_answer(t, &t->ans.containers, tui_cycle_value(set, (int)(n + 2), choice_of(t), dir));
        return true;
    }
    return false;
}

const struct tui_screen_ops scr_containers_ops = {
    .id = "containers",
    .title = title,
    .enter = enter,
    .draw = draw,
    .key = key,
    .help = help,
};
