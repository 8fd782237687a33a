/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/resolve/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/resolve/containers.h"
#include "core/resolve/driver.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"

struct cu_plan *
cu_plan_new(void)
{
    struct cu_plan *p = cu_xcalloc(1, sizeof(*p));
    cu_strv_init(&p->reasons);
    cu_strv_init(&p->reason_sources);
    cu_strv_init(&p->warnings);
    return p;
}

static void
framework_free(struct cu_plan_framework *f)
{
    if (!f)
        return;
    free(f->name);
    free(f->version);
    free(f->python);
    free(f->py_min);
    free(f->py_max);
    cu_strv_free(f->pip);
    cu_strv_free(f->constraints);
    free(f->constraints_file);
    free(f->index_url);
    if (f->index_userpwd)
        explicit_bzero(f->index_userpwd, strlen(f->index_userpwd));
    free(f->index_userpwd);
    free(f->cuda_tag);
    for (size_t i = 0; i < f->n_gpu_code; i++) {
        free(f->gpu_code[i].code);
        free(f->gpu_code[i].target);
    }
    free(f->gpu_code);
    free(f->code_confidence);
    free(f);
}

static void
download_fini(struct cu_plan_download *d)
{
    free(d->component);
    free(d->version);
    free(d->title);
    free(d->relative_path);
    free(d->runfile_layout);
    free(d->archive_layout);
    free(d->url);
}

void
cu_plan_python_free(struct cu_plan_python *py)
{
    if (!py)
        return;
    free(py->kind);
    free(py->version);
    free(py->build);
    free(py->path);
    free(py->exe);
    download_fini(&py->dl);
    free(py);
}

void
cu_plan_free(struct cu_plan *p)
{
    if (!p)
        return;
    free(p->platform);
    free(p->base_url);
    free(p->prefix);
    free(p->state_dir);
    free(p->cache_dir);
    free(p->cuda_path);
    free(p->cudnn_full);
    free(p->cudnn_variant);
    if (p->n_frameworks) {
        for (size_t i = 0; i < p->n_frameworks; i++)
            framework_free(p->frameworks[i]);
    } else {
        framework_free(p->framework);
    }
    free(p->frameworks);
    for (size_t i = 0; i < p->n_envs; i++)
        cu_plan_free(p->envs[i]);
    free(p->envs);
    cu_strv_free(p->components);
    for (size_t i = 0; i < p->n_downloads; i++)
        download_fini(&p->downloads[i]);
    free(p->downloads);
    cu_plan_python_free(p->python);
    for (size_t i = 0; i < p->n_steps; i++) {
        free(p->steps[i].installer);
        free(p->steps[i].action);
        free(p->steps[i].detail);
    }
    free(p->steps);
    free(p->env.scope);
    free(p->env.shell_rc);
    free(p->env.tool);
    free(p->env.name);
    free(p->env.path);
    free(p->env.root);
    free(p->env.profile_d);
    if (p->toolkit) {
        free(p->toolkit->kind);
        free(p->toolkit->reason);
        cu_strv_free(p->toolkit->wheels);
        free(p->toolkit->cudnn);
        free(p->toolkit->home);
        free(p->toolkit->why_system);
        free(p->toolkit);
    }
    if (p->hold) {
        free(p->hold->file);
        free(p->hold->pip_conf);
        cu_strv_free(p->hold->packages);
        free(p->hold->index_url);
        free(p->hold);
    }
    cu_strv_fini(&p->reasons);
    cu_strv_fini(&p->reason_sources);
    cu_strv_fini(&p->warnings);
    cu_drv_plan_free(p->driver);
    cu_ctr_plan_free(p->containers);
    free(p);
}

void
cu_plan_add_framework(struct cu_plan *p, struct cu_plan_framework *fw)
{
    if (p->framework && !p->n_frameworks) { /* set alone before: it becomes the first of the list */
        p->frameworks = cu_xcalloc(2, sizeof(*p->frameworks));
        p->frameworks[p->n_frameworks++] = p->framework;
    }
    p->frameworks = cu_xreallocarray(p->frameworks, p->n_frameworks + 2, sizeof(*p->frameworks));
    p->frameworks[p->n_frameworks++] = fw;
    p->frameworks[p->n_frameworks] = NULL;
    if (!p->framework)
        p->framework = fw;
}

