/* SPDX-License-Identifier: MIT */
/*
 * What `uninstall VERSION` would remove, told before it asks (as apt and conda do): the CUDA folder
 * with its size and what it holds, the link that moves, the environment lines and files that go
 * with the last install, the Python environment made for it; and what stays (a Python cudaup
 * brought, kept until `uninstall python-X.Y`).  Reads only; the same rules as cu_uninstall_run.
 */
#ifndef CU_REMOVAL_H
#define CU_REMOVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/str.h"
#include "maintain.h"

struct cu_removal {
    bool installed;      /* PREFIX/cuda-X.Y is there (else nothing goes and nothing is asked) */
    struct cu_strv goes; /* one translated line each: what is removed or changed */
    struct cu_strv stays; /* one translated line each: what stays, and how it goes too */
    uint64_t bytes;      /* the space the folders that go take on disk */
    bool env_goes;       /* the Python environment made for it is among what goes (--keep-env keeps it) */
};

/**
 * Fill @out with what uninstalling CUDA @mm from @in->prefix would do.  Errors: CU_E_UNSUPPORTED
 * (the folder is not cudaup's: uninstall refuses it too), CU_E_INPUT (its record is malformed).
 * The caller frees with cu_removal_fini, whatever is returned.
 */
CU_NODISCARD enum cu_status cu_uninstall_preview(const struct cu_maint_in *in, const char *mm, struct cu_removal *out,
                                                 struct cu_error *err);
void cu_removal_fini(struct cu_removal *r);

/** The space the tree at @path takes on disk (its blocks, links not followed); 0 when it is not there. */
uint64_t cu_tree_bytes(const char *path);

#endif /* CU_REMOVAL_H */
