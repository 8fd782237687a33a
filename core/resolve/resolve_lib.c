/* SPDX-License-Identifier: MIT */
/*
 * What pip brings with a framework build.  A wheel with its own CUDA (PyTorch, jax[cuda12]) loads
 * the cuDNN that pip installs beside it, never the one in the CUDA folder, so that cuDNN's support
 * matrix must list every GPU here too.  PyTorch pins its cuDNN exactly: the build fits or it does
 * not.  JAX asks for a range (nvidia-cudnn-cu12>=9.8,<10) and pip takes the newest: where the newest
 * cuDNN cudaup knows in that range drops a GPU here, pip gets a constraint that holds it to the
 * newest release whose matrix lists every GPU; where no release in the range does, the build does
 * not fit.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/pipspec.h"
#include "core/resolve/resolve_int.h"

/* rs_cudnn_judge() without leaving its notes on the resolver: each library is judged on its own. */
static bool
judge(struct rs *r, const struct cu_version *v, const struct cu_version *cuda, char *why, size_t len,
      char *note, size_t note_len)
{
    char saved_note[sizeof(r->cudnn_note)], saved_skip[sizeof(r->cudnn_skip)];
    memcpy(saved_note, r->cudnn_note, sizeof(saved_note));
    memcpy(saved_skip, r->cudnn_skip, sizeof(saved_skip));
    r->cudnn_note[0] = r->cudnn_skip[0] = '\0';
    int stage = 0;
    /* The GPUs only: the driver such a cuDNN needs is its CUDA major's, which the wheel's own runtime
     * needs as well (rs_judge_runtime names it, and for the build that needs the least). */
    bool have_driver = r->have_driver;
    r->have_driver = false;
    bool ok = rs_cudnn_judge(r, v, cuda, &stage, why, len);
    r->have_driver = have_driver;
    if (note)
        snprintf(note, note_len, "%s", r->cudnn_note);
    memcpy(r->cudnn_note, saved_note, sizeof(saved_note));
    memcpy(r->cudnn_skip, saved_skip, sizeof(saved_skip));
    return ok;
}

static bool
any_gpu_known(const struct rs *r)
{
    for (size_t i = 0; i < r->f->n_gpus; i++)
        if (r->f->gpus[i].cc.n)
            return true;
    return false;
}

static void
no_fit(struct rs *r, struct fwopt *o, char *why)
{
    free(o->code_why);
    o->code_why = why;
    o->code_class = CODE_NO_FIT;
    /* Like a CUDA that cannot build for the GPU: a newer driver would not help, but a driver too
     * old for a build that does fit explains better. */
    rs_fail(r, ST_GPU, "%s", o->code_why);
}

/* PyTorch: the cuDNN its wheel pins (RELEASE.md, in the catalog per build). */
static void
judge_pinned(struct rs *r, struct fwopt *o)
{
    char why[512], note[300], b1[32];
    struct cu_version v;
    if (!o->lib_exact || !cu_version_parse(o->lib_exact, &v)) {
        /* The data does not say which cuDNN the build brings: it is vouched for less than one it does. */
        if (o->code_class < CODE_SILENT)
            o->code_class = CODE_SILENT;
        cu_strv_push_owned(&o->lib_reasons,
                           cu_tr_asprintf(_("cudaup has no record of the cuDNN that %s brings from pip, so it cannot promise that it supports the GPUs here."),
                                          o->title));
        return;
    }
    if (!judge(r, &v, &o->build_cuda, why, sizeof(why), note, sizeof(note))) {
        no_fit(r, o, cu_tr_asprintf(_("%s brings cuDNN %s from pip (it pins it), and the framework loads that one, not the CUDA folder's: %s"),
                                    o->title, o->lib_exact, why));
        return;
    }
    /* With a note, no matrix of this release was read: the note says what vouches for it, and nothing claims
     * its own matrix does (issue 49 item 7: "its support matrix lists every GPU here: No support matrix ... was read"). */
    cu_strv_push_owned(&o->lib_reasons,
                       note[0] ? cu_tr_asprintf(_("%s brings cuDNN %s from pip. %s"), o->title, o->lib_exact, note)
                               : cu_tr_asprintf(_("%s brings cuDNN %s from pip; the support matrix of cuDNN %s lists every GPU here."),
                                                o->title, o->lib_exact, V(&v, b1, sizeof(b1))));
}

/*
 * The CUDA runtime pip brings beside a build that asks for a range of it (jax-cuda12-plugin:
 * nvidia-cuda-runtime-cu12>=12.1.105): pip takes the newest release, so at least the newest that
 * some wheel read pins exactly (PyPI held it when that wheel was read).  Sets @cuda to its X.Y and
 * returns the sentence that says so, or leaves @cuda and returns NULL when the data does not tell.
 */
