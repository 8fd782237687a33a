/* SPDX-License-Identifier: MIT */
/* The catalog's "legacy" section: see catalog_legacy.h. */
#include "config.h"

#include "core/catalog/catalog_legacy.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"

static const char *
str(const json_t *o, const char *key)
{
    return cu_json_str(o, key);
}

static char *
dup_or_null(const json_t *o, const char *key)
{
    const char *s = str(o, key);
    return s ? cu_xstrdup(s) : NULL;
}

static bool
ints(const json_t *o, const char *key, int **out, size_t *n)
{
    const json_t *a = json_object_get(o, key);
    size_t i;
    const json_t *v;
    *out = NULL;
    *n = 0;
    if (!json_is_array(a))
        return false;
    *out = cu_xcalloc(json_array_size(a) + 1, sizeof(int));
    json_array_foreach(a, i, v) {
        if (!json_is_integer(v))
            return false;
        (*out)[(*n)++] = (int)json_integer_value(v);
    }
    return true;
}

static bool
sha(const json_t *o, char out[65])
{
    const char *s = str(o, "sha256");
    if (!s || strlen(s) != 64 || strspn(s, "0123456789abcdef") != 64)
        return false;
    memcpy(out, s, 65);
    return true;
}

static char *
sources(const json_t *o)
{
    const json_t *a = json_object_get(o, "sources");
    if (!json_is_array(a) || json_array_size(a) < 2)
        return NULL; /* a hash vouched for by one source is not pinned */
    return cu_xasprintf("%s; %s", json_string_value(json_array_get(a, 0)) ? json_string_value(json_array_get(a, 0)) : "?",
                        json_string_value(json_array_get(a, 1)) ? json_string_value(json_array_get(a, 1)) : "?");
}

static uint64_t
size_of(const json_t *o)
{
    const json_t *s = json_object_get(o, "size");
    return json_is_integer(s) && json_integer_value(s) > 0 ? (uint64_t)json_integer_value(s) : 0;
}

static bool
conv_cuda(const json_t *e, struct cu_cat_legacy_cuda *c)
{
    c->url = dup_or_null(e, "url");
    c->path = dup_or_null(e, "path");
    c->file = dup_or_null(e, "file");
    c->layout = dup_or_null(e, "layout");
    c->sources = sources(e);
    c->size = size_of(e);
    return cu_json_version(e, "version", &c->version) && cu_json_version(e, "driver", &c->driver) && c->url &&
           c->path && c->file && c->layout && c->sources && sha(e, c->sha256) && ints(e, "sm", &c->sm, &c->n_sm);
}

static bool
conv_cudnn(const json_t *e, struct cu_cat_legacy_cudnn *c)
{
    c->full = dup_or_null(e, "full");
    c->variant = dup_or_null(e, "cuda_variant");
    c->url = dup_or_null(e, "url");
    c->path = dup_or_null(e, "path");
    c->file = dup_or_null(e, "file");
    c->sources = sources(e);
    c->size = size_of(e);
    return cu_json_version(e, "version", &c->version) && cu_json_version(e, "cuda_min", &c->cuda_min) &&
           cu_json_version(e, "cuda_max", &c->cuda_max) && c->full && c->variant && c->url && c->path && c->file &&
           c->sources && sha(e, c->sha256);
}

static bool
conv_tf(const json_t *e, struct cu_cat_legacy_tf *t)
{
    const json_t *py = json_object_get(e, "python");
    t->pip = dup_or_null(e, "pip");
    t->keras = dup_or_null(e, "keras");
    t->source = dup_or_null(e, "source");
    t->confidence = dup_or_null(e, "confidence");
    t->pins = cu_json_strv(e, "pins", NULL);
    return cu_json_version(e, "from", &t->from) && cu_json_version(e, "to", &t->to) &&
           cu_json_version(e, "version", &t->version) && cu_json_version(e, "cuda", &t->cuda) &&
           cu_json_version(e, "cudnn", &t->cudnn) && cu_json_version(e, "python_plan", &t->py_plan) &&
           json_is_array(py) && json_array_size(py) == 2 &&
           cu_version_parse(json_string_value(json_array_get(py, 0)) ? json_string_value(json_array_get(py, 0)) : "", &t->py_min) &&
           cu_version_parse(json_string_value(json_array_get(py, 1)) ? json_string_value(json_array_get(py, 1)) : "", &t->py_max) &&
           t->pip && t->pins && ints(e, "sass", &t->sass, &t->n_sass) && ints(e, "ptx", &t->ptx, &t->n_ptx);
}

