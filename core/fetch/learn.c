/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "learn"
#include "core/fetch/learn.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "core/base/clock.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/fetch/cache.h"
#include "core/base/pipreq.h"
#include "core/base/proc.h"
#include "core/catalog/catalog_learned.h"
#include "core/fetch/pyindex.h"
#include "core/resolve/resolve.h"

/* How many releases of one framework a plan reads at most: the newest, a pre-release newer still (named, planned
 * only when pinned), and the one pinned. */
#define MAX_RELEASES 3

void
cu_learn_result_init(struct cu_learn_result *r)
{
    memset(r, 0, sizeof(*r));
    cu_strv_init(&r->notes);
}

void
cu_learn_result_fini(struct cu_learn_result *r)
{
    cu_catalog_free(r->cat);
    free(r->offline_why);
    free(r->index);
    free(r->day);
    free(r->cache_dir);
    cu_strv_fini(&r->notes);
    memset(r, 0, sizeof(*r));
}

struct lx {
    const struct cu_learn_opts *o;
    const struct cu_catalog *cat;
    struct cu_pyindex *ix;
    struct cu_learned facts;
    struct cu_learn_result *res;
    time_t read_at; /* the oldest answer the facts rest on */
    bool said_broken;
};

static const char *
title(const char *fw)
{
    return strcmp(fw, "pytorch") == 0 ? "PyTorch" : strcmp(fw, "jax") == 0 ? "JAX" : "TensorFlow";
}

static bool
listed(const struct cu_version *v, size_t n, const struct cu_version *want)
{
    for (size_t i = 0; i < n; i++)
        if (cu_version_cmp(&v[i], want) == 0)
            return true;
    return false;
}

/* Does the catalog know release @text of @fw (a final release it records, for TensorFlow one it plans)? */
static bool
known(const struct cu_catalog *cat, const char *fw, const char *text, struct cu_version *newest)
{
    struct cu_version v;
    char pre[16];
    newest->n = 0;
    bool ok = cu_pep440_parse(text, &v, pre);
    if (strcmp(fw, "pytorch") == 0) {
        if (cat->n_pypi_torch)
            *newest = cat->pypi_torch[0];
        return ok && !pre[0] && listed(cat->pypi_torch, cat->n_pypi_torch, &v);
    }
    if (strcmp(fw, "jax") == 0) {
        if (cat->n_pypi_jax)
            *newest = cat->pypi_jax[0];
        return ok && !pre[0] && listed(cat->pypi_jax, cat->n_pypi_jax, &v);
    }
    bool found = false;
    for (size_t i = 0; i < cat->n_tf; i++) {
        const struct cu_cat_tf *t = &cat->tf[i];
        if (!newest->n || cu_version_cmp(&t->version, newest) > 0)
            *newest = t->version;
        if (t->n_patches && cu_version_cmp(&t->patches[0], newest) > 0)
            *newest = t->patches[0];
        found = found || (ok && !pre[0] && (cu_version_cmp(&t->version, &v) == 0 || listed(t->patches, t->n_patches, &v)));
    }
    return found;
}

/* The Linux x86_64 wheels of @project's release @version on @p; NULL-terminated indexes into p->files. */
static size_t
wheels_of(const struct cu_pyproject *p, const char *project, const char *version, size_t *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n_files && n < cap; i++) {
        struct cu_wheel_name w;
        if (p->files[i].yanked || !cu_wheel_name_parse(p->files[i].filename, &w))
            continue;
        if (strcmp(w.name, project) == 0 && cu_pep440_cmp(w.version, version) == 0 && cu_wheel_for_linux(&w, "x86_64"))
            out[n++] = i;
        cu_wheel_name_fini(&w);
    }
    return n;
}

/* The CPython 3.x minors @project's release @version has Linux x86_64 wheels for (not a py3 wheel's "all"). */
static void
pythons(const struct cu_pyproject *p, const char *project, const char *version, unsigned *lo, unsigned *hi)
{
    size_t idx[512];
    size_t n = wheels_of(p, project, version, idx, CU_N_ELEMENTS(idx));
    *lo = *hi = 0;
    for (size_t k = 0; k < n; k++) {
        struct cu_wheel_name w;
        if (!cu_wheel_name_parse(p->files[idx[k]].filename, &w))
            continue;
        if (strstr(w.python, "cp3"))
            for (unsigned m = 6; m < 40; m++)
                if (cu_wheel_for_python(&w, m) && strcmp(w.abi, "abi3") != 0) {
                    if (!*lo || m < *lo)
                        *lo = m;
                    if (m > *hi)
                        *hi = m;
                }
        cu_wheel_name_fini(&w);
    }
}

