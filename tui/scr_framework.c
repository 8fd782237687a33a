/* SPDX-License-Identifier: MIT */
/* Which framework the environment is for: it decides which CUDA and cuDNN fit. */
#include "config.h"

#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
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

/*
 * The chosen frameworks, from the answer "pytorch==2.5,jax": one environment for all of them (issue 36).
 * set[] holds their rows in the order they were ticked (the first decides the others' releases), ver[] the
 * version of each row ("" for the newest that fits).
 */
struct fwset {
    int set[N_FW];
    int n;
    char ver[N_FW][32];
    int n_envs; /* environments the answer names: 2 for --framework A --framework B ("A;B") */
};

static void
parse_set(const struct tui *t, struct fwset *s)
{
    const char *a = t->ans.framework ? t->ans.framework : "tensorflow";
    memset(s, 0, sizeof(*s));
    s->n_envs = 1;
    for (const char *p = a; *p; p++)
        s->n_envs += *p == ';';
    for (const char *p = a; *p && s->n < N_FW;) {
        size_t item = strcspn(p, ",;"), n = strcspn(p, ",;=");
        n = n < item ? n : item;
        for (int i = 0; i < N_FW; i++) {
            if (strlen(names[i]) != n || strncmp(p, names[i], n) != 0)
                continue;
            bool have = false;
            for (int k = 0; k < s->n; k++)
                have |= s->set[k] == i;
            if (!have) {
                s->set[s->n++] = i;
                if (item > n + 2 && p[n] == '=')
                    snprintf(s->ver[i], sizeof(s->ver[i]), "%.*s", (int)(item - n - 2), p + n + 2);
            }
        }
        p += item;
        p += *p != '\0';
    }
    if (!s->n)
        s->set[s->n++] = 0;
}

static bool
in_set(const struct fwset *s, int row)
{
    for (int k = 0; k < s->n; k++)
        if (s->set[k] == row)
            return true;
    return false;
}

static void
store_set(struct tui *t, const struct fwset *s)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (int k = 0; k < s->n; k++) {
        int i = s->set[k];
        /* One environment each (--framework given twice) stays so; else one environment for all. */
        cu_buf_printf(&b, "%s%s", b.len ? s->n_envs > 1 ? ";" : "," : "", names[i]);
        if (s->ver[i][0] && i != 3)
            cu_buf_printf(&b, "==%s", s->ver[i]);
    }
    /* The toolkit's wheels or none were chosen for the frameworks that were (the Components screen's t): other
     * frameworks take the default again, and Components offers the choice where they allow it. */
    bool changed = !t->ans.framework || !b.data || strcmp(t->ans.framework, b.data) != 0;
    if (changed && t->ans.toolkit && strcmp(t->ans.toolkit, "system") != 0)
        tui_set_answer(t, &t->ans.toolkit, NULL);
    tui_set_answer(t, &t->ans.framework, b.data);
    cu_buf_fini(&b);
}

/* The framework row the version field belongs to: the one last highlighted that is chosen, else the first. */
static int
version_row(const struct tui *t, const struct fwset *s)
{
    return t->cur.field >= 0 && t->cur.field < N_FW && in_set(s, t->cur.field) ? t->cur.field : s->set[0];
}

/* The chosen framework (the version row's) and its version: what one framework's answer was. */
static int
chosen(const struct tui *t, char *ver, size_t len)
{
    struct fwset s;
    parse_set(t, &s);
    int fw = version_row(t, &s);
    snprintf(ver, len, "%s", s.ver[fw]);
    return fw;
}

static void
set_chosen(struct tui *t, int fw, const char *ver)
{
    struct fwset s;
    memset(&s, 0, sizeof(s));
    s.set[s.n++] = fw;
    snprintf(s.ver[fw], sizeof(s.ver[fw]), "%s", ver && fw != 3 ? ver : "");
    store_set(t, &s);
}

/*
 * Space: tick or untick a framework for the one environment; None stands alone.  TensorFlow ticked only because
 * nothing was chosen yet is the default, not a choice: the first framework ticked takes its place (it stayed
 * ticked beside the one the user marked, issue 49 item 12).
 */
