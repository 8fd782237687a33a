/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/catalog/manifest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"

#define MAX_PACKAGES 4096
#define MAX_PATH_LEN 1024

const char *
cu_product_name(enum cu_product p)
{
    return p == CU_PRODUCT_CUDNN ? "cudnn" : p == CU_PRODUCT_PYTHON ? "python" : "cuda";
}

bool
cu_manifest_path_ok(const char *path)
{
    size_t len = path ? strlen(path) : 0;
    if (len == 0 || len > MAX_PATH_LEN || path[0] == '/' || path[len - 1] == '/')
        return false;
    for (const char *p = path; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (!(isalnum(c) || c == '.' || c == '_' || c == '-' || c == '+' || c == '/'))
            return false; /* no %, \, ?, #, :, spaces, control or non-ASCII bytes */
    }
    /* Every component must be a real name: no "", ".", "..". */
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        p += n;
        if (*p == '/')
            p++;
    }
    return true;
}

bool
cu_sha256_hex_ok(const char *s)
{
    if (!s || strlen(s) != 64)
        return false;
    for (const char *p = s; *p; p++)
        if (!isxdigit((unsigned char)*p))
            return false;
    return true;
}

static bool
key_ok(const char *k)
{
    size_t len = strlen(k);
    if (len == 0 || len > 128 || strcmp(k, ".") == 0 || strcmp(k, "..") == 0)
        return false;
    for (const char *p = k; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (!(isalnum(c) || c == '_' || c == '-' || c == '.' || c == '+'))
            return false;
    }
    return true;
}

static bool
is_platform_key(const char *k)
{
    return cu_str_has_prefix(k, "linux-") || cu_str_has_prefix(k, "windows-") ||
           strcmp(k, "source") == 0;
}

/* "size": the real manifests write a decimal string; a JSON integer is accepted too. */
static bool
parse_size(const json_t *v, uint64_t *out)
{
    if (json_is_integer(v)) {
        json_int_t n = json_integer_value(v);
        if (n < 0)
            return false;
        *out = (uint64_t)n;
        return true;
    }
    if (!json_is_string(v))
        return false; /* floats, booleans, null */
    return cu_parse_u64(json_string_value(v), (uint64_t)INT64_MAX, out);
}

struct ctx {
    const char *what;
    struct cu_error *err;
};

static enum cu_status
bad(struct ctx *c, const char *pkg, const char *plat, const char *detail)
{
    return cu_error_set(c->err, CU_E_INPUT, 0, _("%s: %s%s%s %s"), c->what, pkg, plat ? " " : "",
                        plat ? plat : "", detail);
}

static enum cu_status
parse_artifact(struct ctx *c, const char *pkg, const char *plat, const char *variant, json_t *o,
               struct cu_package *p)
{
    const char *rel = cu_json_str(o, "relative_path");
    const char *sha = cu_json_str(o, "sha256");
    uint64_t size = 0;

    if (!json_is_object(o))
        return bad(c, pkg, plat, _("is not an object"));
    if (!rel)
        return bad(c, pkg, plat, _("has no relative_path"));
    if (!cu_manifest_path_ok(rel))
        return bad(c, pkg, plat, _("has an unsafe relative_path (absolute, '..', a scheme or odd characters)"));
    if (!sha)
        return bad(c, pkg, plat, _("has no sha256 (an md5 alone is not enough)"));
    if (!cu_sha256_hex_ok(sha))
        return bad(c, pkg, plat, _("has a sha256 that is not 64 hex digits"));
    if (!parse_size(json_object_get(o, "size"), &size))
        return bad(c, pkg, plat, _("has a size that is not a whole number of bytes"));
    if (cu_str_has_prefix(plat, "linux-") && !cu_str_has_suffix(rel, ".tar.xz"))
        return bad(c, pkg, plat, _("is not a .tar.xz archive"));

    struct cu_artifact *a;
    p->artifacts = cu_xreallocarray(p->artifacts, p->n_artifacts + 1, sizeof(*p->artifacts));
    a = &p->artifacts[p->n_artifacts++];
    memset(a, 0, sizeof(*a));
    a->platform = cu_xstrdup(plat);
    a->variant = cu_xstrdup(variant);
    a->relative_path = cu_xstrdup(rel);
    for (int i = 0; i < 64; i++)
        a->sha256[i] = (char)tolower((unsigned char)sha[i]);
    a->sha256[64] = '\0';
    a->size = size;
    return CU_OK;
}

