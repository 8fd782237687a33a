/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/fetch/pypage.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/pipreq.h"
#include "core/base/str.h"

void
cu_pyproject_free(struct cu_pyproject *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_files; i++) {
        free(p->files[i].filename);
        free(p->files[i].url);
        free(p->files[i].requires_python);
    }
    free(p->files);
    free(p->name);
    free(p->url);
    free(p);
}

/* Remove the dot segments of @path (RFC 3986 5.2.4), in place. */
static void
dot_segments(char *path)
{
    struct cu_strv out;
    cu_strv_init(&out);
    bool trailing = cu_str_has_suffix(path, "/") || cu_str_has_suffix(path, "/.") || cu_str_has_suffix(path, "/..");
    CU_AUTOFREE char *copy = cu_xstrdup(path);
    for (char *s = copy, *slash; s; s = slash ? slash + 1 : NULL) {
        slash = strchr(s, '/');
        if (slash)
            *slash = '\0';
        if (strcmp(s, ".") == 0 || *s == '\0')
            continue;
        if (strcmp(s, "..") == 0) {
            if (out.n)
                free(out.v[--out.n]), out.v[out.n] = NULL;
            continue;
        }
        cu_strv_push(&out, s);
    }
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < out.n; i++)
        cu_buf_printf(&b, "/%s", out.v[i]);
    if (trailing || out.n == 0)
        cu_buf_putc(&b, '/');
    /* never longer than the input */
    memcpy(path, b.data, b.len + 1);
    cu_buf_fini(&b);
    cu_strv_fini(&out);
}

char *
cu_url_resolve(const char *base, const char *href)
{
    const char *colon = strstr(href, "://");
    if (colon && strspn(href, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-") ==
                     (size_t)(colon - href))
        return cu_xstrdup(href);
    const char *sep = strstr(base, "://");
    if (!sep)
        return cu_xstrdup(href);
    const char *auth = sep + 3, *path = auth + strcspn(auth, "/?#");
    if (href[0] == '/' && href[1] == '/')
        return cu_xasprintf("%.*s%s", (int)(sep + 1 - base), base, href);
    CU_AUTOFREE char *frag = NULL;
    const char *h = href;
    const char *hash = strchr(href, '#');
    CU_AUTOFREE char *hpath = cu_xstrndup(h, hash ? (size_t)(hash - h) : strlen(h));
    frag = cu_xstrdup(hash ? hash : "");
    char *merged;
    if (hpath[0] == '/') {
        merged = cu_xstrdup(hpath);
    } else if (!*hpath) {
        merged = cu_xstrndup(path, strcspn(path, "?#"));
    } else {
        size_t bl = strcspn(path, "?#");
        const char *last = NULL;
        for (const char *q = path; q < path + bl; q++)
            if (*q == '/')
                last = q;
        merged = last ? cu_xasprintf("%.*s%s", (int)(last + 1 - path), path, hpath) : cu_xasprintf("/%s", hpath);
    }
    char *q = strchr(merged, '?');
    CU_AUTOFREE char *query = q ? cu_xstrdup(q) : cu_xstrdup("");
    if (q)
        *q = '\0';
    dot_segments(merged);
    char *out = cu_xasprintf("%.*s%s%s%s", (int)(path - base), base, merged, query, frag);
    free(merged);
    return out;
}

/* "sha256=HEX" into @out (lower case), else "". */
static void
hash_of(const char *s, char out[65])
{
    out[0] = '\0';
    if (!s || strncasecmp(s, "sha256=", 7) != 0 || strlen(s + 7) != 64 || strspn(s + 7, "0123456789abcdefABCDEF") != 64)
        return;
    for (int i = 0; i < 64; i++)
        out[i] = (char)tolower((unsigned char)s[7 + i]);
    out[64] = '\0';
}

/* The URL of a file: resolved, its #sha256= taken into @f. */
static void
set_url(struct cu_pyfile *f, const char *page_url, const char *href)
{
    char *u = cu_url_resolve(page_url, href);
    char *hash = strchr(u, '#');
    if (hash) {
        if (!f->sha256[0])
            hash_of(hash + 1, f->sha256);
        *hash = '\0';
    }
    f->url = u;
}

static char *
basename_of(const char *url)
{
    const char *s = strrchr(url, '/');
    return cu_xstrdup(s ? s + 1 : url);
}

static enum cu_status
parse_json(const char *body, size_t len, const char *page_url, struct cu_pyproject *p, struct cu_error *err)
{
    json_error_t je;
    json_t *root = json_loadb(body, len, 0, &je);
    enum cu_status st = CU_OK;
    if (!json_is_object(root)) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("The index page %s is not JSON (line %d: %s)"), page_url, je.line,
                          je.text);
        goto out;
    }
    const char *api = json_string_value(json_object_get(json_object_get(root, "meta"), "api-version"));
    const json_t *files = json_object_get(root, "files");
    if (!api || strncmp(api, "1.", 2) != 0 || !json_is_array(files)) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("The index page %s is not PEP 691 JSON of API version 1"), page_url);
        goto out;
    }
    p->files = cu_xcalloc(json_array_size(files) + 1, sizeof(*p->files));
    for (size_t i = 0; i < json_array_size(files); i++) {
        const json_t *o = json_array_get(files, i);
        const char *fn = json_string_value(json_object_get(o, "filename"));
        const char *url = json_string_value(json_object_get(o, "url"));
        if (!fn || !url || !*fn || strchr(fn, '/')) {
            st = cu_error_set(err, CU_E_INPUT, 0, _("The index page %s has a file entry without a name or URL"),
                              page_url);
            goto out;
        }
        struct cu_pyfile *f = &p->files[p->n_files++];
        f->filename = cu_xstrdup(fn);
        const char *sha = json_string_value(json_object_get(json_object_get(o, "hashes"), "sha256"));
        if (sha) {
            CU_AUTOFREE char *h = cu_xasprintf("sha256=%s", sha);
            hash_of(h, f->sha256);
        }
        set_url(f, page_url, url);
        const json_t *y = json_object_get(o, "yanked");
        f->yanked = json_is_true(y) || json_is_string(y);
        const json_t *cm = json_object_get(o, "core-metadata");
        if (!cm)
            cm = json_object_get(o, "dist-info-metadata");
        f->core_metadata = json_is_true(cm) || json_is_object(cm);
        const char *msha = json_string_value(json_object_get(cm, "sha256"));
        if (msha) {
            CU_AUTOFREE char *h = cu_xasprintf("sha256=%s", msha);
            hash_of(h, f->metadata_sha256);
        }
        const char *rp = json_string_value(json_object_get(o, "requires-python"));
        f->requires_python = rp ? cu_xstrdup(rp) : NULL;
    }
