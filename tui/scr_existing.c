/* SPDX-License-Identifier: MIT */
/* A rerun on a machine where cudaup installed CUDA: check, repair, add, switch or remove. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/base/i18n.h"
#include "core/base/fsutil.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/install/record.h"
#include "core/base/str.h"
#include "installers/pyenvrec.h"
#include "installers/removal.h"
#include "installers/verifyrun.h"
#include "widgets.h"

enum { ACT_VERIFY, ACT_REPAIR, ACT_ADD, ACT_SWITCH, ACT_UNINSTALL, ACT_FRESH, N_ACT };

static const char *
title(void)
{
    return _("Existing install");
}

static const char *
help(void)
{
    /* Either kind of install (the screen's help names no state): a CUDA folder, or an environment with its own toolkit. */
    return _("cudaup found what it installed: a CUDA toolkit, or a Python environment that holds its own (Toolkit: wheels or none). Verify runs every check (files, libraries, nvcc, GPU work); Repair restores what is missing or altered from the record, fetching only what it must. For a CUDA toolkit, Add components installs more of the same CUDA and Switch installs another version next to it and makes it the active one. Uninstall removes the CUDA toolkit with its cuDNN and environment lines, or the environment with the toolkit of its compiler wheels.");
}

/* The rows of the menu: a CUDA install's, or those of an environment that holds its own toolkit (no CUDA folder to add
 * components to or to switch from: Go through the whole set-up again does that). */
static const int cuda_acts[] = {ACT_VERIFY, ACT_REPAIR, ACT_ADD, ACT_SWITCH, ACT_UNINSTALL, ACT_FRESH};
static const int env_acts[] = {ACT_VERIFY, ACT_REPAIR, ACT_UNINSTALL, ACT_FRESH};

static const int *
acts(const struct tui *t, int *n)
{
    *n = t->existing_tk ? (int)(sizeof(env_acts) / sizeof(env_acts[0])) : N_ACT;
    return t->existing_tk ? env_acts : cuda_acts;
}

static int
row_of(const struct tui *t, int act)
{
    int n;
    const int *a = acts(t, &n);
    for (int i = 0; i < n; i++)
        if (a[i] == act)
            return i;
    return 0;
}

/* An environment that holds its own toolkit (--toolkit wheels or none, issue 50): whether the nvcc of its compiler
 * wheels is there (a look at one file, as the CUDA install's state is a look at its recorded files). */
static void
env_state(struct tui *t)
{
    struct cu_toolkit_env te;
    bool found = cu_toolkit_env_find(t->o.state_dir, NULL, &te);
    CU_AUTOFREE char *nvcc = found && te.home ? cu_path_join(te.home, "bin/nvcc") : NULL;
    t->existing_advice = ACT_VERIFY;
    if (strcmp(t->existing_tk, "none") == 0) {
        t->existing_state = cu_xstrdup(_("It holds no CUDA toolkit (Toolkit: none): its frameworks bring their own CUDA wheels, and Verify runs their checks."));
    } else if (nvcc && access(nvcc, X_OK) == 0) {
        t->existing_state = cu_xstrdup(_("The nvcc of its compiler wheels is in place: Verify runs every check, nvcc compiling a kernel for the GPU included."));
    } else {
        t->existing_state = cu_xasprintf(_("The nvcc of its compiler wheels is missing (%s): Repair recommended."), nvcc ? nvcc : "bin/nvcc");
        t->existing_bad = true;
        t->existing_advice = ACT_REPAIR;
    }
    if (found)
        cu_toolkit_env_fini(&te);
}

/*
 * What state the install is in, read from its record: every recorded file looked at (sizes, modes
 * and links, no hashing, as verify without --deep), so that the menu leads with it and offers the
 * action that fits.  Done once as the menu opens: like the look for the install at start-up, a
 * walk of one folder's metadata, before anything is asked.
 */
