/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "cache"

#include "core/fetch/cache.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/base/fsutil.h"
#include "core/base/str.h"
#include "core/unpack/treecheck.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/resolve/plan.h"
#include "core/base/parse.h"

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

/* CUDAUP_CACHE_WAIT_MS (README "Settings"): how long a run waits for another that holds an archive
 * and makes no progress with it, before it gives up (default CU_CACHE_WAIT_MS). */
static int64_t
wait_bound_ms(void)
{
    const char *s = getenv("CUDAUP_CACHE_WAIT_MS");
    uint64_t v;
    return s && *s && cu_parse_u64(s, 7ull * 24 * 3600 * 1000, &v) ? (int64_t)v : CU_CACHE_WAIT_MS;
}

/* @ms as the screen says it: "12.5 s", "10 min". */
static const char *
duration(int64_t ms, char *b, size_t len)
{
    if (ms < 120000)
        snprintf(b, len, _("%.1f s"), (double)ms / 1000);
    else
        snprintf(b, len, _("%.0f min"), (double)ms / 60000);
    return b;
}

/* Who holds the lock, as its holder wrote it ("PID HOST"): "process 4242 on node7", or "" when unsaid. */
static void
holder_of(int fd, char *out, size_t len)
{
    char buf[300];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    out[0] = '\0';
    if (n <= 0)
        return;
    buf[n] = '\0';
    long pid = 0;
    char host[256] = "";
    if (sscanf(buf, "%ld %255s", &pid, host) >= 1 && pid > 0) {
        for (char *h = host; *h; h++)
            if ((unsigned char)*h < 0x21 || (unsigned char)*h > 0x7e)
                *h = '?'; /* a file of the cache is input: nothing of it reaches the terminal raw */
        if (host[0])
            snprintf(out, len, _("process %ld on %s"), pid, host);
        else
            snprintf(out, len, _("process %ld"), pid);
    }
}

/* What the holder has done with the archive so far: the partial download's size and time, or the whole file's. */
static void
progress_of(const char *dir, const char *sha, struct timespec *mt, off_t *size)
{
    CU_AUTOFREE char *part = cu_xasprintf("%s/%s.partial", dir, sha);
    struct stat sb;
    if (stat(part, &sb) == 0) {
        *mt = sb.st_mtim;
        *size = sb.st_size;
    } else {
        mt->tv_sec = mt->tv_nsec = 0;
        *size = -1;
    }
}

/*
 * Take one archive's lock, waiting while another run holds it.  The lock file is removed by whoever
 * lets it go (cu_cache_release): a lock taken on a file that is no longer the one at its path
 * (removed, or replaced, while this run waited) is dropped, and the path opened again.  The holder
 * writes "PID HOST" into it, so that a waiter can say whom it waits for.  A waiter gives up after
 * wait_bound_ms() in which the holder's download did not move (a run stopped with ^Z, a hung NFS
 * client), with an error that says who holds what; a download that moves is waited for however long.
 */
static enum cu_status
hold_one(const char *dir, const char *sha, const char *name, const atomic_int *cancel, int *out,
         struct cu_error *err)
{
    CU_AUTOFREE char *p = cu_xasprintf("%s/%s.lock", dir, sha);
    bool said = false;
    int64_t bound = wait_bound_ms(), still_since = 0;
    struct timespec last_mt = {0, 0};
    off_t last_size = -2;
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
            char who[320];
            holder_of(fd, who, sizeof(who));
            if (!said) {
                /* Said without -v: a silent wait looks like a hang. */
                char b[32];
                if (who[0])
                    cu_log_warn(_("%s: another cudaup (%s) is downloading it into the cache %s; waiting for it (giving up after %s without progress)"),
                                name, who, dir, duration(bound, b, sizeof(b)));
                else
                    cu_log_warn(_("%s: another cudaup is downloading it into the cache %s; waiting for it (giving up after %s without progress)"),
                                name, dir, duration(bound, b, sizeof(b)));
                said = true;
            }
            struct timespec mt;
            off_t size;
            progress_of(dir, sha, &mt, &size);
            int64_t now = cu_mono_ms();
            if (size != last_size || mt.tv_sec != last_mt.tv_sec || mt.tv_nsec != last_mt.tv_nsec) {
                last_size = size;
                last_mt = mt;
                still_since = now; /* it moved (or this is the first look): the count starts over */
            } else if (now - still_since >= bound) {
                char b[32];
                close(fd);
                return cu_error_set(err, CU_E_BUSY, 0,
                                    _("%s: another cudaup (%s) holds it in the cache %s and has made no progress for %s; cudaup stopped waiting. Run this again when that run is done, or stop it, or use another --cache-dir"),
                                    name, who[0] ? who : _("its process is not named"), dir,
                                    duration(now - still_since, b, sizeof(b)));
            }
            struct timespec ts = {0, 100 * 1000000L};
            nanosleep(&ts, NULL);
        }
        struct stat held, now;
        if (fstat(fd, &held) == 0 && lstat(p, &now) == 0 && held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
            if (said)
                cu_log_info(_("%s: the other cudaup is done with it"), name);
            /* Who holds it now, for the runs that wait (a stale line from a killed holder is overwritten). */
            char host[256] = "", line[300];
            if (gethostname(host, sizeof(host) - 1) != 0)
                host[0] = '\0';
            int n = snprintf(line, sizeof(line), "%ld %s\n", (long)getpid(), host[0] ? host : "-");
            if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)n, 0) != n)
                cu_log_debug("cannot note this run in %s", p); /* only the waiters' message loses it */
            *out = fd;
            return CU_OK;
        }
        close(fd); /* the other run removed it as it let go: lock the one at the path now */
    }
}

enum cu_status
cu_cache_trusted(const char *cache, struct cu_error *err)
{
    /* Every folder on the way to it too: another user's parent could swap the cache for a link mid-run. */
    enum cu_status st = cu_path_trusted(cache, err);
    if (st == CU_OK)
        st = cu_tree_trusted(cache, err);
    /* The sub-folders are what is written through: this user's link there is followed, so its target is judged too. */
    static const char *const subs[] = {"archives", "manifests"};
    for (size_t i = 0; st == CU_OK && i < CU_N_ELEMENTS(subs); i++) {
        CU_AUTOFREE char *p = cu_path_join(cache, subs[i]);
        st = cu_tree_trusted(p, err);
    }
    return st;
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

char *
cu_cache_archive_path(const char *cache_dir, const struct cu_plan_download *d)
{
    const char *ext = d->relative_path ? strstr(d->relative_path, ".tar.") : NULL;
    return cu_xasprintf("%s/archives/%s%s", cache_dir, d->sha256, ext && !strchr(ext, '/') ? ext : ".tar.xz");
}
