/* SPDX-License-Identifier: MIT */
/*
 * What a package index or a mirror taught, in the catalog's own shapes: the entries scripts/gen-catalog writes
 * for a release it has read, made here from what core/fetch/learn.c read the day the release shipped, each fact
 * that was not read marked inferred and saying from what.  The catalog is read again from its source text with
 * them added (cu_catalog_from_json), so that every check the embedded catalog passes, they pass too.
 */
#include "config.h"

#include "core/catalog/catalog_learned.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/pipreq.h"
#include "core/base/pipspec.h"
#include "core/base/str.h"
#include "core/catalog/catalog.h"

/* ---- the facts -------------------------------------------------------------------------------- */

void
cu_learned_init(struct cu_learned *l)
{
    memset(l, 0, sizeof(*l));
}

static void
wheel_fini(struct cu_learn_wheel *w)
{
    free(w->project);
    free(w->version);
    free(w->file);
    free(w->how);
    cu_strv_free(w->requires);
    free(w->requires_python);
}

void
cu_learned_fini(struct cu_learned *l)
{
    for (size_t i = 0; i < l->n_rel; i++) {
        struct cu_learn_release *r = &l->rel[i];
        free(r->framework);
        free(r->version);
        wheel_fini(&r->main);
        for (size_t k = 0; k < r->n_deps; k++)
            wheel_fini(&r->deps[k]);
        free(r->deps);
    }
    free(l->rel);
    free(l->index);
    free(l->day);
    cu_strv_free(l->cuda);
    cu_strv_free(l->cudnn);
    memset(l, 0, sizeof(*l));
}

struct cu_learn_release *
cu_learned_add(struct cu_learned *l)
{
    l->rel = cu_xreallocarray(l->rel, l->n_rel + 1, sizeof(*l->rel));
    memset(&l->rel[l->n_rel], 0, sizeof(*l->rel));
    return &l->rel[l->n_rel++];
}

struct cu_learn_wheel *
cu_learn_release_dep(struct cu_learn_release *r)
{
    r->deps = cu_xreallocarray(r->deps, r->n_deps + 1, sizeof(*r->deps));
    memset(&r->deps[r->n_deps], 0, sizeof(*r->deps));
    return &r->deps[r->n_deps++];
}

/* ---- from the facts to the catalog's shapes ------------------------------------------------- */

struct lc {
    json_t *root;
    const struct cu_learned *l;
    struct cu_strv *notes;
};

static void
note(struct lc *c, const char *fmt, ...) CU_PRINTF(2, 3);

static void
note(struct lc *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (c->notes)
        cu_strv_push(c->notes, buf);
}

/* Compare two version strings of the catalog ("2.15", "2.16.0", "0.12.0.1"). */
static int
vcmp(const char *a, const char *b)
{
    struct cu_version va, vb;
    char pa[16], pb[16];
    if (!cu_pep440_parse(a, &va, pa) || !cu_pep440_parse(b, &vb, pb))
        return strcmp(a, b);
    int c = cu_version_cmp(&va, &vb);
    return c ? c : cu_pep440_cmp(a, b);
}

/* Insert @item into the newest-first list @a, keyed by its string @key. */
static void
insert_newest_first(json_t *a, json_t *item, const char *key)
{
    const char *v = cu_json_str(item, key);
    size_t i = 0;
    for (; i < json_array_size(a); i++) {
        const char *w = cu_json_str(json_array_get(a, i), key);
        if (w && vcmp(v, w) > 0)
            break;
    }
    json_array_insert_new(a, i, item);
}

static void
insert_version(json_t *a, const char *v)
{
    size_t i = 0;
    for (; i < json_array_size(a); i++) {
        const char *w = json_string_value(json_array_get(a, i));
        if (w && strcmp(w, v) == 0)
            return;
        if (w && vcmp(v, w) > 0)
            break;
    }
    json_array_insert_new(a, i, json_string(v));
}

