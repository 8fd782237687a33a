/* SPDX-License-Identifier: MIT */
/*
 * Several frameworks in one environment (--framework pytorch,jax): releases of each whose CUDA wheels
 * agree -- one CUDA major, every distribution two of them name satisfiable by one release, one
 * nvidia-cudnn-cuNN release that every one of them accepts and whose support matrix lists every GPU
 * here.  The framework named first decides: its newest release that fits, then the newest releases of
 * the others that agree with it.  What each release's wheel asks pip for is the catalog's
 * framework_wheels (data/compat/framework_wheel_requires.csv, read from PyPI); a release without a
 * row is not planned beside others, and every framework of the set brings its CUDA as wheels (one
 * that loads the CUDA folder's libraries through LD_LIBRARY_PATH would shadow the others').  The pins
 * the set shares go to pip's constraints file, so that each framework may come from its own index.
 * When no set agrees, the sentence names the pins that clash, as pip or conda would; resolve.c finds
 * the advice (a set that does plan, or one environment each).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/pipspec.h"
#include "core/resolve/resolve_int.h"

#define MAX_PKGS 64

struct part {
    struct fwspec spec;
    char *text; /* this framework's item of --framework: "pytorch==2.8" */
    struct fwopt *opts;
    size_t n;
    char *unread; /* the newest build that runs here but whose wheel's pins were not read, or NULL */
    struct cu_version unread_v;
};

/* The first ';'-group of --framework (the environment this resolve is for), as a copy. */
static char *
first_group(const char *framework)
{
    const char *semi = strchr(framework, ';');
    return semi ? cu_xstrndup(framework, (size_t)(semi - framework)) : cu_xstrdup(framework);
}

bool
rs_multi_wanted(const char *framework)
{
    if (!framework)
        return false;
    const char *semi = strchr(framework, ';');
    const char *comma = strchr(framework, ',');
    return comma && (!semi || comma < semi);
}

/* ---- each framework's releases, with the pins of their wheels --------------------------- */

static bool
version_matches(const struct cu_version *want, const struct cu_version *have)
{
    return !want->n || cu_version_matches(have, want) || cu_version_cmp(have, want) == 0;
}

/* A PyTorch option of resolve_fw.c, held to the release whose PyPI wheel's pins were read, with the companions
 * built for that release. */
static bool
torch_pins(struct rs *r, struct fwopt *o, const struct cu_cat_fw_wheel *w)
{
    char b1[32], b2[32];
    const struct cu_cat_wheel_req *dnn;
    V(&w->version, b1, sizeof(b1));
    free(o->title);
    free(o->version);
    free(o->why);
    o->title = cu_xasprintf("PyTorch %s (%s)", b1, o->tag);
    o->version = cu_xstrdup(b1);
    /* torch==V from the index of its CUDA, and the torchvision and torchaudio built for V; what the option held of
     * its CUDA wheels alone, the set holds for every part (set_agrees) */
    cu_strv_fini(&o->constraints);
    cu_strv_init(&o->constraints);
    cu_strv_fini(&o->lib_reasons);
    cu_strv_init(&o->lib_reasons);
    if (o->pip.n) {
        free(o->pip.v[0]);
        o->pip.v[0] = cu_xstrdup(w->pip);
    }
    rs_torch_companions(r, o, &w->version);
    rs_cudnn_req(w, &dnn);
    o->why = cu_xasprintf(_("PyTorch %s, its %s build (CUDA %s): its wheel pins cuDNN as %s%s."), b1, o->tag,
                          V(&w->build_cuda, b2, sizeof(b2)), dnn ? dnn->package : "?", dnn ? dnn->text : "");
    return true;
}