out:
    json_decref(root);
    return st;
}

/* Decode the few HTML entities an index writes (&lt; &gt; &amp; &quot; &#39; &#NN; &#xNN;). */
static char *
unescape(const char *s, size_t n)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '&') {
            cu_buf_putc(&b, s[i]);
            continue;
        }
        static const struct {
            const char *e;
            char c;
        } ents[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&#39;", '\''}, {"&apos;", '\''}};
        bool done = false;
        for (size_t k = 0; k < CU_N_ELEMENTS(ents) && !done; k++) {
            size_t el = strlen(ents[k].e);
            if (i + el <= n && strncmp(s + i, ents[k].e, el) == 0) {
                cu_buf_putc(&b, ents[k].c);
                i += el - 1;
                done = true;
            }
        }
        if (!done && i + 3 < n && s[i + 1] == '#') {
            const char *semi = memchr(s + i, ';', n - i);
            unsigned long v = 0;
            char *end = NULL;
            if (semi) {
                CU_AUTOFREE char *num = cu_xstrndup(s + i + 2, (size_t)(semi - s - i - 2));
                v = (num[0] == 'x' || num[0] == 'X') ? strtoul(num + 1, &end, 16) : strtoul(num, &end, 10);
                if (end && !*end && v > 0 && v < 128) {
                    cu_buf_putc(&b, (char)v);
                    i = (size_t)(semi - s);
                    done = true;
                }
            }
        }
        if (!done)
            cu_buf_putc(&b, '&');
    }
    return cu_buf_steal(&b);
}

