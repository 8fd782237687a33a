/* SPDX-License-Identifier: MIT */
/*
 * The refusal: the one sentence that says what the user must change when nothing fits (a --cuda or
 * --python that nothing satisfies, no build with code for a GPU here, else the candidate that got
 * furthest), and the advice that names what does work: the exact command of a changed request that
 * planned (resolve.c finds it by resolving again), or the driver every GPU here needs.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/resolve/driver.h"
#include "core/resolve/resolve_int.h"

/*
 * No option has code for a GPU here: the sentence names the build whose code is oldest.  A build the
 * data is silent on is judged silently, so it never names the blocker; it does not stand in the way.
 */
/*
 * Every GPU here has code in some build, but no build has code for all of them (a GTX 980 beside an
 * RTX 5090: PyTorch's cu126 builds stop at sm_90, its cu128 and newer start at sm_70): the sentence says
 * so, naming for each GPU the first build that has its code, not one build's missing GPU.  False when a
 * GPU has code in no build (that GPU is the blocker).
 */
static bool
explain_split(struct rs *r, const struct fwopt *opts, size_t n_opts)
{
    char b1[32];
    size_t ng = r->f->n_gpus, known = 0;
    if (ng < 2 || r->fw.fw == CU_FW_NONE)
        return false;
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t g = 0; g < ng; g++) {
        const struct cu_gpu_info *gpu = &r->f->gpus[g];
        if (!gpu->cc.n)
            continue;
        const struct fwopt *serves = NULL;
        for (size_t i = 0; i < n_opts && !serves; i++) {
            int target;
            if (opts[i].code && cu_code_fit(opts[i].code, &gpu->cc, &target) != CU_CODE_NONE)
                serves = &opts[i];
        }
        if (!serves) {
            cu_buf_fini(&b);
            return false;
        }
        CU_AUTOFREE char *one = cu_tr_asprintf(_("%s has code for GPU %d (%s, compute capability %s)"), serves->title,
                                               gpu->index, gpu->name, V(&gpu->cc, b1, sizeof(b1)));
        cu_buf_printf(&b, "%s%s", known++ ? "; " : "", one);
    }
    if (known < 2) {
        cu_buf_fini(&b);
        return false;
    }
    r->stage = ST_DRIVER + 100; /* nothing else explains better */
    rs_format(r->why, sizeof(r->why), _("No %s build has code for every GPU here: %s; none has code for all of them."),
              cu_framework_title(cu_framework_name(r->fw.fw)), b.data);
    cu_buf_fini(&b);
    return true;
}

void
rs_explain_no_code(struct rs *r, const struct fwopt *opts, size_t n_opts)
{
    const struct fwopt *oldest = NULL;
    for (size_t i = 0; i < n_opts; i++) {
        const struct fwopt *o = &opts[i];
        if (!o->code && r->fw.fw != CU_FW_NONE)
            continue;
        if (!o->no_code || !o->code->n_sass)
            return; /* some option failed otherwise: its sentence stands */
        if (!oldest || o->code->sass[0] < oldest->code->sass[0])
            oldest = o;
    }
    if (!oldest || explain_split(r, opts, n_opts))
        return;
    r->stage = ST_DRIVER + 100; /* nothing else explains better */
    snprintf(r->why, sizeof(r->why), "%s", oldest->code_why);
}

/* Does the catalog's release row @i of the framework (newest first) have wheels for Python @py?  *@v: its
 * (first) version, *@top its last (JAX's rows are runs of releases); false past the last row. */
static bool
release_python(const struct rs *r, size_t i, const struct cu_version *py, struct cu_version *v, struct cu_version *top,
               bool *fits)
{
    struct cu_version lo = {{0}, 0}, hi = {{0}, 0};
    switch (r->fw.fw) {
    case CU_FW_TENSORFLOW:
        if (i >= r->cat->n_tf)
            return false;
        *v = r->cat->tf[i].version, lo = r->cat->tf[i].py_min, hi = r->cat->tf[i].py_max;
        break;
    case CU_FW_PYTORCH:
        if (i >= r->cat->n_torch)
            return false;
        *v = r->cat->torch[i].minor, lo = r->cat->torch[i].py_min, hi = r->cat->torch[i].py_max;
        break;
    case CU_FW_JAX:
        if (i >= r->cat->pip.n_jax_python)
            return false;
        *v = r->cat->pip.jax_python[i].from, lo = r->cat->pip.jax_python[i].min, hi = r->cat->pip.jax_python[i].max;
        break;
    default:
        return false;
    }
    *top = r->fw.fw == CU_FW_JAX ? r->cat->pip.jax_python[i].to : *v;
    *fits = lo.n && cu_version_cmp(py, &lo) >= 0 && cu_version_cmp(py, &hi) <= 0;
    if (r->fw.fw == CU_FW_PYTORCH && r->cat->torch[i].py_exp.n && cu_version_cmp(py, &r->cat->torch[i].py_exp) == 0)
        *fits = true; /* experimental upstream, its wheels read (torch_options plans it) */
    return true;
}

