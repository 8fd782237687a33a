/* SPDX-License-Identifier: MIT */
/*
 * The credentials of the index pip reads (--index-url's user:password@) and of the site mirror, for pip,
 * never on its command line (/proc/PID/cmdline is every local
 * user's to read) nor in a URL it could echo: a netrc of mode 0600, in a folder of mode 0700 that
 * only one pip call uses, named to pip by NETRC (read by the requests library pip carries) and
 * removed when pip is done.
 */
#ifndef CU_INST_PIPAUTH_H
#define CU_INST_PIPAUTH_H

#include "core/install/exec.h"

struct cu_pip_auth {
    char *dir, *file; /* the private folder and its netrc; NULL: none was needed */
    char **envp;      /* ctx->envp with NETRC=file; NULL: run pip with ctx->envp */
};

/**
 * When the plan's index URL (ctx->plan->framework->index_userpwd) or ctx->net's base URL carried
 * user:password@, write them for their hosts into a netrc of this call's own and make @a->envp name
 * it.  Else leaves @a empty.  Errors: CU_E_IO when the file
 * cannot be written.  Always pair with cu_pip_auth_end.
 */
CU_NODISCARD enum cu_status cu_pip_auth_begin(const struct cu_run_ctx *ctx, struct cu_pip_auth *a,
                                              struct cu_error *err);

/** Remove the netrc and its folder, and free @a. */
void cu_pip_auth_end(struct cu_pip_auth *a);

#endif
