/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/catalog/fwcheck.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/jsonutil.h"
#include "core/base/mem.h"

enum cu_status
cu_catalog_gpu_checks_parse(const json_t *root, const char *what, struct cu_catalog_gpu_checks *out,
                            struct cu_error *err)
{
    memset(out, 0, sizeof(*out));
    const json_t *a = json_object_get(root, "gpu_check");
    if (a && !json_is_array(a))
        return cu_error_set(err, CU_E_INPUT, 0, "%s: \"gpu_check\" is not a list", what);
    size_t n = a ? json_array_size(a) : 0;
    out->v = cu_xcalloc(n + 1, sizeof(*out->v));
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_gpu_check *g = &out->v[out->n];
        const char *py = cu_json_str(o, "python");
        /* The statement goes inside single quotes on a shell line: it may not hold one. */
        if (!cu_json_str(o, "framework") || !py || !*py || strchr(py, '\'') || strchr(py, '\n') ||
            !cu_json_version(o, "from", &g->from)) {
            cu_catalog_gpu_checks_fini(out);
            return cu_error_set(err, CU_E_INPUT, 0, "%s: gpu_check[%zu] is malformed", what, i);
        }
        g->framework = cu_xstrdup(cu_json_str(o, "framework"));
        g->python = cu_xstrdup(py);
        g->source = cu_xstrdup(cu_json_str(o, "source") ? cu_json_str(o, "source") : "");
        out->n++;
    }
    return CU_OK;
}

void
cu_catalog_gpu_checks_fini(struct cu_catalog_gpu_checks *c)
{
    for (size_t i = 0; c->v && i < c->n; i++) {
        free(c->v[i].framework);
        free(c->v[i].python);
        free(c->v[i].source);
    }
    free(c->v);
    memset(c, 0, sizeof(*c));
}

const struct cu_cat_gpu_check *
cu_catalog_gpu_check(const struct cu_catalog_gpu_checks *c, const char *framework, const char *version)
{
    struct cu_version v = {0};
    bool known = version && cu_version_parse(version, &v);
    const struct cu_cat_gpu_check *best = NULL;
    for (size_t i = 0; framework && i < c->n; i++) {
        const struct cu_cat_gpu_check *g = &c->v[i];
        if (strcmp(g->framework, framework) != 0 || (known && cu_version_cmp(&g->from, &v) > 0))
            continue;
        if (!best || cu_version_cmp(&g->from, &best->from) > 0)
            best = g;
    }
    return best;
}