static const struct cu_learn_wheel *
dep(const struct cu_learn_release *r, const char *project, const char *version)
{
    for (size_t i = 0; i < r->n_deps; i++)
        if (strcmp(r->deps[i].project, project) == 0 && cu_pep440_cmp(r->deps[i].version, version) == 0)
            return &r->deps[i];
    return NULL;
}

/* The one release a specifier names: "==13.2.2", "<=0.12.2,>=0.12.2"; false for a range. */
static bool
pinned(const char *spec, char *out, size_t len)
{
    struct cu_pipspec ps;
    struct cu_version v;
    bool prefix = false;
    const struct cu_pipspec *one = &ps;
    if (!cu_pipspec_parse(spec, &ps))
        return false;
    if (cu_pipspec_pinned(&one, 1, &v, &prefix) && !prefix) {
        cu_version_format(&v, 0, out, len);
        return true;
    }
    /* ">=X,<=X" */
    struct cu_version lo = {{0}, 0}, hi = {{0}, 0};
    for (size_t i = 0; i < ps.n; i++) {
        if (ps.c[i].op == CU_PS_GE)
            lo = ps.c[i].v;
        else if (ps.c[i].op == CU_PS_LE)
            hi = ps.c[i].v;
    }
    if (lo.n && hi.n && cu_pipver_cmp(&lo, &hi) == 0) {
        cu_version_format(&lo, 0, out, len);
        return true;
    }
    return false;
}

/* The lower bound (or the release pinned) of a specifier: "==13.2.86.*" -> 13.2.86, ">=9.3.0.75,<10.0" -> 9.3.0.75. */
static bool
floor_of(const char *spec, struct cu_version *out, bool *exact)
{
    struct cu_pipspec ps;
    *exact = false;
    return cu_pipspec_parse(spec, &ps) && cu_pipspec_floor(&ps, out, exact);
}

static bool
upper_of(const char *spec, struct cu_version *out)
{
    struct cu_pipspec ps;
    return cu_pipspec_parse(spec, &ps) && cu_pipspec_below(&ps, out);
}

/* What one wheel asks pip for, flattened as pip sees it on Linux x86_64. */
struct pins {
    json_t *req;           /* [[package, specifier], ...] of the nvidia-* distributions */
    struct cu_version cuda; /* the CUDA runtime's release pinned or asked for at least (n == 0: none) */
    int major;             /* its CUDA major (from a -cuNN name or the runtime) */
    char cudnn[48];        /* the cuDNN wheel's specifier ("==9.26.0.51", "<10.0,>=9.12.0.46"), or "" */
    char cudnn_pkg[48];
    char plugin[48], plugin_version[32]; /* jax[cudaNN]: the plugin it pins, or "" */
    struct cu_strv sources; /* the wheels read */
    bool bad;              /* a requirement or marker cudaup does not understand */
};

static void
pins_init(struct pins *p)
{
    memset(p, 0, sizeof(*p));
    p->req = json_array();
    cu_strv_init(&p->sources);
}

static void
pins_fini(struct pins *p)
{
    json_decref(p->req);
    cu_strv_fini(&p->sources);
}

static char *
source_of(const struct lc *c, const struct cu_learn_wheel *w)
{
    return cu_xasprintf("Requires-Dist of %s (%s, %s), read %s", w->file, c->l->index ? c->l->index : "?", w->how,
                        c->l->day ? c->l->day : "?");
}

