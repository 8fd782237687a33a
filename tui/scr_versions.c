/* SPDX-License-Identifier: MIT */
/*
 * CUDA and cuDNN versions: the resolver says, for each release on the
 * mirror, whether it fits (and what comes with it) or why not.  The screen
 * only shows that and records the choice.
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/resolve/plan.h"
#include "advice.h"
#include "widgets.h"

enum { FIELD_CUDA, FIELD_CUDNN };

static const char *
title(void)
{
    return _("Versions");
}

static const char *
help(void)
{
    return _("Versions marked as fitting work with this GPU, this driver and the framework; the others say why not (the driver is too old, the GPU is too old or too new for it, the framework needs another CUDA). Automatic takes the newest that fits. Tab switches between CUDA and cuDNN.");
}

static void
ask_engine(struct tui *t)
{
    tui_refresh(t, t->cur.field == FIELD_CUDA ? JOB_CUDA_CHOICES : JOB_CUDNN_CHOICES);
}

/*
 * The rows: the automatic entry (choices[0]), for cuDNN then "None", then
 * the releases.  choice_at() maps a row back; NULL is the None row.
 */
static const struct cu_choice *
choice_at(const struct tui *t, int field, int row, size_t *n_rows)
{
    const struct cu_choice *v = field == FIELD_CUDA ? t->cuda_choices : t->cudnn_choices;
    size_t n = field == FIELD_CUDA ? t->n_cuda_choices : t->n_cudnn_choices;
    bool none_row = field == FIELD_CUDNN && n > 0;
    if (n_rows)
        *n_rows = n + none_row;
    if (row < 0 || (size_t)row >= n + none_row)
        return NULL;
    if (!none_row || row == 0)
        return &v[row];
    return row == 1 ? NULL : &v[row - 1];
}

static int
row_of_answer(const struct tui *t, int field)
{
    const char *a = field == FIELD_CUDA ? t->ans.cuda : t->ans.cudnn;
    size_t n;
    choice_at(t, field, 0, &n);
    if (!a || strcmp(a, "auto") == 0)
        return 0;
    for (size_t r = 1; r < n; r++) {
        const struct cu_choice *c = choice_at(t, field, (int)r, NULL);
        struct cu_version want, have;
        if (!c) {
            if (strcmp(a, "none") == 0)
                return (int)r;
            continue;
        }
        if (strcmp(c->label, a) == 0 ||
            (cu_version_parse(a, &want) && cu_version_parse(c->label, &have) && cu_version_matches(&have, &want)))
            return (int)r;
    }
    return 0;
}

static void
enter(struct tui *t)
{
    t->cur.field = FIELD_CUDA;
    t->cur.sel = row_of_answer(t, FIELD_CUDA);
    ask_engine(t);
}

/* No cuDNN suits no framework, or one whose wheels bring their own; TensorFlow loads the system's. */
static bool
none_fits(const struct tui *t)
{
    const char *fw = t->ans.framework ? t->ans.framework : "tensorflow";
    return strncmp(fw, "tensorflow", 10) != 0;
}

/* The rows; the chosen one (the answer) starts with a mark where the others have spaces. */
static char **
rows_of(struct tui *t, int field, int *n_rows)
{
    size_t n;
    choice_at(t, field, 0, &n);
    char **rows = cu_xcalloc(n + 1, sizeof(char *));
    int chosen = row_of_answer(t, field);
    for (size_t r = 0; r < n; r++) {
        const struct cu_choice *c = choice_at(t, field, (int)r, NULL);
        const char *m = (int)r == chosen ? (t->utf8 ? "\u25cf " : "* ") : "  ";
        if (!c)
            rows[r] = none_fits(t) ? cu_xasprintf("%s%s  %s", m, tui_mark(t, 1), _("None: no cuDNN"))
                                   : cu_xasprintf("%s%s  %s", m, tui_mark(t, -1), _("None: TensorFlow needs cuDNN"));
        else if (c->automatic && c->fits)
            rows[r] = cu_xasprintf("%s%s  %s (%s)", m, tui_mark(t, 1), _("Automatic: the newest that fits"), c->label);
        else if (c->automatic && c->adv == CU_ADV_REQUEST) /* a way forward: what runs here (issue 49 item 13) */
            rows[r] = cu_xasprintf("%s%s  %s", m, tui_mark(t, -1), _("Automatic: nothing fits; Enter takes what runs here"));
        else if (c->automatic)
            rows[r] = cu_xasprintf("%s%s  %s", m, tui_mark(t, -1), _("Automatic: nothing fits"));
        else
        {
            CU_AUTOFREE char *note = tui_unflag(c->note);
            rows[r] = cu_xasprintf("%s%s  %-8s  %s", m, tui_mark(t, c->fits ? 1 : -1), c->label, note);
        }
    }
    *n_rows = (int)n;
    return rows;
}

