/* SPDX-License-Identifier: MIT */
/* What a Python environment's wheels hold of the CUDA libraries: see envwheels.h. */
#include "config.h"

#include "core/doctor/envwheels.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/fsutil.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/machine/ldpath.h"

void
cu_envwheels_list_dir(const struct cu_sysroot *root, const char *dir, struct cu_strv *out)
{
    DIR *d = cu_sysroot_opendir(root, dir);
    struct dirent *de;
    if (!d)
        return;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.')
            cu_strv_push(out, de->d_name);
    closedir(d);
    cu_strv_sort(out);
}

bool
cu_envwheels_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* ---- what the environment's wheels hold ------------------------------------------------------ */

static void
add_lib(const struct cu_sysroot *root, struct cu_envwheels *w, const char *dir, const char *name)
{
    if (!cu_ld_cuda_lib(name))
        return;
    CU_AUTOFREE char *path = cu_xasprintf("%s/%s", dir, name);
    struct cu_elf_dyn d;
    struct cu_error e;
    CU_AUTOFREE char *soname = NULL;
    if (cu_elf_dyn_read(root, path, &d, &e) == CU_OK) {
        soname = d.soname ? cu_xstrdup(d.soname) : NULL;
        cu_elf_dyn_fini(&d);
    }
    if (!soname)
        soname = cu_xstrdup(name);
    for (size_t i = 0; i < w->sonames.n; i++) {
        if (strcmp(w->sonames.v[i], soname) != 0)
            continue;
        CU_AUTOFREE char *other = cu_xstrdup(w->paths.v[i]);
        *strrchr(other, '/') = '\0';
        if (strcmp(other, dir) != 0 && !w->dup_soname) {
            w->dup_soname = cu_xstrdup(soname);
            w->dup_a = cu_xstrdup(w->paths.v[i]);
            w->dup_b = cu_xstrdup(path);
        }
        return;
    }
    cu_strv_push(&w->sonames, soname);
    cu_strv_push(&w->paths, path);
}

/* Which nvidia-* distribution wrote each shared object of nvidia/ (their RECORDs). */
static void
scan_records(const struct cu_sysroot *root, const char *sp, struct cu_envwheels *w)
{
    struct cu_strv ents;
    cu_strv_init(&ents);
    cu_envwheels_list_dir(root, sp, &ents);
    for (size_t i = 0; i < ents.n; i++) {
        const char *dot = strstr(ents.v[i], ".dist-info");
        if (strncasecmp(ents.v[i], "nvidia_", 7) != 0 || !dot || dot[10])
            continue;
        CU_AUTOFREE char *rec = cu_xasprintf("%s/%s/RECORD", sp, ents.v[i]);
        CU_AUTOFREE char *text = NULL;
        size_t len;
        struct cu_error e;
        if (cu_sysroot_read(root, rec, 4 << 20, &text, &len, &e) != CU_OK)
            continue;
        CU_AUTOFREE char *dist = cu_xstrndup(ents.v[i], (size_t)(dot - ents.v[i]));
        char *dash = strchr(dist, '-');
        if (!dash)
            continue;
        *dash = ' ';
        for (char *c = dist; c < dash; c++)
            *c = *c == '_' ? '-' : (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char *comma = strchr(line, ',');
            if (!comma || !strstr(line, ".so"))
                continue;
            *comma = '\0';
            cu_strv_push_owned(&w->owned, cu_xasprintf("%s/%s", sp, line));
            cu_strv_push(&w->owner, dist);
        }
    }
    cu_strv_fini(&ents);
}

void
cu_envwheels_scan(const struct cu_sysroot *root, const char *sp, struct cu_envwheels *w)
{
    memset(w, 0, sizeof(*w));
    cu_strv_init(&w->sonames);
    cu_strv_init(&w->paths);
    cu_strv_init(&w->owned);
    cu_strv_init(&w->owner);
    static const char *const own[] = {"torch/lib", "tensorflow", "jax_plugins/xla_cuda12", "jax_plugins/xla_cuda13"};
    CU_AUTOFREE char *nv = cu_path_join(sp, "nvidia");
    struct cu_strv pkgs;
    cu_strv_init(&pkgs);
    cu_envwheels_list_dir(root, nv, &pkgs);
    for (size_t i = 0; i < pkgs.n; i++) {
        CU_AUTOFREE char *lib = cu_xasprintf("%s/%s/lib", nv, pkgs.v[i]);
        struct cu_strv names;
        cu_strv_init(&names);
        cu_envwheels_list_dir(root, lib, &names);
        for (size_t k = 0; k < names.n; k++)
            add_lib(root, w, lib, names.v[k]);
        cu_strv_fini(&names);
    }
    cu_strv_fini(&pkgs);
    /* Copies a framework's own package carries (a jax plugin or a torch build with them in its lib/). */
    for (size_t i = 0; i < CU_N_ELEMENTS(own); i++) {
        CU_AUTOFREE char *dir = cu_path_join(sp, own[i]);
        struct cu_strv names;
        cu_strv_init(&names);
        cu_envwheels_list_dir(root, dir, &names);
        for (size_t k = 0; k < names.n; k++)
            add_lib(root, w, dir, names.v[k]);
        cu_strv_fini(&names);
    }
    scan_records(root, sp, w);
}

void
cu_envwheels_fini(struct cu_envwheels *w)
{
    cu_strv_fini(&w->sonames);
    cu_strv_fini(&w->paths);
    cu_strv_fini(&w->owned);
    cu_strv_fini(&w->owner);
    free(w->dup_soname);
    free(w->dup_a);
    free(w->dup_b);
}

const char *
cu_envwheels_file(const struct cu_envwheels *w, const char *soname)
{
    for (size_t i = 0; i < w->sonames.n; i++)
        if (strcmp(w->sonames.v[i], soname) == 0)
            return w->paths.v[i];
    return NULL;
}

const char *
cu_envwheels_owner(const struct cu_envwheels *w, const char *path)
{
    for (size_t i = 0; i < w->owned.n; i++)
        if (strcmp(w->owned.v[i], path) == 0)
            return w->owner.v[i];
    return NULL;
}

