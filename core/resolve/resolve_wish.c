/* SPDX-License-Identifier: MIT */
/*
 * The wishes as the resolver reads them: their syntax, checked before anything runs
 * (cu_wishes_check), --cuda and --cudnn as a spec (auto, none, a prefix or an exact release),
 * --framework as a framework with its version and extra, and whether a release matches a spec.
 * It calls none of the resolver's other parts.
 */
#include "config.h"

#include "core/resolve/resolve.h"

#include <string.h>
#include <strings.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/near.h"
#include "core/base/pipreq.h"
#include "core/catalog/catalog_legacy.h"
#include "core/resolve/resolve_int.h"

bool
rs_parse_spec(const char *s, bool allow_none, int exact_parts, struct spec *out)
{
    memset(out, 0, sizeof(*out));
    if (!s || !*s || strcmp(s, "auto") == 0)
        return true;
    if (allow_none && strcmp(s, "none") == 0) {
        out->kind = SPEC_NONE;
        return true;
    }
    if (!cu_version_parse(s, &out->v))
        return false;
    out->kind = out->v.n >= exact_parts ? SPEC_EXACT : SPEC_PREFIX;
    return true;
}

bool
rs_parse_framework(const char *s, struct fwspec *out, const char **bad_version)
{
    static const struct {
        const char *name;
        enum cu_framework fw;
    } names[] = {{"tensorflow", CU_FW_TENSORFLOW}, {"keras", CU_FW_TENSORFLOW}, {"tf", CU_FW_TENSORFLOW},
                 {"pytorch", CU_FW_PYTORCH},       {"torch", CU_FW_PYTORCH},    {"jax", CU_FW_JAX},
                 {"none", CU_FW_NONE}};
    memset(out, 0, sizeof(*out));
    *bad_version = NULL;
    if (!s || !*s) {
        out->fw = CU_FW_TENSORFLOW;
        return true;
    }
    const char *eq = strstr(s, "==");
    size_t n = eq ? (size_t)(eq - s) : strlen(s);
    if (n > 5 && strncasecmp(s, "jax[", 4) == 0 && s[n - 1] == ']') {
        /* jax[cuda12-local]: the extra JAX's docs name (the wheel that uses a local CUDA). */
        size_t en = n - 5;
        if (en >= sizeof(out->extra) || strspn(s + 4, "abcdefghijklmnopqrstuvwxyz0123456789_-") != en)
            return false;
        memcpy(out->extra, s + 4, en);
        out->extra[en] = '\0';
        n = 3;
    }
    for (size_t i = 0; i < CU_N_ELEMENTS(names); i++) {
        if (strlen(names[i].name) != n || strncasecmp(s, names[i].name, n) != 0)
            continue;
        if (out->extra[0] && names[i].fw != CU_FW_JAX)
            continue;
        out->fw = names[i].fw;
        if (!eq)
            return true;
        /* A pre-release (2.22.0rc0) is a version too: planned only as the package index shows it (resolve_fw.c). */
        if (out->fw == CU_FW_NONE || (!cu_version_parse(eq + 2, &out->v) && !cu_pep440_parse(eq + 2, &out->v, out->pre))) {
            *bad_version = eq + 2;
            return false;
        }
        return true;
    }
    return false;
}

/* --framework @item names no framework: the error, and the name it most likely meant ("pytroch": pytorch),
 * its version kept ("jaxx==0.4": jax==0.4). */
static enum cu_status
unknown_framework(const char *item, struct cu_error *err)
{
    static const char *const words[] = {"tensorflow", "pytorch", "jax", "none", "keras", "torch"};
    cu_error_set(err, CU_E_USAGE, 0, _("--framework: '%s' is not one of tensorflow, pytorch, jax or none (add ==VERSION to pin one)."),
                 item);
    const char *eq = strstr(item, "==");
    CU_AUTOFREE char *name = cu_xstrndup(item, eq ? (size_t)(eq - item) : strlen(item));
    for (char *c = name; *c; c++)
        *c = *c >= 'A' && *c <= 'Z' ? (char)(*c - 'A' + 'a') : *c;
    const char *near = cu_nearest_word(name, words, CU_N_ELEMENTS(words));
    if (near && !(eq && strcmp(near, "none") == 0))
        cu_error_advise(err, _("Did you mean '%s%s'?"), near, eq ? eq : "");
    return CU_E_USAGE;
}

