/* SPDX-License-Identifier: MIT */
/*
 * TensorFlow 1.13-2.4: stacks whose CUDA predates NVIDIA's redist manifests,
 * planned from the catalog's legacy rows (a runfile and a cuDNN .tgz, pinned
 * by sha256) instead of the manifest search of resolve.c.  Every version,
 * pin and limit comes from data/legacy/ (SOURCES.md there).
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

static const struct cu_cat_legacy_cudnn *
pick_cudnn(const struct rs *r, const struct cu_cat_legacy_tf *t, const struct cu_version *cuda_mm)
{
    const struct cu_cat_legacy *l = r->cat->legacy;
    const struct cu_cat_legacy_cudnn *best = NULL;
    for (size_t i = 0; i < l->n_cudnn; i++) {
        const struct cu_cat_legacy_cudnn *c = &l->cudnn[i];
        if (cu_version_cmp(cuda_mm, &c->cuda_min) < 0 || cu_version_cmp(cuda_mm, &c->cuda_max) > 0)
            continue;
        if (c->version.part[0] != t->cudnn.part[0] || cu_version_cmp(&c->version, &t->cudnn) < 0)
            continue; /* the major it was built with, at the minor it was built with or newer */
        if (r->cudnn.kind == SPEC_PREFIX || r->cudnn.kind == SPEC_EXACT) {
            if (!cu_version_matches(&c->version, &r->cudnn.v) && !cu_version_matches(&r->cudnn.v, &c->version))
                continue;
            if (!best || cu_version_cmp(&c->version, &best->version) > 0)
                best = c;
        } else if (!best || cu_version_cmp(&c->version, &best->version) < 0) {
            best = c; /* by default the one it was built with: the oldest that fits */
        }
    }
    return best;
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

/* The refusal for a GPU this stack has no code for, naming NVIDIA's TF1 where its data vouches for the GPU. */
static enum cu_status
refuse_gpu(struct rs *r, const struct cu_cat_legacy_tf *t, const struct cu_gpu_info *g, const char *title)
{
    char b1[32], b2[32];
    const struct cu_cat_legacy *l = r->cat->legacy;
    cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                 _("%s has no code for GPU %d (%s, compute capability %s): it was built with CUDA %s, whose libraries and cuDNN %u predate that GPU."),
                 title, g->index, g->name, V(&g->cc, b1, sizeof(b1)), V(&t->cuda, b2, sizeof(b2)), t->cudnn.part[0]);
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
    if (r->have_driver && cu_version_cmp(&r->driver, &c->driver) < 0)
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("%s needs CUDA %s, which needs driver %s or newer; this machine has %s."),
                            title, V(&c->version, b1, sizeof(b1)), D(&c->driver, b2, sizeof(b2)),
                            r->driver_text);
    int *target = cu_xcalloc(r->f->n_gpus + 1, sizeof(int));
    int *fit = cu_xcalloc(r->f->n_gpus + 1, sizeof(int));
    for (size_t i = 0; r->constrained && i < r->f->n_gpus; i++) {
        const struct cu_gpu_info *g = &r->f->gpus[i];
        fit[i] = g->cc.n ? code_for(t, c, &g->cc, &target[i]) : -2;
        if (fit[i] == -1) {
            free(target);
            free(fit);
            return refuse_gpu(r, t, g, title);
        }
    }
    const struct cu_cat_legacy_cudnn *dn = NULL;
    struct cu_version cmm = mm(&c->version);
    if (r->cudnn.kind != SPEC_NONE && !(dn = pick_cudnn(r, t, &cmm))) {
        free(target);
        free(fit);
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("No cuDNN %u for CUDA %s in cudaup's catalog fits %s%s%s."), t->cudnn.part[0],
                            V(&cmm, b1, sizeof(b1)), title, r->in->wishes->cudnn ? _(" and --cudnn ") : "",
                            r->in->wishes->cudnn ? r->in->wishes->cudnn : "");
    }

    struct cu_plan *p = cu_plan_new();
    const char *base = r->in->src && r->in->src->base_url ? r->in->src->base_url : "https://developer.download.nvidia.com/compute";
    p->platform = cu_xstrdup(r->platform);
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
        free(target);
        free(fit);
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
        const struct cu_gpu_info *g = &r->f->gpus[i];
        if (g->cc.n)
            cu_plan_reason(p, _("GPU %d: %s, compute capability %s%s%s%s."), g->index, g->name, V(&g->cc, b1, sizeof(b1)),
                           g->arch ? " (" : "", g->arch ? g->arch : "", g->arch ? ")" : "");
    }
    cu_plan_reason_src(p, t->source, _("%s: Google built and tested it with CUDA %s and cuDNN %s."), title,
                       V(&t->cuda, b1, sizeof(b1)), V(&t->cudnn, b2, sizeof(b2)));
    cu_plan_reason_src(p, c->sources,
                       _("CUDA %s from NVIDIA's runfile (before NVIDIA's redist archives): only the toolkit's files are placed, never its driver or samples; its sha256 is pinned by two sources that agree."),
                       V(&c->version, b1, sizeof(b1)));
    if (r->have_driver)
        cu_plan_reason(p, _("CUDA %s needs driver %s or newer; this machine has %s, which runs it."), V(&c->version, b1, sizeof(b1)),
                       D(&c->driver, b2, sizeof(b2)), r->driver_text);
    if (dn)
        cu_plan_reason_src(p, dn->sources,
                           _("cuDNN %s (the CUDA %s build, from NVIDIA's .tgz), merged into the CUDA folder; its sha256 is pinned by two sources that agree."),
                           dn->full, dn->variant);
    else
        cu_plan_reason(p, _("No cuDNN, as asked."));

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
        const struct cu_gpu_info *g = &r->f->gpus[i];
        struct cu_plan_gpu_code *e = &fw->gpu_code[fw->n_gpu_code++];
        e->gpu = g->index;
        if (fit[i] == -2) {
            e->code = cu_xstrdup("unknown");
            continue;
        }
        e->code = cu_xstrdup(cu_code_fit_name(fit[i]));
        e->target = cu_xasprintf(fit[i] == CU_CODE_SASS ? "sm_%d" : "compute_%d", target[i]);
        if (fit[i] == CU_CODE_SASS)
            cu_plan_reason(p, _("%s runs on GPU %d (compute capability %s) with its sm_%d code."), title, g->index,
                           V(&g->cc, b1, sizeof(b1)), target[i]);
        else
            cu_plan_warn(p, _("GPU %d (%s, compute capability %s) runs %s by JIT-compiling its PTX compute_%d: the first start compiles kernels for minutes (the driver caches them)."),
                         g->index, g->name, V(&g->cc, b1, sizeof(b1)), title, target[i]);
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
    if (!r->constrained)
        cu_plan_warn(p, _("This plan ignores this machine's GPU and driver."));
    free(target);
    free(fit);
    *out = p;
    return CU_OK;
}
