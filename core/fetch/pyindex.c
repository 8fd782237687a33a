/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "index"
#include "core/fetch/pyindex.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/pipreq.h"
#include "core/base/str.h"
#include "core/fetch/net.h"
#include "core/unpack/wheelzip.h"

#define PAGE_MAX (64u << 20)    /* jaxlib's JSON page is a few MiB */
#define METADATA_MAX (4u << 20) /* a wheel's METADATA: its description included */

struct cu_pyindex {
    struct cu_net net;
    char *url;   /* shown: no credentials, ends in '/' */
    char *fetch; /* the same with them, for curl */
    char *cache; /* CACHE/index/<hash>, or NULL */
    bool file;   /* a file:// index: read from the disk, never offline */
    long connect_ms, total_ms, ttl_s;
    const char *const *envp;
    int64_t deadline; /* cu_mono_ms() after which the index counts as offline; 0 before the first request */
    bool offline, answered;
    char why[600];
};

const char *
cu_pyindex_url(const struct cu_pyindex *ix)
{
    return ix->url;
}

bool
cu_pyindex_offline(const struct cu_pyindex *ix, const char **why)
{
    if (why)
        *why = ix->why;
    return ix->offline;
}

bool
cu_pyindex_answered(const struct cu_pyindex *ix)
{
    return ix->answered;
}

enum cu_status
cu_pyindex_new(const struct cu_pyindex_opts *o, struct cu_pyindex **out, struct cu_error *err)
{
    struct cu_pyindex *ix = cu_xcalloc(1, sizeof(*ix));
    const char *url = o->url && *o->url ? o->url : CU_PYINDEX_PYPI;
    size_t n = strlen(url);
    while (n > 0 && url[n - 1] == '/')
        n--;
    CU_AUTOFREE char *base = cu_xstrndup(url, n);
    enum cu_status st = cu_net_init(&ix->net, base, err);
    if (st != CU_OK) {
        cu_net_fini(&ix->net);
        free(ix);
        return st;
    }
    if (o->ca_cert && *o->ca_cert)
        ix->net.ca_cert = cu_xstrdup(o->ca_cert);
    CU_AUTOFREE char *pub = cu_url_public(base);
    ix->url = cu_xasprintf("%s/", pub);
    ix->fetch = cu_xasprintf("%s/", base);
    ix->file = strcmp(ix->net.scheme, "file") == 0;
    ix->connect_ms = o->connect_ms > 0 ? o->connect_ms : CU_PYINDEX_CONNECT_MS;
    ix->total_ms = o->total_ms > 0 ? o->total_ms : CU_PYINDEX_TOTAL_MS;
    ix->ttl_s = o->ttl_s > 0 ? o->ttl_s : CU_PYINDEX_TTL_S;
    ix->envp = o->envp;
    if (o->cache_dir && *o->cache_dir) {
        char h[65];
        cu_sha256_hex(ix->url, strlen(ix->url), h);
        h[16] = '\0';
        CU_AUTOFREE char *top = cu_path_join(o->cache_dir, "index");
        struct cu_error e;
        /* Another user's folder (or link) there would choose what cudaup believes: keep nothing then. */
        enum cu_status t = cu_trusted_dir(top, &e);
        if (t == CU_OK || t == CU_E_NOT_FOUND)
            ix->cache = cu_path_join(top, h);
        else
            cu_log_warn("%s", e.msg);
    }
    if (o->offline && !ix->file) {
        ix->offline = true;
        snprintf(ix->why, sizeof(ix->why), "%s", "--offline");
    }
    *out = ix;
    return CU_OK;
}

void
cu_pyindex_free(struct cu_pyindex *ix)
{
    if (!ix)
        return;
    cu_net_fini(&ix->net);
    free(ix->url);
    free(ix->fetch);
    free(ix->cache);
    free(ix);
}

/* ---- one request ------------------------------------------------------------------------ */

struct resp {
    long code;
    struct cu_buf body;
    size_t max;
    bool too_big;
    char etag[256], last_modified[128], content_type[160], content_range[128];
};

