/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/catalog/catalog.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/catalog/ctk_data.h"
#include "core/catalog/driver_data.h"
#include "core/base/fsutil.h"
#include "core/catalog/catalog_learned.h"
#include "core/catalog/catalog_legacy.h"
#include "core/catalog/catalog_python.h"
#include "core/base/jsonutil.h"
#include "core/catalog/manifest.h"
#include "core/base/mem.h"
#include "core/base/str.h"

extern const unsigned char cu_catalog_json[];
extern const size_t cu_catalog_json_len;

/* Errors while converting name the field, like "catalog: cuda[3].driver". */
struct conv {
    const char *what;
    struct cu_error *err;
};

static enum cu_status
bad(struct conv *c, const char *field, size_t idx, const char *detail)
{
    return cu_error_set(c->err, CU_E_INPUT, 0, "%s: %s[%zu] %s", c->what, field, idx, detail);
}

static char *
dup_str(const json_t *o, const char *key)
{
    return cu_xstrdup(cu_json_str(o, key));
}


static const json_t *
need_array(struct conv *c, const json_t *root, const char *key, size_t *n)
{
    const json_t *a = json_object_get(root, key);
    if (!json_is_array(a)) {
        cu_error_set(c->err, CU_E_INPUT, 0, "%s: \"%s\" is missing or not a list", c->what, key);
        return NULL;
    }
    *n = json_array_size(a);
    return a;
}

static int
cmp_gpu(const void *a, const void *b)
{
    const struct cu_cat_gpu *x = a, *y = b;
    return (x->device > y->device) - (x->device < y->device);
}

static enum cu_status
conv_gpus(struct conv *c, const json_t *root, struct cu_catalog *cat)
{
    json_t *pci = json_object_get(root, "pci");
    const char *key;
    json_t *val;
    size_t i = 0;

    if (!json_is_object(pci))
        return cu_error_set(c->err, CU_E_INPUT, 0, "%s: \"pci\" is missing", c->what);
    cat->gpus = cu_xcalloc(json_object_size(pci) + 1, sizeof(*cat->gpus));
    json_object_foreach(pci, key, val) {
        struct cu_cat_gpu *g = &cat->gpus[i];
        uint64_t dev = 0;
        char *end;
        errno = 0;
        dev = strtoull(key, &end, 16);
        if (strlen(key) != 4 || *end || errno || !json_is_array(val) || json_array_size(val) != 3)
            return bad(c, "pci", i, "is not [name, chip, cc] under a 4-digit hex id");
        g->device = (uint16_t)dev;
        const json_t *name = json_array_get(val, 0), *chip = json_array_get(val, 1),
                     *cc = json_array_get(val, 2);
        if (!json_is_string(name))
            return bad(c, "pci", i, "has no name");
        g->name = cu_xstrdup(json_string_value(name));
        g->chip = json_is_string(chip) ? cu_xstrdup(json_string_value(chip)) : NULL;
        if (json_is_string(cc) && !cu_version_parse(json_string_value(cc), &g->cc))
            return bad(c, "pci", i, "has a malformed compute capability");
        i++;
    }
    cat->n_gpus = i;
    qsort(cat->gpus, cat->n_gpus, sizeof(*cat->gpus), cmp_gpu);
    return CU_OK;
}

static enum cu_status
conv_named_cc(struct conv *c, const json_t *root, const char *key, struct cu_catalog *cat,
              bool products)
{
    json_t *obj = json_object_get(root, key);
    const char *name;
    json_t *val;
    size_t i = 0, n;

    if (!json_is_object(obj))
        return cu_error_set(c->err, CU_E_INPUT, 0, "%s: \"%s\" is missing", c->what, key);
    n = json_object_size(obj);
    if (products)
        cat->products = cu_xcalloc(n + 1, sizeof(*cat->products));
    else
        cat->chips = cu_xcalloc(n + 1, sizeof(*cat->chips));
    json_object_foreach(obj, name, val) {
        /* products: [cc, arch]; chips: [arch, cc] */
        const json_t *a = json_array_get(val, products ? 1 : 0);
        const json_t *v = json_array_get(val, products ? 0 : 1);
        struct cu_version cc;
        if (!json_is_string(a) || !json_is_string(v) || !cu_version_parse(json_string_value(v), &cc))
            return bad(c, key, i, "is not a known compute capability");
        if (products) {
            cat->products[i] = (struct cu_cat_product){cu_xstrdup(name),
                                                       cu_xstrdup(json_string_value(a)), cc};
        } else {
            cat->chips[i] = (struct cu_cat_chip){cu_xstrdup(name), cu_xstrdup(json_string_value(a)),
                                                 cc};
        }
        i++;
    }
    if (products)
        cat->n_products = i;
    else
        cat->n_chips = i;
    return CU_OK;
}