/* Take the nvidia-* requirements of @w that hold with @extra; follow cuda-toolkit[...]==X (PyTorch) into @r's deps. */
static void
collect(struct lc *c, const struct cu_learn_release *r, const struct cu_learn_wheel *w, const char *extra,
        struct pins *p)
{
    cu_strv_push_owned(&p->sources, source_of(c, w));
    for (size_t i = 0; w->requires && w->requires[i]; i++) {
        struct cu_pipreq q;
        if (!cu_pipreq_parse(w->requires[i], &q))
            continue;
        int m = cu_marker_eval(q.marker, "x86_64", extra, NULL);
        if (m < 0) {
            note(c, _("%s: cudaup does not understand the marker of \"%s\"; that requirement is left out."), w->file,
                 w->requires[i]);
            p->bad = true;
        }
        if (m == 1 && strcmp(q.name, "cuda-toolkit") == 0 && *q.extras) {
            char tk[32];
            const struct cu_learn_wheel *d = pinned(q.spec, tk, sizeof(tk)) ? dep(r, "cuda-toolkit", tk) : NULL;
            if (!d) {
                note(c, _("%s asks for cuda-toolkit[%s]%s, whose requirements were not read."), w->file, q.extras, q.spec);
                p->bad = true;
            } else {
                struct cu_strv ex;
                cu_strv_init(&ex);
                cu_strv_split(&ex, q.extras, ",");
                for (size_t k = 0; k < ex.n; k++)
                    collect(c, r, d, ex.v[k], p);
                cu_strv_fini(&ex);
            }
        } else if (m == 1 && cu_str_has_prefix(q.name, "jax-cuda") && cu_str_has_suffix(q.name, "-plugin") &&
                   strstr(q.extras, "with-cuda")) {
            snprintf(p->plugin, sizeof(p->plugin), "%s", q.name);
            if (!pinned(q.spec, p->plugin_version, sizeof(p->plugin_version)))
                p->plugin_version[0] = '\0';
        } else if (m == 1 && cu_str_has_prefix(q.name, "nvidia-")) {
            json_array_append_new(p->req, json_pack("[s,s]", q.name, q.spec));
            unsigned nn = 0;
            char tail;
            if (sscanf(q.name, "nvidia-%*[a-z]-cu%u%c", &nn, &tail) == 1 ||
                sscanf(q.name, "nvidia-%*[a-z]-%*[a-z]-cu%u%c", &nn, &tail) == 1)
                p->major = p->major ? p->major : (int)nn;
            if (cu_str_has_prefix(q.name, "nvidia-cuda-runtime")) {
                bool exact;
                struct cu_version v;
                if (floor_of(q.spec, &v, &exact) && v.n >= 2 && !p->cuda.n) {
                    p->cuda = (struct cu_version){{v.part[0], v.part[1]}, 2};
                    if (!p->major)
                        p->major = (int)v.part[0];
                }
            }
            if (cu_str_has_prefix(q.name, "nvidia-cudnn") && !p->cudnn[0]) {
                snprintf(p->cudnn, sizeof(p->cudnn), "%s", q.spec);
                snprintf(p->cudnn_pkg, sizeof(p->cudnn_pkg), "%s", q.name);
            }
        }
        cu_pipreq_fini(&q);
    }
}

static json_t *
py_pair(unsigned lo, unsigned hi)
{
    char a[16], b[16];
    snprintf(a, sizeof(a), "3.%u", lo);
    snprintf(b, sizeof(b), "3.%u", hi);
    return json_pack("[s,s]", a, b);
}

static json_t *
code_list(json_t *root, const char *fw)
{
    return json_object_get(json_object_get(root, "gpu_code"), fw);
}

static void
learned_entry(struct lc *c, const struct cu_learn_release *r, const char *tag, const char *from, const char *why)
{
    json_t *a = json_object_get(c->root, "learned");
    if (!json_is_array(a)) {
        a = json_array();
        json_object_set_new(c->root, "learned", a);
    }
    json_t *o = json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:s?}", "framework", r->framework, "version", r->version,
                          "tag", tag, "inferred_from", from, "no_inference", why, "index", c->l->index, "read",
                          c->l->day);
    json_array_append_new(a, o);
}

/* A GPU-code row of @prev's arch lists, said to be inferred from @from. */
static json_t *
inferred_code(const json_t *prev, const char *what_from, const struct lc *c, const char *version)
{
    json_t *o = json_object();
    json_object_set(o, "sass", json_object_get(prev, "sass"));
    json_object_set(o, "ptx", json_object_get(prev, "ptx"));
    json_object_set_new(o, "confidence", json_string("inferred"));
    CU_AUTOFREE char *src = cu_xasprintf("inferred from %s, not read: %s was learned from %s on %s", what_from,
                                         version, c->l->index ? c->l->index : "?", c->l->day ? c->l->day : "?");
    json_object_set_new(o, "source", json_string(src));
    return o;
}

