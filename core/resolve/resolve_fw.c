/* SPDX-License-Identifier: MIT */
/* The resolver's framework options: the TensorFlow, PyTorch and JAX releases to try, from the catalog. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/pipreq.h"
#include "core/catalog/catalog_learned.h"
#include "core/base/mem.h"
#include "core/resolve/resolve_int.h"

/* ---- framework options ------------------------------------------------------------- */

/* The VERSION of --framework NAME==VERSION as the user wrote it (whatever spelling of NAME). */
/* The day a record of PyPI was read, for the sentences that rest on it. */
static const char *
read_day(const char *day)
{
    return day && *day ? day : "?";
}

static const char *
fw_version_text(const struct rs *r)
{
    const char *eq = r->in->wishes->framework ? strstr(r->in->wishes->framework, "==") : NULL;
    return eq ? eq + 2 : "";
}

static bool
major_has_archives(const struct cu_catalog *cat, int major)
{
    for (size_t i = 0; i < cat->n_cuda; i++)
        if (cat->cuda[i].archives && (int)cat->cuda[i].version.part[0] == major)
            return true;
    return false;
}

static bool
fw_version_matches(const struct cu_version *want, const struct cu_version *have)
{
    return !want->n || cu_version_matches(have, want) || cu_version_cmp(have, want) == 0 ||
           (want->n > have->n && cu_version_matches(want, have));
}

void
add_none_option(struct rs *r, struct fwopt **opts, size_t *n)
{
    (void)r;
    *opts = cu_xreallocarray(*opts, *n + 1, sizeof(**opts));
    rs_fwopt_init(&(*opts)[*n]);
    (*opts)[*n].title = cu_xstrdup(_("no framework"));
    (*n)++;
}

/* Can cudaup give this TensorFlow the CUDA its libraries load? */
static bool
tf_installable(const struct cu_catalog *cat, const struct cu_cat_tf *t)
{
    if (!major_has_archives(cat, (int)t->cuda.part[0]))
        return false;
    struct cu_version from = mm(&cat->archives_from);
    return !t->cuda_max.n || cu_version_cmp(&t->cuda_max, &from) >= 0;
}

/* Is @v among the @n releases of @list? */
static bool
version_listed(const struct cu_version *list, size_t n, const struct cu_version *v)
{
    for (size_t i = 0; i < n; i++)
        if (cu_version_cmp(&list[i], v) == 0)
            return true;
    return false;
}

/* The releases of @list (newest first) of the minor of @v, oldest first: "2.13.0, 2.13.1" (caller frees). */
static char *
minor_releases(const struct cu_version *list, size_t n, const struct cu_version *v)
{
    char b[32];
    struct cu_buf same;
    cu_buf_init(&same);
    for (size_t k = n; k-- > 0;)
        if (list[k].part[0] == v->part[0] && list[k].part[1] == v->part[1])
            cu_buf_printf(&same, "%s%s", same.len ? _(", ") : "", V(&list[k], b, sizeof(b)));
    return cu_buf_steal(&same);
}


/* ---- releases learned from the package index this run (core/catalog/catalog_learned.h) ---------------- */

static const char *
fw_title(const char *fw)
{
    return strcmp(fw, "pytorch") == 0 ? "PyTorch" : strcmp(fw, "jax") == 0 ? "JAX" : "TensorFlow";
}

/* A learned release of which nothing about its GPU code can be inferred, pinned: refused, saying why. */
static enum cu_status
refuse_uninferable(struct rs *r, const struct cu_cat_learned *e)
{
    return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                        _("%s %s is on the package index %s (read %s), newer than cudaup's catalog, but %s, so nothing about the GPU code it carries can be inferred: cudaup does not plan it."),
                        fw_title(e->framework), e->text, e->index ? e->index : "?", e->day ? e->day : "?",
                        e->no_inference);
}

/* A pre-release pinned (==2.22.0rc0) is planned only as the package index showed it this run. */
static enum cu_status
check_pre(struct rs *r, const char *fw, const char *day)
{
    if (!r->fw.pre[0])
        return CU_OK;
    const struct cu_cat_learned *e = cu_catalog_learned(r->cat, fw, &r->fw.v, NULL);
    if (e && strcmp(e->pre, r->fw.pre) == 0)
        return e->no_inference ? refuse_uninferable(r, e) : CU_OK;
    return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                        _("%s %s is a pre-release: cudaup plans one only as the package index shows it, and its record of PyPI (read %s) holds none; the index did not show this one (offline, or not there)."),
                        fw_title(fw), fw_version_text(r), read_day(day));
}

/* Is learned release @e left out: a pre-release not pinned as such, nothing inferable, or unpinned without
 * --allow-inferred?  @pinned: the wish names it. */
static bool
learned_skip(const struct rs *r, const struct cu_cat_learned *e, bool pinned)
{
    if (e->pre[0] || r->fw.pre[0])
        return !(pinned && strcmp(e->pre, r->fw.pre) == 0);
    if (e->no_inference)
        return true;
    return !pinned && !r->in->wishes->allow_inferred;
}