/* The wheel pip would take on a machine like the ones planned for: CPython 3.12 first, then its neighbours. */
static const struct cu_pyfile *
pick(const struct cu_pyproject *p, const char *project, const char *version)
{
    static const unsigned pref[] = {12, 11, 13, 10, 14, 15, 9};
    size_t idx[512];
    size_t n = wheels_of(p, project, version, idx, CU_N_ELEMENTS(idx));
    for (size_t k = 0; k < CU_N_ELEMENTS(pref); k++)
        for (size_t i = 0; i < n; i++) {
            struct cu_wheel_name w;
            if (!cu_wheel_name_parse(p->files[idx[i]].filename, &w))
                continue;
            bool ok = cu_wheel_for_python(&w, pref[k]);
            cu_wheel_name_fini(&w);
            if (ok)
                return &p->files[idx[i]];
        }
    return n ? &p->files[idx[0]] : NULL;
}

static void
broken(struct lx *x, const struct cu_error *e)
{
    /* An index that answers but not as an index should: what it said, once per thing, never the plan's end. */
    cu_strv_push_owned(&x->res->notes, cu_xasprintf(_("cudaup could not learn from the package index %s: %s"),
                                                    cu_pyindex_url(x->ix), e->msg));
}

static enum cu_status
project(struct lx *x, const char *name, struct cu_pyproject **out)
{
    struct cu_error e;
    enum cu_status st = cu_pyindex_project(x->ix, name, out, &e);
    if (st == CU_OK) {
        if (!x->read_at || (*out)->read_at < x->read_at)
            x->read_at = (*out)->read_at;
        x->res->cached = x->res->cached || (*out)->cached;
    } else if (st != CU_E_NETWORK && st != CU_E_NOT_FOUND) {
        broken(x, &e);
    } else if (st == CU_E_NETWORK && !cu_pyindex_offline(x->ix, NULL)) {
        broken(x, &e);
    }
    return st;
}

/* Read wheel @f's METADATA into @w (project @proj, release @version). */
static enum cu_status
read_wheel(struct lx *x, const struct cu_pyfile *f, const char *proj, const char *version, struct cu_learn_wheel *w)
{
    char *text = NULL;
    const char *how = "";
    struct cu_error e;
    enum cu_status st = cu_pyindex_metadata(x->ix, f, &text, &how, &e);
    if (st != CU_OK) {
        if (st != CU_E_NETWORK || !cu_pyindex_offline(x->ix, NULL))
            broken(x, &e);
        return st;
    }
    struct cu_strv req;
    cu_strv_init(&req);
    char *rp = NULL;
    if (!cu_metadata_read(text, &req, &rp)) {
        free(text);
        cu_strv_fini(&req);
        struct cu_error e2;
        cu_error_set(&e2, CU_E_INPUT, 0, _("the METADATA of %s is not core metadata"), f->filename);
        broken(x, &e2);
        return CU_E_INPUT;
    }
    free(text);
    w->project = cu_xstrdup(proj);
    w->version = cu_xstrdup(version);
    w->file = cu_xstrdup(f->filename);
    w->how = cu_xstrdup(how);
    w->requires = cu_steal_ptr(&req.v);
    w->requires_python = rp;
    cu_strv_fini(&req);
    return CU_OK;
}