static void
add_wheel_row(struct lc *c, const char *fw, const char *version, const char *extra, const char *pip, int major,
              const char *build_cuda, const char *tag, const struct pins *p)
{
    json_t *a = json_object_get(c->root, "framework_wheels");
    if (!json_is_array(a))
        return;
    CU_AUTOFREE char *src = cu_strv_join(&p->sources, "; ");
    json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:i, s:s?, s:s?, s:O, s:s, s:b}", "framework", fw,
                                       "version", version, "extra", extra, "pip", pip, "cuda_major", major,
                                       "build_cuda", build_cuda, "tag", tag, "requires", p->req, "source", src, "read",
                                       !p->bad));
}

/* ---- PyTorch -------------------------------------------------------------------------------- */

static void
learn_torch(struct lc *c, const struct cu_learn_release *r, const struct cu_version *rel)
{
    char minor[32], cuda[32], tag[32], b[32];
    struct pins p;
    pins_init(&p);
    collect(c, r, &r->main, "", &p);
    cu_version_format(rel, 2, minor, sizeof(minor));
    if (!p.cuda.n) {
        note(c, _("PyTorch %s on %s: its wheel %s pins no CUDA runtime cudaup can read, so cudaup cannot plan it."),
             r->version, c->l->index, r->main.file);
        pins_fini(&p);
        return;
    }
    cu_version_format(&p.cuda, 2, cuda, sizeof(cuda));
    snprintf(tag, sizeof(tag), "cu%u%u", p.cuda.part[0], p.cuda.part[1]);
    bool exact = false;
    struct cu_version dnn = {{0}, 0};
    if (p.cudnn[0] && (!floor_of(p.cudnn, &dnn, &exact) || !exact))
        dnn.n = 0;
    /* The minor and its build: PyPI's, the one build the index shows. */
    json_t *minors = json_object_get(c->root, "pytorch");
    json_t *have = NULL;
    for (size_t i = 0; i < json_array_size(minors); i++)
        if (strcmp(cu_json_str(json_array_get(minors, i), "minor") ? cu_json_str(json_array_get(minors, i), "minor") : "",
                   minor) == 0)
            have = json_array_get(minors, i);
    if (!have) {
        if (!r->py_min) {
            note(c, _("PyTorch %s on %s has no wheel for CPython on Linux x86_64."), r->version, c->l->index);
            pins_fini(&p);
            return;
        }
        json_t *build = json_pack("{s:s, s:s?, s:s, s:b}", "cuda", cuda, "cudnn",
                                  dnn.n ? cu_version_format(&dnn, 0, b, sizeof(b)) : NULL, "tag", tag, "stable", 1);
        json_t *o = json_pack("{s:s, s:o, s:[o]}", "minor", minor, "python", py_pair(r->py_min, r->py_max), "builds",
                              build);
        insert_newest_first(minors, o, "minor");
    }
    insert_version(json_object_get(json_object_get(c->root, "pypi_releases"), "pytorch"), r->version);
    /* Its GPU code: the newest earlier release's build for the same CUDA, where there is one. */
    json_t *rows = code_list(c->root, "pytorch");
    const json_t *prev = NULL;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        const json_t *e = json_array_get(rows, i);
        const char *t = cu_json_str(e, "tag"), *v = cu_json_str(e, "torch");
        if (t && v && strcmp(t, tag) == 0 && vcmp(v, r->version) < 0 && (!prev || vcmp(v, cu_json_str(prev, "torch")) > 0))
            prev = e;
    }
    if (prev) {
        const char *pv = cu_json_str(prev, "torch");
        CU_AUTOFREE char *from = cu_xasprintf("PyTorch %s's %s build (the same CUDA)", pv, tag);
        json_t *o = inferred_code(prev, from, c, r->version);
        json_object_set_new(o, "torch", json_string(r->version));
        json_object_set_new(o, "exact", json_true());
        json_object_set_new(o, "tag", json_string(tag));
        json_array_insert_new(rows, 0, o);
        learned_entry(c, r, tag, pv, NULL);
    } else {
        CU_AUTOFREE char *why = cu_xasprintf(_("no earlier PyTorch release has a %s build (CUDA %s) whose GPU code cudaup knows"),
                                             tag, cuda);
        learned_entry(c, r, tag, NULL, why);
    }
    CU_AUTOFREE char *pip = cu_xasprintf("torch==%s", r->version);
    add_wheel_row(c, "pytorch", r->version, "", pip, p.major ? p.major : (int)p.cuda.part[0], cuda, tag, &p);
    pins_fini(&p);
}

