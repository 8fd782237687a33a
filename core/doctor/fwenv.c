/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/doctor/fwenv.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/catalog/cliff.h"
#include "core/catalog/cudnn_matrix.h"
#include "core/catalog/gpucode.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/parse.h"
#include "core/resolve/plan.h"
#include "core/base/str.h"

/* ---- reading what the packages installed --------------------------------------------- */

static char *
read_text(const struct cu_sysroot *root, const char *path)
{
    char *buf = NULL;
    size_t len;
    struct cu_error err;
    if (cu_sysroot_read(root, path, 1 << 20, &buf, &len, &err) != CU_OK)
        return NULL;
    return buf;
}

/* The string assigned to @name on a line of Python: `name = '2.8.0'` or
 * `cuda: Optional[str] = '12.8'`.  NULL for None or when absent. */
static char *
py_assign(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, name, n) != 0 || (l[n] != ' ' && l[n] != '=' && l[n] != ':'))
            continue;
        const char *eq = strchr(l, '=');
        const char *end = strchr(l, '\n');
        if (!eq || (end && eq > end))
            continue;
        const char *q = eq + 1 + strspn(eq + 1, " ");
        if (*q != '\'' && *q != '"')
            return NULL;
        const char *close = strchr(q + 1, *q);
        if (!close || (end && close > end))
            return NULL;
        return cu_xstrndup(q + 1, (size_t)(close - q - 1));
    }
    return NULL;
}

/*
 * Where TensorFlow's build_info.py gives @key, in each of its 2.x forms (tests/fixtures/wheels/build_info):
 * `build_info = {'key': value, ...}` (2.3, 2.4), `build_info = collections.OrderedDict([('key', value), ...])`
 * (2.5 on), and module-level `key = value` (2.0 to 2.2: is_cuda_build, cuda_version_number,
 * cudnn_version_number).  The text after the key's separator, or NULL.
 */
static const char *
build_value(const char *text, const char *key)
{
    CU_AUTOFREE char *k1 = cu_xasprintf("'%s':", key);
    CU_AUTOFREE char *k2 = cu_xasprintf("('%s',", key);
    const char *p = strstr(text, k1);
    if (p)
        return p + strlen(k1) + strspn(p + strlen(k1), " ");
    if ((p = strstr(text, k2)))
        return p + strlen(k2) + strspn(p + strlen(k2), " ");
    size_t n = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, n) == 0 && (l[n] == ' ' || l[n] == '=')) {
            const char *eq = strchr(l, '=');
            const char *end = strchr(l, '\n');
            if (eq && (!end || eq < end))
                return eq + 1 + strspn(eq + 1, " ");
        }
    return NULL;
}

/* The quoted string TensorFlow's build info gives @key (or @alt, its 2.0-2.2 name), or NULL. */
static char *
dict_str(const char *text, const char *key, const char *alt)
{
    const char *p = build_value(text, key);
    if (!p && alt)
        p = build_value(text, alt);
    if (!p || (*p != '\'' && *p != '"'))
        return NULL;
    const char *close = strchr(p + 1, *p);
    return close ? cu_xstrndup(p + 1, (size_t)(close - p - 1)) : NULL;
}

/* Is @key True in TensorFlow's build info? */
static bool
dict_true(const char *text, const char *key)
{
    const char *p = build_value(text, key);
    return p && strncmp(p, "True", 4) == 0;
}

/* The list of quoted items TensorFlow's build info gives @key. */
static void
dict_list(const char *text, const char *key, struct cu_strv *out)
{
    const char *p = build_value(text, key);
    const char *end = p && *p == '[' ? strchr(p, ']') : NULL;
    if (!end)
        return;
    while ((p = strpbrk(p + 1, "'\"")) && p < end) {
        const char *close = strchr(p + 1, *p);
        if (!close || close > end)
            break;
        cu_strv_push_owned(out, cu_xstrndup(p + 1, (size_t)(close - p - 1)));
        p = close;
    }
}

