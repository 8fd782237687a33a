/* SPDX-License-Identifier: MIT */
/* The proof: verify's checks on the install, with real GPU work where there is a GPU. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/verify/verify_report.h"
#include "advice.h"
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

/* Whether repair mends what failed: a check of the install's recorded files (files, nvcc, libraries). A device
 * check that fails for the driver's libcuda.so.1 is mended by the driver's fix, which its row says (issue 35
 * walk, item 6: r was offered for it). */
static bool
repairable(const struct cu_checks *c)
{
    for (size_t i = 0; i < c->n; i++) {
        enum cu_check_fix k = cu_check_fix_kind(&c->v[i]);
        if (c->v[i].status == CU_CHECK_FAIL &&
            ((c->v[i].fact && c->v[i].adv == CU_ADV_REPAIR) || k == CU_FIX_REPAIR || k == CU_FIX_NVCC))
            return true;
    }
    return false;
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
    bool mend = failed && repairable(&t->checks);
    int y = tui_frame(t, title(), busy ? _("working...   ?: help")
                                 : mend ? _("Enter: next  r: repair  d: deep check  arrows: details  Esc: back  ?: help")
                                          : _("Enter: next  d: deep check  arrows: details  Esc: back  ?: help  q: quit"));
    int end = tui_body_end();
    /* --toolkit wheels or none: the environment that holds the toolkit, as `cudaup verify` says it (issue 50). */
    CU_AUTOFREE char *fmt = !t->target_tk ? cu_xasprintf(_("Checking %s"), TUI_PATH)
                            : strcmp(t->target_tk, "wheels") == 0
                                ? cu_xasprintf(_("Checking %s and the CUDA toolkit of its compiler wheels (Toolkit: wheels)"), TUI_PATH)
                                : cu_xasprintf(_("Checking %s (Toolkit: none: no CUDA toolkit)"), TUI_PATH);
    CU_AUTOFREE char *head = tui_fit_path(t, COLS - 2, fmt, t->target ? t->target : "?");
    tui_text_color(t, TC_KEY, y++, 1, COLS - 2, head);
    if (busy) {
        tui_busy_line(t, y + 1, _("Running the checks (GPU checks take a few seconds)..."));
        return;
    }
    if (!t->checked || t->checks.n == 0)
        return;
    /* One entry per check: a failure or a skip wrapped whole under the detail column, a pass on one row
     * unless selected; the verdict, whole, always in view below. */
    int n = (int)t->checks.n;
    char **rows = cu_xcalloc(t->checks.n + 1, sizeof(char *));
    enum tui_color *lead = cu_xcalloc(t->checks.n, sizeof(*lead));
    bool *fold = cu_xcalloc(t->checks.n, sizeof(*fold));
    int name_w = 10, stat_w = 0;
    const char *stat[] = {_("pass"), _("fail"), _("skip")};
    for (size_t i = 0; i < 3; i++)
        stat_w = tui_width(stat[i]) > stat_w ? tui_width(stat[i]) : stat_w;
    for (size_t i = 0; i < t->checks.n; i++)
        name_w = tui_width(t->checks.v[i].name) > name_w ? tui_width(t->checks.v[i].name) : name_w;
    for (size_t i = 0; i < t->checks.n; i++) {
        const struct cu_check *c = &t->checks.v[i];
        int k = c->status == CU_CHECK_PASS ? 1 : c->status == CU_CHECK_FAIL ? -1 : 0;
        const char *st = stat[k > 0 ? 0 : k < 0 ? 1 : 2];
        CU_AUTOFREE char *told = tui_check_detail(t, c);
        rows[i] = cu_xasprintf("%s %s%*s  %s%*s  %s", tui_mark(t, k), st, stat_w - tui_width(st), "", c->name,
                               name_w - tui_width(c->name), "", told);
        lead[i] = k > 0 ? TC_GOOD : k < 0 ? TC_BAD : TC_DIM;
        fold[i] = k > 0; /* a pass is read whole when selected; a failure or a skip always */
    }
    CU_AUTOFREE char *sum = cu_checks_summary(&t->checks);
    CU_AUTOFREE char *verdict = mend && t->target_tk ? cu_xasprintf(_("%s Press r to repair the environment and its compiler wheels."), sum)
                                : mend     ? cu_xasprintf(_("%s Press r to repair the install from its record."), sum)
                                : failed ? cu_xasprintf(_("%s Repair would not mend this: the failed check says what to do."), sum)
                                         : cu_xstrdup(sum);
    int vrows = tui_wrap_rows(verdict, COLS - 2, 0);
    if (vrows > end - y - 2)
        vrows = end - y - 2;
    int h = end - y - vrows;
    tui_wlist(t, y, 1, COLS - 3, h, rows, n, 2 + stat_w + 2 + name_w + 2, t->cur.sel, &t->cur.top, lead, 2 + stat_w,
              fold);
    cu_strv_free(rows);
    free(lead);
    free(fold);
    tui_attr(t, failed ? TC_BAD : TC_GOOD, true);
    tui_wrap(end - vrows + 1, 1, COLS - 2, vrows, verdict);
    tui_attr(t, failed ? TC_BAD : TC_GOOD, false);
}

static bool
key(struct tui *t, int ch)
{
    if (tui_busy(t))
        return false;
    if (tui_move_sel(ch, &t->cur.sel, (int)t->checks.n, 5))
        return true;
    if (ch == 'r' && t->checked && cu_checks_failed(&t->checks) && !repairable(&t->checks)) {
        tui_notice(t, false, "%s", _("Repair restores the install's recorded files, and none of them failed; the failed check says what to do."));
        return true;
    }
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
