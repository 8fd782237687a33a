/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/resolve/resolve.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/catalog/gpucode.h"
#include "core/resolve/resolve_int.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"

/* ---- components --------------------------------------------------------------- */

static bool
has_platform(const struct cu_package *p, const char *platform)
{
    return cu_package_artifact(p, platform, NULL) != NULL;
}

/* What a component cannot work without comes along (nvcc needs its headers). */
static const struct {
    const char *key;
    const char *needs[4];
} deps[] = {
    {"cuda_nvcc", {"cuda_cudart", "cuda_crt", "libnvvm", NULL}},
    {"libcublas", {"cuda_cudart", NULL}},
    {"libcusolver", {"libcublas", "libcusparse", "libnvjitlink", NULL}},
    {"libcusparse", {"libnvjitlink", NULL}},
};

bool
cu_component_needs(const char *key, const char *other)
{
    for (size_t i = 0; i < CU_N_ELEMENTS(deps); i++)
        if (strcmp(deps[i].key, key) == 0)
            for (size_t k = 0; deps[i].needs[k]; k++)
                if (strcmp(deps[i].needs[k], other) == 0 || cu_component_needs(deps[i].needs[k], other))
                    return true;
    return false;
}

static void
add_component(struct cu_strv *out, const struct cu_manifest *m, const char *key, const char *platform)
{
    const struct cu_package *p = cu_manifest_package(m, key);
    if (!p || !has_platform(p, platform) || cu_strv_contains(out, key))
        return;
    cu_strv_push(out, key);
    for (size_t i = 0; i < CU_N_ELEMENTS(deps); i++)
        if (strcmp(deps[i].key, key) == 0)
            for (size_t k = 0; deps[i].needs[k]; k++)
                add_component(out, m, deps[i].needs[k], platform);
}

static enum cu_status
pick_components(struct rs *r, const struct cu_manifest *m, struct cu_strv *out)
{
    const char *spec = r->in->wishes->components;
    char b1[32];
    struct cu_version mv = vp(m->label);

    if (!spec || !*spec || strcmp(spec, "default") == 0) {
        for (char **c = r->cat->components_default; c && *c; c++)
            add_component(out, m, *c, r->platform);
        return CU_OK;
    }
    if (strcmp(spec, "all") == 0) {
        for (size_t i = 0; i < m->n_packages; i++)
            if (!cu_catalog_component_never(r->cat, m->packages[i].key))
                add_component(out, m, m->packages[i].key, r->platform);
        return CU_OK;
    }
    struct cu_strv items;
    cu_strv_init(&items);
    cu_strv_split(&items, spec, ",");
    enum cu_status st = CU_OK;
    for (size_t i = 0; i < items.n && st == CU_OK; i++) {
        const char *it = items.v[i];
        char **group = cu_catalog_component_group(r->cat, it);
        if (strcmp(it, "default") == 0) {
            for (char **c = r->cat->components_default; c && *c; c++)
                add_component(out, m, *c, r->platform);
        } else if (group) {
            for (char **c = group; *c; c++)
                add_component(out, m, *c, r->platform);
        } else if (cu_catalog_component_never(r->cat, it)) {
            st = cu_error_set(r->err, CU_E_USAGE, 0,
                              _("cudaup never installs %s: the driver and its services belong to the system's package manager."),
                              it);
        } else {
            const struct cu_package *p = cu_manifest_package(m, it);
            if (!p) {
                st = cu_error_set(r->err, CU_E_USAGE, 0,
                                  _("--components: CUDA %s has no component '%s' (groups: runtime, compiler, math, nvrtc, nvjitlink, cupti, cccl, profiler, tools, nsight)."),
                                  V(&mv, b1, sizeof(b1)), it);
            } else if (!has_platform(p, r->platform)) {
                st = cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("CUDA %s has no %s archive for %s."),
                                  V(&mv, b1, sizeof(b1)), it, r->platform);
            } else {
                add_component(out, m, it, r->platform);
            }
        }
    }
    cu_strv_fini(&items);
    if (st == CU_OK && out->n == 0)
        st = cu_error_set(r->err, CU_E_USAGE, 0, _("--components: '%s' selects nothing to install."), spec);
    return st;
}

static void
add_download(struct cu_plan *p, const struct cu_manifest_source *src, enum cu_product prod,
             const struct cu_package *pkg, const struct cu_artifact *a)
{
    p->downloads = cu_xreallocarray(p->downloads, p->n_downloads + 1, sizeof(*p->downloads));
    struct cu_plan_download *d = &p->downloads[p->n_downloads++];
    memset(d, 0, sizeof(*d));
    d->product = prod;
    d->component = cu_xstrdup(pkg->key);
    d->version = cu_xstrdup(pkg->version);
    d->title = cu_xstrdup(pkg->name);
    d->relative_path = cu_xstrdup(a->relative_path);
    d->url = cu_xasprintf("%s/%s/redist/%s", src->base_url, cu_product_name(prod), a->relative_path);
    memcpy(d->sha256, a->sha256, sizeof(d->sha256));
    d->size = a->size;
    p->download_bytes += a->size;
}

/* ---- putting a candidate together ------------------------------------------------- */

