/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "net"
#include "core/fetch/net.h"

#include <ctype.h>
#include <fcntl.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/parse.h"

void
cu_net_global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

void
cu_net_global_fini(void)
{
    curl_global_cleanup();
}

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decode %XX in a file:// path; false on a malformed escape or an encoded NUL or '/'. */
static bool
percent_decode(const char *in, char **out)
{
    char *o = cu_xmalloc(strlen(in) + 1), *d = o;
    for (const char *p = in; *p; p++) {
        if (*p != '%') {
            *d++ = *p;
            continue;
        }
        int a = hexval(p[1]), b = a >= 0 ? hexval(p[2]) : -1;
        if (a < 0 || b < 0 || (a == 0 && b == 0) || (a * 16 + b) == '/') {
            free(o);
            return false;
        }
        *d++ = (char)(a * 16 + b);
        p += 2;
    }
    *d = '\0';
    *out = o;
    return true;
}

/* Where the user:password@ of @url ends (its '@'), or NULL when it has none. */
static const char *
userinfo_end(const char *url)
{
    const char *sep = strstr(url, "://");
    if (!sep)
        return NULL;
    const char *auth = sep + 3, *at = NULL;
    for (const char *q = auth; *q && *q != '/' && *q != '?' && *q != '#'; q++)
        if (*q == '@')
            at = q;
    return at;
}

char *
cu_url_public(const char *url)
{
    const char *at = userinfo_end(url);
    if (!at)
        return cu_xstrdup(url);
    const char *auth = strstr(url, "://") + 3;
    return cu_xasprintf("%.*s%s", (int)(auth - url), url, at + 1);
}

char *
cu_url_host(const char *url)
{
    const char *sep = strstr(url, "://");
    if (!sep)
        return cu_xstrdup("");
    const char *at = userinfo_end(url), *h = at ? at + 1 : sep + 3;
    size_t n = h[0] == '[' ? strcspn(h, "]/") + (strchr(h, ']') ? 1 : 0) : strcspn(h, ":/?#");
    return cu_xstrndup(h, n);
}

/* The port of @url: the one written, else its scheme's (0 for file:// and unknown schemes). */
static long
url_port(const char *url)
{
    const char *sep = strstr(url, "://");
    if (!sep)
        return 0;
    const char *at = userinfo_end(url), *h = at ? at + 1 : sep + 3;
    const char *end = h + strcspn(h, "/?#");
    const char *colon = NULL;
    for (const char *q = h[0] == '[' ? strchr(h, ']') : h; q && q < end; q++)
        if (*q == ':')
            colon = q;
    if (colon && colon + 1 < end) {
        long v = 0;
        for (const char *q = colon + 1; q < end; q++) {
            if (*q < '0' || *q > '9' || v > 65535)
                return -1;
            v = v * 10 + (*q - '0');
        }
        return v;
    }
    if ((size_t)(sep - url) == 5 && strncasecmp(url, "https", 5) == 0)
        return 443;
    if ((size_t)(sep - url) == 4 && strncasecmp(url, "http", 4) == 0)
        return 80;
    return 0;
}

bool
cu_net_same_origin(const struct cu_net *net, const char *url)
{
    if (!net->base || !url)
        return false;
    const char *a = strstr(net->base, "://"), *b = strstr(url, "://");
    if (!a || !b || a - net->base != b - url || strncasecmp(net->base, url, (size_t)(a - net->base)) != 0)
        return false;
    CU_AUTOFREE char *ha = cu_url_host(net->base);
    CU_AUTOFREE char *hb = cu_url_host(url);
    return strcasecmp(ha, hb) == 0 && url_port(net->base) == url_port(url);
}

bool
cu_net_on_mirror(const struct cu_net *net, const char *url)
{
    size_t n = net->base ? strlen(net->base) : 0;
    return n && url && strncmp(url, net->base, n) == 0 && (url[n] == '/' || url[n] == '\0');
}

char *
cu_url_userinfo(const char *url)
{
    const char *at = url ? userinfo_end(url) : NULL;
    if (!at)
        return NULL;
    const char *auth = strstr(url, "://") + 3;
    CU_AUTOFREE char *raw = cu_xstrndup(auth, (size_t)(at - auth));
    char *out = NULL;
    if (!percent_decode(raw, &out))
        out = cu_xstrdup(raw);
    return out;
}