static enum cu_status
conv_cuda(struct conv *c, const json_t *root, struct cu_catalog *cat)
{
    size_t n;
    const json_t *a = need_array(c, root, "cuda", &n);
    if (!a)
        return CU_E_INPUT;
    cat->cuda = cu_xcalloc(n + 1, sizeof(*cat->cuda));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_cuda *r = &cat->cuda[i];
        if (!cu_json_version(o, "version", &r->version) || r->version.n != 3)
            return bad(c, "cuda", i, "has no X.Y.Z version");
        if (!cu_json_opt_version(o, "driver", &r->driver))
            return bad(c, "cuda", i, "has a malformed driver version");
        if (i > 0 && cu_version_cmp(&cat->cuda[i - 1].version, &r->version) <= 0)
            return bad(c, "cuda", i, "is out of order (the list goes newest first)");
        r->label = dup_str(o, "label");
        r->driver_unknown = json_is_true(json_object_get(o, "driver_unknown")) && !r->driver.n;
        r->archives = json_is_true(json_object_get(o, "archives"));
        r->manifest_sha256 = dup_str(o, "manifest_sha256");
        r->date = dup_str(o, "date");
        cat->n_cuda++;
    }
    if (!cu_json_version(root, "archives_from", &cat->archives_from))
        return cu_error_set(c->err, CU_E_INPUT, 0, "%s: \"archives_from\" is missing", c->what);
    return CU_OK;
}

static enum cu_status
conv_cuda_majors(struct conv *c, const json_t *root, struct cu_catalog *cat)
{
    json_t *obj = json_object_get(root, "cuda_major");
    const char *key;
    json_t *val;
    size_t i = 0;

    if (!json_is_object(obj))
        return cu_error_set(c->err, CU_E_INPUT, 0, "%s: \"cuda_major\" is missing", c->what);
    cat->cuda_majors = cu_xcalloc(json_object_size(obj) + 1, sizeof(*cat->cuda_majors));
    json_object_foreach(obj, key, val) {
        struct cu_cat_cuda_major *m = &cat->cuda_majors[i];
        uint64_t maj;
        const json_t *bmin = json_object_get(val, "branch_min");
        const json_t *bmax = json_object_get(val, "branch_max_exclusive");
        if (!cu_parse_u64(key, 1000, &maj) || !json_is_integer(bmin) ||
            !(json_is_null(bmax) || json_is_integer(bmax)) ||
            !cu_json_version(val, "min_driver", &m->min_driver))
            return bad(c, "cuda_major", i, "is malformed");
        m->major = (int)maj;
        m->branch_min = (int)json_integer_value(bmin);
        m->branch_max_exclusive = json_is_integer(bmax) ? (int)json_integer_value(bmax) : 0;
        i++;
    }
    cat->n_cuda_majors = i;
    return CU_OK;
}

static enum cu_status
conv_cuda_sm(struct conv *c, const json_t *root, struct cu_catalog *cat)
{
    json_t *obj = json_object_get(root, "cuda_sm");
    const char *key;
    json_t *val;
    size_t i = 0;

    if (!json_is_object(obj))
        return cu_error_set(c->err, CU_E_INPUT, 0, "%s: \"cuda_sm\" is missing", c->what);
    cat->cuda_sm = cu_xcalloc(json_object_size(obj) + 1, sizeof(*cat->cuda_sm));
    json_object_foreach(obj, key, val) {
        struct cu_cat_cuda_sm *s = &cat->cuda_sm[i];
        const json_t *sm = json_object_get(val, "sm");
        if (!cu_version_parse(key, &s->minor) || s->minor.n != 2 || !json_is_array(sm))
            return bad(c, "cuda_sm", i, "is malformed");
        s->n_sm = json_array_size(sm);
        s->sm = cu_xcalloc(s->n_sm + 1, sizeof(int));
        for (size_t k = 0; k < s->n_sm; k++) {
            const json_t *e = json_array_get(sm, k);
            if (!json_is_integer(e))
                return bad(c, "cuda_sm", i, "has a target that is not a number");
            s->sm[k] = (int)json_integer_value(e);
        }
        s->verified = json_is_true(json_object_get(val, "verified"));
        i++;
    }
    cat->n_cuda_sm = i;
    return CU_OK;
}

