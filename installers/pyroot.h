/* SPDX-License-Identifier: MIT */
/*
 * The venv of a machine image (--root DIR): made and filled on this host at DIR/PREFIX/cudaup/envs/NAME, so
 * that pip runs here, then relocated so that it names paths as the image sees them (pyvenv.cfg's home and
 * executable, bin/'s links, the #! lines and VIRTUAL_ENV of bin/'s scripts, the activation's hold, pip.conf).
 * What it was on this host is kept in ENV/cudaup-root.json, so that a later install puts that back first
 * (cu_pyroot_host_view), runs pip, and relocates again.
 */
#ifndef CU_PYROOT_H
#define CU_PYROOT_H

#include <stdbool.h>

#include "core/base/error.h"
#include "core/install/envfile.h"
#include "core/resolve/plan.h"

/** The file in the venv that says it was relocated for a machine image, and how it looked on this host. */
#define CU_PYROOT_MARK CU_ENV_ROOT_MARK

/** Is @p's environment a venv inside its machine root (p->env.root), so that it is relocated for it? */
bool cu_pyroot_applies(const struct cu_plan *p);

/** The plan's step, after the hold's (prepare.c adds it last: the relocation comes after everything pip does). */
void cu_pyroot_plan(struct cu_plan *p);

/**
 * Before an install touches a venv relocated for its image: put back what it was on this host (its
 * pyvenv.cfg and links from CU_PYROOT_MARK, the venv's own path in bin/'s scripts and pip.conf), so that its
 * Python and pip run here.  Nothing to do for a venv without the mark.  Errors: CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_pyroot_host_view(const struct cu_plan *p, struct cu_error *err);

#endif /* CU_PYROOT_H */
