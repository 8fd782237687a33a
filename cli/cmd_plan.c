/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "core/resolve/containers.h"
#include "core/resolve/driver.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/str.h"
#include "installers/prepare.h"
#include "report.h"
#include "term.h"

static void
prepare_in(struct cu_app *app, bool unconstrained, const struct cu_facts *facts, struct cu_prepare_in *in)
{
    *in = (struct cu_prepare_in){
        .cfg = &app->cfg,
        .facts = facts,
        .catalog = app->catalog,
        .envp = app->envp,
        .prefix = app->prefix,
        .state_dir = app->state_dir,
        .cache_dir = app->cache_dir,
        .root = cu_sysroot_is_host(&app->root) ? NULL : app->root.path,
        .profile_d = app->profile_d,
        .is_root = app->is_root,
        .unconstrained = unconstrained,
        .low_speed_time_s = app->low_speed_time_s,
        .retry_base_ms = app->retry_base_ms,
    };
}

enum cu_status
cu_app_check_request(struct cu_app *app, struct cu_error *err)
{
    struct cu_prepare_in in;
    prepare_in(app, false, NULL, &in);
    return cu_prepare_check(&in, err);
}

enum cu_status
cu_app_prepare(struct cu_app *app, bool unconstrained, struct cu_facts **facts,
               struct cu_mirror **mirror, struct cu_plan **plan, struct cu_error *err)
{
    enum cu_status st = cu_app_probe(app, facts, err);
    if (st != CU_OK)
        return st;
    struct cu_prepare_in in;
    prepare_in(app, unconstrained, *facts, &in);
    return cu_prepare_plan(&in, mirror, plan, err);
}

/* "LABEL     text", the label bold and padded to 10 columns, the text wrapped under itself at @width. */
static void
head_line(struct cu_app *app, const char *label, const char *text, int width)
{
    printf("%s", cu_color(app, CU_COLOR_BOLD, false));
    cu_print_padded(stdout, label, 10);
    printf("%s ", cu_color_reset(app, false));
    cu_print_wrapped_at(stdout, 11, 11, text, width);
}

/* Is @req one of the compiler wheels @p's toolkit puts beside the frameworks ("nvidia-cuda-nvcc==13.0.88")?  The
 * head's CUDA line says them; the steps (cudaup plan) name each. */
static bool
toolkit_wheel(const struct cu_plan *p, const char *req)
{
    for (char **w = p->toolkit ? p->toolkit->wheels : NULL; w && *w; w++)
        if (strcmp(*w, req) == 0)
            return true;
    return false;
}

