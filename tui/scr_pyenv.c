/* SPDX-License-Identifier: MIT */
/* The Python environment the framework goes into: the tool, its name, the Python version. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/catalog/catalog.h"
#include "core/machine/sysinfo.h"
#include "widgets.h"

enum { ROW_TOOL, ROW_NAME, ROW_PYTHON, ROW_SOURCE, ROW_CONTINUE, N_ROWS };
static const char *const tools[] = {"conda", "mamba", "micromamba", "venv"};
static const char *const sources[] = {"auto", "system", "cudaup"};

static const char *
title(void)
{
    return _("Python environment");
}

static const char *
help(void)
{
    return _("The framework is installed with pip into its own environment, so nothing else on the machine changes. conda, mamba and micromamba bring their own Python. A venv uses a python3 already installed when one fits; otherwise cudaup brings a relocatable Python (python-build-standalone), checked and recorded like CUDA. An environment of the same name that cudaup made before is reused.");
}

static const char *
tool_of(const struct tui *t)
{
    if (t->ans.env_tool)
        return t->ans.env_tool;
    if (t->plan && t->plan->env.tool && strcmp(t->plan->env.tool, "none") != 0)
        return t->plan->env.tool;
    if (t->o.facts->pyenv && strcmp(t->o.facts->pyenv->tool, "venv") != 0)
        return t->o.facts->pyenv->tool;
    return "venv";
}

static char *
name_of(const struct tui *t)
{
    if (t->ans.env_name)
        return cu_xstrdup(t->ans.env_name);
    if (t->plan && t->plan->env.name)
        return cu_xstrdup(t->plan->env.name);
    /* cudaup-FRAMEWORK, or cudaup-pytorch-jax for several in one environment (installers/prepare.c) */
    const char *fw = t->ans.framework ? t->ans.framework : "tensorflow";
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_printf(&b, "cudaup");
    for (const char *p = fw; *p; p += strcspn(p, ",;"), p += *p != '\0')
        cu_buf_printf(&b, "-%.*s", (int)strcspn(p, "=<>,;["), p);
    return cu_buf_steal(&b);
}

static const char *
source_of(const struct tui *t)
{
    return t->ans.python_source && *t->ans.python_source ? t->ans.python_source : "auto";
}

static const char *
source_label(const char *s)
{
    return strcmp(s, "system") == 0 ? _("this machine's") : strcmp(s, "cudaup") == 0 ? _("cudaup brings it") : _("automatic");
}

/* The relocatable CPython @minor ("3.12") the catalog has for this machine, or NULL. */
static const struct cu_cat_python *
brought(const struct tui *t, const char *minor)
{
    struct cu_version v;
    if (!minor || !cu_version_parse(minor, &v) || v.n != 2)
        return NULL;
    const char *platform = cu_facts_platform(t->o.facts);
    return cu_catalog_python(t->o.catalog, &v, platform && strcmp(platform, "linux-x86_64") != 0 ? "aarch64" : "x86_64");
}

/* The Python versions to offer: those installed for a venv of this machine's Python, else the framework's range. */
static size_t
pythons(const struct tui *t, char out[][8], size_t max)
{
    size_t n = 0;
    const struct cu_plan_framework *fw = t->plan ? t->plan->framework : NULL;
    if (strcmp(tool_of(t), "venv") == 0 && strcmp(source_of(t), "system") == 0) {
        for (char **p = t->o.facts->pythons; p && *p && n < max; p++)
            if (!fw || !fw->py_min || (cu_version_strcmp(*p, fw->py_min) >= 0 && cu_version_strcmp(*p, fw->py_max) <= 0))
                snprintf(out[n++], 8, "%s", *p);
        return n;
    }
    /* cudaup's own Pythons are those the catalog has a relocatable build of for this machine (issue 35 walk,
     * item 3: 3.15 was offered, and refused only on Review). */
    bool brings = strcmp(tool_of(t), "venv") == 0 && strcmp(source_of(t), "cudaup") == 0;
    unsigned lo = 9, hi = 13;
    struct cu_version a, b;
    if (fw && fw->py_min && fw->py_max && cu_version_parse(fw->py_min, &a) && cu_version_parse(fw->py_max, &b) && a.n > 1 &&
        b.n > 1) {
        lo = a.part[1];
        hi = b.part[1];
    }
    for (unsigned m = hi + 1; m-- > lo && n < max;) {
        char v[8];
        snprintf(v, sizeof(v), "3.%u", m % 100);
        if (!brings || brought(t, v))
            snprintf(out[n++], 8, "%s", v);
    }
    return n;
}

