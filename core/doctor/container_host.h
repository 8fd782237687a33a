/* SPDX-License-Identifier: MIT */
/*
 * doctor on a host of GPU containers (issue 48 item 3): an engine that is not configured for the GPU, a containerd
 * drop-in the engine refuses (a newer version than its root config: containerd 2.3 exits), an engine's file that does
 * not parse, a CDI spec that is missing or stale (generated for another driver than the loaded one, or for fewer GPUs
 * than the machine has); each with its fix.  Judged by the same rules the install writes by (core/resolve/containers.h)
 * from the machine's facts (core/machine/engines.h, cdi.h).  Inside a container, container_doctor.h speaks instead.
 */
#ifndef CU_CONTAINER_HOST_H
#define CU_CONTAINER_HOST_H

#include <jansson.h>
#include <stdbool.h>

#include "core/doctor/doctor.h"
#include "core/machine/cdi.h"
#include "core/machine/engines.h"

/**
 * Append the problems of the machine's GPU containers to @out.  @recorded: cudaup set containers up here
 * (STATE/containers.json).  Nothing when the machine has no engine, no toolkit, no spec and no record, or no GPU.
 */
void cu_ctr_doctor(const struct cu_facts *f, const struct cu_catalog *cat, const struct cu_engines *en, const struct cu_cdi *cdi,
                   bool recorded, struct cu_problems *out);

/** doctor's "containers": {toolkit, engines[] {name, version, configured}, cdi[] {path, driver, devices[]}}. */
json_t *cu_ctr_doctor_json(const struct cu_catalog *cat, const struct cu_engines *en, const struct cu_cdi *cdi);

/**
 * doctor's "Containers" line, as the user reads it: each engine installed here with its version and whether it runs GPU
 * containers (its runtime nvidia, or CDI for Podman), whether nvidia-ctk is here, and each CDI spec with the driver it
 * was generated for.  NULL where there is no engine, no toolkit and no spec (nothing to say).  The caller frees it.
 */
char *cu_ctr_doctor_line(const struct cu_catalog *cat, const struct cu_engines *en, const struct cu_cdi *cdi);

/** Is the CDI spec @s of the driver @drv (the loaded one)? False when it names none. */
bool cu_ctr_cdi_fresh(const struct cu_cdi_spec *s, const struct cu_version *drv);

#endif /* CU_CONTAINER_HOST_H */