/* The head: CUDA, cuDNN, each environment's frameworks, the driver; each a label and its line. */
static void
print_head(struct cu_app *app, const struct cu_plan *p, int width)
{
    char b1[32];
    /* --toolkit wheels or none: no CUDA folder; where the compiler comes from instead (issue 50). */
    CU_AUTOFREE char *cuda = cu_plan_system_toolkit(p)
                                 ? cu_xasprintf("%s  %s", cu_version_format(&p->cuda, 0, b1, sizeof(b1)), p->cuda_path)
                             : strcmp(p->toolkit->kind, "wheels") == 0
                                 ? cu_xasprintf(_("%s, from NVIDIA's compiler wheels in the environment (--toolkit wheels)"),
                                                cu_version_format(&p->toolkit->release, 0, b1, sizeof(b1)))
                                 : cu_xstrdup(_("none: the frameworks' own CUDA wheels alone (--toolkit none)"));
    head_line(app, _("CUDA"), cuda, width);
    CU_AUTOFREE char *cudnn = p->has_cudnn ? cu_xasprintf(_("%s (the CUDA %s build)"), p->cudnn_full ? p->cudnn_full : "?",
                                                         p->cudnn_variant)
                              : p->toolkit && p->toolkit->cudnn
                                  ? cu_xasprintf(_("%s, the wheel in the environment (--cudnn)"), p->toolkit->cudnn)
                                  : cu_xstrdup(_("none"));
    head_line(app, _("cuDNN"), cudnn, width);
    if (p->framework) {
        /* Each environment: every framework's requirements, its Python and where it goes; the first under
         * the label, the others under it. */
        for (size_t e = 0; e <= p->n_envs; e++) {
            const struct cu_plan *q = e ? p->envs[e - 1] : p;
            size_t n;
            struct cu_plan_framework *const *fws = cu_plan_frameworks(q, &n);
            struct cu_buf b;
            cu_buf_init(&b);
            for (size_t i = 0; i < n; i++)
                for (char **r = fws[i]->pip; r && *r; r++)
                    if (!toolkit_wheel(q, *r))
                        cu_buf_printf(&b, "%s%s", b.len ? " " : "", *r);
            CU_AUTOFREE char *fw = q->env.tool && strcmp(q->env.tool, "venv") == 0
                                       ? cu_xasprintf(_("%s, Python %s, in the venv %s"), b.data, q->framework->python,
                                                      q->env.name)
                                       : cu_xasprintf(_("%s, Python %s, in the %s environment %s"), b.data,
                                                      q->framework->python, q->env.tool, q->env.name);
            head_line(app, e ? "" : _("Framework"), fw, width);
            cu_buf_fini(&b);
        }
    } else {
        head_line(app, _("Framework"), _("none"), width);
    }
    const struct cu_drv_plan *drv = p->driver;
    if (drv && strcmp(drv->action, "install") == 0) {
        CU_AUTOFREE char *dl = cu_xasprintf(_("%d (%s kernel modules) from %s with %s; Secure Boot: %s; %s"), drv->branch,
                                            cu_drv_flavor_word(drv->flavor),
                                            strcmp(drv->source, "distro") == 0 ? drv->distro : _("NVIDIA's repository"),
                                            drv->manager, cu_drv_secure_boot_word(drv->secure_boot),
                                            drv->reboot       ? _("a reboot will be needed")
                                            : drv->reboot_may ? _("a reboot may be needed (if the packages bring a newer kernel)")
                                                              : _("no reboot needed"));
        head_line(app, _("Driver"), dl, width);
    } else if (drv && drv->container) {
        /* Inside a container: the host's driver, never a step of the plan (the reasons say why). */
        CU_AUTOFREE char *dl = !drv->host.n ? cu_xstrdup(_("the host's; no NVIDIA driver seen in this container (start it with the GPU)"))
                               : drv->host_libs
                                   ? cu_xasprintf(_("the host's, %s (cudaup runs inside a container)"),
                                                  cu_driver_version_format(&drv->host, b1, sizeof(b1)))
                                   : cu_xasprintf(_("the host's, %s, without its libraries in this container (start it with the GPU)"),
                                                  cu_driver_version_format(&drv->host, b1, sizeof(b1)));
        head_line(app, _("Driver"), dl, width);
    }
    const struct cu_ctr_plan *ctr = p->containers;
    if (ctr && ctr->n_engines) {
        /* GPU containers: the toolkit, the engines and what keeps the CDI spec fresh (its steps and why are below). */
        struct cu_buf b;
        cu_buf_init(&b);
        for (size_t i = 0; i < ctr->n_engines; i++)
            cu_buf_printf(&b, "%s%s", i ? ", " : "", cu_engine_title(ctr->engines[i].kind));
        CU_AUTOFREE char *cl = ctr->toolkit ? cu_xasprintf(_("NVIDIA Container Toolkit %s for %s; CDI spec %s, kept fresh by %s"), ctr->toolkit,
                                                          b.data, ctr->cdi_path ? ctr->cdi_path : "-", ctr->refresh ? ctr->refresh : "-")
                                            : cu_xasprintf(_("%s: nothing to do"), b.data);
        head_line(app, _("Containers"), cl, width);
        cu_buf_fini(&b);
    }
}

