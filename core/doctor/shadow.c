/* SPDX-License-Identifier: MIT */
/* Shadowing in the machine's Python environments, found without importing anything: see shadow.h. */
#include "config.h"

#include "core/doctor/shadow.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/machine/ldpath.h"
#include "core/resolve/plan.h"

#define MAX_OBJECTS 128

static void
list_dir(const struct cu_sysroot *root, const char *dir, struct cu_strv *out)
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

/* The CUDA libraries an environment's wheels hold: soname -> file (the first of each), and which are twice. */
struct wheels {
    struct cu_strv sonames, paths;
    char *dup_soname, *dup_a, *dup_b; /* a soname found in two folders, or NULL */
};

static void
add_lib(const struct cu_sysroot *root, struct wheels *w, const char *dir, const char *name)
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

static void
scan_wheels(const struct cu_sysroot *root, const char *sp, struct wheels *w)
{
    static const char *const own[] = {"torch/lib", "tensorflow", "jax_plugins/xla_cuda12", "jax_plugins/xla_cuda13"};
    CU_AUTOFREE char *nv = cu_path_join(sp, "nvidia");
    struct cu_strv pkgs;
    cu_strv_init(&pkgs);
    list_dir(root, nv, &pkgs);
    for (size_t i = 0; i < pkgs.n; i++) {
        CU_AUTOFREE char *lib = cu_xasprintf("%s/%s/lib", nv, pkgs.v[i]);
        struct cu_strv names;
        cu_strv_init(&names);
        list_dir(root, lib, &names);
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
        list_dir(root, dir, &names);
        for (size_t k = 0; k < names.n; k++)
            add_lib(root, w, dir, names.v[k]);
        cu_strv_fini(&names);
    }
}

static void
wheels_fini(struct wheels *w)
{
    cu_strv_fini(&w->sonames);
    cu_strv_fini(&w->paths);
    free(w->dup_soname);
    free(w->dup_a);
    free(w->dup_b);
}

static const char *
wheel_of(const struct wheels *w, const char *soname)
{
    for (size_t i = 0; i < w->sonames.n; i++)
        if (strcmp(w->sonames.v[i], soname) == 0)
            return w->paths.v[i];
    return NULL;
}

/* The framework's own shared objects that ask the loader for CUDA (by DT_NEEDED or dlopen). */
static void
key_objects(const char *framework, const char *sp, struct cu_strv *out)
{
    static const struct {
        const char *fw, *rel;
    } keys[] = {
        {"pytorch", "torch/lib/libtorch_cuda.so"},
        {"pytorch", "torch/lib/libc10_cuda.so"},
        {"tensorflow", "tensorflow/libtensorflow_framework.so.2"},
        {"tensorflow", "tensorflow/libtensorflow_cc.so.2"},
        {"tensorflow", "tensorflow/python/_pywrap_tensorflow_internal.so"},
        {"jax", "jax_plugins/xla_cuda12/xla_cuda_plugin.so"},
        {"jax", "jax_plugins/xla_cuda13/xla_cuda_plugin.so"},
    };
    for (size_t i = 0; i < CU_N_ELEMENTS(keys); i++)
        if (strcmp(keys[i].fw, framework) == 0)
            cu_strv_push_owned(out, cu_path_join(sp, keys[i].rel));
}

static bool
under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* The release a library file is, from the name its links end at (libcudnn.so.8 -> libcudnn.so.8.1.0). */
static bool
file_version(const struct cu_sysroot *root, const char *path, struct cu_version *v)
{
    CU_AUTOFREE char *cur = cu_xstrdup(path);
    for (int hop = 0; hop < 8; hop++) {
        char *target = cu_sysroot_readlink(root, cur);
        if (!target)
            break;
        char *next = target[0] == '/' ? cu_xstrdup(target) : cu_xasprintf("%.*s/%s", (int)(strrchr(cur, '/') - cur), cur, target);
        free(target);
        free(cur);
        cur = next;
    }
    const char *so = strstr(strrchr(cur, '/') ? strrchr(cur, '/') : cur, ".so.");
    return so && cu_version_parse(so + 4, v) && v->n >= 2;
}

