/* SPDX-License-Identifier: MIT */
/* What was done and the commands to use it. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/linebreak.h"
#include "core/install/envfile.h"
#include "core/base/mem.h"
#include "advice.h"
#include "widgets.h"

static const char *
title(void)
{
    return _("Done");
}

char **
tui_next_commands(const struct tui *t)
{
    const struct cu_plan *p = t->plan;
    struct cu_strv v;
    CU_AUTOFREE char *envsh = cu_path_join(t->o.state_dir, "env.sh");
    /* No plan after a rerun's verify or repair: the scope the flags gave (--env-scope), else what the state
     * folder shows: no rc file holds cudaup's block, so no new shell would have env.sh (--env-scope none, or
     * a scope whose hooks say the same, where "in each shell run" is still true). */
    const char *scope = p && p->env.scope ? p->env.scope : t->ans.env_scope && *t->ans.env_scope ? t->ans.env_scope : NULL;
    if (!scope) {
        char **rcs = cu_rc_list(t->o.state_dir);
        scope = rcs && rcs[0] ? "user" : "none";
        cu_strv_free(rcs);
    }
    cu_strv_init(&v);
    /* Each command is kept on one line (cu_keep), here as on the CLI: a break in it pastes as two lines.
     * Nothing sources env.sh with --env-scope none, so no new shell has it. */
    CU_AUTOFREE char *src = cu_xasprintf(CU_KEEP_OPEN ". %s" CU_KEEP_CLOSE, envsh);
    if (strcmp(scope, "none") == 0)
        cu_strv_push_owned(&v, cu_xasprintf(_("In each shell run: %s"), src));
    else if (strcmp(scope, "system") == 0) /* /etc/profile.d is read by login shells only (issue 49 item 19) */
        cu_strv_push_owned(&v, cu_xasprintf(_("Login shells set it from /etc/profile.d; open a new login shell (or log in again), or run: %s"), src));
    else if (strcmp(scope, "conda") != 0)
        cu_strv_push_owned(&v, cu_xasprintf(_("Open a new shell, or run: %s"), src));
    /* Each environment (one per --framework given): its activation, then a call each of its frameworks'
     * releases has (TensorFlow 1.x has no tf.config.list_physical_devices). */
    for (size_t k = 0; p && k <= p->n_envs; k++) {
        const struct cu_plan *q = k ? p->envs[k - 1] : p;
        CU_AUTOFREE char *act = cu_plan_activate_cmd(q);
        if (!act)
            continue;
        cu_strv_push_owned(&v, cu_keep(act));
        char **tries = cu_plan_try_lines(q, &t->o.catalog->gpu_checks);
        for (char **l = tries; *l; l++)
            cu_strv_push_owned(&v, cu_keep(*l));
        cu_strv_free(tries);
    }
    CU_AUTOFREE char *qp = cu_sh_quote(p ? p->prefix : t->o.prefix);
    CU_AUTOFREE char *qs = cu_sh_quote(t->o.state_dir);
    /* The same machine: under --root, the command reads it too (as the CLI's own lines do). */
    CU_AUTOFREE char *qr = t->o.root && !cu_sysroot_is_host(t->o.root) ? cu_sh_quote(t->o.root->path) : NULL;
    cu_strv_push_owned(&v, cu_xasprintf(CU_KEEP_OPEN "cudaup verify%s%s --prefix %s --state-dir %s" CU_KEEP_CLOSE,
                                        qr ? " --root " : "", qr ? qr : "", qp, qs));
    return v.v;
}