/* ---- TensorFlow ------------------------------------------------------------------------------ */

static void
learn_tf(struct lc *c, const struct cu_learn_release *r, const struct cu_version *rel, const char *pre)
{
    char ver[32], cuda[32], dnn_s[32];
    struct pins p;
    pins_init(&p);
    collect(c, r, &r->main, "and-cuda", &p);
    cu_version_format(rel, 0, ver, sizeof(ver));
    bool exact;
    struct cu_version dnn = {{0}, 0};
    if (!p.cuda.n || !p.cudnn[0] || !floor_of(p.cudnn, &dnn, &exact) || dnn.n < 2 || !r->py_min) {
        note(c, _("TensorFlow %s on %s: its wheel %s names no CUDA and cuDNN for tensorflow[and-cuda] that cudaup can read, so cudaup cannot plan it."),
             r->version, c->l->index, r->main.file);
        pins_fini(&p);
        return;
    }
    cu_version_format(&p.cuda, 2, cuda, sizeof(cuda));
    cu_version_format(&dnn, 2, dnn_s, sizeof(dnn_s));
    json_t *list = json_object_get(c->root, "tensorflow");
    /* The newest earlier release built for the same CUDA X.Y lends its GPU code and its limits. */
    const json_t *same = NULL;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i);
        const char *v = cu_json_str(e, "version"), *cu = cu_json_str(e, "cuda");
        if (v && cu && strcmp(cu, cuda) == 0 && vcmp(v, ver) < 0 && (!same || vcmp(v, cu_json_str(same, "version")) > 0))
            same = e;
    }
    json_t *o = json_pack("{s:s, s:s, s:o, s:s, s:s, s:[s]}", "version", ver, "package", "tensorflow", "python",
                          py_pair(r->py_min, r->py_max), "cuda", cuda, "cudnn", dnn_s, "patches", ver);
    if (same && json_object_get(same, "cuda_max")) {
        json_object_set(o, "cuda_max", json_object_get(same, "cuda_max"));
        CU_AUTOFREE char *why = cu_xasprintf("inferred from TensorFlow %s (the same CUDA): %s", cu_json_str(same, "version"),
                                             cu_json_str(same, "cuda_max_why") ? cu_json_str(same, "cuda_max_why") : "");
        json_object_set_new(o, "cuda_max_why", json_string(why));
    }
    insert_newest_first(list, o, "version");
    json_t *rows = code_list(c->root, "tensorflow");
    const json_t *prev = NULL;
    const char *pv = same ? cu_json_str(same, "version") : NULL;
    for (size_t i = 0; pv && i < json_array_size(rows); i++) {
        const json_t *e = json_array_get(rows, i);
        const char *f = cu_json_str(e, "from"), *t = cu_json_str(e, "to");
        if (f && t && vcmp(f, pv) <= 0 && vcmp(pv, t) <= 0)
            prev = e;
    }
    if (prev) {
        CU_AUTOFREE char *from = cu_xasprintf("TensorFlow %s's build (the same CUDA %s)", pv, cuda);
        json_t *row = inferred_code(prev, from, c, r->version);
        json_object_set_new(row, "from", json_string(ver));
        json_object_set_new(row, "to", json_string(ver));
        json_array_insert_new(rows, 0, row);
        learned_entry(c, r, "and-cuda", pv, NULL);
    } else {
        CU_AUTOFREE char *why = cu_xasprintf(_("no earlier TensorFlow release built for CUDA %s has GPU code cudaup knows"), cuda);
        learned_entry(c, r, "and-cuda", NULL, why);
    }
    (void)pre;
    CU_AUTOFREE char *pip = cu_xasprintf("tensorflow[and-cuda]==%s", r->version);
    add_wheel_row(c, "tensorflow", ver, "and-cuda", pip, p.major ? p.major : (int)p.cuda.part[0], NULL, NULL, &p);
    pins_fini(&p);
}

