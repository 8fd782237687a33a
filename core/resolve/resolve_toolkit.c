/* SPDX-License-Identifier: MIT */
/*
 * Where the plan's CUDA toolkit comes from (--toolkit system|wheels|none, issue 50).  A framework that brings
 * its own CUDA wheels never loads NVIDIA's archives under PREFIX/cuda-X.Y: "wheels" takes none of them and
 * puts the compiler wheels of the CUDA release of the frameworks' held runtime (the catalog's cuda_wheels:
 * which manifest component each wheel carries, at its version in NVIDIA's manifest of that release) into the
 * environment's pip install; "none" takes the frameworks alone.  A framework that loads a system CUDA (the
 * legacy stacks, TensorFlow before 2.15, no framework) is refused either.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "resolve_int.h"

/* The component groups a compiler needs beside the frameworks' own libraries (the catalog's groups). */
static const char *const compiler_groups[] = {"compiler", "cccl", "runtime"};

static bool
in_compiler_groups(const struct cu_catalog *cat, const char *component)
{
    for (size_t g = 0; component && g < CU_N_ELEMENTS(compiler_groups); g++)
        for (char **c = cu_catalog_component_group(cat, compiler_groups[g]); c && *c; c++)
            if (strcmp(*c, component) == 0)
                return true;
    return false;
}

/* The wheel of release @c that carries manifest component @component, or NULL. */
static const struct cu_cat_cuda_wheel *
wheel_of(const struct cu_cat_cuda_release *c, const char *component)
{
    for (size_t k = 0; k < c->n; k++)
        if (c->wheels[k].component && strcmp(c->wheels[k].component, component) == 0)
            return &c->wheels[k];
    for (size_t k = 0; k < c->n_toolkit_only; k++)
        if (c->toolkit_only[k].component && strcmp(c->toolkit_only[k].component, component) == 0)
            return &c->toolkit_only[k];
    return NULL;
}

/* The wheel of framework @f as read from PyPI (framework_wheels), or NULL; one whose wheel has no build tag
 * (tensorflow[and-cuda]==2.15.1) is the row of that very release. */
static const struct cu_cat_fw_wheel *
fw_wheel(const struct cu_catalog *cat, const struct cu_plan_framework *f)
{
    struct cu_version v;
    if (!f->version || !cu_version_parse(f->version, &v))
        return NULL;
    const struct cu_cat_fw_wheel *w = cu_catalog_fw_wheel(&cat->wheels, f->name, f->cuda_tag, &v);
    for (size_t k = 0; !w && !f->cuda_tag && f->bundled_runtime && k < cat->wheels.n_fw; k++) {
        const struct cu_cat_fw_wheel *e = &cat->wheels.fw[k];
        if (!e->tag && strcmp(e->framework, f->name) == 0 && cu_version_cmp(&e->version, &v) == 0)
            w = e;
    }
    return w;
}

#define MAX_PINS 64

/*
 * The CUDA release whose wheels the frameworks of @p hold: the pins of their constraints and of their wheels as
 * read (framework_wheel_requires.csv), through cu_catalog_cuda_release_held.  NULL when none is pinned.
 */