/* JAX: one option per release whose wheels' pins were read, newest first, per CUDA plugin. */
static enum cu_status
jax_wheel_options(struct rs *r, struct fwopt **opts, size_t *n)
{
    char b1[32], b2[32];
    if (strstr(r->fw.extra, "local"))
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                            _("jax[%s] loads the CUDA folder's libraries through LD_LIBRARY_PATH, which would come before the other frameworks' own CUDA wheels; in an environment with others, JAX brings its own (jax[cuda12] or jax[cuda13])."),
                            r->fw.extra);
    for (size_t i = 0; i < r->cat->n_jax; i++) {
        const struct cu_cat_jax_plugin *p = &r->cat->jax[i];
        if (r->fw.extra[0] && strcmp(r->fw.extra, p->extra) != 0)
            continue;
        struct cu_version first = {{0}, 0};
        if (p->first_version && !cu_version_parse(p->first_version, &first))
            first.n = 0;
        if (r->fw.v.n && first.n && cu_version_cmp(&r->fw.v, &first) < 0)
            continue; /* the pinned release predates this plugin: nothing of it to judge (JAX 0.6.1 has no cuda13) */
        if (r->constrained && r->have_driver && (int)r->driver.part[0] < p->driver_branch) {
            /* plugins come newest CUDA first: the last names the least driver any takes */
            rs_fail_closer(r, ST_DRIVER, _("JAX's CUDA %d plugin needs NVIDIA driver %d or newer; this machine has %s."),
                    p->cuda_major, p->driver_branch, r->driver_text);
            continue;
        }
        bool sm_ok = true;
        for (size_t g = 0; r->constrained && g < r->f->n_gpus; g++)
            if (r->f->gpus[g].cc.n && cu_version_cmp(&r->f->gpus[g].cc, &p->min_sm) < 0) {
                rs_fail(r, ST_GPU_CODE, _("JAX's CUDA %d plugin needs compute capability %s or newer; GPU %d (%s) has %s."),
                        p->cuda_major, V(&p->min_sm, b1, sizeof(b1)), r->f->gpus[g].index, r->f->gpus[g].name,
                        V(&r->f->gpus[g].cc, b2, sizeof(b2)));
                sm_ok = false;
            }
        if (!sm_ok)
            continue;
        for (size_t k = 0; k < r->cat->wheels.n_fw; k++) {
            const struct cu_cat_fw_wheel *w = &r->cat->wheels.fw[k];
            if (strcmp(w->framework, "jax") != 0 || strcmp(w->extra, p->extra) != 0 ||
                !version_matches(&r->fw.v, &w->version) || (first.n && cu_version_cmp(&w->version, &first) < 0))
                continue;
            *opts = cu_xreallocarray(*opts, *n + 1, sizeof(**opts));
            struct fwopt *o = &(*opts)[(*n)++];
            rs_fwopt_init(o);
            V(&w->version, b1, sizeof(b1));
            o->title = cu_xasprintf("JAX %s (%s)", b1, p->extra);
            o->version = cu_xstrdup(b1);
            cu_strv_push(&o->pip, w->pip);
            rs_fwopt_jax_build(r, o, p, &w->version, p->extra, true);
            o->bundled = true;
            o->wheel = w;
            const struct cu_cat_wheel_req *dnn;
            rs_cudnn_req(w, &dnn);
            o->why = cu_xasprintf(_("JAX %s with %s: its plugin's wheels bring CUDA %d as pip packages and ask for %s%s."), b1,
                                  p->extra, p->cuda_major, dnn ? dnn->package : "?", dnn ? dnn->text : "");
        }
    }
    return CU_OK;
}

/* One framework of the set (@text, its --framework item) resolved alone, with the rest of the wishes: its plan in
 * *@out (NULL: not wanted), its refusal in @err. */
static enum cu_status
part_alone(const struct rs *r, const char *text, struct cu_plan **out, struct cu_error *err)
{
    struct cu_wishes w1 = *r->in->wishes;
    struct cu_resolve_in in1 = *r->in;
    struct cu_plan *p1 = NULL;
    w1.framework = text;
    in1.wishes = &w1;
    cu_error_clear(err);
    enum cu_status st = r->resolve_alone(&in1, &p1, err);
    if (out)
        *out = p1;
    else
        cu_plan_free(p1);
    return st;
}

