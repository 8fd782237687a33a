/* SPDX-License-Identifier: MIT */
/*
 * The choices `repair` makes for the driver, shared by its plan (shown before it runs) and its run
 * (driver_repair.c): inside the driver stage only.
 */
#ifndef CU_INST_DRIVER_REPAIR_PLAN_H
#define CU_INST_DRIVER_REPAIR_PLAN_H

#include <stdbool.h>

#include "core/base/str.h"
#include "core/catalog/driver_data.h"
#include "core/doctor/doctor.h"
#include "core/resolve/driver.h"
#include "driver.h"

/** Is @code among @pr's? */
bool drv_has_code(const struct cu_problems *pr, const char *code);

/** The branch repair works on: the running driver's, else its libraries' (0: none known). */
int drv_repair_branch(const struct cu_facts *f);

/** @manager's install command, as words ("apt-get install -y"). */
const char *drv_install_words(const char *manager);

/** The running kernel's headers packages (@row's running_headers, {R} expanded) to @out; none in an image. */
void drv_running_headers(const struct cu_drv_pkg *row, const struct cu_facts *f, int branch, bool image,
                         struct cu_strv *out);

/** The signed module packages of @row: its meta and the running kernel's own (NULL each when none). Caller frees. */
void drv_signed_packages(const struct cu_drv_pkg *row, const struct cu_facts *f, int branch, bool image, char **meta,
                         char **own);

#endif /* CU_INST_DRIVER_REPAIR_PLAN_H */