static size_t
on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
    struct resp *r = userdata;
    size_t n = size * nmemb;
    if (r->body.len + n > r->max) {
        r->too_big = true;
        return 0;
    }
    cu_buf_append(&r->body, data, n);
    return n;
}

static void
keep_header(const char *line, size_t n, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    if (n <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
        return;
    const char *v = line + nl + 1;
    size_t vl = n - nl - 1;
    while (vl && (*v == ' ' || *v == '\t'))
        v++, vl--;
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
        vl--;
    if (vl >= cap)
        vl = cap - 1;
    memcpy(out, v, vl);
    out[vl] = '\0';
}

static size_t
on_header(char *data, size_t size, size_t nmemb, void *userdata)
{
    struct resp *r = userdata;
    size_t n = size * nmemb;
    if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) /* a new answer (after a redirect): forget the last one's */
        r->etag[0] = r->last_modified[0] = r->content_type[0] = r->content_range[0] = '\0';
    keep_header(data, n, "ETag", r->etag, sizeof(r->etag));
    keep_header(data, n, "Last-Modified", r->last_modified, sizeof(r->last_modified));
    keep_header(data, n, "Content-Type", r->content_type, sizeof(r->content_type));
    keep_header(data, n, "Content-Range", r->content_range, sizeof(r->content_range));
    return n;
}

static void
go_offline(struct cu_pyindex *ix, const char *url, bool late, const char *why)
{
    if (ix->offline)
        return;
    ix->offline = true;
    CU_AUTOFREE char *host = cu_url_host(url);
    if (late)
        snprintf(ix->why, sizeof(ix->why), _("%s did not answer within %.0f s (--index-timeout)"), *host ? host : url,
                 (double)ix->total_ms / 1000);
    else
        snprintf(ix->why, sizeof(ix->why), _("%s could not be reached (%s)"), *host ? host : url, why);
    cu_log_info("%s", ix->why);
}

/*
 * GET @url with @hdrs (NULL-terminated).  CU_OK with any HTTP status in r->code; CU_E_NETWORK when no answer came
 * (then the index is offline) or the transfer broke; CU_E_INPUT when larger than r->max.
 */
static enum cu_status
get(struct cu_pyindex *ix, const char *url, const char *const *hdrs, const char *range, bool decode, struct resp *r,
    struct cu_error *err)
{
    if (ix->offline)
        return cu_error_set(err, CU_E_NETWORK, 0, _("The package index is offline for this run: %s."), ix->why);
    int64_t now = cu_mono_ms();
    if (!ix->deadline)
        ix->deadline = now + ix->total_ms;
    long left = (long)(ix->deadline - now);
    if (left <= 0) {
        go_offline(ix, url, true, NULL);
        return cu_error_set(err, CU_E_NETWORK, 0, _("The package index is offline for this run: %s."), ix->why);
    }
    CURL *c = curl_easy_init();
    if (!c)
        return cu_error_set(err, CU_E_NOMEM, 0, _("Cannot start a download"));
    char errbuf[CURL_ERROR_SIZE];
    struct curl_slist *hl = NULL;
    for (size_t i = 0; hdrs && hdrs[i]; i++)
        hl = curl_slist_append(hl, hdrs[i]);
    cu_net_setup_easy(&ix->net, c, url, errbuf);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, left < ix->connect_ms ? left : ix->connect_ms);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, left);
    if (hl)
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    if (range)
        curl_easy_setopt(c, CURLOPT_RANGE, range);
    if (decode) { /* an index page: compressed on the wire where the server will; a range never is */
        curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
        curl_easy_setopt(c, CURLOPT_HTTP_CONTENT_DECODING, 1L);
    }
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->code);
    curl_easy_cleanup(c);
    curl_slist_free_all(hl);
    cu_log_debug("GET %s%s%s: curl %d, HTTP %ld, %zu bytes", url, range ? " bytes=" : "", range ? range : "",
                 (int)rc, r->code, r->body.len);
    if (r->too_big)
        return cu_error_set(err, CU_E_INPUT, 0, _("%s is larger than %zu bytes"), url, r->max);
    if (rc == CURLE_OK) {
        ix->answered = true;
        return CU_OK;
    }
    const char *why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    if (rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY || rc == CURLE_COULDNT_CONNECT ||
        rc == CURLE_OPERATION_TIMEDOUT) {
        go_offline(ix, url, rc == CURLE_OPERATION_TIMEDOUT, why);
        return cu_error_set(err, CU_E_NETWORK, 0, _("The package index is offline for this run: %s."), ix->why);
    }
    return cu_error_set(err, CU_E_NETWORK, 0, _("Cannot read %s from the package index: %s"), url, why);
}