/* The newest release of PyTorch minor @minor in the record of PyPI: learned (@learned) or not; n == 0: none. */
static struct cu_version
torch_newest_of(const struct rs *r, const struct cu_version *minor, bool learned, const struct cu_cat_learned **e)
{
    for (size_t k = 0; k < r->cat->n_pypi_torch; k++) {
        const struct cu_version *v = &r->cat->pypi_torch[k];
        if (v->part[0] != minor->part[0] || v->part[1] != minor->part[1])
            continue;
        const struct cu_cat_learned *l = cu_catalog_learned(r->cat, "pytorch", v, NULL);
        if ((l != NULL) == learned) {
            if (e)
                *e = l;
            return *v;
        }
    }
    return (struct cu_version){{0}, 0};
}

enum learned_take { TAKE_AS_IS, TAKE_HELD, TAKE_SKIP };

/*
 * PyTorch minor @t where releases of it were learned this run: which release its options stand for.  Unpinned
 * (or pinned to the minor), the newest learned one with --allow-inferred (or the minor pinned), else the newest the
 * catalog knew (*@held); a minor only learned is left out.  A learned release pinned exactly is taken as is.
 */
static enum learned_take
torch_learned(struct rs *r, const struct cu_cat_torch *t, const struct cu_version *want, struct cu_version *held,
              enum cu_status *st)
{
    const struct cu_cat_learned *e = NULL;
    struct cu_version newest = torch_newest_of(r, &t->minor, true, &e);
    *st = CU_OK;
    if (!newest.n)
        return TAKE_AS_IS;
    if (want->n >= 3) {
        const struct cu_cat_learned *p = cu_catalog_learned(r->cat, "pytorch", want, NULL);
        if (p && p->no_inference)
            *st = refuse_uninferable(r, p);
        return TAKE_AS_IS;
    }
    struct cu_version base = torch_newest_of(r, &t->minor, false, NULL);
    bool take = (r->in->wishes->allow_inferred || want->n == 2) && !e->no_inference;
    if (take) {
        *held = newest;
        return TAKE_HELD;
    }
    if (base.n) {
        *held = base;
        return TAKE_HELD;
    }
    if (want->n == 2 && e->no_inference)
        *st = refuse_uninferable(r, e);
    return TAKE_SKIP;
}

