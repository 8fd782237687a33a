/* SPDX-License-Identifier: MIT */
/*
 * The judges of a candidate: does a CUDA release build for every GPU here, does the driver run it
 * (natively or by minor-version compatibility), which cuDNN release fits it (the framework's range,
 * a build for its major, the support matrix, the mirror), and does a framework build carry code
 * that a GPU here can run.  A failure is noted with rs_fail() (resolve_rs.c) for the sentence when
 * nothing fits.  The search (resolve.c), the plan (resolve_plan.c) and the refusal
 * (resolve_advice.c) use them; they call none of those.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/catalog/gpucode.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/resolve/resolve_int.h"
#include "core/resolve/runs.h"

/* ---- CUDA -------------------------------------------------------------------- */

/* 0: every GPU fits; otherwise the note says which does not. */
int
rs_gpus_fit_cuda(struct rs *r, const struct cu_version *cuda, bool *unknown)
{
    char b1[32], b2[32], b3[32];
    struct cu_version m = mm(cuda);
    *unknown = false;
    if (!r->constrained)
        return 0;
    for (size_t i = 0; i < r->f->n_gpus; i++) {
        const struct cu_gpu_info *g = &r->f->gpus[i];
        if (!g->cc.n)
            continue;
        int s = cu_catalog_cuda_supports_cc(r->cat, &m, &g->cc);
        if (s == 1)
            continue;
        if (s < 0) {
            *unknown = true;
            continue;
        }
        struct cu_version last, first;
        if (cu_catalog_cuda_first_for_cc(r->cat, &g->cc, &first) && cu_version_cmp(&first, &m) > 0)
            rs_fail(r, ST_GPU,
                 _("CUDA %s cannot build for GPU %d (%s, compute capability %s); it needs CUDA %s or newer."),
                 V(&m, b1, sizeof(b1)), g->index, g->name, V(&g->cc, b2, sizeof(b2)),
                 V(&first, b3, sizeof(b3)));
        else if (cu_catalog_cuda_last_for_cc(r->cat, &g->cc, &last))
            rs_fail(r, ST_GPU,
                 _("CUDA %s no longer builds for GPU %d (%s, compute capability %s); CUDA %s is the newest that does."),
                 V(&m, b1, sizeof(b1)), g->index, g->name, V(&g->cc, b2, sizeof(b2)),
                 V(&last, b3, sizeof(b3)));
        else
            rs_fail(r, ST_GPU,
                 _("No CUDA release with archives builds for GPU %d (%s, compute capability %s)."),
                 g->index, g->name, V(&g->cc, b2, sizeof(b2)));
        return 1;
    }
    return 0;
}

/* The driver a release needs natively; false when the catalog does not know (a release it knows whose floor
 * no source gives among them: its major's floor is no native need).  The rule is runs.c's, as verify's. */
bool
rs_cuda_needs_driver(struct rs *r, const struct cu_version *v, struct cu_version *need)
{
    struct cu_runs_how how;
    cu_driver_runs_cuda(r->cat, NULL, NULL, v, &how);
    if (!how.native.n)
        return false;
    *need = how.native;
    return true;
}

/* Does the driver run programs of this major through minor-version compatibility? */
bool
rs_driver_runs_major(const struct rs *r, int major, struct cu_version *min)
{
    struct cu_version floor;
    if (!cu_driver_major_floor(r->cat, major, &floor))
        return false;
    if (min)
        *min = floor;
    return !r->have_driver || cu_version_cmp(&r->driver, &floor) >= 0;
}

/* @compat: accept a release the driver runs only by minor-version compatibility.  What runs and how is
 * cu_driver_runs_cuda()'s to say (runs.c), the rule verify checks an install by. */