static void
resp_init(struct resp *r, size_t max)
{
    memset(r, 0, sizeof(*r));
    cu_buf_init(&r->body);
    r->max = max;
}

/* ---- the cache ---------------------------------------------------------------------------- */

static char *
cache_path(const struct cu_pyindex *ix, const char *kind, const char *key)
{
    return ix->cache ? cu_xasprintf("%s/%s/%s", ix->cache, kind, key) : NULL;
}

static void
cache_put(const struct cu_pyindex *ix, const char *path, const char *data, size_t len)
{
    if (!path)
        return;
    struct cu_error e;
    CU_AUTOFREE char *dir = cu_xstrndup(path, (size_t)(strrchr(path, '/') - path));
    if (cu_mkdir_p(dir, 0755, &e) != CU_OK || cu_write_file_atomic(path, data, len, 0644, &e) != CU_OK)
        cu_log_debug("cannot keep %s in the cache: %s", path, e.msg);
    (void)ix;
}

struct page_rec {
    json_t *j; /* {"url", "etag", "last_modified", "read_at", "json", "body"} */
};

static bool
page_load(const char *path, struct page_rec *p)
{
    char *data = NULL;
    size_t len = 0;
    struct cu_error e;
    p->j = NULL;
    if (!path || cu_read_file(path, PAGE_MAX * 2u, &data, &len, &e) != CU_OK)
        return false;
    json_error_t je;
    p->j = json_loadb(data, len, 0, &je);
    free(data);
    if (!json_is_object(p->j) || !json_is_string(json_object_get(p->j, "body")) ||
        !json_is_integer(json_object_get(p->j, "read_at"))) {
        json_decref(p->j);
        p->j = NULL;
        return false;
    }
    return true;
}

static void
page_store(const struct cu_pyindex *ix, const char *path, json_t *rec)
{
    char *s = path ? json_dumps(rec, JSON_COMPACT) : NULL;
    if (s)
        cache_put(ix, path, s, strlen(s));
    free(s);
}

