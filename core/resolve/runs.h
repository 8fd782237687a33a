/* SPDX-License-Identifier: MIT */
/*
 * Does a driver run a CUDA release, and how: NVIDIA's rule, one for the resolver (which plans by it) and
 * verify (which checks an install by it), so that what a plan takes verify passes (issue 49 item 2).
 *
 * Natively: the driver is at least the release's own floor (NVIDIA's CUDA toolkit driver table), or, where
 * the table gives none (or the driver's version is unread), the driver itself says it runs that CUDA (NVML,
 * libcuda).  By minor-version compatibility: the driver is at
 * least the floor of the release's major (the catalog's cuda_major table: CUDA 12.x on 525.60.13 or newer);
 * programs built for the GPU run, but the driver cannot JIT-compile PTX newer than its own CUDA, and some
 * newer features need the native driver.  A release whose native floor no source gives (CUDA 13.4) runs
 * only by that compatibility, inferred.
 */
#ifndef CU_RUNS_H
#define CU_RUNS_H

#include <stdbool.h>

#include "core/base/parse.h"
#include "core/catalog/catalog.h"

enum cu_runs {
    CU_RUNS_NATIVE,  /* the driver runs it as its own */
    CU_RUNS_COMPAT,  /* by NVIDIA's minor-version compatibility, with its limit */
    CU_RUNS_NOT,     /* neither: a newer driver is needed */
    CU_RUNS_UNKNOWN, /* no source says what it needs, natively or by its major */
};

struct cu_runs_how {
    enum cu_runs runs;
    struct cu_version native;  /* the driver it needs natively; n == 0 when no source gives it */
    struct cu_version floor;   /* the driver its major needs by minor-version compatibility; n == 0: none */
    struct cu_version own;     /* the newest CUDA X.Y the driver runs natively; n == 0 when unknown */
    bool inferred;             /* CU_RUNS_COMPAT where no source gives the native floor (an inference) */
};

/**
 * How driver @driver runs CUDA @cuda (a release, 12.9.1, or X.Y).  @cuda_max: the newest CUDA the driver
 * itself reports (NVML, libcuda), which decides "natively" where the table is silent and names the driver's
 * own CUDA in the limit; NULL or n == 0: the table's.
 * A release the catalog does not know needs its major's floor natively (as the resolver has always
 * planned it).  Returns @how->runs.
 */
enum cu_runs cu_driver_runs_cuda(const struct cu_catalog *cat, const struct cu_version *driver,
                                 const struct cu_version *cuda_max, const struct cu_version *cuda,
                                 struct cu_runs_how *how);

/**
 * The driver CUDA @major needs by minor-version compatibility (the catalog's cuda_major table) into @floor;
 * false when no source gives one.
 */
bool cu_driver_major_floor(const struct cu_catalog *cat, int major, struct cu_version *floor);

/**
 * The limit of running CUDA @cuda by minor-version compatibility, as plan and verify both say it:
 * "programs built for this GPU run, but the driver cannot JIT-compile PTX newer than CUDA 12.2, its own,
 * and some newer features need driver 575.57.08 or newer".  Caller frees.
 */
char *cu_runs_limit(const struct cu_runs_how *how, const struct cu_version *cuda);

#endif /* CU_RUNS_H */