/* Split @s at @sep into trimmed items; false when one is empty. */
bool
rs_split_items(const char *s, const char *sep, struct cu_strv *out)
{
    struct cu_strv raw;
    cu_strv_init(&raw);
    cu_strv_split(&raw, s, sep);
    bool ok = raw.n > 0;
    /* cu_strv_split drops nothing: "a,,b" has an empty item, which is refused */
    size_t seps = 0;
    for (const char *p = s; *p; p++)
        seps += strchr(sep, *p) != NULL;
    ok = ok && raw.n == seps + 1;
    for (size_t i = 0; ok && i < raw.n; i++) {
        char *t = cu_str_strip(raw.v[i]);
        ok = *t != '\0';
        cu_strv_push(out, t);
    }
    cu_strv_fini(&raw);
    return ok;
}

/* Does @fs load cuDNN from the CUDA install, so that --cudnn none leaves it without one?  TensorFlow
 * on its own does (tensorflow, not tensorflow[and-cuda]; beside others cudaup plans the wheels that
 * bring it), and so does jax[cudaNN-local]; jax[cudaNN], JAX's default, brings cuDNN as a pip package. */
static bool
loads_system_cudnn(const struct fwspec *fs, bool beside_others)
{
    if (fs->fw == CU_FW_TENSORFLOW)
        return !beside_others;
    if (fs->fw == CU_FW_JAX)
        return strstr(fs->extra, "local") != NULL;
    return false;
}

enum cu_status
rs_multi_check(const char *framework, bool no_cudnn, struct cu_error *err)
{
    struct cu_strv groups;
    cu_strv_init(&groups);
    enum cu_status st = CU_OK;
    if (!rs_split_items(framework, ";", &groups) || groups.n > RS_MAX_GROUPS) {
        st = cu_error_set(err, CU_E_USAGE, 0,
                          _("--framework: '%s' is not a list of frameworks: name them separated by commas for one environment (pytorch,jax), or give --framework again for an environment each."),
                          framework);
        goto out;
    }
    for (size_t g = 0; g < groups.n && st == CU_OK; g++) {
        struct cu_strv items;
        cu_strv_init(&items);
        if (!rs_split_items(groups.v[g], ",", &items) || items.n > RS_MAX_PARTS) {
            st = cu_error_set(err, CU_E_USAGE, 0,
                              _("--framework: '%s' is not a list of frameworks: name them separated by commas for one environment (pytorch,jax), or give --framework again for an environment each."),
                              framework);
        }
        enum cu_framework seen[RS_MAX_PARTS];
        for (size_t i = 0; i < items.n && st == CU_OK; i++) {
            struct fwspec fs;
            const char *badv;
            if (!rs_parse_framework(items.v[i], &fs, &badv)) {
                st = badv ? cu_error_set(err, CU_E_USAGE, 0, _("--framework: '%s' is not a version."), badv)
                          : unknown_framework(items.v[i], err);
                break;
            }
            if (fs.fw == CU_FW_NONE && (items.n > 1 || groups.n > 1)) {
                st = cu_error_set(err, CU_E_USAGE, 0,
                                  _("--framework: none cannot go with a framework; name the frameworks, or none alone for CUDA and cuDNN only."));
                break;
            }
            for (size_t k = 0; k < i; k++)
                if (seen[k] == fs.fw)
                    st = cu_error_set(err, CU_E_USAGE, 0,
                                      _("--framework: %s is named twice for one environment in '%s'."),
                                      cu_framework_title(cu_framework_name(fs.fw)), groups.v[g]);
            seen[i] = fs.fw;
            if (st == CU_OK && no_cudnn && loads_system_cudnn(&fs, true))
                st = cu_error_set(err, CU_E_USAGE, 0,
                                  _("--cudnn none cannot go with --framework %s: it loads cuDNN from the CUDA install."),
                                  cu_framework_name(fs.fw));
        }
        cu_strv_fini(&items);
    }
out:
    cu_strv_fini(&groups);
    return st;
}

