/* SPDX-License-Identifier: MIT */
/* File-system helpers: atomic writes (STYLE 25), mkdir -p, rm -r. */
#ifndef CU_FSUTIL_H
#define CU_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/base/error.h"

/** mkdir -p with @mode for new folders. Errors: CU_E_IO. */
CU_NODISCARD enum cu_status cu_mkdir_p(const char *path, mode_t mode, struct cu_error *err);

/**
 * Open the folder that holds @rel under @dir without following a symbolic link anywhere on
 * the way (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it, else
 * one O_NOFOLLOW | O_DIRECTORY component at a time); '..' never leaves @dir.  @base gets
 * @rel's last component (borrowed from @rel).  Returns an fd, or -errno: -ELOOP or -ENOTDIR
 * when a link or a file stands where a folder should, -ENOENT when a folder is missing.
 */
struct open_how;
/**
 * openat2(2) (no libc wrapper), tried again while the kernel answers EAGAIN: a lookup under
 * RESOLVE_IN_ROOT or RESOLVE_BENEATH that went through ".." (a link in sysfs) while something was
 * renamed anywhere on the machine.  The fd, or -1 with errno set.
 */
long cu_openat2(int dirfd, const char *path, struct open_how *how);

int cu_open_parent_beneath(const char *dir, const char *rel, const char **base);

/** The name of user @uid ("nobody"), or "uid N" when it has none; returns @buf. */
const char *cu_user_name(uid_t uid, char *buf, size_t len);

/**
 * Remove what an interrupted atomic write of @path left beside it: @path.cudaup-tmp-* files
 * owned by this user whose writer (the process ID cu_tmp_template put in the name) is gone, or
 * that are more than a minute old (a live writer's temp is younger); never this process's own.
 */
void cu_clean_stale_tmp(const char *path);

/** The mkstemp template of a temp file beside @path: @path.cudaup-tmp-PID-XXXXXX.  Caller frees. */
char *cu_tmp_template(const char *path);

/**
 * Is @path a folder this user may trust: a real directory (not a symbolic link), owned by
 * the user running cudaup or by root, and not writable by every user (world-writable without the
 * sticky bit)?  Errors:
 * CU_E_UNSAFE_PATH with one sentence naming the path and its owner; CU_E_IO when it
 * cannot be examined.  A missing folder is CU_E_NOT_FOUND.
 */
CU_NODISCARD enum cu_status cu_trusted_dir(const char *path, struct cu_error *err);

/**
 * Is every folder on the way to @path, and @path itself where it is a folder, one that nobody but this user and
 * root can change: each this user's or root's and not writable by every user (a sticky folder such as /tmp is
 * fine), each symbolic link on the way this user's or root's (followed, and where it leads checked the same way)?
 * Another user who owns a folder on the way could move what is below it aside and put a link there, choosing
 * where cudaup writes.  The part of @path that does not exist yet is fine (this user makes it), and so is a file
 * where a folder should be (the caller's open says so).  Errors: CU_E_UNSAFE_PATH with one sentence naming the
 * folder or link and its owner.  A relative @path is not checked.
 */
CU_NODISCARD enum cu_status cu_path_trusted(const char *path, struct cu_error *err);

/**
 * Replace @path with @data atomically: a temporary file in the same folder,
 * written, fsync'd, closed with its result checked, then renamed over @path.
 * A symlink at @path is replaced by a file; use cu_resolve_symlinks first to
 * write through it.  Errors: CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_write_file_atomic(const char *path, const void *data, size_t len,
                                                 mode_t mode, struct cu_error *err);

/**
 * Read a record cudaup wrote (STATE/driver.json, resume.json): input like any other, and only from a
 * place no other user controls.  @dir must pass cu_trusted_dir and not be writable by a group other
 * than root's or this user's; @dir/@name must be a regular file of this user's or root's that no other
 * user may write, or a link of this user's or root's to one.  Errors: CU_E_NOT_FOUND (no such record,
 * or no such folder), CU_E_UNSAFE_PATH (one sentence naming the path and its owner), CU_E_IO,
 * CU_E_INPUT (larger than @max).
 */
CU_NODISCARD enum cu_status cu_read_record(const char *dir, const char *name, size_t max, char **out, size_t *len,
                                           struct cu_error *err);

/** Read a whole file (at most @max bytes). Errors: CU_E_NOT_FOUND, CU_E_IO, CU_E_INPUT. */
CU_NODISCARD enum cu_status cu_read_file(const char *path, size_t max, char **out, size_t *len,
                                         struct cu_error *err);

/** Remove a file or folder tree; missing is fine. Errors: CU_E_IO. */
CU_NODISCARD enum cu_status cu_rm_rf(const char *path, struct cu_error *err);
/**
 * Remove the folder @dir: first out of the way in one rename to @trash (on the same file system),
 * then deleted, so that a kill midway leaves no half folder in place.
 */
CU_NODISCARD enum cu_status cu_rm_rf_atomic(const char *dir, const char *trash, struct cu_error *err);

/**
 * fsync the folder holding @path, so that a rename in it is durable.  Returns 0, or the errno of
 * a failure the disk reported (EIO, ENOSPC ...); a file system that cannot fsync a folder
 * (EINVAL, ENOTSUP) counts as success.
 */
CU_NODISCARD int cu_fsync_parent(const char *path);

/**
 * Open folder @rel under @rootfd one component at a time with O_NOFOLLOW,
 * creating missing ones when @create.  A symbolic link on the way is
 * CU_E_UNSAFE_PATH; a file on the way is CU_E_IO.  "" opens @rootfd itself
 * (a new fd).  The caller closes *out.
 */
CU_NODISCARD enum cu_status cu_openat_dir(int rootfd, const char *rel, bool create, int *out,
                                          struct cu_error *err);

/** A relative path with real components only: no "", ".", "..", control bytes, leading '/'. */
bool cu_relpath_ok(const char *path);

/** Replace the symlink @path with one to @target atomically (a temporary link, then rename). */
CU_NODISCARD enum cu_status cu_symlink_replace(const char *target, const char *path, struct cu_error *err);

/** Where the link @link with text @target points: @target itself when absolute, else joined to @link's folder. Caller frees. */
char *cu_link_target_path(const char *link, const char *target);

/** True when @path exists (lstat). */
bool cu_path_exists(const char *path);
bool cu_is_dir(const char *path);
/**
 * Whether folders can be made at @path: it is a folder where a probe folder can be made (and is
 * removed at once), or it does not exist and the same holds for its nearest existing parent.
 * False with the reason in @err ("cannot create /proc/nope: No such file or directory").
 */
CU_NODISCARD bool cu_dir_can_create(const char *path, struct cu_error *err);

#endif /* CU_FSUTIL_H */