static void
choose_python(const struct rs *r, const struct fwopt *o, struct cu_version *out)
{
    if (r->py_wish.n) {
        *out = r->py_wish;
        return;
    }
    struct cu_version cap = vp(DEFAULT_PYTHON_MAX);
    if (o->py_max.n && cu_version_cmp(&o->py_max, &cap) < 0)
        cap = o->py_max;
    if (o->py_min.n && cu_version_cmp(&cap, &o->py_min) < 0)
        cap = o->py_min;
    *out = cap;
}

/* The framework's GPU code in the plan: per GPU how it runs, with the reasons and warnings. */
static void
explain_code(struct rs *r, const struct fwopt *o, struct cu_plan *p, struct cu_plan_framework *fw)
{
    char b1[32], b2[32];
    if (o->bundled && r->have_driver) {
        struct cu_version min;
        if (rs_driver_runs_major(r, (int)o->build_cuda.part[0], &min))
            cu_plan_reason(p, _("%s brings its own CUDA %s runtime: by NVIDIA's minor-version compatibility it needs driver %s or newer, and this machine has %s."),
                           o->title, cu_version_format(&o->build_cuda, o->cuda_mm.n ? 0 : 1, b1, sizeof(b1)),
                           D(&min, b2, sizeof(b2)),
                           r->driver_text);
    }
    if (o->local_needs)
        cu_plan_warn(p, "%s", o->local_needs);
    if (!r->constrained)
        return;
    fw->code_confidence = o->code ? cu_xstrdup(o->code->read ? "read" : "inferred") : NULL;
    fw->gpu_code = cu_xcalloc(r->f->n_gpus + 1, sizeof(*fw->gpu_code));
    for (size_t i = 0; i < r->f->n_gpus; i++) {
        const struct cu_gpu_info *g = &r->f->gpus[i];
        struct cu_plan_gpu_code *e = &fw->gpu_code[fw->n_gpu_code++];
        e->gpu = g->index;
        if (!o->code || !g->cc.n) {
            e->code = cu_xstrdup("unknown");
            continue;
        }
        e->code = cu_xstrdup(cu_code_fit_name(o->fit[i]));
        e->target = cu_xasprintf(o->fit[i] == CU_CODE_SASS ? "sm_%d" : "compute_%d", o->target[i]);
        if (o->fit[i] == CU_CODE_SASS)
            cu_plan_reason(p, _("%s runs on GPU %d (compute capability %s) with its sm_%d code%s."), o->title, g->index,
                           V(&g->cc, b1, sizeof(b1)), o->target[i],
                           o->code->read || o->code->source ? "" : _(" (what the build carries is inferred, not read)"));
        else if (o->target[i] / 10 == (int)g->cc.part[0])
            cu_plan_warn(p, _("GPU %d (%s, compute capability %s) runs %s by JIT-compiling its PTX compute_%d: the first start compiles kernels for minutes (the driver caches them)."),
                         g->index, g->name, V(&g->cc, b1, sizeof(b1)), o->title, o->target[i]);
        else
            cu_plan_warn(p, _("GPU %d (%s, compute capability %s) runs %s only by JIT-compiling its PTX compute_%d, written for an older architecture: the first start compiles kernels for minutes, and failures are reported on such GPUs; a build with real code for compute capability %s is safer."),
                         g->index, g->name, V(&g->cc, b1, sizeof(b1)), o->title, o->target[i],
                         V(&g->cc, b2, sizeof(b2)));
    }
    /* Said once, after the GPUs: where the data is only inferred and its source known. */
    if (o->code && !o->code->read && o->code->source)
        cu_plan_reason_src(p, o->code->source,
                           _("What GPU code %s carries is inferred (from neighbouring releases and documentation), not read from its wheels."),
                           o->title);
    if (!o->code && r->f->n_gpus > 0)
        cu_plan_warn(p, _("cudaup has no record of the GPU code inside %s, so it cannot promise that it runs on the GPUs here."),
                     o->title);
}

static enum cu_status
fill_plan(struct rs *r, const struct fwopt *o, const struct cu_manifest *cm, const struct cu_version *cv,
          const struct cu_version *need, struct cu_strv *components, const struct cudnn_pick *dn,
          struct cu_plan **out)
{
    struct cu_plan *p = cu_plan_new();
    char b1[32], b2[32], b3[32];
    const struct cu_manifest_source *src = r->in->src;

    p->platform = cu_xstrdup(r->platform);
    p->base_url = cu_xstrdup(src->base_url);
    p->prefix = cu_xstrdup(r->in->prefix);
    p->cuda = *cv;
    p->cuda_driver = *need;
    p->cuda_path = cu_xasprintf("%s/cuda-%s", r->in->prefix, cu_version_format(cv, 2, b1, sizeof(b1)));
    p->cuda_manifest = cm;
    p->components = cu_steal_ptr(&components->v);
    components->n = 0;
    for (char **c = p->components; c && *c; c++) {
        const struct cu_package *pkg = cu_manifest_package(cm, *c);
        add_download(p, src, CU_PRODUCT_CUDA, pkg, cu_package_artifact(pkg, r->platform, NULL));
    }
    if (dn->m) {
        p->has_cudnn = true;
        p->cudnn = dn->label;
        p->cudnn_full = cu_xstrdup(dn->pkg->version);
        p->cudnn_variant = cu_xstrdup(dn->art->variant);
        p->cudnn_manifest = dn->m;
        add_download(p, src, CU_PRODUCT_CUDNN, dn->pkg, dn->art);
    }

