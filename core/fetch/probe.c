/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "probe"
#include "core/fetch/probe.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/resolve/plan.h"
#include "core/base/str.h"

#define PROBE_TIMEOUT_S 30L /* a probe that hangs is no answer: the download will tell */

struct probe {
    struct cu_probe_item *it;
    CURL *h;
    bool ranged;       /* the second try: a GET of byte 0 (HEAD was refused) */
    bool cr_seen;      /* a Content-Range with a total */
    uint64_t cr_total;
    bool cut;          /* a 2xx body was cut off on purpose: its headers were all we wanted */
    char errbuf[CURL_ERROR_SIZE];
};

static size_t
header_cb(char *data, size_t size, size_t nmemb, void *ud)
{
    struct probe *p = ud;
    size_t n = size * nmemb;
    if (n > 5 && strncmp(data, "HTTP/", 5) == 0) {
        p->cr_seen = false; /* a new response (after a redirect) */
        return n;
    }
    if (n > 14 && strncasecmp(data, "Content-Range:", 14) == 0) {
        CU_AUTOFREE char *v = cu_xstrndup(data + 14, n - 14);
        unsigned long long a, b, total;
        if (sscanf(v, " bytes %llu-%llu/%llu", &a, &b, &total) == 3 || sscanf(v, " bytes */%llu", &total) == 1) {
            p->cr_seen = true;
            p->cr_total = total;
        }
    }
    return n;
}

static size_t
write_cb(char *data, size_t size, size_t nmemb, void *ud)
{
    struct probe *p = ud;
    (void)data;
    long code = 0;
    curl_easy_getinfo(p->h, CURLINFO_RESPONSE_CODE, &code);
    if (code / 100 == 2 && size * nmemb > 1) {
        p->cut = true; /* the whole file after all (a Range ignored): the headers said enough */
        return 0;
    }
    return size * nmemb; /* an error page, or the one byte asked for */
}

