/* SPDX-License-Identifier: MIT */
/* Which parts of the toolkit to install, with their download sizes, from the chosen release's manifest. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/linebreak.h"
#include "core/catalog/manifest.h"
#include "core/base/mem.h"
#include "core/resolve/resolve.h"
#include "advice.h"
#include "widgets.h"

static const char *
title(void)
{
    return _("Components");
}

static const char *
help(void)
{
    return _("The ticked components are installed. The default set is what frameworks and nvcc need: the runtime, the compiler, the math libraries, the profiling interface and the headers. Space ticks or unticks one, a ticks all, d goes back to the default set. Some parts (drivers, the GUI tools' installers) are never installed by cudaup. Where every framework brings its own CUDA libraries, t chooses where the toolkit comes from: system (NVIDIA's archives, as ticked here), wheels (no archive: NVIDIA's compiler wheels in the environment) or none (the frameworks alone).");
}

/* ---- where the toolkit comes from (--toolkit, issue 50) ---------------------------------------------------- */

static const char *const tk_kinds[] = {"system", "wheels", "none"};

/* The plan's toolkit: "system" where it says none. */
static const char *
tk_kind(const struct tui *t)
{
    return t->plan && t->plan->toolkit ? t->plan->toolkit->kind : "system";
}

/* Whether the plan may take its toolkit from elsewhere than NVIDIA's archives: every framework brings its own CUDA. */
static bool
tk_choice(const struct tui *t)
{
    return t->plan && t->plan->toolkit && cu_plan_bundled(t->plan);
}

/* What choice @kind downloads by cudaup itself (plan --json's toolkit.bytes): the archives for system, and the Python
 * cudaup brings for all three.  *@known false where an archive's size is not published. */
static uint64_t
tk_bytes(const struct tui *t, const char *kind, bool *known)
{
    const struct cu_plan *p = t->plan;
    bool py_known = false;
    uint64_t py = p->python && p->python->dl.url ? cu_download_size(&p->python->dl, &py_known) : 0;
    *known = strcmp(kind, "system") != 0 || !p->toolkit->archive_unsized;
    return strcmp(kind, "system") == 0 ? p->toolkit->archive_bytes + py : py;
}

/* Why only the system toolkit is offered: the frameworks that load a system CUDA, or no framework. Caller frees. */
static char *
tk_why_system(const struct tui *t)
{
    size_t nfw;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(t->plan, &nfw);
    if (!nfw)
        return cu_xstrdup(_("Toolkit: NVIDIA's archives; with no framework, the toolkit is what is installed."));
    struct cu_buf b;
    cu_buf_init(&b);
    size_t n = 0;
    for (size_t i = 0; i < nfw; i++)
        if (!fw[i]->bundled_runtime)
            cu_buf_printf(&b, "%s%s %s", n++ ? _(", ") : "", cu_framework_title(fw[i]->name), fw[i]->version ? fw[i]->version : "");
    CU_AUTOFREE char *names = cu_buf_steal(&b);
    return cu_xasprintf(ngettext_("Toolkit: NVIDIA's archives; %s loads CUDA from a system toolkit, so wheels and none are not offered.",
                                  "Toolkit: NVIDIA's archives; %s load CUDA from a system toolkit, so wheels and none are not offered.", n),
                        names ? names : "");
}