    /* Reasons, in the order a reader asks them. */
    for (size_t i = 0; r->constrained && i < r->f->n_gpus; i++) {
        const struct cu_gpu_info *g = &r->f->gpus[i];
        if (g->cc.n)
            cu_plan_reason(p, _("GPU %d: %s, compute capability %s%s%s%s."), g->index, g->name,
                           V(&g->cc, b1, sizeof(b1)), g->arch ? " (" : "", g->arch ? g->arch : "",
                           g->arch ? ")" : "");
    }
    if (o->why)
        cu_plan_reason(p, "%s", o->why);
    if (r->sweep == 1) {
        cu_plan_reason(p, _("CUDA %s for the system, not %s: driver %s does not run CUDA %s natively. The %s wheels bring their own CUDA %s runtime, which runs on it by NVIDIA's minor-version compatibility; the system CUDA %s, of the same major, serves the tools and the extensions you build."),
                       V(cv, b1, sizeof(b1)), V(&o->cuda_mm, b2, sizeof(b2)), r->driver_text,
                       V(&o->cuda_mm, (char[32]){0}, 32), o->title, V(&o->build_cuda, (char[32]){0}, 32),
                       V(cv, (char[32]){0}, 32));
    } else if (r->sweep == 2) {
        struct cu_version min = {{0}, 0};
        rs_driver_runs_major(r, (int)cv->part[0], &min);
        cu_plan_reason(p, _("CUDA %s: driver %s is older than every CUDA %u release with archives needs, so cudaup takes the newest that fits; it runs on this driver by NVIDIA's minor-version compatibility (CUDA %u.x on driver %s or newer)."),
                       V(cv, b1, sizeof(b1)), r->driver_text, cv->part[0], cv->part[0],
                       D(&min, b3, sizeof(b3)));
        cu_plan_warn(p, _("Driver %s runs CUDA %s only by minor-version compatibility: programs built for this GPU run, but PTX compiled at run time and some newer features need driver %s or newer."),
                     r->driver_text, V(cv, b2, sizeof(b2)), D(need, b3, sizeof(b3)));
    } else if (r->cuda.kind == SPEC_AUTO) {
        if (r->have_driver && r->driver_planned)
            cu_plan_reason(p, _("CUDA %s: the newest release that fits; it needs driver %s, and the driver this plan installs is %s."),
                           V(cv, b1, sizeof(b1)), D(need, b2, sizeof(b2)), D(&r->driver, b3, sizeof(b3)));
        else if (r->have_driver)
            cu_plan_reason(p, _("CUDA %s: the newest release that fits; it needs driver %s and this machine has %s."),
                           V(cv, b1, sizeof(b1)), D(need, b2, sizeof(b2)), r->driver_text);
        else
            cu_plan_reason(p, _("CUDA %s: the newest release that fits; it needs driver %s or newer."),
                           V(cv, b1, sizeof(b1)), D(need, b2, sizeof(b2)));
    } else {
        if (strcmp(V(cv, b1, sizeof(b1)), r->in->wishes->cuda) == 0)
            cu_plan_reason(p, _("CUDA %s, as asked."), b1);
        else
            cu_plan_reason(p, _("CUDA %s: the newest %s release, as asked."), b1, r->in->wishes->cuda);
    }
    if (dn->m) {
        cu_plan_reason(p, _("cuDNN %s (the build for CUDA %s): the newest that fits this CUDA, driver and GPU."),
                       dn->pkg->version ? dn->pkg->version : V(&dn->label, b1, sizeof(b1)), dn->art->variant);
        if (r->cudnn_skip[0])
            cu_plan_reason(p, _("Not a newer cuDNN: %s"), r->cudnn_skip);
        if (r->cudnn_note[0])
            cu_plan_reason(p, "%s", r->cudnn_note);
    }
    else if (r->cudnn.kind == SPEC_NONE)
        cu_plan_reason(p, _("No cuDNN, as asked."));

    if (r->fw.fw != CU_FW_NONE) {
        struct cu_plan_framework *fw = cu_xcalloc(1, sizeof(*fw));
        struct cu_version py;
        choose_python(r, o, &py);
        fw->kind = r->fw.fw;
        fw->name = cu_xstrdup(cu_framework_name(r->fw.fw));
        fw->version = cu_xstrdup(o->version);
        fw->python = cu_xstrdup(V(&py, b1, sizeof(b1)));
        if (o->py_min.n) {
            fw->py_min = cu_xstrdup(V(&o->py_min, b1, sizeof(b1)));
            fw->py_max = cu_xstrdup(V(&o->py_max, b1, sizeof(b1)));
        }
        fw->pip = cu_xcalloc(o->pip.n + 1, sizeof(char *));
        for (size_t i = 0; i < o->pip.n; i++)
            fw->pip[i] = cu_xstrdup(o->pip.v[i]);
        fw->index_url = cu_xstrdup(o->index_url);
        fw->cuda_tag = cu_xstrdup(o->tag);
        fw->bundled_runtime = o->bundled;
        fw->constraints = cu_xcalloc(o->constraints.n + 1, sizeof(char *));
        for (size_t i = 0; i < o->constraints.n; i++)
            fw->constraints[i] = cu_xstrdup(o->constraints.v[i]);
        p->framework = fw;
        explain_code(r, o, p, fw);
        for (size_t i = 0; i < o->lib_reasons.n; i++)
            cu_plan_reason(p, "%s", o->lib_reasons.v[i]);
        if (r->py_wish.n)
            cu_plan_reason(p, _("Python %s, as asked."), fw->python);
        else if (o->py_max.n && cu_version_cmp(&py, &o->py_max) == 0)
            cu_plan_reason(p, _("Python %s: the newest %s supports."), fw->python, o->title);
        else if (o->py_max.n) /* the framework goes further than cudaup's default ceiling, or starts above it */
            cu_plan_reason(p, _("Python %s: %s supports %s to %s, and cudaup takes the newest up to %s unless --python asks for another."),
                           fw->python, o->title, fw->py_min, fw->py_max, DEFAULT_PYTHON_MAX);
        else
            cu_plan_reason(p, _("Python %s: cudaup's default."), fw->python);
    }
    if (r->f->driver.kind == CU_DRIVER_NONE || r->f->driver.kind == CU_DRIVER_NOUVEAU) {
        if (r->constrained && r->f->n_gpus > 0)
            cu_plan_warn(p, _("No NVIDIA driver is loaded: the toolkit installs, but GPU programs need driver %s or newer."),
                         D(need, b1, sizeof(b1)));
    }
    if (!r->constrained)
        cu_plan_warn(p, _("This plan ignores this machine's GPU and driver."));
    *out = p;
    return CU_OK;
}

