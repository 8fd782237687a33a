/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/catalog/catalog_wheels.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/jsonutil.h"
#include "core/base/mem.h"

static bool
known_framework(const char *s)
{
    return s && (strcmp(s, "pytorch") == 0 || strcmp(s, "tensorflow") == 0 || strcmp(s, "jax") == 0);
}

/* A distribution name as pip normalizes it, of the kind the wheels name: "nvidia-cudnn-cu12". */
static bool
dist_name(const char *s)
{
    return s && *s && strlen(s) < 64 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(s);
}

static enum cu_status
parse_fw(const json_t *o, struct cu_cat_fw_wheel *w)
{
    const json_t *maj = json_object_get(o, "cuda_major"), *rd = json_object_get(o, "read");
    const json_t *req = json_object_get(o, "requires"), *bc = json_object_get(o, "build_cuda");
    const json_t *tag = json_object_get(o, "tag");
    if (!known_framework(cu_json_str(o, "framework")) || !cu_json_version(o, "version", &w->version) ||
        !cu_json_str(o, "extra") || !cu_json_str(o, "pip") || !json_is_integer(maj) ||
        json_integer_value(maj) < 9 || json_integer_value(maj) > 99 || !json_is_boolean(rd) ||
        !json_is_array(req) || !cu_json_str(o, "source") || (bc && !json_is_null(bc) && !json_is_string(bc)) ||
        (tag && !json_is_null(tag) && !json_is_string(tag)))
        return CU_E_INPUT;
    if (json_is_string(bc) && (!cu_version_parse(json_string_value(bc), &w->build_cuda) || w->build_cuda.n != 2 ||
                               (int)w->build_cuda.part[0] != json_integer_value(maj)))
        return CU_E_INPUT;
    w->framework = cu_xstrdup(cu_json_str(o, "framework"));
    w->extra = cu_xstrdup(cu_json_str(o, "extra"));
    w->pip = cu_xstrdup(cu_json_str(o, "pip"));
    w->source = cu_xstrdup(cu_json_str(o, "source"));
    w->tag = json_is_string(tag) ? cu_xstrdup(json_string_value(tag)) : NULL;
    w->cuda_major = (int)json_integer_value(maj);
    w->read = json_is_true(rd);
    w->req = cu_xcalloc(json_array_size(req) + 1, sizeof(*w->req));
    for (size_t i = 0; i < json_array_size(req); i++) {
        const json_t *r = json_array_get(req, i);
        const char *pkg = json_string_value(json_array_get(r, 0)), *spec = json_string_value(json_array_get(r, 1));
        struct cu_cat_wheel_req *q = &w->req[w->n_req];
        if (!json_is_array(r) || json_array_size(r) != 2 || !dist_name(pkg) || !spec ||
            !cu_pipspec_parse(spec, &q->spec))
            return CU_E_INPUT;
        q->package = cu_xstrdup(pkg);
        q->text = cu_xstrdup(spec);
        w->n_req++;
    }
    return CU_OK;
}

enum cu_status
cu_catalog_wheels_parse(const json_t *root, const char *what, struct cu_catalog_wheels *out, struct cu_error *err)
{
    memset(out, 0, sizeof(*out));
    const json_t *a = json_object_get(root, "framework_wheels"), *c = json_object_get(root, "cudnn_wheels");
    if ((a && !json_is_array(a)) || (c && !json_is_array(c)))
        return cu_error_set(err, CU_E_INPUT, 0, "%s: \"framework_wheels\" or \"cudnn_wheels\" is not a list", what);
    out->fw = cu_xcalloc(json_array_size(a) + 1, sizeof(*out->fw));
    for (size_t i = 0; i < json_array_size(a); i++) {
        struct cu_cat_fw_wheel *w = &out->fw[out->n_fw++];
        if (parse_fw(json_array_get(a, i), w) != CU_OK) {
            cu_catalog_wheels_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: framework_wheels[%zu] is malformed", what, i);
        }
    }
    out->cudnn = cu_xcalloc(json_array_size(c) + 1, sizeof(*out->cudnn));
    for (size_t i = 0; i < json_array_size(c); i++) {
        const json_t *o = json_array_get(c, i), *vs = json_object_get(o, "versions");
        struct cu_cat_cudnn_wheels *w = &out->cudnn[out->n_cudnn++];
        bool ok = dist_name(cu_json_str(o, "package")) && cu_json_str(o, "source") && json_is_array(vs);
        if (ok) {
            w->package = cu_xstrdup(cu_json_str(o, "package"));
            w->source = cu_xstrdup(cu_json_str(o, "source"));
            w->versions = cu_xcalloc(json_array_size(vs) + 1, sizeof(*w->versions));
            for (size_t k = 0; ok && k < json_array_size(vs); k++) {
                ok = json_is_string(json_array_get(vs, k)) &&
                     cu_version_parse(json_string_value(json_array_get(vs, k)), &w->versions[w->n]);
                /* newest first, as the resolver takes the first that fits */
                ok = ok && (w->n == 0 || cu_pipver_cmp(&w->versions[w->n - 1], &w->versions[w->n]) > 0);
                w->n += ok;
            }
        }
        if (!ok) {
            cu_catalog_wheels_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: cudnn_wheels[%zu] is malformed", what, i);
        }
    }
    enum cu_status st = cu_catalog_pins_parse(root, what, &out->pins, err);
    if (st != CU_OK)
        cu_catalog_wheels_fini(out);
    return st;
}