struct walk {
    const struct cu_sysroot *root;
    const char *llp;
    const struct cu_ldconf *conf;
    struct cu_strv loaded;   /* sonames the walk has loaded */
    struct cu_strv queue;    /* objects to read, in the loader's breadth-first order */
    /* the first library that resolves outside the environment although a wheel of it holds it */
    char *soname, *found, *wheel, *by;
    enum cu_ld_via via;
    size_t n_shadowed;
};

/* Load what object @obj asks for (and, with @key, every CUDA library the wheels hold: what a framework that
 * dlopens them by name, TensorFlow or JAX, asks for), as the loader would. */
static void
walk_object(struct walk *wk, const char *obj, bool key, const struct wheels *w, const char *sp)
{
    struct cu_elf_dyn d;
    struct cu_error e;
    if (cu_elf_dyn_read(wk->root, obj, &d, &e) != CU_OK)
        return;
    struct cu_strv want;
    cu_strv_init(&want);
    for (size_t i = 0; i < d.n_needed; i++)
        if (cu_ld_cuda_lib(d.needed[i]))
            cu_strv_push(&want, d.needed[i]);
    for (size_t i = 0; key && i < w->sonames.n; i++)
        if (!cu_strv_contains(&want, w->sonames.v[i]))
            cu_strv_push(&want, w->sonames.v[i]);
    for (size_t i = 0; i < want.n; i++) {
        const char *s = want.v[i];
        if (cu_strv_contains(&wk->loaded, s))
            continue; /* loaded already: the loader takes that one */
        struct cu_ld_hit hit;
        if (!cu_ld_find(wk->root, s, obj, &d, wk->llp, wk->conf, &hit))
            continue;
        cu_strv_push(&wk->loaded, s);
        const char *own = wheel_of(w, s);
        if (own && !under(hit.path, sp)) {
            if (!wk->soname) {
                wk->soname = cu_xstrdup(s);
                wk->found = cu_xstrdup(hit.path);
                wk->wheel = cu_xstrdup(own);
                wk->by = cu_xstrdup(obj);
                wk->via = hit.via;
            }
            wk->n_shadowed++;
        }
        if (wk->queue.n < MAX_OBJECTS)
            cu_strv_push(&wk->queue, hit.path);
        free(hit.path);
    }
    cu_strv_fini(&want);
    cu_elf_dyn_fini(&d);
}

/* LD_LIBRARY_PATH as the user's shells have it: this one's, and before it what cudaup's env.sh adds. */
static char *
effective_llp(const char *const *envp, const char *state_dir)
{
    static const char key[] = "*) LD_LIBRARY_PATH='";
    const char *llp = cu_env_get(envp, "LD_LIBRARY_PATH");
    CU_AUTOFREE char *envsh = state_dir ? cu_path_join(state_dir, "env.sh") : NULL;
    CU_AUTOFREE char *text = NULL;
    struct cu_error e;
    struct cu_buf b;
    cu_buf_init(&b);
    const char *p = envsh && cu_read_file(envsh, 1 << 16, &text, NULL, &e) == CU_OK ? strstr(text, key) : NULL;
    const char *q = p ? strchr(p + strlen(key), '\'') : NULL;
    if (q) {
        CU_AUTOFREE char *dir = cu_xstrndup(p + strlen(key), (size_t)(q - p - strlen(key)));
        CU_AUTOFREE char *wrapped = cu_xasprintf(":%s:", llp ? llp : "");
        CU_AUTOFREE char *needle = cu_xasprintf(":%s:", dir);
        if (!strstr(wrapped, needle))
            cu_buf_printf(&b, "%s", dir);
    }
    if (llp && *llp)
        cu_buf_printf(&b, "%s%s", b.len ? ":" : "", llp);
    if (!b.len) {
        cu_buf_fini(&b);
        return NULL;
    }
    return cu_buf_steal(&b);
}

