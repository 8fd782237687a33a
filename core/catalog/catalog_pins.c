/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/catalog/catalog_pins.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/jsonutil.h"
#include "core/base/mem.h"

static bool
dist_name(const char *s)
{
    return s && *s && strlen(s) < 64 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(s);
}

static bool
companion_name(const char *s)
{
    return s && (strcmp(s, "torchvision") == 0 || strcmp(s, "torchaudio") == 0);
}

static bool
basis_name(const char *s)
{
    static const char *const known[] = {"pin", "matrix", "range", "none"};
    for (size_t i = 0; s && i < sizeof(known) / sizeof(*known); i++)
        if (strcmp(s, known[i]) == 0)
            return true;
    return false;
}

static enum cu_status
parse_companion(const json_t *o, struct cu_cat_companion *c)
{
    const json_t *ver = json_object_get(o, "version"), *rd = json_object_get(o, "read");
    struct cu_version v;
    struct cu_pipspec spec;
    const char *basis = cu_json_str(o, "basis"), *req = cu_json_str(o, "requires");
    if (!cu_json_version(o, "torch", &c->torch) || c->torch.n < 3 || !companion_name(cu_json_str(o, "package")) ||
        !basis_name(basis) || !req || !cu_pipspec_parse(req, &spec) || !json_is_boolean(rd) ||
        !cu_json_str(o, "source") || !(json_is_null(ver) || json_is_string(ver)) ||
        (json_is_string(ver) && !cu_version_parse(json_string_value(ver), &v)) ||
        (strcmp(basis, "none") == 0) != json_is_null(ver))
        return CU_E_INPUT;
    c->package = cu_xstrdup(cu_json_str(o, "package"));
    c->version = json_is_string(ver) ? cu_xstrdup(json_string_value(ver)) : NULL;
    c->requires = cu_xstrdup(req);
    c->basis = cu_xstrdup(basis);
    c->read = json_is_true(rd);
    c->source = cu_xstrdup(cu_json_str(o, "source"));
    return CU_OK;
}

static enum cu_status
parse_release(const json_t *o, struct cu_cat_cuda_release *c)
{
    json_t *w = json_object_get(o, "wheels"), *comps = json_object_get(o, "components"), *val;
    const char *key;
    if (!cu_json_version(o, "release", &c->release) || !dist_name(cu_json_str(o, "runtime")) || !json_is_object(w) ||
        !json_object_get(w, cu_json_str(o, "runtime")))
        return CU_E_INPUT;
    c->runtime = cu_xstrdup(cu_json_str(o, "runtime"));
    c->wheels = cu_xcalloc(json_object_size(w) + 1, sizeof(*c->wheels));
    json_object_foreach(w, key, val) {
        struct cu_cat_cuda_wheel *e = &c->wheels[c->n];
        if (!dist_name(key) || !json_is_string(val) || !cu_version_parse(json_string_value(val), &e->version))
            return CU_E_INPUT;
        e->package = cu_xstrdup(key);
        const char *comp = json_string_value(json_object_get(comps, key)); /* optional (--toolkit wheels) */
        e->component = comp ? cu_xstrdup(comp) : NULL;
        c->n++;
    }
    json_t *only = json_object_get(o, "toolkit_only"); /* optional (--toolkit wheels) */
    if (only && !json_is_object(only))
        return CU_E_INPUT;
    c->toolkit_only = cu_xcalloc(json_object_size(only) + 1, sizeof(*c->toolkit_only));
    json_object_foreach(only, key, val) {
        struct cu_cat_cuda_wheel *e = &c->toolkit_only[c->n_toolkit_only];
        if (!dist_name(key) || !json_is_string(val) || !cu_version_parse(json_string_value(val), &e->version))
            return CU_E_INPUT;
        e->package = cu_xstrdup(key);
        const char *comp = json_string_value(json_object_get(comps, key));
        e->component = comp ? cu_xstrdup(comp) : NULL;
        c->n_toolkit_only++;
    }
    /* Which source vouches a wheel's version where it is not the manifest (optional; a wheel not named is at its
     * manifest's version): each names a wheel of the release, by a source cudaup knows. */
    json_t *vouched = json_object_get(o, "vouched_by");
    if (vouched && !json_is_object(vouched))
        return CU_E_INPUT;
    json_object_foreach(vouched, key, val) {
        struct cu_cat_cuda_wheel *e = NULL;
        for (size_t k = 0; !e && k < c->n + c->n_toolkit_only; k++) {
            struct cu_cat_cuda_wheel *x = k < c->n ? &c->wheels[k] : &c->toolkit_only[k - c->n];
            if (strcmp(x->package, key) == 0)
                e = x;
        }
        const char *by = json_string_value(val);
        if (!e || !by || (strcmp(by, "cuda-toolkit") != 0 && strcmp(by, "manifest") != 0))
            return CU_E_INPUT;
        e->by_toolkit = strcmp(by, "cuda-toolkit") == 0;
    }
    json_t *unheld = json_object_get(o, "unheld"); /* optional */
    if (unheld && !json_is_object(unheld))
        return CU_E_INPUT;
    c->unheld = cu_xcalloc(json_object_size(unheld) + 1, sizeof(*c->unheld));
    json_object_foreach(unheld, key, val) {
        struct cu_cat_cuda_wheel *e = &c->unheld[c->n_unheld];
        if (!dist_name(key) || !json_is_string(val) || !*json_string_value(val))
            return CU_E_INPUT;
        e->package = cu_xstrdup(key);
        e->component = cu_xstrdup(json_string_value(val));
        c->n_unheld++;
    }
    return CU_OK;
}

