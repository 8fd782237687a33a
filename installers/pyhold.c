/* SPDX-License-Identifier: MIT */
/* The hold of a Python environment cudaup makes: see pyhold.h. */
#include "config.h"
#define CU_LOG_TAG "pyenv"

#include "pyhold.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/pipreq.h"
#include "core/base/pipspec.h"
#include "core/base/str.h"
#include "core/catalog/cliff.h"
#include "core/catalog/gpucode.h"
#include "core/install/envfile.h"
#include "pyenv.h"

/* The first line of every pip.conf cudaup writes: how it knows the file is its own. */
#define CONF_MARK "# Written by cudaup:"

/* ---- the plan ----------------------------------------------------------------------------- */

/* The distribution names of the plan's requirements ("torch==2.14.*" -> torch), in order, each once. */
static void
framework_dists(const struct cu_plan *p, struct cu_strv *out)
{
    size_t n;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &n);
    for (size_t i = 0; i < n; i++)
        for (char **q = fw[i]->pip; q && *q; q++) {
            struct cu_pipreq r;
            if (!cu_pipreq_parse(*q, &r))
                continue;
            if (!cu_strv_contains(out, r.name))
                cu_strv_push(out, r.name);
            cu_pipreq_fini(&r);
        }
}

/* "torch, torchvision and jax" of @v. */
static char *
and_list(const struct cu_strv *v)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < v->n; i++)
        cu_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == v->n ? _(" and ") : _(", "), v->v[i]);
    return cu_buf_steal(&b);
}

/*
 * PyPI's wheel of the release pip installs from the plan's own index, where it is another build (torch 2.14.1 on
 * PyPI is its cu130 build, the plan's the cu126 one): the reason an upper bound alone would not hold it.
 */
static void
reason_same_release(struct cu_plan *p, const struct cu_catalog *cat, const struct cu_facts *f,
                    const struct cu_plan_framework *fw)
{
    char b1[32];
    struct cu_version minor, newest = {{0}, 0};
    if (fw->kind != CU_FW_PYTORCH || !fw->cuda_tag || !fw->index_url || !fw->version ||
        !cu_version_parse(fw->version, &minor))
        return;
    minor.n = minor.n > 2 ? 2 : minor.n;
    for (size_t i = 0; i < cat->n_pypi_torch; i++)
        if (cu_version_matches(&cat->pypi_torch[i], &minor) &&
            (!newest.n || cu_version_cmp(&cat->pypi_torch[i], &newest) > 0))
            newest = cat->pypi_torch[i];
    const struct cu_cat_fw_wheel *w = NULL;
    for (size_t i = 0; newest.n && i < cat->wheels.n_fw && !w; i++) {
        const struct cu_cat_fw_wheel *e = &cat->wheels.fw[i];
        if (strcmp(e->framework, "pytorch") == 0 && !*e->extra && e->tag && cu_version_cmp(&e->version, &newest) == 0)
            w = e;
    }
    if (!w || strcmp(w->tag, fw->cuda_tag) == 0)
        return;
    const struct cu_cat_code *code = cu_catalog_torch_code(cat, &newest, w->tag);
    for (size_t g = 0; code && g < f->n_gpus; g++) {
        int t;
        if (!f->gpus[g].cc.n || cu_code_fit(code, &f->gpus[g].cc, &t) != CU_CODE_NONE)
            continue;
        CU_AUTOFREE char *has = cu_code_describe(code);
        cu_plan_reason_src(p, w->source,
                           _("PyPI's torch %s is another build of the same release (%s, %s), with no code for GPU %d (%s): an upper bound such as torch<%u.%u would let pip take it, so the hold names the %s build itself."),
                           cu_version_format(&newest, 0, b1, sizeof(b1)), w->tag, has, f->gpus[g].index,
                           f->gpus[g].name, minor.part[0], minor.part[1] + 1, fw->cuda_tag);
        return;
    }
}

