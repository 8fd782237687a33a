/* SPDX-License-Identifier: MIT */
/* Where CUDA goes and how the shell finds it. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "widgets.h"

enum { ROW_PREFIX, ROW_SCOPE, ROW_RC, ROW_SOURCE, ROW_CONTINUE, N_ROWS };
static const char *const scopes[] = {"user", "system", "conda", "none"};

/* The scope's name on the screen: the flag's value in English, a word of the language elsewhere. */
static const char *
scope_label(const char *s)
{
    if (strcmp(s, "user") == 0)
        return _("user");
    if (strcmp(s, "system") == 0)
        return _("system");
    if (strcmp(s, "none") == 0)
        return _("none");
    return s; /* conda: a name */
}

/* The mirror given at start, or NULL: only then is there a choice of where downloads come from. */
static const char *
mirror_of(const struct tui *t)
{
    const char *m = t->o.cfg ? t->o.cfg->mirror : NULL;
    return m && *m ? m : NULL;
}

/* Whether a row is on the screen: the rc file only for scope user, the source only with a mirror. */
static bool
row_shown(const struct tui *t, int row, const char *scope)
{
    if (row == ROW_RC)
        return strcmp(scope, "user") == 0;
    if (row == ROW_SOURCE)
        return mirror_of(t) != NULL;
    return true;
}

static const char *
title(void)
{
    return _("Location and environment");
}

static const char *
help(void)
{
    return _("CUDA goes into PREFIX/cuda-X.Y, and PREFIX/cuda points at the active version. The environment (PATH, LD_LIBRARY_PATH, CUDA_HOME) is set for you alone (a block in your shell's start-up file, removed again by uninstall), for everyone (/etc/profile.d, needs root), only inside the conda environment, or not at all (then source STATE/env.sh yourself). When cudaup was started with a mirror, Downloads from chooses between it and NVIDIA's own server.");
}

static const char *
scope_of(const struct tui *t)
{
    if (t->ans.env_scope)
        return t->ans.env_scope;
    if (t->plan && t->plan->env.scope)
        return t->plan->env.scope;
    return t->o.is_root ? "system" : "user";
}

static char *
rc_of(const struct tui *t)
{
    if (t->ans.shell_rc)
        return cu_xstrdup(t->ans.shell_rc);
    if (t->plan && t->plan->env.shell_rc)
        return cu_xstrdup(t->plan->env.shell_rc);
    return cu_default_shell_rc(t->o.envp);
}

static const char *
scope_text(const char *s)
{
    if (strcmp(s, "user") == 0)
        return _("for you: a block in your shell's start-up file");
    if (strcmp(s, "system") == 0)
        return _("for everyone: /etc/profile.d/cudaup.sh (needs root)");
    if (strcmp(s, "conda") == 0)
        return _("only inside the Python environment (conda activate hooks)");
    return _("not at all: source the env.sh cudaup writes yourself");
}

static void
draw(struct tui *t)
{
    int y = tui_frame(t, title(), t->cur.editing ? _("Enter: done   Esc: cancel the edit   Ctrl-U: clear")
                                                 : _("Enter: edit/continue  Left/Right: change  Esc: back  ?: help  q: quit"));
    const char *labels[] = {_("Install folder"), _("Environment"), _("Shell start-up file"), _("Downloads from")};
    int lw = tui_labels_width(labels, mirror_of(t) ? 4 : 3);
    int fx = 3 + lw + 2, fw = COLS - fx - 2;
    const char *prefix = t->ans.prefix ? t->ans.prefix : t->o.prefix;
    const char *scope = scope_of(t);
    CU_AUTOFREE char *rc = rc_of(t);
    y++;
    tui_text_color(t, TC_KEY, y, 3, lw, labels[0]);
    tui_edit_draw(t, y, fx, fw, prefix, t->cur.sel == ROW_PREFIX);
    /* The version chosen on the Versions screen, not a placeholder (issue 35). */
    char mm[32] = "X.Y";
    if (t->plan && t->plan->cuda.n)
        cu_plan_cuda_mm(t->plan, mm, sizeof(mm));
    CU_AUTOFREE char *where_fmt = strcmp(mm, "X.Y") != 0 ? cu_xasprintf(_("CUDA %s goes into %s/cuda-%s"), mm, TUI_PATH, mm)
                                                         : cu_xasprintf(_("CUDA goes into %s/cuda-X.Y"), TUI_PATH);
    /* The whole path and the whole sentence under each field, over as many rows as they take (up to three
     * on a narrow terminal), rather than cut (issue 35: the path cut from the left at 60x20). */
    CU_AUTOFREE char *where = tui_fit_path(t, 1 << 20, where_fmt, prefix);
    int rows = tui_wrap_rows(where, fw, 0);
    rows = rows < 2 ? 2 : rows > 3 ? 3 : rows;
    tui_dim_wrap(t, y + 1, fx, fw, rows, where);
    y += 1 + rows;
    tui_text_color(t, TC_KEY, y, 3, lw, labels[1]);
    CU_AUTOFREE char *sc = cu_xasprintf("< %s >", scope_label(scope));
    tui_edit_draw(t, y, fx, tui_width(sc) + 2, sc, t->cur.sel == ROW_SCOPE);
    rows = tui_wrap_rows(scope_text(scope), fw, 0);
    rows = rows < 2 ? 2 : rows > 3 ? 3 : rows;
    tui_dim_wrap(t, y + 1, fx, fw, rows, scope_text(scope));
    y += 1 + rows;
    bool user = strcmp(scope, "user") == 0;
    tui_text_color(t, user ? TC_KEY : TC_DIM, y, 3, lw, labels[2]);
    if (user)
        tui_edit_draw(t, y, fx, fw, rc, t->cur.sel == ROW_RC);
    else
        tui_text(y, fx, fw, _("(not used for this scope)"));
    y += 3;
    if (mirror_of(t)) {
        bool nvidia = !t->ans.mirror || !*t->ans.mirror;
        tui_text_color(t, TC_KEY, y, 3, lw, labels[3]);
        CU_AUTOFREE char *src = cu_xasprintf("< %s >", nvidia ? "NVIDIA" : _("the mirror"));
        tui_edit_draw(t, y, fx, tui_width(src) + 2, src, t->cur.sel == ROW_SOURCE);
        if (nvidia) {
            tui_dim_wrap(t, y + 1, fx, fw, 2, _("NVIDIA's own download server"));
        } else {
            /* The sentence, then the URL on a row of its own, shortened at its start when it must be. */
            CU_AUTOFREE char *url = tui_fit_path(t, fw, TUI_PATH, mirror_of(t));
            tui_dim(t, y + 1, fx, fw, _("the mirror given at start:"));
            tui_dim(t, y + 2, fx, fw, url);
        }
        y += 3;
    }
    tui_button(t, y, t->cur.sel == ROW_CONTINUE);
}

