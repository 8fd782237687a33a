/* SPDX-License-Identifier: MIT */
/*
 * A candidate that fits, made into a plan: the components asked for with what they cannot work
 * without (cu_component_needs), their downloads and cuDNN's, the Python, the framework's part with
 * how its GPU code runs on each GPU here, and the reasons and warnings in the order a reader asks
 * them.  The search (resolve.c) calls it once it has a CUDA and a cuDNN that fit.
 */
#include "config.h"

#include "core/resolve/resolve.h"

#include <string.h>

#include "core/catalog/cliff.h"
#include "core/catalog/gpucode.h"
#include "core/catalog/cudnn_matrix.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/resolve/resolve_int.h"

/* ---- components --------------------------------------------------------------- */

bool
rs_has_platform(const struct cu_package *p, const char *platform)
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

/* @unread gets the note of the first component asked for whose entry for @platform is of a shape
 * cudaup does not know (the manifest's parser left it out): the plan cannot go without it. */
static void
add_component(struct cu_strv *out, const struct cu_manifest *m, const char *key, const char *platform,
              const char **unread)
{
    const struct cu_package *p = cu_manifest_package(m, key);
    if (p && !rs_has_platform(p, platform) && !*unread)
        *unread = cu_package_skip_note(p, platform);
    if (!p || !rs_has_platform(p, platform) || cu_strv_contains(out, key))
        return;
    cu_strv_push(out, key);
    for (size_t i = 0; i < CU_N_ELEMENTS(deps); i++)
        if (strcmp(deps[i].key, key) == 0)
            for (size_t k = 0; deps[i].needs[k]; k++)
                add_component(out, m, deps[i].needs[k], platform, unread);
}

static enum cu_status
components_unread(struct rs *r, const struct cu_manifest *m, const char *unread)
{
    char b1[32];
    struct cu_version mv = vp(m->label);
    /* CU_E_NOT_FOUND: the search goes on to an older CUDA, as for a release the mirror lacks. */
    return cu_error_set(r->err, CU_E_NOT_FOUND, 0,
                        _("CUDA %s's manifest has a component this plan needs in a shape cudaup does not know (%s)."),
                        V(&mv, b1, sizeof(b1)), unread);
}

enum cu_status
rs_pick_components(struct rs *r, const struct cu_manifest *m, struct cu_strv *out)
{
    const char *spec = r->in->wishes->components;
    char b1[32];
    struct cu_version mv = vp(m->label);
    const char *unread = NULL;

    if (!spec || !*spec || strcmp(spec, "default") == 0) {
        for (char **c = r->cat->components_default; c && *c; c++)
            add_component(out, m, *c, r->platform, &unread);
        return unread ? components_unread(r, m, unread) : CU_OK;
    }
    if (strcmp(spec, "all") == 0) {
        /* "all" takes every component that has an archive here; one of an unknown shape is not asked for by name. */
        for (size_t i = 0; i < m->n_packages; i++)
            if (!cu_catalog_component_never(r->cat, m->packages[i].key))
                add_component(out, m, m->packages[i].key, r->platform, &unread);
        if (unread)
            cu_log_info(_("CUDA %s: %s"), m->label, unread);
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
                add_component(out, m, *c, r->platform, &unread);
        } else if (group) {
            for (char **c = group; *c; c++)
                add_component(out, m, *c, r->platform, &unread);
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
            } else if (!rs_has_platform(p, r->platform)) {
                const char *note = cu_package_skip_note(p, r->platform);
                st = note ? components_unread(r, m, note)
                          : cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("CUDA %s has no %s archive for %s."),
                                         V(&mv, b1, sizeof(b1)), it, r->platform);
            } else {
                add_component(out, m, it, r->platform, &unread);
            }
        }
    }
    cu_strv_fini(&items);
    if (st == CU_OK && unread)
        st = components_unread(r, m, unread);
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
            if (!g->cc.n)
                cu_plan_reason(p, _("Whether %s has code for GPU %d is not known: its compute capability is unknown."),
                               o->title, g->index);
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