/* The releases of @pt's framework that can go beside others: those whose wheels' pins are known. */
static enum cu_status
part_options(struct rs *r, struct part *pt)
{
    struct rs rp = *r;
    struct cu_wishes w = *r->in->wishes;
    struct cu_resolve_in in = *r->in;
    struct fwopt *raw = NULL;
    size_t n_raw = 0;
    enum cu_status st;
    w.framework = pt->text;
    in.wishes = &w;
    rp.in = &in;
    rp.fw = pt->spec;
    switch (pt->spec.fw) {
    case CU_FW_TENSORFLOW: st = tf_options(&rp, &raw, &n_raw); break;
    case CU_FW_PYTORCH: st = torch_options(&rp, &raw, &n_raw); break;
    default: st = jax_wheel_options(&rp, &raw, &n_raw); break;
    }
    for (size_t i = 0; i < n_raw; i++) {
        struct fwopt *o = &raw[i];
        const struct cu_cat_fw_wheel *wh = o->wheel;
        struct cu_version ov = o->version ? vp(o->version) : (struct cu_version){{0}, 0};
        if (st == CU_OK && pt->spec.fw == CU_FW_PYTORCH && ov.n)
            wh = rs_find_wheel(r, "pytorch", o->tag, &ov, ov.n >= 3);
        else if (st == CU_OK && pt->spec.fw == CU_FW_TENSORFLOW && ov.n)
            wh = rs_find_wheel(r, "tensorflow", NULL, &(struct cu_version){{ov.part[0], ov.part[1]}, 2}, false);
        if (st == CU_OK && !wh && pt->spec.fw == CU_FW_PYTORCH && !pt->unread && ov.n) {
            /* Newer than every build with read pins: worth naming where it could run here (its code, its runtime). */
            rp.silent = true;
            rs_judge_code(&rp, o);
            rp.silent = false;
            struct cu_version min;
            if (o->code_class != CODE_NO_FIT && rs_driver_runs_major(r, o->cuda_major, &min)) {
                pt->unread = cu_xstrdup(o->title);
                pt->unread_v = ov;
            }
        }
        if (st != CU_OK || !wh) {
            rs_fwopt_fini(o);
            continue;
        }
        o->wheel = wh;
        o->kind = pt->spec.fw;
        if (pt->spec.fw == CU_FW_PYTORCH)
            torch_pins(&rp, o, wh);
        else if (pt->spec.fw == CU_FW_TENSORFLOW)
            rs_tf_pins(o, wh);
        pt->opts = cu_xreallocarray(pt->opts, pt->n + 1, sizeof(*pt->opts));
        pt->opts[pt->n++] = *o;
    }
    free(raw);
    if (st == CU_OK && pt->n == 0 && n_raw && pt->spec.fw == CU_FW_TENSORFLOW)
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                            _("TensorFlow %s brings no CUDA wheels of its own (tensorflow[and-cuda] starts with 2.14): it loads the CUDA folder's libraries through LD_LIBRARY_PATH, which would come before the other frameworks' own wheels."),
                            pt->text + strcspn(pt->text, "=") + (pt->text[strcspn(pt->text, "=")] ? 2 : 0));
    for (size_t i = 0; st == CU_OK && i < pt->n; i++) {
        rp.silent = !pt->opts[i].code;
        rs_judge_code(&rp, &pt->opts[i]);
    }
    rp.silent = false;
    /* What failed deepest in the part explains best when nothing fits; a part with a build that runs here
     * is not the blocker, whatever its other builds met (JAX's CUDA 13 plugin on a 550 driver, beside a
     * TensorFlow that cannot run). */
    bool part_runs = false;
    for (size_t i = 0; st == CU_OK && i < pt->n; i++)
        part_runs |= pt->opts[i].code_class != CODE_NO_FIT &&
                     (!pt->opts[i].wheel || rs_driver_runs_major(r, pt->opts[i].wheel->cuda_major, NULL));
    if (st == CU_OK && !part_runs) {
        /* None of its builds that can go beside others runs here: the framework alone says why (its refusal is
         * the blocker), or, where it plans alone, that its build that runs was not read. */
        struct cu_error e1;
        enum cu_status s1 = part_alone(r, pt->text, NULL, &e1);
        if (s1 == CU_E_UNSUPPORTED) {
            *r->err = e1; /* its sentence, and what runs here instead, as the framework alone is told */
            return s1;
        }
        if (s1 == CU_OK && pt->unread)
            return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                                _("%s runs here, but cudaup has not read which CUDA wheels it asks pip for, so it cannot plan it beside other frameworks; on its own, it plans as usual."),
                                pt->unread);
    }
    if (rp.stage > r->stage && !part_runs) {
        r->stage = rp.stage;
        memcpy(r->why, rp.why, sizeof(r->why));
        r->min_need = rp.min_need;
    }
    if (st == CU_OK && pt->n == 0 && !n_raw && rp.why[0])
        /* No release could be offered at all (the driver, the GPUs): that is the reason, not the wheels. */
        st = cu_error_set(r->err, CU_E_UNSUPPORTED, 0, "%s", rp.why);
    else if (st == CU_OK && pt->n == 0)
        st = cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                          _("cudaup has not read which CUDA wheels any %s release matching '%s' asks pip for, so it cannot plan it beside other frameworks; on its own, it plans as usual."),
                          cu_framework_title(cu_framework_name(pt->spec.fw)), pt->text);
    return st;
}

/* ---- do the pins of a set agree? ---------------------------------------------------------- */

struct pick {
    struct cu_version cudnn;
    const char *cudnn_pkg;
    int major;
    char note[300];
    struct cu_strv constraints;
    size_t n_pinned; /* of them, the cuDNN and what one of the set pins; the rest hold the CUDA family */
    char *family;    /* why the rest: the sentence of rs_hold_cuda_family, or NULL */
};

static void
pick_fini(struct pick *pk)
{
    cu_strv_fini(&pk->constraints);
    free(pk->family);
    pk->family = NULL;
}

/* "pins" for an exact release, "asks for" for a range. */
static const char *
verb(const struct cu_cat_wheel_req *q)
{
    struct cu_version v;
    bool prefix;
    const struct cu_pipspec *s = &q->spec;
    return cu_pipspec_pinned(&s, 1, &v, &prefix) && !prefix ? _("pins") : _("asks for");
}

/* rs_cudnn_judge() without leaving its notes on the resolver. */
static bool
judge_cudnn(struct rs *r, const struct cu_version *v, const struct cu_version *cuda, char *why, size_t len, char *note,
            size_t note_len)
{
    char saved_note[sizeof(r->cudnn_note)], saved_skip[sizeof(r->cudnn_skip)];
    memcpy(saved_note, r->cudnn_note, sizeof(saved_note));
    memcpy(saved_skip, r->cudnn_skip, sizeof(saved_skip));
    r->cudnn_note[0] = r->cudnn_skip[0] = '\0';
    int stage = 0;
    bool ok = rs_cudnn_judge(r, v, cuda, &stage, why, len);
    snprintf(note, note_len, "%s", r->cudnn_note);
    memcpy(r->cudnn_note, saved_note, sizeof(saved_note));
    memcpy(r->cudnn_skip, saved_skip, sizeof(saved_skip));
    return ok;
}