enum cu_status
cu_net_init(struct cu_net *net, const char *base, struct cu_error *err)
{
    memset(net, 0, sizeof(*net));
    net->retries = CU_NET_RETRIES_DEFAULT;
    net->connect_timeout_s = 30;
    net->low_speed_time_s = 60;
    net->retry_base_ms = CU_NET_RETRY_BASE_MS;
    /* CUDAUP_TEST_VIRTUAL_WAITS (a test seam, README "Settings"): the schedule of back-offs is kept
     * and logged, but nothing waits, so that a test can check a minute of retries in a moment. */
    const char *vw = getenv("CUDAUP_TEST_VIRTUAL_WAITS");
    net->virtual_waits = vw && *vw && strcmp(vw, "0") != 0;
    if (!base || !*base)
        base = CU_NVIDIA_BASE_URL;

    CU_AUTOFREE char *b = base[0] == '/' ? cu_xasprintf("file://%s", base) : cu_xstrdup(base);
    size_t len = strlen(b);
    while (len > 0 && b[len - 1] == '/')
        b[--len] = '\0';
    const char *sep = strstr(b, "://");
    if (!sep)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("The mirror '%s' is not a URL; use https://HOST/PATH, http://HOST/PATH or file:///PATH."),
                            base);
    /* user:password@ goes to curl alone (CURLOPT_USERPWD): kept out of every URL that is shown,
     * logged or written down (record.json, plan --json, messages).  ~/.netrc serves too. */
    const char *auth = sep + 3, *slash = strchr(auth, '/');
    const char *at = NULL;
    for (const char *q = auth; *q && (!slash || q < slash); q++)
        if (*q == '@')
            at = q;
    if (at) {
        CU_AUTOFREE char *raw = cu_xstrndup(auth, (size_t)(at - auth));
        if (!percent_decode(raw, &net->userpwd))
            net->userpwd = cu_xstrdup(raw);
        char *w = b + (auth - b); /* b is ours to edit: drop "user:password@" */
        memmove(w, at + 1, strlen(at + 1) + 1);
    }
    CU_AUTOFREE char *scheme = cu_xstrndup(b, (size_t)(sep - b));
    for (char *p = scheme; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    if (strcmp(scheme, "https") != 0 && strcmp(scheme, "http") != 0 && strcmp(scheme, "file") != 0)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("The mirror '%s' uses %s://; cudaup downloads over https://, http:// or file:// only."),
                            b, scheme);
    if (strpbrk(sep + 3, "?#") || strpbrk(b, " \t\r\n"))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("The mirror '%s' has a query, a fragment or spaces; give the plain folder URL."),
                            b);
    if (strcmp(scheme, "file") == 0) {
        CU_AUTOFREE char *path = NULL;
        const char *rest = sep + 3;
        if (strncmp(rest, "localhost/", 10) == 0)
            rest += 9;
        if (rest[0] != '/' || !percent_decode(rest, &path))
            return cu_error_set(err, CU_E_USAGE, 0,
                                _("The mirror '%s' is not a file:// URL of an absolute folder."), b);
    } else if (!sep[3] || sep[3] == '/') {
        return cu_error_set(err, CU_E_USAGE, 0, _("The mirror '%s' has no host."), b);
    }
    net->base = cu_steal_ptr(&b);
    net->scheme = cu_steal_ptr(&scheme);
    /* CUDAUP_TEST_OFFICIAL_BASE (a test seam, README "Settings"): a base URL that is held to
     * NVIDIA's pinned manifests as NVIDIA's own server is. */
    const char *test_official = getenv("CUDAUP_TEST_OFFICIAL_BASE");
    CU_AUTOFREE char *to = test_official && *test_official ? cu_xstrdup(test_official) : NULL;
    for (size_t n = to ? strlen(to) : 0; n > 0 && to[n - 1] == '/'; n--)
        to[n - 1] = '\0';
    net->official = strcmp(net->base, CU_NVIDIA_BASE_URL) == 0 || (to && strcmp(net->base, to) == 0);
    if (strcmp(net->scheme, "https") == 0) {
        snprintf(net->protocols, sizeof(net->protocols), "https");
        snprintf(net->redir_protocols, sizeof(net->redir_protocols), "https");
    } else if (strcmp(net->scheme, "http") == 0) {
        snprintf(net->protocols, sizeof(net->protocols), "https,http");
        snprintf(net->redir_protocols, sizeof(net->redir_protocols), "https,http");
        cu_log_info_once(_("The mirror uses plain http; the checksums come from the same server."));
    } else {
        snprintf(net->protocols, sizeof(net->protocols), "file");
        snprintf(net->redir_protocols, sizeof(net->redir_protocols), "https");
    }
    return CU_OK;
}

void
cu_net_fini(struct cu_net *net)
{
    cu_clear_ptr(&net->base, free);
    cu_clear_ptr(&net->scheme, free);
    cu_clear_ptr(&net->userpwd, free);
    cu_clear_ptr(&net->ca_cert, free);
}

char *
cu_net_url(const struct cu_net *net, const char *product, const char *rel)
{
    return cu_xasprintf("%s/%s/redist/%s", net->base, product, rel ? rel : "");
}

