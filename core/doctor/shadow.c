/* SPDX-License-Identifier: MIT */
/* Shadowing in the machine's Python environments, found without importing anything: see shadow.h. */
#include "config.h"

#include "core/doctor/shadow.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/machine/ldpath.h"
#include "core/machine/ldwalk.h"
#include "core/resolve/plan.h"

#define MAX_FW 3
#define MAX_LIB_LOADS 32

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

static bool
under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* ---- what the environment's wheels hold ------------------------------------------------------ */

/* The CUDA libraries an environment's wheels hold: soname -> file (the first of each), which are twice, and
 * the nvidia-* distribution each file of theirs belongs to. */
struct wheels {
    struct cu_strv sonames, paths;
    char *dup_soname, *dup_a, *dup_b; /* a soname found in two folders, or NULL */
    struct cu_strv owned, owner;      /* a file under site-packages -> "nvidia-cudnn-cu13 9.26.0.51" */
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

/* Which nvidia-* distribution wrote each shared object of nvidia/ (their RECORDs). */
static void
scan_records(const struct cu_sysroot *root, const char *sp, struct wheels *w)
{
    struct cu_strv ents;
    cu_strv_init(&ents);
    list_dir(root, sp, &ents);
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
    scan_records(root, sp, w);
}

static void
wheels_fini(struct wheels *w)
{
    cu_strv_fini(&w->sonames);
    cu_strv_fini(&w->paths);
    cu_strv_fini(&w->owned);
    cu_strv_fini(&w->owner);
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

static const char *
owner_of(const struct wheels *w, const char *path)
{
    for (size_t i = 0; i < w->owned.n; i++)
        if (strcmp(w->owned.v[i], path) == 0)
            return w->owner.v[i];
    return NULL;
}

/* ---- the walk ---------------------------------------------------------------------------------- */

/* One framework of the environment and the dlopen() calls recorded for its release. */
struct fw {
    const struct cu_fwenv *env;
    const struct cu_cat_fw_loads *loads;
    bool exact; /* recorded for this very release */
};

/* The CUDA major of a framework's build ("13.2" -> 13, "cuda13" -> 13), 0 when unknown. */
static int
cuda_major(const struct cu_fwenv *e)
{
    struct cu_version v;
    return e->cuda_build && cu_version_parse(e->cuda_build, &v) ? (int)v.part[0] : 0;
}

/* The first file of site-packages @sp matching @rel, a path whose last part may be a glob; NULL when none. */
static char *
resolve_rel(const struct cu_sysroot *root, const char *sp, const char *rel)
{
    CU_AUTOFREE char *full = cu_path_join(sp, rel);
    if (!strpbrk(rel, "*?["))
        return cu_sysroot_exists(root, full) ? cu_steal_ptr(&full) : NULL;
    char *slash = strrchr(full, '/');
    *slash = '\0';
    struct cu_strv names;
    cu_strv_init(&names);
    list_dir(root, full, &names);
    char *hit = NULL;
    for (size_t i = 0; i < names.n && !hit; i++)
        if (fnmatch(slash + 1, names.v[i], 0) == 0)
            hit = cu_xasprintf("%s/%s", full, names.v[i]);
    cu_strv_fini(&names);
    return hit;
}

/* The object a recorded call is made by: -1 for Python, -2 when it is not loaded (the call does not happen). */
static int
caller_of(const struct cu_sysroot *root, const struct cu_ldsim *sim, const char *sp, const char *caller)
{
    if (strcmp(caller, "python") == 0)
        return -1;
    if (cu_str_has_prefix(caller, "soname:")) {
        int i = cu_ldsim_loaded(sim, caller + 7);
        return i >= 0 ? i : -2;
    }
    CU_AUTOFREE char *path = resolve_rel(root, sp, caller);
    int i = path ? cu_ldsim_file(sim, path) : -1;
    return i >= 0 ? i : -2;
}

/* The framework's own shared objects that ask the loader for CUDA (by DT_NEEDED, or by name with dlopen), for
 * a release whose dlopen() calls are not recorded (or whose recorded neighbour has files this one lacks). */
static const struct {
    const char *fw, *rel;
} key_objects[] = {
    {"pytorch", "torch/lib/libtorch_cuda.so"},
    {"pytorch", "torch/lib/libc10_cuda.so"},
    {"tensorflow", "tensorflow/libtensorflow_framework.so.2"},
    {"tensorflow", "tensorflow/libtensorflow_cc.so.2"},
    {"tensorflow", "tensorflow/python/_pywrap_tensorflow_internal.so"},
    {"jax", "jax_plugins/xla_cuda12/xla_cuda_plugin.so"},
    {"jax", "jax_plugins/xla_cuda13/xla_cuda_plugin.so"},
};

/*
 * Unrecorded: each key object is loaded at import with its DT_NEEDED; on GPU work TensorFlow's and JAX's ask
 * the loader by name for every CUDA library the environment's wheels hold (their dso_loader lists), PyTorch's
 * nothing more (its CUDA libraries are its DT_NEEDED).
 */
static void
run_generic(const struct cu_sysroot *root, struct cu_ldsim *sim, const char *sp, const struct fw *f, int fw_index,
            enum cu_load_stage stage, const struct cu_strv *wheel_sonames)
{
    for (size_t k = 0; k < CU_N_ELEMENTS(key_objects); k++) {
        if (strcmp(key_objects[k].fw, f->env->framework) != 0)
            continue;
        CU_AUTOFREE char *path = resolve_rel(root, sp, key_objects[k].rel);
        if (!path)
            continue;
        sim->tag = fw_index * 4 + (int)stage;
        if (stage == CU_LOAD_IMPORT) {
            cu_ldsim_dlopen(sim, path, -1);
        } else if (stage == CU_LOAD_GPU && strcmp(f->env->framework, "pytorch") != 0) {
            int caller = cu_ldsim_file(sim, path);
            for (size_t i = 0; caller >= 0 && i < wheel_sonames->n; i++)
                cu_ldsim_dlopen(sim, wheel_sonames->v[i], caller);
        }
    }
}

/* Does a neighbour's recording describe this build: the files its Python loads by path at import, of the
 * framework's own package, are there? */
static bool
recording_fits(const struct cu_sysroot *root, const char *sp, const struct cu_cat_fw_loads *l)
{
    for (size_t k = 0; k < l->n; k++) {
        const struct cu_cat_load *c = &l->v[k];
        if (c->stage != CU_LOAD_IMPORT || !c->by_path || strcmp(c->caller, "python") != 0 ||
            cu_str_has_prefix(c->target, "nvidia/"))
            continue;
        CU_AUTOFREE char *path = resolve_rel(root, sp, c->target);
        if (!path)
            return false;
    }
    return true;
}

static void
run_stage(const struct cu_sysroot *root, struct cu_ldsim *sim, const char *sp, const struct fw *f, int fw_index,
          enum cu_load_stage stage, const struct cu_strv *wheel_sonames)
{
    if (!f->loads) {
        run_generic(root, sim, sp, f, fw_index, stage, wheel_sonames);
        return;
    }
    for (size_t k = 0; k < f->loads->n; k++) {
        const struct cu_cat_load *l = &f->loads->v[k];
        if (l->stage != stage)
            continue;
        int caller = caller_of(root, sim, sp, l->caller);
        if (caller == -2)
            continue;
        sim->tag = fw_index * 4 + (int)stage;
        if (l->by_path) {
            CU_AUTOFREE char *path = resolve_rel(root, sp, l->target);
            if (path)
                cu_ldsim_dlopen(sim, path, caller);
        } else {
            cu_ldsim_dlopen(sim, l->target, caller);
        }
    }
}

/* On GPU work, NVIDIA's libraries load what they dlopen by name (cuDNN's sub-libraries): for each loaded one,
 * the names recorded for its own wheel's release. */
static void
run_lib_loads(const struct cu_catalog *cat, struct cu_ldsim *sim, const struct wheels *w)
{
    for (size_t i = 0; i < sim->n; i++) {
        const struct cu_cat_lib_load *rows[MAX_LIB_LOADS];
        const char *owner = owner_of(w, sim->v[i].path);
        CU_AUTOFREE char *pkg = owner ? cu_xstrndup(owner, strcspn(owner, " ")) : NULL;
        struct cu_version v = {{0}, 0};
        if (owner && strchr(owner, ' ') && !cu_version_parse(strchr(owner, ' ') + 1, &v))
            v.n = 0;
        if (!owner) {
            /* A library from outside the environment: judged by the rows of the environment's own copy. */
            const char *own = wheel_of(w, sim->v[i].soname);
            const char *o2 = own ? owner_of(w, own) : NULL;
            if (o2) {
                pkg = cu_xstrndup(o2, strcspn(o2, " "));
                if (strchr(o2, ' ') && !cu_version_parse(strchr(o2, ' ') + 1, &v))
                    v.n = 0;
            }
        }
        CU_AUTOFREE char *soname = cu_xstrdup(sim->v[i].soname);
        size_t n = cu_catalog_lib_loads(&cat->loads, soname, pkg, &v, rows, MAX_LIB_LOADS);
        for (size_t k = 0; k < n; k++) {
            sim->tag = sim->v[i].tag / 4 * 4 + CU_LOAD_GPU; /* for the framework whose load brought the caller */
            cu_ldsim_dlopen(sim, rows[k]->target, (int)i);
        }
    }
}

/* ---- what to say ------------------------------------------------------------------------------- */

/* One walk: the frameworks imported, in this order (all of them, or one alone). */
struct order {
    int fw[MAX_FW];
    size_t n;
};

/* A library that would come from outside its wheel, in one or more of the orders walked. */
struct finding {
    unsigned fws;       /* bit i: framework i's calls load it (in some order) */
    enum cu_load_stage stage;
    char *soname, *path, *real, *wheel, *by;
    enum cu_ld_via via;
    const char *via_file;
    char *dir;          /* the folder it is found in */
    unsigned orders;    /* bit i: found in order i */
    char *twin;         /* "mapped twice": the other file of that soname, or NULL */
};

struct findings {
    struct finding *v;
    size_t n;
};

static struct finding *
find_or_add(struct findings *fs, const struct cu_ldobj *o, const char *twin)
{
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->v[i].soname, o->soname) == 0 && strcmp(fs->v[i].real, o->real) == 0 && !fs->v[i].twin == !twin) {
            if ((enum cu_load_stage)(o->tag % 4) < fs->v[i].stage)
                fs->v[i].stage = (enum cu_load_stage)(o->tag % 4); /* the earliest it happens at */
            return &fs->v[i];
        }
    fs->v = cu_xreallocarray(fs->v, fs->n + 1, sizeof(*fs->v));
    struct finding *f = &fs->v[fs->n++];
    memset(f, 0, sizeof(*f));
    f->soname = cu_xstrdup(o->soname);
    f->path = cu_xstrdup(o->path);
    f->real = cu_xstrdup(o->real);
    f->via = o->via;
    f->via_file = o->via_file;
    f->stage = (enum cu_load_stage)(o->tag % 4);
    f->dir = cu_xstrdup(o->path);
    *strrchr(f->dir, '/') = '\0';
    f->twin = twin ? cu_xstrdup(twin) : NULL;
    return f;
}

