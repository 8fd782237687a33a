/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"

enum cu_status
cu_mkdir_p(const char *path, mode_t mode, struct cu_error *err)
{
    CU_AUTOFREE char *p = cu_xstrdup(path);
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/')
        p[--len] = '\0';
    for (char *s = p + 1;; s++) {
        bool end = *s == '\0';
        if (*s != '/' && !end)
            continue;
        *s = '\0';
        if (mkdir(p, mode) != 0 && errno != EEXIST)
            return cu_error_set(err, CU_E_IO, errno, _("Cannot create the folder %s"), p);
        if (end)
            break;
        *s = '/';
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return cu_error_set(err, CU_E_IO, ENOTDIR, _("Cannot create the folder %s"), path);
    return CU_OK;
}

long
cu_openat2(int dirfd, const char *path, struct open_how *how)
{
    /* The kernel says "the caller may choose to retry" (openat2(2)); a busy machine renames often, so
     * a few hundred tries, each a lookup that needs no wait. */
    long fd = -1;
    for (int tries = 0; tries < 256; tries++) {
        fd = syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
        if (fd >= 0 || errno != EAGAIN)
            break;
    }
    return fd;
}

int
cu_open_parent_beneath(const char *dir, const char *rel, const char **base)
{
    const char *slash = strrchr(rel, '/');
    *base = slash ? slash + 1 : rel;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -errno;
    if (!slash)
        return dfd;
    CU_AUTOFREE char *parent = cu_xstrndup(rel, (size_t)(slash - rel));
    struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW,
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    long fd = cu_openat2(dfd, parent, &how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG)) {
        int e = errno;
        close(dfd);
        return fd >= 0 ? (int)fd : (e == EXDEV ? -ELOOP : -e);
    }
    /* No openat2: one component at a time, never through a link, never up. */
    int cur = dfd;
    for (char *c = parent, *next; c && *c; c = next) {
        next = strchr(c, '/');
        if (next)
            *next++ = '\0';
        if (!*c || strcmp(c, ".") == 0)
            continue;
        int nfd = strcmp(c, "..") == 0 ? (errno = ELOOP, -1)
                                       : openat(cur, c, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        int e = errno;
        close(cur);
        if (nfd < 0)
            return -e;
        cur = nfd;
    }
    return cur;
}

const char *
cu_user_name(uid_t uid, char *out, size_t len)
{
    struct passwd pw, *res = NULL;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res)
        snprintf(out, len, "%s", res->pw_name);
    else
        snprintf(out, len, "uid %u", (unsigned)uid);
    return out;
}

enum cu_status
cu_trusted_dir(const char *path, struct cu_error *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0) {
        if (errno == ENOENT)
            return cu_error_set(err, CU_E_NOT_FOUND, 0, _("%s does not exist"), path);
        return cu_error_set(err, CU_E_IO, errno, _("Cannot examine %s"), path);
    }
    char owner[64];
    struct stat tb;
    /* For a link, whose is what it leads to matters: name that. */
    cu_user_name(S_ISLNK(sb.st_mode) && stat(path, &tb) == 0 ? tb.st_uid : sb.st_uid, owner, sizeof(owner));
    if (S_ISLNK(sb.st_mode)) {
        char to[1024];
        ssize_t n = readlink(path, to, sizeof(to) - 1);
        to[n > 0 ? n : 0] = '\0';
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s is a symbolic link to %s (owned by %s); cudaup only trusts real folders there and will not follow it"),
                            path, to, owner);
    }
    if (!S_ISDIR(sb.st_mode))
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0, _("%s is not a folder (owned by %s)"), path, owner);
    if (sb.st_uid != geteuid() && sb.st_uid != 0)
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s belongs to %s, not to you or root; cudaup will not use a folder another user controls"),
                            path, owner);
    /* World-writable only: a group-writable /usr/local (Debian's root:staff 2775) is trusted by design. */
    if ((sb.st_mode & S_IWOTH) && !(sb.st_mode & S_ISVTX))
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s (owned by %s) can be written by every user; cudaup will not use it (chmod o-w)"),
                            path, owner);
    return CU_OK;
}

