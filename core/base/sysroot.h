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

/**
 * Open folder @path inside the root (links resolved inside it, as cu_sysroot_open does), making the missing
 * folders (0755) one at a time inside their parents when @create.  Returns an fd, or -errno.
 */
int cu_sysroot_open_dir(const struct cu_sysroot *root, const char *path, bool create);

/**
 * The real host path of what exists at @path inside the root (a file or a folder), every link on the way
 * resolved inside the root: what to hand a call that takes a path (dlopen), so that the tree's absolute links
 * lead to the tree's files, not this host's.  NULL when there is nothing there.  Caller owns.
 */
char *cu_sysroot_real_path(const struct cu_sysroot *root, const char *path);

/**
 * Where @path inside the root is on this host, every link on the way resolved inside the root (the tree's own
 * absolute links included), the part that does not exist yet appended as given: "/tmp/r/usr/local" for
 * "/usr/local" under /tmp/r, "/tmp/r/opt/local" when the tree's /usr/local is a link to /opt/local.  The
 * result names no link up to its first missing part, so a later plain write there stays inside the root (as
 * long as nobody else may change the tree: cu_path_trusted).  Errors: CU_E_UNSAFE_PATH when a link on the
 * way leads to nothing inside the root (its target would be this host's), or when the folder reached is
 * outside it; CU_E_IO when a file stands where a folder should be.  *out is the caller's.
 */
CU_NODISCARD enum cu_status cu_sysroot_resolve(const struct cu_sysroot *root, const char *path, char **out,
                                               struct cu_error *err);

/**
 * Host path @host as the machine under @rootp (a root's path; NULL or "/" for this machine) sees it:
 * "/usr/local/cuda" for "/tmp/r/usr/local/cuda" under "/tmp/r".  A path reached through a link to the root
 * counts too.  NULL when @host is not inside @rootp.  Caller owns.
 */
char *cu_root_seen_path(const char *rootp, const char *host);

/**
 * May a program at @path inside the root be run as this user: the root itself, each folder and link on the
 * way to @path (links resolved inside the root) and the program, each this user's or root's, and none
 * writable by other users (a sticky folder such as /tmp is fine)?  A part that is not there is left to the
 * caller.  Errors: CU_E_UNSAFE_PATH with one sentence naming the host path and its owner; CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_sysroot_trusted_path(const struct cu_sysroot *root, const char *path,
                                                    struct cu_error *err);

/** The host path of @path under the root ("/tmp/r" + "/sys"). Caller owns. */
char *cu_sysroot_host_path(const struct cu_sysroot *root, const char *path);

#endif /* CU_SYSROOT_H */
