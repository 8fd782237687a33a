/* SPDX-License-Identifier: MIT */
/* Environment variables: STATE/env.sh, and what sources it. */
#include "config.h"

#include "installer.h"

#include <string.h>

#include "core/install/envfile.h"
#include "core/install/exec.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"

/* @host as the machine the environment is written for sees it (p->env.root), or @host itself. Caller owns. */
static char *
seen(const struct cu_plan *p, const char *host)
{
    char *s = p->env.root ? cu_root_seen_path(p->env.root, host) : NULL;
    return s ? s : cu_xstrdup(host);
}

static void
inst_envvars_plan(struct cu_plan *p)
{
    const char *scope = p->env.scope ? p->env.scope : "user";
    CU_AUTOFREE char *pd_seen = p->env.root && p->env.profile_d ? cu_root_seen_path(p->env.root, p->env.profile_d) : NULL;
    bool profile_in_root = pd_seen != NULL; /* the script is the machine's under --root, not this host's */
    if (!cu_plan_needs_ld_library_path(p))
        cu_plan_add_step(p, "envvars", "write",
                         _("leave LD_LIBRARY_PATH out of env.sh: the frameworks bring their own CUDA libraries, and a CUDA folder there would come before them"));
    if (strcmp(scope, "none") == 0 && !cu_plan_needs_ld_library_path(p)) {
        /* The variables it names are the ones it sets: LD_LIBRARY_PATH is left out (said just above). */
        cu_plan_add_step(p, "envvars", "write",
                         _("write %s/env.sh and env.fish (CUDA_HOME, CUDA_PATH, PATH) and source nothing: --env-scope none"),
                         p->state_dir);
    } else if (strcmp(scope, "none") == 0) {
        cu_plan_add_step(p, "envvars", "write",
                         _("write %s/env.sh and env.fish (CUDA_HOME, CUDA_PATH, PATH, LD_LIBRARY_PATH) and source nothing: --env-scope none"),
                         p->state_dir);
    } else if (strcmp(scope, "system") == 0 && p->env.root && p->env.profile_d && profile_in_root) {
        CU_AUTOFREE char *state = seen(p, p->state_dir);
        CU_AUTOFREE char *home = cu_path_join(p->prefix, "cuda");
        CU_AUTOFREE char *home_seen = seen(p, home);
        cu_plan_add_step(p, "envvars", "write",
                         _("write %s/env.sh and %s/cudaup.sh, which sources it for every login on the machine under %s; they name %s and %s, as that machine sees them"),
                         p->state_dir, p->env.profile_d, p->env.root, state, home_seen);
    } else if (strcmp(scope, "system") == 0) {
        cu_plan_add_step(p, "envvars", "write",
                         _("write %s/env.sh and /etc/profile.d/cudaup.sh, which sources it for every login"),
                         p->state_dir);
    } else if (strcmp(scope, "conda") == 0) {
        cu_plan_add_step(p, "envvars", "write",
                         _("write the variables into the Python environment's activation scripts, so they are set only inside it"));
    } else {
        cu_plan_add_step(p, "envvars", "write",
                         _("write %s/env.sh and env.fish, and source env.sh from %s in a block marked # >>> cudaup >>>"),
                         p->state_dir, p->env.shell_rc ? p->env.shell_rc : "~/.profile");
    }
}

static enum cu_status
inst_envvars_run(struct cu_run_ctx *ctx, struct cu_error *err)
{
    const struct cu_plan *p = ctx->plan;
    const char *scope = p->env.scope ? p->env.scope : "user";
    CU_AUTOFREE char *home = cu_path_join(p->prefix, "cuda");
    /* What the files say: the paths as the machine that reads them sees them (an image: without DIR). */
    CU_AUTOFREE char *home_seen = seen(p, home);
    CU_AUTOFREE char *state_seen = seen(p, p->state_dir);
    bool changed = false, c2 = false;
    enum cu_status st = cu_env_write_scripts(p->state_dir, home_seen, cu_plan_needs_ld_library_path(p), &changed, err);
    const char *detail = p->state_dir;
    if (st == CU_OK && strcmp(scope, "user") == 0) {
        st = cu_rc_install(p->env.shell_rc, p->state_dir, &c2, err);
        detail = p->env.shell_rc;
    } else if (st == CU_OK && strcmp(scope, "system") == 0) {
        st = cu_profiled_install(ctx->root, ctx->profile_d, state_seen, &c2, err);
        detail = ctx->profile_d;
    }
    cu_run_result(ctx, "envvars", "write", st == CU_OK ? detail : cu_error_text(err), st, changed || c2);
    return st;
}

const struct cu_installer_ops inst_envvars_ops = {
    .name = "envvars",
    .plan = inst_envvars_plan,
    .run = inst_envvars_run,
};
