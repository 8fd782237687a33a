/* SPDX-License-Identifier: MIT */
/* apt's sources of the machine, and the driver's components added to each suite of its archive. */
#ifndef CU_INST_DRIVER_SOURCES_H
#define CU_INST_DRIVER_SOURCES_H

#include "core/machine/syscmd.h"

/**
 * The deb822 text that adds @components to every suite of the release @codename (NULL: the first plain
 * suite the sources name) that the machine's sources (other than @own_file) list without them: the
 * release, -updates and -security, each at its own URI; and, for each suite of @suites (the row's
 * "{C} {C}-updates {C}-security=URI", or NULL) that they do not list at all, a stanza at its URI (else the
 * release's) with the release's components and @components.  NULL when nothing is missing; "" when the
 * sources name no suite of the release.  Caller owns.
 */
char *inst_driver_sources_text(const struct cu_sys *sys, const char *components, const char *suites, const char *codename,
                               const char *own_file);
#endif