/* The notes: what the user should know that does not stop the plan (@offline_said: that it was planned offline). */
static void
print_notes(struct cu_app *app, const struct cu_plan *p, bool offline_said, int width)
{
    const char *reset = cu_color_reset(app, false);
    /* --offline (CUDAUP_OFFLINE=1, perhaps set by someone else): said, since no index was asked (issue 44); an
     * index that did not answer says so among the warnings. */
    bool offline_note = offline_said && p->offline && app->cfg.offline;
    if (p->warnings.n || offline_note) {
        printf("\n%s%s%s\n", cu_color(app, CU_COLOR_YELLOW, false), _("Note:"), reset);
        for (size_t i = 0; i < p->warnings.n; i++) {
            printf("  - ");
            cu_print_wrapped_at(stdout, 4, 4, p->warnings.v[i], width);
        }
        if (offline_note) {
            printf("  - ");
            cu_print_wrapped_at(stdout, 4, 4, _("Planned offline (--offline): no package index was asked, so a framework release newer than cudaup's catalog is not seen."), width);
        }
    }
}

void
cu_print_plan(struct cu_app *app, const struct cu_plan *p)
{
    char b2[32];
    const char *bold = cu_color(app, CU_COLOR_BOLD, false), *reset = cu_color_reset(app, false);
    /* On a terminal every line breaks at word boundaries, under its own text, as the help does (a long
     * path stays whole); to a pipe or a file, one line each. */
    int width = cu_term_width(STDOUT_FILENO);
    print_head(app, p, width);
    /* The count and the total take in every archive, the Python cudaup brings too; a size the
     * source does not publish is counted apart rather than guessed (as the wizard's Review says it). */
    bool py_dl = p->python && p->python->dl.url;
    CU_AUTOFREE char *count = cu_plan_download_text(p, NULL);
    printf("\n%s", bold);
    /* TRANSLATORS: %s is "3 downloads, 20 MB" (cu_plan_download_text), the heading of the table of archives */
    printf(_("%s:"), count);
    printf("%s\n", reset);
    /* The table's columns as wide as their longest entry, so that it fits a narrow terminal. */
    int cw = 0, vw = 0;
    for (size_t i = 0; i < p->n_downloads + (py_dl ? 1 : 0); i++) {
        const struct cu_plan_download *d = i < p->n_downloads ? &p->downloads[i] : &p->python->dl;
        const char *ver = i < p->n_downloads ? (d->version ? d->version : "") : p->python->version;
        cw = (int)strlen(d->component) > cw ? (int)strlen(d->component) : cw;
        vw = (int)strlen(ver) > vw ? (int)strlen(ver) : vw;
    }
    for (size_t i = 0; i < p->n_downloads + (py_dl ? 1 : 0); i++) {
        const struct cu_plan_download *d = i < p->n_downloads ? &p->downloads[i] : &p->python->dl;
        const char *ver = i < p->n_downloads ? (d->version ? d->version : "") : p->python->version;
        printf("  %-*s  %-*s  ", cw, d->component, vw, ver);
        bool known;
        uint64_t sz = cu_download_size(d, &known);
        const char *size = known ? cu_format_bytes(sz, b2, sizeof(b2)) : _("size unpublished");
        printf("%*s%s\n", !known ? 0 : 8 - (int)cu_text_cols(size) > 0 ? 8 - (int)cu_text_cols(size) : 0, "", size);
    }
    printf("\n%s%s%s\n", bold, _("Steps:"), reset);
    for (size_t i = 0; i < p->n_steps; i++) {
        CU_AUTOFREE char *num = cu_xasprintf("  %zu. ", i + 1);
        CU_AUTOFREE char *step = cu_xasprintf("[%s] %s", p->steps[i].installer, p->steps[i].detail);
        fputs(num, stdout);
        cu_print_wrapped_at(stdout, strlen(num), strlen(num), step, width);
    }
    printf("\n%s%s%s\n", bold, _("Why:"), reset);
    for (size_t i = 0; i < p->reasons.n; i++) {
        printf("  - ");
        cu_print_wrapped_at(stdout, 4, 4, p->reasons.v[i], width);
        /* Where the data comes from is for -v (and the log and JSON): the user reads the reason. */
        const char *src = i < p->reason_sources.n ? p->reason_sources.v[i] : "";
        if (app->cfg.verbose && *src) {
            CU_AUTOFREE char *line = cu_xasprintf(_("source: %s"), src);
            printf("    ");
            cu_print_wrapped_at(stdout, 4, 4, line, width);
        }
    }
    print_notes(app, p, true, width);
}