static void
findings_fini(struct findings *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->v[i].soname);
        free(fs->v[i].path);
        free(fs->v[i].real);
        free(fs->v[i].wheel);
        free(fs->v[i].by);
        free(fs->v[i].dir);
        free(fs->v[i].twin);
    }
    free(fs->v);
}

static const char *
stage_words(enum cu_load_stage s)
{
    return s == CU_LOAD_IMPORT ? _("at import") : s == CU_LOAD_USE ? _("on its first use") : _("on GPU work");
}

static const char *
stage_name(enum cu_load_stage s)
{
    return s == CU_LOAD_IMPORT ? "import" : s == CU_LOAD_USE ? "use" : "gpu";
}

/* What one walk loaded, as the doctor document's "framework_loads" entry. */
static json_t *
walk_json(const struct cu_ldsim *sim, const char *env, const struct fw *fws, const struct order *order,
          const struct wheels *w, const char *sp)
{
    json_t *o = json_object(), *ord = json_array(), *libs = json_array();
    json_object_set_new(o, "path", json_string(env));
    for (size_t i = 0; i < order->n; i++)
        json_array_append_new(ord, json_string(fws[order->fw[i]].env->framework));
    json_object_set_new(o, "order", ord);
    for (size_t i = 0; i < sim->n; i++) {
        const struct cu_ldobj *ob = &sim->v[i];
        if (!cu_ld_cuda_lib(ob->soname))
            continue;
        json_t *l = json_object();
        const char *own = wheel_of(w, ob->soname);
        json_object_set_new(l, "name", json_string(ob->soname));
        json_object_set_new(l, "path", json_string(ob->path));
        json_object_set_new(l, "real", json_string(ob->real));
        json_object_set_new(l, "via", json_string(cu_ld_via_name(ob->via)));
        json_object_set_new(l, "file", cu_json_str_or_null(ob->via_file));
        json_object_set_new(l, "framework", json_string(fws[order->fw[ob->tag / 4]].env->framework));
        json_object_set_new(l, "stage", json_string(stage_name((enum cu_load_stage)(ob->tag % 4))));
        json_object_set_new(l, "wheel", cu_json_str_or_null(own));
        json_object_set_new(l, "outside", json_boolean(!under(ob->real, sp) && !under(ob->path, sp)));
        json_array_append_new(libs, l);
    }
    json_object_set_new(o, "libraries", libs);
    return o;
}