/* The toolkit's rows at @y: the three choices with their downloads, and what the chosen one does. Returns the next row. */
static int
tk_draw(struct tui *t, int y)
{
    char b1[32];
    if (!t->plan->toolkit)
        return y;
    if (!tk_choice(t)) {
        CU_AUTOFREE char *why = tk_why_system(t);
        return y + tui_dim_wrap(t, y, 1, COLS - 2, 2, why);
    }
    const char *kind = tk_kind(t);
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_puts(&b, _("Toolkit (t):"));
    for (size_t i = 0; i < CU_N_ELEMENTS(tk_kinds); i++) {
        bool known;
        uint64_t n = tk_bytes(t, tk_kinds[i], &known);
        /* Each choice whole on its row: "none" and its size are never split by the wrapping (60 columns). */
        cu_buf_printf(&b, "  " CU_KEEP_OPEN "(%s) %s %s" CU_KEEP_CLOSE, strcmp(kind, tk_kinds[i]) == 0 ? "*" : " ", tk_kinds[i],
                      known ? cu_format_bytes(n, b1, sizeof(b1)) : _("size unpublished"));
    }
    CU_AUTOFREE char *line = cu_buf_steal(&b);
    y += tui_wrap(y, 1, COLS - 2, 2, line);
    const struct cu_plan_toolkit *tk = t->plan->toolkit;
    CU_AUTOFREE char *what = strcmp(kind, "wheels") == 0
                                 ? cu_xasprintf(_("No archive: NVIDIA's compiler wheels of CUDA %s go into the environment beside the frameworks' own, and its activation sets CUDA_HOME and PATH for them. What pip downloads is not counted here."),
                                                cu_version_format(&tk->release, 0, b1, sizeof(b1)))
                             : strcmp(kind, "none") == 0
                                 ? cu_xstrdup(_("No archive and no compiler: the frameworks alone, with their own CUDA libraries; no nvcc and no CUDA_HOME. What pip downloads is not counted here."))
                                 : cu_xstrdup(_("NVIDIA's archives, as ticked below; the frameworks load their own CUDA libraries, not these."));
    return y + tui_dim_wrap(t, y, 2, COLS - 4, 4, what);
}

/* t: the next choice; the answer is left unset where it is the default (no --toolkit in what the wizard does). */
static void
tk_next(struct tui *t)
{
    const char *kind = tk_kind(t);
    size_t i = 0;
    while (i < CU_N_ELEMENTS(tk_kinds) && strcmp(tk_kinds[i], kind) != 0)
        i++;
    const char *next = tk_kinds[(i + 1) % CU_N_ELEMENTS(tk_kinds)];
    bool dflt = t->tk_default && strcmp(t->tk_default, next) == 0;
    tui_set_answer(t, &t->ans.toolkit, dflt ? NULL : next);
    /* The components are picked for NVIDIA's archives alone: with wheels or none the plan's own set. */
    tui_set_answer(t, &t->ans.components, NULL);
    cu_strv_free(t->comp_sel);
    t->comp_sel = NULL;
    tui_refresh(t, JOB_PLAN);
}

/* The default toolkit, as the plan made without --toolkit says it (the choice that needs no flag). */
static void
tk_note_default(struct tui *t)
{
    if (t->plan && t->plan->toolkit && !t->plan->toolkit->asked && !t->ans.toolkit) {
        free(t->tk_default);
        t->tk_default = cu_xstrdup(t->plan->toolkit->kind);
    }
}

static void
reset_selection(struct tui *t)
{
    cu_strv_free(t->comp_sel);
    t->comp_sel = t->plan ? cu_strv_dup(t->plan->components) : NULL;
}

static void
enter(struct tui *t)
{
    if (!t->ans.components && !tui_stale(t, JOB_PLAN))
        reset_selection(t);
    if (!tui_stale(t, JOB_PLAN))
        tk_note_default(t);
    tui_refresh(t, JOB_PLAN);
}

/* The packages a user may pick: those with an archive for the platform, less the never-installed. */
static size_t
pickable(const struct tui *t, const struct cu_package **out, size_t max)
{
    size_t n = 0;
    const struct cu_manifest *m = t->plan ? t->plan->cuda_manifest : NULL;
    for (size_t i = 0; m && i < m->n_packages && n < max; i++) {
        const struct cu_package *p = &m->packages[i];
        if (!cu_package_artifact(p, t->plan->platform, NULL) || cu_catalog_component_never(t->o.catalog, p->key))
            continue;
        out[n++] = p;
    }
    return n;
}

