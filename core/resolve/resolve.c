/* SPDX-License-Identifier: MIT */
/*
 * The resolver's search (cu_resolve): the wishes read, the framework's options judged for their GPU
 * code, then tried best vouched first, each against the CUDA releases on the mirror, newest first,
 * until one has a cuDNN and components that fit.  When nothing fits, the refusal's sentence comes
 * from resolve_advice.c, and the advice from resolving again with the request changed one way at a
 * time (find_advice), so the search and the request for advice stay in this one file.
 */
#include "config.h"

#include "core/resolve/resolve.h"

#include <stdlib.h>
#include <string.h>

#include "core/resolve/resolve_int.h"
#include "core/catalog/catalog_legacy.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"

/* Does the driver run natively some release of CUDA @major on the mirror that would serve: one option @o
 * (NULL: none) takes by its CUDA range, and that builds for every GPU here?  Only then is minor-version
 * compatibility (sweep 2) not needed: a native release of the major that the framework does not take, or
 * that has no code for a GPU, serves nothing (TensorFlow 2.13 needs 11.8, not the 11.4 that 470.82 runs). */
static bool
driver_runs_some_release(struct rs *r, const struct fwopt *o, char *const *labels, size_t n, int major)
{
    if (!r->have_driver)
        return true;
    for (size_t i = 0; i < n; i++) {
        struct cu_version v, need;
        if (!cu_version_parse(labels[i], &v) || v.n != 3 || (int)v.part[0] != major || !rs_spec_matches(&r->cuda, &v))
            continue;
        struct cu_version vmm = mm(&v);
        if (o && o->cuda_min.n && cu_version_cmp(&vmm, &o->cuda_min) < 0)
            continue;
        if (o && o->cuda_max.n && cu_version_cmp(&vmm, &o->cuda_max) > 0)
            continue;
        bool builds = true;
        for (size_t g = 0; r->constrained && g < r->f->n_gpus; g++)
            if (r->f->gpus[g].cc.n && cu_catalog_cuda_supports_cc(r->cat, &vmm, &r->f->gpus[g].cc) == 0)
                builds = false;
        if (builds && rs_cuda_needs_driver(r, &v, &need) && cu_version_cmp(&r->driver, &need) >= 0)
            return true;
    }
    return false;
}

/* Why @o was passed over for @oc, whose GPU code is vouched for better: read, or inferred where @o's is not recorded
 * (it said "while it is read for" of a build whose code was only inferred). */
