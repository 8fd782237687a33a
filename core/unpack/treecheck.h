/* SPDX-License-Identifier: MIT */
/*
 * A folder cudaup fills for others (`mirror DIR`), checked before anything is written: where it
 * writes as root, another user must not choose where the bytes go.
 */
#ifndef CU_TREECHECK_H
#define CU_TREECHECK_H

#include "core/base/error.h"
#include "core/base/macros.h"

/**
 * Check @dir and everything in it, when it exists: @dir may be a link of this user's (or root's)
 * to a folder; no folder in it may belong to another user (root and this user are trusted) or be
 * writable by every user without the sticky bit, and no link in it may be another user's.  An entry
 * removed while the check runs (another run's lock or temporary file in a shared cache) is passed over.
 * @return CU_OK (also when @dir does not exist yet); CU_E_UNSAFE_PATH naming the path and its
 *         owner; CU_E_IO when it cannot be read
 */
CU_NODISCARD enum cu_status cu_tree_trusted(const char *dir, struct cu_error *err);

#endif /* CU_TREECHECK_H */