void
cu_pyhold_plan(struct cu_plan *p, const struct cu_catalog *cat, const struct cu_facts *f)
{
    size_t n;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &n);
    if (!n || !p->env.tool || strcmp(p->env.tool, "none") == 0 || p->hold)
        return;
    struct cu_plan_hold *h = cu_xcalloc(1, sizeof(*h));
    p->hold = h;
    if (p->env.path) {
        h->file = cu_env_hold_file(p->env.path);
        h->pip_conf = cu_path_join(p->env.path, "pip.conf");
    }
    struct cu_strv names;
    cu_strv_init(&names);
    framework_dists(p, &names);
    h->packages = cu_xcalloc(names.n + 1, sizeof(char *));
    for (size_t i = 0; i < names.n; i++)
        h->packages[i] = cu_xstrdup(names.v[i]);
    for (size_t i = 0; i < n && !h->index_url; i++)
        if (fw[i]->index_url) {
            h->index_url = cu_xstrdup(fw[i]->index_url);
            h->index_explicit = fw[i]->index_explicit;
        }
    CU_AUTOFREE char *list = and_list(&names);
    CU_AUTOFREE char *where = h->file ? cu_xstrdup(h->file) : cu_xasprintf(_("cudaup-constraints.txt in %s's folder"), p->env.name);
    if (h->index_url)
        cu_plan_add_step(p, "framework", "hold",
                         _("hold %s, with the CUDA wheels pip brings with them, at the releases pip installs (the builds of %s) in %s, which the environment's pip.conf and its activation (PIP_CONSTRAINT) name"),
                         list, h->index_url, where);
    else
        cu_plan_add_step(p, "framework", "hold",
                         _("hold %s, with the CUDA wheels pip brings with them, at the releases pip installs in %s, which the environment's pip.conf and its activation (PIP_CONSTRAINT) name"),
                         list, where);
    /* Why: what `pip install -U` would take here without it. */
    bool said = false;
    for (size_t i = 0; i < n && cat && f; i++) {
        for (size_t g = 0; g < f->n_gpus && !said; g++) {
            struct cu_cliff cl;
            if (!f->gpus[g].cc.n)
                continue;
            cu_cliff_for(cat, &f->gpus[g].cc, &cl);
            const struct cu_cliff_part *part = cu_cliff_framework(&cl, fw[i]->name);
            if (!part || !part->known || part->current)
                continue;
            char b1[32];
            cu_plan_reason_src(p, part->source,
                               _("%s %s, the newest, has no code for GPU %d (%s): %s holds %s, with their CUDA wheels, at the releases pip installs here, in its own pip.conf and on activation (PIP_CONSTRAINT), so that `pip install -U %s` stays on a build with code for it; `cudaup install --framework %s==VERSION` plans another and moves the hold."),
                               cu_framework_title(fw[i]->name), cu_version_format(&part->newest, 0, b1, sizeof(b1)),
                               f->gpus[g].index, f->gpus[g].name, p->env.name, list, names.n ? names.v[0] : fw[i]->name,
                               fw[i]->name);
            said = true;
        }
        reason_same_release(p, cat, f, fw[i]);
    }
    if (!said)
        cu_plan_reason(p, _("%s holds %s, with their CUDA wheels, at the releases pip installs here, in its own pip.conf and on activation (PIP_CONSTRAINT), so that `pip install -U` or another package cannot move them to a build this machine's GPUs or driver do not run; `cudaup install --framework %s==VERSION` plans another and moves the hold."),
                       p->env.name, list, fw[0]->name);
    cu_strv_fini(&names);
}

/* ---- what is installed ------------------------------------------------------------------- */

struct dist {
    char *name;    /* normalized */
    char *version; /* as installed: "2.14.1+cu126" */
    struct cu_strv req;
};

struct dists {
    struct dist *v;
    size_t n;
};

static char *
header(const char *text, const char *key)
{
    size_t k = strlen(key);
    for (const char *l = text; l && *l && *l != '\n'; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, k) == 0 && l[k] == ':') {
            const char *v = l + k + 1 + strspn(l + k + 1, " \t");
            return cu_xstrndup(v, strcspn(v, "\r\n"));
        }
    return NULL;
}

