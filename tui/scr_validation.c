/* SPDX-License-Identifier: MIT */
/* The proof: verify's checks on the install, with real GPU work where there is a GPU. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/mem.h"
#include "widgets.h"

static const char *
title(void)
{
    return _("Validation");
}

static const char *
help(void)
{
    return _("Each check is what cudaup verify does: the files against the record, the libraries loading with the right versions, nvcc compiling, a kernel, bandwidth and a cuDNN convolution on the GPU, and the framework seeing the GPU. Skipped checks say why (no GPU here, no framework chosen). r repairs after a failure.");
}

static void
enter(struct tui *t)
{
    if (!tui_busy(t) && t->target) {
        t->checked = false;
        tui_start(t, JOB_VERIFY, t->target);
    }
}

static void
draw(struct tui *t)
{
    bool busy = tui_busy(t);
    bool failed = t->checked && cu_checks_failed(&t->checks);
    int y = tui_frame(t, title(), busy ? _("working...   ?: help")
                                 : failed ? _("Enter: next  r: repair  d: deep check  arrows: details  Esc: back  ?: help")
                                          : _("Enter: next  d: deep check  arrows: details  Esc: back  ?: help  q: quit"));
    int end = tui_body_end();
    CU_AUTOFREE char *fmt = cu_xasprintf(_("Checking %s"), TUI_PATH);
    CU_AUTOFREE char *head = tui_fit_path(t, COLS - 2, fmt, t->target ? t->target : "?");
    tui_text_color(t, TC_KEY, y++, 1, COLS - 2, head);
    if (busy) {
        tui_busy_line(t, y + 1, _("Running the checks (GPU checks take a few seconds)..."));
        return;
    }
    if (!t->checked || t->checks.n == 0)
        return;
    /* One row per check, the selected one's detail in full below, the verdict always in view. */
    size_t skipped = 0;
    int n = (int)t->checks.n;
    char **rows = cu_xcalloc(t->checks.n + 1, sizeof(char *));
    for (size_t i = 0; i < t->checks.n; i++) {
        const struct cu_check *c = &t->checks.v[i];
        int k = c->status == CU_CHECK_PASS ? 1 : c->status == CU_CHECK_FAIL ? -1 : 0;
        skipped += k == 0;
        rows[i] = cu_xasprintf("%s %-4s  %-10s  %s", tui_mark(t, k), k > 0 ? _("pass") : k < 0 ? _("fail") : _("skip"), c->name,
                               c->detail ? c->detail : "");
    }
    int h = end - y - 4;
    if (h > n)
        h = n;
    if (t->cur.sel >= n)
        t->cur.sel = n - 1;
    tui_list(t, y, 1, COLS - 3, h, rows, n, t->cur.sel, &t->cur.top, true);
    /* Colour the marks: the list draws plain rows. */
    for (int r = 0; r < h && t->cur.top + r < n; r++) {
        const struct cu_check *c = &t->checks.v[t->cur.top + r];
        if (t->cur.top + r == t->cur.sel)
            continue;
        enum tui_color col = c->status == CU_CHECK_PASS ? TC_GOOD : c->status == CU_CHECK_FAIL ? TC_BAD : TC_DIM;
        tui_attr(t, col, true);
        tui_text_part(y + r, 1, 8, rows[t->cur.top + r]);
        tui_attr(t, col, false);
    }
    cu_strv_free(rows);
    const struct cu_check *c = &t->checks.v[t->cur.sel];
    CU_AUTOFREE char *told = tui_unflag(c->detail);
    CU_AUTOFREE char *full = cu_xasprintf("%s: %s", c->name, told);
    tui_attr(t, TC_DIM, true);
    tui_wrap(end - 3, 1, COLS - 2, 3, full);
    tui_attr(t, TC_DIM, false);
    CU_AUTOFREE char *sum = cu_checks_summary(&t->checks);
    CU_AUTOFREE char *verdict = failed ? cu_xasprintf(_("%s r repairs the install from its record."), sum) : cu_xstrdup(sum);
    tui_text_color(t, failed ? TC_BAD : TC_GOOD, end, 1, COLS - 2, verdict);
}

static bool
key(struct tui *t, int ch)
{
    if (tui_busy(t))
        return false;
    if (tui_move_sel(ch, &t->cur.sel, (int)t->checks.n, 5))
        return true;
    if (ch == 'r' && t->checked && cu_checks_failed(&t->checks)) {
        t->progress_job = JOB_REPAIR;
        tui_goto(t, SCR_PROGRESS);
        return true;
    }
    if (ch == 'd' && t->target) {
        /* The same checks, with every installed file re-hashed. */
        bool was = t->ans.deep;
        t->ans.deep = true;
        t->checked = false;
        tui_start(t, JOB_VERIFY, t->target);
        t->ans.deep = was;
        return true;
    }
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        tui_goto(t, SCR_DONE);
        return true;
    }
    return false;
}

const struct tui_screen_ops scr_validation_ops = {
    .id = "validation",
    .title = title,
    .enter = enter,
    .draw = draw,
    .key = key,
    .help = help,
};
