/* SPDX-License-Identifier: MIT */
/*
 * The system runner (syscmd.h): on this machine, among stand-ins, or inside a machine root
 * (chroot, in a mount namespace of its own), with the package managers' locks waited for and
 * their output streamed.
 */
#include "config.h"

#define CU_LOG_TAG "syscmd"
#include "core/machine/syscmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_NEWNS
#define CLONE_NEWNS 0x00020000
#endif
#include <sched.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/proc.h"

extern char **environ;

/* The PATH a command inside a root is looked up on (the root's own, as its root user has it). */
#define ROOT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

void
cu_sys_init(struct cu_sys *s, const char *const *envp, const char *root, bool tty)
{
    const char *bin = cu_env_get(envp, "CUDAUP_SYSTEM_BIN");
    const char *sysroot = cu_env_get(envp, "CUDAUP_SYSTEM_ROOT");
    const char *lock = cu_env_get(envp, "CUDAUP_LOCK_TIMEOUT");
    uint64_t v = 600;
    memset(s, 0, sizeof(*s));
    s->envp = envp;
    s->bin_dir = bin && *bin ? bin : NULL;
    s->root = root && *root ? root : "/";
    if (s->bin_dir && sysroot && *sysroot)
        s->root = sysroot; /* the stand-ins' scratch root */
    s->chroot = !s->bin_dir && strcmp(s->root, "/") != 0;
    s->tty = tty;
    if (lock && *lock && !cu_parse_u64(lock, 86400, &v))
        v = 600;
    s->lock_wait_s = (unsigned)v;
    struct cu_error e;
    s->files_open = cu_sysroot_init(&s->files, s->root, &e) == CU_OK;
    /* A live system seen through the root shows its running kernel in /proc; an image does not. */
    s->image = strcmp(s->root, "/") != 0 && s->files_open && !cu_sysroot_exists(&s->files, "/proc/sys/kernel/osrelease") &&
               !cu_sysroot_exists(&s->files, "/proc/version");
}

void
cu_sys_fini(struct cu_sys *s)
{
    if (s->files_open)
        cu_sysroot_fini(&s->files);
    s->files_open = false;
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

/* ---- where a command is ----------------------------------------------------------------------- */

/* Where @name is inside the root (on its PATH, links resolved inside it), or NULL. Caller owns. */
static char *
in_root(const struct cu_sys *s, const char *name)
{
    if (!s->files_open || strchr(name, '/'))
        return NULL;
    struct cu_strv dirs;
    char *found = NULL;
    cu_strv_init(&dirs);
    cu_strv_split(&dirs, ROOT_PATH, ":");
    for (size_t i = 0; i < dirs.n && !found; i++) {
        char *p = cu_path_join(dirs.v[i], name);
        int fd = cu_sysroot_open(&s->files, p, O_RDONLY | O_NONBLOCK);
        struct stat sb;
        if (fd >= 0) {
            if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_mode & 0111))
                found = cu_steal_ptr(&p);
            close(fd);
        }
        free(p);
    }
    cu_strv_fini(&dirs);
    return found;
}

/* This program, for the child that enters a root: the running one's own file, even if a rebuild replaced its name. */
static char *
self_exe(void)
{
    return access("/proc/self/exe", X_OK) == 0 ? cu_xstrdup("/proc/self/exe") : NULL;
}

