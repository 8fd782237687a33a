/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "mirror"
#include "core/fetch/mirror.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fsutil.h"
#include "core/fetch/cache.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/resolve/resolve.h"
#include "core/base/str.h"

#define MANIFEST_MAX (16u << 20)
#define INDEX_MAX (4u << 20)

struct loaded {
    enum cu_product product;
    char *label;
    struct cu_manifest *m;
    char *bytes;
    size_t len;
};

struct cu_mirror {
    struct cu_net net;
    char *cache; /* CACHE/manifests/<hash of base> or NULL */
    const struct cu_catalog *cat;
    struct cu_strv index[2];
    bool index_loaded[2], index_listed[2];
    char *probed_newest[2]; /* no listing: the newest release found by asking for it (probe) */
    struct loaded *loaded;
    size_t n_loaded;
    char *offline; /* why NVIDIA's server is not asked this run (--offline, or no network), or NULL */
};

enum cu_status
cu_mirror_new(const struct cu_mirror_opts *o, struct cu_mirror **out, struct cu_error *err)
{
    struct cu_mirror *m = cu_xcalloc(1, sizeof(*m));
    enum cu_status st = cu_net_init(&m->net, o->base_url, err);
    if (st != CU_OK) {
        cu_net_fini(&m->net);
        free(m);
        return st;
    }
    if (o->ca_cert && *o->ca_cert)
        m->net.ca_cert = cu_xstrdup(o->ca_cert);
    m->net.retries = o->retries;
    if (o->low_speed_time_s > 0)
        m->net.low_speed_time_s = o->low_speed_time_s;
    if (o->retry_base_ms > 0)
        m->net.retry_base_ms = o->retry_base_ms;
    CU_AUTOFREE char *local = cu_net_local_path(&m->net, "", NULL);
    if (local) {
        /* "file:///srv/m" + "//redist": the folder itself is the part before. */
        char *cut = strstr(local, "//redist");
        if (cut)
            *cut = '\0';
        if (!cu_is_dir(local)) {
            cu_error_set(err, CU_E_USAGE, 0, _("The mirror folder %s does not exist."), local);
            cu_net_fini(&m->net);
            free(m);
            return CU_E_USAGE;
        }
    }
    m->cat = o->catalog;
    /* Another user's cache, or their link as it or inside it, would choose what cudaup reads and where it writes. */
    if (o->cache_dir && cu_cache_trusted(o->cache_dir, err) != CU_OK) {
        cu_net_fini(&m->net);
        free(m);
        return err->code;
    }
    if (o->cache_dir) {
        char h[65];
        cu_sha256_hex(m->net.base, strlen(m->net.base), h);
        h[16] = '\0';
        m->cache = cu_xasprintf("%s/manifests/%s", o->cache_dir, h);
    }
    cu_strv_init(&m->index[0]);
    cu_strv_init(&m->index[1]);
    *out = m;
    return CU_OK;
}

void
cu_mirror_free(struct cu_mirror *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_loaded; i++) {
        free(m->loaded[i].label);
        free(m->loaded[i].bytes);
        cu_manifest_free(m->loaded[i].m);
    }
    free(m->loaded);
    cu_strv_fini(&m->index[0]);
    cu_strv_fini(&m->index[1]);
    free(m->probed_newest[0]);
    free(m->probed_newest[1]);
    free(m->cache);
    free(m->offline);
    cu_net_fini(&m->net);
    free(m);
}

bool
cu_mirror_set_offline(struct cu_mirror *m, const char *why)
{
    if (!m->net.official || strcmp(m->net.scheme, "file") == 0) /* a folder is read offline too */
        return false;
    free(m->offline);
    m->offline = cu_xstrdup(why);
    return true;
}

const char *
cu_mirror_offline(const struct cu_mirror *m)
{
    return m->offline;
}

const struct cu_net *
cu_mirror_net(const struct cu_mirror *m)
{
    return &m->net;
}

static int
cmp_version_desc(const void *a, const void *b)
{
    return cu_version_strcmp(*(char *const *)b, *(char *const *)a);
}

