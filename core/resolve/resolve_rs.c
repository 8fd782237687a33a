/* SPDX-License-Identifier: MIT */
/*
 * The resolver's shared part: how a candidate's failure is noted, a framework option's life, and
 * whether a cuDNN release's support matrix lists the GPUs here.  resolve.c (the search),
 * resolve_judge.c (the judges of a candidate), resolve_fw.c (the framework options) and
 * resolve_lib.c (what pip brings) all use it; it calls none of them.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/catalog/cudnn_matrix.h"
#include "core/resolve/resolve_int.h"

void
rs_format(char *out, size_t len, const char *fmt, ...)
{
    char en[1024];
    va_list ap;
    va_start(ap, fmt);
    cu_vformat_both(out, en, len < sizeof(en) ? len : sizeof(en), fmt, ap);
    va_end(ap);
}

static void CU_PRINTF(3, 0)
note(struct rs *r, int stage, const char *fmt, va_list ap)
{
    char en[sizeof(r->why)];
    cu_vformat_both(r->why, en, sizeof(r->why), fmt, ap);
    r->stage = stage;
}

void
rs_fail(struct rs *r, int stage, const char *fmt, ...)
{
    if (stage <= r->stage || (r->silent && r->stage))
        return; /* a candidate that got as far or further already explains */
    va_list ap;
    va_start(ap, fmt);
    note(r, stage, fmt, ap);
    va_end(ap);
}

/* Like rs_fail(), but a later candidate at the same stage explains better: options come newest
 * first, so the last "needs CUDA X or newer" names the X closest to what was asked. */
void
rs_fail_closer(struct rs *r, int stage, const char *fmt, ...)
{
    if (stage < r->stage || (r->silent && r->stage))
        return;
    va_list ap;
    va_start(ap, fmt);
    note(r, stage, fmt, ap);
    va_end(ap);
}

void
rs_fwopt_init(struct fwopt *o)
{
    memset(o, 0, sizeof(*o));
    cu_strv_init(&o->pip);
    cu_strv_init(&o->constraints);
    cu_strv_init(&o->lib_reasons);
}

void
rs_fwopt_jax_build(struct rs *r, struct fwopt *o, const struct cu_cat_jax_plugin *p, const struct cu_version *v,
                   const char *tag, bool python)
{
    o->cuda_major = p->cuda_major;
    o->build_cuda = (struct cu_version){{(unsigned)p->cuda_major, 0}, 1};
    struct cu_version built;
    if (cu_catalog_jax_built_with(&r->cat->pip, v, &built) && (int)built.part[0] == p->cuda_major)
        o->build_cuda = built;
    o->code = cu_catalog_jax_code(r->cat, v, p->cuda_major);
    if (python)
        (void)cu_catalog_jax_python(&r->cat->pip, v, &o->py_min, &o->py_max); /* jaxlib's wheels */
    o->tag = cu_xstrdup(tag);
}

void
rs_fwopt_fini(struct fwopt *o)
{
    free(o->title);
    free(o->version);
    free(o->release);
    cu_strv_fini(&o->pip);
    free(o->index_url);
    free(o->tag);
    free(o->why);
    free(o->companions_why);
    free(o->py_note);
    free(o->local_needs);
    free(o->code_why);
    free(o->fit);
    free(o->target);
    free(o->lib_exact);
    free(o->lib_pkg);
    free(o->lib_row_note);
    cu_strv_fini(&o->constraints);
    cu_strv_fini(&o->lib_reasons);
}

/*
 * Does the support matrix allow cuDNN @v (for CUDA @cuda) on this driver and these GPUs?
 * A release with a matrix of its own is judged by it.  One without is judged by its
 * neighbours: it goes to a GPU only when the matrices before and after it both list
 * that GPU (so the newest release known to support an old GPU wins), and the plan says
 * it rests on neighbours (r->cudnn_note).
 */