/* "when imported in the order JAX, PyTorch; when JAX is imported alone": every walk it happens in, when it does not
 * happen in every walk. */
static char *
order_words(const struct fw *fws, const struct order *orders, size_t n_orders, unsigned mask)
{
    if (n_orders < 2 || mask == (1u << n_orders) - 1)
        return NULL;
    struct cu_buf all;
    cu_buf_init(&all);
    for (size_t k = 0; k < n_orders; k++) {
        if (!(mask & (1u << k)))
            continue;
        const struct order *o = &orders[k];
        char *one;
        if (o->n == 1) {
            one = cu_xasprintf(_("when %s is imported alone"), cu_framework_title(fws[o->fw[0]].env->framework));
        } else {
            struct cu_buf b;
            cu_buf_init(&b);
            for (size_t i = 0; i < o->n; i++)
                cu_buf_printf(&b, "%s%s", i ? ", " : "", cu_framework_title(fws[o->fw[i]].env->framework));
            one = cu_xasprintf(_("when imported in the order %s"), b.data);
            cu_buf_fini(&b);
        }
        cu_buf_printf(&all, "%s%s", all.len ? "; " : "", one);
        free(one);
    }
    return cu_buf_steal(&all);
}

/* "PyTorch 2.15.0" or "PyTorch 2.15.0 and JAX 0.10.2": the frameworks of mask @m. Caller frees. */
static char *
titles(const struct fw *fws, size_t n_fw, unsigned m)
{
    struct cu_buf b;
    cu_buf_init(&b);
    size_t n = 0, total = 0;
    for (size_t i = 0; i < n_fw; i++)
        total += (m >> i) & 1u;
    for (size_t i = 0; i < n_fw; i++) {
        if (!((m >> i) & 1u))
            continue;
        const struct cu_fwenv *fe = fws[i].env;
        cu_buf_printf(&b, "%s%s %s", n == 0 ? "" : n + 1 == total ? _(" and ") : ", ", cu_framework_title(fe->framework),
                      fe->version ? fe->version : "?");
        n++;
    }
    return cu_buf_steal(&b);
}