/* Follow a requirement of @r's wheel that pins another project's release (cuda-toolkit, jax-cudaNN-plugin). */
static void
follow(struct lx *x, struct cu_learn_release *r, const char *proj, const char *spec)
{
    char ver[64];
    struct cu_pipspec ps;
    const struct cu_pipspec *one = &ps;
    struct cu_version v;
    bool prefix = false;
    if (!cu_pipspec_parse(spec, &ps))
        return;
    if (!cu_pipspec_pinned(&one, 1, &v, &prefix) || prefix) {
        struct cu_version lo = {{0}, 0}, hi = {{0}, 0};
        for (size_t i = 0; i < ps.n; i++) {
            if (ps.c[i].op == CU_PS_GE)
                lo = ps.c[i].v;
            else if (ps.c[i].op == CU_PS_LE)
                hi = ps.c[i].v;
        }
        if (!lo.n || !hi.n || cu_pipver_cmp(&lo, &hi) != 0)
            return;
        v = lo;
    }
    cu_version_format(&v, 0, ver, sizeof(ver));
    for (size_t i = 0; i < r->n_deps; i++)
        if (strcmp(r->deps[i].project, proj) == 0 && cu_pep440_cmp(r->deps[i].version, ver) == 0)
            return;
    struct cu_pyproject *p = NULL;
    if (project(x, proj, &p) != CU_OK)
        return;
    /* A wheel of that release whose version spells it alike (13.0.3 is the wheel 13.0.3.0 of cuda-toolkit). */
    const struct cu_pyfile *f = NULL;
    for (size_t i = 0; i < p->n_files && !f; i++) {
        struct cu_wheel_name w;
        if (p->files[i].yanked || !cu_wheel_name_parse(p->files[i].filename, &w))
            continue;
        if (strcmp(w.name, proj) == 0 && cu_pep440_cmp(w.version, ver) == 0 && cu_wheel_for_linux(&w, "x86_64"))
            f = pick(p, proj, w.version);
        cu_wheel_name_fini(&w);
    }
    if (f) {
        struct cu_learn_wheel w;
        memset(&w, 0, sizeof(w));
        if (read_wheel(x, f, proj, ver, &w) == CU_OK)
            *cu_learn_release_dep(r) = w;
    }
    cu_pyproject_free(p);
}

static void
learn_release(struct lx *x, const char *fw, const char *proj, const struct cu_pyproject *page, const char *version)
{
    const struct cu_pyfile *f = pick(page, proj, version);
    if (!f)
        return;
    struct cu_learn_wheel main;
    memset(&main, 0, sizeof(main));
    if (read_wheel(x, f, proj, version, &main) != CU_OK)
        return;
    struct cu_learn_release *r = cu_learned_add(&x->facts);
    r->framework = cu_xstrdup(fw);
    r->version = cu_xstrdup(version);
    r->main = main;
    if (strcmp(fw, "jax") == 0) {
        struct cu_pyproject *lib = NULL;
        if (project(x, "jaxlib", &lib) == CU_OK)
            pythons(lib, "jaxlib", version, &r->py_min, &r->py_max);
        cu_pyproject_free(lib);
    } else {
        pythons(page, proj, version, &r->py_min, &r->py_max);
    }
    for (size_t i = 0; r->main.requires && r->main.requires[i]; i++) {
        struct cu_pipreq q;
        if (!cu_pipreq_parse(r->main.requires[i], &q))
            continue;
        bool plugin = cu_str_has_prefix(q.name, "jax-cuda") && cu_str_has_suffix(q.name, "-plugin");
        if ((strcmp(q.name, "cuda-toolkit") == 0 && strcmp(fw, "pytorch") == 0) || (plugin && strcmp(fw, "jax") == 0))
            follow(x, r, q.name, q.spec);
        cu_pipreq_fini(&q);
    }
}