bool
rs_cudnn_judge(struct rs *r, const struct cu_version *v, const struct cu_version *cuda, int *stage, char *why,
               size_t why_len)
{
    char b1[32], b2[32], b3[32], b4[32];
    const struct cu_cat_cudnn_support *row = cu_catalog_cudnn_support(r->cat, v, (int)cuda->part[0]);
    if (!row)
        return true; /* nothing known against it; the manifest decides */
    if (r->have_driver && row->driver.n && cu_version_cmp(&r->driver, &row->driver) < 0) {
        *stage = ST_CUDNN_DRIVER;
        rs_format(why, why_len, _("cuDNN %s for CUDA %u needs NVIDIA driver %s or newer; this machine has %s."),
             V(v, b1, sizeof(b1)), cuda->part[0], D(&row->driver, b2, sizeof(b2)),
             r->driver_text);
        return false;
    }
    if (!r->constrained)
        return true;
    struct cu_version v3 = *v, cm = mm(cuda);
    if (v3.n > 3)
        v3.n = 3;
    int major = (int)cuda->part[0];
    bool exact = cu_version_cmp(&row->cudnn, &v3) == 0;
    const struct cu_cat_cudnn_support *above = exact ? NULL : cu_catalog_cudnn_support_above(r->cat, v, major);
    if (above == row)
        above = NULL; /* no older matrix: the newer one is the only neighbour */
    const struct cu_gpu_info *older_drops = NULL; /* a GPU the older neighbour predates, listed by the newer */
    for (size_t i = 0; i < r->f->n_gpus; i++) {
        const struct cu_gpu_info *g = &r->f->gpus[i];
        const struct cu_cat_cudnn_support *against = NULL;
        if (!g->cc.n)
            continue;
        bool row_lists = cu_catalog_cudnn_lists(r->cat, &row->cudnn, major, &g->cc, NULL) == 1;
        if (cu_catalog_cudnn_lists(r->cat, v, major, &g->cc, &against) == 0) {
            *stage = ST_CUDNN_GPU;
            if (exact)
                rs_format(why, why_len, _("cuDNN %s does not support GPU %d (%s, compute capability %s)."), V(v, b1, sizeof(b1)),
                          g->index, g->name, V(&g->cc, b2, sizeof(b2)));
            else if (above && row_lists) /* the newer neighbour dropped the GPU */
                rs_format(why, why_len, _("No support matrix of cuDNN %s was read, and cuDNN %s no longer lists compute capability %s; cuDNN %s is the newest known to support GPU %d (%s)."),
                          V(v, b1, sizeof(b1)), V(&against->cudnn, b2, sizeof(b2)), V(&g->cc, b3, sizeof(b3)),
                          V(&row->cudnn, b4, sizeof(b4)), g->index, g->name);
            else if (above)
                rs_format(why, why_len, _("No support matrix of cuDNN %s was read, and neither cuDNN %s's nor cuDNN %s's lists compute capability %s (GPU %d, %s)."),
                          V(v, b1, sizeof(b1)), V(&row->cudnn, b2, sizeof(b2)), V(&above->cudnn, b3, sizeof(b3)),
                          V(&g->cc, b4, sizeof(b4)), g->index, g->name);
            else
                rs_format(why, why_len, _("No support matrix of cuDNN %s was read, and the nearest, cuDNN %s's, does not list compute capability %s (GPU %d, %s)."),
                          V(v, b1, sizeof(b1)), V(&row->cudnn, b2, sizeof(b2)), V(&g->cc, b3, sizeof(b3)), g->index,
                          g->name);
            if (!exact && !r->cudnn_skip[0])
                snprintf(r->cudnn_skip, sizeof(r->cudnn_skip), "%s", why);
            return false;
        }
        if (above && !row_lists && !older_drops)
            older_drops = g;
        for (size_t k = 0; k < row->n_cc_needs; k++) {
            if (cu_version_cmp(&row->cc_needs_cc[k], &g->cc) == 0 &&
                cu_version_cmp(&cm, &row->cc_needs_cuda[k]) < 0) {
                *stage = ST_CUDNN_GPU;
                rs_format(why, why_len, _("cuDNN %s supports GPU %d (compute capability %s) only with CUDA %s or newer, not %s."),
                     V(v, b1, sizeof(b1)), g->index, V(&g->cc, b2, sizeof(b2)),
                     V(&row->cc_needs_cuda[k], b3, sizeof(b3)), V(&cm, b4, sizeof(b4)));
                return false;
            }
        }
    }
    bool unknown = false; /* a GPU of unknown compute capability: no matrix is said to list it */
    for (size_t i = 0; i < r->f->n_gpus; i++)
        unknown |= !r->f->gpus[i].cc.n;
    if (!exact && r->f->n_gpus > 0 && unknown) {
        rs_format(r->cudnn_note, sizeof(r->cudnn_note),
                  _("No support matrix of cuDNN %s was read; the nearest, cuDNN %s's, lists every GPU here whose compute capability is known, which is not every GPU here."),
                  V(v, b1, sizeof(b1)), V(&row->cudnn, b2, sizeof(b2)));
    } else if (!exact && r->f->n_gpus > 0) {
        if (older_drops)
            rs_format(r->cudnn_note, sizeof(r->cudnn_note),
                      _("No support matrix of cuDNN %s was read; cuDNN %s's, the next newer, lists every GPU here, and cuDNN %s's, older, predates compute capability %s (GPU %d)."),
                      V(v, b1, sizeof(b1)), V(&above->cudnn, b2, sizeof(b2)), V(&row->cudnn, b3, sizeof(b3)),
                      V(&older_drops->cc, b4, sizeof(b4)), older_drops->index);
        else if (above)
            rs_format(r->cudnn_note, sizeof(r->cudnn_note),
                      _("No support matrix of cuDNN %s was read; those of cuDNN %s and %s both list every GPU here."),
                      V(v, b1, sizeof(b1)), V(&row->cudnn, b2, sizeof(b2)), V(&above->cudnn, b3, sizeof(b3)));
        else
            rs_format(r->cudnn_note, sizeof(r->cudnn_note),
                      _("No support matrix of cuDNN %s was read; the nearest, cuDNN %s's, lists every GPU here."),
                      V(v, b1, sizeof(b1)), V(&row->cudnn, b2, sizeof(b2)));
    }
    return true;
}


bool
rs_cudnn_row_fits(struct rs *r, const struct cu_version *v, const struct cu_version *cuda)
{
    char why[sizeof(r->why)];
    int stage = 0;
    if (rs_cudnn_judge(r, v, cuda, &stage, why, sizeof(why)))
        return true;
    rs_fail(r, stage, "%s", why);
    return false;
}

void
rs_driver_text(struct rs *r)
{
    char v[32], now[32];
    cu_driver_version_format(&r->driver, v, sizeof(v));
    /* The release the plan counts on (its branch's first in NVIDIA's table, or the distribution's), never
     * said as the one that runs: that is named beside it (issue 49: "this machine has 470.42.01" ran 470.82.01). */
    const struct cu_version *running = &r->f->driver.running;
    if (r->driver_planned && running->n)
        snprintf(r->driver_text, sizeof(r->driver_text), _("%s or newer (branch %u, which this plan installs; %s runs now)"),
                 v, r->driver.part[0], cu_driver_version_format(running, now, sizeof(now)));
    else if (r->driver_planned)
        snprintf(r->driver_text, sizeof(r->driver_text), _("%s or newer (branch %u, which this plan installs)"), v,
                 r->driver.part[0]);
    else
        snprintf(r->driver_text, sizeof(r->driver_text), "%s", v);
}
