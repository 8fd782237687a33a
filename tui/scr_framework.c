/* SPDX-License-Identifier: MIT */
/* Which framework the environment is for: it decides which CUDA and cuDNN fit. */
#include "config.h"

#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "widgets.h"

static const char *const names[] = {"tensorflow", "pytorch", "jax", "none"};
enum { N_FW = 4, ROW_VERSION = N_FW, N_ROWS };

static const char *
title(void)
{
    return _("Framework");
}

static const char *
help(void)
{
    return _("The framework decides which CUDA and cuDNN versions fit: cudaup picks the newest pair the framework's release supports on this GPU and driver. TensorFlow comes with Keras. Leave the version empty for the newest that fits, or type one such as 2.18 or 2.5.1. None installs CUDA and cuDNN only.");
}

/* The chosen framework and version, from the answer "pytorch==2.5". */
static int
chosen(const struct tui *t, char *ver, size_t len)
{
    const char *a = t->ans.framework ? t->ans.framework : "tensorflow";
    const char *eq = strstr(a, "==");
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    snprintf(ver, len, "%s", eq ? eq + 2 : "");
    for (int i = 0; i < N_FW; i++)
        if (strlen(names[i]) == n && strncmp(a, names[i], n) == 0)
            return i;
    return 0;
}

static void
set_chosen(struct tui *t, int fw, const char *ver)
{
    CU_AUTOFREE char *a = ver && *ver && fw != 3 ? cu_xasprintf("%s==%s", names[fw], ver) : cu_xstrdup(names[fw]);
    tui_set_answer(t, &t->ans.framework, a);
}

static void
enter(struct tui *t)
{
    char ver[64];
    t->cur.sel = chosen(t, ver, sizeof(ver));
}

static void
draw(struct tui *t)
{
    char ver[64];
    const char *labels[N_FW] = {_("TensorFlow, with Keras"), _("PyTorch"), _("JAX"), _("None: CUDA and cuDNN only")};
    int fw = chosen(t, ver, sizeof(ver));
    int y = tui_frame(t, title(), t->cur.editing ? _("Enter: done   Esc: cancel the edit")
                                                 : _("Enter: choose   Space: mark   Esc: back   ?: help   q: quit"));
    y += tui_wrap(y, 1, COLS - 2, 2, _("Which framework should the Python environment have?")) + 1;
    for (int i = 0; i < N_FW; i++) {
        CU_AUTOFREE char *row = cu_xasprintf(" (%s) %s", i == fw ? "*" : " ", labels[i]);
        if (i == t->cur.sel)
            tui_attr(t, TC_SEL, true);
        tui_text_pad(y + i, 2, COLS - 6, row);
        if (i == t->cur.sel)
            tui_attr(t, TC_SEL, false);
    }
    y += N_FW + 1;
    int lw = tui_text_color(t, TC_KEY, y, 3, COLS / 2, _("Version:"));
    tui_edit_draw(t, y, 4 + lw, 24, fw == 3 ? "" : ver, t->cur.sel == ROW_VERSION);
    /* The hint beside the field when there is room, else under it. */
    const char *hint = ver[0] ? "" : _("(empty: the newest that fits)");
    if (tui_width(hint) <= COLS - lw - 32)
        tui_dim(t, y, 6 + lw + 24, COLS - lw - 32, hint);
    else
        tui_dim_wrap(t, y + 1, 4 + lw, COLS - lw - 6, 2, hint);
}

static bool
key(struct tui *t, int ch)
{
    char ver[64];
    int fw = chosen(t, ver, sizeof(ver));
    if (t->cur.editing) {
        int r = tui_edit_key(t, ch);
        if (r == 1) {
            const char *v = t->cur.edit;
            if (*v && strspn(v, "0123456789.") != strlen(v)) {
                tui_notice(t, true, _("'%s' is not a version such as 2.18 or 2.5.1."), v);
                tui_edit_begin(t, v); /* still editing: the typo is there to mend */
                return true;
            }
            /* Enter confirms the version and goes on, as Enter does everywhere. */
            set_chosen(t, fw, v);
            t->message[0] = '\0';
            tui_next(t);
        }
        return true;
    }
    if (tui_move_sel(ch, &t->cur.sel, N_ROWS, N_ROWS))
        return true;
    if (ch == '\t') {
        t->cur.sel = t->cur.sel == ROW_VERSION ? fw : ROW_VERSION;
        return true;
    }
    bool enter_key = ch == '\n' || ch == '\r' || ch == KEY_ENTER;
    if (t->cur.sel == ROW_VERSION) {
        if (enter_key) {
            if (fw == 3) {
                tui_notice(t, false, "%s", _("No framework is chosen, so there is no version to give."));
                return true;
            }
            tui_edit_begin(t, ver);
            return true;
        }
        /* Typing on the field edits it at once: a new version replaces the old, no key is dropped. */
        if (fw != 3 && ch > 0 && ch < 128 && (isdigit(ch) || ch == '.')) {
            tui_edit_begin(t, "");
            tui_edit_key(t, ch);
            return true;
        }
        return false;
    }
    if (ch == ' ' || enter_key) {
        /* Another framework: its version would not mean anything for this one. */
        set_chosen(t, t->cur.sel, t->cur.sel == fw ? ver : NULL);
        if (enter_key)
            tui_next(t);
        return true;
    }
    return false;
}

const struct tui_screen_ops scr_framework_ops = {
    .id = "framework",
    .title = title,
    .enter = enter,
    .draw = draw,
    .key = key,
    .help = help,
};