enum cu_status
tf_options(struct rs *r, struct fwopt **opts, size_t *n)
{
    char b1[32], b2[32], b3[32];
    const struct cu_cat_tf *first_ok = NULL;
    bool matched = false;
    enum cu_status pst = check_pre(r, "tensorflow", r->cat->pypi_read_tf);
    if (pst != CU_OK)
        return pst;

    for (size_t i = r->cat->n_tf; i-- > 0;)
        if (tf_installable(r->cat, &r->cat->tf[i])) {
            first_ok = &r->cat->tf[i];
            break;
        }
    for (size_t i = 0; i < r->cat->n_tf; i++) {
        const struct cu_cat_tf *t = &r->cat->tf[i];
        /* The release to install: the one pinned, else the newest patch of the tested minor read on PyPI. */
        const struct cu_version *rel = t->n_patches ? &t->patches[0] : &t->version;
        if (r->fw.v.n >= 3) {
            rel = NULL;
            for (size_t k = 0; k < t->n_patches && !rel; k++)
                if (cu_version_cmp(&t->patches[k], &r->fw.v) == 0)
                    rel = &t->patches[k];
            if (!rel && cu_version_cmp(&t->version, &r->fw.v) == 0)
                rel = &t->version;
            if (!rel && t->n_patches && t->version.part[0] == r->fw.v.part[0] && t->version.part[1] == r->fw.v.part[1]) {
                /* A patch of a tested minor that PyPI never had (2.13.2): name the ones it has. */
                CU_AUTOFREE char *same = minor_releases(t->patches, t->n_patches, &t->version);
                return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                                    _("TensorFlow %s is not in cudaup's record of PyPI (read %s); its %u.%u releases there are %s."),
                                    V(&r->fw.v, b2, sizeof(b2)), read_day(r->cat->pypi_read_tf), t->version.part[0],
                                    t->version.part[1], same);
            }
            if (!rel)
                continue;
        } else if (!fw_version_matches(&r->fw.v, &t->version))
            continue;
        const struct cu_cat_learned *le = cu_catalog_learned(r->cat, "tensorflow", &t->version, NULL);
        if (le && r->fw.v.n > 0 && le->no_inference && !le->pre[0])
            return refuse_uninferable(r, le); /* pinned, and nothing about its GPU code can be inferred */
        if ((le && learned_skip(r, le, r->fw.v.n > 0)) || (!le && r->fw.pre[0]))
            continue;
        matched = true;
        if (!tf_installable(r->cat, t)) {
            if (!r->fw.v.n)
                continue; /* newest-first search: older builds simply do not fit */
            if (t->cuda_max.n && major_has_archives(r->cat, (int)t->cuda.part[0]))
                return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                                    _("TensorFlow %s needs CUDA %s: %s. NVIDIA publishes CUDA archives only from %s on, so cudaup cannot install it; TensorFlow %s or newer works with the CUDA releases cudaup installs."),
                                    V(&t->version, b1, sizeof(b1)), V(&t->cuda_max, b2, sizeof(b2)),
                                    t->cuda_max_why ? t->cuda_max_why : "",
                                    cu_version_format(&r->cat->archives_from, 2, (char[32]){0}, 32),
                                    first_ok ? V(&first_ok->version, (char[32]){0}, 32) : "2.15");
            return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                                _("TensorFlow %s was built for CUDA %s and cuDNN %s, but NVIDIA publishes CUDA archives only from %s on, so cudaup cannot install them; TensorFlow %s or newer works with the CUDA releases cudaup installs."),
                                V(&t->version, b1, sizeof(b1)), V(&t->cuda, b2, sizeof(b2)),
                                V(&t->cudnn, b3, sizeof(b3)),
                                cu_version_format(&r->cat->archives_from, 2, (char[32]){0}, 32),
                                first_ok ? V(&first_ok->version, (char[32]){0}, 32) : "2.15");
        }
        *opts = cu_xreallocarray(*opts, *n + 1, sizeof(**opts));
        struct fwopt *o = &(*opts)[(*n)++];
        rs_fwopt_init(o);
        V(rel, b1, sizeof(b1));
        if (le) /* as published: 2.22.0rc0 */
            snprintf(b1, sizeof(b1), "%s", le->text);
        o->title = cu_xasprintf("TensorFlow %s", b1);
        o->version = cu_xstrdup(b1);
        o->cuda_major = (int)t->cuda.part[0];
        o->cuda_min = mm(&t->cuda);
        o->cudnn_major = (int)t->cudnn.part[0];
        o->cudnn_min = t->cudnn;
        o->py_min = t->py_min;
        o->py_max = t->py_max;
        o->code = cu_catalog_tf_code(r->cat, rel);
        o->build_cuda = mm(&t->cuda);
        o->cuda_max = t->cuda_max;
        o->cuda_max_why = t->cuda_max_why;
        bool gpu_pkg = strcmp(t->package, "tensorflow_gpu") == 0;
        cu_strv_push_owned(&o->pip, cu_xasprintf("%s==%s", gpu_pkg ? "tensorflow-gpu" : "tensorflow", b1));
        if (le) /* learned: what its wheel's own pins ask for, not Google's table of tested builds */
            o->why = cu_xasprintf(_("TensorFlow %s (with Keras): its wheel's tensorflow[and-cuda] asks pip for CUDA %s and cuDNN %s or newer, so it needs CUDA %s.x at %s or newer and cuDNN %u.x."),
                                  b1, V(&t->cuda, b2, sizeof(b2)), V(&t->cudnn, b3, sizeof(b3)),
                                  cu_version_format(&t->cuda, 1, (char[32]){0}, 32), b2, t->cudnn.part[0]);
        else
            o->why = cu_xasprintf(_("TensorFlow %s (with Keras): Google built and tested it with CUDA %s and cuDNN %s, so it needs CUDA %s.x at %s or newer and cuDNN %u.x."),
                                  b1, V(&t->cuda, b2, sizeof(b2)), V(&t->cudnn, b3, sizeof(b3)),
                                  cu_version_format(&t->cuda, 1, (char[32]){0}, 32), b2, t->cudnn.part[0]);
    }
    if (!matched)
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                            _("TensorFlow %s is not in cudaup's catalog (its record of PyPI read %s); it knows %s to %s."),
                            fw_version_text(r), read_day(r->cat->pypi_read_tf),
                            V(&r->cat->tf[r->cat->n_tf - 1].version, b1, sizeof(b1)),
                            V(&r->cat->tf[0].version, b2, sizeof(b2)));
    return CU_OK;
}

static const struct cu_cat_torch_version *
torch_exact(const struct rs *r, const struct cu_version *v)
{
    for (size_t i = 0; i < r->cat->n_torch_versions; i++)
        if (cu_version_cmp(&r->cat->torch_versions[i].version, v) == 0)
            return &r->cat->torch_versions[i];
    return NULL;
}

