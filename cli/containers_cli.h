/* SPDX-License-Identifier: MIT */
/* GPU containers from the command line (issue 48): repair's part and `uninstall containers` (cmd_containers.c). */
#ifndef CU_CLI_CONTAINERS_H
#define CU_CLI_CONTAINERS_H

#include <stddef.h>

#include "app.h"
#include "core/doctor/doctor.h"
#include "core/install/exec.h"

/**
 * repair's part for GPU containers: doctor's container problems into @seen; those repair fixes (a CDI spec missing or
 * stale) said in @plan, asked, then fixed.  *@fixable: how many it fixes.  Errors: the repair's; CU_E_USAGE with *@rc
 * set when the user said no.
 */
enum cu_status cu_repair_containers(struct cu_app *app, struct cu_run_ctx *ctx, struct cu_problems *seen, struct cu_strv *plan,
                                    size_t *fixable, int *rc, struct cu_error *err);

/** `cudaup uninstall containers`. Returns the exit status. */
int cu_uninstall_containers(struct cu_app *app);

#endif /* CU_CLI_CONTAINERS_H */
