/* SPDX-License-Identifier: MIT */
/*
 * URLs and small downloads (manifests, indexes) through libcurl.
 *
 * Policy (STYLE 35): only https, plus the configured base URL's own scheme
 * (http for a loopback or site mirror, file for a local folder).  Redirects
 * may only go to https, or back to the base scheme when that is http.
 * Proxies come from the environment, as libcurl reads them.
 */
#ifndef CU_NET_H
#define CU_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/cfg.h"
#include "core/base/error.h"
#include "core/base/str.h"

#define CU_NVIDIA_BASE_URL "https://developer.download.nvidia.com/compute"

/** Call once from main() before any thread starts. */
void cu_net_global_init(void);
void cu_net_global_fini(void);

struct cu_net {
    char *base;        /* normalised: no trailing '/', and no user:password@ (see userpwd) */
    char *userpwd;     /* the credentials the base URL carried, for curl alone; never shown or stored */
    char *ca_cert;     /* CA bundle to verify TLS with (CURLOPT_CAINFO); NULL: the system's */
    char *scheme;      /* "https", "http", "file" */
    bool official;     /* NVIDIA's own server */
    char protocols[32];       /* CURLOPT_PROTOCOLS_STR */
    char redir_protocols[32]; /* CURLOPT_REDIR_PROTOCOLS_STR */
    unsigned retries;      /* tries after a failed one before giving up (--retries) */
    long connect_timeout_s;
    long low_speed_time_s; /* abandon a transfer slower than 1 KiB/s for this long */
    long retry_base_ms;    /* first back-off; doubled each time up to CU_NET_BACKOFF_MAX_MS, with jitter */
    bool virtual_waits;    /* CUDAUP_TEST_VIRTUAL_WAITS (a test seam): back-offs are logged, not waited */
};

/*
 * The default back-off (CU_NET_RETRIES_DEFAULT, cfg.h): 1 s, 2 s, 4 s, 8 s, 16 s, 30 s (each 75-125 %
 * of that, so that many machines behind one mirror spread out): about a minute before a download is
 * given up, which outlasts a mirror's restart or a Wi-Fi blip.
 */
#define CU_NET_RETRY_BASE_MS 1000
#define CU_NET_BACKOFF_MAX_MS 30000

/**
 * Check and normalise a base URL (NULL: NVIDIA's).  Errors: CU_E_USAGE for
 * an unsupported scheme, a URL with a query or fragment, or file:// that is
 * not an absolute path.
 */
CU_NODISCARD enum cu_status cu_net_init(struct cu_net *net, const char *base, struct cu_error *err);
void cu_net_fini(struct cu_net *net);

/**
 * @url without the user:password@ it may carry: the form of a URL that is shown, logged or written
 * down (plan --json, records, messages).  Caller owns the result.
 */
char *cu_url_public(const char *url);

/** The host of @url ("host" of "https://u:p@host:8443/x"; "" for file://).  Caller owns the result. */
char *cu_url_host(const char *url);

/** BASE/PRODUCT/redist/REL. Caller owns the result. */
char *cu_net_url(const struct cu_net *net, const char *product, const char *rel);

/** The local path a file:// @url names (percent-decoded); NULL for another scheme or a malformed one.  Caller owns it. */
char *cu_url_file_path(const char *url);

/** For file:// bases, the local path of BASE/PRODUCT/redist/REL; NULL otherwise. */
char *cu_net_local_path(const struct cu_net *net, const char *product, const char *rel);

/**
 * Fetch @url into @out (at most @max bytes), retrying transient failures.
 * @url may lie outside the mirror (another host gets none of its credentials).
 * Errors: CU_E_NOT_FOUND (404, 410, missing file; "on the mirror" only when @url
 * is under the base URL), CU_E_NETWORK, CU_E_INPUT (larger than @max).
 */
CU_NODISCARD enum cu_status cu_net_fetch_small(const struct cu_net *net, const char *url, size_t max,
                                               struct cu_buf *out, struct cu_error *err);

/**
 * Apply the protocol, redirect, timeout and proxy policy to a curl easy handle that will fetch @url
 * (set as its CURLOPT_URL here): the base URL's credentials go along only where @url has the base
 * URL's scheme, host and port (cu_net_same_origin).
 */
void cu_net_setup_easy(const struct cu_net *net, void *curl_easy, const char *url, char *errbuf);

/** Whether @url has the scheme, host and port of @net's base URL: the one its credentials came with. */
bool cu_net_same_origin(const struct cu_net *net, const char *url);

/** Whether @url lies under @net's base URL (so "on the mirror" in a message is true). */
bool cu_net_on_mirror(const struct cu_net *net, const char *url);

/**
 * The user:password@ of @url, percent-decoded ("user:p@ss"), or NULL when it carries none.  Caller
 * owns it; it goes to the server it came with (curl, or a private netrc) and is never shown.
 */
char *cu_url_userinfo(const char *url);

/**
 * Whether a libcurl failure (a CURLcode, passed as int to keep curl out of
 * this header) is worth another attempt: name lookup, connect, timeouts,
 * cut-off or garbled replies.  Shared by small fetches and downloads.
 */
bool cu_net_transient(int curl_code);

/**
 * The wait before retry @retry (1 for the first) in milliseconds: the first back-off doubled
 * each time up to CU_NET_BACKOFF_MAX_MS, scaled by 75-125 % from @rnd (any random number);
 * a server's Retry-After (@retry_after_s > 0) is honoured when longer, up to a minute.  Pure.
 */
long cu_net_backoff_ms(const struct cu_net *net, unsigned retry, long retry_after_s, uint64_t rnd);

/** A random number for the jitter of cu_net_backoff_ms.  Any thread. */
uint64_t cu_net_jitter(void);

/** Sleep @ms milliseconds of back-off on this thread; with net->virtual_waits, not at all. */
void cu_net_wait(const struct cu_net *net, long ms);

/** The sentence a download that was given up ends with: what to do, and that nothing is lost. */
const char *cu_net_resume_hint(void);

#endif /* CU_NET_H */