enum cu_status
cu_sys_check(const struct cu_sys *s, const char *const *cmds, struct cu_error *err)
{
    if (s->chroot) {
        if (!s->files_open)
            return cu_error_set(err, CU_E_UNSUPPORTED, 0, _("The machine root %s cannot be opened, so nothing can run inside it."), s->root);
        if (geteuid() != 0)
            return cu_error_set(err, CU_E_UNSUPPORTED, 0,
                                _("Running %s inside %s (--root) needs root's privileges (chroot); run cudaup as root, or change that machine from inside it. Nothing was changed."),
                                cmds[0] ? cmds[0] : "?", s->root);
        CU_AUTOFREE char *self = self_exe();
        if (!self)
            return cu_error_set(err, CU_E_UNSUPPORTED, 0, _("cudaup cannot find its own program to run commands inside %s."), s->root);
    }
    for (size_t i = 0; cmds[i]; i++) {
        bool ok;
        if (s->bin_dir) {
            CU_AUTOFREE char *p = cu_path_join(s->bin_dir, cmds[i]);
            ok = access(p, X_OK) == 0;
        } else if (s->chroot) {
            /* Run as root inside the tree: the tree, each folder on the way to the program and the program
             * must be root's (or this user's), or another user chooses what root runs. */
            CU_AUTOFREE char *p = in_root(s, cmds[i]);
            ok = p != NULL;
            if (ok && cu_sysroot_trusted_path(&s->files, p, err) != CU_OK) {
                cu_error_prefix(err, "--root %s", s->root);
                cu_error_advise(err, _("Nothing was changed. Give the tree to root (chown -R root:root), or prepare it from a copy root owns."));
                return CU_E_UNSAFE_PATH;
            }
        } else {
            CU_AUTOFREE char *p = cu_which(cmds[i], s->envp);
            ok = p != NULL;
        }
        if (!ok)
            return s->chroot ? cu_error_set(err, CU_E_UNSUPPORTED, 0,
                                            _("%s is not installed inside %s (--root), so cudaup cannot run it there; nothing was changed."),
                                            cmds[i], s->root)
                             : cu_error_set(err, CU_E_UNSUPPORTED, 0, _("%s is not installed here, so cudaup cannot run it; nothing was changed."),
                                            cmds[i]);
    }
    return CU_OK;
}

/* ---- the package managers' locks ---------------------------------------------------------------- */

/*
 * "process 1234 (apt-get)".  The name is whatever that process set (prctl, /proc/PID/comm): its control
 * characters are escaped as \xNN (and a backslash as \\), so that it cannot move the cursor, clear the
 * screen or ring the bell on the terminal the message reaches, nor break a log line.
 */
static char *
process_name(pid_t pid)
{
    CU_AUTOFREE char *p = cu_xasprintf("/proc/%d/comm", (int)pid);
    char *text = NULL;
    size_t len;
    struct cu_error e;
    if (pid <= 0 || cu_read_file(p, 256, &text, &len, &e) != CU_OK)
        return cu_xasprintf(_("process %d"), (int)pid);
    if (len && text[len - 1] == '\n')
        len--; /* the kernel's own line end */
    struct cu_buf name;
    cu_buf_init(&name);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c < 0x20 || c == 0x7f)
            cu_buf_printf(&name, "\\x%02x", c);
        else if (c == '\\')
            cu_buf_puts(&name, "\\\\");
        else
            cu_buf_putc(&name, (char)c);
    }
    free(text);
    char *r = cu_xasprintf(_("process %d (%s)"), (int)pid, name.data ? name.data : "");
    cu_buf_fini(&name);
    return r;
}

/* The holder of an fcntl lock on @abs under the root, or NULL. */
static char *
fcntl_holder(const struct cu_sys *s, const char *abs)
{
    int fd = s->files_open ? cu_sysroot_open(&s->files, abs, O_RDONLY | O_NONBLOCK) : -1;
    if (fd < 0)
        return NULL;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    char *who = NULL;
    if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
        who = fl.l_pid > 0 ? process_name(fl.l_pid) : cu_xstrdup(_("another process"));
    close(fd);
    return who;
}

/* The holder of @manager's lock, or NULL; *lock (may be NULL) gets the lock's file. */
static char *
lock_holder(const struct cu_sys *s, const char *manager, const char **lock)
{
    const char *dummy;
    lock = lock ? lock : &dummy;
    if (strcmp(manager, "apt") == 0 || strcmp(manager, "dpkg") == 0) {
        *lock = "/var/lib/dpkg/lock-frontend";
        char *w = fcntl_holder(s, *lock);
        if (w)
            return w;
        *lock = "/var/lib/dpkg/lock";
        return fcntl_holder(s, *lock);
    }
    *lock = strcmp(manager, "zypper") == 0 ? "/run/zypp.pid" : "/var/lib/pacman/db.lck";
    if (strcmp(manager, "zypper") == 0) {
        char *text = NULL;
        struct cu_error e;
        if (!s->files_open || (cu_sysroot_read(&s->files, "/run/zypp.pid", 64, &text, NULL, &e) != CU_OK &&
                               cu_sysroot_read(&s->files, "/var/run/zypp.pid", 64, &text, NULL, &e) != CU_OK))
            return NULL;
        uint64_t pid = 0;
        bool alive = cu_parse_u64(cu_str_strip(text), 1u << 30, &pid) && pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
        free(text);
        return alive ? process_name((pid_t)pid) : NULL;
    }
    if (strcmp(manager, "pacman") == 0)
        return s->files_open && cu_sysroot_exists(&s->files, "/var/lib/pacman/db.lck") ? cu_xstrdup(_("another process"))
                                                                                        : NULL;
    return NULL;
}