enum cu_status
torch_options(struct rs *r, struct fwopt **opts, size_t *n)
{
    char b1[32], b2[32];
    bool matched = false;
    const struct cu_cat_torch *unreleased = NULL; /* a minor the pin is of, whose patch PyPI lacks */

    enum cu_status pst = check_pre(r, "pytorch", r->cat->pypi_read_torch);
    if (pst != CU_OK)
        return pst;
    for (size_t i = 0; i < r->cat->n_torch; i++) {
        const struct cu_cat_torch *t = &r->cat->torch[i];
        struct cu_version want = r->fw.v;
        struct cu_version want_mm = want.n >= 2 ? mm(&want) : want;
        if (want.n && !cu_version_matches(&t->minor, &want_mm) && cu_version_cmp(&t->minor, &want_mm) != 0)
            continue;
        /* Releases of this minor learned from the package index: which one its options stand for. */
        struct cu_version held;
        enum learned_take take = torch_learned(r, t, &want, &held, &pst);
        if (pst != CU_OK)
            return pst;
        if (take == TAKE_SKIP)
            continue;
        if (take == TAKE_HELD)
            want = held;
        const struct cu_cat_torch_version *exact = want.n >= 3 ? torch_exact(r, &want) : NULL;
        struct cu_version newest_listed = r->cat->n_torch_versions
                                              ? mm(&r->cat->torch_versions[0].version)
                                              : (struct cu_version){{0}, 0};
        bool learned = want.n >= 3 && cu_catalog_learned(r->cat, "pytorch", &want, NULL);
        if (want.n >= 3 && !exact && !learned && newest_listed.n && cu_version_cmp(&t->minor, &newest_listed) <= 0) {
            unreleased = t; /* an unknown patch of a minor whose patches the catalog lists */
            continue;
        }
        /* A patch of a newer minor: one PyPI has (framework_pypi_releases.csv) is installed as asked. */
        bool pypi_exact = want.n >= 3 && !exact && r->cat->n_pypi_torch;
        if (pypi_exact && !version_listed(r->cat->pypi_torch, r->cat->n_pypi_torch, &want)) {
            unreleased = t;
            continue;
        }
        matched = true;
        /* Stable builds first, newest CUDA first; then the experimental ones. */
        for (int pass = 0; pass < 2; pass++) {
            for (size_t k = t->n_builds; k-- > 0;) {
                const struct cu_cat_torch_build *b = &t->builds[k];
                if (b->stable != (pass == 0))
                    continue;
                if (exact && !strv_has(exact->tags, b->tag))
                    continue;
                *opts = cu_xreallocarray(*opts, *n + 1, sizeof(**opts));
                struct fwopt *o = &(*opts)[(*n)++];
                rs_fwopt_init(o);
                const char *ver = exact ? V(&exact->version, b1, sizeof(b1))
                                  : pypi_exact ? V(&want, b1, sizeof(b1)) : V(&t->minor, b1, sizeof(b1));
                o->title = cu_xasprintf("PyTorch %s (%s)", ver, b->tag);
                o->version = cu_xstrdup(ver);
                o->cuda_major = (int)b->cuda.part[0];
                o->cuda_mm = b->cuda;
                if (r->cuda.kind != SPEC_AUTO)
                    o->cuda_min = (struct cu_version){{b->cuda.part[0], 0}, 2};
                struct cu_version dnn;
                if (b->cudnn && cu_version_parse(b->cudnn, &dnn))
                    o->cudnn_major = (int)dnn.part[0];
                o->py_min = t->py_min;
                o->py_max = t->py_max;
                if (t->py_exp.n && r->py_wish.n && cu_version_cmp(&r->py_wish, &t->py_exp) == 0 &&
                    (int)b->cuda.part[0] == t->py_exp_major) {
                    /* Asked for, and its wheels are there: planned, saying what upstream calls it. */
                    o->py_max = t->py_exp;
                    o->py_note = cu_xasprintf(_("Python %s: PyTorch's release matrix calls it experimental for PyTorch %s, and its wheels for it are published (%s, read on PyPI)."),
                                              V(&t->py_exp, b2, sizeof(b2)), V(&t->minor, (char[32]){0}, 32),
                                              t->py_exp_wheel);
                }
                cu_strv_push_owned(&o->pip, exact || pypi_exact ? cu_xasprintf("torch==%s", ver)
                                                                : cu_xasprintf("torch==%s.*", V(&t->minor, b2, sizeof(b2))));
                const struct cu_version *tv = exact ? &exact->version : pypi_exact ? &want : &t->minor;
                rs_torch_companions(r, o, tv);
                /* Where this build's wheel was read (its PyPI wheel is this CUDA's), the CUDA wheels it pins hold
                 * the rest of their family: torch 2.11+ asks nvJitLink with a lower bound only. */
                const struct cu_cat_fw_wheel *own = cu_catalog_fw_wheel(&r->cat->wheels, "pytorch", b->tag, tv);
                char *family = NULL, fwhy[512];
                if (own && rs_hold_cuda_family(r, &own, 1, true, &o->constraints, &family, fwhy, sizeof(fwhy)) && family)
                    cu_strv_push_owned(&o->lib_reasons, family);
                o->index_url = cu_xasprintf(PYTORCH_INDEX "%s", b->tag);
                o->tag = cu_xstrdup(b->tag);
                o->bundled = true;
                o->build_cuda = mm(&b->cuda);
                o->lib_exact = b->cudnn ? cu_xstrdup(b->cudnn) : NULL;
                o->code = cu_catalog_torch_code(r->cat, exact ? &exact->version : pypi_exact ? &want : &t->minor, b->tag);
                o->why = cu_xasprintf(_("PyTorch %s, its %s build (CUDA %s%s%s%s): the newest %s build that fits."),
                                      ver, b->tag, V(&b->cuda, b2, sizeof(b2)), b->cudnn ? ", cuDNN " : "",
                                      b->cudnn ? b->cudnn : "", b->stable ? "" : _(", experimental"),
                                      b->stable ? _("stable") : _("experimental"));
            }
        }
    }
    if (!matched && unreleased) {
        CU_AUTOFREE char *same = minor_releases(r->cat->pypi_torch, r->cat->n_pypi_torch, &unreleased->minor);
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                            _("PyTorch %s is not in cudaup's record of PyPI (read %s); its %s releases there are %s."),
                            strstr(r->in->wishes->framework, "==") + 2, read_day(r->cat->pypi_read_torch),
                            V(&unreleased->minor, b2, sizeof(b2)), *same ? same : "?");
    }
    if (!matched)
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                            _("PyTorch %s is not in cudaup's catalog (its record of PyPI read %s); it knows %s to %s."),
                            strstr(r->in->wishes->framework, "==") + 2, read_day(r->cat->pypi_read_torch),
                            V(&r->cat->torch[r->cat->n_torch - 1].minor, b1, sizeof(b1)),
                            V(&r->cat->torch[0].minor, b2, sizeof(b2)));
    return CU_OK;
}

