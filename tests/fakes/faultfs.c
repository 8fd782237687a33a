/* SPDX-License-Identifier: MIT */
/*
 * An LD_PRELOAD shim that makes chosen file-system calls fail, for the tests of
 * what cudaup does when a disk fills up, a rename crosses file systems or an fsync
 * reports an error (TESTCASES 2.5; issue 16).
 *
 * CUDAUP_FAULTS="RULE;RULE..." with RULE = OP:ERRNO:PATHPART[:AFTER[:once]]
 *   OP        write (write, pwrite), rename (rename, renameat, renameat2: the target's
 *             path), fsync (fsync, fdatasync), read (read), mkdir (mkdir, mkdirat),
 *             symlink (symlink, symlinkat: the link's path), link (link: the new name), close (close of a file open for
 *             writing: the call fails after closing, as NFS reports a late write error), delay: writes succeed, each after a pause,
 *             or free: statvfs of a matching path reports ERRNO-field bytes available,
 *             openat2 (syscall(SYS_openat2, ...): the path as given, relative to its folder),
 *             wait (write and fflush, stdout and stderr included, for stdio's own writes do not come through
 *             write: a write to a matching path waits until the file named in the ERRNO field exists; a test
 *             holds a process at a point, does something, then lets it go),
 *             kill (rename, renameat, renameat2, symlink, symlinkat, counted together across every thread:
 *             the AFTER+1th matching call kills the process with SIGKILL before it is made; a kill point
 *             of its own for each N, where strace's inject counts each thread's calls apart),
 *             swap (open, open64, openat, openat64: before the AFTER+1th open of a matching path, the file named in
 *             the ERRNO field is renamed over it: what another process does while an open is delayed)
 *   ERRNO     ENOSPC, EIO, EXDEV, EDQUOT, EAGAIN; for delay, the pause in milliseconds; for swap, the file
 *             moved over the path
 *   PATHPART  the rule applies to files whose path contains it
 *   AFTER     write: fail once this many bytes went to matching files (0 by default);
 *             rename, fsync: fail from the AFTER+1th matching call
 *   once      fail that one call only; the calls after it succeed
 * Each rule that fires logs "faultfs: OP PATH: ERRNO" on stderr, so a test can tell
 * that the fault was reached.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_RULES 8

struct rule {
    char op[16];
    int err;
    char part[PATH_MAX];
    char arg[PATH_MAX]; /* swap: the file moved over the path */
    unsigned long long after, seen;
    int once, fired;
};

static struct rule rules[MAX_RULES];
static int n_rules = -1;
static int has_wait; /* a wait rule: writes to stdout and stderr are looked at too */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int
errno_of(const char *s)
{
    static const struct {
        const char *name;
        int value;
    } names[] = {{"ENOSPC", ENOSPC}, {"EIO", EIO},       {"EXDEV", EXDEV},
                 {"EDQUOT", EDQUOT}, {"EACCES", EACCES}, {"EROFS", EROFS},
                 {"EAGAIN", EAGAIN}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i].name) == 0)
            return names[i].value;
    return EIO;
}

static void
parse(const char *env)
{
    n_rules = 0;
    has_wait = 0;
    memset(rules, 0, sizeof(rules));
    if (!env)
        return;
    char *copy = strdup(env), *save = NULL;
    for (char *r = strtok_r(copy, ";", &save); r && n_rules < MAX_RULES; r = strtok_r(NULL, ";", &save)) {
        char *f[5] = {0};
        char *s2 = NULL;
        int k = 0;
        for (char *p = strtok_r(r, ":", &s2); p && k < 5; p = strtok_r(NULL, ":", &s2))
            f[k++] = p;
        if (k < 3)
            continue;
        struct rule *x = &rules[n_rules++];
        snprintf(x->op, sizeof(x->op), "%s", f[0]);
        x->err = strcmp(f[0], "delay") == 0 || strcmp(f[0], "free") == 0 ? atoi(f[1]) : errno_of(f[1]);
        snprintf(x->part, sizeof(x->part), "%s", f[2]);
        snprintf(x->arg, sizeof(x->arg), "%s", f[1]);
        x->after = f[3] ? strtoull(f[3], NULL, 10) : 0;
        x->once = f[4] && strcmp(f[4], "once") == 0;
        has_wait |= strcmp(x->op, "wait") == 0;
    }
    free(copy);
}

static void
load(void)
{
    if (n_rules < 0)
        parse(getenv("CUDAUP_FAULTS"));
}

/* For a test that links this file in: replace the rules (NULL: none) and their counts. */
void faultfs_set(const char *spec);
void
faultfs_set(const char *spec)
{
    pthread_mutex_lock(&mu);
    parse(spec);
    pthread_mutex_unlock(&mu);
}

