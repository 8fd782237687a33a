/* SPDX-License-Identifier: MIT */
/*
 * Does a framework build carry code for a GPU?  The rule NVIDIA documents
 * (shared/data/compat/framework_driver_rules.md): SASS runs on its own major
 * architecture at an equal or higher minor (sm_50 on a 5.2 GPU, sm_80 on 8.6
 * but not on 9.0); PTX runs on any GPU at or above its target, once the driver
 * has JIT-compiled it, and only when the driver is at least the one of the
 * toolkit that wrote the PTX.  Pure functions; any thread.
 */
#ifndef CU_GPUCODE_H
#define CU_GPUCODE_H

#include "core/catalog/catalog.h"

enum cu_code_fit {
    CU_CODE_NONE, /* no kernel image for this GPU */
    CU_CODE_SASS, /* real GPU code */
    CU_CODE_PTX,  /* only through the driver's PTX JIT */
};

/**
 * How a build with code @c runs on a GPU of compute capability @cc.
 * @target gets the sm (or compute) number used, e.g. 50 for sm_50; 0 for none.
 */
enum cu_code_fit cu_code_fit(const struct cu_cat_code *c, const struct cu_version *cc, int *target);

/** "sass" or "ptx-jit" (the plan's JSON), or "none". Static. */
const char *cu_code_fit_name(enum cu_code_fit f);

/** "sm_60, sm_70, sm_80, sm_89 and PTX compute_90". The caller frees. */
char *cu_code_describe(const struct cu_cat_code *c);

/**
 * Add one entry of a build's own arch list ("sm_50", "sm_90a", "compute_90") to @c, whose
 * sass and ptx arrays have room for it.  False when @arch is neither.
 */
bool cu_code_add_arch(struct cu_cat_code *c, const char *arch);

/** The compute capability of sm number @sm (52 -> 5.2, 120 -> 12.0). */
struct cu_version cu_code_cc(int sm);

#endif /* CU_GPUCODE_H */