/* Two wheels whose requirements on @pkg no one release meets: which, in pip's terms. */
static bool
pair_clash(const struct fwopt *const *set, size_t n, const char *pkg, char *why, size_t len)
{
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++) {
            const struct cu_cat_wheel_req *qa = cu_fw_wheel_req(set[a]->wheel, pkg);
            const struct cu_cat_wheel_req *qb = cu_fw_wheel_req(set[b]->wheel, pkg);
            if (!qa || !qb)
                continue;
            const struct cu_pipspec *two[2] = {&qa->spec, &qb->spec};
            if (cu_pipspec_meet(two, 2))
                continue;
            rs_format(why, len, _("%s %s %s%s, and %s %s %s%s: no release satisfies both, so pip would refuse the set (ResolutionImpossible)."),
                      set[a]->wheel->pip, verb(qa), pkg, qa->text, set[b]->wheel->pip, verb(qb), pkg, qb->text);
            return true;
        }
    return false;
}

/* Do the wheels of @set agree on one CUDA major, every distribution they share and one cuDNN that fits
 * every GPU here?  When they do, *@pk holds the cuDNN and the constraints; when not, @why says why. */
static bool
set_agrees(struct rs *r, const struct fwopt *const *set, size_t n, struct pick *pk, char *why, size_t len)
{
    char b1[32], b2[32], b3[32], b4[32];
    const struct cu_cat_wheel_req *d0, *dk;
    const char *dnn0 = rs_cudnn_req(set[0]->wheel, &d0);
    pk->major = set[0]->wheel->cuda_major;
    if (!dnn0) {
        rs_format(why, len, _("cudaup has not read which cuDNN wheel %s asks for."), set[0]->wheel->pip);
        return false;
    }
    for (size_t k = 1; k < n; k++) {
        const char *dnnk = rs_cudnn_req(set[k]->wheel, &dk);
        if (set[k]->wheel->cuda_major == pk->major && dnn0 && dnnk && strcmp(dnn0, dnnk) == 0)
            continue;
        rs_format(why, len, _("%s brings CUDA %d wheels (%s%s), and %s CUDA %d wheels (%s%s): pip would install both cuDNN wheels, which write the same files under nvidia/cudnn/lib, the second over the first, beside two CUDA runtimes."),
                  set[0]->wheel->pip, pk->major, dnn0 ? dnn0 : "?", d0 ? d0->text : "", set[k]->wheel->pip,
                  set[k]->wheel->cuda_major, dnnk ? dnnk : "?", dk ? dk->text : "");
        return false;
    }
    /* One Python for the environment. */
    struct cu_version lo = {{0}, 0}, hi = {{0}, 0};
    for (size_t k = 0; k < n; k++) {
        if (!set[k]->py_min.n)
            continue;
        if (!lo.n || cu_version_cmp(&set[k]->py_min, &lo) > 0)
            lo = set[k]->py_min;
        if (!hi.n || cu_version_cmp(&set[k]->py_max, &hi) < 0)
            hi = set[k]->py_max;
    }
    if (lo.n && hi.n && cu_version_cmp(&lo, &hi) > 0) {
        rs_format(why, len, _("No Python suits them all: one needs Python %s or newer, another %s or older."),
                  V(&lo, b1, sizeof(b1)), V(&hi, b2, sizeof(b2)));
        return false;
    }
    /* Every distribution two of them name: cuDNN first, it matters most. */
    const char *pkgs[MAX_PKGS];
    size_t np = 0;
    pkgs[np++] = dnn0;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < set[k]->wheel->n_req && np < MAX_PKGS; i++) {
            bool have = false;
            for (size_t j = 0; j < np && !have; j++)
                have = pkgs[j] && strcmp(pkgs[j], set[k]->wheel->req[i].package) == 0;
            if (!have)
                pkgs[np++] = set[k]->wheel->req[i].package;
        }
    for (size_t j = 0; j < np; j++)
        if (pkgs[j] && pair_clash(set, n, pkgs[j], why, len))
            return false;
    /* The cuDNN: the newest release on PyPI that every one accepts and whose matrix lists every GPU. */
    const struct cu_pipspec *specs[RS_MAX_PARTS];
    size_t ns = 0;
    struct cu_version cuda = {{(unsigned)pk->major, 0}, 2};
    for (size_t k = 0; k < n; k++) {
        const struct cu_cat_wheel_req *q = cu_fw_wheel_req(set[k]->wheel, dnn0);
        if (q)
            specs[ns++] = &q->spec;
        if (set[k]->build_cuda.n >= 2 && (int)set[k]->build_cuda.part[0] == pk->major &&
            cu_version_cmp(&set[k]->build_cuda, &cuda) > 0)
            cuda = mm(&set[k]->build_cuda);
    }
    const struct cu_cat_cudnn_wheels *have = cu_catalog_cudnn_wheels(&r->cat->wheels, dnn0);
    struct cu_version pinned;
    bool prefix = false, pin = cu_pipspec_pinned(specs, ns, &pinned, &prefix) && !prefix;
    size_t nv = have ? have->n : pin ? 1 : 0;
    bool accepted = false;
    char first_why[512] = "", jwhy[512];
    for (size_t i = 0; i < nv; i++) {
        const struct cu_version *v = have ? &have->versions[i] : &pinned;
        bool all = true;
        for (size_t k = 0; k < ns && all; k++)
            all = cu_pipspec_contains(specs[k], v);
        if (!all)
            continue;
        accepted = true;
        if (judge_cudnn(r, v, &cuda, jwhy, sizeof(jwhy), pk->note, sizeof(pk->note))) {
            pk->cudnn = *v;
            pk->cudnn_pkg = dnn0;
            break;
        }
        if (!first_why[0])
            snprintf(first_why, sizeof(first_why), "%s", jwhy);
    }
    if (!accepted) {
        rs_format(why, len, _("No release of %s on PyPI is one that all of them accept."), dnn0);
        return false;
    }
    if (!pk->cudnn_pkg) {
        rs_format(why, len, _("The %s releases they all accept do not fit here: %s"), dnn0, first_why);
        return false;
    }
    /* What the constraints file holds: the cuDNN, and every release one of them pins. */
    cu_strv_push_owned(&pk->constraints, cu_xasprintf("%s==%s", dnn0, V(&pk->cudnn, b3, sizeof(b3))));
    for (size_t j = 1; j < np; j++) {
        const struct cu_pipspec *ps[RS_MAX_PARTS];
        size_t nps = 0;
        for (size_t k = 0; k < n; k++) {
            const struct cu_cat_wheel_req *q = cu_fw_wheel_req(set[k]->wheel, pkgs[j]);
            if (q)
                ps[nps++] = &q->spec;
        }
        struct cu_version pv;
        bool pfx;
        if (cu_pipspec_pinned(ps, nps, &pv, &pfx))
            cu_strv_push_owned(&pk->constraints, cu_xasprintf("%s==%s%s", pkgs[j], V(&pv, b4, sizeof(b4)), pfx ? ".*" : ""));
    }
    /* Every wheel of the CUDA family at the release of the runtime held (pip would bring nvJitLink 13.5 beside a
     * 13.0 runtime), where every part's own requirement admits it. */
    pk->n_pinned = pk->constraints.n;
    const struct cu_cat_fw_wheel *ws[RS_MAX_PARTS];
    for (size_t k = 0; k < n; k++)
        ws[k] = set[k]->wheel;
    return rs_hold_cuda_family(r, ws, n, false, &pk->constraints, &pk->family, why, len);
}