/* One folder on the way to a path: this user's or root's, and not writable by every user unless sticky. */
static enum cu_status
way_folder_ok(const char *path, const struct stat *sb, struct cu_error *err)
{
    char owner[64];
    if (sb->st_uid != geteuid() && sb->st_uid != 0)
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s belongs to %s, not to you or root; cudaup will not use a folder another user controls"),
                            path, cu_user_name(sb->st_uid, owner, sizeof(owner)));
    if ((sb->st_mode & S_IWOTH) && !(sb->st_mode & S_ISVTX))
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s (owned by %s) can be written by every user; cudaup will not use it (chmod o-w)"), path,
                            cu_user_name(sb->st_uid, owner, sizeof(owner)));
    return CU_OK;
}

enum cu_status
cu_path_trusted(const char *path, struct cu_error *err)
{
    if (!path || path[0] != '/')
        return CU_OK;
    struct stat sb;
    if (lstat("/", &sb) == 0 && way_folder_ok("/", &sb, err) != CU_OK)
        return CU_E_UNSAFE_PATH;
    /* @cur: the folders walked so far, none of them a link; @rest: what is still to walk (a link's text goes in front). */
    CU_AUTOFREE char *cur = cu_xstrdup("");
    CU_AUTOFREE char *rest = cu_xstrdup(path);
    for (int links = 0;;) {
        CU_AUTOFREE char *name = cu_path_walk_next(cur, &rest);
        if (!name)
            return CU_OK;
        CU_AUTOFREE char *next = cu_xasprintf("%s/%s", cur, name);
        if (lstat(next, &sb) != 0)
            return CU_OK; /* not there yet (this user makes it), or not for this user to see: the caller's own checks say */
        if (S_ISLNK(sb.st_mode)) {
            char owner[64], to[4096];
            if (sb.st_uid != geteuid() && sb.st_uid != 0)
                return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                                    _("%s is a symbolic link owned by %s; cudaup will not follow another user's link"), next,
                                    cu_user_name(sb.st_uid, owner, sizeof(owner)));
            ssize_t len = readlink(next, to, sizeof(to) - 1);
            if (len <= 0 || ++links > 40)
                return CU_OK; /* a loop or an unreadable link: the caller's open says so */
            to[len] = '\0';
            cu_path_walk_link(cur, &rest, to);
            continue;
        }
        if (!S_ISDIR(sb.st_mode))
            return CU_OK; /* a file where a folder should be: the caller's error, not a matter of trust */
        enum cu_status st = way_folder_ok(next, &sb, err);
        if (st != CU_OK)
            return st;
        free(cur);
        cur = cu_steal_ptr(&next);
    }
}

int
cu_fsync_parent(const char *path)
{
    CU_AUTOFREE char *dir = cu_xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 0;
    if (slash == dir)
        slash[1] = '\0';
    else
        *slash = '\0';
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = fsync(fd) == 0 || errno == EINVAL || errno == ENOTSUP ? 0 : errno;
    close(fd);
    return e;
}

char *
cu_tmp_template(const char *path)
{
    return cu_xasprintf("%s.cudaup-tmp-%ld-XXXXXX", path, (long)getpid());
}

/*
 * The process ID a temp file's name carries after ".cudaup-tmp-" (@rest): "PID-XXXXXX"
 * (cu_tmp_template), "PID-N" (a link's) or "PID" (the mirror's copy); 0 when it carries none.
 */
static long
tmp_writer(const char *rest)
{
    long pid = 0;
    const char *q = rest;
    while (*q >= '0' && *q <= '9' && pid < 4194304)
        pid = pid * 10 + (*q++ - '0');
    if (q == rest || (*q && *q != '-'))
        return 0;
    return pid;
}