/* The wheel of option @o as read from PyPI (framework_wheels), or NULL. */
static const struct cu_cat_fw_wheel *
own_wheel(struct rs *r, const struct fwopt *o)
{
    struct cu_version ver = {{0}, 0};
    if (o->version && !cu_version_parse(o->version, &ver))
        return NULL;
    return cu_catalog_fw_wheel(&r->cat->wheels, "jax", o->tag, &ver);
}

static char *
pip_runtime(struct rs *r, const struct fwopt *o, struct cu_version *cuda)
{
    char b1[32], b2[32], pkg[64];
    const struct cu_cat_fw_wheel *w = own_wheel(r, o);
    snprintf(pkg, sizeof(pkg), "nvidia-cuda-runtime-cu%d", (int)o->build_cuda.part[0]);
    const struct cu_cat_wheel_req *q = w ? cu_fw_wheel_req(w, pkg) : NULL;
    struct cu_version known;
    const struct cu_cat_fw_wheel *by = NULL;
    if (!q || !cu_catalog_wheels_known(&r->cat->wheels, pkg, &q->spec, &known, &by))
        return NULL;
    struct cu_version x = mm(&known);
    if (cu_version_cmp(&x, cuda) <= 0)
        return NULL;
    *cuda = x;
    return cu_tr_asprintf(_("%s asks pip for %s%s, and pip takes the newest release: %s or newer (a release on PyPI, which %s pins as %s), so the cuDNN it brings runs with CUDA %s or newer."),
                          o->title, pkg, q->text, V(&known, b1, sizeof(b1)), by->pip, b1, V(&x, b2, sizeof(b2)));
}