/* What the index has of framework @fw (pinned at @pin, or NULL) that the catalog does not know. */
static void
learn_framework(struct lx *x, const char *fw, const char *pin)
{
    const char *proj = strcmp(fw, "pytorch") == 0 ? "torch" : fw;
    struct cu_pyproject *page = NULL;
    if (project(x, proj, &page) != CU_OK)
        return;
    struct cu_version newest_known;
    (void)known(x->cat, fw, "0", &newest_known);
    /* The releases on the index: each version with a Linux x86_64 wheel, not yanked. */
    struct cu_strv seen;
    cu_strv_init(&seen);
    for (size_t i = 0; i < page->n_files; i++) {
        struct cu_wheel_name w;
        if (page->files[i].yanked || !cu_wheel_name_parse(page->files[i].filename, &w))
            continue;
        struct cu_version v;
        char pre[16];
        if (strcmp(w.name, proj) == 0 && cu_wheel_for_linux(&w, "x86_64") && cu_pep440_parse(w.version, &v, pre) &&
            !cu_strv_contains(&seen, w.version))
            cu_strv_push(&seen, w.version);
        cu_wheel_name_fini(&w);
    }
    const char *want[MAX_RELEASES] = {NULL};
    size_t n_want = 0;
    const char *newest = NULL;
    for (size_t i = 0; i < seen.n; i++) {
        struct cu_version v, nk;
        char pre[16];
        if (!cu_pep440_parse(seen.v[i], &v, pre) || pre[0] || known(x->cat, fw, seen.v[i], &nk))
            continue;
        if (newest_known.n && cu_version_cmp(&v, &newest_known) <= 0)
            continue; /* older than the record: a release the record left out on purpose (no wheel it plans) */
        if (!newest || cu_pep440_cmp(seen.v[i], newest) > 0)
            newest = seen.v[i];
    }
    if (newest)
        want[n_want++] = newest;
    /* A pre-release newer than every release (TensorFlow 2.22.0rc0): read, so that the plan can name it. */
    const char *pre_newest = NULL;
    for (size_t i = 0; i < seen.n; i++) {
        struct cu_version v;
        char pre[16];
        if (!cu_pep440_parse(seen.v[i], &v, pre) || !pre[0] || (newest_known.n && cu_version_cmp(&v, &newest_known) <= 0) ||
            (newest && cu_pep440_cmp(seen.v[i], newest) < 0))
            continue;
        if (!pre_newest || cu_pep440_cmp(seen.v[i], pre_newest) > 0)
            pre_newest = seen.v[i];
    }
    if (pre_newest)
        want[n_want++] = pre_newest;
    for (size_t i = 0; pin && i < seen.n; i++) {
        struct cu_version nk;
        if (cu_pep440_cmp(seen.v[i], pin) == 0 && !known(x->cat, fw, seen.v[i], &nk) &&
            (!newest || strcmp(seen.v[i], newest) != 0) && (!pre_newest || strcmp(seen.v[i], pre_newest) != 0) &&
            n_want < MAX_RELEASES)
            want[n_want++] = seen.v[i];
    }
    for (size_t i = 0; i < n_want; i++) {
        cu_log_info(_("%s %s is on the package index %s and not in cudaup's catalog: reading its METADATA"), title(fw),
                    want[i], cu_pyindex_url(x->ix));
        learn_release(x, fw, proj, page, want[i]);
    }
    cu_strv_fini(&seen);
    cu_pyproject_free(page);
}

/* The frameworks --framework names ("pytorch==2.16.0,jax;tensorflow"), each with its pin. */
static void
each_framework(struct lx *x)
{
    const char *s = x->o->framework && *x->o->framework ? x->o->framework : "tensorflow";
    bool done[3] = {false, false, false};
    struct cu_strv items;
    cu_strv_init(&items);
    cu_strv_split(&items, s, ",;");
    for (size_t i = 0; i < items.n; i++) {
        char *it = cu_str_strip(items.v[i]);
        char *eq = strstr(it, "==");
        CU_AUTOFREE char *pin = eq ? cu_xstrdup(cu_str_strip(eq + 2)) : NULL;
        size_t n = eq ? (size_t)(eq - it) : strlen(it);
        CU_AUTOFREE char *name = cu_xstrndup(it, strcspn(it, "[") < n ? strcspn(it, "[") : n);
        cu_str_strip(name);
        for (char *c = name; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        int k = strcmp(name, "pytorch") == 0 || strcmp(name, "torch") == 0 ? 0
                : strcmp(name, "jax") == 0                                   ? 1
                : strcmp(name, "tensorflow") == 0 || strcmp(name, "tf") == 0 || strcmp(name, "keras") == 0 ? 2
                                                                             : -1;
        if (k < 0 || done[k])
            continue;
        done[k] = true;
        learn_framework(x, k == 0 ? "pytorch" : k == 1 ? "jax" : "tensorflow", pin);
    }
    cu_strv_fini(&items);
}

/* The CUDA and cuDNN releases the mirror lists that the catalog does not know: newer than every one of their major. */
static char **
unknown_labels(const struct cu_catalog *cat, struct cu_mirror *m, enum cu_product p)
{
    char *const *labels;
    size_t n;
    bool listing = false;
    struct cu_error e;
    struct cu_strv out;
    cu_strv_init(&out);
    if (cu_mirror_index(m, p, &labels, &n, &listing, &e) != CU_OK || !listing)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        struct cu_version v;
        if (!cu_version_parse(labels[i], &v) || v.n != 3)
            continue;
        bool have = false, newer = true;
        if (p == CU_PRODUCT_CUDA) {
            have = cu_catalog_cuda(cat, &v) != NULL;
            for (size_t k = 0; k < cat->n_cuda && newer; k++)
                if (cat->cuda[k].version.part[0] == v.part[0] && cu_version_cmp(&cat->cuda[k].version, &v) >= 0)
                    newer = false;
        } else {
            have = cu_catalog_cudnn(cat, &v) != NULL;
            for (size_t k = 0; k < cat->n_cudnn && newer; k++)
                if (cat->cudnn[k].version.part[0] == v.part[0] && cu_version_cmp(&cat->cudnn[k].version, &v) >= 0)
                    newer = false;
        }
        if (!have && newer)
            cu_strv_push(&out, labels[i]);
    }
    if (!out.n) {
        cu_strv_fini(&out);
        return NULL;
    }
    return cu_steal_ptr(&out.v);
}