/* ---- JAX -------------------------------------------------------------------------------------- */

static void
learn_jax(struct lc *c, const struct cu_learn_release *r)
{
    const json_t *plugins = json_object_get(json_object_get(c->root, "jax"), "plugins");
    bool any = false;
    for (size_t i = 0; i < json_array_size(plugins); i++) {
        const char *extra = cu_json_str(json_array_get(plugins, i), "extra");
        const char *maj_s = cu_json_str(json_array_get(plugins, i), "cuda_major");
        uint64_t major;
        if (!extra || !maj_s || !cu_parse_u64(maj_s, 1000, &major))
            continue;
        struct pins p;
        pins_init(&p);
        collect(c, r, &r->main, extra, &p);
        const struct cu_learn_wheel *pw = p.plugin[0] && p.plugin_version[0] ? dep(r, p.plugin, p.plugin_version) : NULL;
        if (!pw) {
            if (p.plugin[0])
                note(c, _("JAX %s on %s: jax[%s] pins %s %s, whose requirements were not read."), r->version,
                     c->l->index, extra, p.plugin, p.plugin_version);
            pins_fini(&p);
            continue;
        }
        collect(c, r, pw, "with-cuda", &p);
        if (!p.cudnn[0]) {
            note(c, _("JAX %s on %s: %s %s pins no cuDNN wheel, so cudaup cannot plan jax[%s]."), r->version,
                 c->l->index, p.plugin, p.plugin_version, extra);
            pins_fini(&p);
            continue;
        }
        any = true;
        /* The cuDNN range pip fills: the plugin's own requirement, read. */
        struct cu_version lo, hi = {{0}, 0};
        bool exact;
        char b1[32], b2[32];
        if (floor_of(p.cudnn, &lo, &exact)) {
            (void)upper_of(p.cudnn, &hi);
            CU_AUTOFREE char *wheel = cu_xasprintf("%s[with-cuda]", p.plugin);
            CU_AUTOFREE char *src = cu_xasprintf("Requires-Dist of %s (%s, %s), read %s", pw->file, c->l->index, pw->how,
                                                 c->l->day);
            json_t *row = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s?, s:b, s:s, s:s}", "cuda_major",
                                    (int)major, "framework", "jax", "from", r->version, "to", r->version, "library",
                                    "cudnn", "package", p.cudnn_pkg, "min", cu_version_format(&lo, 0, b1, sizeof(b1)),
                                    "max_exclusive", hi.n ? cu_version_format(&hi, 0, b2, sizeof(b2)) : NULL, "read", 1,
                                    "source", src, "wheel", wheel);
            json_t *libs = json_object_get(c->root, "pip_libraries");
            if (json_is_array(libs))
                json_array_insert_new(libs, 0, row);
            else
                json_decref(row);
        }
        /* Its GPU code: the plugin's newest earlier release for the same CUDA major. */
        json_t *rows = code_list(c->root, "jax");
        const json_t *prev = NULL;
        for (size_t k = 0; k < json_array_size(rows); k++) {
            const json_t *e = json_array_get(rows, k);
            const json_t *ms = json_object_get(e, "cuda_major");
            bool has = false;
            for (size_t j = 0; j < json_array_size(ms); j++)
                has = has || json_integer_value(json_array_get(ms, j)) == (json_int_t)major;
            const char *t = cu_json_str(e, "to");
            if (has && t && vcmp(t, r->version) < 0 && (!prev || vcmp(t, cu_json_str(prev, "to")) > 0))
                prev = e;
        }
        if (prev) {
            const char *pv = cu_json_str(prev, "to");
            CU_AUTOFREE char *from = cu_xasprintf("JAX %s's CUDA %d plugin (the same CUDA)", pv, (int)major);
            json_t *row = inferred_code(prev, from, c, r->version);
            json_object_set_new(row, "from", json_string(r->version));
            json_object_set_new(row, "to", json_string(r->version));
            json_object_set_new(row, "cuda_major", json_pack("[i]", (int)major));
            json_array_insert_new(rows, 0, row);
            learned_entry(c, r, extra, pv, NULL);
        } else {
            CU_AUTOFREE char *why = cu_xasprintf(_("no earlier JAX release has a CUDA %d plugin whose GPU code cudaup knows"),
                                                 (int)major);
            learned_entry(c, r, extra, NULL, why);
        }
        CU_AUTOFREE char *pip = cu_xasprintf("jax[%s]==%s", extra, r->version);
        add_wheel_row(c, "jax", r->version, extra, pip, (int)major, NULL, extra, &p);
        pins_fini(&p);
    }
    if (!any) {
        note(c, _("JAX %s on %s: none of its CUDA extras could be followed to a plugin and its cuDNN, so cudaup cannot plan it."),
             r->version, c->l->index);
        return;
    }
    insert_version(json_object_get(json_object_get(c->root, "pypi_releases"), "jax"), r->version);
    if (r->py_min) {
        json_t *py = json_object_get(json_object_get(c->root, "jax"), "python");
        char a[16], b[16];
        snprintf(a, sizeof(a), "3.%u", r->py_min);
        snprintf(b, sizeof(b), "3.%u", r->py_max);
        CU_AUTOFREE char *src = cu_xasprintf("%s: the Linux x86_64 wheels of jaxlib %s, read %s", c->l->index,
                                             r->version, c->l->day);
        if (json_is_array(py))
            json_array_insert_new(py, 0, json_pack("{s:s, s:s, s:s, s:s, s:s}", "from", r->version, "to", r->version,
                                                   "min", a, "max", b, "source", src));
    }
}