/* ---- the search -------------------------------------------------------------------------- */

/* "PyTorch 2.10.0 (cu128) with JAX 0.12.0.1 (cuda12)". Caller frees. */
static char *
set_title(const struct fwopt *const *set, size_t n, const char *joint)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t k = 0; k < n; k++)
        cu_buf_printf(&b, "%s%s", k ? joint : "", set[k]->title);
    return cu_buf_steal(&b);
}

/* The option that stands for @set: what the search asks of CUDA, cuDNN and Python, met by every part. */
static void
merge(const struct fwopt *const *set, size_t n, struct pick *pk, struct fwopt *m)
{
    rs_fwopt_init(m);
    m->parts = set;
    m->n_parts = n;
    m->kind = set[0]->kind;
    m->title = set_title(set, n, " + ");
    m->cuda_major = pk->major;
    m->cudnn_major = (int)pk->cudnn.part[0];
    m->bundled = true;
    m->code_class = CODE_READ;
    for (size_t k = 0; k < n; k++) {
        const struct fwopt *o = set[k];
        if (!m->cuda_mm.n && o->cuda_mm.n) {
            m->cuda_mm = o->cuda_mm; /* PyTorch's build: the system CUDA of its X.Y where the driver runs it */
            m->build_cuda = o->build_cuda;
        }
        if (o->py_min.n && (!m->py_min.n || cu_version_cmp(&o->py_min, &m->py_min) > 0))
            m->py_min = o->py_min;
        if (o->py_max.n && (!m->py_max.n || cu_version_cmp(&o->py_max, &m->py_max) < 0))
            m->py_max = o->py_max;
        if (o->code_class > m->code_class)
            m->code_class = o->code_class;
    }
    if (!m->build_cuda.n)
        m->build_cuda = set[0]->build_cuda;
    cu_strv_fini(&m->constraints); /* rs_fwopt_init's, replaced by the set's */
    m->constraints = pk->constraints;
    cu_strv_init(&pk->constraints);
    for (size_t k = 0; k < n; k++) /* each part's own: the companions pinned beside torch */
        for (size_t i = 0; i < set[k]->constraints.n; i++)
            cu_strv_push(&m->constraints, set[k]->constraints.v[i]);
}

