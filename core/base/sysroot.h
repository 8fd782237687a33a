/* SPDX-License-Identifier: MIT */
/*
 * The machine root every probe reads through (STYLE 34, DESIGN "Flow of data").
 *
 * Paths given to these functions are absolute-looking ("/sys/bus/pci") but are
 * resolved inside the root: with openat2(RESOLVE_IN_ROOT) where the kernel has
 * it, so symlinks inside a fixture tree cannot lead out of it.
 */
#ifndef CU_SYSROOT_H
#define CU_SYSROOT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"

struct cu_sysroot {
    int dirfd;
    char *path; /* absolute, without trailing '/', "/" for the real root */
};

/** Open @path as the root. Errors: CU_E_USAGE when it is not a readable directory. */
CU_NODISCARD enum cu_status cu_sysroot_init(struct cu_sysroot *root, const char *path,
                                            struct cu_error *err);
void cu_sysroot_fini(struct cu_sysroot *root);
bool cu_sysroot_is_host(const struct cu_sysroot *root);

/** open() inside the root; returns an fd or -errno. */
int cu_sysroot_open(const struct cu_sysroot *root, const char *path, int flags);

/**
 * Read a whole file of at most @max bytes into a new NUL-terminated buffer the
 * caller owns.  Errors: CU_E_NOT_FOUND when missing, CU_E_IO otherwise.
 */
CU_NODISCARD enum cu_status cu_sysroot_read(const struct cu_sysroot *root, const char *path,
                                            size_t max, char **out, size_t *len,
                                            struct cu_error *err);

/** Read the first line of a small file, stripped; NULL when unreadable. Caller owns. */
char *cu_sysroot_read_line(const struct cu_sysroot *root, const char *path);

/** readlink() inside the root; NULL when not a link. Caller owns. */
char *cu_sysroot_readlink(const struct cu_sysroot *root, const char *path);

/** opendir() inside the root; NULL when missing. */
DIR *cu_sysroot_opendir(const struct cu_sysroot *root, const char *path);

bool cu_sysroot_exists(const struct cu_sysroot *root, const char *path);
bool cu_sysroot_is_dir(const struct cu_sysroot *root, const char *path);

/** The host path of @path under the root ("/tmp/r" + "/sys"). Caller owns. */
char *cu_sysroot_host_path(const struct cu_sysroot *root, const char *path);

#endif /* CU_SYSROOT_H */