static void
draw(struct tui *t)
{
    char py[16][8];
    int y = tui_frame(t, title(), t->cur.editing ? _("Enter: done   Esc: cancel the edit")
                                                 : _("Enter: edit/continue  Left/Right: change  Esc: back  ?: help  q: quit"));
    const char *labels[] = {_("Tool"), _("Name"), _("Python"), _("From")};
    int lw = tui_labels_width(labels, 4);
    int fx = 3 + lw + 2, fw = COLS - fx - 2;
    const char *tool = tool_of(t);
    CU_AUTOFREE char *name = name_of(t);
    y++;
    tui_text_color(t, TC_KEY, y, 3, lw, labels[0]);
    CU_AUTOFREE char *tv = cu_xasprintf("< %s >", tool);
    tui_edit_draw(t, y, fx, tui_width(tv) + 2, tv, t->cur.sel == ROW_TOOL);
    const struct cu_pyenv_info *pe = t->o.facts->pyenv;
    CU_AUTOFREE char *found = pe ? cu_xasprintf(_("found here: %s %s"), pe->tool, pe->version ? pe->version : "")
                                 : cu_xstrdup(_("no conda found here"));
    tui_dim_wrap(t, y + 1, fx, fw, 2, found);
    y += 3;
    tui_text_color(t, TC_KEY, y, 3, lw, labels[1]);
    tui_edit_draw(t, y, fx, fw > 40 ? 40 : fw, name, t->cur.sel == ROW_NAME);
    if (t->plan && t->plan->env.path && !t->ans.env_name) {
        tui_dim_wrap(t, y + 1, fx, fw, 2, t->plan->env.path);
    }
    y += 3;
    tui_text_color(t, TC_KEY, y, 3, lw, labels[2]);
    size_t n = pythons(t, py, 16);
    CU_AUTOFREE char *pv = cu_xasprintf("< %s >", t->ans.python ? t->ans.python : _("automatic"));
    tui_edit_draw(t, y, fx, tui_width(pv) + 2, pv, t->cur.sel == ROW_PYTHON);
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < n; i++)
        cu_buf_printf(&b, "%s%s", i ? _(", ") : "", py[i]);
    CU_AUTOFREE char *list = cu_buf_steal(&b);
    CU_AUTOFREE char *offer = cu_xasprintf(_("choices: %s"), list && *list ? list : _("none"));
    tui_dim_wrap(t, y + 1, fx, fw, 2, offer);
    y += 3;
    tui_text_color(t, TC_KEY, y, 3, lw, _("From"));
    bool venv = strcmp(tool, "venv") == 0;
    CU_AUTOFREE char *sv = cu_xasprintf("< %s >", venv ? source_label(source_of(t)) : tool);
    tui_edit_draw(t, y, fx, tui_width(sv) + 2, sv, t->cur.sel == ROW_SOURCE);
    const struct cu_plan_python *pp = t->plan ? t->plan->python : NULL;
    /* The plan's Python only while it is the one chosen: a plan for other answers (being made, or refused)
     * would promise a version that will not come. */
    const char *want = t->ans.python;
    if (pp && (tui_stale(t, JOB_PLAN) || (want && strncmp(pp->version, want, strlen(want)) != 0) ||
               (want && pp->version[strlen(want)] && pp->version[strlen(want)] != '.')))
        pp = NULL;
    const struct cu_cat_python *cp = venv && !pp && want && strcmp(source_of(t), "system") != 0 ? brought(t, want) : NULL;
    char vb[32];
    CU_AUTOFREE char *path = cp ? cu_xasprintf("%s/cudaup/python/%s", t->ans.prefix ? t->ans.prefix : t->o.prefix, want) : NULL;
    CU_AUTOFREE char *line = NULL;
    if (venv && pp && strcmp(pp->kind, "cudaup") == 0)
        line = cu_xasprintf(_("cudaup brings Python %s into %s"), pp->version, pp->path);
    else if (cp && strcmp(source_of(t), "cudaup") == 0)
        line = cu_xasprintf(_("cudaup brings Python %s into %s"), cu_version_format(&cp->version, 0, vb, sizeof(vb)), path);
    else if (cp)
        line = cu_xasprintf(_("python%s of this machine when it is installed, else cudaup brings Python %s into %s"), want,
                            cu_version_format(&cp->version, 0, vb, sizeof(vb)), path);
    else if (venv && !pp && want && strcmp(source_of(t), "system") == 0)
        line = cu_xasprintf(_("uses python%s of this machine"), want);
    else if (venv && !pp && want)
        line = cu_xasprintf(_("python%s of this machine; cudaup has no relocatable Python %s for it"), want, want);
    CU_AUTOFREE char *where = !venv ? cu_xasprintf(_("%s brings its own Python"), tool)
                              : line ? cu_xstrdup(line)
                              : pp && pp->exe ? cu_xasprintf(_("uses %s"), pp->exe)
                                              : cu_xstrdup(_("a python3 of this machine when one fits, else cudaup brings one"));
    /* The whole sentence and path over as many rows as they take, up to three, as Location shows its
     * path (issue 35 walk, item 4: cut from the left). */
    int rows = tui_wrap_rows(where, fw, 0);
    rows = rows < 2 ? 2 : rows > 3 ? 3 : rows;
    tui_dim_wrap(t, y + 1, fx, fw, rows, where);
    y += 1 + rows;
    tui_button(t, y, t->cur.sel == ROW_CONTINUE);
}