static void
say(const struct cu_sysroot *root, const struct fw *fws, size_t n_fw, const struct order *orders, size_t n_orders,
    struct findings *fs, const char *env, const char *llp, const struct cu_ldconf *conf, const char *const *envp,
    const char *state_dir, struct cu_problems *out)
{
    bool *said = cu_xcalloc(fs->n + 1, sizeof(bool));
    for (size_t i = 0; i < fs->n; i++) {
        if (said[i])
            continue;
        const struct finding *f = &fs->v[i];
        CU_AUTOFREE char *who = titles(fws, n_fw, f->fws);
        char *why = NULL, *fix = NULL;
        cu_ld_blame(root, envp, state_dir, conf, f->via, llp, f->dir, env, &why, &fix);
        if (f->twin) {
            said[i] = true;
            CU_AUTOFREE char *when = order_words(fws, orders, n_orders, f->orders);
            cu_problems_add(out, "framework-cuda-duplicate", CU_SEV_WARNING,
                            when ? cu_xasprintf(_("%s in %s would map %s twice, %s from its wheel and %s, %s (%s): whatever asks for it by name gets the one loaded first: %s."),
                                                who, env, f->soname, f->twin, f->path, stage_words(f->stage), when, why)
                                 : cu_xasprintf(_("%s in %s would map %s twice, %s from its wheel and %s, %s: whatever asks for it by name gets the one loaded first: %s."),
                                                who, env, f->soname, f->twin, f->path, stage_words(f->stage), why),
                            fix);
            free(why);
            continue;
        }
        /* Every library of this framework from the same folder by the same cause: one problem naming each. */
        struct cu_buf list;
        cu_buf_init(&list);
        size_t n = 0;
        for (size_t k = i; k < fs->n; k++) {
            const struct finding *g = &fs->v[k];
            if (said[k] || g->twin || g->fws != f->fws || g->via != f->via || strcmp(g->dir, f->dir) != 0)
                continue;
            said[k] = true;
            CU_AUTOFREE char *when = order_words(fws, orders, n_orders, g->orders);
            CU_AUTOFREE char *item = when ? cu_xasprintf(_("%s from %s, not its own %s (%s, %s)"), g->soname, g->path, g->wheel,
                                                         stage_words(g->stage), when)
                                          : cu_xasprintf(_("%s from %s, not its own %s (%s)"), g->soname, g->path, g->wheel,
                                                         stage_words(g->stage));
            cu_buf_printf(&list, "%s%s", n ? "; " : "", item);
            n++;
        }
        cu_problems_add(out, "framework-cuda-shadowed", CU_SEV_WARNING,
                        n == 1 ? cu_xasprintf(_("%s in %s would load %s: %s."), who, env, list.data, why)
                               : cu_xasprintf(ngettext_("%s in %s would load %zu library from outside the environment: %s: %s.",
                                                        "%s in %s would load %zu libraries from outside the environment: %s: %s.", n),
                                              who, env, n, list.data, why),
                        cu_steal_ptr(&fix));
        cu_buf_fini(&list);
        free(why);
        free(fix);
    }
    free(said);
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

/*
 * A framework without CUDA wheels of its own loads the system's cuDNN: it must be the release it was built with,
 * or newer.  The object that asks for it is the one its recorded GPU work dlopens cuDNN from; the name is the
 * build's major (TSL's dso_loader: lib + name + .so. + version).
 */
static void
check_system_cudnn(const struct cu_sysroot *root, const struct fw *f, const char *sp, const char *llp,
                   const struct cu_ldconf *conf, const char *const *envp, const char *state_dir, struct cu_problems *out)
{
    char b1[32], b2[32];
    const struct cu_fwenv *fe = f->env;
    struct cu_version want, have;
    if (fe->bundled || !fe->cudnn_build || !cu_version_parse(fe->cudnn_build, &want) || want.n < 2)
        return;
    CU_AUTOFREE char *so = cu_xasprintf("libcudnn.so.%u", want.part[0]);
    /* The objects that ask for cuDNN: the recorded callers, else the framework's own key objects. */
    struct cu_strv callers;
    cu_strv_init(&callers);
    for (size_t k = 0; f->loads && k < f->loads->n; k++) {
        const struct cu_cat_load *l = &f->loads->v[k];
        if (!l->by_path && cu_str_has_prefix(l->target, "libcudnn.so.") && strcmp(l->caller, "python") != 0 &&
            !cu_str_has_prefix(l->caller, "soname:"))
            cu_strv_push(&callers, l->caller);
    }
    for (size_t k = 0; !f->loads && k < CU_N_ELEMENTS(key_objects); k++)
        if (strcmp(key_objects[k].fw, fe->framework) == 0)
            cu_strv_push(&callers, key_objects[k].rel);
    for (size_t k = 0; k < callers.n; k++) {
        CU_AUTOFREE char *obj = resolve_rel(root, sp, callers.v[k]);
        struct cu_elf_dyn d;
        struct cu_error e;
        struct cu_ld_hit hit;
        if (!obj || cu_elf_dyn_read(root, obj, &d, &e) != CU_OK)
            continue;
        bool found = cu_ld_find(root, so, obj, &d, llp, conf, &hit);
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
                                         cu_framework_title(fe->framework), fe->version ? fe->version : "?", fe->path,
                                         cu_version_format(&want, 0, b1, sizeof(b1)),
                                         cu_version_format(&have, 0, b2, sizeof(b2)), hit.path, why),
                            fix);
            free(why);
        }
        free(hit.path);
        break;
    }
    cu_strv_fini(&callers);
}