struct cu_plan_framework *const *
cu_plan_frameworks(const struct cu_plan *p, size_t *n)
{
    if (p->n_frameworks) {
        *n = p->n_frameworks;
        return p->frameworks;
    }
    *n = p->framework ? 1 : 0;
    return p->framework ? (struct cu_plan_framework *const *)&p->framework : NULL;
}

bool
cu_plan_bundled(const struct cu_plan *p)
{
    size_t n;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &n);
    for (size_t i = 0; i < n; i++)
        if (!fw[i]->bundled_runtime)
            return false;
    return n > 0;
}

bool
cu_plan_system_toolkit(const struct cu_plan *p)
{
    return !p->toolkit || strcmp(p->toolkit->kind, "system") == 0;
}

char *
cu_plan_cuda_home(const struct cu_plan *p, const char *env_path)
{
    if (cu_plan_system_toolkit(p))
        return cu_path_join(p->prefix, "cuda");
    if (strcmp(p->toolkit->kind, "wheels") != 0 || !env_path || !p->framework || !p->toolkit->home)
        return NULL;
    if (p->toolkit->view)
        return cu_path_join(env_path, p->toolkit->home);
    return cu_xasprintf("%s/lib/python%s/site-packages/%s", env_path, p->framework->python, p->toolkit->home);
}

bool
cu_plan_needs_ld_library_path(const struct cu_plan *p)
{
    for (size_t e = 0; e <= p->n_envs; e++)
        if (!cu_plan_bundled(e ? p->envs[e - 1] : p))
            return true;
    return false;
}

char *
cu_plan_framework_names(const struct cu_plan *p, const char *sep)
{
    size_t n;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &n);
    if (!n)
        return NULL;
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < n; i++)
        cu_buf_printf(&b, "%s%s", i ? sep : "", fw[i]->name);
    return cu_buf_steal(&b);
}

void
cu_plan_add_step(struct cu_plan *p, const char *installer, const char *action, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *detail = cu_xvasprintf(fmt, ap);
    va_end(ap);
    p->steps = cu_xreallocarray(p->steps, p->n_steps + 1, sizeof(*p->steps));
    p->steps[p->n_steps++] = (struct cu_plan_step){cu_xstrdup(installer), cu_xstrdup(action), detail};
}

/* Push a reason, its English twin noted for the log (i18n.h), and its source. */
static void
push_reason(struct cu_plan *p, const char *source, const char *fmt, va_list ap)
{
    cu_i18n_push_noted(&p->reasons, fmt, ap);
    cu_strv_push(&p->reason_sources, source ? source : "");
}

void
cu_plan_reason(struct cu_plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push_reason(p, NULL, fmt, ap);
    va_end(ap);
}

void
cu_plan_reason_src(struct cu_plan *p, const char *source, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push_reason(p, source, fmt, ap);
    va_end(ap);
}

void
cu_plan_log_reasons(const struct cu_plan *p)
{
    for (size_t i = 0; i < p->reasons.n; i++) {
        const char *src = i < p->reason_sources.n ? p->reason_sources.v[i] : "";
        if (*src)
            cu_log_msg(CU_LOG_INFO, "plan", _("why: %s (source: %s)"), p->reasons.v[i], src);
        else
            cu_log_msg(CU_LOG_INFO, "plan", _("why: %s"), p->reasons.v[i]);
    }
}

void
cu_plan_warn(struct cu_plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = cu_xvasprintf(fmt, ap);
    va_end(ap);
    if (!cu_strv_contains(&p->warnings, s))
        cu_strv_push_owned(&p->warnings, s);
    else
        free(s);
}

char *
cu_plan_cuda_mm(const struct cu_plan *p, char *buf, size_t len)
{
    return cu_version_format(&p->cuda, 2, buf, len);
}

uint64_t
cu_download_size(const struct cu_plan_download *d, bool *known)
{
    *known = !d->size_unknown || d->size_seen;
    return !d->size_unknown ? d->size : d->size_seen;
}