/*
 * A pinned release without wheels for the Python asked: the sentence names the release, the Pythons it has, and
 * the releases that have wheels for that Python (PyTorch 2.3 on 3.12 was told "No PyTorch release supports 3.12").
 */
static enum cu_status
pinned_python(struct rs *r, const struct fwopt *opts, const struct cu_version *lo, const struct cu_version *hi)
{
    char b1[32], b2[32], b3[32];
    const char *title = cu_framework_title(cu_framework_name(r->fw.fw));
    const char *pin = strstr(r->in->wishes->framework, "==");
    struct cu_version newest = {{0}, 0}, oldest = {{0}, 0}, v, top;
    bool fits;
    (void)opts;
    /* The newest run of releases with wheels for it (rows come newest first). */
    for (size_t i = 0; release_python(r, i, &r->py_wish, &v, &top, &fits); i++) {
        if (fits && !newest.n)
            newest = top;
        if (fits)
            oldest = v;
        else if (newest.n)
            break;
    }
    if (!newest.n)
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                            _("%s %s supports Python %s to %s, not %s; no %s release that cudaup knows supports Python %s."),
                            title, pin ? pin + 2 : "", V(lo, b1, sizeof(b1)), V(hi, b2, sizeof(b2)), r->in->wishes->python,
                            title, r->in->wishes->python);
    if (cu_version_cmp(&newest, &oldest) == 0)
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("%s %s supports Python %s to %s, not %s; %s %s supports Python %s."),
                            title, pin ? pin + 2 : "", V(lo, b1, sizeof(b1)), V(hi, b2, sizeof(b2)), r->in->wishes->python,
                            title, V(&newest, b3, sizeof(b3)), r->in->wishes->python);
    return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("%s %s supports Python %s to %s, not %s; %s %s to %s support Python %s."),
                        title, pin ? pin + 2 : "", V(lo, b1, sizeof(b1)), V(hi, b2, sizeof(b2)), r->in->wishes->python, title,
                        V(&oldest, b3, sizeof(b3)), V(&newest, (char[32]){0}, 32), r->in->wishes->python);
}

/*
 * A --cuda or --python that nothing could satisfy is the blocker to name, before any framework
 * release the user never chose: CUDA that has no code for a GPU here or that the driver cannot run,
 * a Python no release of the framework supports.
 */
enum cu_status
rs_check_wishes(struct rs *r, const struct fwopt *opts, size_t n_opts)
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
        if (!fits && lo.n && r->fw.v.n)
            return pinned_python(r, opts, &lo, &hi);
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

enum cu_status
rs_nothing_fits(struct rs *r)
{
    /* The most useful sentence: what the user must change. */
    const char *msg = r->why[0] ? r->why : _("No CUDA release on the mirror fits this machine.");
    return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, "%s", msg);
}

/* ---- advice ------------------------------------------------------------------ */

/* The command of a variant that planned, named exactly. */
static char *
advice_command(const struct cu_wishes *w, const struct variant *v, const struct cu_plan *p)
{
    char b1[32];
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_printf(&b, "cudaup install");
    /* Every framework of every environment, as --framework A,B --framework C names them: a plan of several keeps them all. */
    for (size_t k = 0; k <= p->n_envs; k++) {
        size_t nf;
        struct cu_plan_framework *const *fv = cu_plan_frameworks(k ? p->envs[k - 1] : p, &nf);
        cu_buf_printf(&b, " --framework %s", nf ? "" : "none");
        for (size_t i = 0; i < nf; i++)
            cu_buf_printf(&b, "%s%s%s%s", i ? "," : "", fv[i]->name, fv[i]->version ? "==" : "",
                          fv[i]->version ? fv[i]->version : "");
    }
    bool asked = w->cudnn && *w->cudnn && strcmp(w->cudnn, "auto") != 0 && strcmp(w->cudnn, "none") != 0;
    if (v->keep_cuda && w->cuda && *w->cuda && strcmp(w->cuda, "auto") != 0)
        cu_buf_printf(&b, " --cuda %s", w->cuda);
    if (!p->has_cudnn)
        cu_buf_printf(&b, " --cudnn none");
    else if (asked)
        cu_buf_printf(&b, " --cudnn %s", v->dnn == DNN_KEEP ? w->cudnn : cu_version_format(&p->cudnn, 2, b1, sizeof(b1)));
    if (v->keep_python && w->python && *w->python)
        cu_buf_printf(&b, " --python %s", w->python);
    if (w->advice_flags && *w->advice_flags)
        cu_buf_printf(&b, " %s", w->advice_flags);
    return cu_steal_ptr(&b.data);
}