static enum cu_status
conv_cudnn(struct conv *c, const json_t *root, struct cu_catalog *cat)
{
    size_t n;
    const json_t *a = need_array(c, root, "cudnn", &n);
    if (!a)
        return CU_E_INPUT;
    cat->cudnn = cu_xcalloc(n + 1, sizeof(*cat->cudnn));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_cudnn *r = &cat->cudnn[i];
        if (!cu_json_version(o, "version", &r->version))
            return bad(c, "cudnn", i, "has no version");
        r->full = dup_str(o, "full");
        r->date = dup_str(o, "date");
        r->manifest_sha256 = dup_str(o, "manifest_sha256");
        const json_t *v = json_object_get(o, "variants");
        r->variants_known = json_is_object(v);
        r->variants_x86_64 = cu_json_strv(v, "linux-x86_64", NULL);
        r->variants_sbsa = cu_json_strv(v, "linux-sbsa", NULL);
        r->variants_aarch64 = cu_json_strv(v, "linux-aarch64", NULL);
        cat->n_cudnn++;
    }
    return CU_OK;
}

static struct cu_version *
version_list(const json_t *a, size_t *n, bool *ok)
{
    size_t cnt = json_is_array(a) ? json_array_size(a) : 0;
    struct cu_version *v = cu_xcalloc(cnt + 1, sizeof(*v));
    *ok = json_is_array(a);
    for (size_t k = 0; k < cnt; k++) {
        const json_t *e = json_array_get(a, k);
        if (!json_is_string(e) || !cu_version_parse(json_string_value(e), &v[k]))
            *ok = false;
    }
    *n = cnt;
    return v;
}

static enum cu_status
conv_cudnn_support(struct conv *c, const json_t *root, struct cu_catalog *cat)
{
    size_t n;
    const json_t *a = need_array(c, root, "cudnn_support", &n);
    if (!a)
        return CU_E_INPUT;
    cat->cudnn_support = cu_xcalloc(n + 1, sizeof(*cat->cudnn_support));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_cudnn_support *s = &cat->cudnn_support[i];
        uint64_t maj;
        bool ok;
        const char *m = cu_json_str(o, "cuda_major");
        if (!cu_json_version(o, "cudnn", &s->cudnn) || !m || !cu_parse_u64(m, 1000, &maj) ||
            !cu_json_opt_version(o, "driver", &s->driver))
            return bad(c, "cudnn_support", i, "is malformed");
        s->cuda_major = (int)maj;
        s->cc = version_list(json_object_get(o, "cc"), &s->n_cc, &ok);
        if (!ok)
            return bad(c, "cudnn_support", i, "has a malformed compute capability list");
        if (json_object_get(o, "cuda")) {
            s->cuda = version_list(json_object_get(o, "cuda"), &s->n_cuda, &ok);
            if (!ok)
                return bad(c, "cudnn_support", i, "has a malformed CUDA list");
        }
        json_t *needs = json_object_get(o, "cc_needs_cuda");
        if (json_is_object(needs)) {
            const char *key;
            json_t *val;
            size_t k = 0, cnt = json_object_size(needs);
            s->cc_needs_cc = cu_xcalloc(cnt + 1, sizeof(struct cu_version));
            s->cc_needs_cuda = cu_xcalloc(cnt + 1, sizeof(struct cu_version));
            json_object_foreach(needs, key, val) {
                if (!cu_version_parse(key, &s->cc_needs_cc[k]) || !json_is_string(val) ||
                    !cu_version_parse(json_string_value(val), &s->cc_needs_cuda[k]))
                    return bad(c, "cudnn_support", i, "has a malformed cc_needs_cuda");
                k++;
            }
            s->n_cc_needs = k;
        }
        cat->n_cudnn_support++;
    }
    return CU_OK;
}

static bool
py_range(const json_t *o, struct cu_version *lo, struct cu_version *hi)
{
    const json_t *a = json_object_get(o, "python");
    if (!json_is_array(a) || json_array_size(a) != 2)
        return false;
    return json_is_string(json_array_get(a, 0)) && json_is_string(json_array_get(a, 1)) &&
           cu_version_parse(json_string_value(json_array_get(a, 0)), lo) &&
           cu_version_parse(json_string_value(json_array_get(a, 1)), hi);
}