static bool
start(struct probe *p, const struct cu_net *net, CURLM *multi)
{
    p->h = curl_easy_init();
    if (!p->h)
        return false;
    p->cr_seen = p->cut = false;
    cu_net_setup_easy(net, p->h, p->it->url, p->errbuf);
    curl_easy_setopt(p->h, CURLOPT_TIMEOUT, PROBE_TIMEOUT_S);
    curl_easy_setopt(p->h, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(p->h, CURLOPT_HEADERDATA, p);
    curl_easy_setopt(p->h, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(p->h, CURLOPT_WRITEDATA, p);
    curl_easy_setopt(p->h, CURLOPT_PRIVATE, p);
    if (p->ranged)
        curl_easy_setopt(p->h, CURLOPT_RANGE, "0-0");
    else
        curl_easy_setopt(p->h, CURLOPT_NOBODY, 1L);
    if (curl_multi_add_handle(multi, p->h) != CURLM_OK) {
        curl_easy_cleanup(p->h);
        p->h = NULL;
        return false;
    }
    return true;
}

/* The size @total the server gave (or -1) against the manifest's. */
static void
judge_size(struct cu_probe_item *it, long code, int64_t total)
{
    it->http = code;
    it->verdict = CU_PROBE_OK;
    if (total < 0)
        return;
    it->found_size = (uint64_t)total; /* also where it fits: a size the source never published is learned here */
    if (it->size_is_limit ? (uint64_t)total > it->size : (uint64_t)total != it->size)
        it->verdict = CU_PROBE_SIZE;
}

/* One answer is in: a verdict, or (HEAD refused) true to ask again with a GET of byte 0. */
static bool
judge(struct probe *p, CURLcode rc)
{
    struct cu_probe_item *it = p->it;
    long code = 0;
    curl_off_t clen = -1;
    curl_easy_getinfo(p->h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(p->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &clen);
    cu_log_debug("%s %s: curl %d, HTTP %ld, Content-Length %lld%s", p->ranged ? "GET bytes=0-0" : "HEAD", it->url,
                 (int)rc, code, (long long)clen, p->cr_seen ? ", Content-Range" : "");
    it->verdict = CU_PROBE_UNKNOWN;
    it->http = code;
    if (rc != CURLE_OK && !(p->cut && rc == CURLE_WRITE_ERROR))
        return false; /* no answer, or none cudaup accepts (a redirect it refuses): the download says which */
    if (code == 404 || code == 410) {
        it->verdict = CU_PROBE_MISSING;
        return false;
    }
    if (!p->ranged) {
        if (code / 100 == 2) {
            judge_size(it, code, clen);
            return false;
        }
        /* HEAD refused (405, 501; 403 from storage that signs GET alone) or not understood: GET byte 0. */
        return code >= 400 && code < 500 ? code != 408 && code != 429 : code == 501;
    }
    if (code == 206 || code == 416)
        judge_size(it, code, p->cr_seen ? (int64_t)p->cr_total : -1);
    else if (code == 200)
        judge_size(it, code, clen);
    else if (code == 401 || code == 403)
        it->verdict = CU_PROBE_REFUSED;
    return false;
}

static void
probe_file(struct cu_probe_item *it)
{
    CU_AUTOFREE char *path = cu_url_file_path(it->url);
    struct stat st;
    it->http = 0;
    it->verdict = CU_PROBE_UNKNOWN;
    if (!path)
        return;
    if (stat(path, &st) != 0)
        it->verdict = errno == ENOENT || errno == ENOTDIR ? CU_PROBE_MISSING : CU_PROBE_UNKNOWN;
    else if (S_ISREG(st.st_mode))
        judge_size(it, 0, (int64_t)st.st_size);
}

static void
run_http(const struct cu_net *net, struct cu_probe_item *items, size_t n, unsigned parallel,
         const atomic_int *cancel)
{
    CURLM *multi = curl_multi_init();
    struct probe *ps = cu_xcalloc(n + 1, sizeof(*ps));
    size_t next = 0, active = 0;
    if (!multi) {
        free(ps);
        return; /* no answers: the downloads will tell */
    }
    for (size_t i = 0; i < n; i++)
        ps[i].it = &items[i];
    for (;;) {
        while (active < parallel && next < n) {
            struct probe *p = &ps[next++];
            if (strncasecmp(p->it->url, "file:", 5) == 0)
                probe_file(p->it);
            else if (start(p, net, multi))
                active++;
        }
        if (active == 0 || (cancel && atomic_load(cancel)))
            break;
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *msg;
        int q;
        while ((msg = curl_multi_info_read(multi, &q)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            struct probe *p = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&p);
            bool again = judge(p, msg->data.result);
            curl_multi_remove_handle(multi, p->h);
            curl_easy_cleanup(p->h);
            p->h = NULL;
            active--;
            if (again) {
                p->ranged = true;
                if (start(p, net, multi))
                    active++;
            }
        }
        curl_multi_poll(multi, NULL, 0, 100, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        if (ps[i].h) {
            curl_multi_remove_handle(multi, ps[i].h);
            curl_easy_cleanup(ps[i].h);
        }
    }
    curl_multi_cleanup(multi);
    free(ps);
}

/* What is wrong with @it, for a line of its own or the error of a single failure.  Caller frees. */
static char *
describe(const struct cu_probe_item *it)
{
    char b1[32], b2[32];
    switch (it->verdict) {
    case CU_PROBE_MISSING:
        if (it->http)
            return cu_tr_asprintf(_("%s is not on the mirror (HTTP %ld)"), it->url, it->http);
        return cu_tr_asprintf(_("%s is not on the mirror"), it->url);
    case CU_PROBE_REFUSED:
        return cu_tr_asprintf(_("Cannot download %s: the server answered HTTP %ld"), it->url, it->http);
    case CU_PROBE_SIZE:
        return cu_tr_asprintf(_("%s is %s (%llu bytes) on the mirror, but its manifest says %s (%llu bytes): a wrong or damaged file"),
                              it->url, cu_format_bytes(it->found_size, b1, sizeof(b1)), (unsigned long long)it->found_size,
                              cu_format_bytes(it->size, b2, sizeof(b2)), (unsigned long long)it->size);
    case CU_PROBE_UNKNOWN:
    case CU_PROBE_OK:
    default:
        return cu_xstrdup("");
    }
}

enum cu_status
cu_probe_run(const struct cu_net *net, struct cu_probe_item *items, size_t n, unsigned parallel,
             const atomic_int *cancel, struct cu_error *err)
{
    for (size_t i = 0; i < n; i++) {
        items[i].verdict = CU_PROBE_UNKNOWN;
        items[i].http = 0;
        items[i].found_size = 0;
    }
    if (n == 0)
        return CU_OK;
    run_http(net, items, n, parallel ? parallel : 1, cancel);
    if (cancel && atomic_load(cancel))
        return cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));

    size_t bad = 0, missing = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        enum cu_probe_verdict v = items[i].verdict;
        if (v == CU_PROBE_MISSING || v == CU_PROBE_REFUSED || v == CU_PROBE_SIZE) {
            bad++;
            missing += v != CU_PROBE_SIZE;
            if (first == n)
                first = i;
        }
    }
    if (bad == 0)
        return CU_OK;
    enum cu_status code = missing ? CU_E_NETWORK : CU_E_CHECKSUM;
    if (bad == 1) {
        CU_AUTOFREE char *line = describe(&items[first]);
        return cu_error_set(err, code, 0, _("%s; nothing was downloaded"), line);
    }
    /* One line each, with its URL; the error names them all (the URLs would not fit). */
    struct cu_buf names;
    cu_buf_init(&names);
    size_t named = 0;
    for (size_t i = 0; i < n; i++) {
        enum cu_probe_verdict v = items[i].verdict;
        if (v != CU_PROBE_MISSING && v != CU_PROBE_REFUSED && v != CU_PROBE_SIZE)
            continue;
        CU_AUTOFREE char *line = describe(&items[i]);
        cu_log_error("%s: %s", items[i].name, line);
        if (names.len + strlen(items[i].name) < 280) {
            cu_buf_printf(&names, "%s%s", named ? ", " : "", items[i].name);
            named++;
        }
    }
    if (named < bad)
        cu_buf_printf(&names, _(" and %zu more"), bad - named);
    if (missing == bad)
        cu_error_set(err, code, 0, _("%zu archives are not on the mirror: %s; nothing was downloaded"), bad, names.data);
    else
        cu_error_set(err, code, 0, _("%zu archives are missing or not as their manifests list them: %s; nothing was downloaded"),
                     bad, names.data);
    cu_buf_fini(&names);
    return code;
}

void
cu_download_advise(const struct cu_net *net, enum cu_status st, bool python, size_t n_failed, struct cu_error *err)
{
    if ((st != CU_E_NETWORK && st != CU_E_CHECKSUM) || net->official || err->advice[0])
        return;
    if (python)
        cu_error_advise(err, _("The mirror %s does not carry this Python: give --python-source system or --env-tool conda to use one of this machine's, or fill the mirror's python/ folder (`cudaup mirror DIR` stores it from an upstream that has it)."),
                        net->base);
    else if (n_failed > 1)
        cu_error_advise_as(err, CU_ADV_MIRROR_LACKS, net->base,
                           _("Check that the mirror %s is up and holds these files as its manifests list them (`cudaup mirror DIR` fills one), or run without --mirror to download from NVIDIA."),
                           net->base);
    else
        cu_error_advise_as(err, CU_ADV_MIRROR_LACKS, net->base,
                           _("Check that the mirror %s is up and holds this file (`cudaup mirror DIR` fills one), or run without --mirror to download from NVIDIA."),
                           net->base);
}