uint64_t
cu_plan_download_total(const struct cu_plan *p, const bool *skip, size_t *n, size_t *unsized)
{
    bool py_dl = p->python && p->python->dl.url;
    uint64_t total = 0;
    *n = *unsized = 0;
    for (size_t i = 0; i < p->n_downloads + (py_dl ? 1 : 0); i++) {
        if (i < p->n_downloads && skip && skip[i])
            continue;
        bool known;
        uint64_t sz = cu_download_size(i < p->n_downloads ? &p->downloads[i] : &p->python->dl, &known);
        ++*n;
        *unsized += !known;
        total += known ? sz : 0;
    }
    return total;
}

char *
cu_plan_download_text(const struct cu_plan *p, const bool *skip)
{
    char b[32];
    size_t n, unsized;
    uint64_t total = cu_plan_download_total(p, skip, &n, &unsized);
    if (unsized && unsized == n)
        return cu_xasprintf(ngettext_("%zu download of unpublished size", "%zu downloads of unpublished size", n), n);
    if (unsized)
        return cu_xasprintf(ngettext_("%zu download, %s and %zu of unpublished size", "%zu downloads, %s and %zu of unpublished size", n),
                            n, cu_format_bytes(total, b, sizeof(b)), unsized);
    return cu_xasprintf(ngettext_("%zu download, %s", "%zu downloads, %s", n), n, cu_format_bytes(total, b, sizeof(b)));
}

char *
cu_format_bytes(uint64_t n, char *buf, size_t len)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1000.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
        v /= 1000.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)n);
    else
        snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

const char *
cu_framework_title(const char *name)
{
    return strcmp(name, "pytorch") == 0 ? "PyTorch" : strcmp(name, "jax") == 0 ? "JAX" : "TensorFlow";
}

char *
cu_framework_try_line(const struct cu_catalog_gpu_checks *checks, const char *name, const char *version)
{
    const struct cu_cat_gpu_check *g = checks ? cu_catalog_gpu_check(checks, name, version) : NULL;
    return g ? cu_xasprintf("python -c '%s'", g->python) : NULL;
}

char **
cu_plan_try_lines(const struct cu_plan *q, const struct cu_catalog_gpu_checks *checks)
{
    struct cu_strv v;
    size_t n;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(q, &n);
    cu_strv_init(&v);
    for (size_t i = 0; i < n; i++) {
        char *try = cu_framework_try_line(checks, fw[i]->name, fw[i]->version);
        if (try)
            cu_strv_push_owned(&v, try);
    }
    return v.v ? v.v : cu_xcalloc(1, sizeof(char *));
}

char *
cu_plan_hold_line(const struct cu_plan *p)
{
    if (!p->hold || !p->framework)
        return NULL;
    struct cu_buf b;
    cu_buf_init(&b);
    for (char **q = p->hold->packages; q && *q; q++)
        cu_buf_printf(&b, "%s%s", q == p->hold->packages ? "" : q[1] ? _(", ") : _(" and "), *q);
    CU_AUTOFREE char *file = p->hold->file ? cu_xstrdup(p->hold->file)
                                           : cu_xasprintf(_("cudaup-constraints.txt in %s's folder"), p->env.name);
    char *s = cu_xasprintf(_("pip in %s stays on the build installed for this machine's GPUs: %s holds %s and their CUDA wheels at the releases installed, and the environment's pip.conf and PIP_CONSTRAINT (on activation) name it. `cudaup install --framework %s==VERSION` plans another build and moves the hold; to lift it by hand, empty that file (`cudaup repair` puts it back)."),
                           p->env.name ? p->env.name : "?", file, b.data ? b.data : "", p->framework->name);
    cu_buf_fini(&b);
    return s;
}

char *
cu_plan_activate_cmd(const struct cu_plan *p)
{
    if (!p->framework || !p->env.tool || strcmp(p->env.tool, "none") == 0)
        return NULL;
    if (strcmp(p->env.tool, "venv") == 0)
        return cu_xasprintf(". %s/bin/activate", p->env.path ? p->env.path : "");
    return cu_xasprintf("%s activate %s", strcmp(p->env.tool, "micromamba") == 0 ? "micromamba" : "conda", p->env.name);
}

const char *
cu_framework_name(enum cu_framework fw)
{
    switch (fw) {
    case CU_FW_TENSORFLOW: return "tensorflow";
    case CU_FW_PYTORCH: return "pytorch";
    case CU_FW_JAX: return "jax";
    case CU_FW_NONE:
    default: return "none";
    }
}