/* Entries of @dir whose names start with @prefix (any when NULL). */
static void
list_dir(const struct cu_sysroot *root, const char *dir, const char *prefix, struct cu_strv *out)
{
    DIR *d = cu_sysroot_opendir(root, dir);
    struct dirent *de;
    if (!d)
        return;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (prefix && strncasecmp(de->d_name, prefix, strlen(prefix)) != 0)
            continue;
        cu_strv_push(out, de->d_name);
    }
    closedir(d);
    cu_strv_sort(out);
}

/* The version of distribution @name from its NAME-VERSION.dist-info folder, or NULL. */
static char *
dist_version(const struct cu_sysroot *root, const char *sp, const char *name)
{
    struct cu_strv ents;
    cu_strv_init(&ents);
    CU_AUTOFREE char *pre = cu_xasprintf("%s-", name);
    list_dir(root, sp, pre, &ents);
    char *v = NULL;
    for (size_t i = 0; i < ents.n && !v; i++) {
        const char *e = ents.v[i] + strlen(pre);
        const char *dot = strstr(e, ".dist-info");
        if (dot && dot[10] == '\0' && e[0] >= '0' && e[0] <= '9')
            v = cu_xstrndup(e, (size_t)(dot - e));
    }
    cu_strv_fini(&ents);
    return v;
}

static void
set_code(struct cu_fwenv *e, const struct cu_cat_code *c)
{
    if (!c)
        return;
    e->sass = cu_xcalloc(c->n_sass + 1, sizeof(int));
    e->ptx = cu_xcalloc(c->n_ptx + 1, sizeof(int));
    memcpy(e->sass, c->sass, c->n_sass * sizeof(int));
    memcpy(e->ptx, c->ptx, c->n_ptx * sizeof(int));
    e->n_sass = c->n_sass;
    e->n_ptx = c->n_ptx;
    e->code_read = c->read;
    e->code_source = cu_xstrdup(c->source ? c->source : "catalog");
}

static void
set_arch(struct cu_fwenv *e, const struct cu_strv *arch)
{
    e->sass = cu_xcalloc(arch->n + 1, sizeof(int));
    e->ptx = cu_xcalloc(arch->n + 1, sizeof(int));
    struct cu_cat_code c = {.sass = e->sass, .ptx = e->ptx};
    for (size_t i = 0; i < arch->n; i++)
        cu_code_add_arch(&c, arch->v[i]);
    e->n_sass = c.n_sass;
    e->n_ptx = c.n_ptx;
    e->code_read = e->n_sass + e->n_ptx > 0;
    e->code_source = cu_xstrdup("tensorflow/python/platform/build_info.py");
}

static struct cu_fwenv *
add_env(struct cu_fwenvs *out, const char *env, const char *fw)
{
    out->v = cu_xreallocarray(out->v, out->n + 1, sizeof(*out->v));
    struct cu_fwenv *e = &out->v[out->n++];
    memset(e, 0, sizeof(*e));
    e->path = cu_xstrdup(env);
    e->framework = cu_xstrdup(fw);
    return e;
}

static void
scan_torch(const struct cu_sysroot *root, const struct cu_catalog *cat, const char *env, const char *sp,
           struct cu_fwenvs *out)
{
    CU_AUTOFREE char *vp = cu_path_join(sp, "torch/version.py");
    CU_AUTOFREE char *text = read_text(root, vp);
    if (!text)
        return;
    struct cu_fwenv *e = add_env(out, env, "pytorch");
    e->version = py_assign(text, "__version__");
    e->cuda_build = py_assign(text, "cuda");
    e->bundled = true;
    const char *plus = e->version ? strchr(e->version, '+') : NULL;
    if (plus && strncmp(plus + 1, "cu", 2) == 0)
        e->tag = cu_xstrdup(plus + 1);
    else if (e->cuda_build) {
        struct cu_version c;
        if (cu_version_parse(e->cuda_build, &c) && c.n >= 2)
            e->tag = cu_xasprintf("cu%u%u", c.part[0], c.part[1]); /* a PyPI build: its CUDA names the tag */
    }
    e->cpu_only = !e->cuda_build || (plus && strcmp(plus + 1, "cpu") == 0);
    struct cu_version v;
    CU_AUTOFREE char *public = e->version ? cu_xstrndup(e->version, plus ? (size_t)(plus - e->version)
                                                                       : strlen(e->version)) : NULL;
    if (e->tag && public && cu_version_parse(public, &v)) {
        v.n = v.n > 3 ? 3 : v.n;
        set_code(e, cu_catalog_torch_code(cat, &v, e->tag));
    }
}

