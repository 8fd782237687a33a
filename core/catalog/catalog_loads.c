/* SPDX-License-Identifier: MIT */
/* What each framework asks the loader for, as recorded from its wheels: see catalog_loads.h. */
#include "config.h"

#include "core/catalog/catalog_loads.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"

static bool
framework_name(const char *s)
{
    return s && (strcmp(s, "pytorch") == 0 || strcmp(s, "tensorflow") == 0 || strcmp(s, "jax") == 0);
}

/* A path under site-packages as the tables write it: relative, no "..", no empty part. */
static bool
rel_path(const char *s)
{
    if (!s || !*s || s[0] == '/' || strlen(s) > 512)
        return false;
    for (const char *p = s; p;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (n == 0 || (n == 2 && strncmp(p, "..", 2) == 0) || (n == 1 && p[0] == '.'))
            return false;
        p = slash ? slash + 1 : NULL;
    }
    return true;
}

/* A file name of a library: "libcudnn.so.9", no folder. */
static bool
lib_name(const char *s)
{
    return s && cu_str_has_prefix(s, "lib") && strstr(s, ".so") && !strchr(s, '/') && strlen(s) < 128;
}

static bool
caller_ok(const char *s)
{
    return s && (strcmp(s, "python") == 0 || (cu_str_has_prefix(s, "soname:") && lib_name(s + 7)) || rel_path(s));
}

static enum cu_status
parse_fw(const json_t *o, struct cu_cat_fw_loads *e)
{
    const json_t *loads = json_object_get(o, "loads"), *cuda = json_object_get(o, "cuda");
    if (!framework_name(cu_json_str(o, "framework")) || !cu_json_version(o, "version", &e->version) ||
        !json_is_integer(cuda) || json_integer_value(cuda) < 0 || json_integer_value(cuda) > 99 ||
        !json_is_array(loads) || !json_array_size(loads) || !json_is_boolean(json_object_get(o, "read")) ||
        !cu_json_str(o, "source"))
        return CU_E_INPUT;
    e->framework = cu_xstrdup(cu_json_str(o, "framework"));
    e->cuda_major = (int)json_integer_value(cuda);
    e->read = json_is_true(json_object_get(o, "read"));
    e->source = cu_xstrdup(cu_json_str(o, "source"));
    e->v = cu_xcalloc(json_array_size(loads) + 1, sizeof(*e->v));
    for (size_t i = 0; i < json_array_size(loads); i++) {
        const json_t *l = json_array_get(loads, i);
        const char *stage = cu_json_str(l, "stage"), *how = cu_json_str(l, "how"), *target = cu_json_str(l, "target");
        const char *caller = cu_json_str(l, "caller");
        if (!stage || !how || !caller_ok(caller) || (strcmp(how, "path") != 0 && strcmp(how, "name") != 0))
            return CU_E_INPUT;
        bool by_path = strcmp(how, "path") == 0;
        if (by_path ? !rel_path(target) : !lib_name(target))
            return CU_E_INPUT;
        struct cu_cat_load *x = &e->v[e->n];
        if (strcmp(stage, "import") == 0)
            x->stage = CU_LOAD_IMPORT;
        else if (strcmp(stage, "use") == 0)
            x->stage = CU_LOAD_USE;
        else if (strcmp(stage, "gpu") == 0)
            x->stage = CU_LOAD_GPU;
        else
            return CU_E_INPUT;
        x->caller = cu_xstrdup(caller);
        x->by_path = by_path;
        x->target = cu_xstrdup(target);
        e->n++;
    }
    return CU_OK;
}

static enum cu_status
parse_lib(const json_t *o, struct cu_cat_lib_load *e)
{
    const char *pkg = cu_json_str(o, "package");
    if (!lib_name(cu_json_str(o, "caller")) || !lib_name(cu_json_str(o, "target")) || !pkg ||
        !cu_str_has_prefix(pkg, "nvidia-") || !cu_json_version(o, "version", &e->version))
        return CU_E_INPUT;
    e->caller = cu_xstrdup(cu_json_str(o, "caller"));
    e->package = cu_xstrdup(pkg);
    e->target = cu_xstrdup(cu_json_str(o, "target"));
    return CU_OK;
}