/* The plan's part for framework @o of kind @kind with Python @py; the pins pip is held to are @set's. */
/*
 * The cuDNN picked for the CUDA folder is NVIDIA's build for that CUDA major; where its support matrix row
 * lists fewer releases of the major (cuDNN 8.9.7: 12.0 to 12.2) than the one planned (12.4), the plan says
 * so and on what it pairs them: the archive's own variant, not the row's toolkit list.
 */
static void
cudnn_toolkits_said(struct rs *r, struct cu_plan *p, const struct cu_version *label, const struct cu_version *cv)
{
    char b1[32], b2[32], b3[32], b4[32];
    struct cu_version v3 = *label, xy = mm(cv);
    if (v3.n > 3)
        v3.n = 3;
    const struct cu_cat_cudnn_support *row = cu_catalog_cudnn_support(r->cat, &v3, (int)cv->part[0]);
    if (!row || !row->n_cuda || cu_version_cmp(&row->cudnn, &v3) != 0)
        return;
    for (size_t i = 0; i < row->n_cuda; i++)
        if (cu_version_cmp(&row->cuda[i], &xy) == 0)
            return;
    cu_plan_reason(p, _("cuDNN %s's support matrix lists CUDA %s to %s, not %s; cudaup pairs them because NVIDIA publishes this cuDNN as its build for CUDA %u (the archive's variant), not for those releases only."),
                   V(&v3, b1, sizeof(b1)), V(&row->cuda[0], b2, sizeof(b2)), V(&row->cuda[row->n_cuda - 1], b3, sizeof(b3)),
                   V(&xy, b4, sizeof(b4)), cv->part[0]);
}

static struct cu_plan_framework *
plan_framework(const struct fwopt *o, enum cu_framework kind, const struct cu_version *py, const struct fwopt *set)
{
    char b1[32];
    struct cu_plan_framework *fw = cu_xcalloc(1, sizeof(*fw));
    fw->kind = kind;
    fw->name = cu_xstrdup(cu_framework_name(kind));
    fw->version = cu_xstrdup(o->version);
    fw->python = cu_xstrdup(V(py, b1, sizeof(b1)));
    if (set->py_min.n) {
        fw->py_min = cu_xstrdup(V(&set->py_min, b1, sizeof(b1)));
        fw->py_max = cu_xstrdup(V(&set->py_max, b1, sizeof(b1)));
    }
    fw->pip = cu_xcalloc(o->pip.n + 1, sizeof(char *));
    for (size_t i = 0; i < o->pip.n; i++)
        fw->pip[i] = cu_xstrdup(o->pip.v[i]);
    fw->index_url = cu_xstrdup(o->index_url);
    fw->cuda_tag = cu_xstrdup(o->tag);
    fw->bundled_runtime = o->bundled;
    fw->constraints = cu_xcalloc(set->constraints.n + 1, sizeof(char *));
    for (size_t i = 0; i < set->constraints.n; i++)
        fw->constraints[i] = cu_xstrdup(set->constraints.v[i]);
    return fw;
}

enum cu_status
rs_fill_plan(struct rs *r, const struct fwopt *o, const struct cu_manifest *cm, const struct cu_version *cv,
             const struct cu_version *need, struct cu_strv *components, const struct cudnn_pick *dn,
             struct cu_plan **out)
{
    struct cu_plan *p = cu_plan_new();
    char b1[32], b2[32], b3[32];
    const struct cu_manifest_source *src = r->in->src;