static enum cu_status
conv_frameworks(struct conv *c, const json_t *root, struct cu_catalog *cat)
{
    size_t n;
    const json_t *a = need_array(c, root, "tensorflow", &n);
    if (!a)
        return CU_E_INPUT;
    cat->tf = cu_xcalloc(n + 1, sizeof(*cat->tf));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_tf *t = &cat->tf[i];
        if (!cu_json_version(o, "version", &t->version) || !py_range(o, &t->py_min, &t->py_max) ||
            !cu_json_version(o, "cuda", &t->cuda) || !cu_json_version(o, "cudnn", &t->cudnn) ||
            !cu_json_str(o, "package"))
            return bad(c, "tensorflow", i, "is malformed");
        t->package = dup_str(o, "package");
        if (!cu_json_opt_version(o, "cuda_max", &t->cuda_max))
            return bad(c, "tensorflow", i, "has a malformed cuda_max");
        t->cuda_max_why = dup_str(o, "cuda_max_why");
        const json_t *pa = json_object_get(o, "patches");
        if (pa && !json_is_array(pa))
            return bad(c, "tensorflow", i, "has malformed patches");
        t->patches = cu_xcalloc(json_array_size(pa) + 1, sizeof(*t->patches));
        for (size_t k = 0; k < json_array_size(pa); k++)
            if (!json_is_string(json_array_get(pa, k)) ||
                !cu_version_parse(json_string_value(json_array_get(pa, k)), &t->patches[t->n_patches++]) ||
                cu_version_cmp(&t->patches[k], &t->version) < 0 || t->patches[k].part[0] != t->version.part[0] ||
                t->patches[k].part[1] != t->version.part[1])
                return bad(c, "tensorflow", i, "has a patch that is not a release of its minor");
        cat->n_tf++;
    }

    a = need_array(c, root, "pytorch", &n);
    if (!a)
        return CU_E_INPUT;
    cat->torch = cu_xcalloc(n + 1, sizeof(*cat->torch));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_torch *t = &cat->torch[i];
        const json_t *b = json_object_get(o, "builds");
        if (!cu_json_version(o, "minor", &t->minor) || !py_range(o, &t->py_min, &t->py_max) ||
            !json_is_array(b))
            return bad(c, "pytorch", i, "is malformed");
        const json_t *x = json_object_get(o, "python_experimental");
        if (x && (!cu_json_version(x, "python", &t->py_exp) || !json_is_integer(json_object_get(x, "cuda_major")) ||
                  !cu_json_str(x, "wheel")))
            return bad(c, "pytorch", i, "has a malformed python_experimental");
        if (x) {
            t->py_exp_major = (int)json_integer_value(json_object_get(x, "cuda_major"));
            t->py_exp_wheel = dup_str(x, "wheel");
        }
        t->builds = cu_xcalloc(json_array_size(b) + 1, sizeof(*t->builds));
        for (size_t k = 0; k < json_array_size(b); k++) {
            const json_t *e = json_array_get(b, k);
            struct cu_cat_torch_build *tb = &t->builds[k];
            if (!cu_json_version(e, "cuda", &tb->cuda) || !cu_json_str(e, "tag"))
                return bad(c, "pytorch", i, "has a malformed build");
            tb->cudnn = dup_str(e, "cudnn");
            tb->tag = dup_str(e, "tag");
            tb->stable = json_is_true(json_object_get(e, "stable"));
            t->n_builds++;
        }
        cat->n_torch++;
    }

    a = need_array(c, root, "pytorch_versions", &n);
    if (!a)
        return CU_E_INPUT;
    cat->torch_versions = cu_xcalloc(n + 1, sizeof(*cat->torch_versions));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_torch_version *t = &cat->torch_versions[i];
        if (!cu_json_version(o, "version", &t->version))
            return bad(c, "pytorch_versions", i, "is malformed");
        t->torchvision = dup_str(o, "torchvision");
        t->torchaudio = dup_str(o, "torchaudio");
        t->tags = cu_json_strv(o, "tags", NULL);
        cat->n_torch_versions++;
    }

    const json_t *rel = json_object_get(root, "pypi_releases");
    static const char *const rel_keys[] = {"pytorch", "jax"};
    for (size_t k = 0; rel && k < 2; k++) {
        const json_t *l = json_object_get(rel, rel_keys[k]);
        struct cu_version **v = k == 0 ? &cat->pypi_torch : &cat->pypi_jax;
        size_t *nv = k == 0 ? &cat->n_pypi_torch : &cat->n_pypi_jax;
        if (l && !json_is_array(l))
            return bad(c, "pypi_releases", k, "is not a list");
        *v = cu_xcalloc(json_array_size(l) + 1, sizeof(**v));
        for (size_t i = 0; i < json_array_size(l); i++) {
            if (!json_is_string(json_array_get(l, i)) || !cu_version_parse(json_string_value(json_array_get(l, i)), &(*v)[i]))
                return bad(c, "pypi_releases", i, "has a malformed version");
            (*nv)++;
        }
    }

    /* The day each framework's record of PyPI was last read (a refusal that rests on it names it). */
    const json_t *read = json_object_get(root, "pypi_read");
    cat->pypi_read_torch = dup_str(read, "pytorch");
    cat->pypi_read_jax = dup_str(read, "jax");
    cat->pypi_read_tf = dup_str(read, "tensorflow");

    const json_t *jax = json_object_get(root, "jax");
    a = need_array(c, jax, "plugins", &n);
    if (!a)
        return CU_E_INPUT;
    cat->jax = cu_xcalloc(n + 1, sizeof(*cat->jax));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_jax_plugin *p = &cat->jax[i];
        uint64_t maj;
        const char *m = cu_json_str(o, "cuda_major");
        const json_t *br = json_object_get(o, "driver_branch");
        if (!m || !cu_parse_u64(m, 1000, &maj) || !json_is_integer(br) ||
            !cu_json_version(o, "min_sm", &p->min_sm) || !cu_json_version(o, "cuda_min", &p->cuda_min) ||
            !cu_json_version(o, "cudnn_min", &p->cudnn_min) ||
            !cu_json_opt_version(o, "cudnn_max_exclusive", &p->cudnn_max_exclusive) ||
            !cu_json_str(o, "extra") || !cu_json_str(o, "local_extra"))
            return bad(c, "jax.plugins", i, "is malformed");
        p->cuda_major = (int)maj;
        p->driver_branch = (int)json_integer_value(br);
        p->extra = dup_str(o, "extra");
        p->local_extra = dup_str(o, "local_extra");
        p->first_version = dup_str(o, "first_version");
        cat->n_jax++;
    }
    return CU_OK;
}