static void
scan_tf(const struct cu_sysroot *root, const char *env, const char *sp, struct cu_fwenvs *out)
{
    CU_AUTOFREE char *bp = cu_path_join(sp, "tensorflow/python/platform/build_info.py");
    CU_AUTOFREE char *text = read_text(root, bp);
    if (!text) { /* 2.0 and 2.1 keep it in tensorflow_core */
        CU_AUTOFREE char *core = cu_path_join(sp, "tensorflow_core/python/platform/build_info.py");
        text = read_text(root, core);
    }
    if (!text)
        return;
    struct cu_fwenv *e = add_env(out, env, "tensorflow");
    e->version = dist_version(root, sp, "tensorflow");
    e->cuda_build = dict_str(text, "cuda_version", "cuda_version_number");
    e->cudnn_build = dict_str(text, "cudnn_version", "cudnn_version_number");
    e->cpu_only = !dict_true(text, "is_cuda_build");
    struct cu_strv arch;
    cu_strv_init(&arch);
    dict_list(text, "cuda_compute_capabilities", &arch);
    set_arch(e, &arch);
    cu_strv_fini(&arch);
    /* tensorflow[and-cuda] brings CUDA and cuDNN as pip packages (nvidia-cudnn-cu12 ...). */
    CU_AUTOFREE char *nv = cu_path_join(sp, "nvidia/cudnn");
    e->bundled = cu_sysroot_is_dir(root, nv);
}

static void
scan_jax(const struct cu_sysroot *root, const struct cu_catalog *cat, const char *env, const char *sp,
         struct cu_fwenvs *out)
{
    CU_AUTOFREE char *v = dist_version(root, sp, "jax");
    if (!v)
        return;
    struct cu_fwenv *e = add_env(out, env, "jax");
    e->version = cu_steal_ptr(&v);
    int major = 0;
    for (int m = 13; m >= 11 && !major; m--) {
        CU_AUTOFREE char *plugin = cu_xasprintf("jax_cuda%d_plugin", m);
        CU_AUTOFREE char *pv = dist_version(root, sp, plugin);
        if (pv)
            major = m;
    }
    if (!major) {
        /* Before the plugins, jaxlib itself carried CUDA: 0.4.13+cuda12.cudnn89. */
        CU_AUTOFREE char *lib = dist_version(root, sp, "jaxlib");
        const char *c = lib ? strstr(lib, "+cuda") : NULL;
        size_t k = c ? strspn(c + 5, "0123456789") : 0;
        uint64_t m;
        if (k > 0 && k < 4) {
            CU_AUTOFREE char *digits = cu_xstrndup(c + 5, k);
            if (cu_parse_u64(digits, 99, &m))
                major = (int)m;
        }
    }
    e->cpu_only = major == 0;
    if (major) {
        e->bundled = true;
        e->tag = cu_xasprintf("cuda%d", major);
        e->cuda_build = cu_xasprintf("%d", major);
        struct cu_version jv;
        if (cu_version_parse(e->version, &jv))
            set_code(e, cu_catalog_jax_code(cat, &jv, major));
    }
}