void
cu_catalog_wheels_fini(struct cu_catalog_wheels *w)
{
    for (size_t i = 0; w->fw && i < w->n_fw; i++) {
        struct cu_cat_fw_wheel *f = &w->fw[i];
        free(f->framework);
        free(f->extra);
        free(f->pip);
        free(f->tag);
        free(f->source);
        for (size_t k = 0; k < f->n_req; k++) {
            free(f->req[k].package);
            free(f->req[k].text);
        }
        free(f->req);
    }
    free(w->fw);
    for (size_t i = 0; w->cudnn && i < w->n_cudnn; i++) {
        free(w->cudnn[i].package);
        free(w->cudnn[i].source);
        free(w->cudnn[i].versions);
    }
    free(w->cudnn);
    cu_catalog_pins_fini(&w->pins);
    memset(w, 0, sizeof(*w));
}

const struct cu_cat_wheel_req *
cu_fw_wheel_req(const struct cu_cat_fw_wheel *w, const char *package)
{
    for (size_t i = 0; i < w->n_req; i++)
        if (strcmp(w->req[i].package, package) == 0)
            return &w->req[i];
    return NULL;
}

const struct cu_cat_cudnn_wheels *
cu_catalog_cudnn_wheels(const struct cu_catalog_wheels *w, const char *package)
{
    for (size_t i = 0; i < w->n_cudnn; i++)
        if (strcmp(w->cudnn[i].package, package) == 0)
            return &w->cudnn[i];
    return NULL;
}

bool
cu_catalog_wheels_known(const struct cu_catalog_wheels *w, const char *package, const struct cu_pipspec *within,
                        struct cu_version *out, const struct cu_cat_fw_wheel **by)
{
    bool found = false;
    for (size_t i = 0; i < w->n_fw; i++) {
        const struct cu_cat_wheel_req *q = cu_fw_wheel_req(&w->fw[i], package);
        struct cu_version v;
        bool prefix = false;
        const struct cu_pipspec *one = q ? &q->spec : NULL;
        /* Only an exact pin names a release that exists; "==12.8.*" or a range does not. */
        if (!q || !cu_pipspec_pinned(&one, 1, &v, &prefix) || prefix)
            continue;
        if (within && !cu_pipspec_contains(within, &v))
            continue;
        if (!found || cu_version_cmp(&v, out) > 0) {
            *out = v;
            if (by)
                *by = &w->fw[i];
            found = true;
        }
    }
    return found;
}

const struct cu_cat_fw_wheel *
cu_catalog_fw_wheel(const struct cu_catalog_wheels *w, const char *framework, const char *tag,
                    const struct cu_version *version)
{
    const struct cu_cat_fw_wheel *best = NULL;
    for (size_t i = 0; i < w->n_fw; i++) {
        const struct cu_cat_fw_wheel *f = &w->fw[i];
        if (strcmp(f->framework, framework) != 0 || !f->tag || !tag || strcmp(f->tag, tag) != 0)
            continue;
        if (version && version->n) {
            if (cu_version_cmp(&f->version, version) == 0 || cu_version_matches(&f->version, version))
                return f;
            continue;
        }
        if (!best || cu_version_cmp(&f->version, &best->version) > 0)
            best = f;
    }
    return best;
}