/* ---- what goes beside torch -------------------------------------------------------- */

/* Drop what an earlier rs_torch_companions() put in @v: the requirements on @pkg. */
static void
drop_requirement(struct cu_strv *v, const char *pkg)
{
    size_t len = strlen(pkg), k = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (strncmp(v->v[i], pkg, len) == 0 && v->v[i][len] == '=')
            free(v->v[i]);
        else
            v->v[k++] = v->v[i];
    }
    v->n = k;
    if (v->v)
        v->v[k] = NULL;
}

void
rs_torch_companions(struct rs *r, struct fwopt *o, const struct cu_version *torch)
{
    const struct cu_catalog_pins *p = &r->cat->wheels.pins;
    const struct cu_cat_torch_version *matrix = torch->n >= 3 ? torch_exact(r, torch) : NULL;
    char b1[32], b2[32];
    struct cu_buf said;
    cu_buf_init(&said);
    /* What a PyTorch environment installs beside torch, as the release matrix names them. */
    static const char *const companions[] = {"torchvision", "torchaudio"};
    const struct cu_version *release = torch; /* the torch release the companions are built for */
    for (size_t i = 0; i < sizeof(companions) / sizeof(*companions); i++) {
        const char *pkg = companions[i];
        drop_requirement(&o->pip, pkg);
        drop_requirement(&o->constraints, pkg);
        const struct cu_cat_companion *c = cu_catalog_companion(p, pkg, torch);
        const char *from_matrix = !c && matrix ? i == 0 ? matrix->torchvision : matrix->torchaudio : NULL;
        const char *ver = c ? c->version : from_matrix;
        if (c)
            release = &c->torch;
        char *part;
        if (ver) {
            char *pin = cu_xasprintf("%s==%s", pkg, ver);
            cu_strv_push(&o->pip, pin);
            cu_strv_push_owned(&o->constraints, pin);
        }
        if (c && ver && strcmp(c->basis, "pin") == 0)
            part = cu_tr_asprintf(_("%s %s, the release built for it (its wheel asks for torch%s)"), pkg, ver,
                                  c->requires);
        else if (c && ver && strcmp(c->basis, "range") == 0) {
            struct cu_version lo = mm(&c->torch);
            part = cu_tr_asprintf(_("%s %s, the release built for it (its wheel asks for torch%s, so it was built against PyTorch %s: inferred from that lower bound)"),
                                  pkg, ver, c->requires, V(&lo, b1, sizeof(b1)));
        } else if (ver) /* a row the matrix decided, or the matrix where the table has no row */
            part = cu_tr_asprintf(_("%s %s, the release PyTorch's release matrix names for it"), pkg, ver);
        else if (c) {
            const struct cu_cat_companion *last = cu_catalog_companion_newest(p, pkg);
            part = last ? cu_tr_asprintf(_("no %s: none of its releases on PyPI is built for it (the newest, %s, is built for PyTorch %s), so it is left out"),
                                         pkg, last->version, V(&last->torch, b2, sizeof(b2)))
                        : cu_tr_asprintf(_("no %s: none of its releases on PyPI is built for it, so it is left out"), pkg);
        } else
            part = cu_tr_asprintf(_("no %s: cudaup has no record of which of its releases is built for it, so it is left out rather than installed unpinned"),
                                  pkg);
        cu_buf_printf(&said, "%s%s", said.len ? _("; ") : "", part);
        free(part);
    }
    free(o->companions_why);
    o->companions_why = NULL;
    if (!said.len) {
        cu_buf_fini(&said);
        return;
    }
    if (torch->n < 3 && release != torch)
        o->companions_why = cu_tr_asprintf(_("Beside PyTorch %s (its newest release on PyPI, %s): %s."),
                                           V(torch, b1, sizeof(b1)), V(release, b2, sizeof(b2)), said.data);
    else
        o->companions_why = cu_tr_asprintf(_("Beside PyTorch %s: %s."), V(release, b1, sizeof(b1)), said.data);
    cu_buf_fini(&said);
}