static void
scan_env(const struct cu_sysroot *root, const struct cu_catalog *cat, const char *env, struct cu_fwenvs *out)
{
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i].path, env) == 0)
            return; /* found twice (the active env is also in envs/) */
    CU_AUTOFREE char *lib = cu_path_join(env, "lib");
    struct cu_strv pys;
    cu_strv_init(&pys);
    list_dir(root, lib, "python3", &pys);
    for (size_t i = 0; i < pys.n; i++) {
        CU_AUTOFREE char *sp = cu_xasprintf("%s/%s/site-packages", lib, pys.v[i]);
        if (!cu_sysroot_is_dir(root, sp))
            continue;
        size_t before = out->n;
        scan_torch(root, cat, env, sp, out);
        scan_tf(root, env, sp, out);
        scan_jax(root, cat, env, sp, out);
        /* The cuDNN wheel pip brought (nvidia-cudnn-cu13, -cu12, -cu11): each framework of the environment loads it. */
        for (int m = 13; m >= 11 && out->n > before; m--) {
            CU_AUTOFREE char *dist = cu_xasprintf("nvidia_cudnn_cu%d", m);
            CU_AUTOFREE char *v = dist_version(root, sp, dist);
            for (size_t k = before; v && k < out->n; k++)
                if (!out->v[k].cudnn_wheel) {
                    out->v[k].cudnn_wheel = cu_xstrdup(v);
                    out->v[k].cudnn_major = m;
                }
        }
        CU_AUTOFREE char *hold = cu_path_join(env, "cudaup-constraints.txt");
        for (size_t k = before; k < out->n; k++)
            out->v[k].held = cu_sysroot_exists(root, hold);
    }
    cu_strv_fini(&pys);
}

void
cu_fwenvs_add(const struct cu_sysroot *root, const struct cu_catalog *cat, const char *env, struct cu_fwenvs *out)
{
    if (env && env[0] == '/')
        scan_env(root, cat, env, out);
}

void
cu_fwenvs_scan(const struct cu_sysroot *root, const struct cu_facts *f, const struct cu_catalog *cat,
               const char *const *envp, struct cu_fwenvs *out)
{
    static const char *const vars[] = {"VIRTUAL_ENV", "CONDA_PREFIX"};
    for (size_t i = 0; i < CU_N_ELEMENTS(vars); i++) {
        const char *v = cu_env_get(envp, vars[i]);
        if (v && v[0] == '/')
            scan_env(root, cat, v, out);
    }
    if (f->pyenv && f->pyenv->path && strcmp(f->pyenv->tool, "venv") != 0) {
        /* BASE/bin/conda: the base environment and BASE/envs/NAME. */
        CU_AUTOFREE char *base = cu_xstrdup(f->pyenv->path);
        for (int up = 0; up < 2; up++) {
            char *slash = strrchr(base, '/');
            if (slash)
                *slash = '\0';
        }
        if (*base) {
            scan_env(root, cat, base, out);
            CU_AUTOFREE char *envs = cu_path_join(base, "envs");
            struct cu_strv names;
            cu_strv_init(&names);
            list_dir(root, envs, NULL, &names);
            for (size_t i = 0; i < names.n; i++) {
                CU_AUTOFREE char *p = cu_path_join(envs, names.v[i]);
                scan_env(root, cat, p, out);
            }
            cu_strv_fini(&names);
        }
    }
}

void
cu_fwenvs_fini(struct cu_fwenvs *e)
{
    for (size_t i = 0; e && i < e->n; i++) {
        struct cu_fwenv *x = &e->v[i];
        free(x->path);
        free(x->framework);
        free(x->version);
        free(x->cuda_build);
        free(x->cudnn_build);
        free(x->tag);
        free(x->code_source);
        free(x->sass);
        free(x->ptx);
        free(x->cudnn_wheel);
    }
    if (e) {
        free(e->v);
        memset(e, 0, sizeof(*e));
    }
}

/* ---- judging them ----------------------------------------------------------------------- */

static bool
has_driver(const struct cu_facts *f)
{
    return (f->driver.kind == CU_DRIVER_NVIDIA || f->driver.kind == CU_DRIVER_WSL) && f->driver.version.n;
}

/* Does code (@sass, @ptx) built with CUDA @build run on every GPU here?  PTX needs the driver of its CUDA. */
static bool
code_runs(const struct cu_catalog *cat, const struct cu_facts *f, const struct cu_cat_code *c,
          const struct cu_version *build, int *bad_gpu)
{
    for (size_t i = 0; i < f->n_gpus; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        int t;
        if (!g->cc.n)
            continue;
        enum cu_code_fit fit = cu_code_fit(c, &g->cc, &t);
        struct cu_version need;
        if (fit == CU_CODE_NONE ||
            (fit == CU_CODE_PTX && has_driver(f) && build && build->n &&
             cu_catalog_cuda_min_driver(cat, build, &need) && cu_version_cmp(&f->driver.version, &need) < 0)) {
            *bad_gpu = (int)i;
            return false;
        }
    }
    return true;
}