/* Two cuDNN distributions in one environment: they install the same files, the second over the first. */
static void
check_two_cudnn(const struct cu_sysroot *root, const char *env, const char *sp, struct cu_problems *out)
{
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

/* Every order of @n frameworks (n <= 3), the environment's own first, then each framework alone (a program that
 * imports one of them). */
static size_t
orders_of(size_t n, struct order *out)
{
    static const int p3[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    static const int p2[2][3] = {{0, 1, 0}, {1, 0, 0}};
    size_t k = n == 3 ? 6 : n == 2 ? 2 : 1;
    for (size_t i = 0; i < k; i++) {
        for (size_t j = 0; j < MAX_FW; j++)
            out[i].fw[j] = n == 3 ? p3[i][j] : n == 2 ? p2[i][j] : 0;
        out[i].n = n;
    }
    for (size_t i = 0; n > 1 && i < n; i++) {
        memset(&out[k], 0, sizeof(out[k]));
        out[k].fw[0] = (int)i;
        out[k++].n = 1;
    }
    return k;
}

/* One environment's frameworks @fws (all in site-packages @sp), walked in every order they can be imported in. */
static void
walk_env(const struct cu_sysroot *root, const struct cu_catalog *cat, struct fw *fws, size_t n_fw, const char *env,
         const char *sp, const char *llp, const struct cu_ldconf *conf, const char *const *envp, const char *state_dir,
         struct cu_problems *out, json_t *loads_out)
{
    struct wheels w;
    memset(&w, 0, sizeof(w));
    cu_strv_init(&w.sonames);
    cu_strv_init(&w.paths);
    cu_strv_init(&w.owned);
    cu_strv_init(&w.owner);
    scan_wheels(root, sp, &w);
    struct order orders[9];
    size_t n_orders = orders_of(n_fw, orders);
    struct findings fs = {NULL, 0};
    for (size_t o = 0; o < n_orders; o++) {
        struct cu_ldsim sim;
        cu_ldsim_init(&sim, root, llp, conf);
        /* Each framework's import, then the calls before its GPU work, one after the other (as verify's probe
         * imports them); then GPU work. */
        for (size_t i = 0; i < orders[o].n; i++) {
            run_stage(root, &sim, sp, &fws[orders[o].fw[i]], (int)i, CU_LOAD_IMPORT, &w.sonames);
            run_stage(root, &sim, sp, &fws[orders[o].fw[i]], (int)i, CU_LOAD_USE, &w.sonames);
        }
        for (size_t i = 0; i < orders[o].n; i++)
            run_stage(root, &sim, sp, &fws[orders[o].fw[i]], (int)i, CU_LOAD_GPU, &w.sonames);
        run_lib_loads(cat, &sim, &w);
        if (loads_out)
            json_array_append_new(loads_out, walk_json(&sim, env, fws, &orders[o], &w, sp));
        for (size_t i = 0; i < sim.n; i++) {
            const struct cu_ldobj *ob = &sim.v[i];
            const char *own = wheel_of(&w, ob->soname);
            if (!cu_ld_cuda_lib(ob->soname) || !own)
                continue;
            bool outside = !under(ob->real, sp) && !under(ob->path, sp);
            /* The same soname mapped from another file too. */
            const char *twin = NULL;
            for (size_t k = 0; k < sim.n && !twin; k++)
                if (k != i && strcmp(sim.v[k].soname, ob->soname) == 0 && (under(sim.v[k].real, sp) || under(sim.v[k].path, sp)) &&
                    outside)
                    twin = sim.v[k].path;
            if (!outside)
                continue;
            int fw = orders[o].fw[ob->tag / 4];
            struct finding *f = find_or_add(&fs, ob, NULL);
            f->orders |= 1u << o;
            f->fws |= 1u << fw;
            if (!f->wheel)
                f->wheel = cu_xstrdup(own);
            if (twin) {
                struct finding *t = find_or_add(&fs, ob, twin);
                t->orders |= 1u << o;
                t->fws |= 1u << fw;
            }
        }
        cu_ldsim_fini(&sim);
    }
    say(root, fws, n_fw, orders, n_orders, &fs, env, llp, conf, envp, state_dir, out);
    findings_fini(&fs);
    for (size_t i = 0; i < n_fw; i++)
        check_system_cudnn(root, &fws[i], sp, llp, conf, envp, state_dir, out);
    if (w.dup_soname)
        cu_problems_add(out, "framework-cuda-duplicate", CU_SEV_WARNING,
                        cu_xasprintf(_("%s holds %s twice, %s and %s: in one process the first loaded wins, and whatever expects the other gets it."),
                                     env, w.dup_soname, w.dup_a, w.dup_b),
                        cu_xstrdup(_("give each framework an environment of its own (cudaup install --framework A --framework B), or remove the copy the framework does not pin")));
    wheels_fini(&w);
}

void
cu_fwenvs_shadow(const struct cu_sysroot *root, const struct cu_catalog *cat, const struct cu_fwenvs *e, size_t from,
                 const char *const *envp, const char *state_dir, const atomic_int *cancel, struct cu_problems *out,
                 json_t *loads_out)
{
    struct cu_ldconf conf;
    cu_ldconf_read(root, cancel, &conf);
    CU_AUTOFREE char *llp = effective_llp(envp, state_dir);
    for (size_t i = from; i < e->n; i++) {
        bool first_of_env = true;
        for (size_t k = from; k < i && first_of_env; k++)
            first_of_env = strcmp(e->v[k].path, e->v[i].path) != 0;
        if (!first_of_env)
            continue;
        const char *env = e->v[i].path;
        CU_AUTOFREE char *lib = cu_path_join(env, "lib");
        struct cu_strv pys;
        cu_strv_init(&pys);
        list_dir(root, lib, &pys);
        for (size_t p = 0; p < pys.n; p++) {
            if (strncmp(pys.v[p], "python3", 7) != 0)
                continue;
            CU_AUTOFREE char *sp = cu_xasprintf("%s/%s/site-packages", lib, pys.v[p]);
            if (!cu_sysroot_is_dir(root, sp))
                continue;
            check_two_cudnn(root, env, sp, out);
            struct fw fws[MAX_FW];
            size_t n_fw = 0;
            for (size_t k = i; k < e->n && n_fw < MAX_FW; k++) {
                const struct cu_fwenv *fe = &e->v[k];
                if (strcmp(fe->path, env) != 0 || fe->cpu_only)
                    continue;
                struct cu_version v = {{0}, 0};
                if (fe->version) {
                    CU_AUTOFREE char *pub = cu_xstrndup(fe->version, strcspn(fe->version, "+"));
                    if (!cu_version_parse(pub, &v))
                        v.n = 0;
                }
                fws[n_fw].env = fe;
                fws[n_fw].loads = cu_catalog_fw_loads(&cat->loads, fe->framework, &v, cuda_major(fe), &fws[n_fw].exact);
                if (fws[n_fw].loads && !fws[n_fw].exact && !recording_fits(root, sp, fws[n_fw].loads))
                    fws[n_fw].loads = NULL; /* another build's structure: its own objects are read instead */
                n_fw++;
            }
            if (n_fw)
                walk_env(root, cat, fws, n_fw, env, sp, llp, &conf, envp, state_dir, out, loads_out);
        }
        cu_strv_fini(&pys);
    }
    cu_ldconf_fini(&conf);
}