static const struct cu_cat_cuda_release *
held_release(const struct cu_catalog *cat, const struct cu_plan *p)
{
    const char *pkgs[MAX_PINS];
    struct cu_pipspec spec[MAX_PINS];
    const struct cu_pipspec *specs[MAX_PINS];
    char *names[MAX_PINS];
    size_t n = 0, nfw;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &nfw);
    for (size_t i = 0; i < nfw; i++) {
        for (char **q = fw[i]->constraints; q && *q && n < MAX_PINS; q++) {
            const char *eq = strstr(*q, "==");
            if (!eq)
                continue;
            names[n] = cu_xstrndup(*q, (size_t)(eq - *q));
            if (!cu_catalog_cuda_wheel_known(&cat->wheels.pins, names[n]) || !cu_pipspec_parse(eq, &spec[n])) {
                free(names[n]);
                continue;
            }
            pkgs[n] = names[n];
            specs[n] = &spec[n];
            n++;
        }
        const struct cu_cat_fw_wheel *w = fw_wheel(cat, fw[i]);
        for (size_t k = 0; w && k < w->n_req && n < MAX_PINS; k++) {
            const struct cu_cat_wheel_req *q = &w->req[k];
            const struct cu_pipspec *one = &q->spec;
            struct cu_version pv;
            bool prefix;
            if (!cu_pipspec_pinned(&one, 1, &pv, &prefix) || !cu_catalog_cuda_wheel_known(&cat->wheels.pins, q->package))
                continue;
            names[n] = cu_xstrdup(q->package);
            spec[n] = q->spec;
            pkgs[n] = names[n];
            specs[n] = &spec[n];
            n++;
        }
    }
    const struct cu_cat_cuda_release *c = n ? cu_catalog_cuda_release_held(&cat->wheels.pins, pkgs, specs, n, NULL) : NULL;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    return c;
}

/* The newest release of the catalog's cuda_wheels of major.minor @mm, or NULL. */
static const struct cu_cat_cuda_release *
newest_of(const struct cu_catalog *cat, const struct cu_version *mm)
{
    for (size_t i = 0; i < cat->wheels.pins.n_cuda; i++) {
        const struct cu_cat_cuda_release *c = &cat->wheels.pins.cuda[i];
        if (c->release.part[0] == mm->part[0] && c->release.part[1] == mm->part[1])
            return c;
    }
    return NULL;
}

/* Does driver @drv run CUDA release @c natively (the catalog's driver floor of its X.Y)?  True when not known. */
static bool
driver_runs(const struct cu_catalog *cat, const struct cu_version *drv, const struct cu_cat_cuda_release *c)
{
    struct cu_version mm = c->release, need;
    mm.n = 2;
    return !drv || !cu_catalog_cuda_min_driver(cat, &mm, &need) || cu_version_cmp(drv, &need) >= 0;
}

/* Take out of @f's constraints those on a package @pins pins ("PKG==V"). */
static void
drop_constraints(struct cu_plan_framework *f, const struct cu_strv *pins)
{
    size_t k = 0;
    for (size_t i = 0; f->constraints && f->constraints[i]; i++) {
        size_t len = strcspn(f->constraints[i], "=<>!~ ");
        bool pinned = false;
        for (size_t j = 0; j < pins->n && !pinned; j++)
            pinned = strncmp(pins->v[j], f->constraints[i], len) == 0 && strncmp(pins->v[j] + len, "==", 2) == 0;
        if (pinned)
            free(f->constraints[i]);
        else
            f->constraints[k++] = f->constraints[i];
    }
    if (f->constraints)
        f->constraints[k] = NULL;
}

/* The nvidia-cudnn-cuNN wheel the frameworks of @p load ("nvidia-cudnn-cu13"): the one their wheels as read ask pip
 * for, else that of CUDA @major. */
static char *
cudnn_package(const struct cu_catalog *cat, struct cu_plan_framework *const *fw, size_t nfw, unsigned major)
{
    for (size_t i = 0; i < nfw; i++) {
        const struct cu_cat_fw_wheel *w = fw_wheel(cat, fw[i]);
        for (size_t k = 0; w && k < w->n_req; k++)
            if (strncmp(w->req[k].package, "nvidia-cudnn-cu", 15) == 0)
                return cu_xstrdup(w->req[k].package);
    }
    return cu_xasprintf("nvidia-cudnn-cu%u", major);
}

/* The X.Y of each release in @r, each once, newest first: "9.28, 9.27, ..., 9.12". */
static char *
cudnn_minors(const struct cu_cat_cudnn_wheels *r)
{
    struct cu_buf b;
    cu_buf_init(&b);
    char last[32] = "", one[32];
    for (size_t i = 0; r && i < r->n; i++) {
        cu_version_format(&r->versions[i], 2, one, sizeof(one));
        if (strcmp(one, last) != 0)
            cu_buf_printf(&b, "%s%s", b.len ? ", " : "", one);
        snprintf(last, sizeof(last), "%s", one);
    }
    return cu_buf_steal(&b);
}

