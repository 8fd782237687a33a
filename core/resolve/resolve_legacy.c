/* SPDX-License-Identifier: MIT */
/*
 * Toolkits older than NVIDIA's redist manifests (CUDA 10.0-11.3), planned from the catalog's legacy rows
 * (a runfile and a cuDNN .tgz, pinned by sha256) instead of the manifest search of resolve.c: TensorFlow
 * 1.13-2.4 asked for by version (rs_legacy_resolve), and, where nothing newer fits, the newest of those
 * stacks or the newest toolkit alone (rs_legacy_search).  Every version, pin and limit comes from
 * data/legacy/ (SOURCES.md there); the cuDNN .tgz is judged by NVIDIA's support matrix like any other.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog/catalog.h"
#include "core/catalog/catalog_legacy.h"
#include "core/catalog/gpucode.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/resolve/plan.h"
#include "core/resolve/resolve_int.h"

#define LEGACY_ARCHIVE_MAX (16ull << 30)

/* The TensorFlow row for the version asked for, or NULL (then resolve.c decides as before). */
const struct cu_cat_legacy_tf *
rs_legacy_match(const struct rs *r)
{
    if (r->fw.fw != CU_FW_TENSORFLOW || !r->fw.v.n)
        return NULL; /* only when asked for by version: the newest releases stay the default */
    return cu_cat_legacy_tf(r->cat->legacy, &r->fw.v);
}

static int
cc_int(const struct cu_version *cc)
{
    return (int)(cc->part[0] * 10 + (cc->n > 1 ? cc->part[1] : 0));
}

/* How @t's build runs on @cc (NVIDIA's rule, gpucode.c): CU_CODE_SASS or CU_CODE_PTX with *target, or -1. */
static int
code_for(const struct cu_cat_legacy_tf *t, const struct cu_cat_legacy_cuda *c, const struct cu_version *cc,
         int *target)
{
    int newest = 0;
    for (size_t i = 0; i < c->n_sm; i++)
        newest = c->sm[i] > newest ? c->sm[i] : newest;
    /* The toolkit's libraries (cuBLAS, cuDNN) carry nothing for an architecture after their newest. */
    if (cc_int(cc) / 10 > newest / 10)
        return -1;
    struct cu_cat_code code = {.sass = t->sass, .ptx = t->ptx, .n_sass = t->n_sass, .n_ptx = t->n_ptx};
    enum cu_code_fit f = cu_code_fit(&code, cc, target);
    return f == CU_CODE_NONE ? -1 : (int)f;
}

/*
 * The cuDNN .tgz for @t's stack (or for CUDA @c alone when @t is NULL), judged by NVIDIA's support matrix
 * (rs_cudnn_judge) like any other: for a stack by default the release it was built with (the oldest of its
 * major at its minor or newer), asked for with --cudnn the newest that matches; alone, the newest that
 * serves the CUDA.  NULL when none fits: *@stage and @why then say why.
 */