bool
rs_driver_fits(struct rs *r, const struct cu_version *cuda, struct cu_version *need, bool compat)
{
    char b1[32], b2[32], b4[32];
    struct cu_runs_how how;
    enum cu_runs runs = cu_driver_runs_cuda(r->cat, r->have_driver ? &r->driver : NULL, NULL, cuda, &how);
    if (cu_catalog_cuda_floor_unknown(r->cat, cuda)) {
        /* No source gives the driver it needs natively (CUDA 13.4): only minor-version compatibility, on a
         * driver the data says runs its major, and only where that is asked for (a later sweep or a pin). */
        *need = how.floor;
        if (compat && runs == CU_RUNS_COMPAT && r->have_driver)
            return true;
        if (r->stage <= ST_DRIVER)
            rs_fail(r, ST_DRIVER,
                    _("No source cudaup has read gives the NVIDIA driver CUDA %s needs natively; cudaup plans it only by NVIDIA's minor-version compatibility (CUDA %u.x on driver %s or newer), inferred, where a CUDA release whose driver is known does not fit."),
                    V(cuda, b1, sizeof(b1)), cuda->part[0], how.floor.n ? D(&how.floor, b2, sizeof(b2)) : "?");
        return false;
    }
    *need = how.native;
    if (!how.native.n || !r->have_driver || runs == CU_RUNS_NATIVE)
        return true;
    if (compat && runs == CU_RUNS_COMPAT)
        return true;
    struct cu_version floor = how.floor;
    if (compat && floor.n && cu_version_cmp(&floor, need) < 0) {
        /* The plan would take it by minor-version compatibility: what it needs is that floor, and
         * the GPU code was judged to run without the JIT of newer PTX (rs_judge_code). */
        struct cu_version native = *need;
        *need = floor;
        if (r->stage <= ST_DRIVER && (!r->min_need.n || cu_version_cmp(need, &r->min_need) < 0)) {
            r->min_need = *need;
            r->stage = ST_GPU;
            rs_fail(r, ST_DRIVER,
                    _("CUDA %s needs NVIDIA driver %s or newer by NVIDIA's minor-version compatibility (CUDA %u.x), %s natively; this machine has %s."),
                    V(cuda, b1, sizeof(b1)), D(&floor, b2, sizeof(b2)), cuda->part[0], D(&native, b4, sizeof(b4)),
                    r->driver_text);
        }
        return false;
    }
    if (r->stage <= ST_DRIVER && (!r->min_need.n || cu_version_cmp(need, &r->min_need) < 0)) {
        r->min_need = *need;
        r->stage = ST_GPU; /* let the smaller need replace the message */
        if (r->f->driver.cuda_max.n)
            rs_fail(r, ST_DRIVER,
                 _("CUDA %s needs NVIDIA driver %s or newer; this machine has %s, which runs CUDA up to %s."),
                 V(cuda, b1, sizeof(b1)), D(need, b2, sizeof(b2)), r->driver_text,
                 V(&r->f->driver.cuda_max, b4, sizeof(b4)));
        else
            rs_fail(r, ST_DRIVER,
                 _("CUDA %s needs NVIDIA driver %s or newer; this machine has %s."), V(cuda, b1, sizeof(b1)),
                 D(need, b2, sizeof(b2)), r->driver_text);
    }
    return false;
}

void
rs_warn_compat(struct rs *r, struct cu_plan *p, const struct cu_version *cuda, const struct cu_version *need)
{
    char b1[32], b2[32];
    struct cu_runs_how how;
    cu_driver_runs_cuda(r->cat, &r->driver, &r->f->driver.cuda_max, cuda, &how);
    if (need)
        how.native = *need; /* the release's own floor, as the plan judged it (a runfile's, data/legacy) */
    CU_AUTOFREE char *limit = cu_runs_limit(&how, cuda);
    if (r->driver_planned)
        cu_plan_warn(p, _("The driver this plan installs, %s or newer, runs CUDA %s only by NVIDIA's minor-version compatibility: %s."),
                     D(&r->driver, b2, sizeof(b2)), V(cuda, b1, sizeof(b1)), limit);
    else
        cu_plan_warn(p, _("Driver %s runs CUDA %s only by NVIDIA's minor-version compatibility: %s."), r->driver_text,
                     V(cuda, b1, sizeof(b1)), limit);
}

/* ---- cuDNN ------------------------------------------------------------------- */

static char **
cat_variants(const struct cu_cat_cudnn *c, const char *platform)
{
    if (strcmp(platform, "linux-x86_64") == 0)
        return c->variants_x86_64;
    if (strcmp(platform, "linux-sbsa") == 0)
        return c->variants_sbsa;
    return c->variants_aarch64;
}