/* Every distribution in ENV/lib/python3.* /site-packages, from its METADATA. */
static void
dists_read(const char *env, struct dists *out)
{
    memset(out, 0, sizeof(*out));
    CU_AUTOFREE char *lib = cu_path_join(env, "lib");
    DIR *d = opendir(lib);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (strncmp(de->d_name, "python3", 7) != 0)
            continue;
        CU_AUTOFREE char *sp = cu_xasprintf("%s/%s/site-packages", lib, de->d_name);
        DIR *s = opendir(sp);
        struct dirent *se;
        while (s && (se = readdir(s))) {
            size_t len = strlen(se->d_name);
            if (len < 11 || strcmp(se->d_name + len - 10, ".dist-info") != 0)
                continue;
            CU_AUTOFREE char *meta = cu_xasprintf("%s/%s/METADATA", sp, se->d_name);
            char *text = NULL;
            struct cu_error e;
            if (cu_read_file(meta, 4u << 20, &text, NULL, &e) != CU_OK)
                continue;
            CU_AUTOFREE char *name = header(text, "Name");
            CU_AUTOFREE char *ver = header(text, "Version");
            if (name && ver && *name && *ver) {
                out->v = cu_xreallocarray(out->v, out->n + 1, sizeof(*out->v));
                struct dist *x = &out->v[out->n++];
                x->name = cu_pep503_name(name, strlen(name));
                x->version = cu_steal_ptr(&ver);
                cu_strv_init(&x->req);
                char *rp = NULL;
                cu_metadata_read(text, &x->req, &rp);
                free(rp);
            }
            free(text);
        }
        if (s)
            closedir(s);
    }
    if (d)
        closedir(d);
}

static void
dists_fini(struct dists *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].name);
        free(d->v[i].version);
        cu_strv_fini(&d->v[i].req);
    }
    free(d->v);
    memset(d, 0, sizeof(*d));
}

static const struct dist *
dist_find(const struct dists *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->v[i].name, name) == 0)
            return &d->v[i];
    return NULL;
}

/* Does @spec name one release: "==X", or "<=X,>=X" (as JAX pins jaxlib)? */
static bool
exact(const char *spec)
{
    struct cu_pipspec s;
    const struct cu_pipspec *one = &s;
    struct cu_version v;
    bool prefix;
    if (!spec || !*spec || !cu_pipspec_parse(spec, &s))
        return false;
    if (cu_pipspec_pinned(&one, 1, &v, &prefix))
        return !prefix;
    return s.n == 2 && ((s.c[0].op == CU_PS_LE && s.c[1].op == CU_PS_GE) || (s.c[0].op == CU_PS_GE && s.c[1].op == CU_PS_LE)) &&
           cu_pipver_cmp(&s.c[0].v, &s.c[1].v) == 0;
}

static const char *
machine_of(const char *platform)
{
    return platform && (strstr(platform, "sbsa") || strstr(platform, "aarch64")) ? "aarch64" : "x86_64";
}

/* Does requirement @r of a distribution installed with @extras ("a,b" or "") apply? */
static bool
applies(const struct cu_pipreq *r, const char *extras, const char *machine, const char *python)
{
    if (!*r->marker)
        return true;
    int v = cu_marker_eval(r->marker, machine, "", python);
    struct cu_strv ex;
    cu_strv_init(&ex);
    cu_strv_split(&ex, extras, ",");
    for (size_t i = 0; i < ex.n && v != 1; i++)
        if (*ex.v[i])
            v = cu_marker_eval(r->marker, machine, ex.v[i], python);
    cu_strv_fini(&ex);
    return v != 0; /* a marker cudaup does not read: held when installed, which is what matters */
}

/*
 * What the hold names: the plan's frameworks, what each requires with an exact pin under the extras asked for,
 * and every nvidia-* wheel (NVIDIA's CUDA libraries on PyPI, as cuda_wheel_components.csv and
 * nvidia_cudnn_wheels.csv list them) they require, as installed; *@held gets "NAME==VERSION" each.
 */