/*
 * --cudnn VER where the toolkit is not the system's: NVIDIA's cuDNN archive is not installed, and the frameworks load
 * the nvidia-cudnn-cuNN wheel pip puts beside them, so VER pins that wheel: its newest release of cuDNN VER that PyPI
 * holds (nvidia_cudnn_wheels.csv) and every framework's own wheel admits, judged against the GPUs here as an archive
 * would be.  Sets *@pin ("nvidia-cudnn-cu13==9.13.1.26") and *@why; NULL with no version asked.  Errors: CU_E_USAGE
 * (no such wheel, or a framework's wheel pins another cuDNN), CU_E_UNSUPPORTED (that cuDNN supports no GPU here).
 */
static enum cu_status
cudnn_wheel_pin(const struct cu_resolve_in *in, struct cu_plan *p, const struct cu_version *cuda, char **pin,
                char **why, struct cu_error *err)
{
    const struct cu_catalog *cat = in->cat;
    struct spec s;
    char b1[32], b2[32];
    *pin = *why = NULL;
    if (!rs_parse_spec(in->wishes->cudnn, true, 3, &s) || (s.kind != SPEC_PREFIX && s.kind != SPEC_EXACT))
        return CU_OK;
    size_t nfw;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &nfw);
    CU_AUTOFREE char *pkg = cudnn_package(cat, fw, nfw, cuda->part[0]);
    const struct cu_cat_cudnn_wheels *have = cu_catalog_cudnn_wheels(&cat->wheels, pkg);
    const struct cu_version *match = NULL, *pick = NULL;
    const char *blocker = NULL, *blocker_req = NULL;
    for (size_t i = 0; have && i < have->n && !pick; i++) {
        const struct cu_version *v = &have->versions[i];
        if (!cu_version_matches(v, &s.v))
            continue;
        if (!match)
            match = v;
        bool admitted = true;
        for (size_t f = 0; f < nfw && admitted; f++) {
            const struct cu_cat_fw_wheel *w = fw_wheel(cat, fw[f]);
            const struct cu_cat_wheel_req *q = w ? cu_fw_wheel_req(w, pkg) : NULL;
            if (q && !cu_pipspec_contains(&q->spec, v)) {
                admitted = false;
                blocker = w->pip;
                blocker_req = q->text;
            }
        }
        if (admitted)
            pick = v;
    }
    if (!match) {
        CU_AUTOFREE char *minors = cudnn_minors(have);
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--cudnn %s with --toolkit %s: PyPI holds no %s wheel of cuDNN %s (cudaup's record of it); the cuDNN releases of that wheel there are %s: choose one of them, or --toolkit system, which takes cuDNN from NVIDIA's archives."),
                            in->wishes->cudnn, p->toolkit->kind, pkg, in->wishes->cudnn, *minors ? minors : _("none"));
    }
    if (!pick)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--cudnn %s with --toolkit %s: %s asks pip for %s%s, which no cuDNN %s wheel meets; leave --cudnn out to take that one, or use --toolkit system, which takes cuDNN from NVIDIA's archives beside it."),
                            in->wishes->cudnn, p->toolkit->kind, blocker, pkg, blocker_req, in->wishes->cudnn);
    /* The GPUs here, as cuDNN's support matrix lists them (the driver's need is its CUDA major's, judged already). */
    struct rs r;
    memset(&r, 0, sizeof(r));
    r.in = in;
    r.cat = cat;
    r.f = in->facts;
    r.constrained = !in->wishes->unconstrained;
    char whyno[512];
    int stage = 0;
    if (!rs_cudnn_judge(&r, pick, cuda, &stage, whyno, sizeof(whyno)))
        return cu_error_set(err, CU_E_UNSUPPORTED, 0, _("--cudnn %s: %s"), in->wishes->cudnn, whyno);
    *pin = cu_xasprintf("%s==%s", pkg, V(pick, b1, sizeof(b1)));
    *why = r.cudnn_note[0]
               ? cu_tr_asprintf(_("cuDNN: %s, as asked (--cudnn %s): the wheel the frameworks load, the newest of cuDNN %s on PyPI their own wheels admit; no cuDNN archive. %s"),
                                *pin, in->wishes->cudnn, V(&s.v, b2, sizeof(b2)), r.cudnn_note)
               : cu_tr_asprintf(_("cuDNN: %s, as asked (--cudnn %s): the wheel the frameworks load, the newest of cuDNN %s on PyPI their own wheels admit; no cuDNN archive."),
                                *pin, in->wishes->cudnn, V(&s.v, b2, sizeof(b2)));
    return CU_OK;
}

