/* SPDX-License-Identifier: MIT */
/* The framework, installed with pip inside the Python environment. */
#include "config.h"

#include "installer.h"

#include <string.h>

#include "core/i18n.h"
#include "core/str.h"

static void
inst_framework_plan(struct cu_plan *p)
{
    if (!p->framework || !p->env.tool || strcmp(p->env.tool, "none") == 0)
        return;
    struct cu_buf b;
    cu_buf_init(&b);
    for (char **r = p->framework->pip; r && *r; r++)
        cu_buf_printf(&b, "%s%s", b.len ? " " : "", *r);
    if (p->framework->index_url)
        cu_plan_add_step(p, "framework", "pip-install", _("pip install %s from %s inside %s"), b.data,
                         p->framework->index_url, p->env.name);
    else
        cu_plan_add_step(p, "framework", "pip-install", _("pip install %s inside %s"), b.data, p->env.name);
    cu_buf_fini(&b);
}

const struct cu_installer_ops inst_framework_ops = {
    .name = "framework",
    .plan = inst_framework_plan,
};