enum cu_status
cu_catalog_pins_parse(const json_t *root, const char *what, struct cu_catalog_pins *out, struct cu_error *err)
{
    memset(out, 0, sizeof(*out));
    const json_t *a = json_object_get(root, "pytorch_companions"), *c = json_object_get(root, "cuda_wheels");
    if ((a && !json_is_array(a)) || (c && !json_is_array(c)))
        return cu_error_set(err, CU_E_INPUT, 0, "%s: \"pytorch_companions\" or \"cuda_wheels\" is not a list", what);
    out->companions = cu_xcalloc(json_array_size(a) + 1, sizeof(*out->companions));
    for (size_t i = 0; i < json_array_size(a); i++) {
        struct cu_cat_companion *e = &out->companions[out->n_companions++];
        /* newest torch first, as the accessor takes the first row of a minor */
        if (parse_companion(json_array_get(a, i), e) != CU_OK ||
            (i > 0 && cu_pipver_cmp(&out->companions[i - 1].torch, &e->torch) < 0)) {
            cu_catalog_pins_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: pytorch_companions[%zu] is malformed", what, i);
        }
    }
    out->cuda = cu_xcalloc(json_array_size(c) + 1, sizeof(*out->cuda));
    for (size_t i = 0; i < json_array_size(c); i++) {
        struct cu_cat_cuda_release *e = &out->cuda[out->n_cuda++];
        if (parse_release(json_array_get(c, i), e) != CU_OK ||
            (i > 0 && cu_pipver_cmp(&out->cuda[i - 1].release, &e->release) <= 0)) {
            cu_catalog_pins_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: cuda_wheels[%zu] is malformed", what, i);
        }
    }
    return CU_OK;
}

void
cu_catalog_pins_fini(struct cu_catalog_pins *p)
{
    for (size_t i = 0; p->companions && i < p->n_companions; i++) {
        free(p->companions[i].package);
        free(p->companions[i].version);
        free(p->companions[i].requires);
        free(p->companions[i].basis);
        free(p->companions[i].source);
    }
    free(p->companions);
    for (size_t i = 0; p->cuda && i < p->n_cuda; i++) {
        for (size_t k = 0; k < p->cuda[i].n; k++) {
            free(p->cuda[i].wheels[k].package);
            free(p->cuda[i].wheels[k].component);
        }
        free(p->cuda[i].wheels);
        for (size_t k = 0; k < p->cuda[i].n_toolkit_only; k++) {
            free(p->cuda[i].toolkit_only[k].package);
            free(p->cuda[i].toolkit_only[k].component);
        }
        free(p->cuda[i].toolkit_only);
        for (size_t k = 0; k < p->cuda[i].n_unheld; k++) {
            free(p->cuda[i].unheld[k].package);
            free(p->cuda[i].unheld[k].component);
        }
        free(p->cuda[i].unheld);
        free(p->cuda[i].runtime);
    }
    free(p->cuda);
    memset(p, 0, sizeof(*p));
}

const struct cu_cat_companion *
cu_catalog_companion(const struct cu_catalog_pins *p, const char *package, const struct cu_version *torch)
{
    for (size_t i = 0; i < p->n_companions; i++) {
        const struct cu_cat_companion *c = &p->companions[i];
        if (strcmp(c->package, package) != 0)
            continue;
        /* An exact release, or the first (newest) of the minor asked. */
        if (torch->n >= 3 ? cu_pipver_cmp(&c->torch, torch) == 0 : cu_version_matches(&c->torch, torch))
            return c;
    }
    return NULL;
}

const struct cu_cat_companion *
cu_catalog_companion_newest(const struct cu_catalog_pins *p, const char *package)
{
    for (size_t i = 0; i < p->n_companions; i++)
        if (strcmp(p->companions[i].package, package) == 0 && p->companions[i].version)
            return &p->companions[i];
    return NULL;
}

const struct cu_version *
cu_catalog_cuda_wheel_version(const struct cu_cat_cuda_release *c, const char *package)
{
    for (size_t k = 0; k < c->n; k++)
        if (strcmp(c->wheels[k].package, package) == 0)
            return &c->wheels[k].version;
    return NULL;
}

bool
cu_catalog_cuda_wheel_known(const struct cu_catalog_pins *p, const char *package)
{
    for (size_t i = 0; i < p->n_cuda; i++)
        if (cu_catalog_cuda_wheel_version(&p->cuda[i], package))
            return true;
    return false;
}

/* Does release @c have each of the @n wheels, at a version its spec admits (only the runtime's: @runtime_only)? */
static bool
agrees(const struct cu_cat_cuda_release *c, const char *const *pkgs, const struct cu_pipspec *const *specs, size_t n,
       bool runtime_only)
{
    bool runtime_seen = false;
    for (size_t i = 0; i < n; i++) {
        bool is_runtime = strcmp(pkgs[i], c->runtime) == 0;
        if (runtime_only && !is_runtime)
            continue;
        const struct cu_version *v = cu_catalog_cuda_wheel_version(c, pkgs[i]);
        if (!v || !cu_pipspec_contains(specs[i], v))
            return false;
        runtime_seen |= is_runtime;
    }
    return runtime_seen;
}

const struct cu_cat_cuda_release *
cu_catalog_cuda_release_held(const struct cu_catalog_pins *p, const char *const *pkgs,
                             const struct cu_pipspec *const *specs, size_t n, bool *all)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < p->n_cuda; i++)
            if (agrees(&p->cuda[i], pkgs, specs, n, pass == 1)) {
                if (all)
                    *all = pass == 0;
                return &p->cuda[i];
            }
    return NULL;
}