/* Put @pin into @p's first framework's pip install. */
static void
add_pip(struct cu_plan *p, const char *pin)
{
    size_t nfw, n0 = 0;
    struct cu_plan_framework *f0 = cu_plan_frameworks(p, &nfw)[0];
    while (f0->pip && f0->pip[n0])
        n0++;
    f0->pip = cu_xreallocarray(f0->pip, n0 + 2, sizeof(char *));
    f0->pip[n0] = cu_xstrdup(pin);
    f0->pip[n0 + 1] = NULL;
}

static void
strip_archives(struct cu_plan *p)
{
    size_t k = 0;
    for (size_t i = 0; i < p->n_downloads; i++) {
        struct cu_plan_download *d = &p->downloads[i];
        if (d->product == CU_PRODUCT_CUDA || d->product == CU_PRODUCT_CUDNN) {
            free(d->component);
            free(d->version);
            free(d->title);
            free(d->relative_path);
            free(d->url);
            free(d->runfile_layout);
            free(d->archive_layout);
            continue;
        }
        p->downloads[k++] = *d;
    }
    p->n_downloads = k;
    cu_strv_free(p->components);
    p->components = NULL;
    p->has_cudnn = false;
}

/*
 * The toolkit from NVIDIA's compiler wheels (rs_plan_toolkit's "wheels"), @how said in its reason ("as asked").
 * Nothing of @p changes before every check has passed: an error leaves the plan as it was (the default then keeps
 * the system's toolkit).
 */
