/* SPDX-License-Identifier: MIT */
/* cuDNN's support matrix: see cudnn_matrix.h. */
#include "config.h"

#include "core/catalog/cudnn_matrix.h"

#include <stdbool.h>
#include <stddef.h>

#include "core/catalog/catalog.h"

/* The rows of CUDA @cuda_major nearest to cuDNN @v: the newest at or below it, and the oldest above. */
static void
cudnn_rows_around(const struct cu_catalog *cat, const struct cu_version *v, int cuda_major,
                  const struct cu_cat_cudnn_support **below, const struct cu_cat_cudnn_support **above)
{
    struct cu_version v3 = *v;
    if (v3.n > 3)
        v3.n = 3;
    *below = *above = NULL;
    for (size_t i = 0; i < cat->n_cudnn_support && !*below; i++) { /* newest first */
        const struct cu_cat_cudnn_support *s = &cat->cudnn_support[i];
        if (s->cuda_major != cuda_major)
            continue;
        if (cu_version_cmp(&s->cudnn, &v3) <= 0)
            *below = s;
        else
            *above = s;
    }
}

const struct cu_cat_cudnn_support *
cu_catalog_cudnn_support(const struct cu_catalog *cat, const struct cu_version *v, int cuda_major)
{
    const struct cu_cat_cudnn_support *below, *above;
    cudnn_rows_around(cat, v, cuda_major, &below, &above);
    return below ? below : above;
}

const struct cu_cat_cudnn_support *
cu_catalog_cudnn_support_above(const struct cu_catalog *cat, const struct cu_version *v, int cuda_major)
{
    const struct cu_cat_cudnn_support *below, *above;
    cudnn_rows_around(cat, v, cuda_major, &below, &above);
    return above;
}

static bool
lists(const struct cu_cat_cudnn_support *row, const struct cu_version *cc)
{
    return row->n_cc > 0 && cu_version_cmp(cc, &row->cc[0]) >= 0 && cc->part[0] <= row->cc[row->n_cc - 1].part[0];
}

int
cu_catalog_cudnn_lists(const struct cu_catalog *cat, const struct cu_version *v, int major,
                       const struct cu_version *cc, const struct cu_cat_cudnn_support **against)
{
    const struct cu_cat_cudnn_support *below, *above;
    cudnn_rows_around(cat, v, major, &below, &above);
    const struct cu_cat_cudnn_support *row = below ? below : above;
    if (against)
        *against = row;
    if (!row)
        return -1;
    struct cu_version v3 = *v;
    if (v3.n > 3)
        v3.n = 3;
    if (cu_version_cmp(&row->cudnn, &v3) == 0 || !below || !above)
        return lists(row, cc) ? 1 : 0; /* its own matrix, or the one neighbour there is */
    /* Between two matrices: the newer one decides, so that an old GPU it dropped is not given the
     * release, and a new GPU it lists is not refused on the strength of the older matrix. */
    if (lists(above, cc))
        return 1;
    if (against)
        *against = above;
    return 0;
}
