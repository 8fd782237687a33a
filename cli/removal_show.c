/* SPDX-License-Identifier: MIT */
/* What an uninstall removes, said before its question and given back in JSON (`uninstall VERSION`, `uninstall driver`). */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "app.h"
#include "core/base/i18n.h"
#include "core/base/str.h"
#include "installers/removal.h"
#include "report.h"
#include "term.h"

/* What goes and what stays, said before the question (as apt and conda do); with --yes too, for the record. */
void
cu_removal_print(struct cu_app *app, const char *head, const struct cu_removal *rm)
{
    char b[32];
    const char *bold = cu_color(app, CU_COLOR_BOLD, false), *reset = cu_color_reset(app, false);
    int width = cu_term_width(STDOUT_FILENO);
    printf("%s", bold);
    cu_say(stdout, "", "%s", head);
    printf("%s", reset);
    for (size_t i = 0; i < rm->goes.n; i++)
        cu_print_wrapped(stdout, "  - ", rm->goes.v[i], width);
    if (rm->bytes)
        cu_say(stdout, "", _("That frees %s."), cu_format_bytes(rm->bytes, b, sizeof(b)));
    if (rm->env_goes)
        cu_say(stdout, "", "%s", _("--keep-env keeps the Python environment."));
    for (size_t i = 0; i < rm->stays.n; i++)
        cu_say(stdout, "", "%s", rm->stays.v[i]);
}

json_t *
cu_removal_json(const struct cu_removal *rm)
{
    json_t *o = json_object();
    json_t *g = json_array(), *s = json_array();
    for (size_t i = 0; i < rm->goes.n; i++)
        json_array_append_new(g, json_string(rm->goes.v[i]));
    for (size_t i = 0; i < rm->stays.n; i++)
        json_array_append_new(s, json_string(rm->stays.v[i]));
    json_object_set_new(o, "removes", g);
    json_object_set_new(o, "stays", s);
    json_object_set_new(o, "bytes", json_integer((json_int_t)rm->bytes));
    return o;
}