static void
code_passed_over(struct cu_plan *p, const struct fwopt *o, const struct fwopt *oc)
{
    if (oc->code_class == CODE_READ)
        cu_plan_reason(p, _("Not %s: what GPU code it carries is %s, while it is read for %s."), o->title,
                       o->code_class == CODE_INFERRED ? _("only inferred") : _("not recorded"), oc->title);
    else
        cu_plan_reason(p, _("Not %s: what GPU code it carries is not recorded, while it is inferred for %s."), o->title,
                       oc->title);
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
        /* 2 with --cuda too, for a framework whose CUDA range the driver runs no release of natively (TensorFlow
         * 2.21 with --cuda 12.9 on 550, as the automatic choice plans it); a toolkit alone is planned natively. */
        if (sweep == 2 && ((r->cuda.kind != SPEC_AUTO && !o->cuda_major) ||
                           (o->cuda_major && driver_runs_some_release(r, o, labels, n, o->cuda_major))))
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
            if (sweep == 2 && !o->cuda_major && driver_runs_some_release(r, o, labels, n, (int)v.part[0]))
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
                r->offline_miss |= r->in->src->offline != NULL;
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
            if (st == CU_E_NOT_FOUND) {
                cu_strv_fini(&comps);
                rs_fail(r, ST_MIRROR, "%s", r->err->msg); /* a component of a shape cudaup cannot read */
                continue;
            }
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
            rs_fail_cuda_absent(r, ST_FRAMEWORK);
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

/* The search's notes in @r (what failed deepest), kept aside while one option is tried on its own. */
struct notes {
    int stage;
    char why[sizeof(((struct rs *)0)->why)];
    struct cu_version min_need;
};

static void
notes_save(const struct rs *r, struct notes *n)
{
    n->stage = r->stage;
    memcpy(n->why, r->why, sizeof(n->why));
    n->min_need = r->min_need;
}

static void
notes_restore(struct rs *r, const struct notes *n)
{
    r->stage = n->stage;
    memcpy(r->why, n->why, sizeof(r->why));
    r->min_need = n->min_need;
}

/*
 * The first option's own failure, in every sweep, apart from what the others said: the sentence that
 * says why the newest was passed over.  The search's notes in @r are left as they were.
 */
static void
first_failure(struct rs *r, const struct fwopt *o0, int last_sweep, char *why, size_t len)
{
    struct notes saved;
    notes_save(r, &saved);
    r->stage = 0;
    r->why[0] = '\0';
    memset(&r->min_need, 0, sizeof(r->min_need));
    r->silent = o0->code_class == CODE_SILENT;
    for (int sweep = 0; sweep <= last_sweep; sweep++) {
        struct cu_plan *p = NULL;
        if (try_option(r, o0, sweep, &p) == CU_OK)
            r->why[0] = '\0'; /* it failed in the search: a source's error then, not a reason */
        cu_plan_free(p);
    }
    r->silent = false;
    snprintf(why, len, "%s", r->why);
    notes_restore(r, &saved);
}

/* The first sweep from @from on in which @o would plan (-1: none); @r is left as it was. */
static int
plans_from(struct rs *r, const struct fwopt *o, int from)
{
    struct notes saved;
    int found = -1;
    notes_save(r, &saved);
    r->silent = true;
    for (int s = from; s < 3 && found < 0; s++) {
        struct cu_plan *p = NULL;
        if (try_option(r, o, s, &p) == CU_OK)
            found = s;
        cu_plan_free(p);
    }
    r->silent = false;
    notes_restore(r, &saved);
    return found;
}

/* Does the driver here run natively the CUDA X.Y of a build that brings its own runtime? */
static bool
runs_own_cuda(const struct rs *r, const struct fwopt *o)
{
    struct cu_version need;
    return o->bundled && o->cuda_mm.n && r->have_driver && r->cuda.kind == SPEC_AUTO &&
           cu_catalog_cuda_min_driver(r->cat, &o->cuda_mm, &need) && cu_version_cmp(&r->driver, &need) >= 0;
}

/* Do two options stand for one release (its builds for several CUDA majors or tags)? */
static bool
same_release(const struct fwopt *a, const struct fwopt *b)
{
    const char *ra = a->release ? a->release : a->version, *rb = b->release ? b->release : b->version;
    return ra && rb && strcmp(ra, rb) == 0;
}

/* Try the options, best vouched first: rows read in a source, then inferred ones, then silent ones. */
static enum cu_status
try_options(struct rs *r, struct fwopt *opts, size_t n_opts, struct cu_plan **out)
{
    enum cu_status st = CU_E_NOT_FOUND;
    char first_why[sizeof(r->why)] = "";
    size_t chosen = 0;
    int chosen_sweep = 0;
    bool first_tried = false;

    /* A build the driver runs with the system CUDA it was made for beats one that needs another release
     * of its major (sweep 1: a wheel with its own runtime, which the driver runs by NVIDIA's minor-version
     * compatibility), which beats one whose system CUDA leans on that compatibility too (sweep 2).  They
     * are weighed within one release, not across releases: the newest release that runs, by the rules a
     * pinned release is planned with, is not passed over for an older one whose own CUDA the driver runs
     * natively (PyTorch 2.14's cu126 wheels on driver 525.60.13 with CUDA 12.9 by minor-version
     * compatibility, not 2.5 cu118; TensorFlow 2.13 with CUDA 11.8 on 470.82.01, not 2.11 with 11.4). */
    struct step {
        size_t i;
        int sweep;
    } *plan_of = cu_xcalloc(3 * n_opts + 1, sizeof(*plan_of));
    size_t n_steps = 0;
    for (int pass = CODE_READ; pass <= CODE_SILENT; pass++)
        for (size_t g = 0, end; g < n_opts; g = end) {
            for (end = g + 1; end < n_opts && same_release(&opts[g], &opts[end]); end++)
                ;
            for (int sweep = 0; sweep < 3; sweep++)
                for (size_t k = g; k < end; k++) {
                    if (opts[k].code_class != pass || (sweep == 1 && runs_own_cuda(r, &opts[k])))
                        continue;
                    plan_of[n_steps++] = (struct step){k, sweep};
                    /* A build whose own CUDA the driver runs natively is as good beside another release of that
                     * major, where the mirror lacks its own: its sweep 1 comes right after its sweep 0 (PyTorch
                     * 2.0's stable cu117 with the system CUDA 11.8, before the experimental cu118). */
                    if (sweep == 0 && runs_own_cuda(r, &opts[k]))
                        plan_of[n_steps++] = (struct step){k, 1};
                }
        }
    for (size_t s = 0; s < n_steps && st == CU_E_NOT_FOUND; s++) {
        size_t i = plan_of[s].i;
        r->silent = opts[i].code_class == CODE_SILENT;
        st = try_option(r, &opts[i], plan_of[s].sweep, out);
        r->silent = false;
        if (st == CU_OK)
            chosen = i, chosen_sweep = plan_of[s].sweep;
        if (i == 0)
            first_tried = true;
    }
    if (first_tried && (st == CU_E_NOT_FOUND || (st == CU_OK && chosen != 0))) {
        /* A build of the same release chosen in sweep S: the first was passed over in sweeps 0 to S only (PyTorch
         * 2.14 cu126 whose CUDA 12.6 is on the mirror comes before cu132 with another CUDA 13 release). */
        bool same = st == CU_OK && same_release(&opts[0], &opts[chosen]);
        first_failure(r, &opts[0], same ? chosen_sweep : 2, first_why, sizeof(first_why));
        r->first_title = opts[0].title;
        memcpy(r->first_why, first_why, sizeof(r->first_why));
    }
    free(plan_of);
    if (st != CU_OK || chosen == 0)
        return st;
    const struct fwopt *o0 = &opts[0], *oc = &opts[chosen];
    if (o0->code_class == CODE_NO_FIT)
        cu_plan_reason(*out, _("Not %s: %s"), o0->title, o0->code_why);
    else if (first_tried && first_why[0] && same_release(o0, oc) &&
             plans_from(r, o0, chosen_sweep + 1) == 2)
        cu_plan_reason(*out, _("Not %s: %s It would run only by NVIDIA's minor-version compatibility, and a build of the same release that runs natively comes first: %s."),
                       o0->title, first_why, oc->title);
    else if (first_tried && first_why[0])
        cu_plan_reason(*out, _("Not %s: %s"), o0->title, first_why);
    else if (same_release(o0, oc) && runs_own_cuda(r, oc) && !runs_own_cuda(r, o0) && o0->cuda_mm.n)
        cu_plan_reason(*out, _("Not %s: its own CUDA %s runtime would run on driver %s only by NVIDIA's minor-version compatibility, and that of %s runs natively."),
                       o0->title, V(&o0->cuda_mm, (char[32]){0}, 32), r->driver_text, oc->title);
    else if (o0->code_class > oc->code_class)
        code_passed_over(*out, o0, oc);
    /* A newer release passed over only because its GPU code is inferred, where the newest was passed over for
     * another reason (PyTorch 2.7 cu118 on driver 520, behind 2.14 cu132's driver): say so. */
    for (size_t i = 1; i < chosen; i++)
        if (opts[i].code_class > oc->code_class && opts[i].code_class != CODE_NO_FIT && !same_release(&opts[i], oc) &&
            !(opts[i].version && o0->version && strcmp(opts[i].version, o0->version) == 0) && plans_from(r, &opts[i], 0) >= 0) {
            code_passed_over(*out, &opts[i], oc);
            break;
        }
    /* When the newest has no code for a GPU here: why not the newest that has (its libraries, its runtime). */
    for (size_t i = 1; o0->no_code && i < chosen; i++)
        if (opts[i].code && !opts[i].no_code && opts[i].code_class == CODE_NO_FIT && opts[i].code_why) {
            cu_plan_reason(*out, _("Not %s: %s"), opts[i].title, opts[i].code_why);
            break;
        }
    return st;
}

/* The mirror lists a CUDA release that --cuda takes (any, when --cuda is not set). */
static bool
mirror_lists_cuda(struct rs *r)
{
    if (r->cuda.kind == SPEC_AUTO)
        return true;
    char *const *labels;
    size_t n;
    struct cu_error e;
    if (r->in->src->index(r->in->src->ctx, CU_PRODUCT_CUDA, &labels, &n, &e) != CU_OK)
        return true;
    for (size_t i = 0; i < n; i++) {
        struct cu_version v;
        if (cu_version_parse(labels[i], &v) && v.n == 3 && rs_spec_matches(&r->cuda, &v))
            return true;
    }
    return false;
}

/*
 * Nothing on the mirror fits: the newest older stack that does (TensorFlow 1.13-2.4, or the toolkit alone
 * from CUDA 10.0-11.3's runfiles), and why not the newest the search tried.
 */
static enum cu_status
legacy_fallback(struct rs *r, const struct fwopt *opts, size_t n_opts, struct cu_plan **out)
{
    char newer_why[sizeof(r->why)];
    memcpy(newer_why, r->why, sizeof(newer_why)); /* what stopped the newest candidate that got furthest */
    enum cu_status st = rs_legacy_search(r, out);
    if (st != CU_OK || n_opts == 0)
        return st;
    const struct fwopt *o0 = &opts[0];
    const char *why = o0->code_class == CODE_NO_FIT && o0->code_why ? o0->code_why : r->first_why;
    if (r->fw.fw == CU_FW_NONE) {
        /* A --cuda the mirror does not list at all is served from its runfile: nothing newer was passed over. */
        if (newer_why[0] && mirror_lists_cuda(r))
            cu_plan_reason(*out, _("Not a newer CUDA: %s"), newer_why);
        return st;
    }
    if (why[0])
        cu_plan_reason(*out, _("Not %s: %s"), o0->title, why);
    if (newer_why[0] && strcmp(newer_why, why) != 0)
        cu_plan_reason(*out, _("Not a newer %s: %s"), cu_framework_title(cu_framework_name(r->fw.fw)), newer_why);
    return st;
}

/*
 * A --cuda that neither the mirror nor a runfile of the catalog's holds: no build of any framework can
 * meet it, whatever else changes, so the refusal names it, not what stopped a build the request never
 * reached (A100 on 530 with pytorch --cuda 12.1 was told of the driver PyTorch 2.14 cu132 needs).  Where
 * that release cannot build for a GPU here, the GPU is the blocker: it holds whatever the mirror carries
 * (GTX 780, --cuda 12.0: CUDA 12 has no sm_35).
 */
static void
wished_cuda_blocker(struct rs *r)
{
    if (r->cuda.kind == SPEC_AUTO || mirror_lists_cuda(r))
        return;
    const struct cu_cat_legacy *l = r->cat->legacy;
    for (size_t i = 0; l && i < l->n_cuda; i++)
        if (rs_spec_matches(&r->cuda, &l->cuda[i].version))
            return; /* served from its runfile where it fits: what stopped that explains */
    bool unknown;
    r->stage = 0;
    r->why[0] = '\0';
    r->silent = false;
    if (rs_gpus_fit_cuda(r, &r->cuda.v, &unknown) == 0)
        rs_fail_cuda_absent(r, ST_MIRROR);
}

static enum cu_status resolve(const struct cu_resolve_in *in, bool no_advice, struct cu_plan **out,
                              struct cu_error *err);

/*
 * After a refusal: the command that does work on this machine, in the error's advice.  First the
 * request with one thing changed (another cuDNN, CUDA or Python), then the framework at any version,
 * without cuDNN, the other frameworks, then CUDA alone, with and without cuDNN.
 */
static void
find_advice(const struct cu_resolve_in *in, const struct rs *r, struct cu_error *err)
{
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
        rs_advise_plan(r, w0, v, p, err);
        cu_plan_free(p);
        return;
    }
    rs_driver_advice(r, err);
}