/* The environment's "hold" (issue 45): {file, pip_conf, packages[], index_url}, or null. */
static json_t *
hold_json(const struct cu_plan *p)
{
    if (!p->hold)
        return json_null();
    json_t *o = json_object(), *a = json_array();
    json_object_set_new(o, "file", cu_json_str_or_null(p->hold->file));
    json_object_set_new(o, "pip_conf", cu_json_str_or_null(p->hold->pip_conf));
    for (char **q = p->hold->packages; q && *q; q++)
        json_array_append_new(a, json_string(*q));
    json_object_set_new(o, "packages", a);
    json_object_set_new(o, "index_url", cu_json_str_or_null(p->hold->index_url));
    return o;
}

static json_t *
jver(const struct cu_version *v)
{
    char buf[64];
    return v->n ? json_string(cu_version_format(v, 0, buf, sizeof(buf))) : json_null();
}

/*
 * The plan's "toolkit" (issue 50): {kind, reason, asked, bytes{system, wheels, none}, release, wheels[], home}.
 * The bytes are what cudaup itself downloads for each choice (NVIDIA's archives, the Python it brings): what pip
 * downloads (the frameworks, and the compiler wheels of "wheels") is not known before pip runs, and is the same
 * for the three but for those compiler wheels (bytes_pip_not_counted).
 */
static json_t *
toolkit_json(const struct cu_plan *p)
{
    const struct cu_plan_toolkit *t = p->toolkit;
    if (!t)
        return json_null();
    json_t *o = json_object(), *b = json_object(), *w = json_array();
    bool known = false;
    uint64_t py = p->python && p->python->dl.url ? cu_download_size(&p->python->dl, &known) : 0;
    json_object_set_new(o, "kind", json_string(t->kind));
    json_object_set_new(o, "reason", cu_json_str_or_null(t->reason));
    json_object_set_new(o, "asked", json_boolean(t->asked));
    json_object_set_new(b, "system", t->archive_unsized ? json_null() : json_integer((json_int_t)(t->archive_bytes + py)));
    json_object_set_new(b, "wheels", json_integer((json_int_t)py));
    json_object_set_new(b, "none", json_integer((json_int_t)py));
    json_object_set_new(o, "bytes", b);
    json_object_set_new(o, "archives", json_integer((json_int_t)t->n_archives));
    json_object_set_new(o, "bytes_pip_not_counted", json_true());
    json_object_set_new(o, "release", jver(&t->release));
    for (char **q = t->wheels; q && *q; q++)
        json_array_append_new(w, json_string(*q));
    json_object_set_new(o, "wheels", w);
    json_object_set_new(o, "home", cu_json_str_or_null(t->home));
    json_object_set_new(o, "view", json_boolean(t->view));
    json_object_set_new(o, "cudnn", cu_json_str_or_null(t->cudnn));
    return o;
}

static json_t *
jstrv_(const struct cu_strv *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(a, json_string(v->v[i]));
    return a;
}

static json_t *
framework_json(const struct cu_plan_framework *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(f->name));
    json_object_set_new(o, "version", cu_json_str_or_null(f->version));
    json_object_set_new(o, "python", cu_json_str_or_null(f->python));
    json_t *pip = json_array();
    for (char **r = f->pip; r && *r; r++)
        json_array_append_new(pip, json_string(*r));
    json_object_set_new(o, "pip", pip);
    json_t *cons = json_array();
    for (char **r = f->constraints; r && *r; r++)
        json_array_append_new(cons, json_string(*r));
    json_object_set_new(o, "constraints", cons);
    json_object_set_new(o, "constraints_file", cu_json_str_or_null(f->constraints_file));
    json_object_set_new(o, "index_url", cu_json_str_or_null(f->index_url));
    json_object_set_new(o, "cuda_build", cu_json_str_or_null(f->cuda_tag));
    json_object_set_new(o, "bundled_runtime", json_boolean(f->bundled_runtime));
    json_t *gc = json_array();
    for (size_t i = 0; i < f->n_gpu_code; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "gpu", json_integer(f->gpu_code[i].gpu));
        json_object_set_new(e, "code", json_string(f->gpu_code[i].code));
        json_object_set_new(e, "target", cu_json_str_or_null(f->gpu_code[i].target));
        json_array_append_new(gc, e);
    }
    json_object_set_new(o, "gpu_code", gc);
    json_object_set_new(o, "code_confidence", cu_json_str_or_null(f->code_confidence));
    json_object_set_new(o, "inferred", json_boolean(f->code_confidence && strcmp(f->code_confidence, "inferred") == 0));
    return o;
}