char *
cu_sys_lock_holder(const struct cu_sys *s, const char *manager)
{
    return lock_holder(s, manager, NULL);
}

/* The manager a command belongs to, for its lock: apt, dpkg, zypper, pacman, or NULL. */
static const char *
lock_kind(const char *prog)
{
    if (strcmp(prog, "apt-get") == 0)
        return "apt";
    if (strcmp(prog, "apt-mark") == 0 || strcmp(prog, "dpkg") == 0)
        return "dpkg";
    if (strcmp(prog, "zypper") == 0)
        return "zypper";
    if (strcmp(prog, "pacman") == 0)
        return "pacman";
    return NULL;
}

static void
say(const struct cu_sys *s, const char *line)
{
    /* When the caller shows it (on_line), the log keeps it for the record only: said once on a screen. */
    cu_log_msg(CU_LOG_INFO, s->on_line ? CU_LOG_TAG_RECORD : CU_LOG_TAG, "%s", line);
    if (s->on_line)
        s->on_line(s->line_userdata, line);
}

/*
 * Before a package manager runs: when another process holds its lock, say so; apt-get and zypper
 * then wait on their own (their options), apt-mark, dpkg and pacman are waited for here, at most
 * lock_wait_s.  Errors: CU_E_BUSY when the lock is still held after that.
 */
static enum cu_status
wait_lock(const struct cu_sys *s, const char *prog, struct cu_error *err)
{
    const char *kind = lock_kind(prog);
    const char *lock = NULL;
    CU_AUTOFREE char *who = kind ? lock_holder(s, kind, &lock) : NULL;
    if (!who)
        return CU_OK;
    CU_AUTOFREE char *msg = cu_xasprintf(_("The package manager is busy: %s holds its lock %s (on a fresh cloud machine, its first updates); waiting up to %u minutes for it."),
                                         who, lock, (s->lock_wait_s + 59) / 60);
    say(s, msg);
    if (strcmp(kind, "apt") == 0 || strcmp(kind, "zypper") == 0)
        return CU_OK; /* DPkg::Lock::Timeout, ZYPP_LOCK_TIMEOUT */
    for (unsigned waited = 0; waited < s->lock_wait_s; waited++) {
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
        char *still = cu_sys_lock_holder(s, kind);
        if (!still)
            return CU_OK;
        free(still);
    }
    return cu_error_set(err, CU_E_BUSY, 0, _("The package manager stayed busy for %u minutes (%s holds its lock), so `%s` did not run."),
                        (s->lock_wait_s + 59) / 60, who, prog);
}

/* ---- running ------------------------------------------------------------------------------------- */

/* The environment of a system command: non-interactive, with the lock timeouts. */
static void
command_env(const struct cu_sys *s, struct cu_strv *env)
{
    static const char *const pass[] = {"http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"};
    if (s->chroot) {
        /* Inside the root, nothing of this host's environment but how to reach the network. */
        cu_strv_push(env, "PATH=" ROOT_PATH);
        cu_strv_push(env, "HOME=/root");
        cu_strv_push(env, "LC_ALL=C");
        for (size_t i = 0; i < CU_N_ELEMENTS(pass); i++) {
            const char *v = cu_env_get(s->envp, pass[i]);
            if (v)
                cu_strv_push_owned(env, cu_xasprintf("%s=%s", pass[i], v));
        }
    } else {
        for (const char *const *e = s->envp ? s->envp : (const char *const *)environ; e && *e; e++)
            if (!cu_str_has_prefix(*e, "DEBIAN_FRONTEND=") && !cu_str_has_prefix(*e, "ZYPP_LOCK_TIMEOUT="))
                cu_strv_push(env, *e);
    }
    cu_strv_push(env, "DEBIAN_FRONTEND=noninteractive");
    cu_strv_push_owned(env, cu_xasprintf("ZYPP_LOCK_TIMEOUT=%u", s->lock_wait_s));
}