static void
cycle_tool(struct tui *t, int dir)
{
    tui_set_answer(t, &t->ans.env_tool, tui_cycle_value(tools, 4, tool_of(t), dir));
    tui_set_answer(t, &t->ans.python, NULL); /* the choices differ by tool */
    if (strcmp(tool_of(t), "venv") != 0)
        tui_set_answer(t, &t->ans.python_source, NULL); /* conda's Python is conda's */
}

static void
cycle_python(struct tui *t, int dir)
{
    char py[16][8];
    size_t n = pythons(t, py, 16);
    int i = -1; /* automatic */
    for (size_t k = 0; k < n; k++)
        if (t->ans.python && strcmp(py[k], t->ans.python) == 0)
            i = (int)k;
    i += dir;
    if (i < -1)
        i = (int)n - 1;
    if (i >= (int)n)
        i = -1;
    tui_set_answer(t, &t->ans.python, i < 0 ? NULL : py[i]);
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
            if (*v && (strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(v) ||
                       v[0] == '.' || v[0] == '-')) {
                tui_notice(t, true, _("'%s': a name may hold only letters, digits, '.', '_' and '-'."), v);
                return true;
            }
            tui_set_answer(t, &t->ans.env_name, v);
            t->message[0] = '\0';
        }
        return true;
    }
    if (tui_form_move(ch, &t->cur.sel, N_ROWS, -1))
        return true;
    int dir = tui_cycle_dir(ch);
    if (dir && t->cur.sel == ROW_TOOL) {
        cycle_tool(t, dir);
        return true;
    }
    if (dir && t->cur.sel == ROW_PYTHON) {
        cycle_python(t, dir);
        return true;
    }
    if (dir && t->cur.sel == ROW_SOURCE) {
        if (strcmp(tool_of(t), "venv") != 0) {
            tui_notice(t, false, "%s", _("conda, mamba and micromamba bring their own Python; choose venv under Tool to pick where its Python comes from."));
            return true;
        }
        tui_set_answer(t, &t->ans.python_source, tui_cycle_value(sources, 3, source_of(t), dir));
        tui_set_answer(t, &t->ans.python, NULL); /* the choices differ by source */
        return true;
    }
    if (enter_key && t->cur.sel == ROW_NAME) {
        CU_AUTOFREE char *name = name_of(t);
        tui_edit_begin(t, name);
        return true;
    }
    return false;
}

const struct tui_screen_ops scr_pyenv_ops = {
    .id = "pyenv",
    .title = title,
    .enter = enter,
    .draw = draw,
    .key = key,
    .help = help,
};