static void
held_from(const struct cu_plan *p, const struct dists *d, struct cu_strv *held)
{
    struct cu_strv qn, qx, done;
    cu_strv_init(&qn);
    cu_strv_init(&qx);
    cu_strv_init(&done);
    size_t n;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &n);
    const char *python = n ? fw[0]->python : NULL, *machine = machine_of(p->platform);
    for (size_t i = 0; i < n; i++) {
        for (char **q = fw[i]->pip; q && *q; q++) {
            struct cu_pipreq r;
            if (cu_pipreq_parse(*q, &r)) {
                cu_strv_push(&qn, r.name);
                cu_strv_push(&qx, r.extras);
                cu_pipreq_fini(&r);
            }
        }
        for (char **q = fw[i]->constraints; q && *q; q++) {
            struct cu_pipreq r;
            if (cu_pipreq_parse(*q, &r)) {
                cu_strv_push(&qn, r.name);
                cu_strv_push(&qx, "");
                cu_pipreq_fini(&r);
            }
        }
    }
    for (size_t k = 0; k < qn.n; k++) {
        CU_AUTOFREE char *key = cu_xasprintf("%s[%s]", qn.v[k], qx.v[k]);
        const struct dist *x = dist_find(d, qn.v[k]);
        if (!x || cu_strv_contains(&done, key))
            continue;
        cu_strv_push(&done, key);
        CU_AUTOFREE char *pin = cu_xasprintf("%s==%s", x->name, x->version);
        if (!cu_strv_contains(held, pin))
            cu_strv_push(held, pin);
        for (size_t i = 0; i < x->req.n; i++) {
            struct cu_pipreq r;
            if (!cu_pipreq_parse(x->req.v[i], &r))
                continue;
            if (dist_find(d, r.name) && applies(&r, qx.v[k], machine, python) &&
                (exact(r.spec) || cu_str_has_prefix(r.name, "nvidia-"))) {
                cu_strv_push(&qn, r.name);
                cu_strv_push(&qx, r.extras);
            }
            cu_pipreq_fini(&r);
        }
    }
    cu_strv_fini(&qn);
    cu_strv_fini(&qx);
    cu_strv_fini(&done);
}

/* ---- lifting and writing ------------------------------------------------------------------ */

static char *
read_or_null(const char *path)
{
    char *text = NULL;
    struct cu_error e;
    return cu_read_file(path, 1u << 20, &text, NULL, &e) == CU_OK ? text : NULL;
}

static bool
conf_ours(const char *text)
{
    return text && cu_str_has_prefix(text, CONF_MARK);
}

static const char lifted[] = "# Written by cudaup: lifted while cudaup installs this environment's frameworks.\n";

enum cu_status
cu_pyhold_lift(const char *env, struct cu_pyhold_saved *s, struct cu_error *err)
{
    memset(s, 0, sizeof(*s));
    s->file = cu_env_hold_file(env);
    s->conf = cu_path_join(env, "pip.conf");
    s->file_text = read_or_null(s->file);
    s->conf_text = read_or_null(s->conf);
    if (!conf_ours(s->conf_text))
        cu_clear_ptr(&s->conf_text, free); /* the user's own: not cudaup's to move */
    enum cu_status st = CU_OK;
    if (s->file_text)
        st = cu_write_file_atomic(s->file, lifted, strlen(lifted), 0644, err);
    if (st == CU_OK && s->conf_text && unlink(s->conf) != 0 && errno != ENOENT)
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot remove %s"), s->conf);
    return st;
}

void
cu_pyhold_unlift(const struct cu_pyhold_saved *s)
{
    struct cu_error e;
    if (s->file_text && cu_write_file_atomic(s->file, s->file_text, strlen(s->file_text), 0644, &e) != CU_OK)
        cu_log_error_of(CU_LOG_WARN, &e);
    if (s->conf_text && cu_write_file_atomic(s->conf, s->conf_text, strlen(s->conf_text), 0644, &e) != CU_OK)
        cu_log_error_of(CU_LOG_WARN, &e);
}

void
cu_pyhold_saved_fini(struct cu_pyhold_saved *s)
{
    free(s->file);
    free(s->conf);
    free(s->file_text);
    free(s->conf_text);
    memset(s, 0, sizeof(*s));
}

