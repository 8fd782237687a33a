/* SPDX-License-Identifier: MIT */
/* Environment variables: STATE/env.sh, and what sources it. */
#include "config.h"

#include "installer.h"

#include <string.h>

#include "core/i18n.h"

static void
inst_envvars_plan(struct cu_plan *p)
{
    const char *scope = p->env.scope ? p->env.scope : "user";
    if (strcmp(scope, "none") == 0) {
        cu_plan_add_step(p, "envvars", "write",
                         _("write %s/env.sh and env.fish (CUDA_HOME, CUDA_PATH, PATH, LD_LIBRARY_PATH) and source nothing: --env-scope none"),
                         p->state_dir);
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

const struct cu_installer_ops inst_envvars_ops = {
    .name = "envvars",
    .plan = inst_envvars_plan,
};
