/* SPDX-License-Identifier: MIT */
/*
 * Shadowing in the machine's Python environments, found without importing anything (issues 36, 47): for
 * each framework environment doctor lists, the process its frameworks would make, walked as glibc's loader
 * builds it (core/machine/ldwalk.h) from the dlopen() calls recorded for each framework's release (at
 * import, on its first use, on GPU work), the DT_NEEDED of everything loaded, the names NVIDIA's libraries
 * dlopen (cuDNN's sub-libraries), in every order the frameworks can be imported in; every CUDA library that
 * would come from outside the environment although one of its wheels holds it is named, with what makes the
 * loader take it and the fix, and every one mapped twice.  Also: two cuDNN distributions in one environment
 * (they write the same files), one soname in two places of one environment, and a framework without CUDA
 * wheels whose cuDNN resolves to an older release than it was built with.
 */
#ifndef CU_SHADOW_H
#define CU_SHADOW_H

#include <jansson.h>
#include <stdatomic.h>

#include "core/base/sysroot.h"
#include "core/catalog/catalog.h"
#include "core/doctor/doctor.h"
#include "core/doctor/fwenv.h"

/**
 * Check the environments @e->v[@from..] (read through @root) with the LD_LIBRARY_PATH of @envp and, where
 * cudaup's STATE/env.sh (@state_dir, on this host; may be NULL) sets one, that too: problems
framework-cuda-shadowed (every library a framework would load from outside the environment although one
 * of its wheels holds it, with the variable or file responsible), framework-cuda-duplicate (one soname
 * mapped from two files), framework-cudnn-two (severity warning).  Each framework's dlopen() calls are the
 * ones recorded for its release in @cat (catalog_loads.h); the environment's frameworks are walked in every
 * order they can be imported in.  @loads_out, when not NULL, gets one entry per environment and order: what
 * the walk loaded (the doctor document's "framework_loads").  Once *@cancel is set (SIGINT, SIGTERM; may be
 * NULL), the walk of ld.so.conf stops where it is.
 */
void cu_fwenvs_shadow(const struct cu_sysroot *root, const struct cu_catalog *cat, const struct cu_fwenvs *e, size_t from,
                      const char *const *envp, const char *state_dir, const atomic_int *cancel, struct cu_problems *out,
                      json_t *loads_out);

#endif
