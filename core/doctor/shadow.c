/* SPDX-License-Identifier: MIT */
/* Shadowing in the machine's Python environments, found without importing anything: see shadow.h. */
#include "config.h"

#include "core/doctor/shadow.h"
#include "core/doctor/envwheels.h"

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
#define MAX_CAUSES 4

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
    cu_envwheels_list_dir(root, full, &names);
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
        sim->note_misses = false; /* guessed calls: a name they find nowhere may never be asked for */
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
        sim->note_misses = true; /* a recorded call: what it finds nowhere is a load that fails */
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
 * the names recorded for its own wheel's release.  A wheel's rows say what that wheel's file holds: a library from
 * outside the environment (a system cuDNN of another release) is another file, which may ask for other names
 * (CUDA 13.0's cuDNN 9.19 engines hold libnvrtc.so.13 where the cu12 wheel's hold libnvrtc.so.12), so nothing is
 * predicted for it from them. */
static void
run_lib_loads(const struct cu_catalog *cat, struct cu_ldsim *sim, const struct cu_envwheels *w)
{
    for (size_t i = 0; i < sim->n; i++) {
        const struct cu_cat_lib_load *rows[MAX_LIB_LOADS];
        const char *owner = cu_envwheels_owner(w, sim->v[i].path); /* found through $ORIGIN/..: its real path */
        if (!owner && !(owner = cu_envwheels_owner(w, sim->v[i].real)))
            continue;
        CU_AUTOFREE char *pkg = cu_xstrndup(owner, strcspn(owner, " "));
        struct cu_version v = {{0}, 0};
        if (strchr(owner, ' ') && !cu_version_parse(strchr(owner, ' ') + 1, &v))
            v.n = 0;
        CU_AUTOFREE char *soname = cu_xstrdup(sim->v[i].soname);
        size_t n = cu_catalog_lib_loads(&cat->loads, soname, pkg, &v, rows, MAX_LIB_LOADS);
        for (size_t k = 0; k < n; k++) {
            sim->tag = sim->v[i].tag / 4 * 4 + CU_LOAD_GPU; /* for the framework whose load brought the caller */
            /* A failed load is predicted only from rows read in this very wheel release: another's (the nearest
             * release, or another package's) may name what this one never asks for. */
            sim->note_misses = strcmp(rows[k]->package, pkg) == 0 && v.n && cu_version_cmp(&rows[k]->version, &v) == 0;
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
    char *twin;         /* "mapped twice": the wheel's own file of that soname, also mapped, or NULL */
    unsigned twin_orders; /* bit i: mapped twice in order i */
    /* What makes the loader take an outside copy, in the order the loader applies them: the first is what it
     * takes now (via, via_file, dir); each next is what it would take were the one before it changed. */
    struct cause {
        enum cu_ld_via via;
        const char *via_file;
        char *dir;
    } causes[MAX_CAUSES];
    size_t n_causes;
    bool nowhere; /* without every cause, the loader would find it nowhere: the wheel's copy is on no path it searches */
};

struct findings {
    struct finding *v;
    size_t n;
};

static struct finding *
find_or_add(struct findings *fs, const struct cu_ldobj *o, bool *fresh)
{
    *fresh = false;
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->v[i].soname, o->soname) == 0 && strcmp(fs->v[i].real, o->real) == 0) {
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
    f->causes[0].via = o->via;
    f->causes[0].via_file = o->via_file;
    f->causes[0].dir = cu_xstrdup(f->dir);
    f->n_causes = 1;
    *fresh = true;
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
        for (size_t k = 0; k < fs->v[i].n_causes; k++)
            free(fs->v[i].causes[k].dir);
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
          const struct cu_envwheels *w, const char *sp)
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
        const char *own = cu_envwheels_file(w, ob->soname);
        json_object_set_new(l, "name", json_string(ob->soname));
        json_object_set_new(l, "path", json_string(ob->path));
        json_object_set_new(l, "real", json_string(ob->real));
        json_object_set_new(l, "via", json_string(cu_ld_via_name(ob->via)));
        json_object_set_new(l, "file", cu_json_str_or_null(ob->via_file));
        json_object_set_new(l, "framework", json_string(fws[order->fw[ob->tag / 4]].env->framework));
        json_object_set_new(l, "stage", json_string(stage_name((enum cu_load_stage)(ob->tag % 4))));
        json_object_set_new(l, "wheel", cu_json_str_or_null(own));
        json_object_set_new(l, "outside", json_boolean(!cu_envwheels_under(ob->real, sp) && !cu_envwheels_under(ob->path, sp)));
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

/* Every cause of @f in a sentence (*@why) and every fix (*@fix), in the loader's order: both for the caller to free. */
static void
blame_all(const struct cu_sysroot *root, const struct finding *f, const char *env, const char *llp,
          const struct cu_ldconf *conf, const char *const *envp, const char *state_dir, char **why, char **fix)
{
    cu_ld_blame(root, envp, state_dir, conf, f->causes[0].via, llp, f->causes[0].dir, env, why, fix);
    for (size_t k = 1; k < f->n_causes; k++) {
        char *w = NULL, *x = NULL;
        cu_ld_blame(root, envp, state_dir, conf, f->causes[k].via, llp, f->causes[k].dir, env, &w, &x);
        char *w2 = cu_xasprintf(_("%s; without that, %s"), *why, w);
        char *x2 = cu_xasprintf(_("%s; and %s"), *fix, x);
        free(*why);
        free(*fix);
        free(w);
        free(x);
        *why = w2;
        *fix = x2;
    }
    if (!f->nowhere && f->causes[f->n_causes - 1].via == CU_LD_CACHE) { /* the last cause gone, its wheel serves it */
        char *x2 = cu_xasprintf(_("%s; the environment's own wheels then serve it"), *fix);
        free(*fix);
        *fix = x2;
    }
    if (f->nowhere && f->wheel) {
        CU_AUTOFREE char *dir = cu_xstrdup(f->wheel);
        *strrchr(dir, '/') = '\0';
        char *w2 = cu_xasprintf(_("%s; and without that, the loader would find it nowhere: the environment's own %s is in a folder nothing searches for it"),
                                *why, f->wheel);
        char *x2 = cu_xasprintf(_("%s; then put %s in LD_LIBRARY_PATH in the environment's activation, so that its own copy loads"),
                                *fix, dir);
        free(*why);
        free(*fix);
        *why = w2;
        *fix = x2;
    }
}

static bool
same_causes(const struct finding *a, const struct finding *b)
{
    if (a->n_causes != b->n_causes)
        return false;
    for (size_t k = 0; k < a->n_causes; k++)
        if (a->causes[k].via != b->causes[k].via || strcmp(a->causes[k].dir, b->causes[k].dir) != 0)
            return false;
    return true;
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
        blame_all(root, f, env, llp, conf, envp, state_dir, &why, &fix);
        if (f->twin) {
            /* One fact, one problem: the outside copy mapped beside the wheel's is the stronger of the two (two copies
             * of one library in one process); that it comes from outside its wheel is said in it. */
            said[i] = true;
            CU_AUTOFREE char *when = order_words(fws, orders, n_orders, f->twin_orders);
            CU_AUTOFREE char *alone = f->orders != f->twin_orders ? order_words(fws, orders, n_orders, f->orders & ~f->twin_orders)
                                                                  : NULL;
            CU_AUTOFREE char *also = alone ? cu_xasprintf(_(" Where it is not mapped twice (%s), %s is loaded from outside the environment instead of its wheel's."),
                                                          alone, f->path)
                                           : cu_xstrdup("");
            cu_problems_add(out, "framework-cuda-duplicate", CU_SEV_WARNING,
                            when ? cu_xasprintf(_("%s in %s would map %s twice, %s from its wheel and %s from outside the environment, %s (%s): whatever asks for it by name gets the one loaded first: %s.%s"),
                                                who, env, f->soname, f->twin, f->path, stage_words(f->stage), when, why, also)
                                 : cu_xasprintf(_("%s in %s would map %s twice, %s from its wheel and %s from outside the environment, %s: whatever asks for it by name gets the one loaded first: %s.%s"),
                                                who, env, f->soname, f->twin, f->path, stage_words(f->stage), why, also),
                            fix);
            free(why);
            continue;
        }
        /* Every library of this framework from the same folder by the same causes: one problem naming each. */
        struct cu_buf list;
        cu_buf_init(&list);
        size_t n = 0;
        for (size_t k = i; k < fs->n; k++) {
            const struct finding *g = &fs->v[k];
            if (said[k] || g->twin || g->fws != f->fws || !same_causes(g, f) || strcmp(g->dir, f->dir) != 0)
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
    cu_envwheels_list_dir(root, sp, &ents);
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

/* One walk: each framework's import, then the calls before its GPU work, one after the other (as verify's probe
 * imports them); then GPU work, and what NVIDIA's libraries load on it. */
static void
walk_once(const struct cu_sysroot *root, const struct cu_catalog *cat, struct cu_ldsim *sim, const char *sp,
          const struct fw *fws, const struct order *ord, const struct cu_envwheels *w)
{
    for (size_t i = 0; i < ord->n; i++) {
        run_stage(root, sim, sp, &fws[ord->fw[i]], (int)i, CU_LOAD_IMPORT, &w->sonames);
        run_stage(root, sim, sp, &fws[ord->fw[i]], (int)i, CU_LOAD_USE, &w->sonames);
    }
    for (size_t i = 0; i < ord->n; i++)
        run_stage(root, sim, sp, &fws[ord->fw[i]], (int)i, CU_LOAD_GPU, &w->sonames);
    run_lib_loads(cat, sim, w);
}

/* @list (a colon list) without folder @dir. Caller frees; NULL when nothing is left. */
static char *
list_without(const char *list, const char *dir)
{
    struct cu_strv parts;
    struct cu_buf b;
    cu_strv_init(&parts);
    cu_buf_init(&b);
    cu_strv_split(&parts, list ? list : "", ":");
    for (size_t i = 0; i < parts.n; i++) {
        size_t n = strlen(parts.v[i]);
        while (n > 1 && parts.v[i][n - 1] == '/')
            n--;
        if (strlen(dir) == n && strncmp(parts.v[i], dir, n) == 0)
            continue;
        cu_buf_printf(&b, "%s%s", b.len ? ":" : "", parts.v[i]);
    }
    cu_strv_fini(&parts);
    if (!b.len) {
        cu_buf_fini(&b);
        return NULL;
    }
    return cu_buf_steal(&b);
}

/* @c without folder @dir (NULL: with every one): as the loader would read it once that folder is out of ld.so.conf and ldconfig ran (its
 * cache entries there gone).  Borrows @c's strings; conf_free() frees the arrays alone. */
static void
conf_without(const struct cu_ldconf *c, const char *dir, struct cu_ldconf *out)
{
    memset(out, 0, sizeof(*out));
    out->dirs = cu_xcalloc(c->n + 1, sizeof(char *));
    out->files = cu_xcalloc(c->n + 1, sizeof(char *));
    out->cache_names = cu_xcalloc(c->n_cache + 1, sizeof(char *));
    out->cache_paths = cu_xcalloc(c->n_cache + 1, sizeof(char *));
    out->have_cache = c->have_cache;
    for (size_t i = 0; i < c->n; i++)
        if (!dir || strcmp(c->dirs[i], dir) != 0) {
            out->dirs[out->n] = c->dirs[i];
            out->files[out->n++] = c->files[i];
        }
    for (size_t i = 0; i < c->n_cache; i++)
        if (!dir || !cu_envwheels_under(c->cache_paths[i], dir) || strchr(c->cache_paths[i] + strlen(dir) + 1, '/')) {
            out->cache_names[out->n_cache] = c->cache_names[i];
            out->cache_paths[out->n_cache++] = c->cache_paths[i];
        }
}

static void
conf_free(struct cu_ldconf *c)
{
    free(c->dirs);
    free(c->files);
    free(c->cache_names);
    free(c->cache_paths);
}

/*
 * The causes after the first (issue 47 review: LD_LIBRARY_PATH and an ld.so.conf.d file both hold libnccl.so.2, and
 * only the first was named): walk @ord again with the last cause taken away (its folder out of LD_LIBRARY_PATH, or
 * out of ld.so.conf and the cache), and where the library still comes from outside the environment, what makes the
 * loader take it then; until it comes from the wheel, from nowhere, or from what cannot be taken away (a default
 * folder, a DT_RPATH).
 */
static void
more_causes(const struct cu_sysroot *root, const struct cu_catalog *cat, const char *sp, const struct fw *fws,
            const struct order *ord, const struct cu_envwheels *w, const char *llp, const struct cu_ldconf *conf,
            struct finding *f)
{
    CU_AUTOFREE char *list = llp ? cu_xstrdup(llp) : NULL;
    struct cu_ldconf c;
    conf_without(conf, NULL, &c); /* a copy of every folder and entry */
    while (f->n_causes < MAX_CAUSES) {
        const struct cause *last = &f->causes[f->n_causes - 1];
        if (last->via == CU_LD_ENV) {
            char *l = list_without(list, last->dir);
            free(list);
            list = l;
        } else if (last->via == CU_LD_CACHE) {
            struct cu_ldconf c2;
            conf_without(&c, last->dir, &c2);
            conf_free(&c);
            c = c2;
        } else {
            break;
        }
        struct cu_ldsim sim;
        cu_ldsim_init(&sim, root, list, &c);
        walk_once(root, cat, &sim, sp, fws, ord, w);
        int i = cu_ldsim_loaded(&sim, f->soname);
        bool again = false;
        f->nowhere = i < 0;
        if (i >= 0 && !cu_envwheels_under(sim.v[i].real, sp) && !cu_envwheels_under(sim.v[i].path, sp)) {
            CU_AUTOFREE char *dir = cu_xstrdup(sim.v[i].path);
            *strrchr(dir, '/') = '\0';
            again = true;
            for (size_t k = 0; k < f->n_causes && again; k++)
                again = !(f->causes[k].via == sim.v[i].via && strcmp(f->causes[k].dir, dir) == 0);
            if (again) {
                struct cause *nc = &f->causes[f->n_causes++];
                nc->via = sim.v[i].via;
                nc->via_file = sim.v[i].via == CU_LD_CACHE ? cu_ldconf_file(conf, dir) : NULL;
                nc->dir = cu_steal_ptr(&dir);
            }
        }
        cu_ldsim_fini(&sim);
        if (!again)
            break;
    }
    conf_free(&c);
}

/* A recorded load the loader would find nowhere (issue 47 review: cuDNN 9.10.2's RUNPATH $ORIGIN/../../nvrtc/lib misses
 * the nvrtc wheel's nvidia/cuda_nvrtc/lib, so TensorFlow alone cannot load libnvrtc.so.12 on its first GPU work). */
struct unresolved {
    char *name, *asker, *runpath; /* the name; the object that asks for it (NULL: Python) and its DT_RUNPATH */
    enum cu_load_stage stage;
    unsigned fws, orders;
};

struct unresolveds {
    struct unresolved *v;
    size_t n;
};

/* Is a library of @name's stem ("libcudnn_graph.so" of "libcudnn_graph.so.9.26.0") loaded?  cuDNN dlopens its
 * sub-libraries by its own full version, then shorter, then the major: the first tries fail by design. */
static bool
stem_loaded(const struct cu_ldsim *sim, const char *name)
{
    const char *so = strstr(name, ".so");
    size_t n = so ? (size_t)(so - name) + 3 : strlen(name);
    for (size_t i = 0; i < sim->n; i++)
        if (strncmp(sim->v[i].soname, name, n) == 0 && (sim->v[i].soname[n] == '\0' || sim->v[i].soname[n] == '.'))
            return true;
    return false;
}

/* A search path with each folder once, in its order (TensorFlow's DT_RUNPATH names each many times).  Caller frees. */
static char *
distinct(const char *list)
{
    struct cu_strv parts, seen;
    struct cu_buf b;
    cu_strv_init(&parts);
    cu_strv_init(&seen);
    cu_buf_init(&b);
    cu_strv_split(&parts, list, ":");
    for (size_t i = 0; i < parts.n; i++)
        if (!cu_strv_contains(&seen, parts.v[i])) {
            cu_strv_push(&seen, parts.v[i]);
            cu_buf_printf(&b, "%s%s", b.len ? ":" : "", parts.v[i]);
        }
    cu_strv_fini(&parts);
    cu_strv_fini(&seen);
    return cu_buf_steal(&b);
}

static void
note_unresolved(struct unresolveds *us, const struct cu_ldsim *sim, const struct fw *fws, const struct order *ord, size_t o)
{
    /* A framework walked without its recorded calls may load by path what would answer the name (torch preloads
     * NVRTC): a walk is judged only when every framework in it was walked from its recording. */
    for (size_t i = 0; i < ord->n; i++)
        if (!fws[ord->fw[i]].loads)
            return;
    for (size_t m = 0; m < sim->n_miss; m++) {
        const struct cu_ldmiss *x = &sim->miss[m];
        const struct cu_ldobj *a = x->by >= 0 ? &sim->v[x->by] : NULL;
        if (!cu_ld_cuda_lib(x->name) || stem_loaded(sim, x->name))
            continue;
        struct unresolved *u = NULL;
        for (size_t i = 0; i < us->n && !u; i++)
            if (strcmp(us->v[i].name, x->name) == 0 && !us->v[i].asker == !a && (!a || strcmp(us->v[i].asker, a->real) == 0))
                u = &us->v[i];
        if (!u) {
            us->v = cu_xreallocarray(us->v, us->n + 1, sizeof(*us->v));
            u = &us->v[us->n++];
            memset(u, 0, sizeof(*u));
            u->name = cu_xstrdup(x->name);
            u->asker = a ? cu_xstrdup(a->real) : NULL;
            u->runpath = a && a->have_dyn && a->dyn.runpath ? distinct(a->dyn.runpath) : NULL;
            u->stage = (enum cu_load_stage)(x->tag % 4);
        }
        if ((enum cu_load_stage)(x->tag % 4) < u->stage)
            u->stage = (enum cu_load_stage)(x->tag % 4);
        u->fws |= 1u << ord->fw[x->tag / 4];
        u->orders |= 1u << o;
    }
}

static void
say_unresolved(const struct fw *fws, size_t n_fw, const struct order *orders, size_t n_orders, struct unresolveds *us,
               const struct cu_envwheels *w, const char *env, struct cu_problems *out)
{
    for (size_t i = 0; i < us->n; i++) {
        const struct unresolved *u = &us->v[i];
        CU_AUTOFREE char *who = titles(fws, n_fw, u->fws);
        CU_AUTOFREE char *when = order_words(fws, orders, n_orders, u->orders);
        CU_AUTOFREE char *asker = u->asker ? cu_xstrdup(u->asker) : cu_xstrdup(_("Python itself"));
        CU_AUTOFREE char *search = u->runpath ? cu_xasprintf(_("its DT_RUNPATH %s"), u->runpath) : cu_xstrdup(_("its DT_RUNPATH (it has none)"));
        const char *file = cu_envwheels_file(w, u->name);
        const char *owner = file ? cu_envwheels_owner(w, file) : NULL;
        char *fix;
        if (file) {
            CU_AUTOFREE char *dir = cu_xstrdup(file);
            *strrchr(dir, '/') = '\0';
            fix = cu_xasprintf(_("%s is in the environment (%s%s%s), in a folder nothing searches for it: put %s in LD_LIBRARY_PATH in the environment's activation, or load it by its path first (ctypes.CDLL(\"%s\", mode=ctypes.RTLD_GLOBAL) before the first GPU use)"),
                               u->name, file, owner ? ", " : "", owner ? owner : "", dir, file);
        } else {
            fix = cu_xasprintf(_("install the wheel that holds %s into %s, of the CUDA release of its other nvidia-* wheels"), u->name, env);
        }
        cu_problems_add(out, "framework-cuda-unresolved", CU_SEV_WARNING,
                        cu_xasprintf(_("%s in %s would fail to load %s %s%s%s%s: %s asks the loader for it, and neither a library already loaded, %s, LD_LIBRARY_PATH, the loader's cache nor the default folders have it."),
                                     who, env, u->name, stage_words(u->stage), when ? " (" : "", when ? when : "", when ? ")" : "",
                                     asker, search),
                        fix);
    }
}

static void
unresolveds_fini(struct unresolveds *us)
{
    for (size_t i = 0; i < us->n; i++) {
        free(us->v[i].name);
        free(us->v[i].asker);
        free(us->v[i].runpath);
    }
    free(us->v);
}

/* One environment's frameworks @fws (all in site-packages @sp), walked in every order they can be imported in. */
static void
walk_env(const struct cu_sysroot *root, const struct cu_catalog *cat, struct fw *fws, size_t n_fw, const char *env,
         const char *sp, const char *llp, const struct cu_ldconf *conf, const char *const *envp, const char *state_dir,
         struct cu_problems *out, json_t *loads_out)
{
    struct cu_envwheels w;
    cu_envwheels_scan(root, sp, &w);
    struct order orders[9];
    size_t n_orders = orders_of(n_fw, orders);
    struct findings fs = {NULL, 0};
    struct unresolveds us = {NULL, 0};
    for (size_t o = 0; o < n_orders; o++) {
        struct cu_ldsim sim;
        cu_ldsim_init(&sim, root, llp, conf);
        walk_once(root, cat, &sim, sp, fws, &orders[o], &w);
        note_unresolved(&us, &sim, fws, &orders[o], o);
        if (loads_out)
            json_array_append_new(loads_out, walk_json(&sim, env, fws, &orders[o], &w, sp));
        for (size_t i = 0; i < sim.n; i++) {
            const struct cu_ldobj *ob = &sim.v[i];
            const char *own = cu_envwheels_file(&w, ob->soname);
            if (!cu_ld_cuda_lib(ob->soname) || !own)
                continue;
            bool outside = !cu_envwheels_under(ob->real, sp) && !cu_envwheels_under(ob->path, sp);
            if (!outside)
                continue;
            /* The same soname mapped from the environment's own file too. */
            const char *twin = NULL;
            for (size_t k = 0; k < sim.n && !twin; k++)
                if (k != i && strcmp(sim.v[k].soname, ob->soname) == 0 && (cu_envwheels_under(sim.v[k].real, sp) || cu_envwheels_under(sim.v[k].path, sp)))
                    twin = sim.v[k].path;
            int fw = orders[o].fw[ob->tag / 4];
            bool fresh;
            struct finding *f = find_or_add(&fs, ob, &fresh);
            if (fresh)
                more_causes(root, cat, sp, fws, &orders[o], &w, llp, conf, f);
            f->orders |= 1u << o;
            f->fws |= 1u << fw;
            if (!f->wheel)
                f->wheel = cu_xstrdup(own);
            if (twin) {
                if (!f->twin)
                    f->twin = cu_xstrdup(twin);
                f->twin_orders |= 1u << o;
            }
        }
        cu_ldsim_fini(&sim);
    }
    say(root, fws, n_fw, orders, n_orders, &fs, env, llp, conf, envp, state_dir, out);
    say_unresolved(fws, n_fw, orders, n_orders, &us, &w, env, out);
    findings_fini(&fs);
    unresolveds_fini(&us);
    for (size_t i = 0; i < n_fw; i++)
        check_system_cudnn(root, &fws[i], sp, llp, conf, envp, state_dir, out);
    if (w.dup_soname)
        cu_problems_add(out, "framework-cuda-duplicate", CU_SEV_WARNING,
                        cu_xasprintf(_("%s holds %s twice, %s and %s: in one process the first loaded wins, and whatever expects the other gets it."),
                                     env, w.dup_soname, w.dup_a, w.dup_b),
                        cu_xstrdup(_("give each framework an environment of its own (cudaup install --framework A --framework B), or remove the copy the framework does not pin")));
    cu_envwheels_fini(&w);
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
        cu_envwheels_list_dir(root, lib, &pys);
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