static void
read_state(struct tui *t)
{
    struct cu_record *rec = NULL;
    struct cu_error e;
    size_t missing = 0, altered = 0, mode = 0;
    cu_clear_ptr(&t->existing_state, free);
    t->existing_bad = false;
    if (t->existing_tk) {
        env_state(t);
        return;
    }
    if (cu_record_load(t->existing, &rec, &e) != CU_OK) {
        t->existing_state = cu_xasprintf(_("Its record cannot be read (%s): going through the whole set-up again is recommended."),
                                         cu_error_text(&e));
        t->existing_bad = true;
        t->existing_advice = ACT_FRESH;
        return;
    }
    for (size_t i = 0; i < rec->n_files; i++) {
        enum cu_file_state st = cu_record_check_file(t->existing, &rec->files[i], false);
        missing += st == CU_FILE_MISSING;
        altered += st == CU_FILE_ALTERED;
        mode += st == CU_FILE_MODE;
    }
    if (missing || altered || mode) {
        struct cu_buf b;
        cu_buf_init(&b);
        const char *sep = _(", ");
        if (missing)
            cu_buf_printf(&b, ngettext_("%zu file missing", "%zu files missing", missing), missing);
        if (altered) {
            cu_buf_puts(&b, b.len ? sep : "");
            cu_buf_printf(&b, ngettext_("%zu file altered", "%zu files altered", altered), altered);
        }
        if (mode) {
            cu_buf_puts(&b, b.len ? sep : "");
            cu_buf_printf(&b, ngettext_("%zu file with a changed mode", "%zu files with a changed mode", mode), mode);
        }
        t->existing_state = cu_xasprintf(_("%s: Repair recommended."), b.data);
        cu_buf_fini(&b);
        t->existing_bad = true;
        t->existing_advice = ACT_REPAIR;
    } else {
        t->existing_state = cu_xasprintf(ngettext_("Its %zu recorded file is in place: Verify runs every check, GPU work included.",
                                                   "All %zu recorded files are in place: Verify runs every check, GPU work included.",
                                                   rec->n_files),
                                         rec->n_files);
        t->existing_advice = ACT_VERIFY;
    }
    cu_record_free(rec);
}

static void
enter(struct tui *t)
{
    read_state(t);
    t->cur.sel = row_of(t, t->existing_advice);
}

static void
draw(struct tui *t)
{
    char b[32], *rows[N_ACT];
    const char *mm = t->existing_version.n ? cu_version_format(&t->existing_version, 2, b, sizeof(b)) : "?";
    int y = tui_frame(t, title(), _("Enter: choose   Esc: back   ?: help   q: quit"));
    int end = tui_body_end();
    /* The state first, and what it calls for; then whose install it is. */
    if (t->existing_state) {
        tui_attr(t, t->existing_bad ? TC_BAD : TC_GOOD, true);
        y += tui_wrap(y, 1, COLS - 2, end - y - N_ACT - 2, t->existing_state);
        tui_attr(t, t->existing_bad ? TC_BAD : TC_GOOD, false);
    }
    int n_rows;
    const int *act = acts(t, &n_rows);
    CU_AUTOFREE char *head = t->existing_tk
                                 ? cu_xasprintf(_("cudaup made the Python environment %s, which holds its own CUDA toolkit (Toolkit: %s). What now?"),
                                                t->existing, t->existing_tk)
                                 : cu_xasprintf(_("CUDA %s in %s was installed by cudaup. What now?"), mm, t->existing);
    y += tui_wrap(y, 1, COLS - 2, end - y - n_rows, head) + 1;
    rows[ACT_VERIFY] = cu_xasprintf("  %s", _("Verify: check that it works"));
    rows[ACT_REPAIR] = cu_xasprintf("  %s", _("Repair: restore missing or altered files"));
    rows[ACT_ADD] = cu_xasprintf("  %s", _("Add components to it"));
    rows[ACT_SWITCH] = cu_xasprintf("  %s", _("Switch to another CUDA version"));
    rows[ACT_UNINSTALL] = t->existing_tk ? cu_xasprintf("  %s", _("Uninstall the Python environment"))
                                         : cu_xasprintf(_("  Uninstall CUDA %s"), mm);
    if (t->existing_tk) {
        free(rows[ACT_REPAIR]);
        rows[ACT_REPAIR] = cu_xasprintf("  %s", _("Repair: restore what the environment and its toolkit are missing"));
    }
    rows[ACT_FRESH] = cu_xasprintf("  %s", _("Go through the whole set-up again"));
    if (t->existing_state) {
        char *r = rows[t->existing_advice];
        rows[t->existing_advice] = cu_xasprintf(_("%s (recommended)"), r);
        free(r);
    }
    char *shown[N_ACT];
    for (int i = 0; i < n_rows; i++)
        shown[i] = rows[act[i]];
    tui_list(t, y, 1, COLS - 4, end - y + 1 < n_rows ? end - y + 1 : n_rows, shown, n_rows, t->cur.sel, &t->cur.top, true);
    for (int i = 0; i < N_ACT; i++)
        free(rows[i]);
}

static void
uninstall_yes(struct tui *t)
{
    char b[32];
    t->progress_job = JOB_UNINSTALL;
    free(t->target);
    /* CUDA X.Y, or the environment that holds its own toolkit (`cudaup uninstall env`) */
    t->target = cu_xstrdup(t->existing_tk ? t->existing : cu_version_format(&t->existing_version, 2, b, sizeof(b)));
    t->target_tk = t->existing_tk;
    tui_goto(t, SCR_PROGRESS);
}

/* Uninstall of an environment that holds its own toolkit: the question, then `cudaup uninstall env`'s removal. */
static void
ask_env_uninstall(struct tui *t)
{
    CU_AUTOFREE char *q = strcmp(t->existing_tk, "wheels") == 0
                              ? cu_xasprintf(_("Remove the Python environment %s, with the CUDA toolkit of its compiler wheels?"), t->existing)
                              : cu_xasprintf(_("Remove the Python environment %s?"), t->existing);
    tui_ask(t, _("Uninstall"), q, uninstall_yes);
}