static void
toggle(struct tui *t, int row)
{
    struct fwset s;
    parse_set(t, &s);
    if (row == 3 || in_set(&s, 3) || !t->ans.framework || !*t->ans.framework) {
        set_chosen(t, row, s.ver[row]);
        return;
    }
    s.n_envs = 1; /* what Space ticks shares one environment */
    if (in_set(&s, row)) {
        if (s.n == 1)
            return; /* one stays chosen: None is the way to have none */
        int k = 0;
        for (int i = 0; i < s.n; i++)
            if (s.set[i] != row)
                s.set[k++] = s.set[i];
        s.n = k;
    } else {
        s.set[s.n++] = row;
    }
    store_set(t, &s);
}

static void
enter(struct tui *t)
{
    char ver[64];
    t->cur.field = -1;
    t->cur.sel = chosen(t, ver, sizeof(ver));
    t->cur.field = t->cur.sel;
}

static void
draw(struct tui *t)
{
    char ver[64];
    const char *labels[N_FW] = {_("TensorFlow, with Keras"), _("PyTorch"), _("JAX"), _("None: CUDA and cuDNN only")};
    int fw = chosen(t, ver, sizeof(ver));
    struct fwset set;
    parse_set(t, &set);
    int y = tui_frame(t, title(), t->cur.editing ? _("Enter: done   Esc: cancel the edit")
                                                 : _("Enter: choose   Space: mark   Esc: back   ?: help   q: quit"));
    y += tui_wrap(y, 1, COLS - 2, 2, _("Which framework should the Python environment have?")) + 1;
    /* Check boxes: several frameworks can share the one environment (round marks said one only). */
    for (int i = 0; i < N_FW; i++) {
        CU_AUTOFREE char *row = cu_xasprintf(" [%s] %s", in_set(&set, i) ? "x" : " ", labels[i]);
        if (i == t->cur.sel)
            tui_attr(t, TC_SEL, true);
        tui_text_pad(y + i, 2, COLS - 6, row);
        if (i == t->cur.sel)
            tui_attr(t, TC_SEL, false);
    }
    y += N_FW;
    /* How several go together: one environment for those ticked, or (--framework given twice) one each. */
    CU_AUTOFREE char *how = NULL;
    if (set.n_envs > 1) {
        struct cu_buf b;
        cu_buf_init(&b);
        for (int k = 0; k < set.n; k++)
            cu_buf_printf(&b, "%s%s", k ? _(", ") : "", cu_framework_title(names[set.set[k]]));
        how = cu_xasprintf(_("An environment each: %s. Space makes them one environment."), b.data);
        cu_buf_fini(&b);
    } else {
        how = cu_xstrdup(_("Space ticks more than one for the same environment; Enter takes the highlighted one alone."));
    }
    y += tui_dim_wrap(t, y, 3, COLS - 5, 2, how) + 1;
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
            struct fwset s;
            parse_set(t, &s);
            snprintf(s.ver[fw], sizeof(s.ver[fw]), "%s", fw != 3 ? v : "");
            store_set(t, &s);
            t->message[0] = '\0';
            tui_next(t);
        }
        return true;
    }
    if (tui_move_sel(ch, &t->cur.sel, N_ROWS, N_ROWS)) {
        if (t->cur.sel < N_FW)
            t->cur.field = t->cur.sel; /* the version field follows the framework highlighted last */
        return true;
    }
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
    if (ch == ' ') {
        /* Space ticks several for one environment (their CUDA wheels must agree: cudaup plans them). */
        toggle(t, t->cur.sel);
        return true;
    }
    if (enter_key) {
        struct fwset s;
        parse_set(t, &s);
        /* Enter on one of several ticked goes on with them all (one environment each, as --framework given twice
         * said, stays so); elsewhere it chooses that one alone. */
        if (!(s.n > 1 && in_set(&s, t->cur.sel)))
            set_chosen(t, t->cur.sel, s.ver[t->cur.sel]);
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