/* One JAX option: @from (n == 0: the newest release) up to @below (exclusive, or NULL). */
static void
jax_add(struct rs *r, const struct cu_cat_jax_plugin *p, const char *extra, bool local,
        const struct cu_version *from, const struct cu_version *below, struct fwopt **opts, size_t *n)
{
    char b1[32], b2[32], b3[32];
    *opts = cu_xreallocarray(*opts, *n + 1, sizeof(**opts));
    struct fwopt *o = &(*opts)[(*n)++];
    rs_fwopt_init(o);
    if (below) {
        V(from, b1, sizeof(b1));
        V(below, b2, sizeof(b2));
        o->title = cu_xasprintf(_("JAX %s or newer, older than %s (%s)"), b1, b2, extra);
        o->release = cu_xasprintf("%s..%s", b1, b2);
        cu_strv_push_owned(&o->pip, cu_xasprintf("jax[%s]>=%s,<%s", extra, b1, b2));
    } else if (from->n) {
        o->title = cu_xasprintf("JAX %s (%s)", V(from, b1, sizeof(b1)), extra);
        o->version = cu_xstrdup(b1);
        cu_strv_push_owned(&o->pip, cu_xasprintf("jax[%s]==%s", extra, b1));
    } else {
        o->title = cu_xasprintf("JAX (%s)", extra);
        o->release = cu_xstrdup("newest");
        cu_strv_push_owned(&o->pip, cu_xasprintf("jax[%s]", extra));
    }
    rs_fwopt_jax_build(r, o, p, from, extra, from->n && !below);
    if (local) {
        o->cuda_min = p->cuda_min;
        o->cudnn_major = (int)p->cudnn_min.part[0];
        o->cudnn_min = p->cudnn_min;
        o->cudnn_max_excl = p->cudnn_max_exclusive;
        o->why = cu_xasprintf(_("JAX with %s: it uses the CUDA %s or newer and cuDNN %s or newer that cudaup installs."),
                              extra, V(&p->cuda_min, b2, sizeof(b2)), V(&p->cudnn_min, b3, sizeof(b3)));
        o->local_needs = cu_xasprintf(_("jax[%s] also needs NCCL for CUDA %d (libnccl.so.2), which cudaup does not install: add it to the environment (pip install nvidia-nccl-cu%d) or the system before you run JAX."),
                                      extra, p->cuda_major, p->cuda_major);
        return;
    }
    o->bundled = true;
    o->why = cu_xasprintf(_("JAX with %s: the wheels bring CUDA %d and cuDNN as pip packages, as JAX recommends; the system CUDA serves tools and the extensions you build."),
                          extra, p->cuda_major);
    /* The cuDNN pip brings: the wheel's own requirement where it was read, else JAX's page. */
    const struct cu_cat_pip_lib *l = cu_catalog_pip_lib(&r->cat->pip, "jax", p->cuda_major, from, "cudnn");
    if (l) {
        o->lib_pkg = cu_xstrdup(l->package);
        o->lib_min = l->min;
        o->lib_max_excl = l->max_excl;
    } else {
        o->lib_pkg = cu_xasprintf("nvidia-cudnn-cu%d", p->cuda_major);
        o->lib_min = p->cudnn_min;
        o->lib_max_excl = p->cudnn_max_exclusive;
    }
    o->lib_row_note = cu_xasprintf(_("JAX's installation page: compute capability %s and up with CUDA %d"),
                                   V(&p->min_sm, b1, sizeof(b1)), p->cuda_major);
}

/* Is every GPU here of a compute capability plugin @p has code for (JAX's installation page)? */
static bool
jax_gpus_fit(const struct rs *r, const struct cu_cat_jax_plugin *p)
{
    for (size_t g = 0; r->constrained && g < r->f->n_gpus; g++)
        if (r->f->gpus[g].cc.n && cu_version_cmp(&r->f->gpus[g].cc, &p->min_sm) < 0)
            return false;
    return true;
}

/*
 * The newest JAX release, of @first (the plugin's first) or later, with wheels for the Python asked: in *@at, left
 * unset (n == 0) where that is the newest release of all, whose pip spec needs no version.  False: none has.
 */