static enum cu_status
plan_wheels(const struct cu_resolve_in *in, struct cu_plan *p, struct cu_plan_toolkit *t, const char *names,
            const char *saved, const char *how, struct cu_error *err)
{
    /* wheels: the release of the runtime held, else the newest of the plan's CUDA X.Y (inferred). */
    const struct cu_catalog *cat = in->cat;
    char b1[32], b2[32];
    size_t nfw;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &nfw);
    const struct cu_cat_cuda_release *c = held_release(cat, p);
    bool inferred = !c;
    struct cu_version mm = p->cuda;
    mm.n = 2;
    /* The build's own CUDA X.Y where its tag says it (PyTorch's cu126), else the plan's. */
    const char *tag = fw[0]->cuda_tag;
    if (tag && strncmp(tag, "cu", 2) == 0 && strlen(tag) >= 5 && strspn(tag + 2, "0123456789") == strlen(tag + 2)) {
        unsigned num = (unsigned)strtoul(tag + 2, NULL, 10);
        mm.part[0] = num / 10;
        mm.part[1] = num % 10;
    }
    if (!c)
        c = newest_of(cat, &mm);
    if (!c)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--toolkit wheels: cudaup's data names no compiler wheels of CUDA %s; use --toolkit system."),
                            V(&mm, b1, sizeof(b1)));
    /* Never above the driver's CUDA: a compiler newer than the driver writes PTX the driver cannot JIT. */
    const struct cu_driver_info *d = &in->facts->driver;
    const struct cu_version *drv = !in->wishes->unconstrained && d->version.n &&
                                           (d->kind == CU_DRIVER_NVIDIA || d->kind == CU_DRIVER_WSL)
                                       ? &d->version
                                       : NULL;
    const struct cu_cat_cuda_release *held = c;
    if (!driver_runs(cat, drv, c)) {
        const struct cu_cat_cuda_release *lower = NULL;
        for (size_t i = 0; i < cat->wheels.pins.n_cuda && !lower; i++) {
            const struct cu_cat_cuda_release *o = &cat->wheels.pins.cuda[i];
            if (o->release.part[0] == c->release.part[0] && cu_version_cmp(&o->release, &c->release) < 0 &&
                driver_runs(cat, drv, o))
                lower = o;
        }
        if (!lower)
            return cu_error_set(err, CU_E_USAGE, 0,
                                _("--toolkit wheels: driver %s runs no CUDA %u compiler release cudaup's data knows natively; use --toolkit system or --toolkit none."),
                                cu_driver_version_format(drv, b1, sizeof(b1)), c->release.part[0]);
        c = lower;
    }
    t->release = c->release;
    CU_AUTOFREE char *dnn_why = NULL;
    enum cu_status dst = cudnn_wheel_pin(in, p, &c->release, &t->cudnn, &dnn_why, err);
    if (dst != CU_OK)
        return dst;
    struct cu_strv pins;
    cu_strv_init(&pins);
    struct cu_buf missing;
    cu_buf_init(&missing);
    for (size_t k = 0; k < c->n; k++)
        /* Below the runtime's release, the frameworks' own runtime stays (they pin it). */
        if (in_compiler_groups(cat, c->wheels[k].component) &&
            !(c != held && strcmp(c->wheels[k].package, c->runtime) == 0))
            cu_strv_push_owned(&pins, cu_xasprintf("%s==%s", c->wheels[k].package,
                                                   V(&c->wheels[k].version, b1, sizeof(b1))));
    for (size_t k = 0; k < c->n_toolkit_only; k++)
        if (in_compiler_groups(cat, c->toolkit_only[k].component))
            cu_strv_push_owned(&pins, cu_xasprintf("%s==%s", c->toolkit_only[k].package,
                                                   V(&c->toolkit_only[k].version, b1, sizeof(b1))));
    /* What a compiler needs that no wheel of that release is vouched for (CUDA 13's cccl: its wheels' versions
     * left the manifests'). */
    for (size_t g = 0; g < CU_N_ELEMENTS(compiler_groups); g++)
        for (char **q = cu_catalog_component_group(cat, compiler_groups[g]); q && *q; q++)
            if (!wheel_of(c, *q) && !(strcmp(*q, "cuda_crt") == 0 && c->release.part[0] < 13) &&
                !(strcmp(*q, "libnvvm") == 0 && c->release.part[0] < 13)) /* inside CUDA 12's nvcc wheel */
                cu_buf_printf(&missing, "%s%s", missing.len ? ", " : "", *q);
    /* --components: each must have a wheel of that release. */
    if (in->wishes->components && *in->wishes->components)
        for (char **q = p->components; q && *q; q++) {
            const struct cu_cat_cuda_wheel *w = wheel_of(c, *q);
            if (!w) {
                cu_strv_fini(&pins);
                cu_buf_fini(&missing);
                return cu_error_set(err, CU_E_USAGE, 0,
                                    _("--toolkit wheels: %s of CUDA %s has no wheel cudaup's data vouches for; use --toolkit system for it, or leave it out of --components."),
                                    *q, V(&c->release, b1, sizeof(b1)));
            }
            CU_AUTOFREE char *pin = cu_xasprintf("%s==%s", w->package, V(&w->version, b1, sizeof(b1)));
            bool have = false;
            for (size_t i = 0; i < pins.n && !have; i++)
                have = strcmp(pins.v[i], pin) == 0;
            if (!have)
                cu_strv_push(&pins, pin);
        }
    /* A framework's own wheel that asks for one of them with a range the pin is outside of (JAX asks nvcc with a lower
     * bound): pip could not install both. */
    for (size_t i = 0; i < pins.n; i++) {
        const char *eq = strstr(pins.v[i], "==");
        CU_AUTOFREE char *pkg = cu_xstrndup(pins.v[i], (size_t)(eq - pins.v[i]));
        struct cu_version v;
        if (!cu_version_parse(eq + 2, &v))
            continue;
        for (size_t f = 0; f < nfw; f++) {
            const struct cu_cat_fw_wheel *w = fw_wheel(cat, fw[f]);
            const struct cu_cat_wheel_req *q = w ? cu_fw_wheel_req(w, pkg) : NULL;
            if (q && !cu_pipspec_contains(&q->spec, &v)) {
                enum cu_status st = cu_error_set(err, CU_E_USAGE, 0,
                                                 _("--toolkit wheels: %s asks pip for %s%s, which %s of CUDA %s does not meet; use --toolkit system or --toolkit none."),
                                                 w->pip, pkg, q->text, pins.v[i], V(&c->release, b1, sizeof(b1)));
                cu_strv_fini(&pins);
                cu_buf_fini(&missing);
                return st;
            }
        }
    }
    /* The constraints held the family at the runtime's release: the compiler's wheels are held by these pins. */
    if (t->cudnn)
        cu_strv_push(&pins, t->cudnn);
    for (size_t i = 0; i < nfw; i++)
        drop_constraints(fw[i], &pins);
    if (t->cudnn)
    {
        free(pins.v[--pins.n]); /* in pip's install below, not among the compiler's wheels */
        pins.v[pins.n] = NULL;
    }
    /* Into the first framework's pip install, beside it (one resolve, one set of pins). */
    struct cu_plan_framework *f0 = fw[0];
    size_t n0 = 0;
    while (f0->pip && f0->pip[n0])
        n0++;
    f0->pip = cu_xreallocarray(f0->pip, n0 + pins.n + 1, sizeof(char *));
    for (size_t i = 0; i < pins.n; i++)
        f0->pip[n0 + i] = cu_xstrdup(pins.v[i]);
    f0->pip[n0 + pins.n] = NULL;
    if (t->cudnn)
        add_pip(p, t->cudnn);
    /* Where they land: CUDA 13's wheels all in site-packages/nvidia/cuMAJOR; CUDA 12's one folder each, which
     * cudaup joins in a view of links inside the environment. */
    t->view = c->release.part[0] < 13;
    t->home = t->view ? cu_xstrdup("cudaup-toolkit") : cu_xasprintf("nvidia/cu%u", c->release.part[0]);
    t->wheels = cu_xcalloc(pins.n + 1, sizeof(char *));
    CU_AUTOFREE char *list = cu_strv_join(&pins, ", ");
    for (size_t i = 0; i < pins.n; i++)
        t->wheels[i] = cu_xstrdup(pins.v[i]);
    CU_AUTOFREE char *lowered = c != held ? cu_tr_asprintf(_(" (not %s, the release of the runtime %s holds: driver %s runs that one only by minor-version compatibility)"),
                                                           V(&held->release, b2, sizeof(b2)), names,
                                                           cu_driver_version_format(drv, (char[32]){0}, 32))
                                : inferred ? cu_xstrdup("")
                                           : cu_tr_asprintf(_(" (the release of the runtime %s holds)"), names);
    if (inferred)
        t->reason = cu_tr_asprintf(_("Toolkit: NVIDIA's compiler wheels of CUDA %s%s in the environment, %s: %s (inferred: cudaup has not read which runtime %s pins, so it takes the newest CUDA %s release its data knows). No NVIDIA archive is downloaded (%s less); the environment's activation points CUDA_HOME and PATH at them."),
                                   V(&c->release, b1, sizeof(b1)), lowered, how, list, names, V(&mm, b2, sizeof(b2)), saved);
    else
        t->reason = cu_tr_asprintf(_("Toolkit: NVIDIA's compiler wheels of CUDA %s%s in the environment, %s: %s. No NVIDIA archive is downloaded (%s less); the environment's activation points CUDA_HOME and PATH at them."),
                                   V(&c->release, b1, sizeof(b1)), lowered, how, list, saved);
    cu_plan_reason(p, "%s", t->reason);
    if (dnn_why)
        cu_plan_reason(p, "%s", dnn_why);
    if (c != held)
        cu_plan_warn(p, _("The compiler wheels are of CUDA %s, older than the CUDA %s runtime the frameworks bring, so that what nvcc builds runs on driver %s; extensions that need CUDA %s's newer headers need a newer driver."),
                     V(&c->release, b1, sizeof(b1)), V(&held->release, b2, sizeof(b2)),
                     cu_driver_version_format(drv, (char[32]){0}, 32), V(&held->release, (char[32]){0}, 32));
    if (missing.len)
        cu_plan_warn(p, _("No wheel of CUDA %s that cudaup's data vouches for carries %s: the wheels' toolkit lacks it; --toolkit system has it."),
                     V(&c->release, b1, sizeof(b1)), missing.data);
    cu_strv_fini(&pins);
    cu_buf_fini(&missing);
    strip_archives(p);
    return CU_OK;
}

