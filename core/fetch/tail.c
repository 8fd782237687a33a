/* SPDX-License-Identifier: MIT */
/*
 * The last bytes of a file on a server, with one suffix range request (RFC 9110: "Range: bytes=-N"): what the
 * plan reads of an archive it has not downloaded (the index at the end of a .tar.xz, core/unpack/xzsize.h).
 * A server that ignores Range (200 and the whole file) is cut off at once and gives no answer; so does one
 * whose Content-Range does not end at the file's end.
 */
#include "config.h"

#define CU_LOG_TAG "tail"
#include "core/fetch/tail.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/base/log.h"
#include "core/base/mem.h"

#define TAIL_TIMEOUT_S 15L /* a size is a nicety: a slow server does not hold the plan up for long */

struct tail {
    struct cu_buf *out;
    size_t max;
    bool ranged; /* a 206 with a Content-Range that ends at the file's end */
    uint64_t total;
};

static size_t
header_cb(char *data, size_t size, size_t nmemb, void *ud)
{
    struct tail *t = ud;
    size_t n = size * nmemb;
    if (n > 5 && strncmp(data, "HTTP/", 5) == 0)
        t->ranged = false; /* a new response (after a redirect) */
    if (n > 14 && strncasecmp(data, "Content-Range:", 14) == 0) {
        CU_AUTOFREE char *v = cu_xstrndup(data + 14, n - 14);
        unsigned long long a, b, total;
        if (sscanf(v, " bytes %llu-%llu/%llu", &a, &b, &total) == 3 && b + 1 == total && a <= b) {
            t->ranged = true;
            t->total = total;
        }
    }
    return n;
}

static size_t
write_cb(char *data, size_t size, size_t nmemb, void *ud)
{
    struct tail *t = ud;
    size_t n = size * nmemb;
    if (!t->ranged || t->out->len + n > t->max)
        return 0; /* not the range asked for (a whole file, an error page): stop */
    cu_buf_append(t->out, data, n);
    return n;
}

bool
cu_net_fetch_tail(const struct cu_net *net, const char *url, size_t n, struct cu_buf *out, uint64_t *total)
{
    CURL *h = curl_easy_init();
    if (!h)
        return false;
    char errbuf[CURL_ERROR_SIZE];
    char range[32];
    snprintf(range, sizeof(range), "-%zu", n);
    struct tail t = {.out = out, .max = n};
    cu_net_setup_easy(net, h, url, errbuf);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, TAIL_TIMEOUT_S);
    curl_easy_setopt(h, CURLOPT_RANGE, range);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    CURLcode rc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(h);
    bool ok = rc == CURLE_OK && code == 206 && t.ranged && out->len > 0;
    cu_log_debug("GET %s bytes=%s: curl %d, HTTP %ld, %zu bytes%s", url, range, (int)rc, code, out->len,
                 ok ? "" : " (no tail)");
    *total = ok ? t.total : 0;
    return ok;
}
