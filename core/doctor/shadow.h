/* SPDX-License-Identifier: MIT */
/*
 * Shadowing in the machine's Python environments, found without importing anything (issue 36): for
 * each framework environment doctor lists, the CUDA libraries its framework's shared objects would
 * load, resolved in the dynamic loader's real order (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, the
 * folders of ld.so.conf, the default folders), each object's own dependencies after it and a soname
 * loaded once; every one that would come from outside the environment although one of its wheels
 * holds it is named, with what makes the loader take it and the fix.  Also: two cuDNN distributions
 * in one environment (they write the same files), one soname in two places of one environment (the
 * first loaded wins), and a framework without CUDA wheels whose cuDNN resolves to an older release
 * than it was built with.
 */
#ifndef CU_SHADOW_H
#define CU_SHADOW_H

#include <stdatomic.h>

#include "core/base/sysroot.h"
#include "core/doctor/doctor.h"
#include "core/doctor/fwenv.h"

/**
 * Check the environments @e->v[@from..] (read through @root) with the LD_LIBRARY_PATH of @envp and, where
 * cudaup's STATE/env.sh (@state_dir, on this host; may be NULL) sets one, that too: problems
 * framework-cuda-shadowed, framework-cudnn-two, framework-cuda-duplicate (severity warning).  Once *@cancel is
 * set (SIGINT, SIGTERM; may be NULL), the walk of ld.so.conf stops where it is.
 */
void cu_fwenvs_shadow(const struct cu_sysroot *root, const struct cu_fwenvs *e, size_t from, const char *const *envp,
                      const char *state_dir, const atomic_int *cancel, struct cu_problems *out);

#endif