/* "a, b and c" in the user's language. */
static char *
join_list(const struct cu_strv *v)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < v->n; i++)
        /* TRANSLATORS: between the items of a list, and before its last ("a, b and c") */
        cu_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == v->n ? _(" and ") : _(", "), v->v[i]);
    return cu_buf_steal(&b);
}

/* The driver's steps in one: the commands it runs and the files it writes (the plan lists each, with why). */
static char *
driver_line(const struct cu_drv_plan *d)
{
    struct cu_strv cmds, files;
    cu_strv_init(&cmds);
    cu_strv_init(&files);
    for (size_t i = 0; i < d->n_steps; i++) {
        const struct cu_drv_step *s = &d->steps[i];
        if (s->argv) {
            CU_AUTOFREE char *line = cu_drv_step_line(s);
            cu_strv_push_owned(&cmds, cu_xasprintf("`%s`", line));
        } else if (s->path) {
            cu_strv_push(&files, s->path);
        }
    }
    /* Several files: how many, and the folder they share (`cudaup plan` names each, with why). */
    CU_AUTOFREE char *f = NULL;
    if (files.n > 1) {
        size_t common = strlen(files.v[0]);
        for (size_t i = 1; i < files.n; i++)
            for (size_t k = 0; k < common; k++)
                if (files.v[i][k] != files.v[0][k]) {
                    common = k;
                    break;
                }
        while (common > 1 && files.v[0][common - 1] != '/')
            common--;
        CU_AUTOFREE char *dir = cu_xstrndup(files.v[0], common > 1 ? common - 1 : 1);
        f = cu_xasprintf(ngettext_("%zu file under %s", "%zu files under %s", files.n), files.n, dir);
    } else {
        f = join_list(&files);
    }
    CU_AUTOFREE char *c = join_list(&cmds);
    char *line = cmds.n && files.n ? cu_xasprintf(_("The NVIDIA driver %d: runs %s; writes %s."), d->branch, c, f)
                 : cmds.n          ? cu_xasprintf(_("The NVIDIA driver %d: runs %s."), d->branch, c)
                 : files.n         ? cu_xasprintf(_("The NVIDIA driver %d: writes %s."), d->branch, f)
                                   : NULL;
    cu_strv_fini(&cmds);
    cu_strv_fini(&files);
    return line;
}

/* Whether the plan has a step of @installer and @action. */
static bool
has_step(const struct cu_plan *p, const char *installer, const char *action)
{
    for (size_t i = 0; i < p->n_steps; i++)
        if (strcmp(p->steps[i].installer, installer) == 0 && strcmp(p->steps[i].action, action) == 0)
            return true;
    return false;
}

/*
 * A step of a Python environment's group as the summary says it, or NULL where another says it: with the compiler
 * wheels (*@said: their activation said), the activation's two steps in one clause and pip's without the wheels' pins,
 * which the head's CUDA line counts; the hold, where.  Caller frees.
 */