/* Take "redistrib_12.4.1.json" apart; false unless the middle is a version. */
static bool
label_of(const char *name, char *out, size_t len)
{
    struct cu_version v;
    if (!cu_str_has_prefix(name, "redistrib_") || !cu_str_has_suffix(name, ".json"))
        return false;
    size_t n = strlen(name) - strlen("redistrib_") - strlen(".json");
    if (n == 0 || n >= len)
        return false;
    memcpy(out, name + strlen("redistrib_"), n);
    out[n] = '\0';
    return cu_version_parse(out, &v) && v.n >= 3;
}

static void
add_label(struct cu_strv *v, const char *label)
{
    if (!cu_strv_contains(v, label))
        cu_strv_push(v, label);
}

static bool
list_local(struct cu_mirror *m, enum cu_product p, struct cu_strv *out)
{
    CU_AUTOFREE char *dir = cu_net_local_path(&m->net, cu_product_name(p), NULL);
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *de;
    char label[64];
    if (!d)
        return false;
    while ((de = readdir(d)) != NULL)
        if (label_of(de->d_name, label, sizeof(label)))
            add_label(out, label);
    closedir(d);
    return true;
}

/* NVIDIA's server answers the folder URL with an HTML listing of hrefs. */
static bool
list_remote(struct cu_mirror *m, enum cu_product p, struct cu_strv *out)
{
    CU_AUTOFREE char *url = cu_net_url(&m->net, cu_product_name(p), "");
    struct cu_buf b;
    struct cu_error err;
    char label[64];
    bool ok;

    cu_buf_init(&b);
    ok = cu_net_fetch_small(&m->net, url, INDEX_MAX, &b, &err) == CU_OK;
    if (!ok)
        cu_log_debug("no listing at %s: %s", url, err.msg);
    for (const char *s = b.data; ok && (s = strstr(s, "redistrib_")) != NULL; s++) {
        size_t n = strspn(s + 10, "0123456789.");
        if (n == 0 || n > 40 || strncmp(s + 10 + n, "json", 4) != 0 || s[10 + n - 1] != '.')
            continue;
        CU_AUTOFREE char *name = cu_xstrndup(s, 10 + n + 4);
        if (label_of(name, label, sizeof(label)))
            add_label(out, label);
    }
    cu_buf_fini(&b);
    return ok && out->n > 0;
}

/*
 * No listing (nginx without autoindex, object storage, a hand-copied subset): ask for the
 * catalog's releases @v (newest first) one by one until the mirror holds one, and keep that one
 * and the older ones, each asked for again when the plan wants it.  True when one was found.
 */
static bool
probe(struct cu_mirror *m, enum cu_product p, struct cu_strv *v)
{
    for (size_t i = 0; i < v->n; i++) {
        const struct cu_manifest *man;
        struct cu_error e;
        enum cu_status st = cu_mirror_manifest(m, p, v->v[i], &man, &e);
        if (st != CU_OK && st != CU_E_NOT_FOUND)
            return false; /* a mirror that fails: said when the plan asks it */
        if (st == CU_E_NOT_FOUND)
            continue;
        cu_log_info(_("%s has no listing of %s/redist/; the newest release it holds is %s"), m->net.base,
                    cu_product_name(p), v->v[i]);
        m->probed_newest[p] = cu_xstrdup(v->v[i]);
        for (size_t k = 0; k < i; k++)
            free(v->v[k]);
        memmove(v->v, v->v + i, (v->n - i + 1) * sizeof(*v->v));
        v->n -= i;
        return true;
    }
    return false;
}