/* Does the driver run some release of CUDA @major on the mirror natively? */
static bool
driver_runs_some_release(struct rs *r, char *const *labels, size_t n, int major)
{
    if (!r->have_driver)
        return true;
    for (size_t i = 0; i < n; i++) {
        struct cu_version v, need;
        if (cu_version_parse(labels[i], &v) && v.n == 3 && (int)v.part[0] == major &&
            rs_spec_matches(&r->cuda, &v) && rs_cuda_needs_driver(r, &v, &need) &&
            cu_version_cmp(&r->driver, &need) >= 0)
            return true;
    }
    return false;
}

static enum cu_status
try_option(struct rs *r, const struct fwopt *o, int only_sweep, struct cu_plan **out)
{
    char *const *labels;
    size_t n;
    enum cu_status st;
    char b1[32], b2[32];

    if (r->py_wish.n && o->py_min.n &&
        (cu_version_cmp(&r->py_wish, &o->py_min) < 0 || cu_version_cmp(&r->py_wish, &o->py_max) > 0)) {
        rs_fail(r, ST_FRAMEWORK, _("%s supports Python %s to %s, not %s."), o->title,
             V(&o->py_min, b1, sizeof(b1)), V(&o->py_max, b2, sizeof(b2)), r->in->wishes->python);
        return CU_E_NOT_FOUND;
    }
    st = r->in->src->index(r->in->src->ctx, CU_PRODUCT_CUDA, &labels, &n, r->err);
    if (st != CU_OK)
        return st;
    bool any_label = false, any_in_range = false;
    for (int sweep = only_sweep; sweep <= only_sweep; sweep++) {
        /* 1: a wheel with its own runtime, on a driver too old for the build's CUDA X.Y:
         *    another release of the same major for the system.
         * 2: a driver too old for every release of the major: one it runs by
         *    minor-version compatibility (NVIDIA's 11.x >= 450.80.02, 12.x >= 525.60.13). */
        if (sweep == 1 && !(o->bundled && o->cuda_mm.n && r->cuda.kind == SPEC_AUTO))
            return CU_E_NOT_FOUND;
        if (sweep == 2 && (r->cuda.kind != SPEC_AUTO ||
                           (o->cuda_major && driver_runs_some_release(r, labels, n, o->cuda_major))))
            return CU_E_NOT_FOUND;
        r->sweep = sweep;
        for (size_t i = 0; i < n; i++) {
            struct cu_version v, vmm, need = {{0}, 0};
            bool unknown;
            if (!cu_version_parse(labels[i], &v) || v.n != 3 || !rs_spec_matches(&r->cuda, &v))
                continue;
            any_label = true;
            vmm = mm(&v);
            if (o->cuda_major && (int)v.part[0] != o->cuda_major)
                continue;
            if (o->cuda_min.n && cu_version_cmp(&vmm, &o->cuda_min) < 0)
                continue;
            if (o->cuda_max.n && cu_version_cmp(&vmm, &o->cuda_max) > 0)
                continue;
            any_in_range = true;
            /* Without a framework, sweep 2 takes a major the driver runs no release of natively. */
            if (sweep == 2 && !o->cuda_major && driver_runs_some_release(r, labels, n, (int)v.part[0]))
                continue;
            if (sweep == 0 && o->cuda_mm.n && r->cuda.kind == SPEC_AUTO && cu_version_cmp(&vmm, &o->cuda_mm) != 0)
                continue;
            if (rs_gpus_fit_cuda(r, &v, &unknown) != 0)
                continue;
            if (unknown && r->cuda.kind == SPEC_AUTO) {
                rs_fail(r, ST_FRAMEWORK,
                     _("cudaup does not know which GPUs CUDA %s builds for."), V(&vmm, b1, sizeof(b1)));
                continue;
            }
            if (!rs_driver_fits(r, &v, &need, sweep == 2))
                continue;
            const struct cu_manifest *m;
            st = r->in->src->get(r->in->src->ctx, CU_PRODUCT_CUDA, labels[i], &m, r->err);
            if (st == CU_E_NOT_FOUND) {
                rs_fail(r, ST_MIRROR, "%s", r->err->msg);
                continue;
            }
            if (st != CU_OK)
                return st;
            if (!has_platform(cu_manifest_package(m, "cuda_cudart"), r->platform)) {
                rs_fail(r, ST_MIRROR, _("CUDA %s has no archives for %s."), labels[i],
                     r->platform);
                continue;
            }
            struct cudnn_pick dn;
            st = rs_pick_cudnn(r, o, &v, &dn);
            if (st == CU_E_NOT_FOUND)
                continue; /* an older CUDA may have a cuDNN that fits */
            if (st != CU_OK)
                return st;
            struct cu_strv comps;
            cu_strv_init(&comps);
            st = pick_components(r, m, &comps);
            if (st == CU_OK)
                st = fill_plan(r, o, m, &v, &need, &comps, &dn, out);
            cu_strv_fini(&comps);
            if (st == CU_OK && unknown)
                cu_plan_warn(*out, _("cudaup does not know whether CUDA %s builds for every GPU here."),
                             V(&vmm, b1, sizeof(b1)));
            return st;
        }
    }
    if (!any_label) {
        if (r->cuda.kind == SPEC_AUTO)
            rs_fail(r, ST_FRAMEWORK, _("The mirror lists no CUDA release."));
        else
            rs_fail(r, ST_FRAMEWORK, _("CUDA %s is not on the mirror."), r->in->wishes->cuda);
    } else if (o->cuda_max.n && !any_in_range) {
        rs_fail(r, ST_FRAMEWORK, _("%s needs CUDA %s (%s); NVIDIA publishes CUDA archives only from %s on."), o->title,
             V(&o->cuda_max, b1, sizeof(b1)), o->cuda_max_why ? o->cuda_max_why : "",
             cu_version_format(&r->cat->archives_from, 2, b2, sizeof(b2)));
    } else if (o->cuda_major) {
        if (r->cuda.kind != SPEC_AUTO && (int)r->cuda.v.part[0] != o->cuda_major)
            rs_fail(r, ST_FRAMEWORK, _("%s needs CUDA %d, not %s."), o->title, o->cuda_major,
                 r->in->wishes->cuda);
        else if (o->cuda_mm.n && r->cuda.kind == SPEC_AUTO)
            rs_fail(r, ST_FRAMEWORK, _("%s needs CUDA %s, which is not on the mirror."), o->title,
                 V(&o->cuda_mm, b1, sizeof(b1)));
        else if (r->cuda.kind != SPEC_AUTO && o->cuda_min.n)
            rs_fail_closer(r, ST_FRAMEWORK, _("%s needs CUDA %s or newer, not %s."), o->title,
                        V(&o->cuda_min, b1, sizeof(b1)), r->in->wishes->cuda);
        else
            rs_fail(r, ST_FRAMEWORK, _("%s needs CUDA %d.%u or a newer %d.x, which the mirror lacks."), o->title,
                 o->cuda_major, o->cuda_min.n > 1 ? o->cuda_min.part[1] : 0, o->cuda_major);
    }
    return CU_E_NOT_FOUND;
}

