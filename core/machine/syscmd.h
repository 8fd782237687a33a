/* SPDX-License-Identifier: MIT */
/*
 * The one place through which cudaup changes the system outside its prefix: the
 * package managers and kernel tools it runs (apt-get, apt-mark, dnf, zypper, pacman,
 * mokutil, dkms, update-initramfs, dracut, mkinitcpio, modprobe) and the files it
 * writes there (modprobe.d, sources, repository files).
 *
 * Test seams (documented in README "Settings"): CUDAUP_SYSTEM_BIN=DIR runs every
 * such command from DIR only (stand-ins that record their calls), and
 * CUDAUP_SYSTEM_ROOT=DIR writes the files under DIR instead of /.
 */
#ifndef CU_SYSCMD_H
#define CU_SYSCMD_H

#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/str.h"

struct cu_sys {
    const char *const *envp;
    const char *bin_dir; /* CUDAUP_SYSTEM_BIN, or NULL: PATH */
    const char *root;    /* CUDAUP_SYSTEM_ROOT, or "/" */
    bool tty;            /* stdin is a terminal: mokutil may ask its password there */
    /* Each chunk of a command's output as it comes (a DKMS build takes minutes), or NULL. */
    void (*on_output)(void *userdata, const char *data, size_t len);
    void *output_userdata;
};

/** Fill @s from @envp (borrowed: it must outlive @s). */
void cu_sys_init(struct cu_sys *s, const char *const *envp, bool tty);

/**
 * Run @argv and wait; its output goes to @log (may be NULL).  @interactive lets the command
 * read the terminal (mokutil's one-time password: typed by the user, never seen by cudaup).
 * Errors: CU_E_TOOL (it exited non-zero: the message names the command and its last line of
 * output), CU_E_NOT_FOUND (it is not installed).
 */
CU_NODISCARD enum cu_status cu_sys_run(const struct cu_sys *s, const char *const *argv, bool interactive,
                                       struct cu_buf *log, struct cu_error *err);

/** The host path of system file @abs ("/etc/modprobe.d/x.conf"). Caller owns. */
char *cu_sys_path(const struct cu_sys *s, const char *abs);

/** Write system file @abs atomically (folders made as needed). Errors: CU_E_IO. */
CU_NODISCARD enum cu_status cu_sys_write(const struct cu_sys *s, const char *abs, const char *text,
                                         struct cu_error *err);

/** Remove system file @abs; missing is fine. Errors: CU_E_IO. */
CU_NODISCARD enum cu_status cu_sys_remove(const struct cu_sys *s, const char *abs, struct cu_error *err);

/** "apt-get install -y a b" for messages. Caller owns. */
char *cu_sys_argv_str(const char *const *argv);

#endif /* CU_SYSCMD_H */
