/* SPDX-License-Identifier: MIT */
/* A venv relocated for a machine image (installers/pyroot.h): how it is told, from this host or from that machine. */
#include "config.h"

#include "core/install/envfile.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/error.h"
#include "core/base/fsutil.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"

/* The mark in venv @env, or NULL. */
static json_t *
mark_read(const char *env)
{
    CU_AUTOFREE char *file = cu_path_join(env, CU_ENV_ROOT_MARK);
    char *text = NULL;
    size_t len;
    struct cu_error e;
    json_t *j = NULL;
    if (cu_read_file(file, 4u << 20, &text, &len, &e) != CU_OK || cu_json_parse_object(text, len, file, &j, &e) != CU_OK)
        j = NULL;
    free(text);
    return j;
}

char *
cu_venv_rec_here(const json_t *e, const char *key)
{
    const char *v = cu_json_str(e, key), *root = cu_json_str(e, "root");
    const char *path = cu_json_str(e, "path"), *seen = cu_json_str(e, "seen");
    struct stat sb;
    if (!v)
        return NULL;
    size_t rl = root ? strlen(root) : 0;
    if (rl > 1 && path && seen && strncmp(v, root, rl) == 0 && v[rl] == '/' && lstat(v, &sb) != 0) {
        /* On that machine only: the venv at its seen path is the one relocated from the recorded path (its mark
         * says so), so that a venv of the same name on the building host is never taken for it. */
        json_t *m = mark_read(seen);
        bool here = cu_json_str(m, "path") && strcmp(cu_json_str(m, "path"), path) == 0;
        json_decref(m);
        if (here)
            return cu_xstrdup(v + rl);
    }
    return cu_xstrdup(v);
}

bool
cu_venv_for_image(const char *env, char **root, char **seen)
{
    json_t *j = mark_read(env);
    bool yes = false;
    if (j) {
        const char *r = cu_json_str(j, "root"), *p = cu_json_str(j, "path"), *s = cu_json_str(j, "seen");
        /* Read through the host path it was made at (not as that machine, where the venv is at its seen path). */
        yes = r && p && s && strcmp(p, env) == 0 && strcmp(s, env) != 0;
        if (yes) {
            *root = cu_xstrdup(r);
            *seen = cu_xstrdup(s);
        }
    }
    json_decref(j);
    return yes;
}
