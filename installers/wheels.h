/* SPDX-License-Identifier: MIT */
/* The framework's wheels on a site mirror: DIR/pypi/files/ and a PEP 503 index at DIR/pypi/simple/. */
#ifndef CU_INST_WHEELS_H
#define CU_INST_WHEELS_H

#include <stddef.h>

#include "core/install/exec.h"

/** A python3 on PATH whose `-m pip` runs, for pip download; NULL when there is none. Caller frees. */
char *cu_wheels_pip_python(const char *const *envp);

/**
 * Download the plan's framework wheels (and their dependencies) for the plan's platform and Python
 * into DIR/pypi/files/ with @python's pip, then index every wheel there (cu_wheels_index).
 */
CU_NODISCARD enum cu_status cu_wheels_mirror(struct cu_run_ctx *ctx, const char *dir, const char *python,
                                             size_t *n_wheels, struct cu_error *err);

/**
 * Write PYPI/simple/index.html and PYPI/simple/PROJECT/index.html for every wheel in PYPI/files/, and each wheel's
 * METADATA as PYPI/files/WHEEL.metadata (PEP 658), listed with data-core-metadata (PEP 714).
 */
CU_NODISCARD enum cu_status cu_wheels_index(const char *pypi, size_t *n_wheels, struct cu_error *err);

#endif