static bool
jax_for_python(const struct rs *r, const struct cu_version *first, struct cu_version *at)
{
    const struct cu_catalog_pip *cp = &r->cat->pip;
    for (size_t i = 0; i < cp->n_jax_python; i++) {
        const struct cu_cat_jax_python *e = &cp->jax_python[i];
        if (first->n && cu_version_cmp(&e->to, first) < 0)
            break; /* newest first: the rest predate the extra */
        if (cu_version_cmp(&r->py_wish, &e->min) >= 0 && cu_version_cmp(&r->py_wish, &e->max) <= 0) {
            if (i > 0)
                *at = e->to;
            return true;
        }
    }
    return !cp->n_jax_python; /* nothing read: as before */
}

/* Unpinned JAX where releases newer than the catalog were learned: the newest learned one that can be inferred for
 * plugin @p with --allow-inferred, else the newest the catalog knew (pip would take the newest of all). */
static void
jax_hold(const struct rs *r, const struct cu_cat_jax_plugin *p, struct cu_version *at)
{
    const struct cu_cat_learned *newest = r->cat->n_pypi_jax ? cu_catalog_learned(r->cat, "jax", &r->cat->pypi_jax[0], NULL)
                                                               : NULL;
    if (!newest)
        return;
    for (size_t k = 0; k < r->cat->n_pypi_jax; k++) {
        const struct cu_cat_learned *e = cu_catalog_learned(r->cat, "jax", &r->cat->pypi_jax[k], NULL);
        const struct cu_cat_learned *mine = e ? cu_catalog_learned(r->cat, "jax", &r->cat->pypi_jax[k], p->extra) : NULL;
        if (!e || (r->in->wishes->allow_inferred && mine && !mine->no_inference)) {
            *at = r->cat->pypi_jax[k];
            return;
        }
    }
}