enum cu_status
rs_plan_toolkit(const struct cu_resolve_in *in, struct cu_plan *p, const char *fallback, struct cu_error *err)
{
    const char *want = in->wishes->toolkit;
    bool asked = want && *want;
    char b1[32];
    struct cu_plan_toolkit *t = cu_xcalloc(1, sizeof(*t));
    t->kind = cu_xstrdup(asked ? want : "system");
    t->asked = asked;
    p->toolkit = t;
    for (size_t i = 0; i < p->n_downloads; i++) {
        const struct cu_plan_download *d = &p->downloads[i];
        bool known;
        if (d->product != CU_PRODUCT_CUDA && d->product != CU_PRODUCT_CUDNN)
            continue;
        uint64_t sz = cu_download_size(d, &known);
        t->n_archives++;
        t->archive_bytes += known ? sz : 0;
        t->archive_unsized |= !known;
    }
    size_t nfw;
    struct cu_plan_framework *const *fw = cu_plan_frameworks(p, &nfw);
    struct cu_buf nb;
    cu_buf_init(&nb);
    for (size_t i = 0; i < nfw; i++)
        cu_buf_printf(&nb, "%s%s", i ? ", " : "", cu_framework_title(fw[i]->name));
    CU_AUTOFREE char *names = cu_buf_steal(&nb);
    CU_AUTOFREE char *saved = t->archive_unsized ? cu_xstrdup(_("archives of a size not published"))
                                                 : cu_xstrdup(cu_format_bytes(t->archive_bytes, b1, sizeof(b1)));
    /* The default: NVIDIA's compiler wheels where every framework brings its own CUDA (PyTorch, JAX, TensorFlow as
     * tensorflow[and-cuda], rs_tf_own_cuda), which never loads the archives; the archives where one loads a system CUDA or none is planned, where
     * --components chooses parts of them, and where the wheels cannot serve the plan (said why). */
    char *why_system = NULL;
    if (!asked && fallback)
        why_system = cu_xstrdup(fallback);
    else if (!asked && in->wishes->toolkit_shared && cu_plan_bundled(p))
        /* --framework A --framework B: one toolkit serves every environment (installers/envs.c), and another may load
         * a system CUDA. */
        why_system = cu_xstrdup(_("with several environments (--framework A --framework B) one toolkit serves them all, and it is the system's unless --toolkit says otherwise."));
    else if (!asked && nfw && cu_plan_bundled(p) && !(in->wishes->components && *in->wishes->components)) {
        CU_AUTOFREE char *how = cu_tr_asprintf(_("the default where every framework brings its own CUDA (--toolkit system would add NVIDIA's archives, %s, which %s never loads)"),
                                               saved, names);
        struct cu_error e2;
        cu_error_clear(&e2);
        free(t->kind);
        t->kind = cu_xstrdup("wheels");
        if (plan_wheels(in, p, t, names, saved, how, &e2) == CU_OK)
            return CU_OK;
        free(t->kind);
        t->kind = cu_xstrdup("system");
        memset(&t->release, 0, sizeof(t->release));
        why_system = cu_xstrdup(e2.msg);
    }
    t->why_system = why_system;
    if (strcmp(t->kind, "system") == 0) {
        if (fallback)
            t->reason = cu_tr_asprintf(_("Toolkit: NVIDIA's archives under %s (%s), the default here: %s would bring its own CUDA as wheels (tensorflow[and-cuda]), but NVIDIA's compiler wheels cannot serve this plan, as --toolkit wheels says: \"%s\" So it is planned over this system toolkit."),
                                       p->cuda_path, saved, names, why_system);
        else if (why_system)
            t->reason = cu_tr_asprintf(_("Toolkit: NVIDIA's archives under %s (%s), the default here: %s brings its own CUDA libraries, but NVIDIA's compiler wheels cannot serve this plan: %s"),
                                       p->cuda_path, saved, names, why_system);
        else if (cu_plan_bundled(p))
            t->reason = cu_tr_asprintf(_("Toolkit: NVIDIA's archives under %s (%s), %s. %s brings its own CUDA libraries and never loads these: --toolkit wheels takes the compiler from NVIDIA's wheels instead and --toolkit none the frameworks alone, neither downloading these archives."),
                                       p->cuda_path, saved, asked ? _("as asked") : _("the default with --components, which chooses parts of them"), names);
        else if (asked)
            t->reason = cu_tr_asprintf(_("Toolkit: NVIDIA's archives under %s (%s), %s."), p->cuda_path, saved,
                                       _("as asked"));
        else
            t->reason = cu_tr_asprintf(_("Toolkit: NVIDIA's archives under %s (%s), the default here: %s."), p->cuda_path,
                                       saved, !nfw ? _("no framework is planned that brings a CUDA of its own")
                                              : in->wishes->components && *in->wishes->components
                                                  ? _("--components chooses parts of them")
                                                  : _("a framework planned loads CUDA from a system toolkit"));
        cu_plan_reason(p, "%s", t->reason);
        return CU_OK;
    }
    if (!nfw)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--toolkit %s installs no CUDA toolkit, and --framework none leaves nothing else to install; use --toolkit system."),
                            t->kind);
    for (size_t i = 0; i < nfw; i++)
        if (!fw[i]->bundled_runtime)
            return cu_error_set(err, CU_E_USAGE, 0,
                                _("--toolkit %s: %s %s loads CUDA from a system toolkit (its wheels bring none of their own); use --toolkit system."),
                                t->kind, cu_framework_title(fw[i]->name), fw[i]->version ? fw[i]->version : "");
    if (strcmp(t->kind, "none") == 0) {
        struct cu_version cm = p->cuda;
        cm.n = 2;
        CU_AUTOFREE char *dnn_why = NULL;
        enum cu_status st = cudnn_wheel_pin(in, p, &cm, &t->cudnn, &dnn_why, err);
        if (st != CU_OK)
            return st;
        t->reason = cu_tr_asprintf(_("Toolkit: none, as asked: %s alone, with its own CUDA wheels; no NVIDIA archive is downloaded (%s less), and the environment has no nvcc and no CUDA_HOME."),
                                   names, saved);
        if (t->cudnn) {
            struct cu_strv one = {.v = &t->cudnn, .n = 1};
            for (size_t i = 0; i < nfw; i++)
                drop_constraints(fw[i], &one);
            add_pip(p, t->cudnn);
        }
        strip_archives(p);
        cu_plan_reason(p, "%s", t->reason);
        if (dnn_why)
            cu_plan_reason(p, "%s", dnn_why);
        return CU_OK;
    }

    return plan_wheels(in, p, t, names, saved, _("as asked"), err);
}
