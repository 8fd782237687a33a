/* SPDX-License-Identifier: MIT */
/*
 * External commands (STYLE 37, 55): argv arrays only, never a shell string;
 * traced at debug level; output captured; a time limit that kills the whole
 * process group.
 */
#ifndef CU_PROC_H
#define CU_PROC_H

#include <stdatomic.h>
#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/str.h"

struct cu_exec_opts {
    const char *const *envp; /* NULL: the current environment */
    const char *cwd;         /* NULL: the current folder */
    long timeout_ms;         /* 0: none */
    size_t max_output;       /* per stream, 0: 16 MiB; more is dropped */
    const atomic_int *cancel;
    /* Seen set while the command runs: @on_notice is called once (with @userdata), and the command is waited
     * for as before, never cut off (a package manager's transaction). May be NULL. */
    const atomic_int *notice;
    void (*on_notice)(void *userdata);
    /** Called with each chunk of output as it comes (any stream), or NULL. */
    void (*on_output)(void *userdata, const char *data, size_t len);
    void *userdata;
};

struct cu_exec_result {
    int exit_code;   /* 0..255, or 128+signal */
    int signo;       /* the signal that ended it, 0 when it exited */
    bool timed_out;
    bool cancelled;
    struct cu_buf out, err;
};

void cu_exec_result_init(struct cu_exec_result *r);
void cu_exec_result_fini(struct cu_exec_result *r);

/**
 * Run @argv (argv[0] a path, or a name looked up on PATH) and wait.
 * Errors: CU_E_NOT_FOUND (cannot be executed), CU_E_IO.  A non-zero exit is
 * not an error here: it is in res->exit_code.
 */
CU_NODISCARD enum cu_status cu_exec(const char *const *argv, const struct cu_exec_opts *o,
                                    struct cu_exec_result *res, struct cu_error *err);

/** Find @name on PATH (from @envp); caller frees. NULL when absent. */
char *cu_which(const char *name, const char *const *envp);

/**
 * The CPUs this process may use: its affinity mask, lowered to a cgroup v2 CPU quota
 * (/sys/fs/cgroup/cpu.max) when one is set.  At least 1.
 */
unsigned cu_cpu_count(void);

/** The value of @name in @envp, or NULL. Borrowed. */
const char *cu_env_get(const char *const *envp, const char *name);

#endif /* CU_PROC_H */