static enum cu_status
parse_check(const json_t *o, struct cu_cat_runtime_check *e)
{
    static const char *const rules[] = {"min", "build", "same-major", "same-major-minor-at-least"};
    const char *rule = cu_json_str(o, "rule");
    const json_t *to = json_object_get(o, "to"), *scale = json_object_get(o, "scale"), *min = json_object_get(o, "minimum");
    const json_t *cuda = json_object_get(o, "cuda");
    bool known = false;
    for (size_t i = 0; rule && i < sizeof(rules) / sizeof(*rules); i++)
        known |= strcmp(rule, rules[i]) == 0;
    if (!framework_name(cu_json_str(o, "framework")) || !cu_json_version(o, "from", &e->from) || !known ||
        !(json_is_null(to) || cu_json_version(o, "to", &e->to)) || !json_is_integer(scale) ||
        json_integer_value(scale) < 1 || !json_is_integer(min) || json_integer_value(min) < 0 || !json_is_integer(cuda) ||
        !cu_json_str(o, "component") || !cu_json_str(o, "source") || !json_is_boolean(json_object_get(o, "read")))
        return CU_E_INPUT;
    e->framework = cu_xstrdup(cu_json_str(o, "framework"));
    e->cuda_major = (int)json_integer_value(cuda);
    e->component = cu_xstrdup(cu_json_str(o, "component"));
    e->rule = cu_xstrdup(rule);
    e->scale = (long)json_integer_value(scale);
    e->minimum = (long)json_integer_value(min);
    e->read = json_is_true(json_object_get(o, "read"));
    e->source = cu_xstrdup(cu_json_str(o, "source"));
    return CU_OK;
}

enum cu_status
cu_catalog_loads_parse(const json_t *root, const char *what, struct cu_catalog_loads *out, struct cu_error *err)
{
    memset(out, 0, sizeof(*out));
    const json_t *f = json_object_get(root, "framework_loads"), *l = json_object_get(root, "cuda_lib_loads"),
                 *c = json_object_get(root, "framework_runtime_checks");
    if ((f && !json_is_array(f)) || (l && !json_is_array(l)) || (c && !json_is_array(c)))
        return cu_error_set(err, CU_E_INPUT, 0, "%s: \"framework_loads\", \"cuda_lib_loads\" or \"framework_runtime_checks\" is not a list", what);
    out->fw = cu_xcalloc(json_array_size(f) + 1, sizeof(*out->fw));
    for (size_t i = 0; i < json_array_size(f); i++)
        if (parse_fw(json_array_get(f, i), &out->fw[out->n_fw++]) != CU_OK) {
            cu_catalog_loads_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: framework_loads[%zu] is malformed", what, i);
        }
    out->libs = cu_xcalloc(json_array_size(l) + 1, sizeof(*out->libs));
    for (size_t i = 0; i < json_array_size(l); i++)
        if (parse_lib(json_array_get(l, i), &out->libs[out->n_libs++]) != CU_OK) {
            cu_catalog_loads_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: cuda_lib_loads[%zu] is malformed", what, i);
        }
    out->checks = cu_xcalloc(json_array_size(c) + 1, sizeof(*out->checks));
    for (size_t i = 0; i < json_array_size(c); i++)
        if (parse_check(json_array_get(c, i), &out->checks[out->n_checks++]) != CU_OK) {
            cu_catalog_loads_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: framework_runtime_checks[%zu] is malformed", what, i);
        }
    return CU_OK;
}