static void
check_env(const struct cu_sysroot *root, const struct cu_fwenv *fe, const char *llp, const struct cu_ldconf *conf,
          const char *const *envp, const char *state_dir, struct cu_problems *out)
{
    char b1[32], b2[32];
    const char *title = cu_framework_title(fe->framework);
    const char *ver = fe->version ? fe->version : "?";
    CU_AUTOFREE char *lib = cu_path_join(fe->path, "lib");
    struct cu_strv pys;
    cu_strv_init(&pys);
    list_dir(root, lib, &pys);
    for (size_t p = 0; p < pys.n; p++) {
        if (strncmp(pys.v[p], "python3", 7) != 0)
            continue;
        CU_AUTOFREE char *sp = cu_xasprintf("%s/%s/site-packages", lib, pys.v[p]);
        struct wheels w = {0};
        cu_strv_init(&w.sonames);
        cu_strv_init(&w.paths);
        scan_wheels(root, sp, &w);
        struct walk wk = {.root = root, .llp = llp, .conf = conf};
        cu_strv_init(&wk.loaded);
        cu_strv_init(&wk.queue);
        struct cu_strv keys;
        cu_strv_init(&keys);
        key_objects(fe->framework, sp, &keys);
        for (size_t k = 0; k < keys.n; k++)
            if (cu_sysroot_exists(root, keys.v[k]))
                walk_object(&wk, keys.v[k], strcmp(fe->framework, "pytorch") != 0, &w, sp);
        for (size_t q = 0; q < wk.queue.n; q++) /* their own dependencies, in the loader's order */
            walk_object(&wk, wk.queue.v[q], false, &w, sp);
        if (wk.soname) {
            CU_AUTOFREE char *dir = cu_xstrdup(wk.found);
            *strrchr(dir, '/') = '\0';
            char *why = NULL, *fix = NULL;
            cu_ld_blame(root, envp, state_dir, conf, wk.via, llp, dir, fe->path, &why, &fix);
            cu_problems_add(out, "framework-cuda-shadowed", CU_SEV_WARNING,
                            wk.n_shadowed > 1
                                ? cu_xasprintf(ngettext_("%s %s in %s would load %s from %s, not its own %s (and %zu more library from outside the environment): %s.",
                                                         "%s %s in %s would load %s from %s, not its own %s (and %zu more libraries from outside the environment): %s.",
                                                         wk.n_shadowed - 1),
                                               title, ver, fe->path, wk.soname, wk.found, wk.wheel, wk.n_shadowed - 1, why)
                                : cu_xasprintf(_("%s %s in %s would load %s from %s, not its own %s: %s."), title, ver,
                                               fe->path, wk.soname, wk.found, wk.wheel, why),
                            fix);
            free(why);
        }
        /* A framework without CUDA wheels of its own: its cuDNN must be the release it was built with, or newer. */
        struct cu_version want, have;
        if (!fe->bundled && !w.sonames.n && fe->cudnn_build && cu_version_parse(fe->cudnn_build, &want) && want.n >= 2) {
            CU_AUTOFREE char *so = cu_xasprintf("libcudnn.so.%u", want.part[0]);
            for (size_t k = 0; k < keys.n; k++) {
                struct cu_elf_dyn d;
                struct cu_error e;
                struct cu_ld_hit hit;
                if (cu_elf_dyn_read(root, keys.v[k], &d, &e) != CU_OK)
                    continue;
                bool found = cu_ld_find(root, so, keys.v[k], &d, llp, conf, &hit);
                cu_elf_dyn_fini(&d);
                if (!found)
                    continue;
                if (file_version(root, hit.path, &have) && have.part[0] == want.part[0] &&
                    cu_version_cmp(&(struct cu_version){{have.part[0], have.part[1]}, 2}, &want) < 0) {
                    CU_AUTOFREE char *dir = cu_xstrdup(hit.path);
                    *strrchr(dir, '/') = '\0';
                    char *why = NULL, *fix = NULL;
                    cu_ld_blame(root, envp, state_dir, conf, hit.via, llp, dir, fe->path, &why, &fix);
                    cu_problems_add(out, "framework-cuda-shadowed", CU_SEV_WARNING,
                                    cu_xasprintf(_("%s %s in %s was built with cuDNN %s but would load cuDNN %s from %s: %s."),
                                                 title, ver, fe->path, cu_version_format(&want, 0, b1, sizeof(b1)),
                                                 cu_version_format(&have, 0, b2, sizeof(b2)), hit.path, why),
                                    fix);
                    free(why);
                }
                free(hit.path);
                break;
            }
        }
        if (w.dup_soname)
            cu_problems_add(out, "framework-cuda-duplicate", CU_SEV_WARNING,
                            cu_xasprintf(_("%s in %s holds %s twice, %s and %s: in one process the first loaded wins, and whatever expects the other gets it."),
                                         title, fe->path, w.dup_soname, w.dup_a, w.dup_b),
                            cu_xstrdup(_("give each framework an environment of its own (cudaup install --framework A --framework B), or remove the copy the framework does not pin")));
        cu_strv_fini(&keys);
        cu_strv_fini(&wk.loaded);
        cu_strv_fini(&wk.queue);
        free(wk.soname);
        free(wk.found);
        free(wk.wheel);
        free(wk.by);
        wheels_fini(&w);
    }
    cu_strv_fini(&pys);
}