enum cu_status
cu_mirror_index(struct cu_mirror *m, enum cu_product p, char *const **labels, size_t *n,
                bool *from_listing, struct cu_error *err)
{
    (void)err;
    struct cu_strv *v = &m->index[p];
    if (!m->index_loaded[p]) {
        bool listed = strcmp(m->net.scheme, "file") == 0 ? list_local(m, p, v)
                      : m->offline                         ? false
                                                           : list_remote(m, p, v);
        if (!listed || v->n == 0) {
            /* No listing: the releases the catalog knows NVIDIA published. */
            if (p == CU_PRODUCT_CUDA) {
                for (size_t i = 0; i < m->cat->n_cuda; i++) {
                    if (!m->cat->cuda[i].archives)
                        continue;
                    char buf[32];
                    add_label(v, cu_version_format(&m->cat->cuda[i].version, 0, buf, sizeof(buf)));
                }
            } else {
                for (size_t i = 0; i < m->cat->n_cudnn; i++) {
                    char buf[32];
                    add_label(v, cu_version_format(&m->cat->cudnn[i].version, 0, buf, sizeof(buf)));
                }
            }
            listed = false;
            if (v->n > 1)
                qsort(v->v, v->n, sizeof(char *), cmp_version_desc);
            if (!m->net.official && !m->offline)
                probe(m, p, v);
        }
        if (v->n > 1)
            qsort(v->v, v->n, sizeof(char *), cmp_version_desc);
        m->index_loaded[p] = true;
        m->index_listed[p] = listed;
    }
    *labels = v->v;
    *n = v->n;
    if (from_listing)
        *from_listing = m->index_listed[p];
    return CU_OK;
}

static const char *
pinned_sha(const struct cu_mirror *m, enum cu_product p, const char *label)
{
    struct cu_version v;
    if (!cu_version_parse(label, &v))
        return NULL;
    if (p == CU_PRODUCT_CUDA) {
        const struct cu_cat_cuda *r = cu_catalog_cuda(m->cat, &v);
        return r ? r->manifest_sha256 : NULL;
    }
    for (size_t i = 0; i < m->cat->n_cudnn; i++)
        if (cu_version_cmp(&m->cat->cudnn[i].version, &v) == 0)
            return m->cat->cudnn[i].manifest_sha256;
    return NULL;
}

static struct loaded *
find_loaded(struct cu_mirror *m, enum cu_product p, const char *label)
{
    for (size_t i = 0; i < m->n_loaded; i++)
        if (m->loaded[i].product == p && strcmp(m->loaded[i].label, label) == 0)
            return &m->loaded[i];
    return NULL;
}

/*
 * A manifest that would not come: say what is wrong with the mirror the user named.  A base with
 * no listing of cuda/redist/ and no such manifest is not a mirror at all (a typo, a doubled
 * /compute): bad input, exit 2.  A mirror that does not answer is the mirror's problem, not the
 * internet's.
 */
static enum cu_status
mirror_fault(struct cu_mirror *m, enum cu_product p, const char *label, enum cu_status st, struct cu_error *err)
{
    if (m->net.official)
        return st;
    if (st == CU_E_NOT_FOUND && m->probed_newest[p]) {
        return cu_error_set(err, CU_E_NOT_FOUND, 0, _("The mirror %s has no %s %s (no %s/redist/redistrib_%s.json); the newest it holds is %s."),
                            m->net.base, p == CU_PRODUCT_CUDA ? "CUDA" : "cuDNN", label, cu_product_name(p), label,
                            m->probed_newest[p]);
    }
    if (st == CU_E_NOT_FOUND && m->index_loaded[p] && !m->index_listed[p]) {
        cu_error_set(err, CU_E_USAGE, 0,
                     _("%s does not look like a mirror: it has no listing of %s/redist/ and no redistrib_%s.json there."),
                     m->net.base, cu_product_name(p), label);
        cu_error_advise(err, _("Give the folder that holds cuda/ and cudnn/: NVIDIA's is https://developer.download.nvidia.com/compute, and a folder made by `cudaup mirror DIR` is served as its top (http://mirror:8080)."));
        return CU_E_USAGE;
    }
    if (st == CU_E_NETWORK)
        cu_error_advise_as(err, m->net.official ? CU_ADV_NONE : CU_ADV_MIRROR_DOWN, m->net.base,
                           _("Check that the mirror %s is up and that this machine reaches it, or run without --mirror to download from NVIDIA."),
                           m->net.base);
    return st;
}

