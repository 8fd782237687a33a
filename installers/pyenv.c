/* SPDX-License-Identifier: MIT */
/* The Python environment: conda, mamba, micromamba or venv. */
#include "config.h"

#include "installer.h"

#include <string.h>

#include "core/i18n.h"

static void
inst_pyenv_plan(struct cu_plan *p)
{
    if (!p->framework || !p->env.tool || strcmp(p->env.tool, "none") == 0)
        return;
    if (strcmp(p->env.tool, "venv") == 0)
        cu_plan_add_step(p, "pyenv", "create", _("create the venv %s with Python %s"),
                         p->env.path ? p->env.path : p->env.name, p->framework->python);
    else
        cu_plan_add_step(p, "pyenv", "create", _("create the %s environment %s with Python %s"),
                         p->env.tool, p->env.name, p->framework->python);
}

const struct cu_installer_ops inst_pyenv_ops = {
    .name = "pyenv",
    .plan = inst_pyenv_plan,
};