/* The argv actually run: the stand-in's or PATH's program, apt-get's lock timeout, the chroot helper. */
static enum cu_status
command_argv(const struct cu_sys *s, const char *const *argv, struct cu_strv *out, struct cu_error *err)
{
    CU_AUTOFREE char *line = cu_sys_argv_str(argv);
    if (s->chroot) {
        CU_AUTOFREE char *self = self_exe();
        const char *cmds[] = {argv[0], NULL};
        enum cu_status st = cu_sys_check(s, cmds, err);
        if (st != CU_OK)
            return st;
        cu_strv_push(out, self);
        cu_strv_push(out, "__chroot");
        cu_strv_push(out, s->root);
        cu_strv_push(out, argv[0]);
    } else {
        char *exe = s->bin_dir ? cu_path_join(s->bin_dir, argv[0]) : cu_which(argv[0], s->envp);
        if (!exe || access(exe, X_OK) != 0) {
            free(exe);
            return cu_error_set(err, CU_E_NOT_FOUND, 0, _("%s is not installed here, so `%s` cannot run."), argv[0], line);
        }
        cu_strv_push_owned(out, exe);
    }
    if (strcmp(argv[0], "apt-get") == 0) {
        cu_strv_push(out, "-o");
        cu_strv_push_owned(out, cu_xasprintf("DPkg::Lock::Timeout=%u", s->lock_wait_s));
    }
    for (size_t i = 1; argv[i]; i++)
        cu_strv_push(out, argv[i]);
    return CU_OK;
}

/* A command that reads the terminal: its stdin, stdout and stderr are ours. */
static enum cu_status
run_tty(const char *const *argv, const char *const *envp, int *code, struct cu_error *err)
{
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], NULL, NULL, (char *const *)(uintptr_t)argv,
                         (char *const *)(uintptr_t)(envp ? envp : (const char *const *)environ));
    if (rc != 0)
        return cu_error_set(err, CU_E_NOT_FOUND, rc, _("Cannot run %s"), argv[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return cu_error_set(err, CU_E_IO, errno, _("Cannot wait for %s"), argv[0]);
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return CU_OK;
}

/* Output as it comes, cut into lines for the log and the screen. */
struct stream {
    const struct cu_sys *s;
    const char *prog;
    struct cu_buf part;
};

static void
stream_line(struct stream *st, const char *line)
{
    /* Carriage returns redraw a line on a terminal: the last state of it is the line. */
    const char *cr = strrchr(line, '\r');
    line = cr ? cr + 1 : line;
    if (!*line)
        return;
    /* The command's name goes with the line into the log; a screen that shows the line (on_line) gets it once. */
    cu_log_msg(CU_LOG_INFO, st->s->on_line ? CU_LOG_TAG_RECORD : CU_LOG_TAG, "%s: %s", st->prog, line);
    if (st->s->on_line)
        st->s->on_line(st->s->line_userdata, line);
}

static void
on_output(void *userdata, const char *data, size_t len)
{
    struct stream *st = userdata;
    if (st->s->on_output)
        st->s->on_output(st->s->output_userdata, data, len);
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\n') {
            cu_buf_append(&st->part, data + i, 1);
            continue;
        }
        stream_line(st, st->part.data ? st->part.data : "");
        cu_buf_reset(&st->part);
    }
}

/* Ctrl-C while the command runs: the caller says that it is waited for (once). */
static void
on_notice(void *userdata)
{
    struct stream *st = userdata;
    if (st->s->on_wait)
        st->s->on_wait(st->s->line_userdata, st->prog);
}

