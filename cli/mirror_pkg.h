/* SPDX-License-Identifier: MIT */
/* `mirror --package FILE`: cudaup's own package, checked and streamed into DIR/cudaup/. */
#ifndef CU_CLI_MIRROR_PKG_H
#define CU_CLI_MIRROR_PKG_H

#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/macros.h"

/**
 * Open @pkg for reading without following another user's link, and check that it is what
 * scripts/package makes: a Debian package (an ar archive whose first member is debian-binary, and
 * `dpkg-deb --info` accepts it where dpkg-deb is on PATH of @envp) named *.deb, or the release
 * tarball (a gzip'd tar holding bin/cudaup) named *.tar.gz.
 * @param fd  the open file, read from its start again by cu_mirror_pkg_place; the caller closes it
 * @return CU_OK; CU_E_USAGE (one sentence naming --package and the file) otherwise
 */
CU_NODISCARD enum cu_status cu_mirror_pkg_open(const char *pkg, const char *const *envp, int *fd,
                                               struct cu_error *err);

/**
 * Stream the package open as @fd into DIR/cudaup/ under its name (@pkg's last component), and a
 * .deb also as cudaup_ARCH.deb, the name the Ansible role fetches; each written atomically, mode 0644.
 */
CU_NODISCARD enum cu_status cu_mirror_pkg_place(int fd, const char *pkg, const char *dir, bool *changed,
                                                struct cu_error *err);

#endif