static const struct cu_cat_legacy_cudnn *
pick_cudnn(struct rs *r, const struct cu_cat_legacy_tf *t, const char *title, const struct cu_cat_legacy_cuda *c,
           int *stage, char *why, size_t why_len)
{
    const struct cu_cat_legacy *l = r->cat->legacy;
    const struct cu_cat_legacy_cudnn *cand[64];
    size_t n = 0;
    char b1[32];
    struct cu_version cmm = mm(&c->version);
    bool asked = r->cudnn.kind == SPEC_PREFIX || r->cudnn.kind == SPEC_EXACT;
    bool oldest_first = t && !asked;
    *stage = 0;
    why[0] = '\0';
    for (size_t i = 0; i < l->n_cudnn && n < CU_N_ELEMENTS(cand); i++) { /* newest first */
        const struct cu_cat_legacy_cudnn *d = &l->cudnn[i];
        if (cu_version_cmp(&cmm, &d->cuda_min) < 0 || cu_version_cmp(&cmm, &d->cuda_max) > 0)
            continue;
        if (t && (d->version.part[0] != t->cudnn.part[0] || cu_version_cmp(&d->version, &t->cudnn) < 0))
            continue; /* the major it was built with, at the minor it was built with or newer */
        if (asked && !cu_version_matches(&d->version, &r->cudnn.v) && !cu_version_matches(&r->cudnn.v, &d->version))
            continue;
        cand[n++] = d;
    }
    for (size_t k = 0; k < n; k++) {
        const struct cu_cat_legacy_cudnn *d = cand[oldest_first ? n - 1 - k : k];
        int st = 0;
        char w[sizeof(r->why)];
        if (rs_cudnn_judge(r, &d->version, &c->version, &st, w, sizeof(w)))
            return d;
        if (!why[0]) {
            *stage = st;
            snprintf(why, why_len, "%s", w);
        }
    }
    if (!why[0]) {
        *stage = ST_CUDNN_RULE;
        if (t)
            rs_format(why, why_len, _("No cuDNN %u for CUDA %s in cudaup's catalog fits %s%s%s."), t->cudnn.part[0],
                      V(&cmm, b1, sizeof(b1)), title, r->in->wishes->cudnn ? _(" and --cudnn ") : "",
                      r->in->wishes->cudnn ? r->in->wishes->cudnn : "");
        else
            rs_format(why, why_len, _("cudaup's catalog has no cuDNN .tgz for CUDA %s%s%s."), V(&cmm, b1, sizeof(b1)),
                      r->in->wishes->cudnn ? _(" and --cudnn ") : "", r->in->wishes->cudnn ? r->in->wishes->cudnn : "");
    }
    return NULL;
}

static void
add_dl(struct cu_plan *p, const char *base, enum cu_product prod, const char *component, const char *version,
       const char *title, const char *path, const char *sha256, uint64_t size)
{
    p->downloads = cu_xreallocarray(p->downloads, p->n_downloads + 1, sizeof(*p->downloads));
    struct cu_plan_download *d = &p->downloads[p->n_downloads++];
    memset(d, 0, sizeof(*d));
    d->product = prod;
    d->component = cu_xstrdup(component);
    d->version = cu_xstrdup(version);
    d->title = cu_xstrdup(title);
    d->relative_path = cu_xstrdup(path);
    d->url = cu_xasprintf("%s/%s", base, path);
    memcpy(d->sha256, sha256, 65);
    /* NVIDIA publishes no sizes for these files: the pinned sha256 alone decides, and the download is
     * cut off past a bound (a limit, not a fact: the largest runfile here is a few GB). */
    d->size = size ? size : LEGACY_ARCHIVE_MAX;
    d->size_unknown = size == 0;
    d->from_base = true;
    p->download_bytes += size;
}

/* Does the driver run CUDA @c?  Natively, or (an 11.x) by minor-version compatibility: *@compat then. */
static bool
driver_runs(struct rs *r, const struct cu_cat_legacy_cuda *c, bool *compat)
{
    *compat = false;
    if (!r->have_driver || cu_version_cmp(&r->driver, &c->driver) >= 0)
        return true;
    *compat = rs_driver_runs_major(r, (int)c->version.part[0], NULL);
    return *compat;
}

/* The driver sentence of a runfile the driver cannot run; the smallest need explains best (resolve_judge.c). */
static void
fail_driver(struct rs *r, const struct cu_cat_legacy_cuda *c)
{
    char b1[32], b2[32];
    struct cu_version cmm = mm(&c->version);
    if (r->stage > ST_DRIVER || (r->min_need.n && cu_version_cmp(&c->driver, &r->min_need) >= 0))
        return;
    r->min_need = c->driver;
    r->stage = ST_GPU;
    rs_fail(r, ST_DRIVER, _("CUDA %s needs NVIDIA driver %s or newer; this machine has %s."), V(&cmm, b1, sizeof(b1)),
            D(&c->driver, b2, sizeof(b2)), r->driver_text);
}

/*
 * Why @t's build cannot run on GPU @g: its CUDA's libraries predate the GPU, or the wheel carries no code
 * that GPU runs.  The caller frees.
 */