static const char *
package_advice(const char *prog)
{
    if (strcmp(prog, "apt-get") == 0 || strcmp(prog, "apt-mark") == 0 || strcmp(prog, "dpkg") == 0)
        return _("That is the package manager's own error (its output is above and in the log). Fix what it says (`sudo dpkg --configure -a` and `sudo apt-get -f install` finish an interrupted install), then run cudaup again: it goes on from there.");
    if (strcmp(prog, "dnf") == 0 || strcmp(prog, "rpm") == 0 || strcmp(prog, "zypper") == 0 || strcmp(prog, "pacman") == 0)
        return _("That is the package manager's own error (its output is above and in the log). Fix what it says (a repository that cannot be reached, a conflicting package), then run cudaup again: it goes on from there.");
    return _("That is the command's own error (its output is above and in the log). Fix what it says, then run cudaup again.");
}

enum cu_status
cu_sys_run(const struct cu_sys *s, const char *const *argv, bool interactive, struct cu_buf *log,
           struct cu_error *err)
{
    CU_AUTOFREE char *line = cu_sys_argv_str(argv);
    struct cu_strv av, env;
    enum cu_status st;
    if (interactive && s->chroot)
        return cu_error_set(err, CU_E_UNSUPPORTED, 0, _("`%s` cannot run inside %s (--root): it acts on the machine it runs on."), line, s->root);
    cu_strv_init(&av);
    cu_strv_init(&env);
    if ((st = command_argv(s, argv, &av, err)) != CU_OK || (st = wait_lock(s, argv[0], err)) != CU_OK)
        goto out;
    command_env(s, &env);
    /* The command stays as it is (it can be copied); the words around it are the user's language. */
    if (s->chroot)
        cu_log_info(_("running %s inside %s"), line, s->root);
    else
        cu_log_info(_("running %s"), line);
    if (log)
        cu_buf_printf(log, "$ %s\n", line);
    if (interactive && s->tty) {
        int code = 0;
        if ((st = run_tty((const char *const *)av.v, (const char *const *)env.v, &code, err)) == CU_OK && code != 0)
            st = cu_error_set(err, CU_E_TOOL, 0, _("`%s` failed (exit %d)."), line, code);
        goto out;
    }
    struct stream sm = {s, argv[0], {0}};
    cu_buf_init(&sm.part);
    struct cu_exec_opts o = {.envp = (const char *const *)env.v, .timeout_ms = 3600 * 1000, .on_output = on_output,
                             .userdata = &sm, .notice = s->cancel, .on_notice = on_notice};
    struct cu_exec_result res;
    cu_exec_result_init(&res);
    st = cu_exec((const char *const *)av.v, &o, &res, err);
    if (sm.part.len)
        stream_line(&sm, sm.part.data);
    cu_buf_fini(&sm.part);
    if (st == CU_OK) {
        if (log) {
            cu_buf_append(log, res.out.data, res.out.len);
            cu_buf_append(log, res.err.data, res.err.len);
        }
        if (res.exit_code != 0 || res.timed_out) {
            CU_AUTOFREE char *why = last_line(res.err.len ? res.err.data : res.out.data);
            st = cu_error_set(err, CU_E_TOOL, 0, _("`%s` failed (exit %d)%s%s"), line, res.exit_code,
                              *why ? ": " : ".", why);
            cu_error_advise(err, "%s", package_advice(argv[0]));
        }
    }
    cu_exec_result_fini(&res);
out:
    cu_strv_fini(&av);
    cu_strv_fini(&env);
    return st;
}

enum cu_status
cu_sys_capture(const struct cu_sys *s, const char *const *argv, struct cu_buf *out, struct cu_buf *errout, int *code,
               struct cu_error *err)
{
    struct cu_strv av, env;
    cu_strv_init(&av);
    cu_strv_init(&env);
    enum cu_status st = command_argv(s, argv, &av, err);
    if (st == CU_OK) {
        command_env(s, &env);
        struct cu_exec_opts o = {.envp = (const char *const *)env.v, .timeout_ms = 600 * 1000};
        struct cu_exec_result res;
        cu_exec_result_init(&res);
        if ((st = cu_exec((const char *const *)av.v, &o, &res, err)) == CU_OK) {
            cu_buf_append(out, res.out.data, res.out.len);
            if (errout)
                cu_buf_append(errout, res.err.data, res.err.len);
            *code = res.timed_out ? 124 : res.exit_code;
            if (*code != 0) {
                CU_AUTOFREE char *l = cu_sys_argv_str(argv);
                cu_log_info(_("%s: exit %d: %s"), l, *code, res.err.len ? res.err.data : "");
            }
        }
        cu_exec_result_fini(&res);
    }
    cu_strv_fini(&av);
    cu_strv_fini(&env);
    return st;
}