/* A driver runs a wheel that brings CUDA @major by minor-version compatibility. */
static bool
driver_runs_major(const struct cu_catalog *cat, const struct cu_facts *f, int major, struct cu_version *min)
{
    const struct cu_cat_cuda_major *m = cu_catalog_cuda_major(cat, major);
    if (!m || !m->min_driver.n || !has_driver(f))
        return true;
    *min = m->min_driver;
    return cu_version_cmp(&f->driver.version, &m->min_driver) >= 0;
}

/*
 * The `cudaup install --framework ...` that gives a build of @fw which runs here, from the
 * catalog alone (doctor reads no mirror): builds whose GPU code is read first, as the
 * resolver plans.  The caller frees.
 */
static char *
suggest(const struct cu_catalog *cat, const struct cu_facts *f, const char *fw)
{
    char b1[32];
    int bad;
    for (int pass = 0; pass < 2; pass++) {
        bool want_read = pass == 0;
        if (strcmp(fw, "pytorch") == 0) {
            for (size_t i = 0; i < cat->n_torch; i++) {
                const struct cu_cat_torch *t = &cat->torch[i];
                for (size_t k = t->n_builds; k-- > 0;) {
                    const struct cu_cat_torch_build *b = &t->builds[k];
                    const struct cu_cat_code *c = cu_catalog_torch_code(cat, &t->minor, b->tag);
                    struct cu_version min, bm = {{b->cuda.part[0], b->cuda.part[1]}, 2};
                    if (!b->stable || !c || c->read != want_read || !code_runs(cat, f, c, &bm, &bad) ||
                        !driver_runs_major(cat, f, (int)b->cuda.part[0], &min))
                        continue;
                    return cu_xasprintf("cudaup install --framework pytorch==%s",
                                        cu_version_format(&t->minor, 2, b1, sizeof(b1)));
                }
            }
        } else if (strcmp(fw, "tensorflow") == 0) {
            for (size_t i = 0; i < cat->n_tf; i++) {
                const struct cu_cat_tf *t = &cat->tf[i];
                const struct cu_cat_code *c = cu_catalog_tf_code(cat, &t->version);
                struct cu_version need, tm = {{t->cuda.part[0], t->cuda.part[1]}, 2};
                if (!c || c->read != want_read || !code_runs(cat, f, c, &tm, &bad) ||
                    (t->cuda_max.n && cu_version_cmp(&t->cuda_max, &cat->archives_from) < 0))
                    continue;
                if (has_driver(f) && cu_catalog_cuda_min_driver(cat, &tm, &need) &&
                    cu_version_cmp(&f->driver.version, &need) < 0)
                    continue;
                return cu_xasprintf("cudaup install --framework tensorflow==%s",
                                    cu_version_format(t->n_patches ? &t->patches[0] : &t->version, 0, b1, sizeof(b1)));
            }
        } else {
            struct cu_version none = {{0}, 0};
            for (size_t i = 0; i < cat->n_jax; i++) {
                const struct cu_cat_jax_plugin *p = &cat->jax[i];
                const struct cu_cat_code *c = cu_catalog_jax_code(cat, &none, p->cuda_major);
                if (!c || c->read != want_read || !code_runs(cat, f, c, NULL, &bad) ||
                    (has_driver(f) && (int)f->driver.version.part[0] < p->driver_branch))
                    continue;
                return cu_xasprintf("cudaup install --framework jax[%s]", p->extra);
            }
        }
    }
    return cu_xasprintf(_("No %s build cudaup knows runs on the GPUs here; cudaup install --framework none installs CUDA alone."),
                        cu_framework_title(fw));
}

/* The CUDA install a framework that loads the system's CUDA would use: CUDA_HOME's, else PREFIX/cuda's. */
static const struct cu_cuda_install *
system_cuda(const struct cu_facts *f, const char *const *envp)
{
    const char *home = cu_env_get(envp, "CUDA_HOME");
    for (size_t i = 0; home && i < f->n_installs; i++)
        if (strcmp(f->installs[i].path, home) == 0)
            return &f->installs[i];
    for (size_t i = 0; i < f->n_installs; i++)
        for (char **l = f->installs[i].links; l && *l; l++)
            if (strcmp(*l, "/usr/local/cuda") == 0)
                return &f->installs[i];
    return NULL;
}