static char *
day_of(time_t t)
{
    struct tm tm;
    char b[32];
    if (!gmtime_r(&t, &tm) || !strftime(b, sizeof(b), "%Y-%m-%d", &tm))
        return cu_xstrdup("?");
    return cu_xstrdup(b);
}

enum cu_status
cu_learn(const struct cu_learn_opts *o, const struct cu_catalog *base, struct cu_mirror *m,
         struct cu_learn_result *res, struct cu_error *err)
{
    struct lx x = {.o = o, .cat = base, .res = res};
    struct cu_pyindex_opts io = {.url = o->index_url, .cache_dir = o->cache_dir, .ca_cert = o->ca_cert,
                                 .connect_ms = o->connect_ms, .total_ms = o->total_ms, .offline = o->offline,
                                 .envp = o->envp};
    enum cu_status st = cu_pyindex_new(&io, &x.ix, err);
    if (st != CU_OK)
        return st;
    res->base = base;
    res->allow_inferred = o->allow_inferred;
    res->forced = o->offline;
    res->index = cu_xstrdup(cu_pyindex_url(x.ix));
    cu_learned_init(&x.facts);
    int64_t t0 = cu_mono_ms();
    each_framework(&x);
    const char *why = NULL;
    res->offline = cu_pyindex_offline(x.ix, &why);
    if (res->offline)
        res->offline_why = cu_xstrdup(why);
    /* Offline, NVIDIA's server is not asked either (its manifests come from the cache): a network that answered
     * no index in time would make each of them a minute of retries.  A site mirror is the user's and is read. */
    if (m && res->offline)
        res->mirror_offline = cu_mirror_set_offline(m, o->offline ? "--offline" : why);
    res->cache_dir = o->cache_dir ? cu_xstrdup(o->cache_dir) : NULL;
    /* The mirror's listing is read where the plan would read it anyway. */
    if (m && !cu_mirror_offline(m)) {
        x.facts.cuda = unknown_labels(base, m, CU_PRODUCT_CUDA);
        x.facts.cudnn = unknown_labels(base, m, CU_PRODUCT_CUDNN);
    }
    res->day = day_of(x.read_at ? x.read_at : cu_now(o->envp));
    x.facts.index = cu_xstrdup(res->index);
    x.facts.day = cu_xstrdup(res->day);
    cu_log_debug("learning from %s took %lld ms", res->index, (long long)(cu_mono_ms() - t0));
    if (x.facts.n_rel || x.facts.cuda || x.facts.cudnn) {
        struct cu_error e;
        if (cu_catalog_learn(base, &x.facts, &res->cat, &res->notes, &e) != CU_OK) {
            cu_strv_push_owned(&res->notes, cu_xasprintf(_("cudaup could not add what it learned to its catalog: %s"), e.msg));
            res->cat = NULL;
        }
    }
    cu_learned_fini(&x.facts);
    cu_pyindex_free(x.ix);
    return CU_OK;
}

enum cu_status
cu_learn_for(const struct cu_config *c, bool site_index, const char *cache_dir, const char *const *envp,
             const struct cu_catalog *base, struct cu_mirror *m, struct cu_learn_result *res, struct cu_error *err)
{
    CU_AUTOFREE char *simple = NULL;
    if (site_index && m && c->mirror && *c->mirror && !c->offline) {
        /* The site mirror's index, where it carries one: what installers/prepare.c hands pip too. */
        const char *base_url = cu_mirror_net(m)->base;
        CU_AUTOFREE char *probe = cu_xasprintf("%s/pypi/simple/index.html", base_url);
        struct cu_buf b;
        struct cu_error e;
        cu_buf_init(&b);
        if (cu_net_fetch_small(cu_mirror_net(m), probe, 4u << 20, &b, &e) == CU_OK)
            simple = cu_xasprintf("%s/pypi/simple/", base_url);
        cu_buf_fini(&b);
    }
    const char *pip_index = cu_env_get(envp, "PIP_INDEX_URL");
    struct cu_learn_opts o = {
        .index_url = simple                              ? simple
                     : c->index_url && *c->index_url ? c->index_url
                     : pip_index && *pip_index       ? pip_index
                                                     : NULL,
        .cache_dir = cache_dir, .ca_cert = c->ca_cert, .total_ms = (long)c->index_timeout * 1000,
        .offline = c->offline, .allow_inferred = c->allow_inferred, .framework = c->framework, .envp = envp,
    };
    return cu_learn(&o, base, m, res, err);
}