/* JAX: a range that pip fills with the newest release; hold it to one that lists every GPU. */
static void
judge_range(struct rs *r, struct fwopt *o)
{
    char why[512], first_why[512] = "", note[300], b1[32], b2[32], b3[32];
    const struct cu_cat_cudnn *newest = NULL, *pick = NULL, *oldest = NULL;
    struct cu_version cuda = {{(unsigned)o->build_cuda.part[0], 0}, 2}, least = cuda;
    CU_AUTOFREE char *runtime_why = pip_runtime(r, o, &cuda);

    for (size_t i = 0; i < r->cat->n_cudnn; i++) {
        const struct cu_cat_cudnn *c = &r->cat->cudnn[i];
        if (cu_version_cmp(&c->version, &o->lib_min) < 0 && !cu_version_matches(&o->lib_min, &c->version))
            continue;
        if (o->lib_max_excl.n && cu_version_cmp(&c->version, &o->lib_max_excl) >= 0)
            continue;
        if (!newest)
            newest = c;
        oldest = c;
        if (judge(r, &c->version, &cuda, why, sizeof(why), note, sizeof(note))) {
            pick = c;
            break;
        }
        if (!first_why[0])
            snprintf(first_why, sizeof(first_why), "%s", why);
    }
    CU_AUTOFREE char *range = o->lib_max_excl.n
                                  ? cu_xasprintf(">=%s,<%s", V(&o->lib_min, b1, sizeof(b1)),
                                                 V(&o->lib_max_excl, b2, sizeof(b2)))
                                  : cu_xasprintf(">=%s", V(&o->lib_min, b1, sizeof(b1)));
    if (!newest) {
        if (o->code_class < CODE_SILENT)
            o->code_class = CODE_SILENT;
        cu_strv_push_owned(&o->lib_reasons,
                           cu_tr_asprintf(_("%s brings %s%s from pip; cudaup knows no cuDNN release in that range, so it cannot promise that it supports the GPUs here."),
                                          o->title, o->lib_pkg, range));
        return;
    }
    if (!pick) {
        no_fit(r, o, cu_tr_asprintf(_("%s brings cuDNN from pip (%s%s), and no cuDNN release in that range supports every GPU here: %s"),
                                    o->title, o->lib_pkg, range, oldest == newest ? first_why : why));
        return;
    }
    /* Say so where the CUDA runtime pip brings is what lets the pick serve every GPU here. */
    if (runtime_why && !judge(r, &pick->version, &least, why, sizeof(why), NULL, 0))
        cu_strv_push_owned(&o->lib_reasons, cu_xstrdup(runtime_why));
    /* The wheel's own requirement may let pip past what the build loads (jax 0.4.25 asks for
     * nvidia-cudnn-cu12>=8.9.7.29 and would get cuDNN 9): the constraint holds pip to the range. */
    const struct cu_cat_fw_wheel *w = own_wheel(r, o);
    const struct cu_cat_wheel_req *q = w ? cu_fw_wheel_req(w, o->lib_pkg) : NULL;
    if (q && o->lib_max_excl.n && cu_pipspec_contains(&q->spec, &o->lib_max_excl)) {
        char *pin = cu_xasprintf("%s==%s.*", o->lib_pkg, V(&pick->version, b1, sizeof(b1)));
        cu_strv_push_owned(&o->constraints, pin);
        cu_strv_push_owned(&o->lib_reasons,
                           note[0] ? cu_tr_asprintf(_("%s's own wheel asks pip for %s%s, which lets pip take cuDNN %s or newer, though the build loads cuDNN %u only; so cudaup holds pip to %s (a constraints file), the newest cuDNN %u known to support every GPU here. %s"),
                                                    o->title, o->lib_pkg, q->text, V(&o->lib_max_excl, b2, sizeof(b2)),
                                                    o->lib_min.part[0], pin, o->lib_min.part[0], note)
                                   : cu_tr_asprintf(_("%s's own wheel asks pip for %s%s, which lets pip take cuDNN %s or newer, though the build loads cuDNN %u only; so cudaup holds pip to %s (a constraints file), the newest cuDNN %u whose support matrix lists every GPU here."),
                                                    o->title, o->lib_pkg, q->text, V(&o->lib_max_excl, b2, sizeof(b2)),
                                                    o->lib_min.part[0], pin, o->lib_min.part[0]));
        return;
    }
    if (pick == newest) {
        cu_strv_push_owned(&o->lib_reasons,
                           note[0] ? cu_tr_asprintf(_("%s brings cuDNN from pip (%s%s); the newest release cudaup knows in that range is %s. %s"),
                                                    o->title, o->lib_pkg, range, V(&pick->version, b1, sizeof(b1)), note)
                                   : cu_tr_asprintf(_("%s brings cuDNN from pip (%s%s); the newest release cudaup knows in that range, %s, is listed for every GPU here."),
                                                    o->title, o->lib_pkg, range, V(&pick->version, b1, sizeof(b1))));
        return;
    }
    /* pip would take the newest; the constraint holds it to every release of the one that fits
     * (9.10.2.* is 9.10.2.21 and any rebuild of it). */
    V(&pick->version, b1, sizeof(b1));
    char *pin = cu_xasprintf("%s==%s.*", o->lib_pkg, b1);
    cu_strv_push_owned(&o->constraints, pin);
    cu_strv_push_owned(&o->lib_reasons,
                       note[0] ? cu_tr_asprintf(_("%s asks pip for %s%s, and pip would take cuDNN %s or newer: %s So cudaup holds pip to %s (a constraints file), the newest cuDNN known to support every GPU here. %s"),
                                                o->title, o->lib_pkg, range, V(&newest->version, b2, sizeof(b2)), first_why, pin, note)
                               : cu_tr_asprintf(_("%s asks pip for %s%s, and pip would take cuDNN %s or newer: %s So cudaup holds pip to %s (a constraints file), the newest cuDNN whose support matrix lists every GPU here."),
                                                o->title, o->lib_pkg, range, V(&newest->version, b2, sizeof(b2)), first_why, pin));
    if (o->lib_row_note)
        cu_strv_push_owned(&o->lib_reasons,
                           cu_tr_asprintf(_("Where %s's own page and NVIDIA's cuDNN support matrix disagree, the plan keeps to what both vouch for: cuDNN %s or older on these GPUs (%s)."),
                                          o->title, V(&pick->version, b3, sizeof(b3)), o->lib_row_note));
}

void
rs_judge_libs(struct rs *r, struct fwopt *o)
{
    if (!o->bundled || !r->constrained || !any_gpu_known(r) || o->code_class == CODE_NO_FIT)
        return;
    if (o->lib_pkg)
        judge_range(r, o);
    else
        judge_pinned(r, o);
}

/* ---- the rows of framework_wheels ---------------------------------------------------------- */

const struct cu_cat_fw_wheel *
rs_find_wheel(const struct rs *r, const char *framework, const char *tag, const struct cu_version *v, bool exact)
{
    for (size_t i = 0; i < r->cat->wheels.n_fw; i++) {
        const struct cu_cat_fw_wheel *w = &r->cat->wheels.fw[i];
        if (strcmp(w->framework, framework) != 0 || (tag && (!w->tag || strcmp(w->tag, tag) != 0)))
            continue;
        if (exact ? cu_pipver_cmp(&w->version, v) == 0 : cu_version_matches(&w->version, v))
            return w;
    }
    return NULL;
}