static char *
summary_env_detail(const struct cu_plan *p, const struct cu_plan_step *s, bool *said)
{
    char b1[32];
    bool wheels = p->toolkit && strcmp(p->toolkit->kind, "wheels") == 0;
    if (wheels && strcmp(s->installer, "pyenv") == 0 && strcmp(s->action, "write") == 0) {
        if (*said)
            return NULL;
        *said = true;
        return cu_xstrdup(_("its activation points CUDA_HOME and PATH at the compiler wheels and keeps CUDA folders out of LD_LIBRARY_PATH, undone on deactivation"));
    }
    if (strcmp(s->installer, "framework") == 0 && strcmp(s->action, "hold") == 0 && p->hold && p->hold->file)
        return cu_xasprintf(_("hold them and the CUDA wheels pip brings at the releases pip installs (%s)"), p->hold->file);
    if (!wheels || strcmp(s->installer, "framework") != 0 || strcmp(s->action, "pip-install") != 0)
        return cu_xstrdup(s->detail);
    struct cu_buf b;
    cu_buf_init(&b);
    size_t n = 0;
    for (const char *w = s->detail; *w;) {
        size_t len = strcspn(w, " ");
        CU_AUTOFREE char *word = cu_xstrndup(w, len);
        if (toolkit_wheel(p, word))
            n++;
        else
            cu_buf_printf(&b, "%s%s", b.len ? " " : "", word);
        w += len + strspn(w + len, " ");
    }
    if (n)
        cu_buf_printf(&b, ngettext_(", with %zu compiler wheel of CUDA %s", ", with %zu compiler wheels of CUDA %s", n), n,
                      cu_version_format(&p->toolkit->release, 0, b1, sizeof(b1)));
    return cu_buf_steal(&b);
}

/*
 * The steps in a few lines, each what a group of them does: the driver's commands and files, the reboot it
 * stops for, the Python cudaup brings, CUDA and cuDNN, the environment variables, each Python environment.
 * A step of any other kind is said as the plan says it.
 */
static void
summary_steps(const struct cu_plan *p, struct cu_strv *out)
{
    char b1[32], b2[32];
    bool driver_said = false, toolkit_said = false;
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct cu_plan_step *s = &p->steps[i];
        const char *in = s->installer, *act = s->action;
        if (strcmp(in, "driver") == 0 && p->driver) {
            if (strcmp(act, "reboot") == 0) {
                cu_strv_push(out, _("Then a reboot (exit 5); the rest when cudaup runs again."));
            } else if (!driver_said) {
                driver_said = true;
                char *line = driver_line(p->driver);
                if (line)
                    cu_strv_push_owned(out, line);
            }
        } else if (strcmp(in, "python") == 0 && strcmp(act, "install") == 0 && p->python && p->python->path) {
            cu_strv_push_owned(out, cu_xasprintf(_("Python %s into %s."), p->python->version, p->python->path));
        } else if ((strcmp(in, "cuda") == 0 || strcmp(in, "cudnn") == 0) &&
                   (strcmp(act, "install") == 0 || strcmp(act, "link") == 0)) {
            if (toolkit_said)
                continue;
            toolkit_said = true;
            bool cuda = has_step(p, "cuda", "install"), dnn = has_step(p, "cudnn", "install");
            const char *dv = p->cudnn_full ? p->cudnn_full : cu_version_format(&p->cudnn, 0, b2, sizeof(b2));
            cu_version_format(&p->cuda, 0, b1, sizeof(b1));
            if (cuda && dnn)
                cu_strv_push_owned(out, cu_xasprintf(_("CUDA %s and cuDNN %s into %s."), b1, dv, p->cuda_path));
            else if (cuda)
                cu_strv_push_owned(out, cu_xasprintf(_("CUDA %s into %s."), b1, p->cuda_path));
            else if (dnn)
                cu_strv_push_owned(out, cu_xasprintf(_("cuDNN %s into %s."), dv, p->cuda_path));
            else
                cu_strv_push_owned(out, cu_str_sentence(s->detail));
        } else if (strcmp(in, "framework") == 0 && strcmp(act, "pip-constraints") == 0) {
            continue; /* how pip is held: in the plan */
        } else if (strcmp(in, "envvars") == 0 && strcmp(act, "skip") == 0 && !cu_plan_system_toolkit(p)) {
            continue; /* no env.sh without a system toolkit: the head's CUDA line says where it is */
        } else {
            /* The environment variables' steps in one; a Python environment's (made, then its pip installs) in one. */
            bool env = strcmp(in, "pyenv") == 0 || strcmp(in, "framework") == 0, said = false;
            struct cu_buf b;
            cu_buf_init(&b);
            CU_AUTOFREE char *first = env ? summary_env_detail(p, s, &said) : cu_xstrdup(s->detail);
            cu_buf_printf(&b, "%s", first ? first : "");
            while (i + 1 < p->n_steps) {
                const struct cu_plan_step *n = &p->steps[i + 1];
                bool same = env ? (strcmp(n->installer, "framework") == 0 ||
                                   (strcmp(n->installer, "pyenv") == 0 && strcmp(n->action, "create") != 0))
                                : strcmp(n->installer, in) == 0 && strcmp(in, "envvars") == 0;
                if (!same)
                    break;
                i++;
                if (strcmp(n->installer, "framework") == 0 && strcmp(n->action, "pip-constraints") == 0)
                    continue;
                CU_AUTOFREE char *d = env ? summary_env_detail(p, n, &said) : cu_xstrdup(n->detail);
                /* TRANSLATORS: between two steps said in one line ("create the venv ...; pip install ...") */
                if (d)
                    cu_buf_printf(&b, b.len ? _("; %s") : "%s", d);
            }
            cu_strv_push_owned(out, cu_str_sentence(b.data));
            cu_buf_fini(&b);
        }
    }
}