void
cu_clean_stale_tmp(const char *path)
{
    CU_AUTOFREE char *dir = cu_xstrdup(path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : path;
    if (slash)
        *slash = '\0';
    CU_AUTOFREE char *prefix = cu_xasprintf("%s.cudaup-tmp-", base);
    DIR *d = opendir(slash ? (*dir ? dir : "/") : ".");
    struct dirent *de;
    time_t now = time(NULL);
    if (!d)
        return;
    int dfd = dirfd(d);
    size_t pl = strlen(prefix);
    while ((de = readdir(d)) != NULL) {
        struct stat sb;
        if (strncmp(de->d_name, prefix, pl) != 0 || fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid())
            continue; /* ours by name, owner and type only */
        /*
         * Stale when the process whose ID its name carries is gone (killed between its write and its
         * rename: the rerun right after removes it), or, whoever wrote it, when it is more than a
         * minute old (a live writer's temp is younger).  This process's own are never touched.
         */
        long pid = tmp_writer(de->d_name + pl);
        bool gone = pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
        if (pid == (long)getpid() || (!gone && now - sb.st_mtime <= 60))
            continue;
        unlinkat(dfd, de->d_name, 0);
    }
    closedir(d);
}

enum cu_status
cu_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode,
                     struct cu_error *err)
{
    cu_clean_stale_tmp(path); /* what a kill at the rename left behind */
    CU_AUTOFREE char *tmp = cu_tmp_template(path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot write %s"), path);
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), path);
        }
        p += n;
        left -= (size_t)n;
    }
    if (fchmod(fd, mode) != 0 || fsync(fd) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), path);
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), path);
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), path);
    }
    /* The new content is in place; a disk that cannot make it durable is still an error. */
    int e = cu_fsync_parent(path);
    if (e)
        return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), path);
    return CU_OK;
}

/* Is the file behind @fd one a record may be: regular, this user's or root's, written by no one else? */
static enum cu_status
record_file_ok(int fd, const char *path, struct cu_error *err)
{
    struct stat sb;
    char owner[64];
    if (fstat(fd, &sb) != 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot examine %s"), path);
    cu_user_name(sb.st_uid, owner, sizeof(owner));
    if (!S_ISREG(sb.st_mode))
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0, _("%s is not a regular file (owned by %s); cudaup will not read it as its record"),
                            path, owner);
    if (sb.st_uid != geteuid() && sb.st_uid != 0)
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0, _("%s belongs to %s, not to you or root; cudaup will not act on a record another user wrote"),
                            path, owner);
    if ((sb.st_mode & S_IWOTH) || ((sb.st_mode & S_IWGRP) && sb.st_gid != 0 && sb.st_gid != getegid()))
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0, _("%s (owned by %s) can be written by other users; cudaup will not act on it (chmod go-w)"),
                            path, owner);
    return CU_OK;
}