static int *
int_list(const json_t *a, size_t *n, bool *ok)
{
    size_t cnt = json_is_array(a) ? json_array_size(a) : 0;
    int *v = cu_xcalloc(cnt + 1, sizeof(*v));
    *ok = json_is_array(a);
    for (size_t k = 0; k < cnt; k++) {
        const json_t *e = json_array_get(a, k);
        if (!json_is_integer(e) || json_integer_value(e) <= 0 || json_integer_value(e) > 1000)
            *ok = false;
        else
            v[k] = (int)json_integer_value(e);
    }
    *n = cnt;
    return v;
}

static enum cu_status
conv_code_list(struct conv *c, const json_t *gc, const char *key, struct cu_cat_code **out, size_t *count)
{
    size_t n;
    const json_t *a = need_array(c, gc, key, &n);
    if (!a)
        return CU_E_INPUT;
    *out = cu_xcalloc(n + 1, sizeof(**out));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_code *e = &(*out)[i];
        const char *conf = cu_json_str(o, "confidence");
        bool ok1, ok2;
        if (json_object_get(o, "torch")) {
            if (!cu_json_version(o, "torch", &e->from) || !cu_json_str(o, "tag"))
                return bad(c, key, i, "is malformed");
            e->to = e->from;
            e->exact = json_is_true(json_object_get(o, "exact"));
            e->tag = dup_str(o, "tag");
        } else if (!cu_json_version(o, "from", &e->from) || !cu_json_version(o, "to", &e->to)) {
            return bad(c, key, i, "is malformed");
        }
        const json_t *maj = json_object_get(o, "cuda_major");
        for (size_t k = 0; json_is_array(maj) && k < json_array_size(maj) && k < 3; k++)
            e->cuda_majors[k] = (int)json_integer_value(json_array_get(maj, k));
        e->sass = int_list(json_object_get(o, "sass"), &e->n_sass, &ok1);
        e->ptx = int_list(json_object_get(o, "ptx"), &e->n_ptx, &ok2);
        if (!ok1 || !ok2 || !conf)
            return bad(c, key, i, "has a malformed arch list");
        e->read = strcmp(conf, "read") == 0;
        e->source = dup_str(o, "source");
        (*count)++;
    }
    return CU_OK;
}

static void
code_list_free(struct cu_cat_code *list)
{
    for (size_t i = 0; list && list[i].from.n; i++) {
        free(list[i].tag);
        free(list[i].sass);
        free(list[i].ptx);
        free(list[i].source);
    }
    free(list);
}

static enum cu_status
conv_gpu_code(struct conv *c, const json_t *root, struct cu_catalog *cat)
{
    const json_t *gc = json_object_get(root, "gpu_code");
    enum cu_status st;
    if (!json_is_object(gc))
        return cu_error_set(c->err, CU_E_INPUT, 0, "%s: \"gpu_code\" is missing", c->what);
    if ((st = conv_code_list(c, gc, "pytorch", &cat->code_torch, &cat->n_code_torch)) != CU_OK ||
        (st = conv_code_list(c, gc, "tensorflow", &cat->code_tf, &cat->n_code_tf)) != CU_OK ||
        (st = conv_code_list(c, gc, "jax", &cat->code_jax, &cat->n_code_jax)) != CU_OK)
        return st;
    return CU_OK;
}