static void
check_one(const struct cu_fwenv *e, const struct cu_facts *f, const struct cu_catalog *cat, const char *const *envp,
          struct cu_problems *out)
{
    char b1[32], b2[32], b3[32];
    const char *name = cu_framework_title(e->framework);
    const char *ver = e->version ? e->version : "?";
    if (f->n_gpus == 0)
        return;
    if (e->cpu_only) {
        cu_problems_add(out, "framework-no-gpu-code", CU_SEV_WARNING,
                        cu_xasprintf(_("%s %s in %s is a CPU-only build: it will not use the GPU."), name, ver, e->path),
                        suggest(cat, f, e->framework));
        return;
    }
    struct cu_cat_code code = {.sass = e->sass, .ptx = e->ptx, .n_sass = e->n_sass, .n_ptx = e->n_ptx};
    struct cu_version build = {{0}, 0};
    if (e->cuda_build && cu_version_parse(e->cuda_build, &build) && build.n > 2)
        build.n = 2;
    int bad;
    if (e->n_sass + e->n_ptx > 0 && !code_runs(cat, f, &code, build.n >= 2 ? &build : NULL, &bad)) {
        const struct cu_gpu_info *g = &f->gpus[bad];
        CU_AUTOFREE char *has = cu_code_describe(&code);
        int t;
        bool ptx = cu_code_fit(&code, &g->cc, &t) == CU_CODE_PTX;
        CU_AUTOFREE char *msg = ptx ? cu_xasprintf(_("%s %s in %s reaches GPU %d (%s, compute capability %s) only through its PTX compute_%d, which this driver is too old to JIT-compile."),
                                                   name, ver, e->path, g->index, g->name,
                                                   cu_version_format(&g->cc, 0, b1, sizeof(b1)), t)
                                    : cu_xasprintf(_("%s %s in %s has no code for GPU %d (%s, compute capability %s): it carries %s%s, so it computes on the CPU."),
                                                   name, ver, e->path, g->index, g->name,
                                                   cu_version_format(&g->cc, 0, b1, sizeof(b1)), has,
                                                   e->code_read ? "" : _(" (inferred)"));
        /* The last release with code for it (core/catalog/cliff.h): where the field left this GPU. */
        struct cu_cliff cl;
        cu_cliff_for(cat, &g->cc, &cl);
        const struct cu_cliff_part *last = ptx ? NULL : cu_cliff_framework(&cl, e->framework);
        CU_AUTOFREE char *lt = last && last->known ? cu_cliff_fw_text(e->framework, last) : NULL;
        cu_problems_add(out, "framework-no-gpu-code", CU_SEV_WARNING,
                        lt ? cu_xasprintf(last->current ? _("%s The newest release has code for it: %s.")
                                                        : _("%s The last release with code for it is %s."),
                                          msg, lt)
                           : cu_xstrdup(msg),
                        suggest(cat, f, e->framework));
        if (last && last->source)
            cu_problems_source(out, last->source);
        return;
    }
    struct cu_version min;
    if (build.n && !driver_runs_major(cat, f, (int)build.part[0], &min)) {
        cu_problems_add(out, "framework-driver-too-old", CU_SEV_WARNING,
                        cu_xasprintf(_("%s %s in %s was built with CUDA %s, which needs NVIDIA driver %s or newer; this machine has %s."),
                                     name, ver, e->path, e->cuda_build, cu_driver_version_format(&min, b1, sizeof(b1)),
                                     cu_driver_version_format(&f->driver.version, b2, sizeof(b2))),
                        suggest(cat, f, e->framework));
        return;
    }
    /* TensorFlow without pip's cuDNN loads the system's: its major must be the build's. */
    struct cu_version want;
    if (strcmp(e->framework, "tensorflow") == 0 && !e->bundled && e->cudnn_build &&
        cu_version_parse(e->cudnn_build, &want)) {
        const struct cu_cuda_install *in = system_cuda(f, envp);
        if (in && (!in->cudnn.n || in->cudnn.part[0] != want.part[0]))
            cu_problems_add(out, "framework-cudnn-mismatch", CU_SEV_WARNING,
                            in->cudnn.n ? cu_xasprintf(_("TensorFlow %s in %s was built with cuDNN %u, but the CUDA it loads (%s) has cuDNN %s."),
                                                       ver, e->path, want.part[0], in->path,
                                                       cu_version_format(&in->cudnn, 0, b3, sizeof(b3)))
                                        : cu_xasprintf(_("TensorFlow %s in %s was built with cuDNN %u, but the CUDA it loads (%s) has no cuDNN."),
                                                       ver, e->path, want.part[0], in->path),
                            suggest(cat, f, e->framework));
    }
}