enum cu_status
cu_read_record(const char *dir, const char *name, size_t max, char **out, size_t *len, struct cu_error *err)
{
    CU_AUTOFREE char *path = cu_path_join(dir, name);
    struct stat sb;
    *out = NULL;
    enum cu_status st = cu_trusted_dir(dir, err);
    if (st != CU_OK)
        return st;
    if (stat(dir, &sb) == 0 && (sb.st_mode & S_IWGRP) && sb.st_gid != 0 && sb.st_gid != getegid()) {
        char owner[64];
        cu_user_name(sb.st_uid, owner, sizeof(owner));
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s (owned by %s) can be written by another group's users; cudaup will not act on the records in it (chmod g-w)"),
                            dir, owner);
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0 && errno == ELOOP) {
        /* A link: whose it is decides; then what it leads to is checked as the file. */
        if (lstat(path, &sb) != 0)
            return cu_error_set(err, CU_E_IO, errno, _("Cannot examine %s"), path);
        if (sb.st_uid != geteuid() && sb.st_uid != 0) {
            char owner[64];
            cu_user_name(sb.st_uid, owner, sizeof(owner));
            return cu_error_set(err, CU_E_UNSAFE_PATH, 0, _("%s is a symbolic link owned by %s; cudaup will not follow another user's link"),
                                path, owner);
        }
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    }
    if (fd < 0)
        return cu_error_set(err, errno == ENOENT ? CU_E_NOT_FOUND : CU_E_IO, errno, _("Cannot read %s"), path);
    if ((st = record_file_ok(fd, path, err)) != CU_OK) {
        close(fd);
        return st;
    }
    /* The same file, read through the descriptor that was checked. */
    CU_AUTOFREE char *via = cu_xasprintf("/proc/self/fd/%d", fd);
    st = cu_read_file(via, max, out, len, err);
    close(fd);
    if (st != CU_OK && st != CU_E_INPUT) {
        cu_error_clear(err);
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot read %s"), path);
    }
    return st;
}

enum cu_status
cu_read_file(const char *path, size_t max, char **out, size_t *len, struct cu_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct cu_buf b;
    *out = NULL;
    if (len)
        *len = 0;
    if (fd < 0)
        return cu_error_set(err, errno == ENOENT ? CU_E_NOT_FOUND : CU_E_IO, errno,
                            _("Cannot read %s"), path);
    cu_buf_init(&b);
    for (;;) {
        char chunk[65536];
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            cu_buf_fini(&b);
            return cu_error_set(err, CU_E_IO, e, _("Cannot read %s"), path);
        }
        if (n == 0)
            break;
        if (b.len + (size_t)n > max) {
            close(fd);
            cu_buf_fini(&b);
            return cu_error_set(err, CU_E_INPUT, 0, _("%s is larger than %zu bytes"), path, max);
        }
        cu_buf_append(&b, chunk, (size_t)n);
    }
    close(fd);
    if (len)
        *len = b.len;
    *out = cu_buf_steal(&b);
    cu_buf_fini(&b);
    return CU_OK;
}

/* nftw callbacks take no user data; this counts unreadable folders opened up. */
static _Thread_local int dirs_reopened;

static int
open_dirs(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if ((flag == FTW_D || flag == FTW_DNR) && (st->st_mode & 0700) != 0700) {
        chmod(path, (st->st_mode & 07777) | 0700);
        if (flag == FTW_DNR)
            dirs_reopened++;
    }
    return 0;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP || flag == FTW_D)
        return rmdir(path) == 0 || errno == ENOENT ? 0 : -1;
    return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}

enum cu_status
cu_rm_rf(const char *path, struct cu_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? CU_OK : cu_error_set(err, CU_E_IO, errno, _("Cannot remove %s"), path);
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0 && errno != ENOENT)
            return cu_error_set(err, CU_E_IO, errno, _("Cannot remove %s"), path);
        return CU_OK;
    }
    /* Folders without write permission (an archive's 0555 dirs) must still go:
     * open them up top-down first, then remove bottom-up. */
    for (int pass = 0; pass < 64; pass++) {
        dirs_reopened = 0;
        nftw(path, open_dirs, 32, FTW_PHYS);
        if (!dirs_reopened)
            break; /* each pass reaches one more level of 0000 folders */
    }
    if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) != 0) {
        int e = errno;
        return cu_error_set(err, CU_E_IO, e, _("Cannot remove %s"), path);
    }
    return CU_OK;
}

bool
cu_path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

bool
cu_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool
cu_relpath_ok(const char *path)
{
    size_t len = path ? strlen(path) : 0;
    if (len == 0 || len > 4096 || path[0] == '/')
        return false;
    for (const char *p = path; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return false;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || n > 255 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        p += n;
        if (*p == '/' && !*++p)
            return false;
    }
    return true;
}