static bool
key(struct tui *t, int ch)
{
    char b[32], q[256];
    int n_rows;
    const int *act = acts(t, &n_rows);
    if (tui_move_sel(ch, &t->cur.sel, n_rows, n_rows))
        return true;
    if (ch != '\n' && ch != '\r' && ch != KEY_ENTER)
        return false;
    int chosen = t->cur.sel >= 0 && t->cur.sel < n_rows ? act[t->cur.sel] : ACT_FRESH;
    if (chosen == ACT_UNINSTALL && t->existing_tk) {
        ask_env_uninstall(t);
        return true;
    }
    switch (chosen) {
    case ACT_VERIFY:
        free(t->target);
        t->target = cu_xstrdup(t->existing);
        t->target_tk = t->existing_tk; /* an environment that holds its own toolkit: `cudaup verify` checks it so */
        tui_goto(t, SCR_VALIDATION);
        break;
    case ACT_REPAIR:
        free(t->target);
        t->target = cu_xstrdup(t->existing);
        t->target_tk = t->existing_tk;
        t->progress_job = JOB_REPAIR;
        tui_goto(t, SCR_PROGRESS);
        break;
    case ACT_ADD: {
        /* More of the same install: its CUDA and its cuDNN as recorded, no framework involved. */
        struct cu_record *rec = NULL;
        struct cu_error e;
        tui_set_answer(t, &t->ans.cuda, cu_version_format(&t->existing_version, 0, b, sizeof(b)));
        tui_set_answer(t, &t->ans.framework, "none");
        if (cu_record_load(t->existing, &rec, &e) == CU_OK)
            tui_set_answer(t, &t->ans.cudnn, rec->cudnn_version ? rec->cudnn_version : "none");
        cu_record_free(rec);
        tui_goto(t, SCR_COMPONENTS);
        break;
    }
    case ACT_SWITCH:
        tui_goto(t, SCR_VERSIONS);
        break;
    case ACT_UNINSTALL:
    {
        /* The Python environment made for this CUDA goes too, unless ticked to stay. */
        json_t *pe = cu_pyenv_list_json(t->o.state_dir);
        const char *cuda_for = pe ? cu_json_str(pe, "cuda") : NULL;
        bool env_goes = pe && json_is_true(json_object_get(pe, "made")) && cuda_for && strcmp(cuda_for, t->existing) == 0;
        snprintf(q, sizeof(q),
                 env_goes ? _("Remove CUDA %s from %s, with its cuDNN, the environment lines cudaup wrote and the Python environment made for it?")
                          : _("Remove CUDA %s from %s, with its cuDNN and the environment lines cudaup wrote?"),
                 cu_version_format(&t->existing_version, 2, b, sizeof(b)), t->o.prefix);
        /* What goes, with sizes, and what stays, under the question (issue 35, item 2), as the CLI says it. */
        struct cu_maint_in mi = {.prefix = t->o.prefix, .state_dir = t->o.state_dir, .cache_dir = t->o.cache_dir,
                                 .catalog = t->o.catalog, .profile_d = t->o.profile_d, .root = t->o.root, .envp = t->o.envp};
        struct cu_removal rm;
        struct cu_error e;
        struct cu_buf text;
        cu_buf_init(&text);
        if (cu_uninstall_preview(&mi, cu_version_format(&t->existing_version, 2, b, sizeof(b)), &rm, &e) == CU_OK &&
            rm.installed) {
            cu_buf_printf(&text, _("Remove CUDA %s? This goes:"), b);
            char sz[32];
            for (size_t i = 0; i < rm.goes.n; i++)
                cu_buf_printf(&text, "\n- %s", rm.goes.v[i]);
            if (rm.bytes) {
                cu_buf_puts(&text, "\n");
                cu_buf_printf(&text, _("That frees %s."), cu_format_bytes(rm.bytes, sz, sizeof(sz)));
            }
            for (size_t i = 0; i < rm.stays.n; i++)
                cu_buf_printf(&text, "\n%s", rm.stays.v[i]);
        } else {
            cu_buf_puts(&text, q);
        }
        cu_removal_fini(&rm);
        tui_ask(t, _("Uninstall"), text.data, uninstall_yes);
        cu_buf_fini(&text);
        t->ans.keep_env = false;
        if (env_goes) {
            CU_AUTOFREE char *label = cu_xasprintf(_("Keep the Python environment %s"), cu_json_str(pe, "path"));
            tui_ask_tick(t, label, &t->ans.keep_env);
        }
        json_decref(pe);
        break;
    }
    case ACT_FRESH:
    default:
        tui_goto(t, SCR_SYSTEM);
        break;
    }
    return true;
}

const struct tui_screen_ops scr_existing_ops = {
    .id = "existing",
    .title = title,
    .enter = enter,
    .draw = draw,
    .key = key,
    .help = help,
};