static const char *
rec_str(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

/* ---- pages -------------------------------------------------------------------------------- */

static bool
is_json_type(const char *ct)
{
    return strcasestr(ct, "application/vnd.pypi.simple.v1+json") != NULL || strcasestr(ct, "application/json") != NULL;
}

static enum cu_status
from_record(const json_t *rec, const char *page_url, const char *name, bool cached, struct cu_pyproject **out,
            struct cu_error *err)
{
    const char *body = json_string_value(json_object_get(rec, "body"));
    enum cu_status st = cu_pyproject_parse(body, strlen(body), json_is_true(json_object_get(rec, "json")), page_url,
                                           name, out, err);
    if (st == CU_OK) {
        (*out)->cached = cached;
        (*out)->read_at = (time_t)json_integer_value(json_object_get(rec, "read_at"));
    }
    return st;
}

static enum cu_status
file_project(struct cu_pyindex *ix, const char *norm, struct cu_pyproject **out, struct cu_error *err)
{
    CU_AUTOFREE char *page_url = cu_xasprintf("%s%s/", ix->url, norm);
    CU_AUTOFREE char *index_url = cu_xasprintf("%sindex.html", page_url);
    CU_AUTOFREE char *path = cu_url_file_path(index_url);
    char *data = NULL;
    size_t len = 0;
    if (!path)
        return cu_error_set(err, CU_E_USAGE, 0, _("%s is not a folder cudaup can read"), ix->url);
    enum cu_status st = cu_read_file(path, PAGE_MAX, &data, &len, err);
    if (st == CU_E_NOT_FOUND)
        return cu_error_set(err, CU_E_NOT_FOUND, 0, _("The package index %s has no project %s"), ix->url, norm);
    if (st != CU_OK)
        return st;
    st = cu_pyproject_parse(data, len, false, page_url, norm, out, err);
    free(data);
    if (st == CU_OK) {
        (*out)->read_at = cu_now(ix->envp);
        ix->answered = true;
    }
    return st;
}

enum cu_status
cu_pyindex_project(struct cu_pyindex *ix, const char *name, struct cu_pyproject **out, struct cu_error *err)
{
    CU_AUTOFREE char *norm = cu_pep503_name(name, strlen(name));
    *out = NULL;
    if (ix->file)
        return file_project(ix, norm, out, err);
    CU_AUTOFREE char *page_url = cu_xasprintf("%s%s/", ix->url, norm);
    CU_AUTOFREE char *fetch_url = cu_xasprintf("%s%s/", ix->fetch, norm);
    CU_AUTOFREE char *key = cu_xasprintf("%s.json", norm);
    CU_AUTOFREE char *path = cache_path(ix, "pages", key);
    struct page_rec rec;
    bool have = page_load(path, &rec);
    time_t now = cu_now(ix->envp);
    enum cu_status st;
    if (have && (ix->offline || (now >= json_integer_value(json_object_get(rec.j, "read_at")) &&
                                 now - json_integer_value(json_object_get(rec.j, "read_at")) < ix->ttl_s))) {
        st = from_record(rec.j, page_url, norm, true, out, err);
        json_decref(rec.j);
        return st;
    }
    if (ix->offline) {
        return cu_error_set(err, CU_E_NETWORK, 0, _("The package index %s is offline for this run (%s), and cudaup's cache holds no page of %s."),
                            ix->url, ix->why, norm);
    }
    struct cu_strv hdrs;
    cu_strv_init(&hdrs);
    /* PEP 691: JSON where the index speaks it, else HTML (pip asks the same). */
    cu_strv_push(&hdrs, "Accept: application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01");
    if (have && *rec_str(rec.j, "etag"))
        cu_strv_push_owned(&hdrs, cu_xasprintf("If-None-Match: %s", rec_str(rec.j, "etag")));
    if (have && *rec_str(rec.j, "last_modified"))
        cu_strv_push_owned(&hdrs, cu_xasprintf("If-Modified-Since: %s", rec_str(rec.j, "last_modified")));
    struct resp r;
    resp_init(&r, PAGE_MAX);
    st = get(ix, fetch_url, (const char *const *)hdrs.v, NULL, true, &r, err);
    cu_strv_fini(&hdrs);
    if (st == CU_E_NETWORK && have) {
        /* No answer: the copy cudaup has, however old, rather than nothing (said by the caller, once). */
        st = from_record(rec.j, page_url, norm, true, out, err);
    } else if (st == CU_OK && r.code == 304 && have) {
        json_object_set_new(rec.j, "read_at", json_integer(now));
        page_store(ix, path, rec.j);
        st = from_record(rec.j, page_url, norm, true, out, err);
        if (st == CU_OK)
            (*out)->revalidated = true;
    } else if (st == CU_OK && r.code == 200) {
        bool json = is_json_type(r.content_type);
        st = cu_pyproject_parse(r.body.data, r.body.len, json, page_url, norm, out, err);
        if (st == CU_OK) {
            (*out)->read_at = now;
            json_t *n = json_pack("{s:s, s:s, s:s, s:I, s:b}", "url", page_url, "etag", r.etag, "last_modified",
                                  r.last_modified, "read_at", (json_int_t)now, "json", json);
            json_t *b = json_stringn(r.body.data, r.body.len);
            if (n && b) { /* a page that is not UTF-8 is used, not kept */
                json_object_set_new(n, "body", b);
                page_store(ix, path, n);
            } else {
                json_decref(b);
            }
            json_decref(n);
        }
    } else if (st == CU_OK && (r.code == 404 || r.code == 410)) {
        st = cu_error_set(err, CU_E_NOT_FOUND, 0, _("The package index %s has no project %s (HTTP %ld)"), ix->url,
                          norm, r.code);
    } else if (st == CU_OK) {
        st = cu_error_set(err, CU_E_NETWORK, 0, _("The package index answered HTTP %ld for %s"), r.code, page_url);
    }
    if (have)
        json_decref(rec.j);
    cu_buf_fini(&r.body);
    return st;
}

/* ---- a wheel's METADATA ------------------------------------------------------------------- */

struct ranged {
    struct cu_pyindex *ix;
    const char *url;
};

/* "bytes S-E/T" into its numbers; false when it is not that form. */
static bool
content_range(const char *s, uint64_t *a, uint64_t *b, uint64_t *total)
{
    unsigned long long x, y, z;
    char tail;
    if (sscanf(s, "bytes %llu-%llu/%llu%c", &x, &y, &z, &tail) != 3 || y < x || y >= z)
        return false;
    *a = x, *b = y, *total = z;
    return true;
}

static enum cu_status
range_read(void *ctx, uint64_t off, size_t len, bool from_end, struct cu_buf *out, uint64_t *total,
           struct cu_error *err)
{
    struct ranged *rg = ctx;
    char spec[64];
    if (from_end)
        snprintf(spec, sizeof(spec), "-%zu", len);
    else
        snprintf(spec, sizeof(spec), "%llu-%llu", (unsigned long long)off, (unsigned long long)(off + len - 1));
    struct resp r;
    resp_init(&r, len + 1);
    enum cu_status st = get(rg->ix, rg->url, NULL, spec, false, &r, err);
    uint64_t a = 0, b = 0, t = 0;
    if (st == CU_OK && r.code == 200 && from_end && r.body.len <= len) {
        /* The whole file, smaller than what was asked for: as good as the range. */
        a = 0, t = r.body.len, b = t ? t - 1 : 0;
    } else if (st == CU_OK && r.code == 200) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s: the server does not honour HTTP Range requests (it sent the whole file)"),
                          rg->url);
    } else if (st == CU_E_INPUT && r.too_big) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s: the server does not honour HTTP Range requests (it sent the whole file)"),
                          rg->url);
    } else if (st == CU_OK && r.code != 206) {
        st = cu_error_set(err, r.code == 404 ? CU_E_NOT_FOUND : CU_E_NETWORK, 0, _("%s: the server answered HTTP %ld to a Range request"),
                          rg->url, r.code);
    } else if (st == CU_OK && !content_range(r.content_range, &a, &b, &t)) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s: the server's Content-Range \"%s\" is not one cudaup can read"), rg->url,
                          r.content_range);
    }
    if (st == CU_OK) {
        uint64_t want_a = from_end ? (t > len ? t - len : 0) : off, want_b = from_end ? t - 1 : off + len - 1;
        if (a != want_a || b != want_b || r.body.len != b - a + 1)
            st = cu_error_set(err, CU_E_INPUT, 0,
                              _("%s: the server answered bytes %llu-%llu (%zu of them) where %llu-%llu were asked for"),
                              rg->url, (unsigned long long)a, (unsigned long long)b, r.body.len,
                              (unsigned long long)want_a, (unsigned long long)want_b);
    }
    if (st == CU_OK) {
        cu_buf_reset(out);
        cu_buf_append(out, r.body.data, r.body.len);
        *total = t;
    }
    cu_buf_fini(&r.body);
    return st;
}

