/* SPDX-License-Identifier: MIT */
/*
 * TensorFlow with its CUDA as pip wheels (tensorflow[and-cuda], issue 50): an option of resolve_fw.c made the release
 * whose [and-cuda] wheel's pins were read (framework_wheels), beside other frameworks (resolve_multi.c) and alone,
 * where the toolkit is the compiler wheels (--toolkit wheels or none, and the default) -- its CUDA family held at the
 * release of the runtime it pins, its cuDNN the one it pins or the range it asks, its CUDA floor the runtime it asks.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/pipspec.h"
#include "core/resolve/resolve_int.h"

/* A TensorFlow option of resolve_fw.c made the release that brings its CUDA as wheels (tensorflow[and-cuda]). */
void
rs_tf_pins(struct fwopt *o, const struct cu_cat_fw_wheel *w)
{
    char b1[32];
    const struct cu_cat_wheel_req *dnn;
    V(&w->version, b1, sizeof(b1));
    free(o->title);
    free(o->version);
    free(o->why);
    o->title = cu_xasprintf("TensorFlow %s", b1);
    o->version = cu_xstrdup(b1);
    cu_strv_fini(&o->pip);
    cu_strv_init(&o->pip);
    cu_strv_push(&o->pip, w->pip);
    o->bundled = true;
    o->cuda_min = o->cuda_max = o->cudnn_min = (struct cu_version){{0}, 0};
    o->cudnn_major = 0;
    o->cuda_max_why = NULL;
    rs_cudnn_req(w, &dnn);
    /* The cuDNN it brings, judged against the GPUs as the other frameworks' (rs_judge_libs): the one its wheel pins, or
     * pip's newest of the range it asks. */
    struct cu_version pin;
    bool prefix;
    const struct cu_pipspec *one = dnn ? &dnn->spec : NULL;
    if (dnn && cu_pipspec_pinned(&one, 1, &pin, &prefix) && !prefix)
        o->lib_exact = cu_xstrdup(V(&pin, (char[32]){0}, 32));
    else if (dnn) {
        bool exact;
        o->lib_pkg = cu_xstrdup(dnn->package);
        (void)cu_pipspec_floor(&dnn->spec, &o->lib_min, &exact);
        (void)cu_pipspec_below(&dnn->spec, &o->lib_max_excl);
    }
    o->why = cu_xasprintf(_("TensorFlow %s (with Keras) with its CUDA %d libraries as pip wheels (tensorflow[and-cuda]); its wheel asks for %s%s."),
                          b1, w->cuda_major, dnn ? dnn->package : "?", dnn ? dnn->text : "");
}

/* The tensorflow[and-cuda] row of @o's release: the one of its X.Y, or, where a patch was pinned (tensorflow==2.15.0),
 * that patch's alone. */
static const struct cu_cat_fw_wheel *
tf_row(const struct rs *r, const struct fwopt *o)
{
    struct cu_version ov = o->version ? vp(o->version) : (struct cu_version){{0}, 0};
    if (!ov.n)
        return NULL;
    if (r->fw.v.n >= 3)
        return rs_find_wheel(r, "tensorflow", NULL, &ov, true);
    return rs_find_wheel(r, "tensorflow", NULL, &(struct cu_version){{ov.part[0], ov.part[1]}, 2}, false);
}

/* Alone, the plan's CUDA is its wheels': the X.Y of the lowest runtime @w asks for (">=12.5.82", "==12.3.101") in
 * *@mm, untouched where it asks for none. */
static void
runtime_floor(const struct cu_cat_fw_wheel *w, struct cu_version *mm)
{
    bool exact;
    for (size_t i = 0; i < w->n_req; i++)
        if (strncmp(w->req[i].package, "nvidia-cuda-runtime", 19) == 0 && cu_pipspec_floor(&w->req[i].spec, mm, &exact))
            mm->n = 2;
}

/* The TensorFlow releases, newest first, that bring their CUDA as wheels and run here: "2.21.0, 2.20.0". Caller frees. */
static char *
tf_wheel_releases(const struct rs *r)
{
    char b1[32];
    struct rs rp = *r;
    struct cu_error e;
    struct fwopt *opts = NULL;
    size_t n = 0;
    struct cu_buf b;
    cu_buf_init(&b);
    cu_error_clear(&e);
    rp.err = &e;
    memset(&rp.fw.v, 0, sizeof(rp.fw.v));
    rp.fw.pre[0] = '\0';
    rp.silent = true;
    if (tf_options(&rp, &opts, &n) == CU_OK)
        for (size_t i = 0; i < n; i++) {
            const struct cu_cat_fw_wheel *wh = tf_row(&rp, &opts[i]);
            if (!wh)
                continue;
            rs_judge_code(&rp, &opts[i]);
            if (opts[i].code_class != CODE_NO_FIT && rs_driver_runs_major(r, wh->cuda_major, NULL))
                cu_buf_printf(&b, "%s%s", b.len ? _(", ") : "", V(&wh->version, b1, sizeof(b1)));
        }
    for (size_t i = 0; i < n; i++)
        rs_fwopt_fini(&opts[i]);
    free(opts);
    return cu_buf_steal(&b);
}