static enum cu_status
conv_components(struct conv *c, const json_t *root, struct cu_catalog *cat)
{
    const json_t *comp = json_object_get(root, "components");
    json_t *groups = json_object_get(comp, "groups");
    const char *key;
    json_t *val;
    size_t i = 0;

    if (!json_is_object(comp) || !json_is_array(json_object_get(comp, "default")) ||
        !json_is_object(groups))
        return cu_error_set(c->err, CU_E_INPUT, 0, "%s: \"components\" is malformed", c->what);
    cat->components_default = cu_json_strv(comp, "default", NULL);
    cat->components_never = cu_json_strv(comp, "never", NULL);
    cat->cudnn_components_default = cu_json_strv(comp, "cudnn_default", NULL);
    cat->groups = cu_xcalloc(json_object_size(groups) + 1, sizeof(*cat->groups));
    json_object_foreach(groups, key, val) {
        cat->groups[i].name = cu_xstrdup(key);
        cat->groups[i].members = cu_json_strv(groups, key, NULL);
        i++;
    }
    cat->n_groups = i;
    return CU_OK;
}

enum cu_status
cu_catalog_from_json(const json_t *root, const char *what, struct cu_catalog **out, struct cu_error *err)
{
    struct conv c = {what, err};
    struct cu_catalog *cat;
    enum cu_status st;

    *out = NULL;
    if (json_integer_value(json_object_get(root, "schema")) != 1)
        return cu_error_set(err, CU_E_INPUT, 0, "%s: unknown schema (expected 1)", what);
    cat = cu_xcalloc(1, sizeof(*cat));
    if ((st = conv_gpus(&c, root, cat)) != CU_OK || (st = conv_named_cc(&c, root, "products", cat, true)) ||
        (st = conv_named_cc(&c, root, "chips", cat, false)) || (st = conv_cuda(&c, root, cat)) ||
        (st = conv_cuda_majors(&c, root, cat)) || (st = conv_cuda_sm(&c, root, cat)) ||
        (st = conv_cudnn(&c, root, cat)) || (st = conv_cudnn_support(&c, root, cat)) ||
        (st = conv_frameworks(&c, root, cat)) || (st = conv_gpu_code(&c, root, cat)) ||
        (st = cu_cat_pythons_parse(json_object_get(root, "pythons"), what, &cat->pythons, &cat->n_pythons, err)) || (st = conv_components(&c, root, cat)) ||
        (st = cu_catalog_pip_parse(root, what, &cat->pip, err)) ||
        (st = cu_catalog_wheels_parse(root, what, &cat->wheels, err)) ||
        (st = cu_catalog_gpu_checks_parse(root, what, &cat->gpu_checks, err)) ||
        (st = cu_catalog_loads_parse(root, what, &cat->loads, err)) ||
        (st = cu_cat_legacy_parse(json_object_get(root, "legacy"), what, &cat->legacy, err)) ||
        (st = cu_drv_data_parse(json_object_get(root, "driver"), what, &cat->driver, err)) ||
        (st = cu_ctk_data_parse(json_object_get(root, "containers"), what, &cat->containers, err)) ||
        (st = cu_cat_learned_parse(root, what, &cat->learned, &cat->n_learned, err))) {
        cu_catalog_free(cat);
        return st;
    }
    *out = cat;
    return CU_OK;
}

enum cu_status
cu_catalog_parse(const char *data, size_t len, const char *what, struct cu_catalog **out,
                 struct cu_error *err)
{
    json_t *root = NULL;
    enum cu_status st;

    *out = NULL;
    st = cu_json_parse_object(data, len, what, &root, err);
    if (st != CU_OK)
        return st;
    st = cu_catalog_from_json(root, what, out, err);
    json_decref(root);
    if (st == CU_OK) {
        /* Kept, so that what an index teaches can be added to it in its own shapes (catalog_learned.c). */
        (*out)->src = cu_xstrndup(data, len);
        (*out)->src_len = len;
    }
    return st;
}

enum cu_status
cu_catalog_load(const char *path, struct cu_catalog **out, struct cu_error *err)
{
    if (!path)
        return cu_catalog_parse((const char *)cu_catalog_json, cu_catalog_json_len,
                                "the built-in catalog", out, err);
    CU_AUTOFCLOSE FILE *f = fopen(path, "rb");
    if (!f)
        return cu_error_set(err, errno == ENOENT ? CU_E_USAGE : CU_E_IO, errno,
                            "Cannot read the catalog %s", path);
    struct cu_buf b;
    char chunk[65536];
    size_t n;
    cu_buf_init(&b);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        cu_buf_append(&b, chunk, n);
        if (b.len > 64u << 20) {
            cu_buf_fini(&b);
            return cu_error_set(err, CU_E_INPUT, 0, "The catalog %s is larger than 64 MiB", path);
        }
    }
    CU_AUTOFREE char *what = cu_xasprintf("the catalog %s", path);
    enum cu_status st = cu_catalog_parse(b.data, b.len, what, out, err);
    cu_buf_fini(&b);
    return st;
}

