/* SPDX-License-Identifier: MIT */
/* The catalog's "learned" list: the releases learned this run, as the catalog reads them back (catalog_learned.h). */
#include "config.h"

#include "core/catalog/catalog_learned.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/pipreq.h"
#include "core/catalog/catalog.h"

/* ---- the catalog's "learned" list ------------------------------------------------------------ */

void
cu_cat_learned_free(struct cu_cat_learned *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].framework);
        free(v[i].text);
        free(v[i].pre);
        free(v[i].tag);
        free(v[i].inferred_from);
        free(v[i].no_inference);
        free(v[i].index);
        free(v[i].day);
    }
    free(v);
}

static char *
opt_str(const json_t *o, const char *key)
{
    const char *s = cu_json_str(o, key);
    return s ? cu_xstrdup(s) : NULL;
}

enum cu_status
cu_cat_learned_parse(const json_t *root, const char *what, struct cu_cat_learned **out, size_t *n,
                     struct cu_error *err)
{
    const json_t *a = json_object_get(root, "learned");
    *out = NULL;
    *n = 0;
    if (!a)
        return CU_OK;
    if (!json_is_array(a))
        return cu_error_set(err, CU_E_INPUT, 0, "%s: \"learned\" is not a list", what);
    *out = cu_xcalloc(json_array_size(a) + 1, sizeof(**out));
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *o = json_array_get(a, i);
        struct cu_cat_learned *e = &(*out)[*n];
        char pre[16];
        const char *text = cu_json_str(o, "version");
        if (!cu_json_str(o, "framework") || !text || !cu_pep440_parse(text, &e->version, pre)) {
            cu_cat_learned_free(*out, *n);
            *out = NULL;
            *n = 0;
            return cu_error_set(err, CU_E_INPUT, 0, "%s: learned[%zu] is malformed", what, i);
        }
        e->framework = opt_str(o, "framework");
        e->text = cu_xstrdup(text);
        e->pre = cu_xstrdup(pre);
        e->tag = opt_str(o, "tag");
        e->inferred_from = opt_str(o, "inferred_from");
        e->no_inference = opt_str(o, "no_inference");
        e->index = opt_str(o, "index");
        e->day = opt_str(o, "read");
        (*n)++;
    }
    return CU_OK;
}

const struct cu_cat_learned *
cu_catalog_learned(const struct cu_catalog *cat, const char *framework, const struct cu_version *version,
                   const char *tag)
{
    for (size_t i = 0; i < cat->n_learned; i++) {
        const struct cu_cat_learned *e = &cat->learned[i];
        if (strcmp(e->framework, framework) == 0 && cu_version_cmp(&e->version, version) == 0 &&
            (!tag || !e->tag || strcmp(e->tag, tag) == 0))
            return e;
    }
    return NULL;
}

