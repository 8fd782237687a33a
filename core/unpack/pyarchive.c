/* SPDX-License-Identifier: MIT */
/* python-build-standalone's archive layouts: see pyarchive.h. */
#include "config.h"

#include "core/unpack/pyarchive.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"

#define TOP "python"
#define INSTALL "python/install"

void
cu_pyfull_fini(struct cu_pyfull *pf)
{
    cu_clear_ptr(&pf->buf, free);
}

const char *
cu_pyfull_rename(void *ud, const char *name)
{
    struct cu_pyfull *pf = ud;
    size_t il = strlen(INSTALL), tl = strlen(TOP);
    /* Checked here too, so that nothing unsafe is ever skipped rather than refused. */
    if (!cu_extract_name_ok(name) || strncmp(name, TOP, tl) != 0 || (name[tl] != '\0' && name[tl] != '/'))
        return name;
    if (name[tl] == '\0' || strcmp(name + tl, "/") == 0)
        return name; /* the top folder itself */
    if (strncmp(name, INSTALL, il) != 0 || (name[il] != '\0' && name[il] != '/'))
        return NULL; /* PYTHON.json, build/, licenses/: no part of the installed tree */
    free(pf->buf);
    pf->buf = cu_xasprintf(TOP "%s", name[il] ? name + il : "/");
    return pf->buf;
}

bool
cu_pyarchive_is_full(const char *layout)
{
    return layout && strcmp(layout, "full") == 0;
}

enum cu_status
cu_pyarchive_check(const struct cu_extract_result *res, const char *version, const char *what,
                   struct cu_error *err)
{
    const char *dot = version ? strchr(version, '.') : NULL;
    const char *dot2 = dot ? strchr(dot + 1, '.') : NULL;
    int len = dot2 ? (int)(dot2 - version) : version ? (int)strlen(version) : 0;
    CU_AUTOFREE char *exe = cu_xasprintf("bin/python%.*s", len, version ? version : "");
    /* Both layouts keep everything under python/ (the full one under python/install/, renamed to it):
     * an archive whose members lie under another folder is not the one the catalog describes. */
    if (strcmp(res->top, TOP) != 0)
        return cu_error_set(err, CU_E_ARCHIVE, 0,
                            _("%s keeps its files under %s/, not python/: it is not the Python %s the catalog describes; nothing was placed"),
                            what, res->top[0] ? res->top : "?", version ? version : "?");
    for (size_t i = 0; i < res->n; i++)
        if (strcmp(res->files[i].path, exe) == 0 && res->files[i].type != CU_FILE_DIR)
            return CU_OK;
    return cu_error_set(err, CU_E_ARCHIVE, 0,
                        _("%s holds no %s: it is not the Python %s the catalog describes; nothing was placed"), what,
                        exe, version ? version : "?");
}
