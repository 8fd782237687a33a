/* SPDX-License-Identifier: MIT */
/* The package manager's lock, seen before a step runs (driver_lock.h). */
#include "config.h"

#include "driver_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"

static bool
is_apt(const char *tool)
{
    return strcmp(tool, "apt-get") == 0 || strcmp(tool, "apt-mark") == 0 || strcmp(tool, "apt") == 0 ||
           strcmp(tool, "dpkg") == 0;
}

bool
inst_driver_tool_noninteractive(const char *tool)
{
    return is_apt(tool);
}

/* apt and dpkg take an fcntl write lock on dpkg's lock-frontend; F_GETLK names the holder. */
static int
fcntl_holder(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int r = fcntl(fd, F_GETLK, &fl);
    close(fd);
    if (r != 0 || fl.l_type == F_UNLCK)
        return 0;
    return fl.l_pid > 0 ? (int)fl.l_pid : -1;
}

/* zypp writes its pid to /run/zypp.pid and holds the lock while that process lives. */
static int
pidfile_holder(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    struct cu_error err;
    if (cu_read_file(path, 64, &text, &len, &err) != CU_OK)
        return 0;
    char *end = NULL;
    long pid = strtol(text, &end, 10);
    bool ok = end != text && pid > 0 && pid < 1 << 22 && (*end == '\0' || *end == '\n');
    free(text);
    if (!ok || pid == getpid())
        return 0;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM ? (int)pid : 0;
}

int
inst_driver_lock_holder(const struct cu_sys *sys, const char *tool, const char **what)
{
    *what = NULL;
    if (is_apt(tool)) {
        *what = "/var/lib/dpkg/lock-frontend";
        CU_AUTOFREE char *p = cu_sys_path(sys, *what);
        return fcntl_holder(p);
    }
    if (strcmp(tool, "zypper") == 0) {
        *what = "/run/zypp.pid";
        CU_AUTOFREE char *p = cu_sys_path(sys, *what);
        return pidfile_holder(p);
    }
    return 0;
}
