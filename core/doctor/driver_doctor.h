/* SPDX-License-Identifier: MIT */
/*
 * The broken-driver states doctor names (core/doctor/driver_doctor.c), each with its fix, and doctor's
 * driver keys of the JSON.
 */
#ifndef CU_DRIVER_DOCTOR_H
#define CU_DRIVER_DOCTOR_H

#include <jansson.h>

struct cu_catalog;
struct cu_facts;

struct cu_problems; /* core/doctor/doctor.h */

/**
 * Name the broken-driver states (core/doctor/driver_doctor.c), each with a fix that `cudaup repair`
 * carries out where a package manager can: driver-mismatch (when sysinfo's NVML check could not
 * tell), driver-module-missing, driver-unsigned-secure-boot, driver-unpinned,
 * driver-flavor-unsupported, driver-drops-gpu (a branch past the last that drives a GPU here, loaded or
 * installed) and driver-pin-drops-gpu (a pin of the driver's packages that holds such a branch).  Appends to @out.
 */
void cu_drv_doctor(const struct cu_facts *facts, const struct cu_catalog *cat, const struct cu_problems *seen,
                   struct cu_problems *out);

/** Where cudaup would install a driver, the fix of no-driver, nouveau, no-libcuda and driver-too-old names it. */
void cu_drv_doctor_fixes(const struct cu_facts *facts, const struct cu_catalog *cat, struct cu_problems *pr);

/** Add doctor's driver keys (flavor, secure_boot, module_for_running_kernel, library_version, ...) to @drv. */
void cu_drv_state_json(const struct cu_facts *facts, json_t *drv);

#endif /* CU_DRIVER_DOCTOR_H */