char *
cu_url_file_path(const char *url)
{
    if (strncasecmp(url, "file://", 7) != 0)
        return NULL;
    const char *rest = url + 7;
    if (strncmp(rest, "localhost/", 10) == 0)
        rest += 9;
    char *path = NULL;
    if (rest[0] != '/' || !percent_decode(rest, &path))
        return NULL;
    return path;
}

char *
cu_net_local_path(const struct cu_net *net, const char *product, const char *rel)
{
    if (strcmp(net->scheme, "file") != 0)
        return NULL;
    const char *rest = net->base + strlen("file://");
    if (strncmp(rest, "localhost/", 10) == 0)
        rest += 9;
    char *dir = NULL;
    if (!percent_decode(rest, &dir))
        return NULL;
    char *p = cu_xasprintf("%s/%s/redist%s%s", dir, product, rel && *rel ? "/" : "", rel ? rel : "");
    free(dir);
    return p;
}

void
cu_net_setup_easy(const struct cu_net *net, void *h, const char *url, char *errbuf)
{
    CURL *c = h;
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, net->protocols);
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, net->redir_protocols);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, net->connect_timeout_s);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, net->low_speed_time_s);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "cudaup/" PACKAGE_VERSION);
    /* Identity only: the hash is over the bytes the server stores. */
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, NULL);
    curl_easy_setopt(c, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    curl_easy_setopt(c, CURLOPT_FAILONERROR, 0L);
    /*
     * Credentials from the base URL go to the base URL's own scheme, host and port alone (a URL the
     * mirror's connection fetches elsewhere, NVIDIA's repository file for one, gets none), else
     * ~/.netrc's for the host asked; curl sends neither to another host on a redirect.
     */
    curl_easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
    if (net->userpwd && cu_net_same_origin(net, url))
        curl_easy_setopt(c, CURLOPT_USERPWD, net->userpwd);
    curl_easy_setopt(c, CURLOPT_URL, url);
    /* Verification stays on: another CA bundle only says whom to trust. */
    if (net->ca_cert)
        curl_easy_setopt(c, CURLOPT_CAINFO, net->ca_cert);
    if (errbuf) {
        errbuf[0] = '\0';
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    }
}

long
cu_net_backoff_ms(const struct cu_net *net, unsigned retry, long retry_after_s, uint64_t rnd)
{
    long ms = net->retry_base_ms > 0 ? net->retry_base_ms : CU_NET_RETRY_BASE_MS;
    for (unsigned i = 1; i < retry && ms < CU_NET_BACKOFF_MAX_MS; i++)
        ms *= 2;
    if (ms > CU_NET_BACKOFF_MAX_MS && net->retry_base_ms < CU_NET_BACKOFF_MAX_MS)
        ms = CU_NET_BACKOFF_MAX_MS;
    ms = (long)((int64_t)ms * (750 + (int64_t)(rnd % 501)) / 1000);
    if (retry_after_s > 0 && retry_after_s * 1000 > ms)
        ms = retry_after_s > 60 ? 60000 : retry_after_s * 1000;
    return ms;
}

uint64_t
cu_net_jitter(void)
{
    /*
     * The system's random source: a clock read twice in one microsecond gave the same number twice
     * (issue 33).  getrandom() of 8 bytes from the urandom pool does not block once the pool is up;
     * where a seccomp filter refuses it, /dev/urandom; only where both fail, the clock and the process.
     */
    uint64_t z;
    if (getrandom(&z, sizeof(z), GRND_NONBLOCK) == (ssize_t)sizeof(z))
        return z;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, &z, sizeof(z));
        close(fd);
        if (n == (ssize_t)sizeof(z))
            return z;
    }
    z = (uint64_t)cu_mono_us() * 0x9E3779B97F4A7C15ull ^ ((uint64_t)getpid() << 32);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void
cu_net_wait(const struct cu_net *net, long ms)
{
    if (net->virtual_waits || ms <= 0)
        return;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

const char *
cu_net_resume_hint(void)
{
    return _("Run the same command again to resume: what was downloaded is kept.");
}

struct sink {
    struct cu_buf *buf;
    size_t max;
    bool too_big;
};

static size_t
write_cb(char *data, size_t size, size_t nmemb, void *userdata)
{
    struct sink *s = userdata;
    size_t n = size * nmemb;
    if (s->buf->len + n > s->max) {
        s->too_big = true;
        return 0;
    }
    cu_buf_append(s->buf, data, n);
    return n;
}

bool
cu_net_transient(int curl_code)
{
    switch ((CURLcode)curl_code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_WEIRD_SERVER_REPLY:
        return true;
    default:
        return false;
    }
}

static bool
transient(CURLcode rc, long code)
{
    if (rc == CURLE_OK)
        return code >= 500 || code == 408 || code == 429;
    return cu_net_transient((int)rc);
}

/*
 * Hosts that did not answer at all (no name, no connection) through a whole minute of retries in
 * this run.  The next small fetch from such a host tries once, without the minute again: a plan
 * asks a mirror for a few files one after another, and a dead or mistyped host would otherwise cost
 * a minute each.
 */
static struct {
    pthread_mutex_t mu;
    char *hosts[8];
    size_t n;
} silent = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};