void
cu_print_plan_confirm(struct cu_app *app, const struct cu_plan *p)
{
    /* -v asks for everything: the plan as `cudaup plan` prints it. */
    if (app->cfg.verbose) {
        cu_print_plan(app, p);
        return;
    }
    const char *bold = cu_color(app, CU_COLOR_BOLD, false), *reset = cu_color_reset(app, false);
    int width = cu_term_width(STDOUT_FILENO);
    print_head(app, p, width);
    if (p->n_downloads || (p->python && p->python->dl.url)) {
        CU_AUTOFREE char *count = cu_plan_download_text(p, NULL);
        head_line(app, _("Download"), count, width);
    }
    struct cu_strv steps;
    cu_strv_init(&steps);
    summary_steps(p, &steps);
    printf("\n%s", bold);
    cu_print_wrapped_at(stdout, 0, 0, _("Steps (each in full, with the reasons: cudaup plan, or add -v):"), width);
    fputs(reset, stdout);
    for (size_t i = 0; i < steps.n; i++) {
        CU_AUTOFREE char *num = cu_xasprintf("  %zu. ", i + 1);
        fputs(num, stdout);
        cu_print_wrapped_at(stdout, strlen(num), strlen(num), steps.v[i], width);
    }
    cu_strv_fini(&steps);
    print_notes(app, p, false, width);
}

int
cu_cmd_plan(struct cu_app *app)
{
    struct cu_error err;
    struct cu_facts *facts = NULL;
    struct cu_mirror *mirror = NULL;
    struct cu_plan *plan = NULL;
    int rc = 0;

    cu_error_clear(&err);
    if (app->cfg.n_args > 0) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'plan' takes no arguments, but got '%s'."), app->cfg.args[0]);
        rc = cu_report_error(app, &err);
        goto out;
    }
    if (cu_app_prepare(app, false, &facts, &mirror, &plan, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    if (app->cfg.json)
        cu_report_json(app, cu_plan_to_json(plan));
    else if (!app->cfg.quiet)
        cu_print_plan(app, plan);
out:
    cu_plan_free(plan);
    cu_mirror_free(mirror);
    cu_facts_free(facts);
    return rc;
}