/* Say what was learned of framework @fw on plan @p, whose planned release is @planned (or NULL). */
static void
explain_fw(const struct cu_learn_result *r, struct cu_plan *p, const char *fw, const char *planned)
{
    const struct cu_catalog *cat = r->cat;
    for (size_t i = 0; cat && i < cat->n_learned; i++) {
        const struct cu_cat_learned *e = &cat->learned[i];
        if (strcmp(e->framework, fw) != 0)
            continue;
        bool dup = false; /* JAX: one entry per CUDA extra; said once per release */
        for (size_t k = 0; k < i && !dup; k++)
            dup = strcmp(cat->learned[k].framework, fw) == 0 && strcmp(cat->learned[k].text, e->text) == 0 &&
                  (planned && strcmp(e->text, planned) == 0) == (planned && strcmp(cat->learned[k].text, planned) == 0);
        if (dup)
            continue;
        const char *src = e->index ? e->index : r->index;
        if (planned && strcmp(planned, e->text) == 0) {
            cu_plan_reason(p, _("%s %s is newer than cudaup's catalog: learned from the package index %s (read %s), its Pythons and its pins on NVIDIA's wheels read from its METADATA; its GPU code is inferred from %s's build for the same CUDA, not read."),
                           title(fw), e->text, src, e->day ? e->day : "?", e->inferred_from ? e->inferred_from : "?");
            continue;
        }
        if (planned && cu_pep440_cmp(planned, e->text) >= 0)
            continue;
        if (e->no_inference)
            cu_plan_reason(p, _("Not %s %s, which is on the package index %s (read %s) and newer than cudaup's catalog: %s, so nothing about the GPU code it carries can be inferred, and cudaup does not plan it."),
                           title(fw), e->text, src, e->day ? e->day : "?", e->no_inference);
        else if (e->pre[0])
            cu_plan_reason(p, _("Not %s %s, a pre-release on the package index %s (read %s): pre-releases are planned only when pinned (--framework %s==%s)."),
                           title(fw), e->text, src, e->day ? e->day : "?", fw, e->text);
        else
            cu_plan_reason(p, _("Not %s %s, which is on the package index %s (read %s) and newer than cudaup's catalog: what GPU code it carries was not read; inferred from %s's build for the same CUDA, it is planned when pinned (--framework %s==%s) or with --allow-inferred."),
                           title(fw), e->text, src, e->day ? e->day : "?", e->inferred_from, fw, e->text);
    }
}

/* The day the catalog's record of the index was read for framework @fw ("pytorch"), or "?". */
static const char *
record_day(const struct cu_catalog *cat, const char *fw)
{
    const char *d = !cat || !fw                 ? NULL
                    : strcmp(fw, "pytorch") == 0 ? cat->pypi_read_torch
                    : strcmp(fw, "jax") == 0     ? cat->pypi_read_jax
                                                 : cat->pypi_read_tf;
    return d && *d ? d : "?";
}