enum cu_status
cu_wishes_check(const struct cu_wishes *w, struct cu_error *err)
{
    struct spec s;
    struct fwspec fw;
    const char *badv;

    if (!rs_parse_spec(w->cuda, false, 3, &s))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--cuda: '%s' is not a version; use X.Y (the newest X.Y.*), an exact release such as 12.4.1, or auto."),
                            w->cuda);
    if (!rs_parse_spec(w->cudnn, true, 3, &s))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--cudnn: '%s' is not a version; use X.Y, an exact release such as 9.1.0, auto or none."),
                            w->cudnn);
    bool no_cudnn = s.kind == SPEC_NONE;
    if (w->toolkit && *w->toolkit && strcmp(w->toolkit, "system") != 0 && strcmp(w->toolkit, "wheels") != 0 &&
        strcmp(w->toolkit, "none") != 0)
        return cu_error_set(err, CU_E_USAGE, 0, _("--toolkit: '%s' is not one of system, wheels or none."), w->toolkit);
    if (w->toolkit && strcmp(w->toolkit, "none") == 0 && w->components && *w->components)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--components chooses parts of a CUDA toolkit, and --toolkit none installs none; leave one of them out."));
    if (w->framework && strpbrk(w->framework, ",;")) {
        /* Several frameworks: one environment (pytorch,jax), or one each (resolve_multi.c). */
        enum cu_status st = rs_multi_check(w->framework, no_cudnn, err);
        if (st != CU_OK)
            return st;
    } else if (!rs_parse_framework(w->framework, &fw, &badv)) {
        if (badv)
            return cu_error_set(err, CU_E_USAGE, 0, _("--framework: '%s' is not a version."), badv);
        return unknown_framework(w->framework, err);
    } else if (no_cudnn && loads_system_cudnn(&fw, false) &&
               !(fw.fw == CU_FW_TENSORFLOW && !(w->toolkit && strcmp(w->toolkit, "system") == 0) &&
                 !(w->components && *w->components))) {
        /* TensorFlow where its [and-cuda] wheels may be planned (no --toolkit system, no --components): they bring cuDNN
         * themselves, and a release without them is refused when resolved (rs_tf_own_cuda). */
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--cudnn none cannot go with --framework %s: it loads cuDNN from the CUDA install."),
                            cu_framework_name(fw.fw));
    }
    struct cu_version py;
    if (w->python && *w->python &&
        (!cu_version_parse(w->python, &py) || py.n != 2 || py.part[0] < 2 || py.part[0] > 3))
        return cu_error_set(err, CU_E_USAGE, 0, _("--python: '%s' is not a Python version such as 3.12."),
                            w->python);
    static const char *const platforms[] = {"linux-x86_64", "linux-sbsa", "linux-aarch64"};
    if (w->platform && *w->platform && strcmp(w->platform, "linux-x86_64") != 0 &&
        strcmp(w->platform, "linux-sbsa") != 0 && strcmp(w->platform, "linux-aarch64") != 0) {
        cu_error_set(err, CU_E_USAGE, 0, _("--platform: '%s' is not one of linux-x86_64, linux-sbsa or linux-aarch64."),
                     w->platform);
        const char *near = cu_nearest_word(w->platform, platforms, CU_N_ELEMENTS(platforms));
        if (near)
            cu_error_advise(err, _("Did you mean '%s'?"), near);
        return CU_E_USAGE;
    }
    if (w->components && *w->components) {
        const char *c = w->components;
        if (strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789_.+-,") != strlen(c) || c[0] == ',')
            return cu_error_set(err, CU_E_USAGE, 0,
                                _("--components: '%s' is not default, all, or a comma-separated list of component names."),
                                c);
    }
    return CU_OK;
}