static bool
selected(const struct tui *t, const char *key)
{
    for (char **c = t->comp_sel; c && *c; c++)
        if (strcmp(*c, key) == 0)
            return true;
    return false;
}

static void
store_answer(struct tui *t)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (char **c = t->comp_sel; c && *c; c++)
        cu_buf_printf(&b, "%s%s", c == t->comp_sel ? "" : ",", *c);
    CU_AUTOFREE char *s = cu_buf_steal(&b);
    tui_set_answer(t, &t->ans.components, s && *s ? s : NULL);
}

static void
draw(struct tui *t)
{
    char b1[32], b2[32];
    const struct cu_package *pk[512];
    /* One installer (a runfile): nothing to tick, so no keys that tick (issue 35 walk, item 9). */
    bool ready = !tui_busy(t) && !t->plan_failed && t->plan;
    bool single = ready && pickable(t, pk, sizeof(pk) / sizeof(pk[0])) == 0;
    bool choice = ready && tk_choice(t), sys = !ready || strcmp(tk_kind(t), "system") == 0;
    int y = tui_frame(t, title(), !sys ? _("Enter: next  t: toolkit  d: default  Esc: back  ?: help  q: quit")
                                  : single && choice ? _("Enter: next  t: toolkit  Esc: back  ?: help  q: quit")
                                  : single          ? _("Enter: next  Esc: back  ?: help  q: quit")
                                  : choice ? _("Enter: next  Space: tick  a: all  d: default  t: toolkit  Esc: back  ?: help  q: quit")
                                           : _("Enter: next  Space: tick  a: all  d: default  Esc: back  ?: help  q: quit"));
    if (tui_busy(t)) {
        tui_busy_line(t, y + 1, _("Reading the release's manifest..."));
        return;
    }
    if (t->plan_failed || !t->plan) {
        struct tui_doc d = {0};
        CU_AUTOFREE char *told = t->plan_failed ? tui_error_told(t, &t->plan_err) : cu_xstrdup(_("No plan yet."));
        tui_doc_add(&d, TC_BAD, 1, "%s", told);
        tui_doc_add(&d, TC_NORMAL, 0, "%s", "");
        tui_doc_add(&d, TC_NORMAL, 1, "%s", _("Esc goes back to change the answers; d goes back to the default set."));
        tui_doc_draw(t, &d, y + 1, tui_body_end() - y, &t->cur.top);
        return;
    }
    y = tk_draw(t, y);
    if (!sys) {
        /* Wheels or none: no archive to tick; what goes into the environment instead. */
        struct tui_doc d = {0};
        const struct cu_plan_toolkit *tk = t->plan->toolkit;
        size_t nw = 0;
        if (strcmp(tk->kind, "wheels") == 0) {
            tui_doc_add(&d, TC_KEY, 1, "%s", _("The compiler wheels pip installs beside the frameworks:"));
            for (char **w = tk->wheels; w && *w; w++, nw++)
                tui_doc_add(&d, TC_NORMAL, 3, "%s", *w);
        }
        tui_doc_draw(t, &d, y, tui_body_end() - y, &t->cur.top);
        CU_AUTOFREE char *sum = strcmp(tk->kind, "wheels") == 0
                                    ? cu_xasprintf(ngettext_("No NVIDIA archive; %zu compiler wheel from pip", "No NVIDIA archive; %zu compiler wheels from pip", nw), nw)
                                    : cu_xstrdup(_("No NVIDIA archive, no compiler"));
        tui_text(tui_body_end(), 1, COLS - 2, sum);
        return;
    }
    size_t n = pickable(t, pk, sizeof(pk) / sizeof(pk[0]));
    CU_AUTOFREE char *head = cu_xasprintf(_("Components of CUDA %s for %s:"), cu_version_format(&t->plan->cuda, 0, b1, sizeof(b1)),
                                          t->plan->platform);
    tui_text_color(t, TC_KEY, y++, 1, COLS - 2, head);
    char **rows = cu_xcalloc(n + 1, sizeof(char *));
    uint64_t total = 0;
    size_t count = 0;
    /* The names' column as wide as the longest name: the descriptions keep the rest (issue 35: cut at 60x20). */
    int kw = 8;
    for (size_t i = 0; i < n; i++)
        kw = (int)strlen(pk[i]->key) > kw ? (int)strlen(pk[i]->key) : kw;
    for (size_t i = 0; i < n; i++) {
        const struct cu_artifact *a = cu_package_artifact(pk[i], t->plan->platform, NULL);
        bool on = selected(t, pk[i]->key);
        if (on) {
            total += a->size;
            count++;
        }
        rows[i] = cu_xasprintf(" [%s] %-*s %8s  %s", on ? "x" : " ", kw, pk[i]->key, cu_format_bytes(a->size, b1, sizeof(b1)),
                               pk[i]->name ? pk[i]->name : "");
    }
    /* A row cut at the edge ends in "…"; the selected one is spelled out whole below the list. */
    int h = tui_body_end() - y - 3;
    tui_list(t, y, 1, COLS - 3, h, rows, (int)n, t->cur.sel, &t->cur.top, true);
    cu_strv_free(rows);
    if (n && t->cur.sel >= 0 && (size_t)t->cur.sel < n) {
        const struct cu_package *p = pk[t->cur.sel];
        CU_AUTOFREE char *whole = cu_xasprintf("%s: %s", p->key, p->name ? p->name : "");
        tui_dim_wrap(t, tui_body_end() - 2, 2, COLS - 4, 2, whole);
    }
    /* cuDNN's size: published, or what the mirror reported; a .tgz's is neither at times, and the most
     * its download accepts (17 GB) is no size (issue 35). */
    uint64_t dn = 0;
    bool dn_known = true;
    for (size_t i = 0; i < t->plan->n_downloads; i++)
        if (t->plan->downloads[i].product == CU_PRODUCT_CUDNN) {
            bool known = false;
            dn += cu_download_size(&t->plan->downloads[i], &known);
            dn_known &= known;
        }
    const char *dn_told = dn_known ? cu_format_bytes(dn, b2, sizeof(b2)) : _("size unpublished");
    if (n == 0) {
        /* One installer (an older release's runfile): nothing to pick, so not "0 components, 0 B" (issue 35). */
        uint64_t rn = 0;
        bool rn_known = true;
        for (size_t i = 0; i < t->plan->n_downloads; i++)
            if (t->plan->downloads[i].product == CU_PRODUCT_CUDA) {
                bool known = false;
                rn += cu_download_size(&t->plan->downloads[i], &known);
                rn_known &= known;
            }
        char b3[32];
        const char *rn_told = rn_known && rn ? cu_format_bytes(rn, b3, sizeof(b3)) : _("size unpublished");
        CU_AUTOFREE char *one = cu_xasprintf(_("CUDA %s comes as one installer, NVIDIA's runfile: its components cannot be picked one by one, so the whole toolkit is installed."),
                                             cu_version_format(&t->plan->cuda, 0, b1, sizeof(b1)));
        tui_wrap(y + 1, 2, COLS - 4, 4, one);
        CU_AUTOFREE char *whole = t->plan->has_cudnn
                                      ? cu_xasprintf(_("The whole toolkit, %s; with cuDNN %s (%s)"), rn_told,
                                                     t->plan->cudnn_full ? t->plan->cudnn_full : "", dn_told)
                                      : cu_xasprintf(_("The whole toolkit, %s"), rn_told);
        tui_text(tui_body_end(), 1, COLS - 2, whole);
        return;
    }
    CU_AUTOFREE char *sum = t->plan->has_cudnn
                                ? cu_xasprintf(_("%zu components, %s; with cuDNN %s (%s)"), count, cu_format_bytes(total, b1, sizeof(b1)),
                                               t->plan->cudnn_full ? t->plan->cudnn_full : "", dn_told)
                                : cu_xasprintf(_("%zu components, %s"), count, cu_format_bytes(total, b1, sizeof(b1)));
    tui_text(tui_body_end(), 1, COLS - 2, sum);
}

