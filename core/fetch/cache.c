/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/fetch/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/str.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"

struct order {
    const char *sha;
    size_t i;
};

static int
by_sha(const void *a, const void *b)
{
    const struct order *x = a, *y = b;
    return strcmp(x->sha, y->sha);
}

/*
 * Take one archive's lock, waiting while another run holds it.  The lock file is removed by whoever
 * lets it go (cu_cache_release): a lock taken on a file that is no longer the one at its path
 * (removed, or replaced, while this run waited) is dropped, and the path opened again.
 */
static enum cu_status
hold_one(const char *dir, const char *sha, const char *name, const atomic_int *cancel, int *out,
         struct cu_error *err)
{
    CU_AUTOFREE char *p = cu_xasprintf("%s/%s.lock", dir, sha);
    bool said = false;
    for (;;) {
        int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0 && errno == ELOOP)
            return cu_error_set(err, CU_E_UNSAFE_PATH, 0,
                                _("%s is a symbolic link; cudaup will not follow it (remove it and run again)"), p);
        if (fd < 0)
            return cu_error_set(err, CU_E_IO, errno, _("Cannot lock %s in the cache"), p);
        while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            if (e != EWOULDBLOCK && e != EINTR) {
                close(fd);
                return cu_error_set(err, CU_E_IO, e, _("Cannot lock %s in the cache"), p);
            }
            if (cancel && atomic_load(cancel)) {
                close(fd);
                return cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
            }
            if (!said) {
                cu_log_info(_("%s: another cudaup is downloading it into the cache %s; waiting for it"), name, dir);
                said = true;
            }
            struct timespec ts = {0, 100 * 1000000L};
            nanosleep(&ts, NULL);
        }
        struct stat held, now;
        if (fstat(fd, &held) == 0 && lstat(p, &now) == 0 && held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
            if (said)
                cu_log_info(_("%s: the other cudaup is done with it"), name);
            *out = fd;
            return CU_OK;
        }
        close(fd); /* the other run removed it as it let go: lock the one at the path now */
    }
}

enum cu_status
cu_cache_hold(const char *cache, const char *const *sha256, const char *const *names, size_t n,
              const atomic_int *cancel, int *fds, struct cu_error *err)
{
    CU_AUTOFREE char *dir = cu_path_join(cache, "archives");
    struct order *o = cu_xcalloc(n + 1, sizeof(*o));
    enum cu_status st = CU_OK;
    for (size_t i = 0; i < n; i++) {
        o[i] = (struct order){sha256[i], i};
        fds[i] = -1;
    }
    qsort(o, n, sizeof(*o), by_sha);
    for (size_t k = 0; k < n && st == CU_OK; k++) {
        if (k > 0 && strcmp(o[k].sha, o[k - 1].sha) == 0)
            continue; /* a second lock of the same file would wait for this run's own first */
        st = hold_one(dir, o[k].sha, names[o[k].i], cancel, &fds[o[k].i], err);
    }
    free(o);
    return st;
}

void
cu_cache_release(const char *cache, const char *sha256, int *fd)
{
    if (*fd >= 0) {
        /* Removed while still held: a run waiting on this file finds it gone and opens a new one. */
        CU_AUTOFREE char *p = cu_xasprintf("%s/archives/%s.lock", cache, sha256);
        unlink(p);
        flock(*fd, LOCK_UN);
        close(*fd);
    }
    *fd = -1;
}
