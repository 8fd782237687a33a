/* SPDX-License-Identifier: MIT */
/*
 * The packages the plan's own commands need (driver.h "cu_drv_steps_tools"): each command a step runs after the
 * install transaction is looked up in data/driver/driver_commands.csv; where the package that ships it is not
 * installed (dpkg's database, read into the driver state), or the database cannot be read here, it joins the
 * transaction, so that the step does not fail with "command not found" once the driver's packages are in
 * (issue 49: Debian 12 has no mokutil unless shim-signed brought it).
 */
#include "config.h"

#include "core/resolve/driver.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/resolve/driver_distro.h"

const struct cu_drv_command *
cu_drv_command_for(const struct cu_drv_data *d, const struct cu_facts *f, const char *command)
{
    const char *id = f->os.id, *vid = f->os.version_id ? f->os.version_id : "";
    for (size_t i = 0; d && id && command && i < d->n_commands; i++) {
        const struct cu_drv_command *c = &d->commands[i];
        if (strcmp(c->command, command) == 0 && cu_drv_release_matches(c->ids, c->versions, id, vid))
            return c;
    }
    return NULL;
}

static void
reason_add(struct cu_drv_plan *p, const char *source, const char *fmt, ...) CU_PRINTF(3, 4);
static void
reason_add(struct cu_drv_plan *p, const char *source, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cu_i18n_push_noted(&p->reasons, fmt, ap);
    va_end(ap);
    cu_strv_push(&p->reason_sources, source ? source : "");
}

/* Append @word to the NULL-terminated argv of @s. */
static void
argv_append(struct cu_drv_step *s, const char *word)
{
    size_t n = 0;
    while (s->argv[n])
        n++;
    s->argv = cu_xrealloc(s->argv, (n + 2) * sizeof(char *));
    s->argv[n] = cu_xstrdup(word);
    s->argv[n + 1] = NULL;
}

void
cu_drv_steps_tools(const struct cu_drv_in *in, struct cu_drv_plan *p)
{
    const struct cu_facts *f = in->facts;
    const struct cu_drv_state *st = f->drv;
    struct cu_drv_step *install = NULL;
    for (size_t i = 0; i < p->n_steps; i++) {
        struct cu_drv_step *s = &p->steps[i];
        if (!install) {
            if (strcmp(s->action, "install") == 0 && s->argv)
                install = s;
            continue;
        }
        const struct cu_drv_command *c = s->argv ? cu_drv_command_for(in->cat->driver, f, s->argv[0]) : NULL;
        if (!c || cu_strv_contains(&p->packages, c->package))
            continue;
        bool known = st && st->packages_read;
        if (known && cu_strv_contains(&st->packages, c->package))
            continue;
        cu_strv_push(&p->packages, c->package);
        argv_append(install, c->package);
        CU_AUTOFREE char *line = cu_drv_step_line(s);
        CU_AUTOFREE char *src = cu_xasprintf("%s (%s)", c->ref, c->confidence);
        if (known)
            reason_add(p, src, _("`%s` needs %s, which the package %s ships and this system does not have installed: the driver's install brings %s in the same transaction."),
                       line, c->command, c->package, c->package);
        else
            reason_add(p, src, _("`%s` needs %s, which the package %s ships; cudaup cannot read this system's package database, so the driver's install names %s too (an installed one stays as it is)."),
                       line, c->command, c->package, c->package);
    }
}