enum cu_status
rs_pick_cudnn(struct rs *r, const struct fwopt *o, const struct cu_version *cuda, struct cudnn_pick *out)
{
    char *const *labels;
    size_t n;
    enum cu_status st;
    char variant[8], b1[32], b2[32];

    bool any_listed = false; /* the mirror lists a release the wish takes */
    memset(out, 0, sizeof(*out));
    r->cudnn_note[0] = r->cudnn_skip[0] = '\0';
    if (r->cudnn.kind == SPEC_NONE)
        return CU_OK;
    snprintf(variant, sizeof(variant), "%u", cuda->part[0]);
    st = r->in->src->index(r->in->src->ctx, CU_PRODUCT_CUDNN, &labels, &n, r->err);
    if (st != CU_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        struct cu_version v;
        if (!cu_version_parse(labels[i], &v))
            continue;
        if (r->cudnn.kind == SPEC_EXACT && r->cudnn.v.n > 3) {
            struct cu_version v3 = r->cudnn.v;
            v3.n = 3;
            if (cu_version_cmp(&v, &v3) != 0)
                continue;
        } else if (!rs_spec_matches(&r->cudnn, &v)) {
            continue;
        }
        any_listed = true;
        if (o->cudnn_major && (int)v.part[0] != o->cudnn_major) {
            /* A release the user did not pin is named as what it is: the newest that fits here. */
            if (r->fw.v.n || r->fw.fw == CU_FW_NONE)
                rs_fail(r, ST_CUDNN_RULE, _("%s needs cuDNN %d, not %s."), o->title, o->cudnn_major,
                        V(&v, b1, sizeof(b1)));
            else
                rs_fail(r, ST_CUDNN_RULE, _("%s, the newest %s that runs on this machine's GPU and driver, needs cuDNN %d, not %s."),
                        o->title, cu_framework_title(cu_framework_name(r->fw.fw)), o->cudnn_major,
                        V(&v, b1, sizeof(b1)));
            continue;
        }
        if (o->cudnn_min.n && cu_version_cmp(&v, &o->cudnn_min) < 0) {
            rs_fail(r, ST_CUDNN_RULE, _("%s needs cuDNN %s or newer, not %s."), o->title,
                 V(&o->cudnn_min, b1, sizeof(b1)), V(&v, b2, sizeof(b2)));
            continue;
        }
        if (o->cudnn_max_excl.n && cu_version_cmp(&v, &o->cudnn_max_excl) >= 0)
            continue;
        const struct cu_cat_cudnn *cc = cu_catalog_cudnn(r->cat, &v);
        if (cc && cc->variants_known && !strv_has(cat_variants(cc, r->platform), variant)) {
            rs_fail(r, ST_CUDNN_VARIANT, _("cuDNN %s has no build for CUDA %s on %s."),
                 V(&v, b1, sizeof(b1)), variant, r->platform);
            continue;
        }
        if (!rs_cudnn_row_fits(r, &v, cuda))
            continue;
        const struct cu_manifest *m;
        st = r->in->src->get(r->in->src->ctx, CU_PRODUCT_CUDNN, labels[i], &m, r->err);
        if (st == CU_E_NOT_FOUND) {
            rs_fail(r, ST_CUDNN_MIRROR, "%s", r->err->msg);
            continue;
        }
        if (st != CU_OK)
            return st;
        const struct cu_package *pkg = cu_manifest_package(m, "cudnn");
        const struct cu_artifact *a = cu_package_artifact(pkg, r->platform, variant);
        if (!a) {
            rs_fail(r, ST_CUDNN_MIRROR, _("cuDNN %s has no build for CUDA %s on %s."),
                 labels[i], variant, r->platform);
            continue;
        }
        if (r->cudnn.kind == SPEC_EXACT && r->cudnn.v.n > 3) {
            struct cu_version pv;
            if (!pkg->version || !cu_version_parse(pkg->version, &pv) ||
                cu_version_cmp(&pv, &r->cudnn.v) != 0)
                continue;
        }
        *out = (struct cudnn_pick){m, pkg, a, v};
        return CU_OK;
    }
    if (r->cudnn.kind == SPEC_AUTO) {
        rs_fail(r, ST_CUDNN_RULE, _("The mirror has no cuDNN for CUDA %s on %s."), variant, r->platform);
    } else {
        /* A release the mirror lacks that could not run here anyway: its support matrix is the blocker
         * (cuDNN 9.17.0 lists no compute capability before 7.5, so a GTX 1080 Ti cannot have it). */
        int stage = 0;
        char why[sizeof(r->why)];
        struct cu_version want = r->cudnn.v; /* 9.17: its first release, 9.17.0 */
        while (want.n < 3)
            want.part[want.n++] = 0;
        if (!any_listed && !rs_cudnn_judge(r, &want, cuda, &stage, why, sizeof(why)) && stage == ST_CUDNN_GPU)
            rs_fail(r, ST_CUDNN_GPU, "%s", why);
        else
            rs_fail(r, ST_CUDNN_RULE, _("The mirror has no cuDNN %s for CUDA %s on %s."), r->in->wishes->cudnn,
                    variant, r->platform);
    }
    return CU_E_NOT_FOUND;
}