/* ---- CUDA and cuDNN releases a mirror lists ---------------------------------------------------- */

static void
learn_cuda(struct lc *c, const char *label)
{
    struct cu_version v;
    char mm[32], prev_mm[32];
    if (!cu_version_parse(label, &v) || v.n != 3)
        return;
    json_t *list = json_object_get(c->root, "cuda");
    const json_t *prev = NULL;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i);
        struct cu_version ev;
        if (!cu_json_version(e, "version", &ev))
            continue;
        if (cu_version_cmp(&ev, &v) == 0)
            return; /* known */
        if (ev.part[0] == v.part[0] && cu_version_cmp(&ev, &v) < 0 && json_is_true(json_object_get(e, "archives")) && !prev)
            prev = e;
    }
    if (!prev) {
        note(c, _("The mirror lists CUDA %s, whose major no release cudaup knows shares; it is not planned."), label);
        return;
    }
    const char *pv = cu_json_str(prev, "version");
    CU_AUTOFREE char *why = cu_xasprintf("a release cudaup's catalog does not know, listed by the mirror: its driver floor "
                                         "is not known (only minor-version compatibility), and the GPUs it builds for are "
                                         "inferred from CUDA %s, not read", pv);
    json_t *o = json_pack("{s:s, s:s, s:n, s:b, s:b, s:s}", "version", label, "label", label, "driver",
                          "driver_unknown", 1, "archives", 1, "notes", why);
    insert_newest_first(list, o, "version");
    /* Its X.Y's GPU architectures: its predecessor's, where the arch table has no row for it. */
    cu_version_format(&v, 2, mm, sizeof(mm));
    struct cu_version pvv;
    if (!cu_version_parse(pv, &pvv))
        return;
    cu_version_format(&pvv, 2, prev_mm, sizeof(prev_mm));
    json_t *sm = json_object_get(c->root, "cuda_sm");
    if (json_is_object(sm) && !json_object_get(sm, mm) && json_object_get(sm, prev_mm)) {
        json_t *row = json_deep_copy(json_object_get(sm, prev_mm));
        json_object_set_new(row, "verified", json_false());
        json_object_set_new(sm, mm, row);
    }
    json_t *a = json_object_get(c->root, "learned");
    if (!json_is_array(a)) {
        a = json_array();
        json_object_set_new(c->root, "learned", a);
    }
    json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s?}", "framework", "cuda", "version", label, "inferred_from", pv,
                                       "index", c->l->index));
}

