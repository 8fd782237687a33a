/* SPDX-License-Identifier: MIT */
/*
 * repair of the toolkit an environment holds as compiler wheels (--toolkit wheels, issue 50): pytoolkit.c.
 */
#ifndef CU_INST_PYTOOLKIT_H
#define CU_INST_PYTOOLKIT_H

#include <stdbool.h>

#include "core/install/exec.h"

/**
 * Every environment STATE/pyenv.json records with --toolkit wheels: each held compiler wheel that is missing, of
 * another version, or lacks a file of its RECORD is installed again at its held version by the environment's pip
 * (--force-reinstall --no-deps, its hold file as constraints); CUDA 12's toolkit view is made again.  Records a
 * "pyenv" "toolkit" step per environment it changed.  Errors: CU_E_PROBLEMS when pip could not, CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_pytoolkit_repair(const char *state_dir, struct cu_run_ctx *ctx, struct cu_error *err);

#endif /* CU_INST_PYTOOLKIT_H */
