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
            if (!rs_has_platform(cu_manifest_package(m, "cuda_cudart"), r->platform)) {
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
            st = rs_pick_components(r, m, &comps);
            if (st == CU_OK)
                st = rs_fill_plan(r, o, m, &v, &need, &comps, &dn, out);
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