static void
explain_plan(const struct cu_learn_result *r, struct cu_plan *p)
{
    size_t n = 0;
    struct cu_plan_framework *const *fws = cu_plan_frameworks(p, &n);
    for (size_t i = 0; i < n; i++)
        explain_fw(r, p, fws[i]->name, fws[i]->version);
    const struct cu_catalog *cat = r->cat;
    for (size_t i = 0; cat && i < cat->n_learned; i++) {
        const struct cu_cat_learned *e = &cat->learned[i];
        char b[32];
        bool cuda = strcmp(e->framework, "cuda") == 0, dnn = strcmp(e->framework, "cudnn") == 0;
        if ((cuda && cu_version_cmp(&p->cuda, &e->version) == 0) ||
            (dnn && p->has_cudnn && cu_version_cmp(&p->cudnn, &e->version) == 0)) {
            p->cuda_inferred = p->cuda_inferred || cuda;
            if (cuda)
                cu_plan_reason(p, _("CUDA %s is not in cudaup's catalog: the mirror lists it; its driver floor is not known (it is planned only by NVIDIA's minor-version compatibility) and the GPUs it builds for are inferred from CUDA %s, not read."),
                               cu_version_format(&e->version, 0, b, sizeof(b)), e->inferred_from ? e->inferred_from : "?");
            else
                cu_plan_reason(p, _("cuDNN %s is not in cudaup's catalog: the mirror lists it, and its manifest is read; which GPUs and drivers it supports is judged by the nearest support matrix cudaup has read, not its own."),
                               cu_version_format(&e->version, 0, b, sizeof(b)));
        }
    }
    for (size_t i = 0; i < r->notes.n; i++)
        cu_plan_warn(p, "%s", r->notes.v[i]);
    if (r->offline) {
        p->offline = true;
        if (!r->forced)
            cu_plan_warn(p, _("Offline: %s; cudaup planned from its catalog (its record of the index read %s) and its cache, as --offline does, and a release newer than that record is not seen."),
                         r->offline_why ? r->offline_why : r->index, record_day(r->base, n ? fws[0]->name : NULL));
    }
}

/* Does cudaup's cache hold download @d whole (CACHE/archives/SHA256.EXT, as core/install/pipeline.c keeps them)? */
static bool
in_cache(const char *cache, const struct cu_plan_download *d)
{
    CU_AUTOFREE char *path = cu_cache_archive_path(cache, d);
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (d->size_unknown ? sb.st_size > 0 : (uint64_t)sb.st_size == d->size);
}

/* Offline, the downloads that would need a server: marked, and said in one sentence. */
static void
mark_cached(const struct cu_learn_result *r, struct cu_plan *p)
{
    if (!r->mirror_offline)
        return;
    struct cu_strv miss;
    cu_strv_init(&miss);
    for (size_t i = 0; i <= p->n_downloads; i++) {
        struct cu_plan_download *d = i < p->n_downloads ? &p->downloads[i] : p->python ? &p->python->dl : NULL;
        if (!d || !d->url || cu_str_has_prefix(d->url, "file://"))
            continue;
        d->not_cached = !r->cache_dir || !in_cache(r->cache_dir, d);
        if (d->not_cached)
            cu_strv_push(&miss, d->component);
    }
    if (miss.n) {
        CU_AUTOFREE char *names = cu_strv_join(&miss, ", ");
        cu_plan_warn(p, ngettext_("Offline: %zu download is not in cudaup's cache (%s); install would need its server for it.",
                                  "Offline: %zu downloads are not in cudaup's cache (%s); install would need their server for them.",
                                  miss.n),
                     miss.n, names);
    }
    cu_strv_fini(&miss);
}

enum cu_status
cu_learn_install_check(const struct cu_learn_result *r, const struct cu_plan *p, struct cu_error *err)
{
    struct cu_strv miss;
    cu_strv_init(&miss);
    for (size_t i = 0; i <= p->n_downloads; i++) {
        const struct cu_plan_download *d = i < p->n_downloads ? &p->downloads[i] : p->python ? &p->python->dl : NULL;
        if (d && d->not_cached)
            cu_strv_push(&miss, d->component);
    }
    enum cu_status st = CU_OK;
    if (miss.n) {
        CU_AUTOFREE char *names = cu_strv_join(&miss, ", ");
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                          _("Offline (%s), and cudaup's cache does not hold what this install downloads: %s."),
                          r->forced ? "--offline" : r->offline_why ? r->offline_why : "?", names);
        cu_error_advise(err, "%s", _("Run the same command once where NVIDIA's server can be reached (the archives are kept in the cache), or give a --mirror that holds them."));
    }
    cu_strv_fini(&miss);
    return st;
}

void
cu_learn_explain(const struct cu_learn_result *r, struct cu_plan *p)
{
    explain_plan(r, p);
    mark_cached(r, p);
    for (size_t i = 0; i < p->n_envs; i++) {
        struct cu_learn_result quiet = *r;
        cu_strv_init(&quiet.notes); /* said once, on the first */
        quiet.offline_why = NULL;
        quiet.forced = true;
        explain_plan(&quiet, p->envs[i]);
    }
}