static char *
no_code_why(const struct cu_cat_legacy_tf *t, const struct cu_cat_legacy_cuda *c, const struct cu_gpu_info *g,
            const char *title)
{
    char b1[32], b2[32];
    int newest = 0;
    for (size_t i = 0; i < c->n_sm; i++)
        newest = c->sm[i] > newest ? c->sm[i] : newest;
    if (cc_int(&g->cc) / 10 > newest / 10)
        return cu_tr_asprintf(_("%s has no code for GPU %d (%s, compute capability %s): it was built with CUDA %s, whose libraries and cuDNN %u predate that GPU."),
                              title, g->index, g->name, V(&g->cc, b1, sizeof(b1)), V(&t->cuda, b2, sizeof(b2)),
                              t->cudnn.part[0]);
    struct cu_cat_code code = {.sass = t->sass, .ptx = t->ptx, .n_sass = t->n_sass, .n_ptx = t->n_ptx, .read = true};
    CU_AUTOFREE char *has = cu_code_describe(&code);
    return cu_tr_asprintf(_("%s has no code for GPU %d (%s, compute capability %s): it carries %s%s, so it would ignore the GPU and compute on the CPU."),
                          title, g->index, g->name, V(&g->cc, b1, sizeof(b1)), has,
                          strcmp(t->confidence, "read") == 0 ? "" : _(" (inferred)"));
}

/* The refusal for a GPU this stack has no code for, naming NVIDIA's TF1 where its data vouches for the GPU. */
static enum cu_status
refuse_gpu(struct rs *r, const struct cu_cat_legacy_tf *t, const struct cu_cat_legacy_cuda *c, const struct cu_gpu_info *g,
           const char *title)
{
    char b1[32], b2[32];
    const struct cu_cat_legacy *l = r->cat->legacy;
    CU_AUTOFREE char *why = no_code_why(t, c, g, title);
    cu_error_set(r->err, CU_E_UNSUPPORTED, 0, "%s", why);
    for (size_t i = 0; t->version.part[0] == 1 && i < l->n_nvtf; i++) {
        const struct cu_cat_legacy_nvtf *n = &l->nvtf[i];
        if (cu_version_cmp(&g->cc, &n->cc_min) >= 0) {
            cu_error_advise(r->err,
                            _("NVIDIA's own TensorFlow 1 build runs on compute capability %s and newer with its own CUDA wheels: in a Python %s environment, pip install nvidia-pyindex, then pip install %s==%s (index %s)."),
                            V(&n->cc_min, b1, sizeof(b1)), V(&n->python, b2, sizeof(b2)), n->pip, n->version, n->index_url);
            return CU_E_UNSUPPORTED;
        }
    }
    return CU_E_UNSUPPORTED; /* resolve.c looks for what runs here instead */
}

/* A stack (or a toolkit alone, t == NULL) that fits: made into a plan. */
struct leg {
    const struct cu_cat_legacy_tf *t;
    const struct cu_cat_legacy_cuda *c;
    const struct cu_cat_legacy_cudnn *dn;
    struct cu_version v; /* the TensorFlow release planned */
    bool compat;         /* the driver runs the CUDA only by minor-version compatibility */
    int *fit, *target;   /* per GPU: CU_CODE_* (-2: capability unknown) and the sm or compute number */
};