json_t *
cu_plan_to_json(const struct cu_plan *p)
{
    json_t *doc = json_object();
    char buf[64];

    json_t *cuda = json_object();
    json_object_set_new(cuda, "version", jver(&p->cuda));
    json_object_set_new(cuda, "path", cu_json_str_or_null(p->cuda_path));
    json_object_set_new(cuda, "driver_min", p->cuda_driver.n
                                                ? json_string(cu_driver_version_format(&p->cuda_driver, buf, sizeof(buf)))
                                                : json_null());
    json_t *comps = json_array();
    for (char **c = p->components; c && *c; c++)
        json_array_append_new(comps, json_string(*c));
    json_object_set_new(cuda, "components", comps);
    json_object_set_new(cuda, "inferred", json_boolean(p->cuda_inferred));
    json_object_set_new(doc, "cuda", cuda);

    if (p->has_cudnn) {
        json_t *c = json_object();
        json_object_set_new(c, "version", jver(&p->cudnn));
        json_object_set_new(c, "full_version", cu_json_str_or_null(p->cudnn_full));
        json_object_set_new(c, "cuda_variant", cu_json_str_or_null(p->cudnn_variant));
        json_object_set_new(doc, "cudnn", c);
    } else {
        json_object_set_new(doc, "cudnn", json_null());
    }

    json_object_set_new(doc, "framework", p->framework ? framework_json(p->framework) : json_null());
    /* Every framework of the environment, the first as "framework" (DESIGN: frameworks[]). */
    json_t *fws = json_array();
    size_t nfw;
    struct cu_plan_framework *const *fwv = cu_plan_frameworks(p, &nfw);
    for (size_t i = 0; i < nfw; i++)
        json_array_append_new(fws, framework_json(fwv[i]));
    json_object_set_new(doc, "frameworks", fws);

    json_t *dl = json_array();
    for (size_t i = 0; i < p->n_downloads; i++) {
        const struct cu_plan_download *d = &p->downloads[i];
        json_t *o = json_object();
        json_object_set_new(o, "component", json_string(d->component));
        json_object_set_new(o, "version", cu_json_str_or_null(d->version));
        json_object_set_new(o, "url", json_string(d->url));
        json_object_set_new(o, "sha256", json_string(d->sha256));
        /* NVIDIA publishes no size for a runfile or a cuDNN .tgz: null, as for python-build-standalone */
        json_object_set_new(o, "size", d->size_unknown ? json_null() : json_integer((json_int_t)d->size));
        if (d->size_unknown && d->size_seen) /* no source publishes it; the mirror reported this */
            json_object_set_new(o, "size_seen", json_integer((json_int_t)d->size_seen));
        if (p->offline) /* planned offline: whether the cache holds it (issue 44) */
            json_object_set_new(o, "cached", json_boolean(!d->not_cached));
        if (d->unpacked) /* read from the archive's own xz index (issue 49 item 3) */
            json_object_set_new(o, "unpacked", json_integer((json_int_t)d->unpacked));
        json_array_append_new(dl, o);
    }
    if (p->python && p->python->dl.url) {
        const struct cu_plan_download *d = &p->python->dl;
        json_t *o = json_object();
        json_object_set_new(o, "component", json_string(d->component));
        json_object_set_new(o, "version", cu_json_str_or_null(d->version));
        json_object_set_new(o, "url", json_string(d->url));
        json_object_set_new(o, "sha256", json_string(d->sha256));
        /* uv's table gives no size; cudaup's own rows (data/python) may */
        json_object_set_new(o, "size", d->size_unknown ? json_null() : json_integer((json_int_t)d->size));
        if (d->size_unknown && d->size_seen) /* no source publishes it; the mirror reported this */
            json_object_set_new(o, "size_seen", json_integer((json_int_t)d->size_seen));
        if (p->offline)
            json_object_set_new(o, "cached", json_boolean(!d->not_cached));
        json_array_append_new(dl, o);
    }
    json_object_set_new(doc, "downloads", dl);
    if (p->python) {
        json_t *o = json_object();
        json_object_set_new(o, "kind", json_string(p->python->kind));
        json_object_set_new(o, "version", cu_json_str_or_null(p->python->version));
        json_object_set_new(o, "url", cu_json_str_or_null(p->python->dl.url));
        json_object_set_new(o, "sha256", p->python->dl.url ? json_string(p->python->dl.sha256) : json_null());
        json_object_set_new(o, "path", cu_json_str_or_null(p->python->path));
        json_object_set_new(o, "build", cu_json_str_or_null(p->python->build));
        json_object_set_new(doc, "python_source", o);
    } else {
        json_object_set_new(doc, "python_source", json_null());
    }
    json_object_set_new(doc, "download_bytes", json_integer((json_int_t)p->download_bytes));
    json_object_set_new(doc, "toolkit", toolkit_json(p));

    json_t *steps = json_array();
    for (size_t i = 0; i < p->n_steps; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "installer", json_string(p->steps[i].installer));
        json_object_set_new(o, "action", json_string(p->steps[i].action));
        json_object_set_new(o, "detail", json_string(p->steps[i].detail));
        json_array_append_new(steps, o);
    }
    json_object_set_new(doc, "steps", steps);
    json_object_set_new(doc, "reasons", jstrv_(&p->reasons));
    /* Where the data behind a reason comes from: the row of the data file and its citation. */
    json_t *prov = json_array();
    for (size_t i = 0; i < p->reasons.n && i < p->reason_sources.n; i++) {
        if (!*p->reason_sources.v[i])
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "reason", json_string(p->reasons.v[i]));
        json_object_set_new(o, "source", json_string(p->reason_sources.v[i]));
        json_array_append_new(prov, o);
    }
    json_object_set_new(doc, "provenance", prov);
    json_object_set_new(doc, "warnings", jstrv_(&p->warnings));
    json_object_set_new(doc, "offline", json_boolean(p->offline));
    if (p->driver)
        json_object_set_new(doc, "driver", cu_drv_plan_json(p->driver));
    json_object_set_new(doc, "containers", p->containers ? cu_ctr_plan_json(p->containers) : json_null());
    json_object_set_new(doc, "container", json_boolean(p->container));
    json_object_set_new(doc, "platform", cu_json_str_or_null(p->platform));
    json_object_set_new(doc, "mirror", cu_json_str_or_null(p->base_url));
    json_object_set_new(doc, "prefix", cu_json_str_or_null(p->prefix));
    json_object_set_new(doc, "state_dir", cu_json_str_or_null(p->state_dir));
    json_object_set_new(doc, "cache_dir", cu_json_str_or_null(p->cache_dir));
    json_t *env = json_object();
    json_object_set_new(env, "scope", cu_json_str_or_null(p->env.scope));
    json_object_set_new(env, "shell_rc", cu_json_str_or_null(p->env.shell_rc));
    json_object_set_new(env, "tool", cu_json_str_or_null(p->env.tool));
    json_object_set_new(env, "name", cu_json_str_or_null(p->env.name));
    json_object_set_new(env, "path", cu_json_str_or_null(p->env.path));
    json_object_set_new(env, "hold", hold_json(p));
    json_object_set_new(doc, "environment", env);
    /* Every Python environment of the plan (one per --framework given), the first as "environment". */
    json_t *envs = json_array();
    for (size_t i = 0; i <= p->n_envs; i++) {
        const struct cu_plan *q = i ? p->envs[i - 1] : p;
        size_t n;
        struct cu_plan_framework *const *fv = cu_plan_frameworks(q, &n);
        if (!n)
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "name", cu_json_str_or_null(q->env.name));
        json_object_set_new(o, "tool", cu_json_str_or_null(q->env.tool));
        json_object_set_new(o, "path", cu_json_str_or_null(q->env.path));
        json_object_set_new(o, "python", cu_json_str_or_null(fv[0]->python));
        json_object_set_new(o, "hold", hold_json(q));
        json_t *a = json_array();
        for (size_t k = 0; k < n; k++)
            json_array_append_new(a, framework_json(fv[k]));
        json_object_set_new(o, "frameworks", a);
        json_array_append_new(envs, o);
    }
    json_object_set_new(doc, "environments", envs);
    return doc;
}