/* Write @text to @path unless it holds it already. */
static enum cu_status
put(const char *path, const char *text, bool *changed, struct cu_error *err)
{
    CU_AUTOFREE char *have = read_or_null(path);
    if (have && strcmp(have, text) == 0)
        return CU_OK;
    *changed = true;
    return cu_write_file_atomic(path, text, strlen(text), 0644, err);
}

/* Did lifting the hold set @text of @path aside (so that writing it again changes nothing)? */
static bool
was(const struct cu_pyhold_saved *before, const char *path, const char *text)
{
    if (!before)
        return false;
    const char *old = before->file && strcmp(before->file, path) == 0   ? before->file_text
                      : before->conf && strcmp(before->conf, path) == 0 ? before->conf_text
                                                                        : NULL;
    return old && strcmp(old, text) == 0;
}

/* Write the hold's @text to @path; *@changed unless it held that before the lift (@before). */
static enum cu_status
put_hold(const struct cu_pyhold_saved *before, const char *path, const char *text, bool *changed, struct cu_error *err)
{
    bool ch = false;
    enum cu_status st = put(path, text, &ch, err);
    *changed |= ch && !was(before, path, text);
    return st;
}

enum cu_status
cu_pyhold_write(const struct cu_plan *p, const char *env, const struct cu_pyhold_index *indexes, size_t n_idx,
                const struct cu_pyhold_saved *before, json_t **rec, bool *changed, struct cu_error *err)
{
    *rec = NULL;
    struct dists d;
    dists_read(env, &d);
    struct cu_strv held;
    cu_strv_init(&held);
    held_from(p, &d, &held);
    /* The plan's constraints for what pip did not install (the CUDA family's compiler wheels): they stay held. */
    size_t n;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &n);
    struct cu_strv rest;
    cu_strv_init(&rest);
    for (size_t i = 0; i < n; i++)
        for (char **q = fw[i]->constraints; q && *q; q++) {
            struct cu_pipreq r;
            if (!cu_pipreq_parse(*q, &r))
                continue;
            if (!dist_find(&d, r.name) && !cu_strv_contains(&rest, *q))
                cu_strv_push(&rest, *q);
            cu_pipreq_fini(&r);
        }
    CU_AUTOFREE char *file = cu_env_hold_file(env);
    CU_AUTOFREE char *ref = cu_env_hold_ref(env);
    CU_AUTOFREE char *conf = cu_path_join(env, "pip.conf");
    CU_AUTOFREE char *names = cu_plan_framework_names(p, ",");
    struct cu_buf t;
    cu_buf_init(&t);
    cu_buf_printf(&t, "# Written by cudaup: %s in %s stays on the build installed for this machine's GPUs (issue 45).\n"
                      "# `cudaup install --framework NAME==VERSION` plans another build and moves this hold; `cudaup repair`\n"
                      "# puts it back. To lift it by hand, empty this file.\n",
                  names ? names : "?", env);
    for (size_t i = 0; i < held.n; i++)
        cu_buf_printf(&t, "%s\n", held.v[i]);
    for (size_t i = 0; i < rest.n; i++)
        cu_buf_printf(&t, "%s\n", rest.v[i]);
    enum cu_status st = put_hold(before, file, t.data, changed, err);
    /* pip.conf: the index the frameworks came from, and the hold, for a pip run without the activation. */
    CU_AUTOFREE char *have = read_or_null(conf);
    bool own_conf = !have || conf_ours(have);
    struct cu_buf c;
    cu_buf_init(&c);
    const char *option = NULL;
    if (own_conf) {
        cu_buf_printf(&c, CONF_MARK " pip in this environment stays on the build installed for this machine's GPUs.\n"
                          "# `cudaup repair` puts this file back; %s lists what is held.\n[global]\n",
                      file);
        bool explicit_ = false;
        for (size_t i = 0; i < n_idx; i++)
            explicit_ |= indexes[i].explicit_;
        if (n_idx) {
            option = explicit_ ? "index-url" : "extra-index-url";
            cu_buf_printf(&c, "%s =", option);
            for (size_t i = 0; i < n_idx; i++)
                if (!explicit_ || indexes[i].explicit_) {
                    cu_buf_printf(&c, " %s", indexes[i].url);
                    if (explicit_)
                        break; /* one index-url */
                }
            cu_buf_printf(&c, "\n");
        }
        cu_buf_printf(&c, "constraint = %s\n", ref);
        if (st == CU_OK)
            st = put_hold(before, conf, c.data, changed, err);
    } else {
        cu_log_warn(_("%s is not cudaup's: it stays as it is, and pip is held in that environment through PIP_CONSTRAINT on activation alone"),
                    conf);
    }
    if (st == CU_OK) {
        json_t *o = json_object(), *pk = json_object();
        json_object_set_new(o, "file", json_string(file));
        json_object_set_new(o, "text", json_string(t.data));
        json_object_set_new(o, "pip_conf", own_conf ? json_string(conf) : json_null());
        json_object_set_new(o, "pip_conf_text", own_conf ? json_string(c.data) : json_null());
        json_object_set_new(o, "index_option", cu_json_str_or_null(option));
        for (size_t i = 0; i < held.n; i++) {
            const char *eq = strstr(held.v[i], "==");
            CU_AUTOFREE char *nm = cu_xstrndup(held.v[i], (size_t)(eq - held.v[i]));
            json_object_set_new(pk, nm, json_string(eq + 2));
        }
        json_object_set_new(o, "packages", pk);
        *rec = o;
    }
    cu_buf_fini(&c);
    cu_buf_fini(&t);
    cu_strv_fini(&rest);
    cu_strv_fini(&held);
    dists_fini(&d);
    return st;
}