/* Two cuDNN distributions in one environment: they install the same files, the second over the first. */
static void
check_two_cudnn(const struct cu_sysroot *root, const char *env, struct cu_problems *out)
{
    CU_AUTOFREE char *lib = cu_path_join(env, "lib");
    struct cu_strv pys;
    cu_strv_init(&pys);
    list_dir(root, lib, &pys);
    for (size_t p = 0; p < pys.n; p++) {
        CU_AUTOFREE char *sp = cu_xasprintf("%s/%s/site-packages", lib, pys.v[p]);
        struct cu_strv ents, dists;
        cu_strv_init(&ents);
        cu_strv_init(&dists);
        list_dir(root, sp, &ents);
        for (size_t i = 0; i < ents.n; i++) {
            const char *dot = strstr(ents.v[i], ".dist-info");
            if (strncasecmp(ents.v[i], "nvidia_cudnn_cu", 15) == 0 && dot && !dot[10]) {
                CU_AUTOFREE char *d = cu_xstrndup(ents.v[i], (size_t)(dot - ents.v[i]));
                char *dash = strchr(d, '-');
                if (dash)
                    *dash = ' ';
                for (char *c = d; *c && c < (dash ? dash : d + strlen(d)); c++)
                    *c = *c == '_' ? '-' : *c;
                cu_strv_push(&dists, d);
            }
        }
        if (dists.n > 1)
            cu_problems_add(out, "framework-cudnn-two", CU_SEV_WARNING,
                            cu_xasprintf(_("%s holds two cuDNN distributions, %s and %s: both install nvidia/cudnn/lib, the second over the first, and the frameworks of one of them load the other's cuDNN."),
                                         env, dists.v[0], dists.v[1]),
                            cu_xstrdup(_("give each framework an environment of its own (cudaup install --framework A --framework B), or let cudaup plan releases that share one cuDNN (cudaup install --framework A,B)")));
        cu_strv_fini(&ents);
        cu_strv_fini(&dists);
    }
    cu_strv_fini(&pys);
}

void
cu_fwenvs_shadow(const struct cu_sysroot *root, const struct cu_fwenvs *e, size_t from, const char *const *envp,
                 const char *state_dir, const atomic_int *cancel, struct cu_problems *out)
{
    struct cu_ldconf conf;
    cu_ldconf_read(root, cancel, &conf);
    CU_AUTOFREE char *llp = effective_llp(envp, state_dir);
    for (size_t i = from; i < e->n; i++) {
        bool first_of_env = true;
        for (size_t k = from; k < i && first_of_env; k++)
            first_of_env = strcmp(e->v[k].path, e->v[i].path) != 0;
        if (first_of_env)
            check_two_cudnn(root, e->v[i].path, out);
        if (!e->v[i].cpu_only)
            check_env(root, &e->v[i], llp, &conf, envp, state_dir, out);
    }
    cu_ldconf_fini(&conf);
}