void
cu_catalog_free(struct cu_catalog *cat)
{
    if (!cat)
        return;
    cu_drv_data_free(cat->driver);
    cu_ctk_data_free(cat->containers);
    cu_cat_legacy_free(cat->legacy);
    cu_cat_learned_free(cat->learned, cat->n_learned);
    free(cat->src);
    for (size_t i = 0; cat->gpus && cat->gpus[i].name; i++) {
        free(cat->gpus[i].name);
        free(cat->gpus[i].chip);
    }
    free(cat->gpus);
    for (size_t i = 0; cat->products && cat->products[i].name; i++) {
        free(cat->products[i].name);
        free(cat->products[i].arch);
    }
    free(cat->products);
    for (size_t i = 0; cat->chips && cat->chips[i].chip; i++) {
        free(cat->chips[i].chip);
        free(cat->chips[i].arch);
    }
    free(cat->chips);
    for (size_t i = 0; cat->cuda && cat->cuda[i].version.n; i++) {
        free(cat->cuda[i].label);
        free(cat->cuda[i].manifest_sha256);
        free(cat->cuda[i].date);
    }
    free(cat->cuda);
    free(cat->cuda_majors);
    for (size_t i = 0; cat->cuda_sm && cat->cuda_sm[i].minor.n; i++)
        free(cat->cuda_sm[i].sm);
    free(cat->cuda_sm);
    for (size_t i = 0; cat->cudnn && cat->cudnn[i].version.n; i++) {
        struct cu_cat_cudnn *r = &cat->cudnn[i];
        free(r->full);
        free(r->date);
        free(r->manifest_sha256);
        cu_strv_free(r->variants_x86_64);
        cu_strv_free(r->variants_sbsa);
        cu_strv_free(r->variants_aarch64);
    }
    free(cat->cudnn);
    for (size_t i = 0; cat->cudnn_support && cat->cudnn_support[i].cudnn.n; i++) {
        free(cat->cudnn_support[i].cc);
        free(cat->cudnn_support[i].cc_needs_cc);
        free(cat->cudnn_support[i].cc_needs_cuda);
        free(cat->cudnn_support[i].cuda);
    }
    free(cat->cudnn_support);
    for (size_t i = 0; cat->tf && cat->tf[i].version.n; i++) {
        free(cat->tf[i].package);
        free(cat->tf[i].cuda_max_why);
        free(cat->tf[i].patches);
    }
    free(cat->tf);
    code_list_free(cat->code_torch);
    code_list_free(cat->code_tf);
    code_list_free(cat->code_jax);
    cu_catalog_pip_fini(&cat->pip);
    cu_catalog_wheels_fini(&cat->wheels);
    cu_catalog_loads_fini(&cat->loads);
    cu_catalog_gpu_checks_fini(&cat->gpu_checks);
    cu_cat_pythons_free(cat->pythons, cat->n_pythons);
    for (size_t i = 0; cat->torch && cat->torch[i].minor.n; i++) {
        for (size_t k = 0; cat->torch[i].builds && cat->torch[i].builds[k].tag; k++) {
            free(cat->torch[i].builds[k].cudnn);
            free(cat->torch[i].builds[k].tag);
        }
        free(cat->torch[i].builds);
        free(cat->torch[i].py_exp_wheel);
    }
    free(cat->torch);
    for (size_t i = 0; cat->torch_versions && cat->torch_versions[i].version.n; i++) {
        free(cat->torch_versions[i].torchvision);
        free(cat->torch_versions[i].torchaudio);
        cu_strv_free(cat->torch_versions[i].tags);
    }
    free(cat->torch_versions);
    free(cat->pypi_torch);
    free(cat->pypi_jax);
    free(cat->pypi_read_torch);
    free(cat->pypi_read_jax);
    free(cat->pypi_read_tf);
    for (size_t i = 0; cat->jax && cat->jax[i].extra; i++) {
        free(cat->jax[i].extra);
        free(cat->jax[i].local_extra);
        free(cat->jax[i].first_version);
    }
    free(cat->jax);
    cu_strv_free(cat->components_default);
    cu_strv_free(cat->components_never);
    cu_strv_free(cat->cudnn_components_default);
    for (size_t i = 0; cat->groups && cat->groups[i].name; i++) {
        free(cat->groups[i].name);
        cu_strv_free(cat->groups[i].members);
    }
    free(cat->groups);
    free(cat);
}

const struct cu_cat_gpu *
cu_catalog_gpu(const struct cu_catalog *cat, uint16_t device)
{
    struct cu_cat_gpu key = {.device = device};
    return bsearch(&key, cat->gpus, cat->n_gpus, sizeof(key), cmp_gpu);
}