const char *
rs_cudnn_req(const struct cu_cat_fw_wheel *w, const struct cu_cat_wheel_req **req)
{
    for (size_t i = 0; i < w->n_req; i++)
        if (strncmp(w->req[i].package, "nvidia-cudnn-", 13) == 0) {
            *req = &w->req[i];
            return w->req[i].package;
        }
    *req = NULL;
    return NULL;
}

/* ---- the CUDA family held together ---------------------------------------------------- */

#define MAX_HELD 64

/* The wheels of the CUDA family held, each with its spec ("==13.0.96.*"). */
struct held {
    char *pkg[MAX_HELD];
    char *text[MAX_HELD];
    struct cu_pipspec spec[MAX_HELD];
    const struct cu_pipspec *specs[MAX_HELD];
    size_t n;
};

static const char *
held_spec(const struct held *h, const char *pkg)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcmp(h->pkg[i], pkg) == 0)
            return h->text[i];
    return NULL;
}

/* Note @pkg (its first @pkg_len bytes) as held by @spec, where it is a wheel of the CUDA family not noted yet. */
static void
held_add(const struct rs *r, struct held *h, const char *pkg, size_t pkg_len, const char *spec)
{
    char *name = cu_xstrndup(pkg, pkg_len);
    if (h->n >= MAX_HELD || held_spec(h, name) || !cu_catalog_cuda_wheel_known(&r->cat->wheels.pins, name) ||
        !cu_pipspec_parse(spec, &h->spec[h->n])) {
        free(name);
        return;
    }
    h->pkg[h->n] = name;
    h->text[h->n] = cu_xstrdup(spec);
    h->specs[h->n] = &h->spec[h->n];
    h->n++;
}