static void
explain_set(const struct fwopt *const *set, size_t n, const struct pick *pk, const char *not_first, struct fwopt *m)
{
    char b1[32];
    struct cu_buf who;
    cu_buf_init(&who);
    for (size_t k = 0; k < n; k++) {
        const struct cu_cat_wheel_req *q = cu_fw_wheel_req(set[k]->wheel, pk->cudnn_pkg);
        if (q)
            cu_buf_printf(&who, "%s%s %s %s", who.len ? ", " : "", set[k]->wheel->pip, verb(q), q->text);
    }
    cu_strv_push_owned(&m->lib_reasons,
                       pk->note[0] ? cu_tr_asprintf(_("One cuDNN for all of them, %s %s: %s. %s"), pk->cudnn_pkg,
                                                    V(&pk->cudnn, b1, sizeof(b1)), who.data, pk->note)
                                   : cu_tr_asprintf(_("One cuDNN for all of them, %s %s: %s; its support matrix lists every GPU here."),
                                                    pk->cudnn_pkg, V(&pk->cudnn, b1, sizeof(b1)), who.data));
    cu_buf_fini(&who);
    cu_strv_push_owned(&m->lib_reasons,
                       cu_tr_asprintf(_("One CUDA major for their runtimes: each brings its CUDA %d libraries as pip wheels, and the environment puts no CUDA folder ahead of them."),
                                      pk->major));
    size_t libs = pk->n_pinned - 1; /* the CUDA libraries beside the cuDNN one of them pins */
    cu_strv_push_owned(&m->lib_reasons,
                       cu_tr_asprintf(ngettext_("pip's constraints file holds that cuDNN and the %zu other CUDA library one of them pins, so that each framework may come from its own index and none brings another release.",
                                                "pip's constraints file holds that cuDNN and the %zu other CUDA libraries one of them pins, so that each framework may come from its own index and none brings another release.",
                                                libs),
                                      libs));
    if (pk->family)
        cu_strv_push(&m->lib_reasons, pk->family);
    if (not_first && *not_first)
        cu_strv_push_owned(&m->lib_reasons, cu_xstrdup(not_first));
}

/* Does the driver here run every part's own CUDA runtime (by minor-version compatibility at least)?  A set
 * that does not is no alternative to name by its pins (PyTorch cu130 beside JAX on driver 575). */
static bool
runtimes_run(const struct rs *r, const struct fwopt *const *set, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (set[k]->wheel && !rs_driver_runs_major(r, set[k]->wheel->cuda_major, NULL))
            return false;
    return true;
}

/* Has every release of the set wheels for the Python asked with --python?  A set that has not is no
 * alternative to name (JAX 0.12 with Python 3.10). */
static bool
python_allows(const struct rs *r, const struct fwopt *const *set, size_t n)
{
    for (size_t k = 0; r->py_wish.n && k < n; k++)
        if (set[k]->py_min.n && (cu_version_cmp(&r->py_wish, &set[k]->py_min) < 0 ||
                                 (set[k]->py_max.n && cu_version_cmp(&r->py_wish, &set[k]->py_max) > 0)))
            return false;
    return true;
}

/* Step the odometer of option indexes (the last framework fastest); false when it has gone round. */
static bool
advance(size_t *idx, const struct part *parts, size_t np)
{
    for (size_t k = np; k-- > 0;) {
        if (++idx[k] < parts[k].n)
            return true;
        idx[k] = 0;
    }
    return false;
}

