/* SPDX-License-Identifier: MIT */
/*
 * What `uninstall driver` would undo, told before it asks (issue 35, item 2's rule applied to the
 * driver): read from STATE/driver.json by the record's own reader (drv_rec_load), as
 * inst_driver_uninstall reads it.  Reads only.
 */
#ifndef CU_DRIVER_REMOVAL_H
#define CU_DRIVER_REMOVAL_H

#include "core/base/error.h"
#include "removal.h"

struct cu_catalog;

/**
 * Fill @out with what the record in @state_dir says cudaup did and uninstall undoes: the packages its
 * steps installed, its holds, version locks, module streams and repositories, the files it made, the
 * initramfs rebuilt after; out->installed false when there is no record.  @removes, when not NULL, is
 * the package set the removal really takes (inst_driver_uninstall_plan: the record's less the kernels,
 * headers and tools it keeps), named instead of the record's.  Errors: those of the record's
 * reader (CU_E_INPUT, CU_E_UNSAFE_PATH, CU_E_UNSUPPORTED, CU_E_IO), before anything is asked or changed.
 * The caller frees with cu_removal_fini, whatever is returned.
 */
CU_NODISCARD enum cu_status inst_driver_removal(const char *state_dir, const struct cu_catalog *cat,
                                                const struct cu_strv *removes, struct cu_removal *out,
                                                struct cu_error *err);

#endif /* CU_DRIVER_REMOVAL_H */
