/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/catalog/catalog_pip.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/jsonutil.h"
#include "core/base/mem.h"


enum cu_status
cu_catalog_pip_parse(const json_t *root, const char *what, struct cu_catalog_pip *out, struct cu_error *err)
{
    memset(out, 0, sizeof(*out));
    const json_t *a = json_object_get(root, "pip_libraries");
    if (a && !json_is_array(a))
        return cu_error_set(err, CU_E_INPUT, 0, "%s: \"pip_libraries\" is not a list", what);
    size_t n = a ? json_array_size(a) : 0;
    out->libs = cu_xcalloc(n + 1, sizeof(*out->libs));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_pip_lib *l = &out->libs[out->n_libs];
        const json_t *maj = json_object_get(o, "cuda_major"), *rd = json_object_get(o, "read");
        if (!json_is_integer(maj) || json_integer_value(maj) <= 0 || json_integer_value(maj) > 1000 ||
            !json_is_boolean(rd) || !cu_json_version(o, "from", &l->from) || !cu_json_version(o, "to", &l->to) ||
            !cu_json_version(o, "min", &l->min) || !cu_json_opt_version(o, "max_exclusive", &l->max_excl) ||
            !cu_json_str(o, "framework") || !cu_json_str(o, "package") || !cu_json_str(o, "library") ||
            !cu_json_str(o, "wheel")) {
            cu_catalog_pip_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: pip_libraries[%zu] is malformed", what, i);
        }
        l->cuda_major = (int)json_integer_value(maj);
        l->read = json_is_true(rd);
        l->framework = cu_xstrdup(cu_json_str(o, "framework"));
        l->wheel = cu_xstrdup(cu_json_str(o, "wheel"));
        l->package = cu_xstrdup(cu_json_str(o, "package"));
        l->library = cu_xstrdup(cu_json_str(o, "library"));
        l->source = cu_xstrdup(cu_json_str(o, "source"));
        out->n_libs++;
    }
    const json_t *h = json_object_get(json_object_get(root, "jax"), "history");
    n = json_is_array(h) ? json_array_size(h) : 0;
    out->jax_built = cu_xcalloc(n + 1, sizeof(*out->jax_built));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(h, i);
        struct cu_cat_jax_built *b = &out->jax_built[out->n_jax_built];
        if (!json_object_get(o, "built_with"))
            continue;
        if (!cu_json_version(o, "version", &b->version) || !cu_json_version(o, "built_with", &b->cuda)) {
            cu_catalog_pip_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: jax.history[%zu] is malformed", what, i);
        }
        out->n_jax_built++;
    }
    const json_t *py = json_object_get(json_object_get(root, "jax"), "python");
    if (py && !json_is_array(py)) {
        cu_catalog_pip_fini(out);
        return cu_error_set(err, CU_E_INPUT, 0, "%s: jax.python is not a list", what);
    }
    n = py ? json_array_size(py) : 0;
    out->jax_python = cu_xcalloc(n + 1, sizeof(*out->jax_python));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(py, i);
        struct cu_cat_jax_python *e = &out->jax_python[out->n_jax_python];
        if (!cu_json_version(o, "from", &e->from) || !cu_json_version(o, "to", &e->to) ||
            !cu_json_version(o, "min", &e->min) || !cu_json_version(o, "max", &e->max) || e->min.n != 2 ||
            e->max.n != 2 || cu_version_cmp(&e->min, &e->max) > 0 || cu_version_cmp(&e->from, &e->to) > 0) {
            cu_catalog_pip_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: jax.python[%zu] is malformed", what, i);
        }
        out->n_jax_python++;
    }
    return CU_OK;
}

void
cu_catalog_pip_fini(struct cu_catalog_pip *p)
{
    for (size_t i = 0; p->libs && i < p->n_libs; i++) {
        free(p->libs[i].framework);
        free(p->libs[i].wheel);
        free(p->libs[i].package);
        free(p->libs[i].library);
        free(p->libs[i].source);
    }
    free(p->libs);
    free(p->jax_built);
    free(p->jax_python);
    memset(p, 0, sizeof(*p));
}

const struct cu_cat_pip_lib *
cu_catalog_pip_lib(const struct cu_catalog_pip *pip, const char *framework, int major,
                   const struct cu_version *version, const char *library)
{
    for (size_t i = 0; i < pip->n_libs; i++) {
        const struct cu_cat_pip_lib *l = &pip->libs[i];
        if (l->cuda_major != major || strcmp(l->framework, framework) != 0 || strcmp(l->library, library) != 0)
            continue;
        /* Newest first: with no version, the newest row; with one, the row whose range holds it
         * (a post-release such as 0.12.0.1 belongs to 0.12.0's row). */
        struct cu_version to3 = l->to;
        if (!version->n || (cu_version_cmp(version, &l->from) >= 0 &&
                            (cu_version_cmp(version, &to3) <= 0 || cu_version_matches(version, &to3))))
            return l;
    }
    return NULL;
}

bool
cu_catalog_jax_built_with(const struct cu_catalog_pip *pip, const struct cu_version *version,
                          struct cu_version *out)
{
    for (size_t i = 0; i < pip->n_jax_built; i++)
        if (!version->n || cu_version_cmp(version, &pip->jax_built[i].version) >= 0) {
            *out = pip->jax_built[i].cuda;
            return true;
        }
    return false;
}

bool
cu_catalog_jax_python(const struct cu_catalog_pip *pip, const struct cu_version *version, struct cu_version *min,
                      struct cu_version *max)
{
    for (size_t i = 0; version->n && i < pip->n_jax_python; i++) {
        const struct cu_cat_jax_python *e = &pip->jax_python[i];
        if (cu_version_cmp(version, &e->from) >= 0 && cu_version_cmp(version, &e->to) <= 0) {
            *min = e->min;
            *max = e->max;
            return true;
        }
    }
    return false;
}
