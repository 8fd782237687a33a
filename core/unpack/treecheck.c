/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/unpack/treecheck.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"

static bool
trusted_owner(uid_t uid)
{
    return uid == geteuid() || uid == 0;
}

/* One entry: NULL when it is fine, else why not (err filled). */
static enum cu_status
check_entry(const char *path, const struct stat *sb, struct cu_error *err)
{
    char owner[64];
    cu_user_name(sb->st_uid, owner, sizeof(owner));
    if (S_ISLNK(sb->st_mode) && !trusted_owner(sb->st_uid))
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s is a symbolic link owned by %s; cudaup will not follow another user's link"), path,
                            owner);
    if (S_ISDIR(sb->st_mode) && !trusted_owner(sb->st_uid))
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s belongs to %s, not to you or root; cudaup will not use a folder another user controls"),
                            path, owner);
    if (S_ISDIR(sb->st_mode) && (sb->st_mode & S_IWOTH) && !(sb->st_mode & S_ISVTX))
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s (owned by %s) can be written by every user; cudaup will not use it (chmod o-w)"), path,
                            owner);
    return CU_OK;
}

/* nftw has no user data: the walk's error goes through this one slot, used by one walk at a time. */
static _Thread_local struct cu_error *walk_err;

static int
visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)ftw;
    /* Listed, then gone before it was examined: another run's lock or temporary file in a shared cache,
     * removed as that run let go.  What is not there is no danger; the walk goes on. */
    if (type == FTW_NS && errno == ENOENT)
        return 0;
    if (type == FTW_NS || type == FTW_DNR) {
        cu_error_set(walk_err, CU_E_IO, errno, _("Cannot examine %s"), path);
        return 1;
    }
    return check_entry(path, sb, walk_err) == CU_OK ? 0 : 1;
}

enum cu_status
cu_tree_trusted(const char *dir, struct cu_error *err)
{
    struct stat sb, tb;
    if (lstat(dir, &sb) != 0)
        return errno == ENOENT ? CU_OK : cu_error_set(err, CU_E_IO, errno, _("Cannot examine %s"), dir);
    enum cu_status st = check_entry(dir, &sb, err);
    if (st != CU_OK)
        return st;
    if (S_ISLNK(sb.st_mode)) {
        /* This user's link: what it leads to is the folder, checked as one. */
        if (stat(dir, &tb) != 0)
            return cu_error_set(err, CU_E_IO, errno, _("Cannot examine %s"), dir);
        if ((st = check_entry(dir, &tb, err)) != CU_OK)
            return st;
    }
    walk_err = err;
    cu_error_clear(err);
    /* The link DIR itself is followed (a trailing "/."), nothing below it. */
    CU_AUTOFREE char *top = cu_xasprintf("%s/.", dir);
    int rc = nftw(top, visit, 16, FTW_PHYS);
    walk_err = NULL;
    if (rc != 0)
        return err->code != CU_OK ? err->code : cu_error_set(err, CU_E_IO, errno, _("Cannot examine %s"), dir);
    return CU_OK;
}
