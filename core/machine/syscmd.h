/* SPDX-License-Identifier: MIT */
/*
 * The one place through which cudaup changes the system outside its prefix: the
 * package managers and kernel tools it runs (apt-get, apt-mark, dnf, zypper, pacman,
 * mokutil, dkms, update-initramfs, dracut, mkinitcpio, modprobe) and the files it
 * writes there (modprobe.d, sources, repository files).
 *
 * Where it runs them is the machine root (--root):
 *  - "/": on this machine, found on PATH;
 *  - any other folder: inside it, never on the host.  Each command runs chrooted into the
 *    folder (cudaup __chroot ROOT PROG ARGS: a mount namespace of its own with the root's /proc,
 *    so nothing it mounts outlives it), found on the root's own PATH; files are written through
 *    the root, whose links are resolved inside it.  That needs root (CAP_SYS_CHROOT); without it,
 *    cu_sys_check refuses before anything is touched.
 * Package managers wait for a lock another process holds (DPkg::Lock::Timeout, ZYPP_LOCK_TIMEOUT;
 * the wait is said on the output callback), never ask questions (DEBIAN_FRONTEND=noninteractive),
 * and their output goes line by line to the callback (the screen) and to the log as it comes.
 *
 * Test seams (documented in README "Settings"): CUDAUP_SYSTEM_BIN=DIR runs every
 * such command from DIR only (stand-ins that record their calls), on this machine, whatever the
 * root; CUDAUP_SYSTEM_ROOT=DIR, with it, writes the files under DIR instead of the machine root.
 * CUDAUP_LOCK_TIMEOUT=SECONDS: how long a held package-manager lock is waited for (600).
 */
#ifndef CU_SYSCMD_H
#define CU_SYSCMD_H

#include <stdatomic.h>
#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"

/* Each line a command prints, as it comes (no newline), for the screen. */
typedef void (*cu_sys_line_fn)(void *userdata, const char *line);

struct cu_sys {
    const char *const *envp;
    const char *bin_dir;    /* CUDAUP_SYSTEM_BIN, or NULL: the root's own commands */
    const char *root;       /* the machine root's path: "/" for this machine */
    bool chroot;            /* root is not "/" and no stand-ins: commands run inside root */
    bool image;             /* root shows no running kernel (/proc empty): a machine image, not a live system */
    bool tty;               /* stdin is a terminal: mokutil may ask its password there */
    unsigned lock_wait_s;   /* how long a held package-manager lock is waited for */
    struct cu_sysroot files;/* the root files are written and read through (owned) */
    bool files_open;
    cu_sys_line_fn on_line; /* may be NULL */
    void *line_userdata;
    /* Each chunk of a command's output as it comes (a DKMS build takes minutes), or NULL. */
    void (*on_output)(void *userdata, const char *data, size_t len);
    void *output_userdata;
    /* Ctrl-C while a command runs: @on_wait is called once (with line_userdata and the command's name) as soon
     * as @cancel is seen set, and the command is waited for, never cut off: a package manager stopped halfway
     * leaves its database broken.  The caller stops after it.  Both may be NULL. */
    const atomic_int *cancel;
    void (*on_wait)(void *userdata, const char *prog);
    /* KEY=value strings added to the command's environment (inside a root too), NULL-terminated; may be NULL: what a
     * package's own removal script asks for to go ahead (SUDO_FORCE_REMOVE=yes, from the data). */
    const char *const *env_add;
};

/**
 * Fill @s for machine root @root ("/" or a folder; borrowed, with @envp: they must outlive @s).
 * Never fails: a root that cannot be opened makes every write fail with its reason.
 */
void cu_sys_init(struct cu_sys *s, const char *const *envp, const char *root, bool tty);
void cu_sys_fini(struct cu_sys *s);

/**
 * Can the runner run each of @cmds (NULL-terminated names) where it runs them: on PATH, among the
 * stand-ins, or inside the root (which needs root's privileges)?  Asked before anything is touched.
 * Errors: CU_E_UNSUPPORTED with one sentence naming the command and the root.
 */
CU_NODISCARD enum cu_status cu_sys_check(const struct cu_sys *s, const char *const *cmds, struct cu_error *err);

/**
 * Run @argv and wait; its output goes to @log (may be NULL), to the log and, line by line, to
 * s->on_line.  @interactive lets the command read the terminal (mokutil's one-time password: typed
 * by the user, never seen by cudaup).  Errors: CU_E_TOOL (it exited non-zero: the message names the
 * command and its last line of output; the advice speaks of the package manager), CU_E_NOT_FOUND (it
 * is not installed), CU_E_UNSUPPORTED (an interactive command inside a machine image).
 */
CU_NODISCARD enum cu_status cu_sys_run(const struct cu_sys *s, const char *const *argv, bool interactive,
                                       struct cu_buf *log, struct cu_error *err);

/**
 * Run a query (dpkg-query, rpm -qa, apt-get -s ...) where cu_sys_run would, quietly: its standard
 * output in @out, its standard error in @errout (may be NULL), its exit status in *code.  Errors:
 * CU_E_NOT_FOUND, CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_sys_capture(const struct cu_sys *s, const char *const *argv, struct cu_buf *out,
                                           struct cu_buf *errout, int *code, struct cu_error *err);

/** The host path of system file @abs ("/etc/modprobe.d/x.conf"), for messages. Caller owns. */
char *cu_sys_path(const struct cu_sys *s, const char *abs);

/** Does system file @abs exist (links resolved inside the root)? */
bool cu_sys_exists(const struct cu_sys *s, const char *abs);

/** Read system file @abs (at most @max bytes) through the root. Errors: CU_E_NOT_FOUND, CU_E_IO. */
CU_NODISCARD enum cu_status cu_sys_read(const struct cu_sys *s, const char *abs, size_t max, char **out,
                                        struct cu_error *err);

/** Write system file @abs atomically (folders made as needed), inside the root. Errors: CU_E_IO. */
CU_NODISCARD enum cu_status cu_sys_write(const struct cu_sys *s, const char *abs, const char *text,
                                         struct cu_error *err);

/**
 * Write @len bytes as the new file @abs inside the root, in its own folder made here (mode 0700; it must
 * not exist yet, nor the file: O_EXCL, no link followed), so that nobody else can put other bytes under
 * that name before a command reads it.  Errors: CU_E_IO (also when the folder was there already).
 */
CU_NODISCARD enum cu_status cu_sys_write_new(const struct cu_sys *s, const char *abs, const void *data, size_t len,
                                             struct cu_error *err);

/** Remove what cu_sys_write_new made: the file @abs and its folder.  Errors: CU_E_IO. */
CU_NODISCARD enum cu_status cu_sys_remove_new(const struct cu_sys *s, const char *abs, struct cu_error *err);

/** Remove system file @abs; missing is fine. Errors: CU_E_IO. */
CU_NODISCARD enum cu_status cu_sys_remove(const struct cu_sys *s, const char *abs, struct cu_error *err);

/** "apt-get install -y a b" for messages. Caller owns. */
char *cu_sys_argv_str(const char *const *argv);

/**
 * Who holds the package manager's lock under the root now: "process 1234 (apt-get)" for dpkg's
 * lock-frontend (or lock), zypp.pid, pacman's db.lck; NULL when nobody does. Caller owns.
 */
char *cu_sys_lock_holder(const struct cu_sys *s, const char *manager);

/** `cudaup __chroot ROOT PROG ARGS...`: the child side of a command run inside a root. Returns the exit status. */
int cu_sys_chroot_main(int argc, char **argv);

#endif /* CU_SYSCMD_H */