/* A level of a platform object that names the CUDA it was built for: "cuda12" (cuDNN), "cuda13.2"
 * (cuda_compat from CUDA 13.1 on).  *variant gets "12" or "13.2". */
static bool
cuda_level(const char *k, const char **variant)
{
    if (!cu_str_has_prefix(k, "cuda"))
        return false; /* before k + 4 is read: a key may be shorter */
    const char *v = k + 4;
    size_t major = strspn(v, "0123456789");
    if (major == 0 || major > 3)
        return false;
    if (v[major] == '.') {
        size_t minor = strspn(v + major + 1, "0123456789");
        if (minor == 0 || minor > 3 || v[major + 1 + minor])
            return false;
    } else if (v[major]) {
        return false;
    }
    *variant = v;
    return true;
}

/* A shape cudaup does not know is left out, said in the log and on the package, so that a plan
 * which needs it names why it is missing; it never refuses the manifest (NVIDIA adds shapes). */
static void
skip(struct ctx *c, struct cu_package *p, const char *plat, const char *why)
{
    CU_AUTOFREE char *shown = cu_str_sanitize(plat ? plat : "");
    char *note = plat ? cu_xasprintf(_("%s %s: %s, left out"), p->key, shown, why)
                      : cu_xasprintf(_("%s: %s, left out"), p->key, why);
    cu_log_info("%s: %s", c->what, note);
    p->skipped = cu_xreallocarray(p->skipped, p->n_skipped + 1, sizeof(*p->skipped));
    p->skipped[p->n_skipped].platform = plat ? cu_xstrdup(plat) : NULL;
    p->skipped[p->n_skipped].note = note;
    p->n_skipped++;
}

static enum cu_status
parse_package(struct ctx *c, const char *key, json_t *obj, struct cu_package *p)
{
    const char *k;
    json_t *v;
    enum cu_status st;

    p->key = cu_xstrdup(key);
    if (!json_is_object(obj)) {
        skip(c, p, NULL, _("not an object (a shape cudaup does not know)"));
        return CU_OK;
    }
    p->name = cu_xstrdup(cu_json_str(obj, "name"));
    p->version = cu_xstrdup(cu_json_str(obj, "version"));
    json_object_foreach(obj, k, v) {
        if (!is_platform_key(k))
            continue; /* name, license, license_path, cuda_variant, unknown keys */
        if (!json_is_object(v)) {
            skip(c, p, k, _("not an object (a shape cudaup does not know)"));
            continue;
        }
        /* A flat artifact; NVIDIA has also put variant levels beside one (cuDNN 9.27's windows-arm64). */
        if (json_object_get(v, "relative_path") && (st = parse_artifact(c, key, k, NULL, v, p)) != CU_OK)
            return st;
        /* One more level, by the CUDA it was built for: cuDNN's {"cuda12": {...}, "cuda13": {...}},
         * cuda_compat's {"cuda13.2": {...}}. */
        const char *vk;
        json_t *vv;
        size_t n = 0, other = 0;
        json_object_foreach(v, vk, vv) {
            const char *variant;
            if (!cuda_level(vk, &variant)) {
                other += !json_object_get(v, "relative_path");
                continue;
            }
            if (!json_is_object(vv)) {
                CU_AUTOFREE char *why = cu_xasprintf(_("its %s level is not an object"), vk);
                skip(c, p, k, why);
                continue;
            }
            if ((st = parse_artifact(c, key, k, variant, vv, p)) != CU_OK)
                return st;
            n++;
        }
        if (json_object_get(v, "relative_path"))
            continue;
        if (n == 0)
            skip(c, p, k, other ? _("a level that is neither an artifact nor a cudaNN variant")
                                : _("an empty entry"));
    }
    return CU_OK;
}

