/* SPDX-License-Identifier: MIT */
/*
 * The package manager's lock (issue 32 class 7): a fresh cloud machine's unattended upgrades hold dpkg's
 * (or zypp's) lock for minutes, and a step that starts then fails at once.  Before each step
 * of a package manager the driver's installer waits for the lock and says who holds it.
 */
#ifndef CU_INST_DRIVER_LOCK_H
#define CU_INST_DRIVER_LOCK_H

#include <stdbool.h>

#include "core/machine/syscmd.h"

/**
 * Who holds the lock that @tool ("apt-get", "dpkg", "zypper" ...) takes, under @sys's root:
 * > 0 its process id, -1 a process cudaup cannot name, 0 nobody (or @tool takes no lock cudaup knows:
 * dnf waits for its own; pacman's db.lck, also left by a crash, is pacman's to report).  *@what gets the lock's path on the machine (static).
 */
int inst_driver_lock_holder(const struct cu_sys *sys, const char *tool, const char **what);

/** DEBIAN_FRONTEND=noninteractive for @tool's run (apt-get, apt-mark, dpkg): debconf asks nobody. */
bool inst_driver_tool_noninteractive(const char *tool);

#endif
