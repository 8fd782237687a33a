/* SPDX-License-Identifier: MIT */
/* The prefix's lock: see prefixlock.h. */
#include "config.h"

#define CU_LOG_TAG "lock"

#include "core/install/prefixlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/str.h"

/* The process ID the holder wrote into the lock file, or 0. */
static long
holder_pid(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    uint64_t v;
    return cu_parse_u64(cu_str_strip(buf), 4194304, &v) ? (long)v : 0;
}

enum cu_status
cu_prefix_lock(const char *prefix, int *out, struct cu_error *err)
{
    /* Every folder on the way first (before any is made): another user's could swap the prefix for a link. */
    enum cu_status st = cu_path_trusted(prefix, err);
    if (st == CU_OK)
        st = cu_mkdir_p(prefix, 0755, err);
    if (st != CU_OK)
        return st;
    if ((st = cu_trusted_dir(prefix, err)) != CU_OK)
        return st;
    CU_AUTOFREE char *p = cu_path_join(prefix, ".cudaup.lock");
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == ELOOP)
        return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                            _("%s is a symbolic link; cudaup will not follow it (remove it and run again)"), p);
    if (fd < 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot lock %s"), prefix);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        long pid = e == EWOULDBLOCK ? holder_pid(fd) : 0;
        close(fd);
        if (e == EWOULDBLOCK && pid > 0)
            return cu_error_set(err, CU_E_BUSY, 0,
                                _("Another cudaup (process %ld) is working on %s right now"),
                                pid, prefix);
        if (e == EWOULDBLOCK)
            return cu_error_set(err, CU_E_BUSY, 0, _("Another cudaup is installing into %s right now"), prefix);
        return cu_error_set(err, CU_E_IO, e, _("Cannot lock %s"), prefix);
    }
    /* Who holds it, for the command it refuses (a stale number from a killed holder is overwritten). */
    char text[32];
    int len = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)len, 0) != len)
        cu_log_debug("cannot write the holder's process ID into %s", p); /* the lock itself holds */
    *out = fd;
    return CU_OK;
}

void
cu_prefix_unlock_tidy(int fd, const char *prefix)
{
    if (fd >= 0 && prefix) {
        DIR *d = opendir(prefix);
        struct dirent *de;
        bool other = !d;
        while (d && !other && (de = readdir(d)))
            other = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 && strcmp(de->d_name, ".cudaup.lock") != 0;
        if (d)
            closedir(d);
        CU_AUTOFREE char *p = cu_path_join(prefix, ".cudaup.lock");
        struct stat a, b;
        /* The file this descriptor holds, not one another cudaup made since (a rename, a link swapped in). */
        if (!other && fstat(fd, &a) == 0 && lstat(p, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            unlink(p);
    }
    cu_prefix_unlock(fd);
}

void
cu_prefix_unlock(int fd)
{
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
}