/* ---- GPU code --------------------------------------------------------------- */

/* Judge the build's GPU code against every GPU here, and a wheel's own runtime against the driver. */
void
rs_judge_code(struct rs *r, struct fwopt *o)
{
    char b1[32], b2[32], b3[32];
    size_t ng = r->f->n_gpus;
    o->fit = cu_xcalloc(ng + 1, sizeof(*o->fit));
    o->target = cu_xcalloc(ng + 1, sizeof(*o->target));
    if (r->fw.fw == CU_FW_NONE) {
        o->code_class = CODE_READ; /* nothing to run */
        return;
    }
    /* --allow-inferred: an inferred arch list is weighed as one read (the plan still says it is inferred). */
    o->code_class = !o->code                                            ? CODE_SILENT
                    : o->code->read || r->in->wishes->allow_inferred ? CODE_READ
                                                                        : CODE_INFERRED;
    if (!r->constrained)
        return;
    if (o->code) {
        CU_AUTOFREE char *has = cu_code_describe(o->code);
        for (size_t i = 0; i < ng; i++) {
            const struct cu_gpu_info *g = &r->f->gpus[i];
            if (!g->cc.n)
                continue;
            o->fit[i] = cu_code_fit(o->code, &g->cc, &o->target[i]);
            struct cu_version need;
            if (o->fit[i] == CU_CODE_NONE) {
                o->no_code = true;
                o->code_why = cu_tr_asprintf(_("%s has no code for GPU %d (%s, compute capability %s): it carries %s%s, so it would ignore the GPU and compute on the CPU."),
                                           o->title, g->index, g->name, V(&g->cc, b1, sizeof(b1)), has,
                                           o->code->read ? "" : _(" (inferred)"));
            } else if (o->fit[i] == CU_CODE_PTX && r->have_driver && o->build_cuda.n &&
                       cu_catalog_cuda_min_driver(r->cat, &o->build_cuda, &need) &&
                       cu_version_cmp(&r->driver, &need) < 0) {
                o->code_why = cu_tr_asprintf(_("GPU %d (%s, compute capability %s) could run %s only by JIT-compiling its PTX compute_%d, which needs NVIDIA driver %s or newer (the driver of CUDA %s, which wrote it); this machine has %s."),
                                           g->index, g->name, V(&g->cc, b1, sizeof(b1)), o->title, o->target[i],
                                           D(&need, b2, sizeof(b2)), V(&o->build_cuda, b3, sizeof(b3)),
                                           r->driver_text);
            } else {
                continue;
            }
            rs_fail(r, ST_GPU_CODE, "%s", o->code_why);
            o->code_class = CODE_NO_FIT;
            return;
        }
    }
}

/*
 * A wheel's own runtime against the driver: after its code and the libraries pip brings with it
 * (rs_judge_libs), since a newer driver helps neither a build without code for a GPU here nor one
 * whose cuDNN drops it, and the sentence should name a build that a newer driver would make run.
 */
void
rs_judge_runtime(struct rs *r, struct fwopt *o)
{
    char b1[32], b2[32];
    if (r->fw.fw == CU_FW_NONE || !r->constrained || o->code_class == CODE_NO_FIT)
        return;
    struct cu_version min;
    if (o->bundled && r->have_driver && o->build_cuda.n &&
        !rs_driver_runs_major(r, (int)o->build_cuda.part[0], &min) && min.n) {
        o->code_why = cu_tr_asprintf(_("%s brings its own CUDA %s runtime, which needs NVIDIA driver %s or newer (NVIDIA's minor-version compatibility); this machine has %s."),
                                   o->title, cu_version_format(&o->build_cuda, o->cuda_mm.n ? 0 : 1, b1, sizeof(b1)),
                                   D(&min, b2, sizeof(b2)), r->driver_text);
        /* Of the builds the driver is too old for, the one that needs the least driver explains best. */
        if (r->stage <= ST_DRIVER && (!r->min_need.n || cu_version_cmp(&min, &r->min_need) < 0)) {
            r->min_need = min;
            r->stage = ST_GPU;
        }
        rs_fail(r, ST_DRIVER, "%s", o->code_why);
        o->code_class = CODE_NO_FIT;
    }
}