bool
rs_spec_matches(const struct spec *s, const struct cu_version *v)
{
    switch (s->kind) {
    case SPEC_AUTO: return true;
    case SPEC_NONE: return false;
    case SPEC_PREFIX: return cu_version_matches(v, &s->v);
    case SPEC_EXACT: return cu_version_cmp(v, &s->v) == 0 || (s->v.n > v->n && cu_version_matches(&s->v, v));
    }
    return false;
}

void
rs_fail_cuda_absent(struct rs *r, int stage)
{
    char *const *labels;
    size_t n;
    struct cu_error e;
    const char *want = r->in->wishes->cuda;
    enum { MAX_SHOWN = 40 };
    struct cu_version have[MAX_SHOWN];
    bool runfile[MAX_SHOWN]; /* known only as a runfile of the catalog's: the mirror's manifests do not list it */
    size_t nh = 0;
    bool by_major = false;
    if (r->in->src->index(r->in->src->ctx, CU_PRODUCT_CUDA, &labels, &n, &e) != CU_OK)
        n = 0;
    const struct cu_cat_legacy *l = r->cat->legacy;
    size_t n_legacy = l ? l->n_cuda : 0;
    /* The newest release of each X.Y of the major asked for; when there is none of it, the newest of each major.
     * The mirror's manifests, and the releases NVIDIA serves as runfiles (CUDA 10.0-11.3), said apart: whether a
     * mirror holds a runfile is not known until it is asked. */
    for (int pass = 0; pass < 2 && !nh; pass++) {
        by_major = pass == 1;
        for (size_t i = 0; i < n + n_legacy; i++) {
            struct cu_version v;
            if (i < n ? !cu_version_parse(labels[i], &v) || v.n != 3 : (v = l->cuda[i - n].version, false))
                continue;
            if (!by_major && v.part[0] != r->cuda.v.part[0])
                continue;
            size_t k = 0;
            while (k < nh && !(have[k].part[0] == v.part[0] && (by_major || have[k].part[1] == v.part[1])))
                k++;
            if (k == nh && nh < MAX_SHOWN) {
                have[nh] = v;
                runfile[nh++] = i >= n;
            } else if (k < nh && cu_version_cmp(&v, &have[k]) > 0) {
                have[k] = v;
                runfile[k] = i >= n;
            }
        }
    }
    if (!nh) {
        rs_fail(r, stage, _("CUDA %s is not on the mirror."), want);
        return;
    }
    for (size_t i = 1; i < nh; i++) /* oldest first, as a list of versions reads */
        for (size_t k = i; k > 0 && cu_version_cmp(&have[k], &have[k - 1]) < 0; k--) {
            struct cu_version tmp = have[k];
            bool rt = runfile[k];
            have[k] = have[k - 1];
            runfile[k] = runfile[k - 1];
            have[k - 1] = tmp;
            runfile[k - 1] = rt;
        }
    struct cu_buf b, rb;
    cu_buf_init(&b);
    cu_buf_init(&rb);
    for (size_t i = 0; i < nh; i++) {
        char vb[32];
        struct cu_buf *to = runfile[i] ? &rb : &b;
        cu_buf_printf(to, "%s%s", to->len ? ", " : "", cu_version_format(&have[i], 0, vb, sizeof(vb)));
    }
    CU_AUTOFREE char *also = rb.len ? cu_xasprintf(_(" NVIDIA serves %s as runfiles (not in the mirror's manifests)."), rb.data)
                                    : cu_xstrdup("");
    if (!b.len)
        rs_fail(r, stage, _("CUDA %s is not on the mirror, whose manifests list no CUDA %u.%s"), want, r->cuda.v.part[0], also);
    else if (by_major)
        rs_fail(r, stage, _("CUDA %s is not on the mirror; it has CUDA %s (the newest of each major).%s"), want, b.data, also);
    else
        rs_fail(r, stage, _("CUDA %s is not on the mirror; of CUDA %u it has %s.%s"), want, r->cuda.v.part[0], b.data, also);
    cu_buf_fini(&b);
    cu_buf_fini(&rb);
}