static bool
no_answer(CURLcode rc)
{
    return rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY || rc == CURLE_COULDNT_CONNECT;
}

static bool
host_silent(const char *host, bool add)
{
    bool found = false;
    pthread_mutex_lock(&silent.mu);
    for (size_t i = 0; i < silent.n && !found; i++)
        found = strcmp(silent.hosts[i], host) == 0;
    if (add && !found && silent.n < CU_N_ELEMENTS(silent.hosts))
        silent.hosts[silent.n++] = cu_xstrdup(host);
    pthread_mutex_unlock(&silent.mu);
    return found;
}

enum cu_status
cu_net_fetch_small(const struct cu_net *net, const char *url, size_t max, struct cu_buf *out,
                   struct cu_error *err)
{
    CU_AUTOFREE char *host = cu_url_host(url);
    unsigned retries = *host && host_silent(host, false) ? 0 : net->retries;
    char errbuf[CURL_ERROR_SIZE];
    CURL *c = curl_easy_init();
    enum cu_status st = CU_OK;

    long waited = 0;

    if (!c)
        return cu_error_set(err, CU_E_NOMEM, 0, _("Cannot start a download"));
    for (unsigned attempt = 0;; attempt++) {
        struct sink s = {out, max, false};
        long code = 0;
        curl_off_t retry_after = 0;
        cu_buf_reset(out);
        curl_easy_reset(c);
        cu_net_setup_easy(net, c, url, errbuf);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_cb);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
        CURLcode rc = curl_easy_perform(c);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        curl_easy_getinfo(c, CURLINFO_RETRY_AFTER, &retry_after);
        cu_log_debug("GET %s: curl %d, HTTP %ld, %zu bytes", url, (int)rc, code, out->len);
        if (s.too_big) {
            st = cu_error_set(err, CU_E_INPUT, 0, _("%s is larger than %zu bytes"), url, max);
            break;
        }
        if (rc == CURLE_OK && (code == 200 || code == 0)) {
            st = CU_OK;
            break;
        }
        if (rc == CURLE_FILE_COULDNT_READ_FILE || (rc == CURLE_OK && (code == 404 || code == 410))) {
            if (cu_net_on_mirror(net, url))
                st = cu_error_set(err, CU_E_NOT_FOUND, 0, _("%s does not exist on the mirror"), url);
            else if (rc == CURLE_OK)
                st = cu_error_set(err, CU_E_NOT_FOUND, 0, _("%s does not exist on its server (HTTP %ld)"), url, code);
            else
                st = cu_error_set(err, CU_E_NOT_FOUND, 0, _("%s does not exist"), url);
            break;
        }
        char why[CURL_ERROR_SIZE + 64];
        if (rc == CURLE_OK)
            snprintf(why, sizeof(why), _("the server answered HTTP %ld"), code);
        else
            snprintf(why, sizeof(why), "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
        if (!transient(rc, code) || attempt >= retries) {
            if (no_answer(rc) && attempt > 0 && *host)
                host_silent(host, true);
            if (rc == CURLE_UNSUPPORTED_PROTOCOL)
                st = cu_error_set(err, CU_E_NETWORK, 0,
                                  _("Cannot download %s: it was redirected to a scheme cudaup refuses (%s)"), url, why);
            else if (attempt > 0)
                st = cu_error_set(err, CU_E_NETWORK, 0, _("Cannot download %s after %u attempts and %.0f s of waiting: %s"),
                                  url, attempt + 1, (double)waited / 1000, why);
            else
                st = cu_error_set(err, CU_E_NETWORK, 0, _("Cannot download %s: %s"), url, why);
            break;
        }
        long ms = cu_net_backoff_ms(net, attempt + 1, (long)retry_after, cu_net_jitter());
        /* Said once without -v, so that a minute of waiting does not look like a hang. */
        if (attempt == 0)
            cu_log_once(CU_LOG_WARN, CU_LOG_TAG, _("%s does not answer as it should (%s); cudaup tries again for up to about a minute (--retries)."),
                        *host ? host : url, why);
        cu_log_info(_("%s: %s; trying again in %.1f s (retry %u of %u)"), url, why, (double)ms / 1000, attempt + 1,
                    retries);
        cu_net_wait(net, ms);
        waited += ms;
    }
    curl_easy_cleanup(c);
    return st;
}
