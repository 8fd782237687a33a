/* SPDX-License-Identifier: MIT */
/*
 * The catalog's CUDA releases: each release's driver floor (or that no source gives one), what each CUDA
 * X.Y builds for, and the first and last CUDA that builds for a GPU.  Split from catalog.c, which parses
 * the catalog; these only read it.
 */
#include "config.h"

#include "core/catalog/catalog.h"

#include "core/catalog/catalog_legacy.h"

const struct cu_cat_cuda *
cu_catalog_cuda(const struct cu_catalog *cat, const struct cu_version *version)
{
    for (size_t i = 0; i < cat->n_cuda; i++)
        if (cu_version_cmp(&cat->cuda[i].version, version) == 0)
            return &cat->cuda[i];
    return NULL;
}

bool
cu_catalog_cuda_min_driver(const struct cu_catalog *cat, const struct cu_version *v,
                           struct cu_version *out)
{
    /* Exact release first; for X.Y the oldest release of that minor. */
    const struct cu_cat_cuda *best = NULL;
    for (size_t i = 0; i < cat->n_cuda; i++) {
        const struct cu_cat_cuda *r = &cat->cuda[i];
        if (!r->driver.n)
            continue;
        if (v->n >= 3 && cu_version_cmp(&r->version, v) == 0)
            return (*out = r->driver), true;
        struct cu_version mm = {{v->part[0], v->n > 1 ? v->part[1] : 0}, 2};
        if (cu_version_matches(&r->version, &mm))
            best = r; /* list is newest first: the last match is the oldest */
    }
    if (!best)
        return false;
    *out = best->driver;
    return true;
}

bool
cu_catalog_cuda_max_for_driver(const struct cu_catalog *cat, const struct cu_version *driver,
                               struct cu_version *out)
{
    for (size_t i = 0; i < cat->n_cuda; i++) {
        const struct cu_cat_cuda *r = &cat->cuda[i];
        if (r->driver.n && cu_version_cmp(&r->driver, driver) <= 0) {
            *out = (struct cu_version){{r->version.part[0], r->version.part[1]}, 2};
            return true;
        }
    }
    return false;
}

const struct cu_cat_cuda_major *
cu_catalog_cuda_major(const struct cu_catalog *cat, int major)
{
    for (size_t i = 0; i < cat->n_cuda_majors; i++)
        if (cat->cuda_majors[i].major == major)
            return &cat->cuda_majors[i];
    return NULL;
}

const struct cu_cat_cuda_sm *
cu_catalog_cuda_sm(const struct cu_catalog *cat, const struct cu_version *v)
{
    for (size_t i = 0; i < cat->n_cuda_sm; i++)
        if (cat->cuda_sm[i].minor.part[0] == v->part[0] &&
            cat->cuda_sm[i].minor.part[1] == (v->n > 1 ? v->part[1] : 0))
            return &cat->cuda_sm[i];
    return NULL;
}

int
cu_catalog_cuda_supports_cc(const struct cu_catalog *cat, const struct cu_version *v,
                            const struct cu_version *cc)
{
    const struct cu_cat_cuda_sm *s = cu_catalog_cuda_sm(cat, v);
    if (cc->n == 0)
        return -1;
    int sm = (int)(cc->part[0] * 10 + (cc->n > 1 ? cc->part[1] : 0));
    const int *list = s ? s->sm : NULL;
    size_t n = s ? s->n_sm : 0;
    if (!s) {
        /* A toolkit older than the arch table: its runfile's own list (data/legacy/cuda_runfiles.csv). */
        struct cu_version m = {{v->part[0], v->n > 1 ? v->part[1] : 0}, 2};
        const struct cu_cat_legacy_cuda *l = cu_cat_legacy_cuda(cat->legacy, &m);
        if (!l)
            return -1;
        list = l->sm;
        n = l->n_sm;
    }
    for (size_t i = 0; i < n; i++)
        if (list[i] == sm)
            return 1;
    return 0;
}

static void
cuda_for_cc_at(const struct cu_catalog *cat, const struct cu_version *minor, const struct cu_version *cc, bool last,
               bool *found, struct cu_version *out)
{
    if (cu_catalog_cuda_supports_cc(cat, minor, cc) != 1)
        return;
    int c = *found ? cu_version_cmp(minor, out) : 0;
    if (!*found || (last ? c > 0 : c < 0))
        *out = *minor;
    *found = true;
}

/* The X.Y of the catalog's runfile CUDA release @i. */
static struct cu_version
legacy_minor(const struct cu_catalog *cat, size_t i)
{
    const struct cu_version *v = &cat->legacy->cuda[i].version;
    return (struct cu_version){{v->part[0], v->n > 1 ? v->part[1] : 0}, 2};
}

/* Every CUDA minor the catalog holds: the arch table's and the runfiles' older than it. */
static bool
cuda_for_cc(const struct cu_catalog *cat, const struct cu_version *cc, bool last,
            struct cu_version *out)
{
    bool found = false;
    for (size_t i = 0; i < cat->n_cuda_sm; i++)
        cuda_for_cc_at(cat, &cat->cuda_sm[i].minor, cc, last, &found, out);
    for (size_t i = 0; cat->legacy && i < cat->legacy->n_cuda; i++) {
        struct cu_version m = legacy_minor(cat, i);
        cuda_for_cc_at(cat, &m, cc, last, &found, out);
    }
    return found;
}

bool
cu_catalog_cuda_oldest(const struct cu_catalog *cat, struct cu_version *out)
{
    bool found = false;
    for (size_t i = 0; i < cat->n_cuda_sm; i++)
        if (!found || cu_version_cmp(&cat->cuda_sm[i].minor, out) < 0)
            *out = cat->cuda_sm[i].minor, found = true;
    for (size_t i = 0; cat->legacy && i < cat->legacy->n_cuda; i++) {
        struct cu_version m = legacy_minor(cat, i);
        if (!found || cu_version_cmp(&m, out) < 0)
            *out = m, found = true;
    }
    return found;
}

bool
cu_catalog_cuda_last_for_cc(const struct cu_catalog *cat, const struct cu_version *cc,
                            struct cu_version *out)
{
    return cuda_for_cc(cat, cc, true, out);
}

bool
cu_catalog_cuda_first_for_cc(const struct cu_catalog *cat, const struct cu_version *cc,
                             struct cu_version *out)
{
    return cuda_for_cc(cat, cc, false, out);
}

bool
cu_catalog_cuda_floor_unknown(const struct cu_catalog *cat, const struct cu_version *v)
{
    /* Known to the catalog (the release, or for X.Y a release of it), and no release of its minor has a floor
     * that a source gives: CUDA 13.4, whose manifests name no driver. */
    struct cu_version floor, mm = {{v->part[0], v->n > 1 ? v->part[1] : 0}, 2};
    if (cu_catalog_cuda_min_driver(cat, &mm, &floor))
        return false;
    for (size_t i = 0; i < cat->n_cuda; i++)
        if (cat->cuda[i].driver_unknown &&
            (v->n >= 3 ? cu_version_cmp(&cat->cuda[i].version, v) == 0 : cu_version_matches(&cat->cuda[i].version, &mm)))
            return true;
    return false;
}