static void
cycle(struct tui *t, int dir)
{
    const char *s = tui_cycle_value(scopes, 4, scope_of(t), dir);
    tui_set_answer(t, &t->ans.env_scope, s);
    if (strcmp(s, "system") == 0 && !t->o.is_root)
        tui_notice(t, false, "%s", _("Scope system writes /etc/profile.d, which needs root; run cudaup with sudo for it."));
    else
        t->message[0] = '\0';
}

/* The cursor starts on Continue: Enter accepts what is shown, as on every screen. */
static void
enter(struct tui *t)
{
    t->cur.sel = ROW_CONTINUE;
}

static bool
key(struct tui *t, int ch)
{
    bool enter_key = ch == '\n' || ch == '\r' || ch == KEY_ENTER;
    if (t->cur.editing) {
        if (tui_edit_key(t, ch) == 1) {
            const char *v = t->cur.edit;
            if (*v && v[0] != '/') {
                tui_notice(t, true, _("'%s' is not an absolute path; start it with /."), v);
                return true;
            }
            struct cu_error e;
            if (*v && t->cur.sel == ROW_PREFIX && !cu_dir_can_create(v, &e)) {
                /* Said here, where it can be fixed, not as "0 B free" on Review. */
                tui_notice(t, true, "%s", cu_error_text(&e));
                return true;
            }
            tui_set_answer(t, t->cur.sel == ROW_PREFIX ? &t->ans.prefix : &t->ans.shell_rc, v);
            t->message[0] = '\0';
        }
        return true;
    }
    if (tui_form_move(ch, &t->cur.sel, N_ROWS, -1)) {
        for (int k = 0; k < N_ROWS && !row_shown(t, t->cur.sel, scope_of(t)); k++)
            tui_form_move(ch, &t->cur.sel, N_ROWS, -1);
        return true;
    }
    if (t->cur.sel == ROW_SCOPE && tui_cycle_dir(ch)) {
        cycle(t, tui_cycle_dir(ch));
        return true;
    }
    if (t->cur.sel == ROW_SOURCE && tui_cycle_dir(ch)) {
        /* The mirror given at start, or NVIDIA's server: the engine's advice names this choice. */
        bool nvidia = !t->ans.mirror || !*t->ans.mirror;
        tui_set_answer(t, &t->ans.mirror, nvidia ? mirror_of(t) : NULL);
        return true;
    }
    if (enter_key && t->cur.sel == ROW_PREFIX) {
        tui_edit_begin(t, t->ans.prefix ? t->ans.prefix : t->o.prefix);
        return true;
    }
    if (enter_key && t->cur.sel == ROW_RC) {
        CU_AUTOFREE char *rc = rc_of(t);
        tui_edit_begin(t, rc);
        return true;
    }
    if (enter_key) {
        /* A prefix from --prefix is checked here too, before Review. */
        struct cu_error e;
        if (!cu_dir_can_create(t->ans.prefix ? t->ans.prefix : t->o.prefix, &e)) {
            tui_notice(t, true, "%s", cu_error_text(&e));
            return true;
        }
    }
    return false; /* Enter elsewhere: the next screen */
}

const struct tui_screen_ops scr_location_ops = {
    .id = "location",
    .title = title,
    .enter = enter,
    .draw = draw,
    .key = key,
    .help = help,
};