/*
 * A set of frameworks that cannot share one environment: the nearest sets that do (resolve_multi.c
 * names them), else one environment each, when each of them plans alone.
 */
static void
find_multi_advice(const struct cu_resolve_in *in, struct cu_error *err)
{
    const char *fw = in->wishes->framework;
    struct cu_plan *shared = NULL;
    CU_AUTOFREE char *shared_fw = NULL;
    for (int k = 0; !shared; k++) {
        char *v = rs_multi_variant(fw, k);
        if (!v)
            break;
        struct cu_wishes w = *in->wishes;
        w.framework = v;
        struct cu_resolve_in in2 = *in;
        in2.wishes = &w;
        struct cu_error e2;
        cu_error_clear(&e2);
        if (resolve(&in2, true, &shared, &e2) == CU_OK)
            shared_fw = v;
        else
            free(v);
    }
    bool each = true;
    CU_AUTOFREE char *list = cu_xstrdup(fw);
    char *save = NULL;
    for (char *one = strtok_r(list, ",", &save); one && each; one = strtok_r(NULL, ",", &save)) {
        struct cu_wishes w = *in->wishes;
        w.framework = one;
        struct cu_resolve_in in2 = *in;
        in2.wishes = &w;
        struct cu_plan *p = NULL;
        struct cu_error e2;
        cu_error_clear(&e2);
        each = resolve(&in2, true, &p, &e2) == CU_OK;
        cu_plan_free(p);
    }
    rs_multi_advise(fw, shared, shared_fw, each, in->wishes->python, err);
    cu_plan_free(shared);
}

