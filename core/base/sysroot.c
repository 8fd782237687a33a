/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"

enum cu_status
cu_sysroot_init(struct cu_sysroot *root, const char *path, struct cu_error *err)
{
    char *real;

    root->dirfd = -1;
    root->path = NULL;
    if (!path || !*path)
        path = "/";
    real = realpath(path, NULL);
    if (!real)
        return cu_error_set(err, CU_E_USAGE, errno, _("Cannot use %s as the machine root"), path);
    root->dirfd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root->dirfd < 0) {
        int e = errno;
        free(real);
        return cu_error_set(err, CU_E_USAGE, e, _("Cannot use %s as the machine root"), path);
    }
    root->path = real;
    return CU_OK;
}

void
cu_sysroot_fini(struct cu_sysroot *root)
{
    if (root->dirfd >= 0)
        close(root->dirfd);
    root->dirfd = -1;
    cu_clear_ptr(&root->path, free);
}

bool
cu_sysroot_is_host(const struct cu_sysroot *root)
{
    return strcmp(root->path, "/") == 0;
}

static const char *
rel(const char *path)
{
    while (*path == '/')
        path++;
    return *path ? path : ".";
}

int
cu_sysroot_open(const struct cu_sysroot *root, const char *path, int flags)
{
    struct open_how how = {
        .flags = (unsigned long long)(flags | O_CLOEXEC),
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    long fd = cu_openat2(root->dirfd, rel(path), &how);
    if (fd >= 0)
        return (int)fd;
    if (errno != ENOSYS && errno != EPERM && errno != E2BIG)
        return -errno;
    /* Older kernels: plain openat.  Fixture trees keep their links relative. */
    fd = openat(root->dirfd, rel(path), flags | O_CLOEXEC);
    return fd >= 0 ? (int)fd : -errno;
}

enum cu_status
cu_sysroot_read(const struct cu_sysroot *root, const char *path, size_t max, char **out,
                size_t *len, struct cu_error *err)
{
    CU_AUTOCLOSE int fd = cu_sysroot_open(root, path, O_RDONLY);
    struct cu_buf b;

    *out = NULL;
    if (len)
        *len = 0;
    if (fd < 0) {
        if (fd == -ENOENT || fd == -ENOTDIR)
            return cu_error_set(err, CU_E_NOT_FOUND, 0, _("%s does not exist"), path);
        return cu_error_set(err, CU_E_IO, -fd, "Cannot read %s", path);
    }
    cu_buf_init(&b);
    for (;;) {
        char chunk[8192];
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            cu_buf_fini(&b);
            return cu_error_set(err, CU_E_IO, e, _("Cannot read %s"), path);
        }
        if (n == 0)
            break;
        if (b.len + (size_t)n > max) {
            cu_buf_fini(&b);
            return cu_error_set(err, CU_E_INPUT, 0, _("%s is larger than %zu bytes"), path, max);
        }
        cu_buf_append(&b, chunk, (size_t)n);
    }
    if (len)
        *len = b.len;
    *out = cu_buf_steal(&b);
    cu_buf_fini(&b);
    return CU_OK;
}

char *
cu_sysroot_read_line(const struct cu_sysroot *root, const char *path)
{
    char *data = NULL;
    struct cu_error err;
    if (cu_sysroot_read(root, path, 64 * 1024, &data, NULL, &err) != CU_OK)
        return NULL;
    data[strcspn(data, "\n")] = '\0';
    cu_str_strip(data);
    return data;
}

/* Open the parent directory of @path inside the root and return the last name. */
static int
open_parent(const struct cu_sysroot *root, const char *path, const char **name)
{
    const char *r = rel(path);
    const char *slash = strrchr(r, '/');
    if (!slash) {
        *name = r;
        return fcntl(root->dirfd, F_DUPFD_CLOEXEC, 0);
    }
    CU_AUTOFREE char *dir = cu_xstrndup(r, (size_t)(slash - r));
    *name = slash + 1;
    return cu_sysroot_open(root, dir, O_RDONLY | O_DIRECTORY | O_PATH);
}

char *
cu_sysroot_readlink(const struct cu_sysroot *root, const char *path)
{
    const char *name;
    CU_AUTOCLOSE int dfd = open_parent(root, path, &name);
    char buf[4096];

    if (dfd < 0)
        return NULL;
    ssize_t n = readlinkat(dfd, name, buf, sizeof(buf) - 1);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return cu_xstrdup(buf);
}