enum cu_status
cu_manifest_parse(enum cu_product product, const char *label, const char *data, size_t len,
                  struct cu_manifest **out, struct cu_error *err)
{
    json_t *root = NULL, *v;
    const char *k;
    enum cu_status st = CU_OK;
    CU_AUTOFREE char *what = cu_xasprintf(_("the manifest redistrib_%s.json (%s)"), label,
                                          cu_product_name(product));
    struct ctx c = {what, err};

    *out = NULL;
    if ((st = cu_json_parse_object(data, len, what, &root, err)) != CU_OK)
        return st;
    struct cu_manifest *m = cu_xcalloc(1, sizeof(*m));
    m->product = product;
    m->label = cu_xstrdup(label);
    cu_sha256_hex(data, len, m->sha256);

    const char *rl = NULL;
    v = json_object_get(root, "release_label");
    if (v && !json_is_string(v)) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s: release_label is not a string"), what);
        goto fail;
    }
    rl = v ? json_string_value(v) : NULL;
    if (rl && strcmp(rl, label) != 0) {
        st = cu_error_set(err, CU_E_INPUT, 0,
                          _("%s says it is release %s; an old manifest served under a new name is refused"),
                          what, rl);
        goto fail;
    }
    v = json_object_get(root, "release_product");
    if (v && (!json_is_string(v) || strcmp(json_string_value(v), cu_product_name(product)) != 0)) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s is not a %s manifest"), what,
                          cu_product_name(product));
        goto fail;
    }
    m->release_date = cu_xstrdup(cu_json_str(root, "release_date"));

    size_t n = 0;
    json_object_foreach(root, k, v) {
        if (cu_str_has_prefix(k, "release_"))
            continue;
        n++;
    }
    if (n > MAX_PACKAGES) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s lists more than %d packages"), what, MAX_PACKAGES);
        goto fail;
    }
    m->packages = cu_xcalloc(n + 1, sizeof(*m->packages));
    json_object_foreach(root, k, v) {
        if (cu_str_has_prefix(k, "release_"))
            continue;
        CU_AUTOFREE char *shown = cu_str_sanitize(k);
        if (!key_ok(k)) {
            st = cu_error_set(err, CU_E_INPUT, 0, _("%s: package name '%s' is not a plain name"), what,
                              shown);
            goto fail;
        }
        if ((st = parse_package(&c, k, v, &m->packages[m->n_packages++])) != CU_OK)
            goto fail;
    }
    json_decref(root);
    *out = m;
    return CU_OK;
fail:
    json_decref(root);
    cu_manifest_free(m);
    return st;
}

void
cu_manifest_free(struct cu_manifest *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_packages; i++) {
        struct cu_package *p = &m->packages[i];
        free(p->key);
        free(p->name);
        free(p->version);
        for (size_t k = 0; k < p->n_artifacts; k++) {
            free(p->artifacts[k].platform);
            free(p->artifacts[k].variant);
            free(p->artifacts[k].relative_path);
        }
        free(p->artifacts);
        for (size_t k = 0; k < p->n_skipped; k++) {
            free(p->skipped[k].platform);
            free(p->skipped[k].note);
        }
        free(p->skipped);
    }
    free(m->packages);
    free(m->label);
    free(m->release_date);
    free(m);
}

const struct cu_package *
cu_manifest_package(const struct cu_manifest *m, const char *key)
{
    for (size_t i = 0; i < m->n_packages; i++)
        if (strcmp(m->packages[i].key, key) == 0)
            return &m->packages[i];
    return NULL;
}

const struct cu_artifact *
cu_package_artifact(const struct cu_package *pkg, const char *platform, const char *variant)
{
    for (size_t i = 0; pkg && i < pkg->n_artifacts; i++) {
        const struct cu_artifact *a = &pkg->artifacts[i];
        if (strcmp(a->platform, platform) != 0)
            continue;
        if ((variant == NULL) != (a->variant == NULL))
            continue;
        if (variant && strcmp(variant, a->variant) != 0)
            continue;
        return a;
    }
    return NULL;
}

const char *
cu_package_skip_note(const struct cu_package *pkg, const char *platform)
{
    for (size_t i = 0; pkg && i < pkg->n_skipped; i++)
        if (!pkg->skipped[i].platform || (platform && strcmp(pkg->skipped[i].platform, platform) == 0))
            return pkg->skipped[i].note;
    return NULL;
}
