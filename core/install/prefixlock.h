/* SPDX-License-Identifier: MIT */
/*
 * PREFIX/.cudaup.lock: one cudaup command at a time changes a prefix (install, repair, uninstall, the
 * wizard's jobs).  The lock is the command's, from before its first change to after its result is
 * reported (cu_run_ctx_fini releases it), so that an uninstall can never come between an install's
 * last step and its "installed".  The holder writes its process ID into the file, so that the command
 * it refuses can say who holds it.
 */
#ifndef CU_PREFIXLOCK_H
#define CU_PREFIXLOCK_H

#include "core/base/error.h"

/**
 * Hold PREFIX/.cudaup.lock (PREFIX is made when missing, and must be a folder this user or root
 * owns).  Errors: CU_E_BUSY when another process holds it (the message names its process ID when
 * the file says it), CU_E_UNSAFE_PATH for a link or another user's folder, CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_prefix_lock(const char *prefix, int *fd, struct cu_error *err);

/** Let it go (a no-op for -1). */
void cu_prefix_unlock(int fd);

/** cu_prefix_unlock, and where @prefix holds nothing but the lock file (the last CUDA uninstalled, an install that
 *  stopped before its first file), the lock file goes first, while it is still held: an emptied prefix is left
 *  empty. */
void cu_prefix_unlock_tidy(int fd, const char *prefix);

#endif /* CU_PREFIXLOCK_H */