DIR *
cu_sysroot_opendir(const struct cu_sysroot *root, const char *path)
{
    int fd = cu_sysroot_open(root, path, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return NULL;
    DIR *d = fdopendir(fd);
    if (!d)
        close(fd);
    return d;
}

bool
cu_sysroot_exists(const struct cu_sysroot *root, const char *path)
{
    int fd = cu_sysroot_open(root, path, O_PATH);
    if (fd >= 0) {
        close(fd);
        return true;
    }
    return false;
}

bool
cu_sysroot_is_dir(const struct cu_sysroot *root, const char *path)
{
    int fd = cu_sysroot_open(root, path, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        close(fd);
        return true;
    }
    return false;
}

char *
cu_sysroot_host_path(const struct cu_sysroot *root, const char *path)
{
    return cu_path_join(root->path, path);
}

static int
open_dir_hops(const struct cu_sysroot *root, const char *path, bool create, int hops)
{
    int fd = cu_sysroot_open(root, path, O_RDONLY | O_DIRECTORY);
    if (fd >= 0 || fd != -ENOENT || !create)
        return fd;
    if (hops > 40)
        return -ELOOP;
    /* Made one level at a time, each in its parent as opened inside the root: a link there leads nowhere else. */
    const char *r = rel(path);
    const char *slash = strrchr(r, '/');
    CU_AUTOFREE char *parent = slash ? cu_xstrndup(r, (size_t)(slash - r)) : cu_xstrdup(".");
    const char *name = slash ? slash + 1 : r;
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return -ENOENT;
    int pfd = open_dir_hops(root, parent, true, hops + 1);
    if (pfd < 0)
        return pfd;
    int rc = mkdirat(pfd, name, 0755) == 0 || errno == EEXIST ? 0 : -errno;
    fd = rc < 0 ? rc : openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && rc == 0)
        fd = -errno;
    struct stat lsb;
    if ((fd == -ELOOP || fd == -ENOTDIR) && fstatat(pfd, name, &lsb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lsb.st_mode)) {
        /* A link to a folder not made yet (a tree's /etc/profile.d -> /etc/profile.d.real): made where it leads,
         * inside the root, as the machine's own mkdir -p would. */
        char to[PATH_MAX];
        ssize_t n = readlinkat(pfd, name, to, sizeof(to) - 1);
        if (n > 0) {
            to[n] = '\0';
            CU_AUTOFREE char *target = to[0] == '/' ? cu_xstrdup(to) : cu_xasprintf("/%s/%s", parent, to);
            close(pfd);
            int tfd = open_dir_hops(root, target, true, hops + 1);
            if (tfd < 0)
                return tfd;
            close(tfd);
            return cu_sysroot_open(root, path, O_RDONLY | O_DIRECTORY);
        }
    }
    close(pfd);
    return fd;
}

int
cu_sysroot_open_dir(const struct cu_sysroot *root, const char *path, bool create)
{
    return open_dir_hops(root, path, create, 0);
}

/* The host path of the folder behind @fd, or NULL. Caller owns. */
static char *
fd_path(int fd)
{
    char link[64], buf[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, sizeof(buf) - 1);
    if (n <= 0 || buf[0] != '/')
        return NULL;
    buf[n] = '\0';
    return cu_xstrdup(buf);
}

/* Is host path @p the root @rootp or inside it? */
static bool
under(const char *rootp, const char *p)
{
    size_t n = strlen(rootp);
    if (strcmp(rootp, "/") == 0)
        return p[0] == '/';
    return strncmp(p, rootp, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

char *
cu_sysroot_real_path(const struct cu_sysroot *root, const char *path)
{
    int fd = cu_sysroot_open(root, path, O_PATH);
    if (fd < 0)
        return NULL;
    char *real = fd_path(fd);
    close(fd);
    if (real && !under(root->path, real))
        cu_clear_ptr(&real, free); /* an old kernel's plain openat followed a link out */
    return real;
}

enum cu_status
cu_sysroot_resolve(const struct cu_sysroot *root, const char *path, char **out, struct cu_error *err)
{
    struct cu_strv parts;
    cu_strv_init(&parts);
    cu_strv_split(&parts, rel(path), "/");
    CU_AUTOFREE char *real = NULL;
    *out = NULL;
    /* The longest part that opens as a folder inside the root. */
    int fd = fcntl(root->dirfd, F_DUPFD_CLOEXEC, 0);
    size_t i = 0;
    struct cu_buf sofar;
    cu_buf_init(&sofar);
    enum cu_status st = CU_OK;
    for (; fd >= 0 && i < parts.n; i++) {
        if (!*parts.v[i] || strcmp(parts.v[i], ".") == 0)
            continue;
        cu_buf_printf(&sofar, "/%s", parts.v[i]);
        int nfd = cu_sysroot_open(root, sofar.data, O_PATH | O_DIRECTORY);
        if (nfd < 0)
            break;
        close(fd);
        fd = nfd;
    }
    CU_AUTOFREE char *shown = cu_path_join(root->path, path);
    if (fd < 0) {
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot open %s"), root->path);
        goto out;
    }
    if (i < parts.n) {
        /* What stands where the folder is not: nothing (made later, as a folder), or what cannot be followed. */
        struct stat sb;
        CU_AUTOFREE char *at = cu_path_join(root->path, sofar.data);
        if (fstatat(fd, parts.v[i], &sb, AT_SYMLINK_NOFOLLOW) == 0) {
            if (S_ISLNK(sb.st_mode)) {
                char to[PATH_MAX];
                ssize_t n = readlinkat(fd, parts.v[i], to, sizeof(to) - 1);
                to[n > 0 ? n : 0] = '\0';
                st = cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                                  _("%s is a link to %s, which is not a folder inside %s; cudaup will not follow it out of that machine's tree"),
                                  at, to, root->path);
            } else {
                st = cu_error_set(err, CU_E_IO, ENOTDIR, _("%s is not a folder"), at);
            }
            goto out;
        }
        if (errno != ENOENT) {
            st = cu_error_set(err, CU_E_IO, errno, _("Cannot examine %s"), at);
            goto out;
        }
    }
    real = fd_path(fd);
    /* Without openat2 a link could lead out; the folder reached says where it really is. */
    if (!real || !under(root->path, real)) {
        st = cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                          _("%s leads out of %s (to %s); cudaup will not write there for that machine"), shown, root->path,
                          real ? real : "?");
        goto out;
    }
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_puts(&b, strcmp(real, "/") == 0 ? "" : real);
    for (; i < parts.n; i++)
        if (*parts.v[i] && strcmp(parts.v[i], ".") != 0)
            cu_buf_printf(&b, "/%s", parts.v[i]);
    if (!b.len)
        cu_buf_puts(&b, "/");
    *out = cu_buf_steal(&b);
    cu_buf_fini(&b);
out:
    if (fd >= 0)
        close(fd);
    cu_buf_fini(&sofar);
    cu_strv_fini(&parts);
    return st;
}