static bool
key(struct tui *t, int ch)
{
    const struct cu_package *pk[512];
    if (tui_busy(t))
        return false;
    if (ch == 'd') {
        /* Everything on this screen back to what the plan takes without being told: the toolkit's default too. */
        tui_set_answer(t, &t->ans.toolkit, NULL);
        tui_set_answer(t, &t->ans.components, NULL);
        cu_strv_free(t->comp_sel);
        t->comp_sel = NULL;
        tui_refresh(t, JOB_PLAN);
        return true;
    }
    if (t->plan_failed || !t->plan)
        return false;
    if (ch == 't') {
        if (tk_choice(t)) {
            tk_next(t);
        } else {
            CU_AUTOFREE char *why = tk_why_system(t);
            tui_notice(t, false, "%s", why);
        }
        return true;
    }
    bool sys = strcmp(tk_kind(t), "system") == 0;
    if (!sys && (ch == '\n' || ch == '\r' || ch == KEY_ENTER)) {
        tui_next(t);
        return true;
    }
    if (!sys && (ch == ' ' || ch == 'a')) {
        tui_notice(t, false, "%s", _("Components are ticked for NVIDIA's archives alone: t chooses Toolkit: system."));
        return true;
    }
    if (!sys)
        return tui_doc_scroll(ch, &t->cur.top, 5);
    size_t n = pickable(t, pk, sizeof(pk) / sizeof(pk[0]));
    if (tui_move_sel(ch, &t->cur.sel, (int)n, tui_body_end() - 5))
        return true;
    if (ch == ' ' && n > 0) {
        struct cu_strv v;
        const char *k = pk[t->cur.sel]->key;
        bool on = selected(t, k);
        /* A component another ticked one needs cannot go: say so instead of keeping it silently. */
        if (on) {
            struct cu_buf users;
            size_t n_users = 0;
            cu_buf_init(&users);
            for (char **c = t->comp_sel; c && *c; c++)
                if (strcmp(*c, k) != 0 && cu_component_needs(*c, k))
                    cu_buf_printf(&users, "%s%s", n_users++ ? ", " : "", *c);
            if (n_users) {
                tui_notice(t, true, ngettext_("%s stays: %s needs it. Untick that first.",
                                              "%s stays: %s need it. Untick those first.", n_users),
                           k, users.data);
                cu_buf_fini(&users);
                return true;
            }
            cu_buf_fini(&users);
        }
        cu_strv_init(&v);
        for (char **c = t->comp_sel; c && *c; c++)
            if (strcmp(*c, k) != 0)
                cu_strv_push(&v, *c);
        if (!on)
            cu_strv_push(&v, k);
        cu_strv_free(t->comp_sel);
        t->comp_sel = v.v ? v.v : cu_xcalloc(1, sizeof(char *));
        store_answer(t);
        return true;
    }
    if (ch == 'a') {
        struct cu_strv v;
        cu_strv_init(&v);
        for (size_t i = 0; i < n; i++)
            cu_strv_push(&v, pk[i]->key);
        cu_strv_free(t->comp_sel);
        t->comp_sel = v.v;
        store_answer(t);
        return true;
    }
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        if (!t->comp_sel || !t->comp_sel[0]) {
            tui_notice(t, true, "%s", _("Tick at least one component (d brings back the default set)."));
            return true;
        }
        tui_next(t);
        return true;
    }
    return false;
}

static void
on_event(struct tui *t, const struct tui_msg *m)
{
    if (m->job && m->job->kind == JOB_PLAN) {
        if (!t->ans.components)
            reset_selection(t);
        tk_note_default(t);
        tui_refresh(t, JOB_PLAN);
    }
}

const struct tui_screen_ops scr_components_ops = {
    .id = "components",
    .title = title,
    .enter = enter,
    .draw = draw,
    .key = key,
    .on_event = on_event,
    .help = help,
};
