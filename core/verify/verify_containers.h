/* SPDX-License-Identifier: MIT */
/*
 * verify's checks of GPU containers on a host (issue 48 item 3): the CDI specs name every GPU of this machine and
 * were generated for the loaded driver ("cdi-spec"); a container started with the GPU sees it
 * ("container": Podman through CDI, else Docker), with a small image that is present or that the engine can
 * pull, else the check says so and skips rather than passing.  Commands go through the system runner.
 */
#ifndef CU_VERIFY_CONTAINERS_H
#define CU_VERIFY_CONTAINERS_H

#include "core/catalog/catalog.h"
#include "core/machine/syscmd.h"
#include "core/machine/sysinfo.h"
#include "core/verify/checks.h"

/* The image the run check uses unless CUDAUP_CONTAINER_IMAGE names another (a site's own, an air-gapped registry's). */
#define CU_VERIFY_CONTAINER_IMAGE "docker.io/library/busybox:latest"

/** Add the containers checks for the machine @sys runs on to @out. */
void cu_verify_containers(const struct cu_facts *f, const struct cu_catalog *cat, const struct cu_sys *sys,
                          const char *const *envp, struct cu_checks *out);

#endif /* CU_VERIFY_CONTAINERS_H */