bool
rs_hold_cuda_family(const struct rs *r, const struct cu_cat_fw_wheel *const *wheels, size_t n, bool only_if_asked,
                    struct cu_strv *constraints, char **reason, char *why, size_t len)
{
    char b1[32], b2[32];
    struct held h;
    bool ok = true, all = false;
    memset(&h, 0, sizeof(h));
    *reason = NULL;
    /* What is held: the constraints' pins ("PKG==V", "PKG==V.*"), then the wheels' own exact pins. */
    for (size_t i = 0; i < constraints->n; i++) {
        const char *c = constraints->v[i], *eq = strstr(c, "==");
        if (eq)
            held_add(r, &h, c, (size_t)(eq - c), eq);
    }
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; wheels[k] && i < wheels[k]->n_req; i++) {
            const struct cu_cat_wheel_req *q = &wheels[k]->req[i];
            const struct cu_pipspec *one = &q->spec;
            struct cu_version v;
            bool prefix;
            if (cu_pipspec_pinned(&one, 1, &v, &prefix))
                held_add(r, &h, q->package, strlen(q->package), q->text);
        }
    const struct cu_cat_cuda_release *c =
        h.n ? cu_catalog_cuda_release_held(&r->cat->wheels.pins, (const char *const *)h.pkg, h.specs, h.n, &all) : NULL;
    struct cu_strv add;
    struct cu_buf named, tk;
    cu_strv_init(&add);
    cu_buf_init(&named);
    cu_buf_init(&tk);
    size_t more = 0;
    /* The release's wheels, then those whose version is vouched in this release alone (toolkit_only: CUDA 13's
     * nvidia-cuda-cccl, which nvidia-nvshmem-cu13 asks for with no bound; from 13.3 at cuda-toolkit's pin). */
    for (size_t w = 0; c && ok && w < c->n + c->n_toolkit_only; w++) {
        const struct cu_cat_cuda_wheel *e = w < c->n ? &c->wheels[w] : &c->toolkit_only[w - c->n];
        if (held_spec(&h, e->package))
            continue;
        /* A wheel of the environment that asks for it must take that release; one that asks a range is named. */
        const struct cu_cat_fw_wheel *asker = NULL;
        const struct cu_cat_wheel_req *aq = NULL;
        for (size_t k = 0; k < n && ok; k++) {
            const struct cu_cat_wheel_req *q = wheels[k] ? cu_fw_wheel_req(wheels[k], e->package) : NULL;
            if (q && !cu_pipspec_contains(&q->spec, &e->version)) {
                rs_format(why, len, _("%s asks for %s%s, while the CUDA wheels are held together at CUDA %s, the release of the runtime held, whose %s is %s."),
                          wheels[k]->pip, e->package, q->text, V(&c->release, b1, sizeof(b1)), e->package,
                          V(&e->version, b2, sizeof(b2)));
                ok = false;
            } else if (q && !asker) {
                asker = wheels[k];
                aq = q;
            }
        }
        char *pin = cu_xasprintf("%s==%s.*", e->package, V(&e->version, b1, sizeof(b1)));
        if (asker) {
            CU_AUTOFREE char *one = cu_tr_asprintf(_("%s (%s asks for %s%s)"), pin, asker->pip, e->package, aq->text);
            cu_buf_printf(&named, "%s%s", named.len ? _(", ") : "", one);
        } else
            more++;
        if (e->by_toolkit) /* no manifest has its version: cuda-toolkit's pin is the one source, said so */
            cu_buf_printf(&tk, "%s%s", tk.len ? _(", ") : "", pin);
        cu_strv_push_owned(&add, pin);
    }
    if (ok && add.n && (named.len || !only_if_asked)) {
        for (size_t i = 0; i < add.n; i++)
            cu_strv_push(constraints, add.v[i]);
        CU_AUTOFREE char *rest = more ? cu_tr_asprintf(ngettext_("%zu more wheel of the release", "%zu more wheels of the release",
                                                                 more), more)
                                      : NULL;
        CU_AUTOFREE char *list = cu_xasprintf("%s%s%s", named.len ? named.data : "", named.len && rest ? _(", and ") : "",
                                              rest ? rest : "");
        const char *rt = held_spec(&h, c->runtime);
        CU_AUTOFREE char *by_tk = tk.len ? cu_tr_asprintf(_("Held at NVIDIA's cuda-toolkit %s pins instead, where NVIDIA's manifest of that release gives no version: %s."),
                                                          V(&c->release, b1, sizeof(b1)), tk.data)
                                         : NULL;
        if (!c->n_unheld)
            *reason = cu_tr_asprintf(all ? _("Every nvidia-* wheel of CUDA %s is held at its version in NVIDIA's manifest of that release, the release of the runtime held (%s%s): %s. Unheld, pip would take the newest release of a wheel asked for with a lower bound only, whose PTX an older driver may not run.")
                                         : _("Every nvidia-* wheel of CUDA %s is held at its version in NVIDIA's manifest of that release, the release of the runtime held (%s%s; the other pins held are of several releases and stay as pinned): %s. Unheld, pip would take the newest release of a wheel asked for with a lower bound only, whose PTX an older driver may not run."),
                                     V(&c->release, b1, sizeof(b1)), c->runtime, rt ? rt : "", list);
        else {
            /* Not "every": a wheel of the family has no version vouched in this release; named, with why. */
            struct cu_buf un;
            cu_buf_init(&un);
            for (size_t i = 0; i < c->n_unheld; i++)
                cu_buf_printf(&un, "%s%s (%s)", i ? _(", ") : "", c->unheld[i].package, c->unheld[i].component);
            CU_AUTOFREE char *held = cu_tr_asprintf(all ? _("The nvidia-* wheels of CUDA %s that NVIDIA's data vouches a version for are held at their versions in NVIDIA's manifest of that release, the release of the runtime held (%s%s): %s. Unheld, pip would take the newest release of a wheel asked for with a lower bound only, whose PTX an older driver may not run.")
                                                        : _("The nvidia-* wheels of CUDA %s that NVIDIA's data vouches a version for are held at their versions in NVIDIA's manifest of that release, the release of the runtime held (%s%s; the other pins held are of several releases and stay as pinned): %s. Unheld, pip would take the newest release of a wheel asked for with a lower bound only, whose PTX an older driver may not run."),
                                                    V(&c->release, b1, sizeof(b1)), c->runtime, rt ? rt : "", list);
            CU_AUTOFREE char *not_held = cu_tr_asprintf(_("Not held: %s. NVIDIA's cuda-toolkit %s pins a release of it that is not its component's version in NVIDIA's manifest of that release but another release's (or bounds it only), so cudaup vouches no version of it for CUDA %s; where a wheel of the environment asks for it, pip takes the newest release that wheel accepts, which may be of a newer CUDA than the runtime held. That is a risk only for what the environment loads or compiles from it; cudaup has not recorded what it carries."),
                                                        un.data, V(&c->release, b1, sizeof(b1)), b1);
            *reason = cu_xasprintf("%s %s", held, not_held);
            cu_buf_fini(&un);
        }
        if (by_tk) {
            char *all_of = cu_xasprintf("%s %s", *reason, by_tk);
            free(*reason);
            *reason = all_of;
        }
    }
    for (size_t i = 0; i < h.n; i++) {
        free(h.pkg[i]);
        free(h.text[i]);
    }
    cu_strv_fini(&add);
    cu_buf_fini(&named);
    cu_buf_fini(&tk);
    return ok;
}
