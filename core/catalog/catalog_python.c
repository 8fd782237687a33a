/* SPDX-License-Identifier: MIT */
/* The catalog's "pythons" table: see catalog_python.h. */
#include "config.h"

#include "core/catalog/catalog_python.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/fsutil.h"
#include "core/base/jsonutil.h"
#include "core/catalog/manifest.h"
#include "core/base/mem.h"
#include "core/base/str.h"

static enum cu_status
bad(const char *what, size_t i, const char *detail, struct cu_error *err)
{
    return cu_error_set(err, CU_E_INPUT, 0, "%s: pythons[%zu] %s", what, i, detail);
}

enum cu_status
cu_cat_pythons_parse(const json_t *a, const char *what, struct cu_cat_python **out, size_t *n, struct cu_error *err)
{
    *out = NULL;
    *n = 0;
    if (!a)
        return CU_OK; /* a catalog without "pythons" brings no Python */
    if (!json_is_array(a))
        return cu_error_set(err, CU_E_INPUT, 0, "%s: \"pythons\" is not a list", what);
    *out = cu_xcalloc(json_array_size(a) + 1, sizeof(**out));
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_python *e = &(*out)[*n];
        const char *sha = cu_json_str(o, "sha256"), *file = cu_json_str(o, "file"), *url = cu_json_str(o, "url");
        const char *layout = cu_json_str(o, "layout"), *comp = cu_json_str(o, "compression");
        const json_t *size = json_object_get(o, "size");
        if (!cu_json_version(o, "version", &e->version) || e->version.n != 3 || !cu_sha256_hex_ok(sha) ||
            !file || !cu_relpath_ok(file) || strchr(file, '/') || !url || !cu_json_str(o, "arch"))
            return bad(what, i, "is malformed", err);
        if (layout && strcmp(layout, "install_only") != 0 && strcmp(layout, "full") != 0)
            return bad(what, i, "has an unknown layout (install_only or full)", err);
        if (comp && strcmp(comp, "gzip") != 0 && strcmp(comp, "zstd") != 0)
            return bad(what, i, "has an unknown compression (gzip or zstd)", err);
        e->zstd = comp && strcmp(comp, "zstd") == 0;
        /* The reader is chosen by the compression, the mirror keeps the file name: they must agree. */
        if (!cu_str_has_suffix(file, e->zstd ? ".tar.zst" : ".tar.gz"))
            return bad(what, i, "names a file whose suffix does not match its compression", err);
        if (size && !json_is_null(size) && (!json_is_integer(size) || json_integer_value(size) <= 0))
            return bad(what, i, "has a size that is not a positive number", err);
        e->size = json_is_integer(size) ? (uint64_t)json_integer_value(size) : 0;
        e->arch = cu_xstrdup(cu_json_str(o, "arch"));
        e->build = cu_json_str(o, "build") ? cu_xstrdup(cu_json_str(o, "build")) : NULL;
        e->layout = cu_xstrdup(layout ? layout : "install_only");
        e->url = cu_xstrdup(url);
        e->file = cu_xstrdup(file);
        memcpy(e->sha256, sha, 65);
        (*n)++;
    }
    return CU_OK;
}

void
cu_cat_pythons_free(struct cu_cat_python *p, size_t n)
{
    for (size_t i = 0; p && i < n; i++) {
        free(p[i].arch);
        free(p[i].build);
        free(p[i].layout);
        free(p[i].url);
        free(p[i].file);
    }
    free(p);
}

const struct cu_cat_python *
cu_catalog_python(const struct cu_catalog *cat, const struct cu_version *minor, const char *arch)
{
    const struct cu_cat_python *best = NULL;
    for (size_t i = 0; i < cat->n_pythons; i++) {
        const struct cu_cat_python *e = &cat->pythons[i];
        if (strcmp(e->arch, arch) != 0 || e->version.part[0] != minor->part[0] || e->version.part[1] != minor->part[1])
            continue;
        if (!best || cu_version_cmp(&e->version, &best->version) > 0)
            best = e;
    }
    return best;
}
