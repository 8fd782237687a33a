/* SPDX-License-Identifier: MIT */
/*
 * Does a driver run a CUDA release, and how (runs.h): natively, by NVIDIA's minor-version compatibility
 * with its limit, or not.  The resolver's judges (resolve_judge.c) and verify's driver check both ask here.
 */
#include "config.h"

#include "core/resolve/runs.h"

#include "core/base/i18n.h"

bool
cu_driver_major_floor(const struct cu_catalog *cat, int major, struct cu_version *floor)
{
    const struct cu_cat_cuda_major *maj = cu_catalog_cuda_major(cat, major);
    if (!maj || !maj->min_driver.n)
        return false;
    *floor = maj->min_driver;
    return true;
}

enum cu_runs
cu_driver_runs_cuda(const struct cu_catalog *cat, const struct cu_version *driver, const struct cu_version *cuda_max,
                    const struct cu_version *cuda, struct cu_runs_how *how)
{
    struct cu_version mm = {{cuda->part[0], cuda->n > 1 ? cuda->part[1] : 0}, 2};
    *how = (struct cu_runs_how){.runs = CU_RUNS_UNKNOWN};
    cu_driver_major_floor(cat, (int)cuda->part[0], &how->floor);
    bool unknown_floor = cu_catalog_cuda_floor_unknown(cat, cuda);
    if (!unknown_floor && !cu_catalog_cuda_min_driver(cat, cuda, &how->native))
        how->native = how->floor; /* a release the catalog does not know: its major's floor, natively */
    if (cuda_max && cuda_max->n)
        how->own = *cuda_max;
    else if (driver && driver->n)
        cu_catalog_cuda_max_for_driver(cat, driver, &how->own);

    /* Natively: NVIDIA's driver table, as the resolver plans (12.4.1 needs 550.54.15, though 550.54.14 says
     * CUDA 12.4); the driver's own word only where the table is silent (CUDA 13.4 on a driver that says 13.4)
     * or the driver's version is unread. */
    bool have_d = driver && driver->n, have_max = cuda_max && cuda_max->n;
    if (have_d && how->native.n) {
        if (cu_version_cmp(driver, &how->native) >= 0)
            return how->runs = CU_RUNS_NATIVE;
    } else if (have_max && cu_version_cmp(cuda_max, &mm) >= 0) {
        return how->runs = CU_RUNS_NATIVE;
    }
    if (!have_d) {
        /* Its version unread (a driver that said only its CUDA): compatibility never crosses a major. */
        if (have_max && cuda_max->part[0] < cuda->part[0])
            how->runs = CU_RUNS_NOT;
        return how->runs;
    }
    if (how->floor.n && cu_version_cmp(driver, &how->floor) >= 0) {
        how->inferred = unknown_floor;
        return how->runs = CU_RUNS_COMPAT;
    }
    if (how->floor.n || how->native.n)
        how->runs = CU_RUNS_NOT;
    return how->runs;
}

char *
cu_runs_limit(const struct cu_runs_how *how, const struct cu_version *cuda)
{
    char b1[32], b2[32];
    if (how->own.n && how->native.n)
        return cu_tr_asprintf(_("programs built for this GPU run, but the driver cannot JIT-compile PTX newer than its own CUDA %s, and some newer features need driver %s or newer"),
                              cu_version_format(&how->own, 2, b1, sizeof(b1)),
                              cu_driver_version_format(&how->native, b2, sizeof(b2)));
    if (how->own.n)
        return cu_tr_asprintf(_("programs built for this GPU run, but the driver cannot JIT-compile PTX newer than its own CUDA %s, and some newer features need the driver of CUDA %u.%u, which no source cudaup has read names"),
                              cu_version_format(&how->own, 2, b1, sizeof(b1)), cuda->part[0], cuda->part[1]);
    if (how->native.n)
        return cu_tr_asprintf(_("programs built for this GPU run, but the driver cannot JIT-compile PTX newer than its own CUDA, and some newer features need driver %s or newer"),
                              cu_driver_version_format(&how->native, b2, sizeof(b2)));
    return cu_tr_asprintf(_("programs built for this GPU run, but the driver cannot JIT-compile PTX newer than its own CUDA, and some newer features need the driver of CUDA %u.%u, which no source cudaup has read names"),
                          cuda->part[0], cuda->part[1]);
}