static enum cu_status
search(struct rs *r, struct part *parts, size_t np, rs_try_fn try_option, struct cu_plan **out)
{
    size_t idx[RS_MAX_PARTS];
    char clash[512] = "", clash_title[256] = "", why[512];
    char first[512] = "", first_title[256] = ""; /* the first clash of all, for the refusal */
    char newer[1024] = "";                          /* why not the newest set this pass passed over */
    enum cu_status st = CU_E_NOT_FOUND;
    /* A set whose every part's GPU code was read beats one with an inferred part, as for one framework. */
    for (int pass = CODE_READ; pass <= CODE_SILENT && st == CU_E_NOT_FOUND; pass++) {
        memset(idx, 0, sizeof(idx));
        if (clash[0] && !first[0]) {
            memcpy(first, clash, sizeof(first));
            memcpy(first_title, clash_title, sizeof(first_title));
        }
        clash[0] = '\0'; /* "Not ..." names a newer set of this pass than the one that planned */
        newer[0] = '\0';
        do {
            const struct fwopt *set[RS_MAX_PARTS];
            int cls = CODE_READ;
            for (size_t k = 0; k < np; k++) {
                set[k] = &parts[k].opts[idx[k]];
                if (set[k]->code_class > cls)
                    cls = set[k]->code_class;
            }
            /* A set of a better vouched class was tried in an earlier pass; one that cannot run here is none. */
            if (cls < pass || cls == CODE_NO_FIT || (cls > pass && newer[0]) || !python_allows(r, set, np))
                continue;
            struct pick pk;
            memset(&pk, 0, sizeof(pk));
            cu_strv_init(&pk.constraints);
            bool agrees = set_agrees(r, set, np, &pk, why, sizeof(why));
            if (!newer[0] && (cls == pass ? !agrees : agrees) && runtimes_run(r, set, np)) {
                /* The newest set passed over in this pass, and why: its pins, or (one whose pins agree) its GPU
                 * code only inferred. */
                CU_AUTOFREE char *t = set_title(set, np, _(" with "));
                if (!agrees)
                    rs_format(newer, sizeof(newer), _("Not %s: %s"), t, why);
                else
                    for (size_t k = 0; k < np && !newer[0]; k++)
                        if (set[k]->code_class > pass)
                            rs_format(newer, sizeof(newer),
                                      _("Not %s: what GPU code %s carries is %s, while it is read for every framework of the set planned."),
                                      t, set[k]->title,
                                      set[k]->code_class == CODE_INFERRED ? _("only inferred") : _("not recorded"));
            }
            if (cls != pass) {
                pick_fini(&pk);
                continue;
            }
            if (!agrees) {
                if (!clash[0] && runtimes_run(r, set, np)) {
                    CU_AUTOFREE char *t = set_title(set, np, _(" with "));
                    snprintf(clash, sizeof(clash), "%s", why);
                    snprintf(clash_title, sizeof(clash_title), "%s", t);
                }
                pick_fini(&pk);
                continue;
            }
            struct fwopt m;
            merge(set, np, &pk, &m);
            explain_set(set, np, &pk, newer, &m);
            for (size_t k = 0; k < np; k++) {
                struct cu_version have = set[k]->version ? vp(set[k]->version) : (struct cu_version){{0}, 0};
                struct cu_version a = mm(&parts[k].unread_v), b = mm(&have);
                if (parts[k].unread && have.n && cu_version_cmp(&a, &b) > 0)
                    cu_strv_push_owned(&m.lib_reasons,
                                       cu_tr_asprintf(_("Not %s beside the others: cudaup has not read which CUDA wheels it asks pip for (only those of the release's PyPI wheel), so it cannot hold them to one set."),
                                                      parts[k].unread));
            }
            for (int sweep = 0; sweep < 3 && st == CU_E_NOT_FOUND; sweep++)
                st = try_option(r, &m, sweep, out);
            rs_fwopt_fini(&m);
            pick_fini(&pk);
            if (st != CU_E_NOT_FOUND)
                return st;
        } while (advance(idx, parts, np));
    }
    /* Nothing planned: a clash of releases that run here says what to change; else what failed deepest. */
    if (first[0] || clash[0])
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0, _("%s cannot share one environment: %s"),
                            first[0] ? first_title : clash_title, first[0] ? first : clash);
    return rs_nothing_fits(r);
}

enum cu_status
rs_resolve_multi(struct rs *r, rs_try_fn try_option, struct cu_plan **out)
{
    struct part parts[RS_MAX_PARTS];
    size_t np = 0;
    enum cu_status st = CU_OK;
    struct cu_strv items;
    CU_AUTOFREE char *group = first_group(r->in->wishes->framework);

    memset(parts, 0, sizeof(parts));
    cu_strv_init(&items);
    if (!rs_split_items(group, ",", &items) || items.n > RS_MAX_PARTS) {
        cu_strv_fini(&items);
        return cu_error_set(r->err, CU_E_USAGE, 0, _("--framework: '%s' is not a list of frameworks."), group);
    }
    for (size_t i = 0; i < items.n; i++) {
        const char *badv;
        if (!rs_parse_framework(items.v[i], &parts[np].spec, &badv)) {
            st = cu_error_set(r->err, CU_E_USAGE, 0, _("--framework: '%s' is not one of tensorflow, pytorch, jax or none (add ==VERSION to pin one)."),
                              items.v[i]);
            break;
        }
        parts[np++].text = cu_xstrdup(items.v[i]);
    }
    cu_strv_fini(&items);
    if (st == CU_OK) {
        r->fw = parts[0].spec; /* the set's first framework is the plan's "framework" */
        for (size_t k = 0; k < np && st == CU_OK; k++)
            st = part_options(r, &parts[k]);
    }
    if (st == CU_OK && r->py_wish.n) {
        /* A --python no release of a part supports is the blocker to name. */
        for (size_t k = 0; k < np && st == CU_OK; k++) {
            st = rs_check_wishes(&(struct rs){.in = r->in, .cat = r->cat, .f = r->f, .fw = parts[k].spec,
                                              .py_wish = r->py_wish, .err = r->err, .cuda = {SPEC_AUTO, {{0}, 0}}},
                                 parts[k].opts, parts[k].n);
            if (st != CU_E_UNSUPPORTED)
                continue;
            /* Its releases that can go beside others lack that Python; where an older one alone has it, say so
             * (TensorFlow 2.13.1 on Python 3.8: its CUDA wheels, from 2.14 on, were the ones read). */
            struct cu_plan *p1 = NULL;
            struct cu_error e1;
            if (part_alone(r, parts[k].text, &p1, &e1) == CU_OK && p1->framework)
                st = cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                                  _("No %s release whose CUDA wheels cudaup has read supports Python %s, so none can share an environment with it; on its own, %s %s does."),
                                  cu_framework_title(cu_framework_name(parts[k].spec.fw)), r->in->wishes->python,
                                  cu_framework_title(p1->framework->name), p1->framework->version ? p1->framework->version : "");
            cu_plan_free(p1);
        }
    }
    if (st == CU_OK)
        st = search(r, parts, np, try_option, out);
    for (size_t k = 0; k < np; k++) {
        for (size_t i = 0; i < parts[k].n; i++)
            rs_fwopt_fini(&parts[k].opts[i]);
        free(parts[k].opts);
        free(parts[k].text);
        free(parts[k].unread);
    }
    if (st != CU_OK && *out) {
        cu_plan_free(*out);
        *out = NULL;
    }
    return st;
}