/* ---- files under the root --------------------------------------------------------------------- */

char *
cu_sys_path(const struct cu_sys *s, const char *abs)
{
    if (strcmp(s->root, "/") == 0)
        return cu_xstrdup(abs);
    return cu_xasprintf("%s%s", s->root, abs);
}

bool
cu_sys_exists(const struct cu_sys *s, const char *abs)
{
    return s->files_open && cu_sysroot_exists(&s->files, abs);
}

enum cu_status
cu_sys_read(const struct cu_sys *s, const char *abs, size_t max, char **out, struct cu_error *err)
{
    *out = NULL;
    if (!s->files_open)
        return cu_error_set(err, CU_E_IO, 0, _("Cannot open the machine root %s"), s->root);
    return cu_sysroot_read(&s->files, abs, max, out, NULL, err);
}

/* Folder @dir inside the root (links resolved there), made as needed when @create: an fd or -errno. */
static int
root_dir(const struct cu_sys *s, const char *dir, bool create)
{
    int fd = cu_sysroot_open(&s->files, dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0 || fd != -ENOENT || !create)
        return fd;
    CU_AUTOFREE char *parent = cu_xstrdup(dir);
    char *slash = strrchr(parent, '/');
    if (!slash || !slash[1])
        return fd;
    const char *base = dir + (slash - parent) + 1;
    *slash = '\0';
    int pfd = root_dir(s, *parent ? parent : "/", true);
    if (pfd < 0)
        return pfd;
    int rc = mkdirat(pfd, base, 0755) == 0 || errno == EEXIST ? 0 : -errno;
    close(pfd);
    return rc < 0 ? rc : cu_sysroot_open(&s->files, dir, O_RDONLY | O_DIRECTORY);
}

/* Split @abs into its folder and name; the folder's fd (made when @create), or -errno. */
static int
parent_of(const struct cu_sys *s, const char *abs, bool create, const char **base)
{
    const char *slash = strrchr(abs, '/');
    *base = slash ? slash + 1 : abs;
    CU_AUTOFREE char *dir = slash && slash != abs ? cu_xstrndup(abs, (size_t)(slash - abs)) : cu_xstrdup("/");
    if (!s->files_open)
        return -EBADF;
    return root_dir(s, dir, create);
}

enum cu_status
cu_sys_write(const struct cu_sys *s, const char *abs, const char *text, struct cu_error *err)
{
    CU_AUTOFREE char *shown = cu_sys_path(s, abs);
    const char *base;
    int dfd = parent_of(s, abs, true, &base);
    if (dfd < 0)
        return cu_error_set(err, CU_E_IO, -dfd, _("Cannot write %s"), shown);
    /* The folder as opened inside the root: the atomic write happens in it, whatever links led there. */
    CU_AUTOFREE char *p = cu_xasprintf("/proc/self/fd/%d/%s", dfd, base);
    cu_log_info(_("writing %s"), shown);
    enum cu_status st = cu_write_file_atomic(p, text, strlen(text), 0644, err);
    close(dfd);
    if (st != CU_OK) {
        cu_error_clear(err);
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot write %s"), shown);
    }
    return st;
}

enum cu_status
cu_sys_write_new(const struct cu_sys *s, const char *abs, const void *data, size_t len, struct cu_error *err)
{
    CU_AUTOFREE char *shown = cu_sys_path(s, abs);
    CU_AUTOFREE char *dir = cu_xstrdup(abs);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir || !slash[1])
        return cu_error_set(err, CU_E_IO, EINVAL, _("Cannot write %s"), shown);
    *slash = '\0';
    const char *name = slash + 1, *leaf;
    int pfd = parent_of(s, dir, true, &leaf);
    if (pfd < 0)
        return cu_error_set(err, CU_E_IO, -pfd, _("Cannot write %s"), shown);
    /* The folder is made here and now (it must not exist), so only this user can put a file in it. */
    int e = mkdirat(pfd, leaf, 0700) == 0 ? 0 : errno;
    int dfd = e ? -1 : openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (!e && dfd < 0)
        e = errno;
    close(pfd);
    if (e)
        return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), shown);
    cu_log_info("writing %s", shown);
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    size_t off = 0;
    e = fd < 0 ? errno : 0;
    while (!e && off < len) {
        ssize_t n = write(fd, (const char *)data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            e = n < 0 ? errno : EIO;
        else
            off += (size_t)n;
    }
    if (fd >= 0 && ((!e && fsync(fd) != 0) || close(fd) != 0) && !e)
        e = errno;
    close(dfd);
    if (e)
        return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), shown);
    return CU_OK;
}