enum cu_status
cu_mirror_manifest(struct cu_mirror *m, enum cu_product p, const char *label,
                   const struct cu_manifest **out, struct cu_error *err)
{
    struct loaded *l = find_loaded(m, p, label);
    struct cu_version v;
    char sha[65];
    enum cu_status st;

    *out = NULL;
    if (l) {
        *out = l->m;
        return CU_OK;
    }
    if (!cu_version_parse(label, &v))
        return cu_error_set(err, CU_E_USAGE, 0, _("'%s' is not a release label"), label);
    const char *pin = pinned_sha(m, p, label);
    CU_AUTOFREE char *name = cu_xasprintf("redistrib_%s.json", label);
    CU_AUTOFREE char *cache_dir = m->cache ? cu_xasprintf("%s/%s", m->cache, cu_product_name(p)) : NULL;
    CU_AUTOFREE char *cache_file = cache_dir ? cu_path_join(cache_dir, name) : NULL;
    char *bytes = NULL;
    size_t len = 0;
    bool from_cache = false;

    /* A cached copy is good when it still matches its pin (or there is none). */
    if (cache_file && cu_read_file(cache_file, MANIFEST_MAX, &bytes, &len, err) == CU_OK) {
        cu_sha256_hex(bytes, len, sha);
        if (!pin || strcmp(pin, sha) == 0) {
            from_cache = true;
        } else {
            cu_clear_ptr(&bytes, free);
        }
    }
    if (!bytes && m->offline)
        return cu_error_set(err, CU_E_NOT_FOUND, 0, _("NVIDIA's server is not asked this run (%s), and cudaup's cache holds no %s."),
                            m->offline, name);
    if (!bytes) {
        CU_AUTOFREE char *url = cu_net_url(&m->net, cu_product_name(p), name);
        struct cu_buf b;
        cu_buf_init(&b);
        st = cu_net_fetch_small(&m->net, url, MANIFEST_MAX, &b, err);
        if (st != CU_OK) {
            cu_buf_fini(&b);
            return mirror_fault(m, p, label, st, err);
        }
        len = b.len;
        bytes = cu_buf_steal(&b);
        cu_buf_fini(&b);
        cu_sha256_hex(bytes, len, sha);
    }
    if (pin && strcmp(pin, sha) != 0) {
        if (m->net.official) {
            free(bytes);
            return cu_error_set(err, CU_E_INPUT, 0,
                                _("The manifest %s from NVIDIA does not match the checksum cudaup knows for it (%.12s...); it was refused"),
                                name, pin);
        }
        cu_log_warn_once(_("The mirror's %s differs from the one NVIDIA published; using the mirror's"), name);
    }
    struct cu_manifest *man = NULL;
    st = cu_manifest_parse(p, label, bytes, len, &man, err);
    if (st != CU_OK) {
        free(bytes);
        return st;
    }
    if (cache_file && !from_cache) {
        struct cu_error e2;
        if (cu_mkdir_p(cache_dir, 0755, &e2) != CU_OK ||
            cu_write_file_atomic(cache_file, bytes, len, 0644, &e2) != CU_OK)
            cu_log_info("not caching %s: %s", name, e2.msg);
    }
    m->loaded = cu_xreallocarray(m->loaded, m->n_loaded + 1, sizeof(*m->loaded));
    m->loaded[m->n_loaded++] = (struct loaded){p, cu_xstrdup(label), man, bytes, len};
    *out = man;
    return CU_OK;
}

const char *
cu_mirror_manifest_bytes(struct cu_mirror *m, enum cu_product p, const char *label, size_t *len)
{
    struct loaded *l = find_loaded(m, p, label);
    if (!l)
        return NULL;
    *len = l->len;
    return l->bytes;
}

static enum cu_status
src_index(void *ctx, enum cu_product p, char *const **labels, size_t *n, struct cu_error *err)
{
    return cu_mirror_index(ctx, p, labels, n, NULL, err);
}

static enum cu_status
src_get(void *ctx, enum cu_product p, const char *label, const struct cu_manifest **out,
        struct cu_error *err)
{
    return cu_mirror_manifest(ctx, p, label, out, err);
}

void
cu_mirror_source(struct cu_mirror *m, struct cu_manifest_source *src)
{
    src->ctx = m;
    src->base_url = m->net.base;
    src->index = src_index;
    src->get = src_get;
    src->offline = m->offline;
}