/* A changed request @v planned @p: the advice names its exact command and what it gives. */
static void
advise_plan(const struct rs *r, const struct cu_wishes *w0, const struct variant *v, const struct cu_plan *p,
            const char *lead, struct cu_error *err)
{
    char b1[32], b2[32];
    enum cu_framework fw = p->framework ? p->framework->kind : CU_FW_NONE;
    const struct cu_plan_framework *f = p->framework;
    CU_AUTOFREE char *cmd = advice_command(w0, v, p);
    /* The request beside the sentence, for a front end that offers it as a choice (the wizard's Versions). */
    const char *flags = cmd + strlen("cudaup install ");
    if (!f)
        cu_error_advise_as(err, CU_ADV_REQUEST, flags, _("%s%s gives CUDA %s%s%s."),
                        lead ? lead : r->fw.fw == CU_FW_NONE ? _("What runs here: ") : _("No build of it runs here, but "), cmd,
                        V(&p->cuda, b1, sizeof(b1)), p->has_cudnn ? _(" and cuDNN ") : _(" without cuDNN"),
                        p->has_cudnn ? V(&p->cudnn, b2, sizeof(b2)) : "");
    else if (p->n_envs || p->n_frameworks > 1) {
        struct cu_strv names;
        cu_strv_init(&names);
        for (size_t k = 0; k <= p->n_envs; k++) {
            size_t nf;
            struct cu_plan_framework *const *fv = cu_plan_frameworks(k ? p->envs[k - 1] : p, &nf);
            for (size_t i = 0; i < nf; i++)
                cu_strv_push_owned(&names, cu_xasprintf("%s%s%s", cu_framework_title(fv[i]->name),
                                                        fv[i]->version ? " " : "", fv[i]->version ? fv[i]->version : ""));
        }
        CU_AUTOFREE char *list = cu_strv_join(&names, _(", "));
        cu_error_advise_as(err, CU_ADV_REQUEST, flags, _("%s%s gives %s with CUDA %s%s%s."),
                        lead ? lead : _("What runs here: "), cmd, list, V(&p->cuda, b1, sizeof(b1)),
                        p->has_cudnn ? _(" and cuDNN ") : "", p->has_cudnn ? V(&p->cudnn, b2, sizeof(b2)) : "");
        cu_strv_fini(&names);
    } else
        cu_error_advise_as(err, CU_ADV_REQUEST, flags, _("%s%s gives %s%s%s%s with CUDA %s%s%s."),
                        lead ? lead : fw == r->fw.fw ? _("What runs here: ") : _("No build of it runs here, but "), cmd,
                        cu_framework_title(cu_framework_name(fw)), f->version ? " " : "", f->version ? f->version : "",
                        fw == CU_FW_TENSORFLOW ? _(" (with Keras)") : "", V(&p->cuda, b1, sizeof(b1)),
                        p->has_cudnn ? _(" and cuDNN ") : "", p->has_cudnn ? V(&p->cudnn, b2, sizeof(b2)) : "");
}

void
rs_advise_plan(const struct rs *r, const struct cu_wishes *w0, const struct variant *v, const struct cu_plan *p,
               struct cu_error *err)
{
    advise_plan(r, w0, v, p, NULL, err);
}

void
cu_resolve_advise(const struct cu_wishes *w, const struct cu_plan *p, const char *lead, struct cu_error *err)
{
    struct rs r;
    memset(&r, 0, sizeof(r));
    r.fw.fw = p->framework ? p->framework->kind : CU_FW_NONE;
    const struct variant v = {true, .same = true, .dnn = DNN_KEEP, .keep_cuda = true, .keep_python = true};
    advise_plan(&r, w, &v, p, lead, err);
}

/* Nothing plans on this driver: the driver every GPU here needs, from the first CUDA that builds for it. */
void
rs_driver_advice(const struct rs *r, struct cu_error *err)
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
    /* A newer driver helps only where one branch serves every GPU here (a K80 ends with R470, an RTX 5090 needs
     * R570): else that is what to say, and what the driver planner advises. */
    struct cu_drv_wish dw = {.driver = "auto"};
    struct cu_drv_in din = {r->f, r->cat, &dw};
    struct cu_drv_plan *dp = cu_drv_choose(&din);
    bool none_serves = dp && dp->keep_may_do && dp->refusal;
    if (none_serves)
        cu_error_advise(err, _("Nothing cudaup installs runs on driver %s here, and no newer driver would do: %s %s"),
                        r->driver_text, dp->refusal, dp->advice ? dp->advice : "");
    cu_drv_plan_free(dp);
    if (none_serves)
        return;
    cu_error_advise(err, _("Nothing cudaup installs runs on driver %s here: GPU %d (%s) needs CUDA %s or newer, which needs NVIDIA driver %s or newer. Install it from the distribution's packages (cudaup doctor says which), then run cudaup again."),
                    r->driver_text, who->index, who->name, V(&first, b2, sizeof(b2)),
                    D(&need, b3, sizeof(b3)));
}