enum cu_status
cu_openat_dir(int rootfd, const char *rel, bool create, int *out, struct cu_error *err)
{
    int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
    *out = -1;
    if (fd < 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot open a folder"));
    const char *p = rel;
    while (*p) {
        size_t n = strcspn(p, "/");
        CU_AUTOFREE char *c = cu_xstrndup(p, n);
        p += n;
        while (*p == '/')
            p++;
        if (n == 0)
            continue;
        if (create && mkdirat(fd, c, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            close(fd);
            return cu_error_set(err, CU_E_IO, e, _("Cannot create the folder %s"), rel);
        }
        int nfd = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (nfd < 0) {
            int e = errno;
            struct stat st;
            bool link = fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
            close(fd);
            if (link)
                return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                                    _("%s leads through a symbolic link; nothing is written through one"), rel);
            return cu_error_set(err, CU_E_IO, e, _("Cannot open the folder %s"), rel);
        }
        close(fd);
        fd = nfd;
    }
    *out = fd;
    return CU_OK;
}

enum cu_status
cu_symlink_replace(const char *target, const char *path, struct cu_error *err)
{
    CU_AUTOFREE char *tmp = NULL;
    for (int i = 0; i < 100; i++) {
        free(tmp);
        tmp = cu_xasprintf("%s.cudaup-tmp-%d-%d", path, (int)getpid(), i);
        if (symlink(target, tmp) == 0)
            break;
        if (errno != EEXIST)
            return cu_error_set(err, CU_E_IO, errno, _("Cannot create the link %s"), path);
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return cu_error_set(err, CU_E_IO, e, _("Cannot create the link %s"), path);
    }
    int e = cu_fsync_parent(path);
    if (e)
        return cu_error_set(err, CU_E_IO, e, _("Cannot create the link %s"), path);
    return CU_OK;
}

char *
cu_link_target_path(const char *link, const char *target)
{
    if (target[0] == '/')
        return cu_xstrdup(target);
    const char *slash = strrchr(link, '/');
    CU_AUTOFREE char *dir = cu_xstrndup(link, slash ? (size_t)(slash - link) : 0);
    return cu_path_join(*dir ? dir : "/", target);
}

enum cu_status
cu_rm_rf_atomic(const char *dir, const char *trash, struct cu_error *err)
{
    if (rename(dir, trash) != 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot remove %s"), dir);
    /* The folder is gone from its place either way: what is removed need not be durable. */
    int ignored = cu_fsync_parent(dir);
    (void)ignored;
    return cu_rm_rf(trash, err);
}

bool
cu_dir_can_create(const char *path, struct cu_error *err)
{
    CU_AUTOFREE char *at = cu_xstrdup(path);
    struct stat sb;
    /* The nearest part of the path that exists. */
    while (stat(at, &sb) != 0) {
        char *slash = strrchr(at, '/');
        if (errno != ENOENT || !slash) {
            cu_error_set(err, CU_E_IO, errno, _("cannot create %s"), path);
            return false;
        }
        if (slash == at)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
    if (!S_ISDIR(sb.st_mode)) {
        cu_error_set(err, CU_E_IO, ENOTDIR, _("cannot create %s"), path);
        return false;
    }
    /* Permissions alone do not tell (root may write anywhere, yet not in /proc): make one and remove it. */
    CU_AUTOFREE char *probe = cu_xasprintf("%s%s.cudaup-probe-XXXXXX", at, at[strlen(at) - 1] == '/' ? "" : "/");
    if (!mkdtemp(probe)) {
        int e = errno;
        /* the folder itself cannot take one: say why of the path the user typed */
        cu_error_set(err, CU_E_IO, e == EEXIST ? EACCES : e, _("cannot create %s"), path);
        return false;
    }
    if (rmdir(probe) != 0)
        cu_log_debug("cannot remove %s", probe);
    return true;
}