/* No option has code for a GPU here: the sentence names the build whose code is oldest. */
static void
explain_no_code(struct rs *r, const struct fwopt *opts, size_t n_opts)
{
    const struct fwopt *oldest = NULL;
    for (size_t i = 0; i < n_opts; i++) {
        const struct fwopt *o = &opts[i];
        if (!o->no_code || !o->code->n_sass)
            return; /* some option failed otherwise: its sentence stands */
        if (!oldest || o->code->sass[0] < oldest->code->sass[0])
            oldest = o;
    }
    if (!oldest)
        return;
    r->stage = ST_DRIVER + 100; /* nothing else explains better */
    snprintf(r->why, sizeof(r->why), "%s", oldest->code_why);
}

/*
 * A --cuda or --python that nothing could satisfy is the blocker to name, before any framework
 * release the user never chose: CUDA that has no code for a GPU here or that the driver cannot run,
 * a Python no release of the framework supports.
 */
static enum cu_status
check_wishes(struct rs *r, const struct fwopt *opts, size_t n_opts)
{
    char b1[32], b2[32];
    if (r->py_wish.n && r->fw.fw != CU_FW_NONE) {
        struct cu_version lo = {{0}, 0}, hi = {{0}, 0};
        bool fits = false;
        for (size_t i = 0; i < n_opts && !fits; i++) {
            const struct fwopt *o = &opts[i];
            if (!o->py_min.n || (cu_version_cmp(&r->py_wish, &o->py_min) >= 0 && cu_version_cmp(&r->py_wish, &o->py_max) <= 0))
                fits = true;
            if (o->py_min.n && (!lo.n || cu_version_cmp(&o->py_min, &lo) < 0))
                lo = o->py_min;
            if (o->py_max.n && (!hi.n || cu_version_cmp(&o->py_max, &hi) > 0))
                hi = o->py_max;
        }
        if (!fits && lo.n)
            return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                                _("No %s release that cudaup knows supports Python %s: they support Python %s to %s."),
                                cu_framework_title(cu_framework_name(r->fw.fw)), r->in->wishes->python,
                                V(&lo, b1, sizeof(b1)), V(&hi, b2, sizeof(b2)));
    }
    if (r->cuda.kind == SPEC_AUTO || r->cuda.kind == SPEC_NONE || !r->constrained)
        return CU_OK;
    char *const *labels;
    size_t n;
    enum cu_status st = r->in->src->index(r->in->src->ctx, CU_PRODUCT_CUDA, &labels, &n, r->err);
    if (st != CU_OK)
        return st;
    bool any = false, gpu_ok = false;
    struct cu_version newest = {{0}, 0};
    for (size_t i = 0; i < n && !gpu_ok; i++) {
        struct cu_version v;
        bool unknown;
        if (!cu_version_parse(labels[i], &v) || v.n != 3 || !rs_spec_matches(&r->cuda, &v))
            continue;
        if (!any)
            newest = v;
        any = true;
        gpu_ok = rs_gpus_fit_cuda(r, &v, &unknown) == 0;
    }
    if (!any || gpu_ok)
        return CU_OK; /* a release that is not there is the mirror's sentence; one that builds goes on */
    char why[sizeof(r->why)];
    snprintf(why, sizeof(why), "%s", r->why);
    struct cu_version need;
    if (r->have_driver && rs_cuda_needs_driver(r, &newest, &need) && cu_version_cmp(&r->driver, &need) < 0 &&
        !rs_driver_runs_major(r, (int)newest.part[0], NULL))
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("%s And CUDA %s needs NVIDIA driver %s or newer; this machine has %s."),
                            why, V(&newest, b1, sizeof(b1)), D(&need, b2, sizeof(b2)), r->driver_text);
    return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, "%s", why);
}

