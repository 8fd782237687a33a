/* SPDX-License-Identifier: MIT */
/*
 * The CUDA libraries the frameworks really mapped (data/fwprobe.py reads /proc/self/maps after their
 * import and GPU work, in the order recorded and again in the other): one soname mapped from two
 * places, two distributions that installed the same file, a library from outside the environment
 * and the plan's CUDA install (a system CUDA through LD_LIBRARY_PATH, ld.so.conf or a default
 * folder), and a framework that reports a runtime older than it was built against.  Each failure
 * names the path, what made the loader take it (the variable and the file that sets it, the
 * ld.so.conf file) and the fix.  The libraries go to verify's libraries[] (DESIGN).
 */
#include "config.h"

#include "core/verify/verify_loaded.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/str.h"
#include "core/catalog/catalog.h"
#include "core/machine/ldpath.h"
#include "core/resolve/plan.h"
#include "core/verify/checks.h"
#include "core/verify/verify.h"

static char *
dir_of(const char *path)
{
    char *d = cu_xstrdup(path);
    char *s = strrchr(d, '/');
    if (s)
        *(s == d ? s + 1 : s) = '\0';
    return d;
}

static bool
under(const char *path, const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return n && strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* What made the loader take a library from folder @dir, and the fix: @why and @fix (caller frees). */
static void
responsible(const struct cu_verify_opts *o, const struct cu_ldconf *conf, const char *llp, const char *dir,
            const char *env_name, char **why, char **fix)
{
    cu_ld_blame(o->ld_root, o->envp, o->state_dir, conf, CU_LD_NONE, llp, dir, env_name, why, fix);
}

/* Is @path the environment's own: under one of its site-packages folders @sites (else under @prefix)? */
static bool
in_env(const json_t *sites, const char *prefix, const char *path)
{
    if (!json_array_size(sites))
        return prefix && under(path, prefix);
    for (size_t i = 0; i < json_array_size(sites); i++) {
        const char *s = json_string_value(json_array_get(sites, i));
        char real[PATH_MAX];
        if (s && (under(path, s) || (realpath(s, real) && under(path, real))))
            return true;
    }
    return false;
}

/* The owner a library is listed with: its distribution, the plan's CUDA install, or its folder. */
static char *
owner_of(const json_t *lib, const char *cuda_dir, const char *path)
{
    const json_t *owners = json_object_get(lib, "owners");
    if (json_array_size(owners) && json_is_string(json_array_get(owners, 0)))
        return cu_xstrdup(json_string_value(json_array_get(owners, 0)));
    if (cuda_dir && under(path, cuda_dir))
        return cu_xasprintf(_("the CUDA install %s"), cuda_dir);
    return dir_of(path);
}

/* How a runtime the probe reports is written in a sentence. */
static const char *
runtime_title(const char *kind)
{
    return strcmp(kind, "cudnn") == 0 ? "cuDNN" : strcmp(kind, "cublas") == 0 ? "cuBLAS"
           : strcmp(kind, "cudart") == 0 ? _("the CUDA runtime") : kind;
}

/* The mapped library a runtime of @kind ("cudnn", "cublas", "cudart") came from, in @libs. */
static const json_t *
lib_of_kind(const json_t *libs, const char *kind)
{
    CU_AUTOFREE char *pre = cu_xasprintf("lib%s.so", kind);
    for (size_t i = 0; i < json_array_size(libs); i++) {
        const char *n = cu_json_str(json_array_get(libs, i), "name");
        if (n && cu_str_has_prefix(n, pre))
            return json_array_get(libs, i);
    }
    return NULL;
}

/* The problems the libraries show, each said once (the same one seen in both orders is one). */
struct lproblems {
    struct cu_strv keys;
    struct lproblem {
        char *detail, *fix, *framework;
    } *v;
    size_t n;
};

/* Add a problem under @key unless one is there; takes @detail and @fix. */
static void
lp_add(struct lproblems *ps, const char *key, char *detail, char *fix, const char *framework)
{
    if (cu_strv_contains(&ps->keys, key)) {
        free(detail);
        free(fix);
        return;
    }
    cu_strv_push(&ps->keys, key);
    ps->v = cu_xreallocarray(ps->v, ps->n + 1, sizeof(*ps->v));
    ps->v[ps->n++] = (struct lproblem){detail, fix, framework ? cu_xstrdup(framework) : NULL};
}

/* The library file name stem a framework's name for a component is ("cuBLAS" -> "cublas"). */
static const char *
component_kind(const char *component)
{
    static const char *const map[][2] = {{"CUDA", "cudart"}, {"cuDNN", "cudnn"}, {"cuBLAS", "cublas"},
                                         {"cuFFT", "cufft"},  {"cuPTI", "cupti"}, {"cuSPARSE", "cusparse"}};
    for (size_t i = 0; i < sizeof(map) / sizeof(*map); i++)
        if (strcasecmp(map[i][0], component) == 0)
            return map[i][1];
    return NULL;
}

static const char *
kind_component(const char *kind)
{
    return strcmp(kind, "cudnn") == 0 ? "cuDNN" : strcmp(kind, "cublas") == 0 ? "cuBLAS" : strcmp(kind, "cudart") == 0 ? "CUDA" : kind;
}

/* Does "loaded" break @rule against "built" (both "9.1.0"-like texts)? */
static bool
breaks(const struct cu_cat_runtime_check *rule, const char *loaded, const char *built)
{
    struct cu_version l, b;
    if (!loaded || !built || !cu_version_parse(loaded, &l) || !cu_version_parse(built, &b))
        return false;
    if (strcmp(rule->rule, "same-major") == 0)
        return l.part[0] != b.part[0];
    if (strcmp(rule->rule, "same-major-minor-at-least") == 0)
        return l.part[0] != b.part[0] || (b.n > 1 && l.n > 1 && l.part[1] < b.part[1]);
    return false;
}

/* "8.2.4" against "8.7.0": the same major, older (to the precision both give); or another major. */
static bool
older(const char *loaded, const char *built)
{
    struct cu_version l, b;
    if (!loaded || !built || !cu_version_parse(loaded, &l) || !cu_version_parse(built, &b))
        return false;
    if (l.part[0] != b.part[0])
        return true;
    int n = l.n < b.n ? l.n : b.n;
    l.n = b.n = n;
    return cu_version_cmp(&l, &b) < 0;
}

/* The framework's release and CUDA major as the probe reports them. */
static void
fw_release(const json_t *fw, struct cu_version *v, int *cuda_major)
{
    const char *ver = cu_json_str(fw, "version"), *cuda = cu_json_str(fw, "cuda_build");
    struct cu_version c;
    memset(v, 0, sizeof(*v));
    *cuda_major = cuda && cu_version_parse(cuda, &c) ? (int)c.part[0] : 0;
    if (ver) {
        CU_AUTOFREE char *pub = cu_xstrndup(ver, strcspn(ver, "+"));
        if (!cu_version_parse(pub, v))
            memset(v, 0, sizeof(*v));
    }
}

/* Where a library outside the environment came from, appended to @detail's sentence: its cause and fix. */
static void
outside_cause(const struct cu_verify_opts *o, const struct cu_ldconf *conf, const char *llp, const char *path,
              const char *env_name, char **why, char **fix)
{
    CU_AUTOFREE char *dir = dir_of(path);
    responsible(o, conf, llp, dir, env_name, why, fix);
}

void
cu_verify_judge_libraries(const struct cu_verify_opts *o, const char *env_name, bool bundled, const json_t *const *runs,
                          size_t n_runs, struct cu_checks *out)
{
    char cuda_real[PATH_MAX];
    const char *cuda_dir = o->dir && realpath(o->dir, cuda_real) ? cuda_real : o->dir;
    struct cu_ldconf conf;
    if (o->ld_root)
        cu_ldconf_read(o->ld_root, o->cancel, &conf);
    else
        memset(&conf, 0, sizeof(conf));
    const char *prefix = n_runs ? cu_json_str(runs[0], "prefix") : NULL;
    /* The environment's own: its site-packages, where the wheels are (a conda environment's lib/ may hold
     * CUDA libraries of conda's that come before them); the prefix when the probe does not say. */
    const json_t *sites = n_runs ? json_object_get(runs[0], "site") : NULL;
    const char *llp = n_runs ? cu_json_str(runs[0], "ld_library_path") : NULL;
    json_t *all = json_array();
    struct cu_buf names, owners;
    cu_buf_init(&names);
    cu_buf_init(&owners);
    struct lproblems ps;
    memset(&ps, 0, sizeof(ps));
    cu_strv_init(&ps.keys);
    for (size_t r = 0; r < n_runs; r++) {
        const json_t *libs = json_object_get(runs[r], "libraries");
        /* 1. One soname, two files: the first loaded serves the process, whatever the second's owner expects. */
        for (size_t i = 0; i < json_array_size(libs); i++)
            for (size_t k = i + 1; k < json_array_size(libs); k++) {
                const json_t *a = json_array_get(libs, i), *b = json_array_get(libs, k);
                const char *na = cu_json_str(a, "name"), *nb = cu_json_str(b, "name");
                const char *ra = cu_json_str(a, "real"), *rb = cu_json_str(b, "real");
                if (!na || !nb || !ra || !rb || strcmp(na, nb) != 0 || strcmp(ra, rb) == 0)
                    continue;
                CU_AUTOFREE char *oa = owner_of(a, cuda_dir, ra), *ob = owner_of(b, cuda_dir, rb);
                CU_AUTOFREE char *key = cu_xasprintf("twice:%s", na);
                bool in_a = in_env(sites, prefix, ra), in_b = in_env(sites, prefix, rb);
                if (in_a != in_b) {
                    /* One copy from outside the environment: what brought it there is the cause to fix. */
                    const json_t *outer = in_a ? b : a;
                    char *why = NULL, *fix = NULL;
                    outside_cause(o, &conf, llp, cu_json_str(outer, "path"), env_name, &why, &fix);
                    lp_add(&ps, key,
                           cu_xasprintf(_("%s is mapped twice in one process, from %s (%s) and from %s (%s): the copy from outside the environment came because %s"),
                                        na, cu_json_str(a, "path"), oa, cu_json_str(b, "path"), ob, why),
                           fix, cu_json_str(outer, "framework"));
                    free(why);
                } else {
                    lp_add(&ps, key,
                           cu_xasprintf(_("%s is mapped twice in one process, from %s (%s) and from %s (%s): whatever loads it by name gets the first"),
                                        na, cu_json_str(a, "path"), oa, cu_json_str(b, "path"), ob),
                           cu_xstrdup(_("keep one copy: give each framework an environment of its own (cudaup install --framework A --framework B), or remove the distribution that brought the second")),
                           cu_json_str(b, "framework"));
                }
            }
        /* 4. Each framework by its own rule: the versions it holds the libraries it loaded to
         * (data/compat/framework_runtime_checks.csv), not a rule stricter than its own. */
        const json_t *fws = json_object_get(runs[r], "frameworks");
        for (size_t f = 0; f < json_array_size(fws); f++) {
            const json_t *fw = json_array_get(fws, f);
            const char *me = cu_json_str(fw, "framework");
            const char *title = cu_framework_title(me ? me : "");
            struct cu_version rel;
            int major;
            fw_release(fw, &rel, &major);
            const json_t *vc = json_object_get(fw, "version_checks");
            struct cu_strv judged; /* components a rule of the framework's own judged in its own integers */
            cu_strv_init(&judged);
            /* JAX's own check at its plugin's start, in JAX's integers. */
            for (size_t i = 0; me && i < json_array_size(vc); i++) {
                const json_t *c = json_array_get(vc, i);
                const char *comp = cu_json_str(c, "component");
                const json_t *jb = json_object_get(c, "built"), *jl = json_object_get(c, "loaded");
                if (!comp || !json_is_integer(jb) || !json_is_integer(jl))
                    continue;
                const struct cu_cat_runtime_check *rules[4];
                size_t nr = o->cat ? cu_catalog_runtime_checks(&o->cat->loads, me, &rel, major, comp, rules, 4) : 0;
                for (size_t k = 0; k < nr; k++) {
                    if (strcmp(rules[k]->rule, "min") != 0 && strcmp(rules[k]->rule, "build") != 0)
                        continue;
                    if (component_kind(comp) && !cu_strv_contains(&judged, component_kind(comp)))
                        cu_strv_push(&judged, component_kind(comp));
                    /* "build": JAX's own arithmetic, read in _version_check of jax_plugins/xla_cudaNN/__init__.py
                     * (0.10.2): `min_supported_version = build_version // scale_for_comparison; passed =
                     * min_supported_version <= version`, the version itself unscaled; so a cuDNN 9.8 (90800) passes
                     * a 9.10 build's 910.  Measured with the real JAX 0.10.2 cuda12 plugin: cuFFT 11303 beside its
                     * 11400 build passes its own check. */
                    long scale = rules[k]->scale > 0 ? rules[k]->scale : 1;
                    long min = strcmp(rules[k]->rule, "min") == 0 ? rules[k]->minimum
                                                                   : (long)json_integer_value(jb) / scale;
                    long have = (long)json_integer_value(jl);
                    if (have >= min)
                        continue;
                    const char *kind = component_kind(comp);
                    const json_t *l = kind ? lib_of_kind(libs, kind) : NULL;
                    const char *path = l ? cu_json_str(l, "path") : NULL;
                    char *why = NULL, *fix = NULL;
                    if (path && !in_env(sites, prefix, cu_json_str(l, "real")))
                        outside_cause(o, &conf, llp, path, env_name, &why, &fix);
                    else
                        fix = cu_xstrdup(_("install the environment again (cudaup install): its constraints hold the release it was built against"));
                    CU_AUTOFREE char *key = cu_xasprintf("rule:%s:%s", me, comp);
                    lp_add(&ps, key,
                           cu_xasprintf(_("%s holds %s to %ld or newer (its own check: %s), and loaded %ld%s%s%s%s"), title, comp,
                                        min, rules[k]->source, have, path ? _(" from ") : "", path ? path : "",
                                        why ? ": " : "", why ? why : ""),
                           fix, me);
                    free(why);
                }
            }
            json_t *rt = json_object_get(fw, "runtime");
            const char *kind;
            json_t *v;
            json_object_foreach(rt, kind, v) {
                const char *built = cu_json_str(v, "built"), *loaded = cu_json_str(v, "loaded");
                const char *comp = kind_component(kind);
                if (!me || (cu_strv_contains(&judged, kind) && strcmp(kind, "cudnn") != 0))
                    continue; /* JAX's own check above judged it */
                const struct cu_cat_runtime_check *rules[4];
                size_t nr = o->cat ? cu_catalog_runtime_checks(&o->cat->loads, me, &rel, major, comp, rules, 4) : 0;
                /* Where no rule of the framework's own is recorded for the component: older than its build fails. */
                bool broken = nr == 0 && older(loaded, built);
                for (size_t k = 0; k < nr && !broken; k++)
                    broken = breaks(rules[k], loaded, built);
                if (!broken)
                    continue;
                const json_t *l = lib_of_kind(libs, kind);
                const char *path = l ? cu_json_str(l, "path") : NULL;
                const char *by = l ? cu_json_str(l, "framework") : NULL;
                CU_AUTOFREE char *key = cu_xasprintf("runtime:%s:%s", me, kind);
                if (path && by && strcmp(by, me) != 0 && in_env(sites, prefix, cu_json_str(l, "real"))) {
                    /* Loaded first by another framework of the set: the loader gives every later request for
                     * that soname the same library (jax-ml/jax#19004, "the first one to load it wins"). */
                    lp_add(&ps, key,
                           cu_xasprintf(_("%s was built against %s %s but loaded %s from %s, which %s, imported before it, had loaded: the loader gives every later request for %s that one"),
                                        title, runtime_title(kind), built, loaded, path, cu_framework_title(by),
                                        cu_json_str(l, "name")),
                           cu_xstrdup(_("give each framework an environment of its own (cudaup install --framework A --framework B), or let cudaup plan releases that share one cuDNN (cudaup install --framework A,B)")),
                           me);
                } else if (path) {
                    char *why = NULL, *fix = NULL;
                    outside_cause(o, &conf, llp, path, env_name, &why, &fix);
                    lp_add(&ps, key,
                           cu_xasprintf(_("%s was built against %s %s but loaded %s from %s: %s"), title, runtime_title(kind),
                                        built, loaded, path, why),
                           fix, me);
                    free(why);
                } else {
                    lp_add(&ps, key, cu_xasprintf(_("%s was built against %s %s but loaded %s"), title, runtime_title(kind), built, loaded),
                           cu_xstrdup(_("install the environment again (cudaup install): its constraints hold the release it was built against")),
                           me);
                }
            }
            cu_strv_fini(&judged);
        }
        for (size_t i = 0; i < json_array_size(libs); i++) {
            const json_t *l = json_array_get(libs, i);
            const char *path = cu_json_str(l, "path"), *real = cu_json_str(l, "real"), *name = cu_json_str(l, "name");
            const json_t *own = json_object_get(l, "owners");
            if (!path || !real || !name)
                continue;
            bool seen = false;
            for (size_t k = 0; k < json_array_size(all) && !seen; k++)
                seen = strcmp(cu_json_str(json_array_get(all, k), "path"), path) == 0;
            CU_AUTOFREE char *owner = owner_of(l, cuda_dir, real);
            if (!seen) {
                json_t *e = json_object();
                json_object_set_new(e, "name", json_string(name));
                json_object_set_new(e, "path", json_string(path));
                json_object_set_new(e, "version", cu_json_str_or_null(cu_json_str(l, "version")));
                json_object_set_new(e, "owner", json_string(owner));
                json_object_set_new(e, "framework", cu_json_str_or_null(cu_json_str(l, "framework")));
                json_array_append_new(all, e);
                if (json_array_size(own) && !strstr(owners.data ? owners.data : "", owner))
                    cu_buf_printf(&owners, "%s%s", owners.len ? ", " : "", owner);
            }
            /* 2. Two distributions wrote this one file (the second over the first). */
            if (json_array_size(own) > 1) {
                CU_AUTOFREE char *key = cu_xasprintf("owners:%s", real);
                lp_add(&ps, key,
                       cu_xasprintf(_("%s belongs to two distributions, %s and %s: the second installed it over the first"),
                                    real, json_string_value(json_array_get(own, 0)), json_string_value(json_array_get(own, 1))),
                       cu_xstrdup(_("remove both and install the one the environment's frameworks agree on (cudaup install with the same frameworks plans it), or give each framework an environment of its own")),
                       NULL);
            }
            /* 3. From outside the environment and the plan's CUDA install (or, for frameworks that bring
             * their own CUDA wheels, from the CUDA install too: it comes before them).  Each library. */
            bool own_env = in_env(sites, prefix, real);
            bool planned = !bundled && cuda_dir && under(real, cuda_dir);
            CU_AUTOFREE char *twice = cu_xasprintf("twice:%s", name);
            if (!own_env && !planned && !cu_strv_contains(&ps.keys, twice)) { /* "mapped twice" said it already */
                char *why = NULL, *fix = NULL;
                outside_cause(o, &conf, llp, path, env_name, &why, &fix);
                CU_AUTOFREE char *key = cu_xasprintf("outside:%s", real);
                lp_add(&ps, key,
                       cu_xasprintf(_("%s was loaded from %s, outside the environment%s: %s"), name, path,
                                    bundled ? "" : _(" and the plan's CUDA install"), why),
                       fix, cu_json_str(l, "framework"));
                free(why);
            }
        }
    }
    /* 5. A framework that does not import because a library the loader took is not the one its
     * dependency needs (an undefined symbol, a library it cannot open): what its ELF asks for, resolved
     * as the loader does, and each that comes from outside the environment. */
    for (size_t r = 0; o->ld_root && r < n_runs; r++) {
        const json_t *fws = json_object_get(runs[r], "frameworks");
        for (size_t f = 0; f < json_array_size(fws); f++) {
            const char *ie = cu_json_str(json_array_get(fws, f), "import_error");
            const char *start = ie ? strchr(ie, '/') : NULL;
            if (!start)
                continue;
            CU_AUTOFREE char *obj = cu_xstrndup(start, strcspn(start, ": "));
            struct cu_elf_dyn d;
            struct cu_error e;
            if (!strstr(obj, ".so") || cu_elf_dyn_read(o->ld_root, obj, &d, &e) != CU_OK)
                continue;
            for (size_t k = 0; k < d.n_needed; k++) {
                struct cu_ld_hit hit;
                if (!cu_ld_cuda_lib(d.needed[k]) || !cu_ld_find(o->ld_root, d.needed[k], obj, &d, llp, &conf, &hit))
                    continue;
                if (!in_env(sites, prefix, hit.path) && !(!bundled && cuda_dir && under(hit.path, cuda_dir))) {
                    CU_AUTOFREE char *dir = dir_of(hit.path);
                    char *why = NULL, *fix = NULL;
                    cu_ld_blame(o->ld_root, o->envp, o->state_dir, &conf, hit.via, llp, dir, env_name, &why, &fix);
                    const char *fwn = cu_json_str(json_array_get(fws, f), "framework");
                    CU_AUTOFREE char *key = cu_xasprintf("import:%s:%s", fwn ? fwn : "", d.needed[k]);
                    lp_add(&ps, key,
                           cu_xasprintf(_("%s does not import (%s): %s needs %s, and the loader takes %s: %s"),
                                        cu_framework_title(fwn), ie, obj, d.needed[k], hit.path, why),
                           fix, fwn);
                    free(why);
                }
                free(hit.path);
            }
            cu_elf_dyn_fini(&d);
        }
    }
    /* The frameworks, in the orders they were imported. */
    const json_t *order = n_runs ? json_object_get(runs[0], "order") : NULL;
    for (size_t i = 0; i < json_array_size(order); i++)
        cu_buf_printf(&names, "%s%s", i ? ", " : "", cu_framework_title(json_string_value(json_array_get(order, i))));
    size_t n = json_array_size(all);
    if (ps.n) {
        for (size_t i = 0; i < ps.n; i++) {
            cu_checks_add_fix(out, "libraries", CU_CHECK_FAIL, ps.v[i].detail, ps.v[i].fix);
            cu_checks_about(out, ps.v[i].framework);
            free(ps.v[i].framework);
        }
    } else if (n == 0) {
        cu_checks_add(out, "libraries", CU_CHECK_SKIP, _("%s mapped no CUDA library: no GPU work loaded one"), names.data);
    } else if (n_runs > 1) {
        cu_checks_add(out, "libraries", CU_CHECK_PASS,
                      ngettext_("%s, imported in both orders: %zu CUDA library mapped, each once and from %s (%s)",
                                "%s, imported in both orders: %zu CUDA libraries mapped, each once and from %s (%s)", n),
                      names.data, n, bundled ? _("the environment's own wheels") : _("the environment or the plan's CUDA install"),
                      owners.len ? owners.data : cuda_dir ? cuda_dir : "");
    } else {
        cu_checks_add(out, "libraries", CU_CHECK_PASS,
                      ngettext_("%s: %zu CUDA library mapped, each once and from %s (%s)",
                                "%s: %zu CUDA libraries mapped, each once and from %s (%s)", n),
                      names.data, n, bundled ? _("the environment's own wheels") : _("the environment or the plan's CUDA install"),
                      owners.len ? owners.data : cuda_dir ? cuda_dir : "");
    }
    if (!ps.n && json_array_size(order) == 1) /* about the one framework imported */
        cu_checks_about(out, json_string_value(json_array_get(order, 0)));
    free(ps.v);
    cu_strv_fini(&ps.keys);
    if (!out->libraries)
        out->libraries = json_array();
    json_array_extend(out->libraries, all);
    json_decref(all);
    cu_buf_fini(&names);
    cu_buf_fini(&owners);
    cu_ldconf_fini(&conf);
}
