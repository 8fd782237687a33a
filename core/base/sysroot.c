/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
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