static bool
sha_matches(const char *data, size_t len, const char *want)
{
    char got[65];
    if (!*want)
        return true;
    cu_sha256_hex(data, len, got);
    return strcmp(got, want) == 0;
}

/* A file:// wheel: its .metadata where listed, else the zip on the disk. */
static enum cu_status
file_metadata(const struct cu_pyfile *f, struct cu_buf *out, const char **how, struct cu_error *err)
{
    CU_AUTOFREE char *path = cu_url_file_path(f->url);
    if (!path)
        return cu_error_set(err, CU_E_INPUT, 0, _("%s is not a file cudaup can read"), f->url);
    if (f->core_metadata) {
        CU_AUTOFREE char *mpath = cu_xasprintf("%s.metadata", path);
        char *data = NULL;
        size_t len = 0;
        enum cu_status st = cu_read_file(mpath, METADATA_MAX, &data, &len, err);
        if (st == CU_OK && !sha_matches(data, len, f->metadata_sha256)) {
            free(data);
            return cu_error_set(err, CU_E_INPUT, 0, _("%s.metadata does not match the sha256 its index lists"), f->url);
        }
        if (st == CU_OK) {
            cu_buf_append(out, data, len);
            free(data);
            *how = _("its PEP 658 .metadata file");
            return CU_OK;
        }
    }
    CU_AUTOCLOSE int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cu_error_set(err, CU_E_NOT_FOUND, 0, _("%s does not exist"), f->url);
    struct cu_zip_reader rd = {&fd, cu_zip_read_fd};
    *how = _("the wheel's own METADATA");
    return cu_wheel_metadata(&rd, f->filename, METADATA_MAX, out, err);
}