void
cu_catalog_loads_fini(struct cu_catalog_loads *l)
{
    for (size_t i = 0; l->fw && i < l->n_fw; i++) {
        for (size_t k = 0; k < l->fw[i].n; k++) {
            free(l->fw[i].v[k].caller);
            free(l->fw[i].v[k].target);
        }
        free(l->fw[i].v);
        free(l->fw[i].framework);
        free(l->fw[i].source);
    }
    free(l->fw);
    for (size_t i = 0; l->libs && i < l->n_libs; i++) {
        free(l->libs[i].caller);
        free(l->libs[i].package);
        free(l->libs[i].target);
    }
    free(l->libs);
    for (size_t i = 0; l->checks && i < l->n_checks; i++) {
        free(l->checks[i].framework);
        free(l->checks[i].component);
        free(l->checks[i].rule);
        free(l->checks[i].source);
    }
    free(l->checks);
    memset(l, 0, sizeof(*l));
}

const struct cu_cat_fw_loads *
cu_catalog_fw_loads(const struct cu_catalog_loads *l, const char *framework, const struct cu_version *version,
                    int cuda_major, bool *exact)
{
    const struct cu_cat_fw_loads *older = NULL, *newer = NULL;
    *exact = false;
    for (size_t i = 0; i < l->n_fw; i++) {
        const struct cu_cat_fw_loads *e = &l->fw[i];
        if (strcmp(e->framework, framework) != 0 || e->cuda_major != cuda_major)
            continue;
        int c = version && version->n ? cu_version_cmp(&e->version, version) : 1;
        if (c == 0) {
            *exact = true;
            return e;
        }
        if (c < 0 && !older)
            older = e; /* newest first: the first older is the nearest */
        if (c > 0)
            newer = e; /* the last newer is the nearest */
    }
    return older ? older : newer;
}

size_t
cu_catalog_lib_loads(const struct cu_catalog_loads *l, const char *caller, const char *package,
                     const struct cu_version *version, const struct cu_cat_lib_load **out, size_t max)
{
    /* Only the rows read in @package's own @version: another wheel's (nvidia-cudnn-cu13 for -cu12) names the
     * libraries of another CUDA major, and another release may dlopen other names; the data says of no release
     * that it stands in for another, so none does.  No row: nothing is predicted, and the caller says so. */
    size_t n = 0;
    if (!caller || !package || !version || !version->n)
        return 0;
    for (size_t i = 0; i < l->n_libs && n < max; i++) {
        const struct cu_cat_lib_load *e = &l->libs[i];
        if (strcmp(e->caller, caller) == 0 && strcmp(e->package, package) == 0 && cu_version_cmp(&e->version, version) == 0)
            out[n++] = e;
    }
    return n;
}

size_t
cu_catalog_runtime_checks(const struct cu_catalog_loads *l, const char *framework, const struct cu_version *version,
                          int cuda_major, const char *component, const struct cu_cat_runtime_check **out, size_t max)
{
    size_t n = 0;
    bool release_row = false; /* a row read for this very release range */
    const struct cu_cat_runtime_check *near = NULL;
    for (size_t i = 0; i < l->n_checks; i++) {
        const struct cu_cat_runtime_check *c = &l->checks[i];
        if (strcmp(c->framework, framework) != 0 || strcasecmp(c->component, component) != 0 ||
            (c->cuda_major && cuda_major && c->cuda_major != cuda_major))
            continue;
        bool in = version && version->n && cu_version_cmp(version, &c->from) >= 0 &&
                  (!c->to.n || cu_version_cmp(version, &c->to) <= 0);
        if (in && n < max) {
            out[n++] = c;
            release_row |= c->to.n > 0;
        } else if (!in && c->to.n && version && version->n && cu_version_cmp(&c->from, version) <= 0) {
            /* Read for older releases: the nearest stands in for a later one (a rule carries forward to the
             * releases after it; never back: JAX 0.4's cuBLAS check wanted the build's minor, 0.10's only 12.1). */
            if (!near || cu_version_cmp(&c->from, &near->from) > 0)
                near = c;
        }
    }
    if (!release_row && near && n < max)
        out[n++] = near;
    return n;
}