/* ---- repair ------------------------------------------------------------------------------ */

/* Does the environment's activation still name the hold? */
static bool
activation_holds(const char *env, const char *tool)
{
    CU_AUTOFREE char *path = strcmp(tool, "venv") == 0 ? cu_path_join(env, "bin/activate")
                                                       : cu_path_join(env, "etc/conda/activate.d/cudaup.sh");
    CU_AUTOFREE char *text = read_or_null(path);
    return text && strstr(text, "_CUDAUP_HOLD=1");
}

/* Run ENV's pip with @args (NULL-terminated after the subcommand) and @pkgs; a failure is said naming @first. */
static enum cu_status
pip_env(struct cu_run_ctx *ctx, const char *env, const char *const *args, const struct cu_strv *pkgs,
        struct cu_error *err)
{
    CU_AUTOFREE char *py = cu_path_join(env, "bin/python");
    struct cu_strv argv;
    cu_strv_init(&argv);
    cu_strv_push(&argv, py);
    cu_strv_push(&argv, "-m");
    cu_strv_push(&argv, "pip");
    for (size_t i = 0; args[i]; i++)
        cu_strv_push(&argv, args[i]);
    cu_strv_push(&argv, "--disable-pip-version-check");
    for (size_t i = 0; i < pkgs->n; i++)
        cu_strv_push(&argv, pkgs->v[i]);
    struct cu_exec_result res;
    enum cu_status st = cu_pip_run(ctx, "pyenv", NULL, &argv, &res, err);
    if (st == CU_OK && res.exit_code != 0) {
        st = cu_error_set(err, CU_E_PROBLEMS, 0, _("pip could not bring back %s in %s: %s"), pkgs->v[0], env,
                          cu_exec_last_line(&res));
        cu_error_advise(err, _("Run `%s -m pip install %s` once its index can be reached, or `cudaup install` again."),
                        py, pkgs->v[0]);
    }
    cu_exec_result_fini(&res);
    cu_strv_fini(&argv);
    return st;
}

/*
 * A cuDNN wheel of another CUDA family than the held one (nvidia-cudnn-cu13 beside a held nvidia-cudnn-cu12, left by a
 * pip run without the hold): both write the same files under nvidia/cudnn (measured for issue 47: 28 files), so the
 * framework loads whichever came last. It goes, and the held one is installed again over the files it shared.
 */