/* Is @p TensorFlow alone with its own CUDA wheels over NVIDIA's archives, the default's wheels refused? */
static bool
tf_fell_back(const struct cu_plan *p)
{
    size_t n;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &n);
    return p->toolkit && !p->toolkit->asked && p->toolkit->why_system && n == 1 &&
           strcmp(fw[0]->name, "tensorflow") == 0 && fw[0]->bundled_runtime && cu_plan_system_toolkit(p);
}

enum cu_status
cu_resolve(const struct cu_resolve_in *in, struct cu_plan **out, struct cu_error *err)
{
    /* --cudnn VER with --toolkit wheels or none pins the frameworks' cuDNN wheel (rs_plan_toolkit), not an archive: the
     * resolve does not look for NVIDIA's archive of it, which the plan would not download. */
    struct cu_wishes w = *in->wishes;
    struct cu_resolve_in in2 = *in;
    const char *tk = in->wishes->toolkit, *dnn = in->wishes->cudnn;
    if (tk && (strcmp(tk, "wheels") == 0 || strcmp(tk, "none") == 0) && dnn && *dnn && strcmp(dnn, "auto") != 0 &&
        strcmp(dnn, "none") != 0) {
        w.cudnn = NULL;
        in2.wishes = &w;
    }
    enum cu_status st;
    if (!tk && dnn && *dnn && strcmp(dnn, "auto") != 0 && strcmp(dnn, "none") != 0) {
        /* --cudnn VER and no --toolkit: where the default is the wheels (every framework brings its CUDA), the cuDNN
         * asked is the frameworks' wheel, as with --toolkit wheels; else NVIDIA's archive of it, resolved below. */
        struct cu_plan *p = NULL;
        struct cu_error e2;
        cu_error_clear(&e2);
        w.cudnn = NULL;
        in2.wishes = &w;
        if (resolve(&in2, false, &p, &e2) == CU_OK && p && rs_plan_toolkit(in, p, NULL, &e2) == CU_OK && p->toolkit &&
            strcmp(p->toolkit->kind, "wheels") == 0) {
            *out = p;
            return CU_OK;
        }
        cu_plan_free(p);
        in2.wishes = in->wishes;
    }
    st = resolve(&in2, false, out, err);
    /* Where its toolkit comes from (--toolkit): on the plan as resolved, whichever path made it. */
    if (st == CU_OK && *out && (st = rs_plan_toolkit(in, *out, NULL, err)) != CU_OK) {
        cu_plan_free(*out);
        *out = NULL;
    }
    if (st == CU_OK && !tk && tf_fell_back(*out)) {
        /* TensorFlow alone as tensorflow[and-cuda] by the default, whose compiler wheels cannot serve this plan (their
         * release below what its wheel asks, or over the driver): over a system CUDA instead, as before 2.15, rather
         * than its CUDA twice, why said. */
        struct cu_plan *p = NULL;
        struct cu_error e2;
        cu_error_clear(&e2);
        w = *in->wishes; /* every wish as given (--cudnn too, which the try above left out) */
        w.toolkit = "system";
        in2.wishes = &w;
        enum cu_status st2 = resolve(&in2, false, &p, &e2);
        if (st2 == CU_OK)
            st2 = rs_plan_toolkit(in, p, (*out)->toolkit->why_system, &e2);
        /* The plan over the system CUDA, or what stopped it (nothing fits there, a manifest that is not one): never the
         * first plan, whose CUDA the archives would bring a second time. */
        cu_plan_free(*out);
        *out = p;
        if (st2 != CU_OK) {
            cu_plan_free(p);
            *out = NULL;
            *err = e2;
        }
        st = st2;
    }
    return st;
}