/* Does a rule for @op fire on @path, given @bytes more (writes) or one more call? */
static int
fires(const char *op, const char *path, unsigned long long bytes)
{
    int e = 0;
    pthread_mutex_lock(&mu);
    load();
    int pause_ms = 0;
    char until[PATH_MAX] = "";
    for (int i = 0; i < n_rules && !e; i++) {
        struct rule *x = &rules[i];
        if (strcmp(op, "write") == 0 && strcmp(x->op, "delay") == 0 && path && strstr(path, x->part)) {
            pause_ms = x->err;
            continue;
        }
        if ((strcmp(op, "write") == 0 || strcmp(op, "fflush") == 0) && strcmp(x->op, "wait") == 0 && path &&
            strstr(path, x->part)) {
            snprintf(until, sizeof(until), "%s", x->arg);
            continue;
        }
        if (strcmp(x->op, "kill") == 0 && (strcmp(op, "rename") == 0 || strcmp(op, "symlink") == 0) && path &&
            strstr(path, x->part)) {
            if (x->seen++ == x->after) {
                dprintf(2, "faultfs: kill at %s %s\n", op, path);
                kill(getpid(), SIGKILL);
            }
            continue;
        }
        if (strcmp(x->op, op) != 0 || !path || !strstr(path, x->part) || (x->once && x->fired))
            continue;
        if (strcmp(op, "write") == 0) {
            if (x->seen + bytes > x->after)
                e = x->err;
            else
                x->seen += bytes;
        } else if (x->seen++ >= x->after) {
            e = x->err;
        }
        x->fired |= e != 0;
    }
    pthread_mutex_unlock(&mu);
    if (pause_ms > 0)
        usleep((useconds_t)pause_ms * 1000);
    if (until[0]) {
        dprintf(2, "faultfs: wait %s: until %s\n", path, until);
        while (access(until, F_OK) != 0)
            usleep(10000);
    }
    if (e)
        dprintf(2, "faultfs: %s %s: %s\n", op, path, strerrorname_np(e) ? strerrorname_np(e) : "?");
    return e;
}

static const char *
fd_path(int fd, char *buf, size_t len)
{
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, len - 1);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return buf;
}

