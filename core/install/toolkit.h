/* SPDX-License-Identifier: MIT */
/*
 * The install transaction of DESIGN.md for the CUDA folder.
 *
 * Every archive is downloaded into the sha256-keyed cache (resumable),
 * read by a consumer thread while it lands, hashed as it is read and
 * unpacked into its own staging folder beside the target, on the same file
 * system.  Only archives whose hash matched are merged into a new tree
 * (unchanged components are hard-linked from the old one), the record is
 * written into that tree, and the tree replaces the old one in one
 * renameat2(RENAME_EXCHANGE).  A kill at any point leaves the old install
 * or the new one; the next run removes what is left of staging.
 */
#ifndef CU_TOOLKIT_H
#define CU_TOOLKIT_H

#include "core/install/exec.h"
#include "core/install/prefixlock.h"
#include "core/install/record.h"

/** Remove what an interrupted run left in PREFIX (staging, temporary links). Hold the lock. */
void cu_prefix_reconcile(const char *prefix);

/**
 * Install (or complete, or re-create) plan->cuda_path with every planned
 * component, and point PREFIX/cuda at it.  Records "cuda" and "cudnn" step
 * results in @ctx.  @repair_only: the components named are re-fetched even
 * when the record says they are there (repair).
 */
CU_NODISCARD enum cu_status cu_toolkit_install(struct cu_run_ctx *ctx, char *const *force_components,
                                               struct cu_error *err);

/**
 * Install plan->python (when cudaup brings it) into its folder, PREFIX/cudaup/python/X.Y, with the
 * same transaction and a record of its own.  Records a "python" step result in @ctx.
 */
CU_NODISCARD enum cu_status cu_toolkit_install_python(struct cu_run_ctx *ctx, struct cu_error *err);

/**
 * Download the plan's archives into the cache (checked) and copy them into
 * DIR laid out as NVIDIA serves them.  Used by `mirror`.
 */
CU_NODISCARD enum cu_status cu_toolkit_mirror(struct cu_run_ctx *ctx, const char *dir, struct cu_error *err);

/* Inside cuda-X.Y: what PREFIX/cuda pointed at before this install re-pointed it (one line), or absent. */
#define CU_LINK_BEFORE ".cudaup/link-before"

/** Remove PREFIX/cuda-X.Y if cudaup installed it; when PREFIX/cuda pointed at it (*@was_active), *@before (when
 *  not NULL) is what that link pointed at before the install (CU_LINK_BEFORE), or NULL; the caller frees it.
 *  Errors: CU_E_NOT_FOUND, CU_E_UNSUPPORTED (not ours). */
CU_NODISCARD enum cu_status cu_toolkit_uninstall(const char *prefix, const char *mm, const char *state_dir,
                                                 bool locked, bool *was_active, char **before, struct cu_error *err);

#endif /* CU_TOOLKIT_H */