char *
cu_root_seen_path(const char *rootp, const char *host)
{
    if (!host || host[0] != '/')
        return NULL;
    if (!rootp || strcmp(rootp, "/") == 0)
        return cu_xstrdup(host);
    if (under(rootp, host))
        return cu_xstrdup(host[strlen(rootp)] ? host + strlen(rootp) : "/");
    /* Through a link (/img -> /srv/img): the nearest part that exists, as it really is. */
    CU_AUTOFREE char *head = cu_xstrdup(host);
    size_t cut = strlen(head);
    for (;;) {
        CU_AUTOFREE char *real = realpath(head, NULL);
        if (real) {
            if (!under(rootp, real))
                return NULL;
            CU_AUTOFREE char *full = cu_xasprintf("%s%s", real, host + cut);
            return cu_xstrdup(full[strlen(rootp)] ? full + strlen(rootp) : "/");
        }
        char *slash = strrchr(head, '/');
        if (!slash || slash == head)
            return NULL;
        *slash = '\0';
        cut = (size_t)(slash - head);
    }
}

/* A folder, link or program on the way to a program run inside the root: this user's or root's, nobody else's to write. */
static enum cu_status
way_ok(const struct cu_sysroot *root, const char *inside, const struct stat *sb, bool program, struct cu_error *err)
{
    char owner[64];
    CU_AUTOFREE char *shown = cu_path_join(root->path, inside);
    cu_user_name(sb->st_uid, owner, sizeof(owner));
    if (sb->st_uid != geteuid() && sb->st_uid != 0)
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s belongs to %s, not to you or root; cudaup will not run programs inside a tree another user controls"),
                            shown, owner);
    bool link = S_ISLNK(sb->st_mode);
    bool other_w = (sb->st_mode & S_IWOTH) && !(S_ISDIR(sb->st_mode) && (sb->st_mode & S_ISVTX));
    bool group_w = program && (sb->st_mode & S_IWGRP) && sb->st_gid != 0 && sb->st_gid != getegid();
    if (!link && (other_w || group_w))
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s (owned by %s) can be written by other users; cudaup will not run programs from it (chmod go-w)"),
                            shown, owner);
    return CU_OK;
}

enum cu_status
cu_sysroot_trusted_path(const struct cu_sysroot *root, const char *path, struct cu_error *err)
{
    struct stat sb;
    if (fstat(root->dirfd, &sb) != 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot examine %s"), root->path);
    enum cu_status st = way_ok(root, "/", &sb, false, err);
    if (st != CU_OK)
        return st;
    /* Walked as RESOLVE_IN_ROOT walks it: @cur holds no link, a link's text goes before what is left. */
    CU_AUTOFREE char *cur = cu_xstrdup("");
    CU_AUTOFREE char *rest = cu_xstrdup(path);
    for (int links = 0;;) {
        CU_AUTOFREE char *name = cu_path_walk_next(cur, &rest);
        if (!name)
            return CU_OK;
        CU_AUTOFREE char *next = cu_xasprintf("%s/%s", cur, name);
        if (fstatat(root->dirfd, next + 1, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            return CU_OK; /* not there: the caller says what is missing */
        bool last = !rest[strspn(rest, "/")];
        if ((st = way_ok(root, next, &sb, last && S_ISREG(sb.st_mode), err)) != CU_OK)
            return st;
        if (S_ISLNK(sb.st_mode)) {
            char to[PATH_MAX];
            ssize_t len = readlinkat(root->dirfd, next + 1, to, sizeof(to) - 1);
            if (len <= 0 || ++links > 40)
                return CU_OK;
            to[len] = '\0';
            cu_path_walk_link(cur, &rest, to);
            continue;
        }
        if (!S_ISDIR(sb.st_mode))
            return CU_OK;
        free(cur);
        cur = cu_steal_ptr(&next);
    }
}