static enum cu_status
legacy_plan(struct rs *r, const struct leg *g, struct cu_plan **out)
{
    char b1[32], b2[32], b3[32], ver[32];
    const struct cu_cat_legacy_tf *t = g->t;
    const struct cu_cat_legacy_cuda *c = g->c;
    const struct cu_cat_legacy_cudnn *dn = g->dn;
    V(&g->v, ver, sizeof(ver));
    CU_AUTOFREE char *title = t ? cu_xasprintf("TensorFlow %s", ver) : NULL;
    struct cu_version cmm = mm(&c->version);

    struct cu_plan *p = cu_plan_new();
    const char *base = r->in->src && r->in->src->base_url ? r->in->src->base_url : "https://developer.download.nvidia.com/compute";
    p->platform = cu_xstrdup(r->platform);
    p->container = r->f->container.inside;
    p->base_url = cu_xstrdup(base);
    p->prefix = cu_xstrdup(r->in->prefix);
    p->cuda = c->version;
    p->cuda_driver = c->driver;
    p->cuda_path = cu_xasprintf("%s/cuda-%s", r->in->prefix, V(&cmm, b1, sizeof(b1)));
    static const char *const placed[] = {"cuda_cudart", "cuda_nvcc", "cuda_nvrtc", "cuda_cupti", "cuda_nvtx",
                                         "cuda_cccl", "libcublas", "libcufft", "libcurand", "libcusolver",
                                         "libcusparse"};
    struct cu_strv comps, asked;
    cu_strv_init(&comps);
    cu_strv_init(&asked);
    const char *cw = r->in->wishes->components;
    if (cw && *cw && strcmp(cw, "default") != 0 && strcmp(cw, "all") != 0)
        cu_strv_split(&asked, cw, ",");
    for (size_t i = 0; i < CU_N_ELEMENTS(placed); i++) {
        bool want = asked.n == 0;
        for (size_t k = 0; k < asked.n && !want; k++) {
            char **members = cu_catalog_component_group(r->cat, asked.v[k]);
            want = strcmp(asked.v[k], placed[i]) == 0;
            for (char **m = members; m && *m && !want; m++)
                want = strcmp(*m, placed[i]) == 0;
        }
        if (want)
            cu_strv_push(&comps, placed[i]);
    }
    cu_strv_fini(&asked);
    if (comps.n == 0) {
        cu_strv_fini(&comps);
        cu_plan_free(p);
        return cu_error_set(r->err, CU_E_USAGE, 0, _("--components %s: CUDA %s's runfile holds none of them; it holds %s"),
                            cw, V(&c->version, b1, sizeof(b1)),
                            "cuda_cudart, cuda_nvcc, cuda_nvrtc, cuda_cupti, cuda_nvtx, cuda_cccl, libcublas, libcufft, libcurand, libcusolver, libcusparse");
    }
    p->components = cu_steal_ptr(&comps.v);
    cu_strv_fini(&comps);
    add_dl(p, base, CU_PRODUCT_CUDA, "cuda_runfile", V(&c->version, b1, sizeof(b1)), "CUDA Toolkit runfile (read, never run)",
           c->path, c->sha256, c->size);
    p->downloads[p->n_downloads - 1].runfile_layout = cu_xstrdup(c->layout);
    if (dn) {
        p->has_cudnn = true;
        p->cudnn = dn->version;
        p->cudnn_full = cu_xstrdup(dn->full);
        p->cudnn_variant = cu_xstrdup(dn->variant);
        add_dl(p, base, CU_PRODUCT_CUDNN, "cudnn", dn->full, "cuDNN (.tgz)", dn->path, dn->sha256, dn->size);
    }

    for (size_t i = 0; r->constrained && i < r->f->n_gpus; i++) {
        const struct cu_gpu_info *gp = &r->f->gpus[i];
        if (gp->cc.n)
            cu_plan_reason(p, _("GPU %d: %s, compute capability %s%s%s%s."), gp->index, gp->name, V(&gp->cc, b1, sizeof(b1)),
                           gp->arch ? " (" : "", gp->arch ? gp->arch : "", gp->arch ? ")" : "");
    }
    if (t)
        cu_plan_reason_src(p, t->source, _("%s: Google built and tested it with CUDA %s and cuDNN %s."), title,
                           V(&t->cuda, b1, sizeof(b1)), V(&t->cudnn, b2, sizeof(b2)));
    else if (r->cuda.kind == SPEC_AUTO && r->have_driver && r->driver_planned)
        cu_plan_reason(p, _("CUDA %s: the newest release that fits; it needs driver %s, and the driver this plan installs is %s."),
                       V(&c->version, b1, sizeof(b1)), D(&c->driver, b2, sizeof(b2)), D(&r->driver, b3, sizeof(b3)));
    else if (r->cuda.kind == SPEC_AUTO)
        cu_plan_reason(p, _("CUDA %s: the newest release that fits; it needs driver %s and this machine has %s."),
                       V(&c->version, b1, sizeof(b1)), D(&c->driver, b2, sizeof(b2)), r->have_driver ? r->driver_text : "-");
    else if (strcmp(V(&c->version, b1, sizeof(b1)), r->in->wishes->cuda) == 0)
        cu_plan_reason(p, _("CUDA %s, as asked."), b1);
    else
        cu_plan_reason(p, _("CUDA %s: the newest %s release, as asked."), b1, r->in->wishes->cuda);
    cu_plan_reason_src(p, c->sources,
                       _("CUDA %s from NVIDIA's runfile (before NVIDIA's redist archives): only the toolkit's files are placed, never its driver or samples; its sha256 is pinned by two sources that agree."),
                       V(&c->version, b1, sizeof(b1)));
    if (r->have_driver && g->compat)
        rs_warn_compat(r, p, &c->version, &c->driver);
    else if (r->have_driver)
        cu_plan_reason(p, _("CUDA %s needs driver %s or newer; this machine has %s, which runs it."), V(&c->version, b1, sizeof(b1)),
                       D(&c->driver, b2, sizeof(b2)), r->driver_text);
    if (dn) {
        cu_plan_reason_src(p, dn->sources,
                           _("cuDNN %s (the CUDA %s build, from NVIDIA's .tgz), merged into the CUDA folder; its sha256 is pinned by two sources that agree."),
                           dn->full, dn->variant);
        if (r->cudnn_note[0])
            cu_plan_reason(p, "%s", r->cudnn_note);
    } else {
        cu_plan_reason(p, _("No cuDNN, as asked."));
    }
    if (!r->constrained)
        cu_plan_warn(p, _("This plan ignores this machine's GPU and driver."));
    if (!t) {
        *out = p;
        return CU_OK;
    }

    struct cu_plan_framework *fw = cu_xcalloc(1, sizeof(*fw));
    struct cu_version py = r->py_wish.n ? r->py_wish : t->py_plan;
    fw->kind = CU_FW_TENSORFLOW;
    fw->name = cu_xstrdup("tensorflow");
    fw->version = cu_xstrdup(ver);
    fw->python = cu_xstrdup(V(&py, b1, sizeof(b1)));
    fw->py_min = cu_xstrdup(V(&t->py_min, b1, sizeof(b1)));
    fw->py_max = cu_xstrdup(V(&t->py_max, b1, sizeof(b1)));
    struct cu_strv pip;
    cu_strv_init(&pip);
    cu_strv_push_owned(&pip, cu_xasprintf("%s==%s", t->pip, ver));
    if (t->keras)
        cu_strv_push(&pip, t->keras);
    for (char **q = t->pins; q && *q; q++)
        cu_strv_push(&pip, *q);
    fw->pip = cu_steal_ptr(&pip.v);
    cu_strv_fini(&pip);
    fw->code_confidence = cu_xstrdup(strcmp(t->confidence, "read") == 0 ? "read" : "inferred");
    fw->gpu_code = cu_xcalloc(r->f->n_gpus + 1, sizeof(*fw->gpu_code));
    for (size_t i = 0; r->constrained && i < r->f->n_gpus; i++) {
        const struct cu_gpu_info *gp = &r->f->gpus[i];
        struct cu_plan_gpu_code *e = &fw->gpu_code[fw->n_gpu_code++];
        e->gpu = gp->index;
        if (g->fit[i] == -2) {
            e->code = cu_xstrdup("unknown");
            continue;
        }
        e->code = cu_xstrdup(cu_code_fit_name(g->fit[i]));
        e->target = cu_xasprintf(g->fit[i] == CU_CODE_SASS ? "sm_%d" : "compute_%d", g->target[i]);
        if (g->fit[i] == CU_CODE_SASS)
            cu_plan_reason(p, _("%s runs on GPU %d (compute capability %s) with its sm_%d code."), title, gp->index,
                           V(&gp->cc, b1, sizeof(b1)), g->target[i]);
        else
            cu_plan_warn(p, _("GPU %d (%s, compute capability %s) runs %s by JIT-compiling its PTX compute_%d: the first start compiles kernels for minutes (the driver caches them)."),
                         gp->index, gp->name, V(&gp->cc, b1, sizeof(b1)), title, g->target[i]);
    }
    p->framework = fw;
    if (r->py_wish.n)
        cu_plan_reason(p, _("Python %s, as asked."), fw->python);
    else
        cu_plan_reason(p, _("Python %s: the newest %s has wheels for."), fw->python, title);
    struct cu_buf pb;
    cu_buf_init(&pb);
    for (char **q = t->pins; q && *q; q++)
        cu_buf_printf(&pb, "%s%s", q == t->pins ? "" : " ", *q);
    CU_AUTOFREE char *pins = cu_buf_steal(&pb);
    cu_buf_fini(&pb);
    cu_plan_reason(p, _("Pins that keep a stack of that age importable today: %s%s%s."), t->keras ? t->keras : "",
                   t->keras ? " " : "", pins);
    cu_plan_warn(p, _("%s is no longer maintained by Google; this stack is for running old code as it was."), title);
    *out = p;
    return CU_OK;
}