enum cu_status
cu_sys_remove_new(const struct cu_sys *s, const char *abs, struct cu_error *err)
{
    CU_AUTOFREE char *dir = cu_xstrdup(abs);
    char *slash = strrchr(dir, '/');
    enum cu_status st = cu_sys_remove(s, abs, err);
    if (st != CU_OK || !slash || slash == dir)
        return st;
    *slash = '\0';
    CU_AUTOFREE char *shown = cu_sys_path(s, dir);
    const char *leaf;
    int pfd = parent_of(s, dir, false, &leaf);
    if (pfd == -ENOENT)
        return CU_OK;
    if (pfd < 0)
        return cu_error_set(err, CU_E_IO, -pfd, _("Cannot remove %s"), shown);
    int rc = unlinkat(pfd, leaf, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : errno;
    close(pfd);
    if (rc)
        return cu_error_set(err, CU_E_IO, rc, _("Cannot remove %s"), shown);
    cu_log_info("removed %s", shown);
    return CU_OK;
}

enum cu_status
cu_sys_remove(const struct cu_sys *s, const char *abs, struct cu_error *err)
{
    CU_AUTOFREE char *shown = cu_sys_path(s, abs);
    const char *base;
    int dfd = parent_of(s, abs, false, &base);
    if (dfd == -ENOENT)
        return CU_OK;
    if (dfd < 0)
        return cu_error_set(err, CU_E_IO, -dfd, _("Cannot remove %s"), shown);
    int rc = unlinkat(dfd, base, 0) == 0 || errno == ENOENT ? 0 : errno;
    close(dfd);
    if (rc)
        return cu_error_set(err, CU_E_IO, rc, _("Cannot remove %s"), shown);
    cu_log_info(_("removed %s"), shown);
    return CU_OK;
}

/* ---- the child inside a root ---------------------------------------------------------------------- */

/* Mount @what of @type on ROOT/@where when that is a real folder (never through a link). */
static void
mount_in(const char *root, const char *where, const char *what, const char *type, unsigned long flags)
{
    CU_AUTOFREE char *p = cu_xasprintf("%s/%s", root, where);
    struct stat sb;
    if (lstat(p, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return;
    char b[128];
    if (mount(what, p, type, flags, NULL) != 0)
        fprintf(stderr, "cudaup: cannot mount %s inside %s: %s\n", where, root, cu_strerror(errno, b, sizeof(b)));
}

int
cu_sys_chroot_main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: cudaup __chroot ROOT PROGRAM [ARGS...]\n");
        return 2;
    }
    const char *root = argv[2];
    char b[128];
    /* A mount namespace of its own: what is mounted here goes away with this process. */
    if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) {
        mount_in(root, "proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC);
        CU_AUTOFREE char *null = cu_xasprintf("%s/dev/null", root);
        struct stat sb;
        if (lstat(null, &sb) != 0 || !S_ISCHR(sb.st_mode))
            mount_in(root, "dev", "/dev", NULL, MS_BIND | MS_REC);
    } else {
        fprintf(stderr, "cudaup: no mount namespace (%s); running without the root's /proc\n", cu_strerror(errno, b, sizeof(b)));
    }
    if (chroot(root) != 0 || chdir("/") != 0) {
        fprintf(stderr, "cudaup: cannot enter %s: %s\n", root, cu_strerror(errno, b, sizeof(b)));
        return 126;
    }
    execvp(argv[3], argv + 3);
    fprintf(stderr, "cudaup: cannot run %s inside %s: %s\n", argv[3], root, cu_strerror(errno, b, sizeof(b)));
    return 127;
}
