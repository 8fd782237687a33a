/* SPDX-License-Identifier: MIT */
/* The driver and the plan decided together (issue 34); driver_resolve.c. */
#ifndef CU_INST_DRIVER_RESOLVE_H
#define CU_INST_DRIVER_RESOLVE_H

#include "core/resolve/driver.h"
#include "core/resolve/plan.h"
#include "core/resolve/resolve.h"
#include "prepare.h"

/**
 * The driver and the plan together (issue 34): the driver decided as inst_driver_prepare does, then the
 * request resolved for the driver that will run.  --driver auto keeps a driver that works when the request
 * can be met with it, and then says in the plan's reasons which newer release a newer driver would bring
 * and the command that asks for it; when the request cannot be met with it but can with a newer branch,
 * that branch is planned and its reasons say why.  With --driver keep the same newer branch, where it is
 * what makes the request plan, is the refusal's advice (its command, the driver it installs and the
 * reboot).  A driver refusal's advice is a command that plans (--driver keep).  Errors: those of
 * inst_driver_prepare and cu_resolve.  *@drv and *@plan are the caller's.
 */
CU_NODISCARD enum cu_status inst_driver_resolve(const struct cu_prepare_in *in, const struct cu_wishes *w,
                                                const struct cu_manifest_source *src, struct cu_drv_plan **drv,
                                                struct cu_plan **plan, struct cu_error *err);

#endif /* CU_INST_DRIVER_RESOLVE_H */