enum cu_status
cu_pyindex_metadata(struct cu_pyindex *ix, const struct cu_pyfile *f, char **text, const char **how,
                    struct cu_error *err)
{
    char key[80];
    char h[65];
    *text = NULL;
    if (f->sha256[0])
        snprintf(key, sizeof(key), "%s.METADATA", f->sha256);
    else {
        cu_sha256_hex(f->url, strlen(f->url), h);
        snprintf(key, sizeof(key), "url-%s.METADATA", h);
    }
    CU_AUTOFREE char *path = cache_path(ix, "metadata", key);
    char *data = NULL;
    size_t len = 0;
    struct cu_error e;
    if (path && cu_read_file(path, METADATA_MAX, &data, &len, &e) == CU_OK) {
        *text = data;
        *how = _("cudaup's cache of what the index served");
        return CU_OK;
    }
    struct cu_buf b;
    cu_buf_init(&b);
    enum cu_status st = CU_E_NOT_FOUND;
    if (ix->file) {
        st = file_metadata(f, &b, how, err);
    } else if (ix->offline) {
        st = cu_error_set(err, CU_E_NETWORK, 0, _("The package index %s is offline for this run (%s), and cudaup's cache holds no METADATA of %s."),
                          ix->url, ix->why, f->filename);
    } else {
        if (f->core_metadata) {
            CU_AUTOFREE char *murl = cu_xasprintf("%s.metadata", f->url);
            struct resp r;
            resp_init(&r, METADATA_MAX);
            st = get(ix, murl, NULL, NULL, false, &r, err);
            if (st == CU_OK && r.code == 200 && !sha_matches(r.body.data, r.body.len, f->metadata_sha256))
                st = cu_error_set(err, CU_E_INPUT, 0, _("%s does not match the sha256 its index lists"), murl);
            else if (st == CU_OK && r.code == 200) {
                cu_buf_append(&b, r.body.data, r.body.len);
                *how = _("its PEP 658 .metadata file");
            } else if (st == CU_OK) {
                cu_log_info(_("%s: HTTP %ld; reading the wheel's METADATA through Range requests instead"), murl, r.code);
                st = CU_E_NOT_FOUND;
            }
            cu_buf_fini(&r.body);
        }
        if (st == CU_E_NOT_FOUND) {
            struct ranged rg = {ix, f->url};
            struct cu_zip_reader rd = {&rg, range_read};
            st = cu_wheel_metadata(&rd, f->filename, METADATA_MAX, &b, err);
            *how = _("HTTP Range requests into the wheel");
        }
    }
    if (st == CU_OK) {
        cache_put(ix, path, b.data, b.len);
        *text = cu_buf_steal(&b);
        return CU_OK;
    }
    cu_buf_fini(&b);
    return st;
}