    p->platform = cu_xstrdup(r->platform);
    p->container = r->f->container.inside;
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
        if (g->cc.n) {
            cu_plan_reason(p, _("GPU %d: %s, compute capability %s%s%s%s."), g->index, g->name,
                           V(&g->cc, b1, sizeof(b1)), g->arch ? " (" : "", g->arch ? g->arch : "",
                           g->arch ? ")" : "");
            /* A GPU newer releases have left behind: the last of each part that serves it (issue 45). */
            struct cu_cliff cl;
            cu_cliff_for(r->cat, &g->cc, &cl);
            CU_AUTOFREE char *who = cu_xasprintf(_("GPU %d (%s)"), g->index, g->name);
            CU_AUTOFREE char *cliff = cu_cliff_describe(&cl, who);
            if (cliff)
                cu_plan_reason_src(p, CU_CLIFF_SOURCE, "%s", cliff);
            continue;
        }
        /* Unknown to the tables and no driver to ask: every judgement below leaves it out, and says so (issue 49
         * item 6: such a GPU got a plan that read as confident). */
        cu_plan_reason(p, _("GPU %d: %s (PCI id %s), compute capability unknown: cudaup's tables do not name it and no driver reports it, so nothing below is known to run on it."),
                       g->index, g->name, g->pci_id[0] ? g->pci_id : "?");
        cu_plan_warn(p, _("Whether CUDA %s, its cuDNN and the framework have code for GPU %d (%s) is not known: its compute capability is unknown. Install the distribution's NVIDIA driver, then plan again: the loaded driver reports it."),
                     V(cv, b1, sizeof(b1)), g->index, g->name);
    }
    for (size_t k = 0; k < (o->n_parts ? o->n_parts : 1); k++) {
        const struct fwopt *part = o->n_parts ? o->parts[k] : o;
        if (part->why)
            cu_plan_reason(p, "%s", part->why);
        if (part->companions_why)
            cu_plan_reason(p, "%s", part->companions_why);
    }
    struct cu_version own_need;
    bool own_native = r->have_driver && cu_catalog_cuda_min_driver(r->cat, &o->cuda_mm, &own_need) &&
                      cu_version_cmp(&r->driver, &own_need) >= 0;
    if (r->sweep == 1 && (own_native || !r->have_driver)) {
        /* The driver runs the build's own CUDA (or no driver is here yet): what is missing is that release on
         * the mirror. */
        cu_plan_reason(p, _("CUDA %s for the system, not %s: the mirror has no CUDA %s release. The %s wheels bring their own CUDA %s runtime; the system CUDA %s, of the same major, serves the tools and the extensions you build."),
                       V(cv, b1, sizeof(b1)), V(&o->cuda_mm, b2, sizeof(b2)), V(&o->cuda_mm, (char[32]){0}, 32), o->title,
                       V(&o->build_cuda, (char[32]){0}, 32), V(cv, (char[32]){0}, 32));
    } else if (r->sweep == 1) {
        cu_plan_reason(p, _("CUDA %s for the system, not %s: driver %s does not run CUDA %s natively. The %s wheels bring their own CUDA %s runtime, which runs on it by NVIDIA's minor-version compatibility; the system CUDA %s, of the same major, serves the tools and the extensions you build."),
                       V(cv, b1, sizeof(b1)), V(&o->cuda_mm, b2, sizeof(b2)), r->driver_text,
                       V(&o->cuda_mm, (char[32]){0}, 32), o->title, V(&o->build_cuda, (char[32]){0}, 32),
                       V(cv, (char[32]){0}, 32));
    } else if (r->sweep == 2 && cu_catalog_cuda_floor_unknown(r->cat, cv)) {
        /* CUDA 13.4: no source gives its native driver, so neither "natively it needs" nor a driver to name. */
        struct cu_version min = {{0}, 0};
        rs_driver_runs_major(r, (int)cv->part[0], &min);
        p->cuda_inferred = true;
        cu_plan_reason(p, _("CUDA %s%s: no source cudaup has read gives the NVIDIA driver it needs natively, so it is planned by NVIDIA's minor-version compatibility (CUDA %u.x on driver %s or newer; this machine has %s): inferred, not read."),
                       V(cv, b1, sizeof(b1)), r->cuda.kind != SPEC_AUTO ? _(", as asked") : "", cv->part[0],
                       D(&min, b3, sizeof(b3)), r->driver_text);
        rs_warn_compat(r, p, cv, NULL);
    } else if (r->sweep == 2) {
        struct cu_version min = {{0}, 0};
        rs_driver_runs_major(r, (int)cv->part[0], &min);
        if (r->cuda.kind != SPEC_AUTO)
            cu_plan_reason(p, _("CUDA %s, as asked: driver %s runs it by NVIDIA's minor-version compatibility (CUDA %u.x on driver %s or newer); natively it needs %s."),
                           V(cv, b1, sizeof(b1)), r->driver_text, cv->part[0], D(&min, b3, sizeof(b3)),
                           D(need, b2, sizeof(b2)));
        else if (o->cuda_min.n && o->title && r->fw.fw != CU_FW_NONE) /* the release the driver runs natively is too old for it */
            cu_plan_reason(p, _("CUDA %s: driver %s runs natively no CUDA %u release on the mirror that %s takes (%s or newer), so cudaup takes the newest that fits; it runs on this driver by NVIDIA's minor-version compatibility (CUDA %u.x on driver %s or newer)."),
                           V(cv, b1, sizeof(b1)), r->driver_text, cv->part[0], o->title,
                           V(&o->cuda_min, b2, sizeof(b2)), cv->part[0], D(&min, b3, sizeof(b3)));
        else
            cu_plan_reason(p, _("CUDA %s: driver %s is older than what every CUDA %u release on the mirror needs natively, so cudaup takes the newest that fits; it runs on this driver by NVIDIA's minor-version compatibility (CUDA %u.x on driver %s or newer)."),
                           V(cv, b1, sizeof(b1)), r->driver_text, cv->part[0], cv->part[0],
                           D(&min, b3, sizeof(b3)));
        rs_warn_compat(r, p, cv, need);
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
        cudnn_toolkits_said(r, p, &dn->label, cv);
        if (r->cudnn_skip[0])
            cu_plan_reason(p, _("Not a newer cuDNN: %s"), r->cudnn_skip);
        if (r->cudnn_note[0])
            cu_plan_reason(p, "%s", r->cudnn_note);
    }
    else if (r->cudnn.kind == SPEC_NONE)
        cu_plan_reason(p, _("No cuDNN, as asked."));

    if (r->fw.fw != CU_FW_NONE) {
        struct cu_version py;
        choose_python(r, o, &py);
        /* One framework, or each of a set that shares the environment (resolve_multi.c). */
        size_t n = o->n_parts ? o->n_parts : 1;
        for (size_t k = 0; k < n; k++) {
            const struct fwopt *part = o->n_parts ? o->parts[k] : o;
            struct cu_plan_framework *fw = plan_framework(part, o->n_parts ? part->kind : r->fw.fw, &py, o);
            cu_plan_add_framework(p, fw);
            explain_code(r, part, p, fw);
        }
        struct cu_plan_framework *fw = p->framework;
        for (size_t i = 0; i < o->lib_reasons.n; i++)
            cu_plan_reason(p, "%s", o->lib_reasons.v[i]);
        if (r->py_wish.n && o->py_note)
            cu_plan_reason(p, "%s", o->py_note);
        else if (r->py_wish.n)
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
        if (r->constrained && r->f->n_gpus > 0 && r->f->container.inside) /* the driver is the host's */
            cu_plan_warn(p, _("This container sees no NVIDIA driver: the toolkit installs, but GPU programs need the host's driver to be %s or newer, and the container started with the GPU (`docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...`)."),
                         D(need, b1, sizeof(b1)));
        else if (r->constrained && r->f->n_gpus > 0)
            cu_plan_warn(p, _("No NVIDIA driver is loaded: the toolkit installs, but GPU programs need driver %s or newer."),
                         D(need, b1, sizeof(b1)));
    }
    if (!r->constrained)
        cu_plan_warn(p, _("This plan ignores this machine's GPU and driver."));
    *out = p;
    return CU_OK;
}