/* Compare product names ignoring case, a leading "NVIDIA " and runs of spaces. */
static bool
same_product(const char *a, const char *b)
{
    if (strncasecmp(a, "NVIDIA ", 7) == 0)
        a += 7;
    if (strncasecmp(b, "NVIDIA ", 7) == 0)
        b += 7;
    while (isspace((unsigned char)*a))
        a++;
    while (isspace((unsigned char)*b))
        b++;
    while (*a && *b) {
        if (isspace((unsigned char)*a) && isspace((unsigned char)*b)) {
            while (isspace((unsigned char)*a))
                a++;
            while (isspace((unsigned char)*b))
                b++;
            continue;
        }
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
        a++;
        b++;
    }
    return *a == *b;
}

const struct cu_cat_product *
cu_catalog_product(const struct cu_catalog *cat, const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < cat->n_products; i++)
        if (same_product(cat->products[i].name, name))
            return &cat->products[i];
    return NULL;
}

const char *
cu_catalog_arch_name(const struct cu_catalog *cat, const struct cu_version *cc)
{
    if (!cc || cc->n == 0)
        return NULL;
    for (size_t i = 0; i < cat->n_chips; i++)
        if (cu_version_cmp(&cat->chips[i].cc, cc) == 0)
            return cat->chips[i].arch;
    /* Same major, another minor (8.7 is Ampere like 8.0). */
    for (size_t i = 0; i < cat->n_chips; i++)
        if (cat->chips[i].cc.part[0] == cc->part[0])
            return cat->chips[i].arch;
    return NULL;
}

const struct cu_cat_cudnn *
cu_catalog_cudnn(const struct cu_catalog *cat, const struct cu_version *version)
{
    for (size_t i = 0; i < cat->n_cudnn; i++) {
        struct cu_version mine = cat->cudnn[i].version;
        if (cu_version_cmp(&mine, version) == 0 ||
            (version->n == 4 && cu_version_matches(version, &mine)))
            return &cat->cudnn[i];
    }
    return NULL;
}

char **
cu_catalog_component_group(const struct cu_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_groups; i++)
        if (strcmp(cat->groups[i].name, name) == 0)
            return cat->groups[i].members;
    return NULL;
}

bool
cu_catalog_component_never(const struct cu_catalog *cat, const char *component)
{
    for (char **p = cat->components_never; p && *p; p++)
        if (strcmp(*p, component) == 0)
            return true;
    return false;
}

static bool
in_range(const struct cu_cat_code *e, const struct cu_version *v)
{
    return cu_version_cmp(v, &e->from) >= 0 && cu_version_cmp(v, &e->to) <= 0;
}

const struct cu_cat_code *
cu_catalog_torch_code(const struct cu_catalog *cat, const struct cu_version *version, const char *tag)
{
    struct cu_version minor = {{version->part[0], version->n > 1 ? version->part[1] : 0}, 2};
    /* A row for this very release wins over the row for its minor. */
    for (size_t i = 0; version->n >= 3 && i < cat->n_code_torch; i++) {
        const struct cu_cat_code *e = &cat->code_torch[i];
        if (e->exact && strcmp(e->tag, tag) == 0 && cu_version_cmp(&e->from, version) == 0)
            return e;
    }
    for (size_t i = 0; i < cat->n_code_torch; i++) {
        const struct cu_cat_code *e = &cat->code_torch[i];
        if (!e->exact && strcmp(e->tag, tag) == 0 && cu_version_cmp(&e->from, &minor) == 0)
            return e;
    }
    /* A minor asked for (torch==2.13.*), no row for the minor: pip takes its newest release on PyPI, so that
     * release's own row speaks for it (2.13's cu130 was read for 2.13.0, its only release). */
    const struct cu_version *newest = NULL;
    for (size_t i = 0; version->n < 3 && i < cat->n_pypi_torch; i++)
        if (cat->pypi_torch[i].part[0] == minor.part[0] && cat->pypi_torch[i].part[1] == minor.part[1] &&
            (!newest || cu_version_cmp(&cat->pypi_torch[i], newest) > 0))
            newest = &cat->pypi_torch[i];
    return newest ? cu_catalog_torch_code(cat, newest, tag) : NULL;
}

const struct cu_cat_code *
cu_catalog_tf_code(const struct cu_catalog *cat, const struct cu_version *version)
{
    for (size_t i = 0; i < cat->n_code_tf; i++)
        if (in_range(&cat->code_tf[i], version))
            return &cat->code_tf[i];
    return NULL;
}

const struct cu_cat_code *
cu_catalog_jax_code(const struct cu_catalog *cat, const struct cu_version *version, int major)
{
    for (size_t i = 0; i < cat->n_code_jax; i++) {
        const struct cu_cat_code *e = &cat->code_jax[i];
        bool has_major = false;
        for (size_t k = 0; k < 3 && e->cuda_majors[k]; k++)
            has_major = has_major || e->cuda_majors[k] == major;
        if (has_major && (!version->n || in_range(e, version)))
            return e; /* newest first: with no version, the newest row of that major */
    }
    return NULL;
}