static const char *
answer_text(const struct tui *t, int field, char *buf, size_t len)
{
    const char *a = field == FIELD_CUDA ? t->ans.cuda : t->ans.cudnn;
    if (!a || strcmp(a, "auto") == 0)
        snprintf(buf, len, "%s", _("automatic"));
    else if (strcmp(a, "none") == 0)
        snprintf(buf, len, "%s", _("none"));
    else
        snprintf(buf, len, "%s", a);
    return buf;
}

static void
draw(struct tui *t)
{
    char b[64];
    int y = tui_frame(t, title(), _("Enter: accept  Space: mark  Tab: CUDA/cuDNN  Esc: back  ?: help  q: quit"));
    int end = tui_body_end();
    int field = t->cur.field;
    const char *fw_ans = t->ans.framework ? t->ans.framework : "tensorflow";
    bool no_fw = strcmp(fw_ans, "none") == 0;
    /* "tensorflow==2.15" as its makers write it: "TensorFlow 2.15"; several for one environment
     * ("pytorch,jax==0.6"): "PyTorch, JAX 0.6". */
    struct cu_buf fwb;
    cu_buf_init(&fwb);
    for (const char *p = fw_ans; *p; p += strcspn(p, ",;"), p += *p != '\0') {
        size_t item = strcspn(p, ",;");
        CU_AUTOFREE char *one = cu_xstrndup(p, item);
        CU_AUTOFREE char *fw_name = cu_xstrndup(one, strcspn(one, "=<>[ "));
        const char *fw_ver = strstr(one, "==");
        cu_buf_printf(&fwb, "%s%s%s%s", fwb.len ? ", " : "", cu_framework_title(fw_name), fw_ver ? " " : "",
                      fw_ver ? fw_ver + 2 : "");
    }
    CU_AUTOFREE char *fw = cu_buf_steal(&fwb);
    CU_AUTOFREE char *head = field == FIELD_CUDA
                                 ? (no_fw ? cu_xstrdup(_("CUDA toolkit for this machine:"))
                                          : cu_xasprintf(_("CUDA toolkit for %s on this machine:"), fw))
                                 : (no_fw ? cu_xasprintf(_("cuDNN for CUDA %s:"), answer_text(t, FIELD_CUDA, b, sizeof(b)))
                                          : cu_xasprintf(_("cuDNN for CUDA %s and %s:"), answer_text(t, FIELD_CUDA, b, sizeof(b)), fw));
    tui_text_color(t, TC_KEY, y++, 1, COLS - 2, head);
    enum tui_job_kind kind = field == FIELD_CUDA ? JOB_CUDA_CHOICES : JOB_CUDNN_CHOICES;
    if (tui_busy(t)) {
        tui_busy_line(t, y + 1, _("Asking the mirror which versions fit..."));
    } else if (t->choices_failed[field] || tui_stale(t, kind)) {
        CU_AUTOFREE char *told = t->choices_failed[field] ? tui_error_told(t, &t->choices_err[field]) : cu_xstrdup("");
        int r = tui_wrap_rows(told, COLS - 4, 0);
        if (r > end - y - 3)
            r = end - y - 3;
        tui_attr(t, TC_BAD, true);
        tui_wrap(y + 1, 3, COLS - 4, r, told);
        tui_attr(t, TC_BAD, false);
        tui_wrap(y + 2 + r, 3, COLS - 4, end - y - 2 - r, _("Esc goes back; r tries again."));
    } else {
        int n;
        char **rows = rows_of(t, field, &n);
        /* The selected row in full below the list (a reason may be longer than a row): the list
         * gives it the rows it needs, keeping three of its own. */
        const struct cu_choice *c = choice_at(t, field, t->cur.sel, NULL);
        CU_AUTOFREE char *note = c ? tui_unflag(c->note) : NULL;
        CU_AUTOFREE char *todo = NULL;
        if (c && c->automatic && !c->fits && c->adv == CU_ADV_REQUEST) {
            /* Nothing fits as asked: what does, as the CLI's "What runs here" names it, taken with Enter. */
            CU_AUTOFREE char *what = tui_request_words(c->adv_arg);
            todo = cu_xasprintf(_("Enter takes what runs here: %s."), what);
        } else if (c) {
            todo = tui_advice_words(t, c->adv, c->adv_arg);
        }
        CU_AUTOFREE char *why = todo ? cu_xasprintf(_("%s\nWhat to do: %s"), note, todo) : cu_steal_ptr(&note);
        CU_AUTOFREE char *line = !c ? NULL
                                 : c->automatic ? cu_xasprintf(_("%s: %s"), _("Automatic"), why)
                                                : cu_xasprintf(_("%s %s: %s"), c->label, c->fits ? _("fits") : _("does not fit"), why);
        /* Its stop is the line's language's ("自动：cuDNN 9.5.1。"), not the note's alone. */
        CU_AUTOFREE char *full = line ? cu_str_sentence(line) : NULL;
        int frows = full ? tui_wrap_rows(full, COLS - 2, 0) : 0;
        int h = end - y - 1 - frows;
        int min_h = n < 3 ? n : 3;
        if (h < min_h)
            h = min_h;
        if (h > n)
            h = n;
        tui_list(t, y, 1, COLS - 3, h, rows, n, t->cur.sel, &t->cur.top, true);
        /* The chosen row stands out (bold) as well as by its mark. */
        int chosen = row_of_answer(t, field);
        if (chosen >= t->cur.top && chosen < t->cur.top + h) {
            tui_attr(t, TC_SEL, chosen == t->cur.sel);
            attron(A_BOLD);
            tui_text_pad(y + chosen - t->cur.top, 1, COLS - 3, rows[chosen]);
            attroff(A_BOLD);
            tui_attr(t, TC_SEL, false);
        }
        cu_strv_free(rows);
        if (full) {
            int fy = y + h + 1;
            tui_attr(t, c->fits ? TC_GOOD : TC_BAD, true);
            tui_wrap(fy, 1, COLS - 2, end - fy, full);
            tui_attr(t, c->fits ? TC_GOOD : TC_BAD, false);
        }
    }
    CU_AUTOFREE char *other = field == FIELD_CUDA ? cu_xasprintf(_("cuDNN: %s  (Tab to change)"), answer_text(t, FIELD_CUDNN, b, sizeof(b)))
                                                  : cu_xasprintf(_("CUDA: %s  (Tab to change)"), answer_text(t, FIELD_CUDA, b, sizeof(b)));
    tui_dim(t, end, 1, COLS - 2, other);
}