static void
learn_cudnn(struct lc *c, const char *label)
{
    struct cu_version v;
    if (!cu_version_parse(label, &v) || v.n != 3)
        return;
    json_t *list = json_object_get(c->root, "cudnn");
    const json_t *prev = NULL;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i);
        struct cu_version ev;
        if (!cu_json_version(e, "version", &ev))
            continue;
        if (cu_version_cmp(&ev, &v) == 0)
            return;
        if (ev.part[0] == v.part[0] && cu_version_cmp(&ev, &v) < 0 && !prev)
            prev = e;
    }
    if (!prev) {
        note(c, _("The mirror lists cuDNN %s, whose major no release cudaup knows shares; it is not planned."), label);
        return;
    }
    /* Its CUDA variants are read from its manifest when planned; the rest is its predecessor's shape. */
    json_t *o = json_pack("{s:s, s:n, s:n, s:n}", "version", label, "full", "date", "manifest_sha256");
    insert_newest_first(list, o, "version");
    json_t *a = json_object_get(c->root, "learned");
    if (!json_is_array(a)) {
        a = json_array();
        json_object_set_new(c->root, "learned", a);
    }
    json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s?}", "framework", "cudnn", "version", label, "inferred_from",
                                       cu_json_str(prev, "version"), "index", c->l->index));
}

enum cu_status
cu_catalog_learn(const struct cu_catalog *base, const struct cu_learned *l, struct cu_catalog **out,
                 struct cu_strv *notes, struct cu_error *err)
{
    json_error_t je;
    *out = NULL;
    if (!base->src)
        return cu_error_set(err, CU_E_INPUT, 0, "the catalog keeps no source to add what was learned to");
    json_t *root = json_loadb(base->src, base->src_len, 0, &je);
    if (!json_is_object(root)) {
        json_decref(root);
        return cu_error_set(err, CU_E_INPUT, 0, "the catalog's source cannot be read again: %s", je.text);
    }
    struct lc c = {root, l, notes};
    for (size_t i = 0; i < l->n_rel; i++) {
        const struct cu_learn_release *r = &l->rel[i];
        struct cu_version rel;
        char pre[16];
        if (!r->framework || !r->version || !cu_pep440_parse(r->version, &rel, pre))
            continue;
        if (strcmp(r->framework, "pytorch") == 0 && !pre[0])
            learn_torch(&c, r, &rel);
        else if (strcmp(r->framework, "tensorflow") == 0)
            learn_tf(&c, r, &rel, pre);
        else if (strcmp(r->framework, "jax") == 0 && !pre[0])
            learn_jax(&c, r);
    }
    for (size_t i = 0; l->cuda && l->cuda[i]; i++)
        learn_cuda(&c, l->cuda[i]);
    for (size_t i = 0; l->cudnn && l->cudnn[i]; i++)
        learn_cudnn(&c, l->cudnn[i]);
    enum cu_status st = cu_catalog_from_json(root, "the catalog with what the index taught", out, err);
    json_decref(root);
    if (st == CU_OK) {
        (*out)->src = cu_xstrndup(base->src, base->src_len);
        (*out)->src_len = base->src_len;
    }
    return st;
}