/* The per-GPU arrays of a candidate. */
static void
leg_init(struct rs *r, struct leg *g)
{
    memset(g, 0, sizeof(*g));
    g->fit = cu_xcalloc(r->f->n_gpus + 1, sizeof(int));
    g->target = cu_xcalloc(r->f->n_gpus + 1, sizeof(int));
}

static void
leg_fini(struct leg *g)
{
    free(g->fit);
    free(g->target);
}

enum cu_status
rs_legacy_resolve(struct rs *r, const struct cu_cat_legacy_tf *t, struct cu_plan **out)
{
    char b1[32], b2[32], b3[32], ver[32];
    const struct cu_cat_legacy_cuda *c = cu_cat_legacy_cuda(r->cat->legacy, &t->cuda);
    /* A release asked for exactly (1.15.2) is that release; a minor (1.15) is the row's last. */
    struct cu_version v = r->fw.v.n >= 3 ? r->fw.v : t->version;
    V(&v, ver, sizeof(ver));
    CU_AUTOFREE char *title = cu_xasprintf("TensorFlow %s", ver);

    *out = NULL;
    if (!c)
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("%s needs CUDA %s, which cudaup's catalog has no runfile for."),
                            title, V(&t->cuda, b1, sizeof(b1)));
    if (r->cuda.kind != SPEC_AUTO && !cu_version_matches(&c->version, &r->cuda.v) &&
        !cu_version_matches(&r->cuda.v, &c->version))
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("%s needs CUDA %s, not %s (--cuda)."), title,
                            V(&t->cuda, b1, sizeof(b1)), r->in->wishes->cuda);
    if (r->py_wish.n && (cu_version_cmp(&r->py_wish, &t->py_min) < 0 || cu_version_cmp(&r->py_wish, &t->py_max) > 0))
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("%s has wheels for Python %s to %s, not %s (--python)."), title,
                            V(&t->py_min, b1, sizeof(b1)), V(&t->py_max, b2, sizeof(b2)), V(&r->py_wish, b3, sizeof(b3)));
    struct leg g;
    leg_init(r, &g);
    g.t = t;
    g.c = c;
    g.v = v;
    if (!driver_runs(r, c, &g.compat)) {
        leg_fini(&g);
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("%s needs CUDA %s, which needs driver %s or newer; this machine has %s."),
                            title, V(&c->version, b1, sizeof(b1)), D(&c->driver, b2, sizeof(b2)),
                            r->driver_text);
    }
    for (size_t i = 0; r->constrained && i < r->f->n_gpus; i++) {
        const struct cu_gpu_info *gp = &r->f->gpus[i];
        g.fit[i] = gp->cc.n ? code_for(t, c, &gp->cc, &g.target[i]) : -2;
        if (g.fit[i] == -1) {
            leg_fini(&g);
            return refuse_gpu(r, t, c, gp, title);
        }
    }
    if (r->cudnn.kind != SPEC_NONE) {
        int stage;
        char why[sizeof(r->why)];
        r->cudnn_note[0] = '\0';
        if (!(g.dn = pick_cudnn(r, t, title, c, &stage, why, sizeof(why)))) {
            leg_fini(&g);
            return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, "%s", why);
        }
    }
    enum cu_status st = legacy_plan(r, &g, out);
    leg_fini(&g);
    return st;
}