/* A framework of a set, resolved alone to judge it: its toolkit is the set's (cu_resolve decides it once). */
static enum cu_status
resolve_part(const struct cu_resolve_in *in, struct cu_plan **out, struct cu_error *err)
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
    /* --framework A --framework B ("A;B"): this resolve is for the first environment (installers/envs.c
     * plans the others). */
    CU_AUTOFREE char *first_env = NULL;
    struct cu_wishes w1;
    struct cu_resolve_in in1;
    if (in->wishes->framework && strchr(in->wishes->framework, ';')) {
        first_env = cu_xstrndup(in->wishes->framework, strcspn(in->wishes->framework, ";"));
        w1 = *in->wishes;
        w1.framework = first_env;
        in1 = *in;
        in1.wishes = &w1;
        in = &in1;
    }
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

    if (rs_multi_wanted(in->wishes->framework)) {
        r.resolve_alone = resolve_part;
        st = rs_resolve_multi(&r, try_option, out);
        if (st == CU_E_UNSUPPORTED && !no_advice && !err->advice[0])
            find_multi_advice(in, err);
        return st;
    }
    const struct cu_cat_legacy_tf *legacy = rs_legacy_match(&r);
    if (legacy) {
        st = rs_legacy_resolve(&r, legacy, out);
        if (st == CU_E_UNSUPPORTED && !no_advice && !err->advice[0])
            find_advice(in, &r, err);
        return st;
    }
    switch (r.fw.fw) {
    case CU_FW_TENSORFLOW:
        st = tf_options(&r, &opts, &n_opts);
        if (st == CU_OK) /* --toolkit wheels or none: the releases that bring their CUDA as wheels */
            st = rs_tf_own_cuda(&r, &opts, &n_opts);
        break;
    case CU_FW_PYTORCH: st = torch_options(&r, &opts, &n_opts); break;
    case CU_FW_JAX: st = jax_options(&r, &opts, &n_opts); break;
    case CU_FW_NONE:
    default:
        add_none_option(&r, &opts, &n_opts);
        st = CU_OK;
        break;
    }
    if (st == CU_OK)
        st = rs_check_wishes(&r, opts, n_opts);
    if (st == CU_OK) {
        for (size_t i = 0; i < n_opts; i++) {
            r.silent = !opts[i].code && r.fw.fw != CU_FW_NONE;
            rs_judge_code(&r, &opts[i]);
            rs_judge_libs(&r, &opts[i]);
            rs_judge_runtime(&r, &opts[i]);
        }
        r.silent = false;
        rs_explain_no_code(&r, opts, n_opts);
        st = try_options(&r, opts, n_opts, out);
        if (st == CU_E_NOT_FOUND)
            st = legacy_fallback(&r, opts, n_opts, out);
        if (st == CU_E_NOT_FOUND) {
            wished_cuda_blocker(&r);
            st = rs_nothing_fits(&r);
        }
        /* No GPU: the plan's note comes from doctor's finding, with its fix (installers/driver.c,
         * inst_driver_bind); a second one here said it twice (issue 35). */
    }
    for (size_t i = 0; i < n_opts; i++)
        rs_fwopt_fini(&opts[i]);
    free(opts);
    if (st != CU_OK && *out) {
        cu_plan_free(*out);
        *out = NULL;
    }
    if (st == CU_E_UNSUPPORTED && r.offline_miss) {
        /* What stopped the plan is the cache, not the machine: another framework's stack that happens to need no
         * manifest ("No build of it runs here, but TensorFlow 2.4.4") would be a false sentence. */
        cu_error_advise(err, _("Run cudaup once where NVIDIA's server can be reached (its manifests are kept in the cache), "
                               "or give --mirror a folder that `cudaup mirror DIR` filled."));
        return st; /* exit 3, as install --offline's refusal of archives the cache lacks */
    }
    if (st == CU_E_UNSUPPORTED && !no_advice)
        find_advice(in, &r, err);
    return st;
}
