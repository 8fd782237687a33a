/* SPDX-License-Identifier: MIT */
/*
 * doctor inside a container (issue 48 item 1): the driver is the host's, so its problems are said as the
 * container sees them, each with a fix made on the host or in how the container starts (`docker run --gpus all`,
 * `podman run --device nvidia.com/gpu=all`), never a module, nouveau blacklist or initramfs of the container's.
 * Their codes are the container's own (container-no-driver, container-nouveau, ...), so that nothing that acts on a
 * host's driver problem (a plan's binding, repair, the wizard's driver offer) takes them for one.
 */
#ifndef CU_CONTAINER_DOCTOR_H
#define CU_CONTAINER_DOCTOR_H

#include <jansson.h>
#include <stddef.h>

#include "core/doctor/doctor.h"

struct cu_container_finding {
    const char *code; /* static */
    enum cu_severity severity;
    char *message, *fix; /* translated; the caller takes them (cu_problems_add) */
};

/**
 * The driver's problems inside a container, into @out (at most @max); returns how many.  @best: the newest CUDA
 * that builds for every GPU here and @need its driver (NULL: none), as cu_doctor_best_cuda gives them.
 */
size_t cu_container_driver_findings(const struct cu_facts *f, const struct cu_catalog *cat, const struct cu_version *best,
                                    const struct cu_version *need, struct cu_container_finding *out, size_t max);

/** doctor's "container": {engine, evidence}, or null outside one. */
json_t *cu_container_json(const struct cu_container_info *c);

#endif /* CU_CONTAINER_DOCTOR_H */