/*
 * Judge candidate @g (its t, c and v set), noting why it fails with rs_fail(); on success its cuDNN
 * and GPU code are filled in.
 */
static bool
legacy_fits(struct rs *r, struct leg *g, const char *title)
{
    char b1[32], b2[32], b3[32];
    const struct cu_cat_legacy_tf *t = g->t;
    const struct cu_cat_legacy_cuda *c = g->c;
    if (r->cuda.kind != SPEC_AUTO && !rs_spec_matches(&r->cuda, &c->version))
        return false;
    if (t && r->py_wish.n && (cu_version_cmp(&r->py_wish, &t->py_min) < 0 || cu_version_cmp(&r->py_wish, &t->py_max) > 0)) {
        rs_fail(r, ST_FRAMEWORK, _("%s has wheels for Python %s to %s, not %s (--python)."), title,
                V(&t->py_min, b1, sizeof(b1)), V(&t->py_max, b2, sizeof(b2)), V(&r->py_wish, b3, sizeof(b3)));
        return false;
    }
    if (t) {
        for (size_t i = 0; r->constrained && i < r->f->n_gpus; i++) {
            const struct cu_gpu_info *gp = &r->f->gpus[i];
            g->fit[i] = gp->cc.n ? code_for(t, c, &gp->cc, &g->target[i]) : -2;
            if (g->fit[i] == -1) {
                CU_AUTOFREE char *why = no_code_why(t, c, gp, title);
                rs_fail(r, ST_GPU_CODE, "%s", why);
                return false;
            }
        }
    } else {
        bool unknown;
        if (rs_gpus_fit_cuda(r, &c->version, &unknown) != 0)
            return false;
    }
    if (!driver_runs(r, c, &g->compat)) {
        fail_driver(r, c);
        return false;
    }
    g->dn = NULL;
    if (r->cudnn.kind != SPEC_NONE) {
        int stage;
        char why[sizeof(r->why)];
        r->cudnn_note[0] = '\0';
        if (!(g->dn = pick_cudnn(r, t, title, c, &stage, why, sizeof(why)))) {
            rs_fail(r, stage, "%s", why);
            return false;
        }
    }
    return true;
}