/* The value of attribute @name in the tag text [@a, @e), or NULL; *present says whether it is there at all. */
static char *
attr(const char *a, const char *e, const char *name, bool *present)
{
    size_t nl = strlen(name);
    *present = false;
    for (const char *q = a; q < e;) {
        while (q < e && isspace((unsigned char)*q))
            q++;
        const char *ks = q;
        while (q < e && !isspace((unsigned char)*q) && *q != '=' && *q != '>')
            q++;
        size_t kl = (size_t)(q - ks);
        while (q < e && isspace((unsigned char)*q))
            q++;
        const char *vs = NULL;
        size_t vl = 0;
        if (q < e && *q == '=') {
            q++;
            while (q < e && isspace((unsigned char)*q))
                q++;
            if (q < e && (*q == '"' || *q == '\'')) {
                char quote = *q++;
                vs = q;
                while (q < e && *q != quote)
                    q++;
                vl = (size_t)(q - vs);
                if (q < e)
                    q++;
            } else {
                vs = q;
                while (q < e && !isspace((unsigned char)*q) && *q != '>')
                    q++;
                vl = (size_t)(q - vs);
            }
        }
        if (kl == nl && strncasecmp(ks, name, nl) == 0) {
            *present = true;
            return vs ? unescape(vs, vl) : cu_xstrdup("");
        }
        if (kl == 0 && q < e)
            q++;
    }
    return NULL;
}

static enum cu_status
parse_html(const char *body, size_t len, const char *page_url, struct cu_pyproject *p, struct cu_error *err)
{
    CU_AUTOFREE char *text = cu_xstrndup(body, len);
    size_t cap = 16;
    bool any_tag = strcasestr(text, "<html") || strcasestr(text, "<body") || strcasestr(text, "<a ");
    if (!any_tag || memchr(body, '\0', len))
        return cu_error_set(err, CU_E_INPUT, 0, _("The index page %s is not an HTML page of links (PEP 503)"), page_url);
    p->files = cu_xcalloc(cap + 1, sizeof(*p->files));
    for (const char *s = text; (s = strcasestr(s, "<a")) != NULL;) {
        if (!isspace((unsigned char)s[2])) {
            s += 2;
            continue;
        }
        const char *gt = strchr(s, '>');
        if (!gt)
            break;
        const char *close = strcasestr(gt, "</a>");
        bool present;
        CU_AUTOFREE char *href = attr(s + 2, gt, "href", &present);
        if (!href || !*href) {
            s = gt + 1;
            continue;
        }
        if (p->n_files == cap) {
            cap *= 2;
            p->files = cu_xreallocarray(p->files, cap + 1, sizeof(*p->files));
            memset(&p->files[p->n_files], 0, (cap + 1 - p->n_files) * sizeof(*p->files));
        }
        struct cu_pyfile *f = &p->files[p->n_files++];
        set_url(f, page_url, href);
        CU_AUTOFREE char *raw = close ? unescape(gt + 1, (size_t)(close - gt - 1)) : NULL;
        if (raw)
            cu_str_strip(raw);
        f->filename = raw && *raw && !strchr(raw, '/') ? cu_xstrdup(raw) : basename_of(f->url);
        CU_AUTOFREE char *y = attr(s + 2, gt, "data-yanked", &present);
        f->yanked = present;
        CU_AUTOFREE char *cm = attr(s + 2, gt, "data-core-metadata", &present);
        if (!present) {
            free(cm);
            cm = attr(s + 2, gt, "data-dist-info-metadata", &present);
        }
        f->core_metadata = present && strcasecmp(cm, "false") != 0;
        if (present)
            hash_of(cm, f->metadata_sha256);
        CU_AUTOFREE char *rp = attr(s + 2, gt, "data-requires-python", &present);
        f->requires_python = present ? cu_steal_ptr(&rp) : NULL;
        s = close ? close + 4 : gt + 1;
    }
    return CU_OK;
}

enum cu_status
cu_pyproject_parse(const char *body, size_t len, bool json, const char *page_url, const char *name,
                   struct cu_pyproject **out, struct cu_error *err)
{
    struct cu_pyproject *p = cu_xcalloc(1, sizeof(*p));
    p->name = cu_pep503_name(name, strlen(name));
    p->url = cu_xstrdup(page_url);
    p->json = json;
    enum cu_status st = json ? parse_json(body, len, page_url, p, err) : parse_html(body, len, page_url, p, err);
    if (st != CU_OK) {
        cu_pyproject_free(p);
        *out = NULL;
        return st;
    }
    *out = p;
    return CU_OK;
}