enum cu_status
jax_options(struct rs *r, struct fwopt **opts, size_t *n)
{
    char b1[32], b2[32];
    struct cu_version dash = vp("0.6.0");
    bool extra_known = !r->fw.extra[0];

    enum cu_status pst = check_pre(r, "jax", r->cat->pypi_read_jax);
    if (pst != CU_OK)
        return pst;
    /* A pin of a release PyPI does not have: name the newest of its minor, or the newest of all. */
    if (r->fw.v.n >= 3 && r->cat->n_pypi_jax && !version_listed(r->cat->pypi_jax, r->cat->n_pypi_jax, &r->fw.v)) {
        const struct cu_version *last = NULL; /* the newest release of the pin's minor */
        for (size_t k = 0; k < r->cat->n_pypi_jax && !last; k++)
            if (r->cat->pypi_jax[k].part[0] == r->fw.v.part[0] && r->cat->pypi_jax[k].part[1] == r->fw.v.part[1])
                last = &r->cat->pypi_jax[k];
        if (last)
            return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                                _("JAX %s is not in cudaup's record of PyPI (read %s); its %u.%u releases there end with %s."),
                                V(&r->fw.v, b1, sizeof(b1)), read_day(r->cat->pypi_read_jax), r->fw.v.part[0],
                                r->fw.v.part[1], V(last, b2, sizeof(b2)));
        return cu_error_set(r->err, CU_E_UNSUPPORTED, 0,
                            _("JAX %s is not in cudaup's record of PyPI (read %s); the newest there is %s."),
                            V(&r->fw.v, b1, sizeof(b1)), read_day(r->cat->pypi_read_jax),
                            V(&r->cat->pypi_jax[0], b2, sizeof(b2)));
    }
    struct ranged {
        const struct cu_cat_jax_plugin *p;
        struct cu_version first;
    } ranged[8];
    size_t n_ranged = 0;
    /* A driver too old for every plugin: name the least it takes, of the plugins with code for every GPU
     * here (for a GPU none has code for, a newer driver does not help: that GPU is the blocker). */
    const struct cu_cat_jax_plugin *least = NULL;
    for (size_t i = 0; i < r->cat->n_jax; i++)
        if ((!least || r->cat->jax[i].driver_branch < least->driver_branch) && jax_gpus_fit(r, &r->cat->jax[i]))
            least = &r->cat->jax[i];
    if (least && r->constrained && r->have_driver && (int)r->driver.part[0] < least->driver_branch)
        rs_fail(r, ST_DRIVER, _("JAX needs NVIDIA driver %d or newer (for its CUDA %d wheels); this machine has %s."),
             least->driver_branch, least->cuda_major, r->driver_text);

    for (size_t i = 0; i < r->cat->n_jax; i++) {
        const struct cu_cat_jax_plugin *p = &r->cat->jax[i];
        /* jax[cudaNN] brings CUDA and cuDNN as pip packages (JAX's default);
         * jax[cudaNN-local] uses the system's, and only when asked. */
        bool local = false;
        if (r->fw.extra[0]) {
            local = strcmp(r->fw.extra, p->local_extra) == 0;
            if (!local && strcmp(r->fw.extra, p->extra) != 0)
                continue;
            extra_known = true;
        }
        struct cu_version first = {{0}, 0};
        if (p->first_version && !cu_version_parse(p->first_version, &first))
            first.n = 0;
        if (r->fw.v.n && first.n && cu_version_cmp(&r->fw.v, &first) < 0) {
            /* plugins come newest CUDA first: the last names the oldest extra */
            rs_fail_closer(r, ST_FRAMEWORK, _("JAX %s has no jax[%s]: that extra came with JAX %s."),
                    V(&r->fw.v, b1, sizeof(b1)),
                    local ? p->local_extra : p->extra, p->first_version);
            continue;
        }
        bool sm_ok = true;
        for (size_t g = 0; r->constrained && g < r->f->n_gpus; g++)
            if (r->f->gpus[g].cc.n && cu_version_cmp(&r->f->gpus[g].cc, &p->min_sm) < 0) {
                /* plugins come newest CUDA first: the last names the oldest capability any takes */
                rs_fail_closer(r, ST_GPU_CODE,
                     _("JAX's CUDA %d plugin needs compute capability %s or newer; GPU %d (%s) has %s."),
                     p->cuda_major, V(&p->min_sm, b1, sizeof(b1)), r->f->gpus[g].index, r->f->gpus[g].name,
                     V(&r->f->gpus[g].cc, b2, sizeof(b2)));
                sm_ok = false;
            }
        if (!sm_ok)
            continue;
        if (r->constrained && r->have_driver && (int)r->driver.part[0] < p->driver_branch) {
            rs_fail(r, ST_DRIVER,
                 _("JAX's CUDA %d plugin needs NVIDIA driver %d or newer; this machine has %s."),
                 p->cuda_major, p->driver_branch, r->driver_text);
            continue;
        }
        /* Unpinned, pip takes the newest JAX with wheels for the Python: where the newest has none for the
         * Python asked, that is an older release, which may predate this extra (pip then warns and installs a
         * CPU jaxlib).  Name the release, so that its extra, code and cuDNN are what is judged. */
        struct cu_version at = r->fw.v;
        if (!at.n && r->py_wish.n && !jax_for_python(r, &first, &at)) {
            rs_fail_closer(r, ST_FRAMEWORK, _("No JAX release with jax[%s] has wheels for Python %s (jaxlib's wheels on PyPI)."),
                    local ? p->local_extra : p->extra, r->in->wishes->python);
            continue;
        }
        /* Releases learned from the package index this run: a pin is taken as is (unless nothing about its
         * plugin's GPU code can be inferred); unpinned, the newest is taken only with --allow-inferred, and
         * otherwise pip is held to the newest release the catalog knew. */
        const struct cu_cat_learned *le = at.n ? cu_catalog_learned(r->cat, "jax", &at, p->extra) : NULL;
        if (le && le->no_inference) {
            rs_fail_closer(r, ST_FRAMEWORK, _("JAX %s is on the package index %s (read %s), newer than cudaup's catalog, but %s, so nothing about the GPU code it carries can be inferred: cudaup does not plan it."),
                           le->text, le->index ? le->index : "?", le->day ? le->day : "?", le->no_inference);
            continue;
        }
        if (!at.n && !local)
            jax_hold(r, p, &at);
        const char *extra = local ? p->local_extra : p->extra;
        CU_AUTOFREE char *old_extra = NULL;
        if (local && at.n && cu_version_cmp(&at, &dash) < 0) {
            /* Before 0.6.0 the extra was spelled with an underscore (PEP 685 rename). */
            old_extra = cu_xasprintf("%s_local", p->extra);
            extra = old_extra;
        }
        jax_add(r, p, extra, local, &at, NULL, opts, n);
        if (!local && !r->fw.v.n && n_ranged < sizeof(ranged) / sizeof(*ranged))
            ranged[n_ranged++] = (struct ranged){p, first};
    }
    /* The newest JAX carries PTX that only a driver of the CUDA it was built with can JIT: for a driver
     * too old for that, the releases built with an older CUDA, newest first, each range's plugins side
     * by side after every plugin's newest (one release, weighed together as try_options weighs a pin). */
    const struct cu_catalog_pip *cp = &r->cat->pip;
    for (size_t k = 1; k < cp->n_jax_built; k++)
        for (size_t j = 0; j < n_ranged; j++) {
            if (ranged[j].first.n && cu_version_cmp(&cp->jax_built[k - 1].version, &ranged[j].first) <= 0)
                continue;
            jax_add(r, ranged[j].p, ranged[j].p->extra, false, &cp->jax_built[k].version,
                    &cp->jax_built[k - 1].version, opts, n);
        }
    if (!extra_known)
        return cu_error_set(r->err, CU_E_USAGE, 0,
                            _("--framework: jax[%s] is not a JAX extra cudaup knows; use jax (which means jax[cuda13] or jax[cuda12]), jax[cuda12-local] or jax[cuda13-local]."),
                            r->fw.extra);
    return CU_OK;
}

