/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "proc"
#include "core/base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/clock.h"

extern char **environ;

void
cu_exec_result_init(struct cu_exec_result *r)
{
    memset(r, 0, sizeof(*r));
    cu_buf_init(&r->out);
    cu_buf_init(&r->err);
}

void
cu_exec_result_fini(struct cu_exec_result *r)
{
    cu_buf_fini(&r->out);
    cu_buf_fini(&r->err);
}

char *
cu_which(const char *name, const char *const *envp)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? cu_xstrdup(name) : NULL;
    const char *path = cu_env_get(envp ? envp : (const char *const *)environ, "PATH");
    struct cu_strv dirs;
    char *found = NULL;
    cu_strv_init(&dirs);
    cu_strv_split(&dirs, path ? path : "/usr/bin:/bin", ":");
    for (size_t i = 0; i < dirs.n && !found; i++) {
        CU_AUTOFREE char *p = cu_path_join(dirs.v[i], name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0)
            found = cu_steal_ptr(&p);
    }
    cu_strv_fini(&dirs);
    return found;
}


enum cu_status
cu_exec(const char *const *argv, const struct cu_exec_opts *o0, struct cu_exec_result *res,
        struct cu_error *err)
{
    struct cu_exec_opts o = o0 ? *o0 : (struct cu_exec_opts){0};
    const char *const *envp = o.envp ? o.envp : (const char *const *)environ;
    int outp[2] = {-1, -1}, errp[2] = {-1, -1};
    size_t max = o.max_output ? o.max_output : (16u << 20);
    pid_t pid;

    CU_AUTOFREE char *exe = cu_which(argv[0], envp);
    if (!exe)
        return cu_error_set(err, CU_E_NOT_FOUND, 0, _("%s was not found"), argv[0]);
    if (cu_log_get_level() >= CU_LOG_DEBUG) {
        struct cu_buf b;
        cu_buf_init(&b);
        for (const char *const *a = argv; *a; a++)
            cu_buf_printf(&b, "%s%s", a == argv ? "" : " ", *a);
        cu_log_debug("exec: %s", b.data);
        cu_buf_fini(&b);
    }
    if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
        int e = errno;
        if (outp[0] >= 0) {
            close(outp[0]);
            close(outp[1]);
        }
        return cu_error_set(err, CU_E_IO, e, _("Cannot run %s"), argv[0]);
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    if (o.cwd)
        posix_spawn_file_actions_addchdir_np(&fa, o.cwd);
    posix_spawnattr_init(&at);
    /* Its own process group, so a time-out can stop it and its children. */
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&at, 0);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    int rc = posix_spawn(&pid, exe, &fa, &at, (char *const *)(uintptr_t)argv, (char *const *)(uintptr_t)envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(outp[1]);
    close(errp[1]);
    if (rc != 0) {
        close(outp[0]);
        close(errp[0]);
        return cu_error_set(err, CU_E_NOT_FOUND, rc, _("Cannot run %s"), argv[0]);
    }

    int64_t deadline = o.timeout_ms ? cu_mono_ms() + o.timeout_ms : 0;
    struct pollfd pf[2] = {{outp[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
    int open_fds = 2;
    bool noticed = false;
    while (open_fds > 0) {
        int wait_ms = 200;
        if (deadline) {
            int64_t left = deadline - cu_mono_ms();
            if (left <= 0) {
                res->timed_out = true;
                break;
            }
            if (left < wait_ms)
                wait_ms = (int)left;
        }
        if (o.cancel && atomic_load(o.cancel)) {
            res->cancelled = true;
            break;
        }
        if (!noticed && o.notice && o.on_notice && atomic_load(o.notice)) {
            noticed = true;
            o.on_notice(o.userdata);
        }
        int n = poll(pf, 2, wait_ms);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[16384];
            ssize_t r = read(pf[i].fd, buf, sizeof(buf));
            if (r <= 0) {
                close(pf[i].fd);
                pf[i].fd = -1;
                open_fds--;
                continue;
            }
            struct cu_buf *b = i == 0 ? &res->out : &res->err;
            if (b->len + (size_t)r <= max)
                cu_buf_append(b, buf, (size_t)r);
            if (o.on_output)
                o.on_output(o.userdata, buf, (size_t)r);
        }
    }
    if (res->timed_out || res->cancelled) {
        kill(-pid, SIGTERM);
        struct timespec ts = {0, 200 * 1000000L};
        nanosleep(&ts, NULL);
        kill(-pid, SIGKILL);
    }
    for (int i = 0; i < 2; i++)
        if (pf[i].fd >= 0)
            close(pf[i].fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    res->signo = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    cu_log_debug("exec: %s exited %d%s", argv[0], res->exit_code, res->timed_out ? " (timed out)" : "");
    return CU_OK;
}

unsigned
cu_cpu_count(void)
{
    unsigned n = 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        n = (unsigned)CPU_COUNT(&set);
    /* A container's quota: "max 100000" means none; "150000 100000" is 1.5 CPUs. */
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "re");
    if (f) {
        char quota[32] = "";
        unsigned long long period = 0;
        if (fscanf(f, "%31s %llu", quota, &period) == 2 && strcmp(quota, "max") != 0 && period > 0) {
            unsigned long long q = strtoull(quota, NULL, 10);
            unsigned cap = (unsigned)((q + period - 1) / period);
            if (cap >= 1 && cap < n)
                n = cap;
        }
        fclose(f);
    }
    return n;
}

const char *
cu_env_get(const char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = envp; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}
