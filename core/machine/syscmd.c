/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "syscmd"
#include "core/machine/syscmd.h"

#include <errno.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/machine/sysinfo.h"

extern char **environ;

void
cu_sys_init(struct cu_sys *s, const char *const *envp, bool tty)
{
    const char *bin = cu_env_get(envp, "CUDAUP_SYSTEM_BIN");
    const char *root = cu_env_get(envp, "CUDAUP_SYSTEM_ROOT");
    s->envp = envp;
    s->bin_dir = bin && *bin ? bin : NULL;
    s->root = root && *root ? root : "/";
    s->tty = tty;
    s->on_output = NULL;
    s->output_userdata = NULL;
}

char *
cu_sys_argv_str(const char *const *argv)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; argv[i]; i++) {
        CU_AUTOFREE char *q = cu_sh_quote(argv[i]);
        cu_buf_printf(&b, "%s%s", i ? " " : "", q);
    }
    return cu_buf_steal(&b);
}

/* The last non-empty line of @s, for the one sentence of an error. */
static char *
last_line(const char *s)
{
    CU_AUTOFREE char *t = cu_xstrdup(s ? s : "");
    char *x = cu_str_strip(t);
    char *nl = strrchr(x, '\n');
    return cu_xstrdup(nl ? nl + 1 : x);
}

/* A command that reads the terminal: its stdin, stdout and stderr are ours. */
static enum cu_status
run_tty(const char *exe, const char *const *argv, const char *const *envp, int *code, struct cu_error *err)
{
    pid_t pid;
    int rc = posix_spawn(&pid, exe, NULL, NULL, (char *const *)(uintptr_t)argv,
                         (char *const *)(uintptr_t)(envp ? envp : (const char *const *)environ));
    if (rc != 0)
        return cu_error_set(err, CU_E_NOT_FOUND, rc, _("Cannot run %s"), exe);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return cu_error_set(err, CU_E_IO, errno, _("Cannot wait for %s"), exe);
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return CU_OK;
}

enum cu_status
cu_sys_run(const struct cu_sys *s, const char *const *argv, bool interactive, struct cu_buf *log,
           struct cu_error *err)
{
    CU_AUTOFREE char *exe = s->bin_dir ? cu_path_join(s->bin_dir, argv[0]) : cu_which(argv[0], s->envp);
    CU_AUTOFREE char *line = cu_sys_argv_str(argv);
    if (!exe || access(exe, X_OK) != 0)
        return cu_error_set(err, CU_E_NOT_FOUND, 0, _("%s is not installed here, so `%s` cannot run."), argv[0], line);
    cu_log_info("running %s", line);
    if (log)
        cu_buf_printf(log, "$ %s\n", line);
    const char *const *run_argv = argv;
    CU_AUTOFREE const char **av = cu_xcalloc(64, sizeof(char *));
    av[0] = exe;
    for (size_t i = 1; argv[i] && i < 63; i++)
        av[i] = argv[i];
    run_argv = av;
    if (interactive && s->tty) {
        int code = 0;
        enum cu_status st = run_tty(exe, run_argv, s->envp, &code, err);
        if (st != CU_OK)
            return st;
        if (code != 0)
            return cu_error_set(err, CU_E_TOOL, 0, _("`%s` failed (exit %d)."), line, code);
        return CU_OK;
    }
    struct cu_exec_opts o = {.envp = s->envp, .timeout_ms = 3600 * 1000, .on_output = s->on_output,
                             .userdata = s->output_userdata};
    struct cu_exec_result res;
    cu_exec_result_init(&res);
    enum cu_status st = cu_exec(run_argv, &o, &res, err);
    if (st == CU_OK) {
        if (log) {
            cu_buf_append(log, res.out.data, res.out.len);
            cu_buf_append(log, res.err.data, res.err.len);
        }
        if (res.exit_code != 0 || res.timed_out) {
            CU_AUTOFREE char *why = last_line(res.err.len ? res.err.data : res.out.data);
            st = cu_error_set(err, CU_E_TOOL, 0, _("`%s` failed (exit %d)%s%s"), line, res.exit_code,
                              *why ? ": " : ".", why);
        }
    }
    cu_exec_result_fini(&res);
    return st;
}

char *
cu_sys_path(const struct cu_sys *s, const char *abs)
{
    if (strcmp(s->root, "/") == 0)
        return cu_xstrdup(abs);
    return cu_xasprintf("%s%s", s->root, abs);
}

enum cu_status
cu_sys_write(const struct cu_sys *s, const char *abs, const char *text, struct cu_error *err)
{
    CU_AUTOFREE char *p = cu_sys_path(s, abs);
    CU_AUTOFREE char *dir = cu_xstrdup(p);
    char *slash = strrchr(dir, '/');
    enum cu_status st;
    if (slash && slash != dir) {
        *slash = '\0';
        if ((st = cu_mkdir_p(dir, 0755, err)) != CU_OK)
            return st;
    }
    cu_log_info("writing %s", p);
    return cu_write_file_atomic(p, text, strlen(text), 0644, err);
}

enum cu_status
cu_sys_remove(const struct cu_sys *s, const char *abs, struct cu_error *err)
{
    CU_AUTOFREE char *p = cu_sys_path(s, abs);
    if (unlink(p) != 0 && errno != ENOENT)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot remove %s"), p);
    return CU_OK;
}