static enum cu_status
nothing_fits(struct rs *r)
{
    /* The most useful sentence: what the user must change. */
    const char *msg = r->why[0] ? r->why : _("No CUDA release on the mirror fits this machine.");
    return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, "%s", msg);
}

/* Try the options, best vouched first: rows read in a source, then inferred ones, then silent ones. */
static enum cu_status
try_options(struct rs *r, struct fwopt *opts, size_t n_opts, struct cu_plan **out)
{
    enum cu_status st = CU_E_NOT_FOUND;
    char first_why[sizeof(r->why)] = "";
    size_t chosen = 0;
    bool first_tried = false;

    /* A build the driver runs with the system CUDA it was made for beats one that needs
     * another release of its major, which beats one that leans on minor-version compatibility. */
    for (int sweep = 0; sweep < 3 && st == CU_E_NOT_FOUND; sweep++) {
        for (int pass = CODE_READ; pass <= CODE_SILENT && st == CU_E_NOT_FOUND; pass++) {
            for (size_t i = 0; i < n_opts && st == CU_E_NOT_FOUND; i++) {
                if (opts[i].code_class != pass)
                    continue;
                /* The first option's own failure, apart from what the others said. */
                int saved_stage = r->stage;
                char saved_why[sizeof(r->why)];
                struct cu_version saved_need = r->min_need;
                if (i == 0 && sweep == 0) {
                    memcpy(saved_why, r->why, sizeof(saved_why));
                    r->stage = 0;
                    r->why[0] = '\0';
                    memset(&r->min_need, 0, sizeof(r->min_need));
                }
                r->silent = opts[i].code_class == CODE_SILENT;
                st = try_option(r, &opts[i], sweep, out);
                r->silent = false;
                if (st == CU_OK)
                    chosen = i;
                if (i == 0 && st == CU_E_NOT_FOUND && sweep == 0) {
                    first_tried = true;
                    memcpy(first_why, r->why, sizeof(first_why));
                    if (saved_stage > r->stage) {
                        r->stage = saved_stage;
                        memcpy(r->why, saved_why, sizeof(r->why));
                        r->min_need = saved_need;
                    }
                }
            }
        }
    }
    if (st != CU_OK || chosen == 0)
        return st;
    const struct fwopt *o0 = &opts[0], *oc = &opts[chosen];
    if (o0->code_class == CODE_NO_FIT)
        cu_plan_reason(*out, _("Not %s: %s"), o0->title, o0->code_why);
    else if (first_tried && first_why[0])
        cu_plan_reason(*out, _("Not %s: %s"), o0->title, first_why);
    else if (o0->code_class > oc->code_class)
        cu_plan_reason(*out, _("Not %s: what GPU code it carries is %s, while it is read for %s."), o0->title,
                       o0->code_class == CODE_INFERRED ? _("only inferred") : _("not recorded"), oc->title);
    return st;
}

static enum cu_status resolve(const struct cu_resolve_in *in, bool no_advice, struct cu_plan **out,
                              struct cu_error *err);

/* One way to change a refused request: what is dropped or set, tried in order. */
enum dnn_mode { DNN_KEEP, DNN_AUTO, DNN_NONE };

struct variant {
    bool use;             /* worth trying for this request */
    enum cu_framework fw; /* with !@same and !@any_version */
    bool same;            /* the framework asked for, at the version asked for */
    bool any_version;     /* the framework asked for, at any version */
    enum dnn_mode dnn;    /* DNN_AUTO drops a version asked for, and keeps "none" */
    bool keep_cuda, keep_python;
};

/* The command of a variant that planned, named exactly. */
static char *
advice_command(const struct cu_wishes *w, const struct variant *v, const struct cu_plan *p)
{
    char b1[32];
    struct cu_buf b;
    cu_buf_init(&b);
    const struct cu_plan_framework *f = p->framework;
    cu_buf_printf(&b, "cudaup install --framework %s%s%s", f ? f->name : "none", f && f->version ? "==" : "",
                  f && f->version ? f->version : "");
    bool asked = w->cudnn && *w->cudnn && strcmp(w->cudnn, "auto") != 0 && strcmp(w->cudnn, "none") != 0;
    if (v->keep_cuda && w->cuda && *w->cuda && strcmp(w->cuda, "auto") != 0)
        cu_buf_printf(&b, " --cuda %s", w->cuda);
    if (!p->has_cudnn)
        cu_buf_printf(&b, " --cudnn none");
    else if (asked)
        cu_buf_printf(&b, " --cudnn %s", v->dnn == DNN_KEEP ? w->cudnn : cu_version_format(&p->cudnn, 2, b1, sizeof(b1)));
    if (v->keep_python && w->python && *w->python)
        cu_buf_printf(&b, " --python %s", w->python);
    return cu_steal_ptr(&b.data);
}