enum cu_status
rs_tf_own_cuda(struct rs *r, struct fwopt **opts, size_t *n)
{
    const struct cu_wishes *w = r->in->wishes;
    const char *tk = w->toolkit;
    /* No --toolkit: the default is the compiler wheels where the framework brings its own CUDA (rs_plan_toolkit), so
     * the releases that can are planned so, the others kept over a system CUDA; not where --components chooses parts
     * of NVIDIA's archives or several environments share one toolkit (their default stays the system's). */
    bool dflt = !tk || !*tk;
    if (dflt ? (w->components && *w->components) || w->toolkit_shared : strcmp(tk, "wheels") != 0 && strcmp(tk, "none") != 0)
        return CU_OK;
    size_t k = 0;
    char held_why[512] = "";
    CU_AUTOFREE char *first = NULL;
    for (size_t i = 0; i < *n; i++) {
        struct fwopt *o = &(*opts)[i];
        const struct cu_cat_fw_wheel *wh = tf_row(r, o);
        char *family = NULL;
        if (!first)
            first = cu_xstrdup(o->version ? o->version : "");
        /* As beside other frameworks: tensorflow[and-cuda]==X, the rest of its CUDA wheels' family held at the
         * release of the runtime its wheel pins (on a copy of the constraints: the default keeps the option as it was
         * where the hold fails). */
        struct cu_strv held;
        cu_strv_init(&held);
        for (size_t c = 0; wh && c < o->constraints.n; c++)
            cu_strv_push(&held, o->constraints.v[c]);
        if (wh && !rs_hold_cuda_family(r, &wh, 1, false, &held, &family, held_why, sizeof(held_why)))
            wh = NULL;
        if (wh) {
            rs_tf_pins(o, wh);
            o->wheel = wh;
            o->kind = CU_FW_TENSORFLOW;
            o->cuda_major = wh->cuda_major;
            runtime_floor(wh, &o->cuda_min); /* --cuda 12.2 takes a release whose wheel asks 12.2 (2.15.1) */
            cu_strv_fini(&o->constraints);
            o->constraints = held;
            if (family)
                cu_strv_push_owned(&o->lib_reasons, family);
        } else {
            cu_strv_fini(&held);
            if (!dflt || r->cudnn.kind == SPEC_NONE) { /* --cudnn none: only a release that brings its own */
                rs_fwopt_fini(o);
                continue;
            }
        }
        (*opts)[k++] = *o;
    }
    *n = k;
    if (k)
        return CU_OK;
    if (dflt && r->cudnn.kind != SPEC_NONE)
        return CU_OK;
    if (dflt) {
        CU_AUTOFREE char *ok = tf_wheel_releases(r);
        return cu_error_set(r->err, CU_E_USAGE, 0,
                            _("--cudnn none: TensorFlow %s loads cuDNN from the CUDA install (cudaup has read no tensorflow[and-cuda] wheel of it, which would bring its own); leave --cudnn out, or name a release whose wheels bring it and that runs here: %s."),
                            first ? first : "", *ok ? ok : _("none"));
    }
    if (held_why[0])
        return cu_error_set(r->err, CU_E_USAGE, 0, _("--toolkit %s: %s Use --toolkit system."), tk, held_why);
    CU_AUTOFREE char *ok = tf_wheel_releases(r);
    if (*ok)
        return cu_error_set(r->err, CU_E_USAGE, 0,
                            _("--toolkit %s: cudaup has read no tensorflow[and-cuda] wheel of TensorFlow %s (one that brings its CUDA as wheels), so it plans that release only over a system CUDA toolkit; use --toolkit system, or a TensorFlow release whose [and-cuda] wheel it has read and that runs on these GPUs and driver: %s."),
                            tk, first ? first : "", ok);
    return cu_error_set(r->err, CU_E_USAGE, 0,
                        _("--toolkit %s: cudaup has read no tensorflow[and-cuda] wheel of TensorFlow %s (one that brings its CUDA as wheels), so it plans that release only over a system CUDA toolkit, and no release whose [and-cuda] wheel it has read runs on these GPUs and driver; use --toolkit system."),
                        tk, first ? first : "");
}