static const char *
at_path(int dirfd, const char *p, char *buf, size_t len)
{
    if (p[0] == '/' || dirfd == AT_FDCWD) {
        snprintf(buf, len, "%s", p);
        return buf;
    }
    char dir[PATH_MAX];
    if (!fd_path(dirfd, dir, sizeof(dir)))
        return p;
    snprintf(buf, len, "%.2048s/%.2000s", dir, p);
    return buf;
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef int (*rename_fn)(const char *, const char *);
typedef int (*renameat_fn)(int, const char *, int, const char *);
typedef int (*renameat2_fn)(int, const char *, int, const char *, unsigned int);
typedef int (*fsync_fn)(int);

/* The next definition of @name (libc's), as a function pointer of @var's type. */
#define REAL(var, name)                                                                                       \
    do {                                                                                                      \
        if (!(var)) {                                                                                         \
            void *p_ = dlsym(RTLD_NEXT, name);                                                                \
            memcpy(&(var), &p_, sizeof(p_));                                                                  \
        }                                                                                                     \
    } while (0)

static write_fn real_write;
static pwrite_fn real_pwrite;
static rename_fn real_rename;
static renameat_fn real_renameat;
static renameat2_fn real_renameat2;
static fsync_fn real_fsync, real_fdatasync;

ssize_t
write(int fd, const void *b, size_t n)
{
    REAL(real_write, "write");
    char path[PATH_MAX];
    if (n_rules < 0) {
        pthread_mutex_lock(&mu);
        load();
        pthread_mutex_unlock(&mu);
    }
    int e = fd > 2 || (has_wait && fd > 0) ? fires("write", fd_path(fd, path, sizeof(path)), n) : 0;
    if (e) {
        errno = e;
        return -1;
    }
    return real_write(fd, b, n);
}

ssize_t
pwrite(int fd, const void *b, size_t n, off_t off)
{
    REAL(real_pwrite, "pwrite");
    char path[PATH_MAX];
    int e = fires("write", fd_path(fd, path, sizeof(path)), n);
    if (e) {
        errno = e;
        return -1;
    }
    return real_pwrite(fd, b, n, off);
}


/*
 * openat2 has no libc wrapper: cudaup calls syscall(SYS_openat2, dirfd, path, how, size).  The kernel
 * answers EAGAIN to a lookup under RESOLVE_IN_ROOT or RESOLVE_BENEATH that went through ".." while
 * something renamed anywhere on the machine (openat2(2)); a rule "openat2:EAGAIN:PART" plays that race.
 */
long
syscall(long number, ...)
{
    static long (*real_syscall)(long, ...);
    REAL(real_syscall, "syscall");
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
#ifdef SYS_openat2
    if (number == SYS_openat2) {
        int e = fires("openat2", (const char *)a[1], 0);
        if (e) {
            errno = e;
            return -1;
        }
    }
#endif
    return real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int
rename(const char *from, const char *to)
{
    REAL(real_rename, "rename");
    int e = fires("rename", to, 0);
    if (e) {
        errno = e;
        return -1;
    }
    return real_rename(from, to);
}

int
renameat(int fd1, const char *from, int fd2, const char *to)
{
    REAL(real_renameat, "renameat");
    char buf[PATH_MAX];
    int e = fires("rename", at_path(fd2, to, buf, sizeof(buf)), 0);
    if (e) {
        errno = e;
        return -1;
    }
    return real_renameat(fd1, from, fd2, to);
}

int
renameat2(int fd1, const char *from, int fd2, const char *to, unsigned int flags)
{
    REAL(real_renameat2, "renameat2");
    char buf[PATH_MAX];
    int e = fires("rename", at_path(fd2, to, buf, sizeof(buf)), 0);
    if (e) {
        errno = e;
        return -1;
    }
    return real_renameat2(fd1, from, fd2, to, flags);
}

int
fsync(int fd)
{
    REAL(real_fsync, "fsync");
    char path[PATH_MAX];
    int e = fires("fsync", fd_path(fd, path, sizeof(path)), 0);
    if (e) {
        errno = e;
        return -1;
    }
    return real_fsync(fd);
}

int
fdatasync(int fd)
{
    REAL(real_fdatasync, "fdatasync");
    char path[PATH_MAX];
    int e = fires("fsync", fd_path(fd, path, sizeof(path)), 0);
    if (e) {
        errno = e;
        return -1;
    }
    return real_fdatasync(fd);
}

typedef ssize_t (*read_fn)(int, void *, size_t);
typedef int (*mkdir_fn)(const char *, mode_t);
typedef int (*mkdirat_fn)(int, const char *, mode_t);
typedef int (*symlink_fn)(const char *, const char *);
typedef int (*symlinkat_fn)(const char *, int, const char *);
typedef int (*close_fn)(int);
typedef int (*link_fn)(const char *, const char *);
static link_fn real_link;

int
link(const char *from, const char *to)
{
    REAL(real_link, "link");
    int e = fires("link", to, 0);
    if (e) {
        errno = e;
        return -1;
    }
    return real_link(from, to);
}

static read_fn real_read;
static mkdir_fn real_mkdir;
static mkdirat_fn real_mkdirat;
static symlink_fn real_symlink;
static symlinkat_fn real_symlinkat;
static close_fn real_close;

ssize_t
read(int fd, void *b, size_t n)
{
    REAL(real_read, "read");
    char path[PATH_MAX];
    int e = fd > 2 && n_rules != 0 ? fires("read", fd_path(fd, path, sizeof(path)), 0) : 0;
    if (e) {
        errno = e;
        return -1;
    }
    return real_read(fd, b, n);
}

int
mkdir(const char *p, mode_t mode)
{
    REAL(real_mkdir, "mkdir");
    int e = fires("mkdir", p, 0);
    if (e) {
        errno = e;
        return -1;
    }
    return real_mkdir(p, mode);
}

int
mkdirat(int dirfd, const char *p, mode_t mode)
{
    REAL(real_mkdirat, "mkdirat");
    char buf[PATH_MAX];
    int e = fires("mkdir", at_path(dirfd, p, buf, sizeof(buf)), 0);
    if (e) {
        errno = e;
        return -1;
    }
    return real_mkdirat(dirfd, p, mode);
}

int
symlink(const char *target, const char *p)
{
    REAL(real_symlink, "symlink");
    int e = fires("symlink", p, 0);
    if (e) {
        errno = e;
        return -1;
    }
    return real_symlink(target, p);
}

int
symlinkat(const char *target, int dirfd, const char *p)
{
    REAL(real_symlinkat, "symlinkat");
    char buf[PATH_MAX];
    int e = fires("symlink", at_path(dirfd, p, buf, sizeof(buf)), 0);
    if (e) {
        errno = e;
        return -1;
    }
    return real_symlinkat(target, dirfd, p);
}

int
close(int fd)
{
    REAL(real_close, "close");
    char path[PATH_MAX];
    /* Only a file open for writing can report a late write error as it closes. */
    int fl = fd > 2 && n_rules != 0 ? fcntl(fd, F_GETFL) : -1;
    int e = fl >= 0 && (fl & O_ACCMODE) != O_RDONLY ? fires("close", fd_path(fd, path, sizeof(path)), 0) : 0;
    int r = real_close(fd);
    if (e) {
        errno = e;
        return -1;
    }
    return r;
}

typedef int (*statvfs_fn)(const char *, struct statvfs *);
static statvfs_fn real_statvfs;

int
statvfs(const char *path, struct statvfs *vs)
{
    REAL(real_statvfs, "statvfs");
    int r = real_statvfs(path, vs);
    pthread_mutex_lock(&mu);
    load();
    for (int i = 0; r == 0 && i < n_rules; i++)
        if (strcmp(rules[i].op, "free") == 0 && strstr(path, rules[i].part) && vs->f_frsize)
            vs->f_bavail = (fsblkcnt_t)((unsigned long long)rules[i].err / vs->f_frsize);
    pthread_mutex_unlock(&mu);
    return r;
}

/*
 * swap:FILE:PART[:AFTER]: the AFTER+1th open of a path containing PART (counting opens by path of
 * every kind) first renames FILE over that path, as another process would while that open was
 * delayed; the rule fires once.  Deterministic where a sleep would be a race.
 */
typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static void
swap_before_open(const char *path)
{
    static __thread int busy;
    if (!path || busy)
        return;
    char from[PATH_MAX] = "";
    pthread_mutex_lock(&mu);
    load();
    for (int i = 0; i < n_rules; i++) {
        struct rule *x = &rules[i];
        if (strcmp(x->op, "swap") != 0 || x->fired || !strstr(path, x->part))
            continue;
        if (x->seen++ >= x->after) {
            x->fired = 1;
            snprintf(from, sizeof(from), "%s", x->arg);
        }
        break;
    }
    pthread_mutex_unlock(&mu);
    if (!from[0])
        return;
    busy = 1;
    REAL(real_rename, "rename");
    int r = real_rename(from, path);
    busy = 0;
    dprintf(2, "faultfs: swap %s -> %s: %s\n", from, path, r == 0 ? "done" : "failed");
}

static mode_t
mode_arg(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

/*
 * Each of open, open64, openat and openat64 under its own symbol name (with _FILE_OFFSET_BITS=64 the
 * headers turn the name open into open64, so the C names here are private and the asm labels public).
 */
#define FAULT_OPEN(cname, sym)                                                                                \
    int cname(const char *path, int flags, ...) __asm__(sym);                                                 \
    int cname(const char *path, int flags, ...)                                                               \
    {                                                                                                         \
        static open_fn real;                                                                                  \
        REAL(real, sym);                                                                                      \
        va_list ap;                                                                                           \
        va_start(ap, flags);                                                                                  \
        mode_t mode = mode_arg(flags, ap);                                                                    \
        va_end(ap);                                                                                           \
        if (n_rules != 0)                                                                                     \
            swap_before_open(path);                                                                           \
        return real(path, flags, mode);                                                                       \
    }
#define FAULT_OPENAT(cname, sym)                                                                              \
    int cname(int dirfd, const char *path, int flags, ...) __asm__(sym);                                      \
    int cname(int dirfd, const char *path, int flags, ...)                                                    \
    {                                                                                                         \
        static openat_fn real;                                                                                \
        REAL(real, sym);                                                                                      \
        va_list ap;                                                                                           \
        va_start(ap, flags);                                                                                  \
        mode_t mode = mode_arg(flags, ap);                                                                    \
        va_end(ap);                                                                                           \
        if (n_rules != 0) {                                                                                   \
            char buf[PATH_MAX];                                                                               \
            swap_before_open(at_path(dirfd, path, buf, sizeof(buf)));                                         \
        }                                                                                                     \
        return real(dirfd, path, flags, mode);                                                                \
    }
FAULT_OPEN(faultfs_open, "open")
FAULT_OPEN(faultfs_open64, "open64")
FAULT_OPENAT(faultfs_openat, "openat")
FAULT_OPENAT(faultfs_openat64, "openat64")

/* fflush: stdio writes through libc's own write, which no shim sees; a wait rule holds the flush. */
typedef int (*fflush_fn)(FILE *);
static fflush_fn real_fflush;

int
fflush(FILE *f)
{
    REAL(real_fflush, "fflush");
    if (n_rules < 0) {
        pthread_mutex_lock(&mu);
        load();
        pthread_mutex_unlock(&mu);
    }
    if (f && has_wait) {
        char path[PATH_MAX];
        int fd = fileno(f);
        if (fd >= 0 && fd_path(fd, path, sizeof(path)))
            fires("fflush", path, 0);
    }
    return real_fflush(f);
}