static void
draw(struct tui *t)
{
    struct tui_doc d = {0};
    char b[32];
    int y = tui_frame(t, title(), _("Enter: leave   Esc: back"));
    const struct cu_plan *p = t->plan;
    if (t->last_job == JOB_UNINSTALL && t->last_status == CU_OK) {
        if (t->target_tk && strcmp(t->target_tk, "wheels") == 0) /* `uninstall env` (issue 50) */
            tui_doc_add(&d, TC_GOOD, 0, _("The Python environment %s was removed, and the CUDA toolkit of its compiler wheels with it."),
                        t->target ? t->target : "");
        else if (t->target_tk)
            tui_doc_add(&d, TC_GOOD, 0, _("The Python environment %s was removed."), t->target ? t->target : "");
        else
            tui_doc_add(&d, TC_GOOD, 0, _("CUDA %s was removed from %s."), t->target ? t->target : "", t->o.prefix);
        tui_doc_draw(t, &d, y, tui_body_end() - y + 1, &t->cur.top);
        return;
    }
    bool failed = t->checked && cu_checks_failed(&t->checks);
    const char *tk = t->target_tk;
    if (p && t->target && tk)
        /* --toolkit wheels or none: no CUDA folder was made; the environment holds what there is. */
        tui_doc_add(&d, failed ? TC_WARN : TC_GOOD, 0, "%s",
                    strcmp(tk, "wheels") == 0 ? _("No CUDA folder was installed (Toolkit: wheels): the compiler is in the environment, from NVIDIA's wheels, and its activation sets CUDA_HOME and PATH for it.")
                                              : _("No CUDA toolkit was installed (Toolkit: none): the frameworks use their own CUDA wheels; there is no nvcc and no CUDA_HOME."));
    else if (p && t->target && strcmp(t->target, p->cuda_path) == 0)
        tui_doc_add(&d, failed ? TC_WARN : TC_GOOD, 0,
                    failed ? _("CUDA %s is installed in %s, but some checks failed.") : _("CUDA %s is installed in %s."),
                    cu_version_format(&p->cuda, 0, b, sizeof(b)), p->cuda_path);
    else if (t->target)
        tui_doc_add(&d, failed ? TC_WARN : TC_GOOD, 0, failed ? _("%s still has problems:") : _("%s works."), t->target);
    /* What to do comes first, before the list it mends: on a small screen the list scrolls. */
    bool repairs = false;
    for (size_t i = 0; failed && i < t->checks.n; i++)
        repairs |= t->checks.v[i].status == CU_CHECK_FAIL && t->checks.v[i].fact && t->checks.v[i].adv == CU_ADV_REPAIR;
    if (repairs)
        tui_doc_add(&d, TC_WARN, 2, "%s", _("Esc goes back to the Validation screen, where r repairs the install from its record."));
    /* Which checks failed, and why: the user should not have to go back to find out. */
    for (size_t i = 0; failed && i < t->checks.n; i++) {
        const struct cu_check *c = &t->checks.v[i];
        if (c->status != CU_CHECK_FAIL)
            continue;
        /* What repair mends is said once, above, with the key that does it. */
        bool mend = c->fact && c->adv == CU_ADV_REPAIR;
        CU_AUTOFREE char *told = mend ? cu_xstrdup(c->fact) : tui_check_detail(t, c);
        CU_AUTOFREE char *line = cu_xasprintf(_("%s: %s"), c->name, told);
        tui_doc_add(&d, TC_BAD, 2, "%s %s", tui_mark(t, -1), line);
        tui_doc_hang(&d, 2);
    }
    tui_doc_add(&d, TC_NORMAL, 0, "%s", "");
    tui_doc_add(&d, TC_KEY, 0, "%s", _("Next"));
    char **next = tui_next_commands(t);
    bool cut = false; /* a command wider than its row: kept whole (never broken, which would paste as two lines), so cut */
    for (char **c = next; c && *c; c++) {
        tui_doc_add(&d, TC_NORMAL, 2, "%s", *c);
        cut |= cu_text_width(*c) > COLS - 4;
    }
    cu_strv_free(next);
    if (cut)
        tui_doc_add(&d, TC_DIM, 2, "%s", _("A command cut with … here is printed whole when you leave the wizard."));
    for (size_t k = 0; p && k <= p->n_envs; k++) { /* issue 45: each environment's pip hold, and how to lift it */
        CU_AUTOFREE char *hold = cu_plan_hold_line(k ? p->envs[k - 1] : p);
        if (hold)
            tui_doc_add(&d, TC_NORMAL, 2, "%s", hold);
    }
    tui_doc_add(&d, TC_NORMAL, 0, "%s", "");
    tui_doc_add(&d, TC_DIM, 0, _("Run cudaup again at any time to check, repair, add to or remove this install. The log is in %s/cudaup.log."),
                t->o.state_dir);
    tui_doc_draw(t, &d, y, tui_body_end() - y + 1, &t->cur.top);
}

static bool
key(struct tui *t, int ch)
{
    if (tui_doc_scroll(ch, &t->cur.top, 5))
        return true;
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 'q') {
        t->running = false;
        return true;
    }
    return false;
}

const struct tui_screen_ops scr_done_ops = {
    .id = "done",
    .title = title,
    .draw = draw,
    .key = key,
};