/*
 * cuDNN @v built for CUDA @major (in @where) and the GPUs here: cudnn-drops-gpu for the first GPU its support matrix
 * does not list, naming the last cuDNN that does (core/catalog/cliff.h), with @fix (taken).
 */
static void
check_cudnn(const struct cu_catalog *cat, const struct cu_facts *f, const struct cu_version *v, int major,
            const char *where, char *fix, struct cu_problems *out)
{
    char b1[32], b2[32], b3[32];
    for (size_t i = 0; i < f->n_gpus; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        const struct cu_cat_cudnn_support *row = NULL;
        if (!g->cc.n || cu_catalog_cudnn_lists(cat, v, major, &g->cc, &row) != 0)
            continue;
        struct cu_cliff cl;
        cu_cliff_for(cat, &g->cc, &cl);
        CU_AUTOFREE char *msg = cu_xasprintf(_("cuDNN %s in %s does not support GPU %d (%s, compute capability %s): the support matrix of cuDNN %s does not list it."),
                                             cu_version_format(v, 0, b1, sizeof(b1)), where, g->index, g->name,
                                             cu_version_format(&g->cc, 0, b2, sizeof(b2)),
                                             row ? cu_version_format(&row->cudnn, 0, b3, sizeof(b3)) : "?");
        cu_problems_add(out, "cudnn-drops-gpu", CU_SEV_WARNING,
                        cl.cudnn.known ? cu_xasprintf(_("%s The last cuDNN that supports it is %s for CUDA %d."), msg,
                                                      cu_version_format(&cl.cudnn.version, 0, b1, sizeof(b1)), cl.cudnn.major)
                                       : cu_xstrdup(msg),
                        fix);
        return;
    }
    free(fix);
}

/* Was a problem of @code added for something in @path? */
static bool
flagged(const struct cu_problems *out, size_t from, const char *code, const char *path)
{
    for (size_t i = from; i < out->n; i++)
        if (strcmp(out->v[i].code, code) == 0 && strstr(out->v[i].message, path))
            return true;
    return false;
}