static void
stray_cudnn(const char *env, const struct dists *d, json_t *pk, struct cu_strv *stray, struct cu_strv *again)
{
    const char *name;
    json_t *v;
    json_object_foreach (pk, name, v) {
        if (strncmp(name, "nvidia-cudnn-cu", 15) != 0 || !json_is_string(v))
            continue;
        for (size_t i = 0; i < d->n; i++)
            if (strncmp(d->v[i].name, "nvidia-cudnn-cu", 15) == 0 && !json_object_get(pk, d->v[i].name)) {
                cu_strv_push(stray, d->v[i].name);
                cu_log_warn(_("%s %s in %s is not the held %s and writes the same files: pip removes it"),
                            d->v[i].name, d->v[i].version, env, name);
            }
        if (stray->n)
            cu_strv_push_owned(again, cu_xasprintf("%s==%s", name, json_string_value(v)));
        return;
    }
}

/* Bring back the held packages pip has moved since (or removed), with pip held by the restored files. */
static enum cu_status
repair_packages(struct cu_run_ctx *ctx, const char *env, json_t *pk, bool *changed, struct cu_error *err)
{
    struct dists d;
    dists_read(env, &d);
    struct cu_strv want, stray, again;
    cu_strv_init(&want);
    cu_strv_init(&stray);
    cu_strv_init(&again);
    stray_cudnn(env, &d, pk, &stray, &again);
    const char *name;
    json_t *v;
    json_object_foreach (pk, name, v) {
        const struct dist *x = dist_find(&d, name);
        if (json_is_string(v) && (!x || strcmp(x->version, json_string_value(v)) != 0)) {
            cu_strv_push_owned(&want, cu_xasprintf("%s==%s", name, json_string_value(v)));
            cu_log_warn(_("%s in %s is %s, not the %s it is held at: pip puts it back"), name, env,
                        x ? x->version : _("missing"), json_string_value(v));
        }
    }
    dists_fini(&d);
    enum cu_status st = CU_OK;
    static const char *const uninstall[] = {"uninstall", "--yes", NULL};
    static const char *const install[] = {"install", NULL};
    static const char *const reinstall[] = {"install", "--force-reinstall", "--no-deps", NULL};
    if (stray.n && (st = pip_env(ctx, env, uninstall, &stray, err)) == CU_OK &&
        (st = pip_env(ctx, env, reinstall, &again, err)) == CU_OK)
        *changed = true;
    if (st == CU_OK && want.n && (st = pip_env(ctx, env, install, &want, err)) == CU_OK)
        *changed = true;
    cu_strv_fini(&want);
    cu_strv_fini(&stray);
    cu_strv_fini(&again);
    return st;
}

static enum cu_status repair_held(const char *state_dir, const json_t *e, const char *env, const char *home,
                                  const char *tool, const char *file, const char *text, const char *conf,
                                  const char *conf_text, bool *changedp, struct cu_run_ctx *ctx, struct cu_error *err);

/* @s with each @from replaced by @to, kept in @keep; NULL for NULL. */
static const char *
swap(const char *s, const char *from, const char *to, struct cu_strv *keep)
{
    if (!s)
        return NULL;
    struct cu_buf b;
    size_t fl = strlen(from);
    cu_buf_init(&b);
    for (const char *q = s; *q;)
        if (strncmp(q, from, fl) == 0) {
            cu_buf_puts(&b, to);
            q += fl;
        } else {
            cu_buf_putc(&b, *q++);
        }
    char *out = cu_buf_steal(&b);
    cu_strv_push_owned(keep, out);
    return out;
}