/* ---- what to try instead ------------------------------------------------------------------ */

char *
rs_multi_variant(const char *framework, int k)
{
    CU_AUTOFREE char *group = first_group(framework);
    struct cu_strv items;
    cu_strv_init(&items);
    if (!rs_split_items(group, ",", &items)) {
        cu_strv_fini(&items);
        return NULL;
    }
    bool others_pinned = false, any_pinned = strstr(items.v[0], "==") != NULL;
    for (size_t i = 1; i < items.n; i++)
        others_pinned |= strstr(items.v[i], "==") != NULL;
    any_pinned |= others_pinned;
    /* 0: the first framework's pin kept, the others' dropped; 1: every pin dropped. */
    int which = -1;
    if (k == 0)
        which = others_pinned ? 0 : any_pinned ? 1 : -1;
    else if (k == 1 && others_pinned && strstr(items.v[0], "=="))
        which = 1;
    char *out = NULL;
    if (which >= 0) {
        struct cu_buf b;
        cu_buf_init(&b);
        for (size_t i = 0; i < items.n; i++) {
            char *eq = strstr(items.v[i], "==");
            if (eq && (which == 1 || i > 0))
                *eq = '\0';
            cu_buf_printf(&b, "%s%s", i ? "," : "", items.v[i]);
        }
        out = cu_buf_steal(&b);
    }
    cu_strv_fini(&items);
    return out;
}

void
rs_multi_advise(const char *framework, const struct cu_plan *shared, const char *shared_fw, bool each,
                const char *python, struct cu_error *err)
{
    /* The commands keep the Python asked, as the plans they were resolved with did. */
    CU_AUTOFREE char *py = python && *python ? cu_xasprintf(" --python %s", python) : cu_xstrdup("");
    char b1[32];
    CU_AUTOFREE char *group = first_group(framework);
    struct cu_buf gives, apart, pinned;
    cu_buf_init(&gives);
    cu_buf_init(&apart);
    cu_buf_init(&pinned);
    if (shared) {
        /* The set that planned, named by the releases it planned: the command gives exactly them. */
        size_t n;
        struct cu_plan_framework *const *fw = cu_plan_frameworks(shared, &n);
        for (size_t i = 0; i < n; i++) {
            cu_buf_printf(&gives, "%s%s %s", i ? ", " : "", cu_framework_title(fw[i]->name),
                          fw[i]->version ? fw[i]->version : "");
            if (fw[i]->kind == CU_FW_JAX && fw[i]->cuda_tag)
                cu_buf_printf(&pinned, "%sjax[%s]", i ? "," : "", fw[i]->cuda_tag);
            else
                cu_buf_printf(&pinned, "%s%s", i ? "," : "", fw[i]->name);
            if (fw[i]->version)
                cu_buf_printf(&pinned, "==%s", fw[i]->version);
        }
        cu_buf_puts(&pinned, py);
        shared_fw = pinned.data;
    }
    cu_buf_printf(&apart, "cudaup install");
    struct cu_strv items;
    cu_strv_init(&items);
    if (rs_split_items(group, ",", &items))
        for (size_t i = 0; i < items.n; i++)
            cu_buf_printf(&apart, " --framework %s", items.v[i]);
    cu_strv_fini(&items);
    cu_buf_puts(&apart, py);
    const char *dnn = shared && shared->frameworks && shared->framework->constraints && shared->framework->constraints[0]
                          ? strstr(shared->framework->constraints[0], "==")
                          : NULL;
    CU_AUTOFREE char *dnn_text = dnn ? cu_xstrdup(dnn + 2) : shared && shared->has_cudnn
                                                                   ? cu_xstrdup(V(&shared->cudnn, b1, sizeof(b1)))
                                                                   : cu_xstrdup("?");
    if (shared && each)
        cu_error_advise(err, _("Releases that share one environment: cudaup install --framework %s gives %s with cuDNN %s. Or one environment each: %s."),
                        shared_fw, gives.data, dnn_text, apart.data);
    else if (shared)
        cu_error_advise(err, _("Releases that share one environment: cudaup install --framework %s gives %s with cuDNN %s."),
                        shared_fw, gives.data, dnn_text);
    else if (each)
        cu_error_advise(err, _("No releases of them share one environment here; one environment each works: %s."),
                        apart.data);
    cu_buf_fini(&gives);
    cu_buf_fini(&apart);
    cu_buf_fini(&pinned);
}