void
cu_fwenvs_check(const struct cu_fwenvs *e, const struct cu_facts *f, const struct cu_catalog *cat,
                const char *const *envp, struct cu_problems *out)
{
    char b1[32], b2[32];
    size_t from = out->n;
    for (size_t i = 0; i < e->n; i++)
        check_one(&e->v[i], f, cat, envp, out);
    if (f->n_gpus == 0)
        return;
    /* The cuDNN wheel of each environment whose frameworks have code for the GPUs (else their own problem says it):
     * `pip install -U nvidia-cudnn-cu12` brings a release that may have left the GPU behind. */
    for (size_t i = 0; i < e->n; i++) {
        const struct cu_fwenv *x = &e->v[i];
        struct cu_version v;
        bool seen = false;
        for (size_t k = 0; k < i; k++)
            seen |= strcmp(e->v[k].path, x->path) == 0 && e->v[k].cudnn_wheel;
        if (seen || !x->cudnn_wheel || !cu_version_parse(x->cudnn_wheel, &v) || flagged(out, from, "framework-no-gpu-code", x->path))
            continue;
        CU_AUTOFREE char *where = cu_xasprintf("%s (nvidia-cudnn-cu%d)", x->path, x->cudnn_major);
        CU_AUTOFREE char *again = suggest(cat, f, x->framework);
        /* An environment cudaup holds (issue 45): repair puts back the cuDNN it is held at. */
        check_cudnn(cat, f, &v, x->cudnn_major, where,
                    x->held ? cu_xasprintf(_("Run `cudaup repair`: it puts back the releases %s/cudaup-constraints.txt holds the environment at. Or: %s"),
                                           x->path, again)
                            : cu_xstrdup(again),
                    out);
    }
    /* The cuDNN of each CUDA install (what a framework without its own loads). */
    for (size_t i = 0; i < f->n_installs; i++) {
        const struct cu_cuda_install *in = &f->installs[i];
        bool builds = true; /* a CUDA that cannot build for a GPU here is its own problem (cuda-drops-gpu) */
        for (size_t g = 0; g < f->n_gpus; g++)
            builds &= !f->gpus[g].cc.n || cu_catalog_cuda_supports_cc(cat, &in->version, &f->gpus[g].cc) != 0;
        if (!in->cudnn.n || !in->version.n || !builds)
            continue;
        struct cu_cliff cl;
        cu_cliff_for(cat, &f->gpus[0].cc, &cl);
        for (size_t g = 1; g < f->n_gpus; g++) { /* the GPU the matrix drops decides below; any GPU's cliff is a start */
            struct cu_cliff c2;
            cu_cliff_for(cat, &f->gpus[g].cc, &c2);
            if (c2.cudnn.known && (!cl.cudnn.known || cu_version_cmp(&c2.cudnn.version, &cl.cudnn.version) < 0))
                cl = c2;
        }
        char *fix = cl.cuda.known && cl.cudnn.known
                        ? cu_xasprintf(_("Run `cudaup install --cuda %s --cudnn %s`."),
                                       cu_version_format(&cl.cuda.version, 0, b1, sizeof(b1)),
                                       cu_version_format(&cl.cudnn.version, 0, b2, sizeof(b2)))
                        : cu_xstrdup(_("Use an older cuDNN release for this GPU."));
        check_cudnn(cat, f, &in->cudnn, (int)in->version.part[0], in->path, fix, out);
    }
}

json_t *
cu_fwenvs_json(const struct cu_fwenvs *e, const struct cu_facts *f)
{
    json_t *a = json_array();
    for (size_t i = 0; i < e->n; i++) {
        const struct cu_fwenv *x = &e->v[i];
        json_t *o = json_object();
        json_object_set_new(o, "path", json_string(x->path));
        json_object_set_new(o, "framework", json_string(x->framework));
        json_object_set_new(o, "version", cu_json_str_or_null(x->version));
        json_object_set_new(o, "cuda_build", cu_json_str_or_null(x->cuda_build));
        json_object_set_new(o, "cudnn_build", cu_json_str_or_null(x->cudnn_build));
        json_object_set_new(o, "cpu_only", json_boolean(x->cpu_only));
        json_object_set_new(o, "bundled_runtime", json_boolean(x->bundled));
        json_object_set_new(o, "cudnn_wheel", cu_json_str_or_null(x->cudnn_wheel));
        json_object_set_new(o, "held", json_boolean(x->held));
        json_t *gc = json_array();
        struct cu_cat_code code = {.sass = x->sass, .ptx = x->ptx, .n_sass = x->n_sass, .n_ptx = x->n_ptx};
        for (size_t g = 0; g < f->n_gpus; g++) {
            json_t *ge = json_object();
            int t = 0;
            enum cu_code_fit fit = CU_CODE_NONE;
            bool known = x->n_sass + x->n_ptx > 0 && f->gpus[g].cc.n;
            if (known)
                fit = cu_code_fit(&code, &f->gpus[g].cc, &t);
            json_object_set_new(ge, "gpu", json_integer(f->gpus[g].index));
            json_object_set_new(ge, "code", json_string(x->cpu_only ? "none" : known ? cu_code_fit_name(fit) : "unknown"));
            json_array_append_new(gc, ge);
        }
        json_object_set_new(o, "gpu_code", gc);
        json_object_set_new(o, "code_confidence",
                            x->n_sass + x->n_ptx ? json_string(x->code_read ? "read" : "inferred") : json_null());
        json_array_append_new(a, o);
    }
    return a;
}