/* The hold of one environment record @e. */
static enum cu_status
repair_one(const char *state_dir, const json_t *e, struct cu_run_ctx *ctx, struct cu_error *err)
{
    const json_t *h = json_object_get(e, "hold");
    const char *rec_env = cu_json_str(e, "path"), *tool = cu_json_str(e, "tool");
    const char *file = cu_json_str(h, "file"), *text = cu_json_str(h, "text");
    const char *conf = cu_json_str(h, "pip_conf"), *conf_text = cu_json_str(h, "pip_conf_text");
    CU_AUTOFREE char *env = cu_venv_rec_here(e, "path");
    CU_AUTOFREE char *home_here = cu_venv_rec_here(e, "cuda_home");
    CU_AUTOFREE char *iroot = NULL;
    CU_AUTOFREE char *iseen = NULL;
    bool changed = false;
    enum cu_status st = CU_OK;
    if (!json_is_object(h) || !env || !tool || !file || !text || !cu_is_dir(env))
        return CU_OK; /* no hold recorded, or the environment is gone: nothing to hold */
    if (cu_venv_for_image(env, &iroot, &iseen)) {
        /* Relocated for the machine under --root: its Python and pip do not run here (installers/pyroot.h). */
        cu_log_warn(_("The pip hold of %s, the environment of the machine under %s, is repaired on that machine (`cudaup repair` there): its Python does not run here."),
                    env, iroot);
        return CU_OK;
    }
    struct cu_strv keep; /* on that machine, the recorded files name the venv as it is seen there */
    cu_strv_init(&keep);
    if (strcmp(env, rec_env) != 0) {
        file = swap(file, rec_env, env, &keep);
        text = swap(text, rec_env, env, &keep);
        conf = swap(conf, rec_env, env, &keep);
        conf_text = swap(conf_text, rec_env, env, &keep);
    }
    st = repair_held(state_dir, e, env, home_here, tool, file, text, conf, conf_text, &changed, ctx, err);
    cu_strv_fini(&keep);
    return st;
}

static enum cu_status
repair_held(const char *state_dir, const json_t *e, const char *env, const char *home, const char *tool,
            const char *file, const char *text, const char *conf, const char *conf_text, bool *changedp,
            struct cu_run_ctx *ctx, struct cu_error *err)
{
    bool changed = false;
    enum cu_status st = CU_OK;
    const json_t *h = json_object_get(e, "hold");
    /* A record is input: it names the environment's own two files, or nothing is written. */
    CU_AUTOFREE char *want_file = cu_env_hold_file(env);
    CU_AUTOFREE char *want_conf = cu_path_join(env, "pip.conf");
    if (strcmp(want_file, file) != 0 || (conf && strcmp(want_conf, conf) != 0))
        return cu_error_set(err, CU_E_INPUT, 0, _("%s/pyenv.json names a hold file outside its environment (%s)"), state_dir,
                            file);
    st = put(file, text, &changed, err);
    if (st == CU_OK && conf && conf_text) {
        CU_AUTOFREE char *have = read_or_null(conf);
        if (have && !conf_ours(have))
            cu_log_warn(_("%s is not cudaup's any more: it stays as it is, and pip is held there through PIP_CONSTRAINT on activation alone"),
                        conf);
        else
            st = put(conf, conf_text, &changed, err);
    }
    json_int_t what = json_integer_value(json_object_get(e, "activation"));
    if (!home && !(what & (CU_HOOK_ENV | CU_HOOK_TOOLKIT)))
        home = ""; /* --toolkit none: the hooks name no CUDA folder */
    if (st == CU_OK && (what & CU_HOOK_HOLD) && home && !activation_holds(env, tool)) {
        bool c2 = false;
        st = strcmp(tool, "venv") == 0 ? cu_venv_hook_install(env, state_dir, home, (unsigned)what, &c2, err)
                                       : cu_conda_hooks_install(env, state_dir, home, (unsigned)what, &c2, err);
        changed |= c2;
    }
    if (st == CU_OK)
        st = repair_packages(ctx, env, json_object_get(h, "packages"), &changed, err);
    if (changed || st != CU_OK)
        cu_run_result(ctx, "pyenv", "hold", st == CU_OK ? env : cu_error_text(err), st, changed);
    *changedp = changed;
    return st;
}

enum cu_status
cu_pyhold_repair(const char *state_dir, struct cu_run_ctx *ctx, struct cu_error *err)
{
    json_t *j = cu_pyenv_json_load(state_dir); /* NULL: none recorded (a record that does not read is verify's to name) */
    enum cu_status st = CU_OK;
    const json_t *e;
    for (size_t i = 0; st == CU_OK && (e = cu_pyenv_json_env(j, i)) != NULL; i++)
        st = repair_one(state_dir, e, ctx, err);
    json_decref(j);
    return st;
}