static bool
conv_nvtf(const json_t *e, struct cu_cat_legacy_nvtf *n)
{
    n->pip = dup_or_null(e, "pip");
    n->version = dup_or_null(e, "version");
    n->index_url = dup_or_null(e, "index_url");
    n->source = dup_or_null(e, "source");
    return n->pip && n->version && n->index_url && cu_json_version(e, "python", &n->python) &&
           cu_json_version(e, "cc_min", &n->cc_min);
}

enum cu_status
cu_cat_legacy_parse(const json_t *s, const char *what, struct cu_cat_legacy **out, struct cu_error *err)
{
    struct cu_cat_legacy *l = cu_xcalloc(1, sizeof(*l));
    const json_t *a, *e;
    size_t i;
    const char *bad = NULL;

    *out = NULL;
    if (!s) { /* a catalog from before the legacy stacks: nothing older than the manifests */
        *out = l;
        return CU_OK;
    }
#define CONV(key, arr, n, fn)                                                                                \
    a = json_object_get(s, key);                                                                         \
    if (!json_is_array(a)) {                                                                             \
        bad = key;                                                                                       \
        goto fail;                                                                                       \
    }                                                                                                    \
    l->arr = cu_xcalloc(json_array_size(a) + 1, sizeof(*l->arr));                                       \
    json_array_foreach(a, i, e) {                                                                        \
        l->n++;                                                                                          \
        if (!json_is_object(e) || !fn(e, &l->arr[i])) {                                                  \
            bad = key;                                                                                   \
            goto fail;                                                                                   \
        }                                                                                                \
    }
    CONV("cuda", cuda, n_cuda, conv_cuda)
    CONV("cudnn", cudnn, n_cudnn, conv_cudnn)
    CONV("tensorflow", tf, n_tf, conv_tf)
    CONV("nvidia_tensorflow", nvtf, n_nvtf, conv_nvtf)
#undef CONV
    *out = l;
    return CU_OK;
fail:
    cu_cat_legacy_free(l);
    return cu_error_set(err, CU_E_INPUT, 0, "%s: \"legacy\".\"%s\" is malformed", what, bad);
}

void
cu_cat_legacy_free(struct cu_cat_legacy *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n_cuda; i++) {
        struct cu_cat_legacy_cuda *c = &l->cuda[i];
        free(c->url), free(c->path), free(c->file), free(c->layout), free(c->sources), free(c->sm);
    }
    for (size_t i = 0; i < l->n_cudnn; i++) {
        struct cu_cat_legacy_cudnn *c = &l->cudnn[i];
        free(c->full), free(c->variant), free(c->url), free(c->path), free(c->file), free(c->sources);
    }
    for (size_t i = 0; i < l->n_tf; i++) {
        struct cu_cat_legacy_tf *t = &l->tf[i];
        free(t->pip), free(t->keras), free(t->source), free(t->confidence), free(t->sass), free(t->ptx);
        cu_strv_free(t->pins);
    }
    for (size_t i = 0; i < l->n_nvtf; i++) {
        struct cu_cat_legacy_nvtf *n = &l->nvtf[i];
        free(n->pip), free(n->version), free(n->index_url), free(n->source);
    }
    free(l->cuda);
    free(l->cudnn);
    free(l->tf);
    free(l->nvtf);
    free(l);
}

const struct cu_cat_legacy_cuda *
cu_cat_legacy_cuda(const struct cu_cat_legacy *l, const struct cu_version *mm)
{
    for (size_t i = 0; l && i < l->n_cuda; i++)
        if (cu_version_matches(&l->cuda[i].version, mm))
            return &l->cuda[i];
    return NULL;
}

const struct cu_cat_legacy_tf *
cu_cat_legacy_tf(const struct cu_cat_legacy *l, const struct cu_version *v)
{
    for (size_t i = 0; l && v->n && i < l->n_tf; i++) {
        const struct cu_cat_legacy_tf *t = &l->tf[i];
        /* 1.15 covers 1.15.0-1.15.5; 1.15.2 lies inside; 1.16 matches nothing */
        struct cu_version lo = *v, hi = *v;
        for (int k = v->n; k < 3; k++)
            lo.part[k] = 0, hi.part[k] = 999999;
        lo.n = hi.n = 3;
        if (cu_version_cmp(&hi, &t->from) >= 0 && cu_version_cmp(&lo, &t->to) <= 0)
            return t;
    }
    return NULL;
}