enum cu_status
rs_legacy_search(struct rs *r, struct cu_plan **out)
{
    const struct cu_cat_legacy *l = r->cat->legacy;
    char b1[32];
    *out = NULL;
    if (!l || (r->fw.fw != CU_FW_TENSORFLOW && r->fw.fw != CU_FW_NONE))
        return CU_E_NOT_FOUND;
    if (strcmp(r->platform, "linux-x86_64") != 0) {
        struct cu_version newest = l->n_cuda ? mm(&l->cuda[0].version) : (struct cu_version){{0}, 0};
        if (r->cuda.kind != SPEC_AUTO && newest.n && cu_version_cmp(&r->cuda.v, &newest) <= 0)
            rs_fail(r, ST_MIRROR, _("NVIDIA's runfiles of CUDA %s and older are for linux-x86_64 only, not %s."),
                    V(&newest, b1, sizeof(b1)), r->platform);
        return CU_E_NOT_FOUND;
    }
    enum cu_status st = CU_E_NOT_FOUND;
    struct leg g;
    if (r->fw.fw == CU_FW_NONE) {
        for (size_t i = 0; i < l->n_cuda && st == CU_E_NOT_FOUND; i++) { /* newest first */
            leg_init(r, &g);
            g.c = &l->cuda[i];
            if (legacy_fits(r, &g, NULL))
                st = legacy_plan(r, &g, out);
            leg_fini(&g);
        }
        return st;
    }
    for (size_t i = 0; i < l->n_tf && st == CU_E_NOT_FOUND; i++) { /* newest first */
        const struct cu_cat_legacy_tf *t = &l->tf[i];
        const struct cu_cat_legacy_cuda *c = cu_cat_legacy_cuda(l, &t->cuda);
        if (!c || (r->fw.v.n && !cu_version_matches(&t->version, &r->fw.v) && !cu_version_matches(&r->fw.v, &t->version)))
            continue;
        leg_init(r, &g);
        g.t = t;
        g.c = c;
        g.v = t->version;
        CU_AUTOFREE char *title = cu_xasprintf("TensorFlow %s", V(&t->version, b1, sizeof(b1)));
        if (legacy_fits(r, &g, title))
            st = legacy_plan(r, &g, out);
        leg_fini(&g);
    }
    return st;
}