/* Nothing plans on this driver: the driver every GPU here needs, from the first CUDA that builds for it. */
static void
driver_advice(const struct rs *r, struct cu_error *err)
{
    char b2[32], b3[32];
    struct cu_version need = {{0}, 0}, first = {{0}, 0};
    const struct cu_gpu_info *who = NULL;
    if (!r->have_driver)
        return;
    for (size_t i = 0; i < r->f->n_gpus; i++) {
        const struct cu_gpu_info *g = &r->f->gpus[i];
        struct cu_version f, d;
        if (g->cc.n && cu_catalog_cuda_first_for_cc(r->cat, &g->cc, &f) && cu_catalog_cuda_min_driver(r->cat, &f, &d) &&
            (!need.n || cu_version_cmp(&d, &need) > 0)) {
            need = d;
            first = f;
            who = g;
        }
    }
    if (!who || cu_version_cmp(&r->driver, &need) >= 0)
        return;
    cu_error_advise(err, _("Nothing cudaup installs runs on driver %s here: GPU %d (%s) needs CUDA %s or newer, which needs NVIDIA driver %s or newer. Install it from the distribution's packages (cudaup doctor says which), then run cudaup again."),
                    r->driver_text, who->index, who->name, V(&first, b2, sizeof(b2)),
                    D(&need, b3, sizeof(b3)));
}

/*
 * After a refusal: the command that does work on this machine, in the error's advice.  First the
 * request with one thing changed (another cuDNN, CUDA or Python), then the framework at any version,
 * without cuDNN, the other frameworks, then CUDA alone, with and without cuDNN.
 */
static void
find_advice(const struct cu_resolve_in *in, const struct rs *r, struct cu_error *err)
{
    char b1[32], b2[32];
    const struct cu_wishes *w0 = in->wishes;
    bool dnn_version = w0->cudnn && *w0->cudnn && strcmp(w0->cudnn, "auto") != 0 && strcmp(w0->cudnn, "none") != 0;
    bool dnn_none = w0->cudnn && strcmp(w0->cudnn, "none") == 0;
    bool cuda_set = w0->cuda && *w0->cuda && strcmp(w0->cuda, "auto") != 0;
    bool py_set = w0->python && *w0->python;
    bool none_ok = r->fw.fw == CU_FW_PYTORCH || r->fw.fw == CU_FW_NONE; /* may go without cuDNN */
    const struct variant vs[] = {
        {dnn_version, .same = true, .dnn = DNN_AUTO, .keep_cuda = true, .keep_python = true},
        {cuda_set, .same = true, .dnn = DNN_KEEP, .keep_python = true},
        {py_set, .same = true, .dnn = DNN_KEEP, .keep_cuda = true},
        {true, .any_version = true, .dnn = DNN_AUTO},
        {none_ok && !dnn_none, .any_version = true, .dnn = DNN_NONE},
        {r->fw.fw != CU_FW_TENSORFLOW, .fw = CU_FW_TENSORFLOW, .dnn = DNN_AUTO},
        {r->fw.fw != CU_FW_PYTORCH, .fw = CU_FW_PYTORCH, .dnn = DNN_AUTO},
        {r->fw.fw != CU_FW_JAX, .fw = CU_FW_JAX, .dnn = DNN_AUTO},
        {r->fw.fw != CU_FW_NONE, .fw = CU_FW_NONE, .dnn = DNN_AUTO},
        {r->fw.fw != CU_FW_NONE || !dnn_none, .fw = CU_FW_NONE, .dnn = DNN_NONE},
    };
    for (size_t k = 0; k < CU_N_ELEMENTS(vs); k++) {
        const struct variant *v = &vs[k];
        if (!v->use)
            continue;
        struct cu_wishes w = *w0;
        w.cuda = v->keep_cuda ? w0->cuda : NULL;
        w.python = v->keep_python ? w0->python : NULL;
        if (v->dnn == DNN_NONE)
            w.cudnn = "none";
        else if (v->dnn == DNN_AUTO && dnn_version)
            w.cudnn = NULL;
        bool own = v->same || v->any_version;
        w.framework = v->same ? w0->framework : cu_framework_name(own ? r->fw.fw : v->fw);
        enum cu_framework wfw = own ? r->fw.fw : v->fw;
        if (w.cudnn && strcmp(w.cudnn, "none") == 0 && wfw != CU_FW_PYTORCH && wfw != CU_FW_NONE)
            w.cudnn = NULL; /* TensorFlow and JAX load cuDNN */
        struct cu_resolve_in in2 = *in;
        in2.wishes = &w;
        struct cu_plan *p = NULL;
        struct cu_error e2;
        cu_error_clear(&e2);
        if (resolve(&in2, true, &p, &e2) != CU_OK) {
            cu_plan_free(p);
            continue;
        }
        enum cu_framework fw = p->framework ? p->framework->kind : CU_FW_NONE;
        const struct cu_plan_framework *f = p->framework;
        CU_AUTOFREE char *cmd = advice_command(w0, v, p);
        if (!f)
            cu_error_advise(err, _("%s%s gives CUDA %s%s%s."),
                            r->fw.fw == CU_FW_NONE ? _("What runs here: ") : _("No build of it runs here, but "), cmd,
                            V(&p->cuda, b1, sizeof(b1)), p->has_cudnn ? _(" and cuDNN ") : _(" without cuDNN"),
                            p->has_cudnn ? V(&p->cudnn, b2, sizeof(b2)) : "");
        else
            cu_error_advise(err, _("%s%s gives %s%s%s%s with CUDA %s%s%s."),
                            fw == r->fw.fw ? _("What runs here: ") : _("No build of it runs here, but "), cmd,
                            cu_framework_title(cu_framework_name(fw)), f->version ? " " : "", f->version ? f->version : "",
                            fw == CU_FW_TENSORFLOW ? _(" (with Keras)") : "", V(&p->cuda, b1, sizeof(b1)),
                            p->has_cudnn ? _(" and cuDNN ") : "", p->has_cudnn ? V(&p->cudnn, b2, sizeof(b2)) : "");
        cu_plan_free(p);
        return;
    }
    driver_advice(r, err);
}