/* Record the selected row; false (with the reason shown) when it does not fit. */
static bool
accept(struct tui *t)
{
    int field = t->cur.field;
    size_t n;
    char **ans = field == FIELD_CUDA ? &t->ans.cuda : &t->ans.cudnn;
    if (tui_stale(t, field == FIELD_CUDA ? JOB_CUDA_CHOICES : JOB_CUDNN_CHOICES) || t->choices_failed[field])
        return false;
    const struct cu_choice *c = choice_at(t, field, t->cur.sel, &n);
    if (n == 0)
        return false;
    if (!c && !none_fits(t)) {
        tui_notice(t, true, "%s", _("TensorFlow loads cuDNN from the CUDA folder, so it cannot go without one; choose a cuDNN that fits, or another framework on the Framework screen."));
        return false;
    }
    if (c && !c->fits && c->automatic && c->adv == CU_ADV_REQUEST) {
        /* What runs here becomes the answers; the lists are asked again, and Automatic then fits. */
        CU_AUTOFREE char *what = tui_request_words(c->adv_arg);
        tui_take_request(t, c->adv_arg);
        tui_notice(t, false, _("Taken: %s. The versions that fit it are asked again."), what);
        t->cur.field = FIELD_CUDA;
        t->cur.sel = 0;
        t->cur.top = 0;
        /* Asked again whatever the lists' keys say: --driver (keep) is not in them. */
        cu_clear_ptr(&t->cuda_key, free);
        cu_clear_ptr(&t->cudnn_key, free);
        ask_engine(t);
        return false;
    }
    if (c && !c->fits) {
        if (c->automatic)
        {
            CU_AUTOFREE char *note = tui_unflag(c->note);
            tui_notice(t, true, "%s", note);
        }
        else
        {
            CU_AUTOFREE char *note = tui_unflag(c->note);
            tui_notice(t, true, _("%s does not fit: %s"), c->label, note);
        }
        return false;
    }
    tui_set_answer(t, ans, !c ? "none" : c->automatic ? NULL : c->label);
    t->message[0] = '\0';
    return true;
}

static bool
key(struct tui *t, int ch)
{
    int n = 0;
    if (tui_busy(t))
        return false;
    if (ch == '\t' || ch == KEY_BTAB) {
        t->cur.field = t->cur.field == FIELD_CUDA ? FIELD_CUDNN : FIELD_CUDA;
        t->cur.sel = row_of_answer(t, t->cur.field);
        t->cur.top = 0;
        ask_engine(t);
        return true;
    }
    if (ch == 'r') {
        cu_clear_ptr(t->cur.field == FIELD_CUDA ? &t->cuda_key : &t->cudnn_key, free);
        ask_engine(t);
        return true;
    }
    char **rows = rows_of(t, t->cur.field, &n);
    cu_strv_free(rows);
    if (tui_move_sel(ch, &t->cur.sel, n, tui_body_end() - 6))
        return true;
    if (ch == ' ') {
        accept(t); /* another CUDA changes the cuDNN key, so that list is made again */
        return true;
    }
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        if (accept(t))
            tui_next(t);
        return true;
    }
    return false;
}

static void
on_event(struct tui *t, const struct tui_msg *m)
{
    if (m->job && (m->job->kind == JOB_CUDA_CHOICES || m->job->kind == JOB_CUDNN_CHOICES)) {
        t->cur.sel = row_of_answer(t, t->cur.field);
        ask_engine(t); /* the answers may have moved on while it ran */
    }
}

const struct tui_screen_ops scr_versions_ops = {
    .id = "versions",
    .title = title,
    .enter = enter,
    .draw = draw,
    .key = key,
    .on_event = on_event,
    .help = help,
};
