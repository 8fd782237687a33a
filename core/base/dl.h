/* SPDX-License-Identifier: MIT */
/*
 * Load a shared library from a list of candidate paths and resolve a table of
 * symbols (STYLE 36).  dlerror() text becomes CU_E_DRIVER here and goes no
 * further.
 */
#ifndef CU_DL_H
#define CU_DL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"

struct cu_dl_sym {
    const char *name;
    size_t offset;  /* offsetof the function pointer in the caller's table */
    bool optional;
};

struct cu_dl {
    void *handle;
    char *path; /* the candidate that loaded */
};

/**
 * Try @candidates (NULL-terminated; a name without '/' goes through the
 * dynamic linker's search) in order; the first that loads and has every
 * required symbol wins, and its functions are written into @table.
 * Errors: CU_E_NOT_FOUND when nothing loaded, CU_E_DRIVER when a library
 * loaded but lacked a symbol (the message names both).
 */
CU_NODISCARD enum cu_status cu_dl_open(struct cu_dl *dl, const char *const *candidates,
                                       const struct cu_dl_sym *syms, size_t n_syms, void *table,
                                       struct cu_error *err);
void cu_dl_close(struct cu_dl *dl);

#endif /* CU_DL_H */