enum cu_status
cu_resolve(const struct cu_resolve_in *in, struct cu_plan **out, struct cu_error *err)
{
    return resolve(in, false, out, err);
}

static enum cu_status
resolve(const struct cu_resolve_in *in, bool no_advice, struct cu_plan **out, struct cu_error *err)
{
    struct rs r;
    struct fwopt *opts = NULL;
    size_t n_opts = 0;
    enum cu_status st;
    const char *badv;

    *out = NULL;
    if ((st = cu_wishes_check(in->wishes, err)) != CU_OK)
        return st;
    memset(&r, 0, sizeof(r));
    r.in = in;
    r.cat = in->cat;
    r.f = in->facts;
    r.err = err;
    r.no_advice = no_advice;
    rs_parse_spec(in->wishes->cuda, false, 3, &r.cuda);
    rs_parse_spec(in->wishes->cudnn, true, 3, &r.cudnn);
    rs_parse_framework(in->wishes->framework, &r.fw, &badv);
    if (in->wishes->python && *in->wishes->python)
        r.py_wish = vp(in->wishes->python);
    r.platform = in->wishes->platform && *in->wishes->platform ? in->wishes->platform
                                                                : cu_facts_platform(in->facts);
    if (!r.platform)
        return cu_error_set(err, CU_E_UNSUPPORTED, 0,
                            _("NVIDIA publishes no CUDA archives for this processor (%s)."),
                            in->facts->os.machine);
    r.constrained = !in->wishes->unconstrained;
    const struct cu_driver_info *d = &in->facts->driver;
    if (r.constrained && (d->kind == CU_DRIVER_NVIDIA || d->kind == CU_DRIVER_WSL) && d->version.n) {
        r.have_driver = true;
        r.driver = d->version;
        r.driver_planned = d->planned;
        rs_driver_text(&r);
    }
    if (r.constrained && in->facts->n_gpus == 0) {
        if (r.cuda.kind == SPEC_AUTO)
            return cu_error_set(err, CU_E_UNSUPPORTED, 0,
                                _("No NVIDIA GPU was found, so cudaup cannot choose a CUDA version for it; to install one anyway, choose it: --cuda X.Y."));
        r.constrained = false;
    }

    const struct cu_cat_legacy_tf *legacy = rs_legacy_match(&r);
    if (legacy) {
        st = rs_legacy_resolve(&r, legacy, out);
        if (st == CU_E_UNSUPPORTED && !no_advice && !err->advice[0])
            find_advice(in, &r, err);
        return st;
    }
    switch (r.fw.fw) {
    case CU_FW_TENSORFLOW: st = tf_options(&r, &opts, &n_opts); break;
    case CU_FW_PYTORCH: st = torch_options(&r, &opts, &n_opts); break;
    case CU_FW_JAX: st = jax_options(&r, &opts, &n_opts); break;
    case CU_FW_NONE:
    default:
        add_none_option(&r, &opts, &n_opts);
        st = CU_OK;
        break;
    }
    if (st == CU_OK)
        st = check_wishes(&r, opts, n_opts);
    if (st == CU_OK) {
        for (size_t i = 0; i < n_opts; i++) {
            r.silent = !opts[i].code && r.fw.fw != CU_FW_NONE;
            rs_judge_code(&r, &opts[i]);
            rs_judge_libs(&r, &opts[i]);
        }
        r.silent = false;
        explain_no_code(&r, opts, n_opts);
        st = try_options(&r, opts, n_opts, out);
        if (st == CU_E_NOT_FOUND)
            st = nothing_fits(&r);
        if (st == CU_OK && in->wishes->unconstrained == false && in->facts->n_gpus == 0)
            cu_plan_warn(*out, _("No NVIDIA GPU was found; this install is for building, not for running."));
    }
    for (size_t i = 0; i < n_opts; i++)
        rs_fwopt_fini(&opts[i]);
    free(opts);
    if (st != CU_OK && *out) {
        cu_plan_free(*out);
        *out = NULL;
    }
    if (st == CU_E_UNSUPPORTED && !no_advice)
        find_advice(in, &r, err);
    return st;
}
