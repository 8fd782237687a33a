/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "fetch"
#include "core/fetch/fetch.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/clock.h"

enum xstate { X_WAIT, X_ACTIVE, X_RETRY, X_PARKED, X_DONE };

/* An error answer is read this far and no further (one that never ends must not hold a transfer). */
#define ERROR_BODY_MAX (64u << 10)

/*
 * One archive over several connections (issue 15: per-connection caps of CDNs and proxies).  When
 * connections are free and nothing else waits, the largest archive still arriving is split: its
 * first connection (the head) stops where the second part begins, and each other part (a tail)
 * is fetched with a Range of its own into the same file.  The consumer still reads the bytes in
 * order: the stream is advanced to the end of what is whole from byte 0.  So the parts are
 * chunks (CUDAUP_SPLIT_MIN bytes or more, see chunk_for), and a connection whose chunk is in takes
 * the next one in line:
 * what the consumer reads next comes over every connection, not over one while the others fetch
 * the far end (on a shared 50 MiB/s link the critical archive's decoder waited 0.8 s for bytes
 * with two long parts, 0.1 s in chunks).  A tail that is not
 * answered with exactly its range, or fails for good, gives its bytes back to the head, which goes
 * on alone.  How far the file is whole is kept in PARTIAL.prefix while parts are out of order, so
 * that a resume after a kill trusts no byte past it.
 */
#define MAX_TAILS 7
#define SPLIT_MIN_DEFAULT (8ull << 20) /* archives with less left are not worth splitting */
#define PREFIX_STEP (16ull << 20)       /* PARTIAL.prefix is rewritten this often */
#define CHUNK_MAX (256ull << 20)        /* however far the server, chunks stay this small */

struct xfer {
    struct cu_fetch_item *it;
    const struct cu_net *net;
    const struct cu_events *ev;
    CURL *h;
    struct curl_slist *hdrs;
    int fd;
    enum xstate state;
    uint64_t have, start;
    unsigned attempts;
    long code;
    bool checked, discard, too_big, bad_range, cr_seen, is_file, error_body_long;
    uint64_t discarded; /* bytes of an error answer read so far */
    uint64_t cr_start, cr_end, cr_total;
    char validator[256];
    char errbuf[CURL_ERROR_SIZE];
    long retry_after;
    int64_t retry_at_ms;
    long waited_ms; /* back-off so far, for the message when it gives up */
    int64_t last_emit_ms;
    uint64_t shown; /* the progress shown: bytes given back by a fall-back to one connection do not take it back */
    /* Several connections for one archive (see MAX_TAILS). */
    bool tail;             /* a part after the first, fetched with a Range; head points at its item's head */
    bool parked;           /* a head that reached the end of its part and waits for the tails */
    bool at_end;           /* the transfer stopped at the end of its part */
    bool split_bad;        /* a tail's answer was not exactly its range */
    bool split_used;       /* a head that was split once (never twice) */
    CURLM *multi;
    struct xfer *head;
    uint64_t seg_start;    /* a tail's part: [seg_start, seg_end) */
    uint64_t req_end;      /* a tail's request ends here; seg_end may since have moved before it */
    uint64_t seg_end;      /* where this part ends: the item's size for an unsplit head */
    struct xfer *tails[MAX_TAILS];
    unsigned n_tails;
    uint64_t persisted;    /* the prefix last written to PARTIAL.prefix */
    uint64_t chunk;        /* a head split in chunks: their size (0: in k + 1 parts to the end) */
    int64_t begun_us;      /* when this request was sent (cu_mono_us) */
};


static char *
meta_path(const struct xfer *x)
{
    return cu_xasprintf("%s.meta", x->it->partial);
}

static char *
prefix_path(const struct xfer *x)
{
    return cu_xasprintf("%s.prefix", x->it->partial);
}

/* How far @h's file is whole from byte 0: its head's part, then each tail in turn (they follow on). */
static uint64_t
prefix_of(const struct xfer *h)
{
    if (!h->n_tails || h->have < h->seg_end)
        return h->have;
    for (unsigned i = 0; i < h->n_tails; i++)
        if (h->tails[i]->have < h->tails[i]->seg_end)
            return h->tails[i]->have;
    return h->tails[h->n_tails - 1]->seg_end;
}

/* Bytes of @h's archive received so far, over all its connections. */
static uint64_t
received(const struct xfer *h)
{
    uint64_t n = h->have;
    for (unsigned i = 0; i < h->n_tails; i++)
        n += h->tails[i]->have - h->tails[i]->seg_start;
    return n;
}

static void
emit(struct xfer *x, bool force)
{
    if (x->tail)
        x = x->head;
    int64_t t = cu_mono_ms();
    if (!force && t - x->last_emit_ms < 100)
        return;
    x->last_emit_ms = t;
    uint64_t done = x->n_tails ? received(x) : x->have;
    if (done < x->shown)
        done = x->shown; /* bytes to fetch again: the count waits for them */
    x->shown = done;
    struct cu_event e = {.type = CU_EV_PROGRESS, .installer = x->it->installer, .item = x->it->name,
                         .phase = "download", .done = done, .total = x->it->size_is_limit ? 0 : x->it->size};
    cu_emit(x->ev, &e);
}

/* Write down how far @h's file is whole (PARTIAL.prefix), before any part beyond it lands. */
static bool
persist_prefix(struct xfer *h, uint64_t p)
{
    CU_AUTOFREE char *pp = prefix_path(h);
    char text[32];
    struct cu_error e;
    snprintf(text, sizeof(text), "%llu\n", (unsigned long long)p);
    if (cu_write_file_atomic(pp, text, strlen(text), 0644, &e) != CU_OK) {
        cu_log_error_of(CU_LOG_WARN, &e);
        return false;
    }
    h->persisted = p;
    return true;
}

/* The consumer may read up to the prefix; a split archive keeps it on disk as it grows. */
static void
advance(struct xfer *h)
{
    uint64_t p = prefix_of(h);
    cu_stream_advance(h->it->stream, p);
    if (h->n_tails && p >= h->persisted + PREFIX_STEP)
        persist_prefix(h, p);
}

static void drop_tails(struct xfer *h);

static void
restart_from_zero(struct xfer *x)
{
    drop_tails(x); /* what they fetched belongs to the file being given up */
    /* Tell the reader first: a read that sees the file shrink must also see the new generation. */
    cu_stream_restart(x->it->stream);
    if (ftruncate(x->fd, 0) != 0)
        cu_log_warn("cannot truncate %s", x->it->partial);
    x->have = 0;
    x->start = 0;
    x->shown = 0; /* truly from byte 0 again */
    CU_AUTOFREE char *mp = meta_path(x);
    unlink(mp);
    CU_AUTOFREE char *pp = prefix_path(x);
    unlink(pp);
}

static size_t
header_cb(char *data, size_t size, size_t nmemb, void *ud)
{
    struct xfer *x = ud;
    size_t n = size * nmemb;
    CU_AUTOFREE char *line = cu_xstrndup(data, n);
    line[strcspn(line, "\r\n")] = '\0';
    if (strncmp(line, "HTTP/", 5) == 0) {
        /* A new response (after a redirect): forget the previous one's headers. */
        x->cr_seen = false;
        x->validator[0] = '\0';
        return n;
    }
    char *colon = strchr(line, ':');
    if (!colon)
        return n;
    *colon = '\0';
    char *val = colon + 1;
    while (*val == ' ' || *val == '\t')
        val++;
    if (strcasecmp(line, "Content-Range") == 0) {
        unsigned long long a, b, t;
        char star;
        if (sscanf(val, "bytes %llu-%llu/%llu", &a, &b, &t) == 3) {
            x->cr_seen = true;
            x->cr_start = a;
            x->cr_end = b;
            x->cr_total = t;
        } else if (sscanf(val, "bytes %llu-%llu/%c", &a, &b, &star) == 3 && star == '*') {
            x->cr_seen = true;
            x->cr_start = a;
            x->cr_end = b;
            x->cr_total = 0;
        }
    } else if (strcasecmp(line, "ETag") == 0 && val[0] && strncmp(val, "W/", 2) != 0) {
        snprintf(x->validator, sizeof(x->validator), "%s", val);
    } else if (strcasecmp(line, "Last-Modified") == 0 && val[0] && !x->validator[0]) {
        snprintf(x->validator, sizeof(x->validator), "%s", val);
    }
    return n;
}

/* The first body bytes: decide whether they continue the file, start it over or are an error page. */
static bool
check_response(struct xfer *x)
{
    x->checked = true;
    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->code);
    if (x->tail) {
        /* Exactly the range asked for, of a file of the manifest's size; anything else: give it back. */
        if (x->code != 206 || !x->cr_seen || x->cr_start != x->start || x->cr_end + 1 != x->req_end ||
            x->cr_total != x->it->size) {
            x->split_bad = true;
            return false;
        }
        return true;
    }
    if (x->is_file) {
        x->code = x->start ? 206 : 200;
        return true;
    }
    if (x->code == 206) {
        if (!x->cr_seen || x->cr_start != x->start ||
            (x->cr_total && (x->it->size_is_limit ? x->cr_total > x->it->size : x->cr_total != x->it->size))) {
            cu_log_info(_("%s: the server resumed at the wrong place; starting over"), x->it->name);
            x->bad_range = true;
            return false;
        }
    } else if (x->code == 200) {
        if (x->start > 0) {
            cu_log_info(_("%s: the server ignored the resume request; starting over"), x->it->name);
            restart_from_zero(x);
        }
        if (x->validator[0]) {
            CU_AUTOFREE char *mp = meta_path(x);
            struct cu_error e;
            if (cu_write_file_atomic(mp, x->validator, strlen(x->validator), 0644, &e) != CU_OK)
                cu_log_error_of(CU_LOG_DEBUG, &e);
        }
    } else {
        x->discard = true; /* an error page is not part of the file */
    }
    return true;
}

static size_t
write_cb(char *data, size_t size, size_t nmemb, void *ud)
{
    struct xfer *x = ud;
    size_t n = size * nmemb;
    if (!x->checked && !check_response(x))
        return 0;
    if (x->discard) {
        x->discarded += n;
        if (x->discarded > ERROR_BODY_MAX) {
            x->error_body_long = true;
            return 0; /* ends the transfer: it is judged by its HTTP status alone */
        }
        return n;
    }
    size_t keep = n;
    if (x->have + n > x->seg_end) {
        if (x->tail && x->seg_end == x->req_end) {
            x->split_bad = true; /* more than its range */
            return 0;
        }
        if (!x->tail && x->seg_end == x->it->size) {
            x->too_big = true;
            return 0;
        }
        keep = (size_t)(x->seg_end - x->have); /* a part ends where the next one's begins */
        x->at_end = true;
    }
    const char *p = data;
    size_t left = keep;
    uint64_t at = x->have;
    while (left) {
        ssize_t w = pwrite(x->fd, p, left, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return 0;
        p += w;
        left -= (size_t)w;
        at += (uint64_t)w;
    }
    x->have += keep;
    x->it->downloaded += keep;
    advance(x->tail ? x->head : x);
    emit(x, false);
    return x->at_end ? keep : n; /* short: curl stops the transfer */
}

static void
finish(struct xfer *x, enum cu_status code, const char *fmt, ...) CU_PRINTF(3, 4);

static void
finish(struct xfer *x, enum cu_status code, const char *fmt, ...)
{
    x->state = X_DONE;
    cu_error_clear(&x->it->result);
    if (code != CU_OK) {
        char msg[sizeof(x->it->result.msg)], en[sizeof(msg)];
        va_list ap;
        va_start(ap, fmt);
        cu_vformat_both(msg, en, sizeof(msg), fmt, ap); /* the English noted: the log gets it */
        va_end(ap);
        cu_error_set(&x->it->result, code, 0, "%s", msg);
    } else if (fsync(x->fd) != 0 || close(x->fd) != 0) {
        /* What the disk could not keep is not a download (the hash was of the bytes sent). */
        cu_error_set(&x->it->result, CU_E_IO, errno, _("Cannot write %s"), x->it->partial);
        x->fd = -1; /* close(2) released it even when it failed */
    } else {
        x->fd = -1;
        CU_AUTOFREE char *pp = prefix_path(x);
        unlink(pp);
        emit(x, true);
    }
    if (x->fd >= 0)
        close(x->fd);
    x->fd = -1;
    cu_stream_finish(x->it->stream, &x->it->result);
}

/* What every request of a transfer shares: the network settings, the URL, the callbacks, its headers. */
static void
setup_easy(struct xfer *x)
{
    cu_net_setup_easy(x->net, x->h, x->it->url, x->errbuf);
    curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(x->h, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(x->h, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
    if (x->hdrs)
        curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, x->hdrs);
}

static enum cu_status
begin(struct xfer *x, CURLM *multi)
{
    struct stat st;
    x->fd = open(x->it->partial, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (x->fd < 0) {
        finish(x, CU_E_IO, _("Cannot write %s"), x->it->partial);
        return CU_E_IO;
    }
    x->multi = multi;
    if (!x->split_used) {
        x->have = fstat(x->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
        /* Parts of an earlier run arrived out of order: only the bytes before PARTIAL.prefix are whole. */
        CU_AUTOFREE char *pp = prefix_path(x);
        char *v = NULL;
        struct cu_error e;
        if (cu_read_file(pp, 64, &v, NULL, &e) == CU_OK) {
            uint64_t whole;
            if (cu_parse_u64(cu_str_strip(v), x->have, &whole) && ftruncate(x->fd, (off_t)whole) == 0)
                x->have = whole;
            else
                restart_from_zero(x);
            unlink(pp);
        }
        free(v);
    }
    if (x->have > x->it->size)
        restart_from_zero(x);
    if (x->attempts == 0)
        x->it->resumed_from = x->have;
    cu_stream_advance(x->it->stream, x->have);
    if (x->have == x->it->size && x->have > 0 && !x->it->size_is_limit) {
        /* Already all here; the consumer's hash decides whether it is right. */
        finish(x, CU_OK, "%s", "");
        return CU_OK;
    }
    x->start = x->have;
    x->checked = x->discard = x->too_big = x->bad_range = x->cr_seen = x->error_body_long = x->at_end = false;
    x->discarded = 0;
    x->code = 0;
    x->validator[0] = '\0';
    curl_slist_free_all(x->hdrs);
    x->hdrs = NULL;
    if (x->start > 0) {
        CU_AUTOFREE char *mp = meta_path(x);
        char *v = NULL;
        struct cu_error e;
        if (cu_read_file(mp, 1024, &v, NULL, &e) == CU_OK && v[0] && !strpbrk(v, "\r\n")) {
            CU_AUTOFREE char *h = cu_xasprintf("If-Range: %s", v);
            x->hdrs = curl_slist_append(NULL, h);
        }
        free(v);
    }
    x->h = curl_easy_init();
    if (!x->h) {
        finish(x, CU_E_NOMEM, "%s", _("Cannot start a download"));
        return CU_E_NOMEM;
    }
    setup_easy(x);
    curl_easy_setopt(x->h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->it->size);
    if (x->start > 0)
        curl_easy_setopt(x->h, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)x->start);
    x->state = X_ACTIVE;
    x->begun_us = cu_mono_us();
    cu_log_debug("GET %s from byte %llu", x->it->url, (unsigned long long)x->start);
    curl_multi_add_handle(multi, x->h);
    return CU_OK;
}

/* A tail's request: its own range of the file, written where it belongs. */
static bool
tail_begin(struct xfer *t, CURLM *multi)
{
    t->fd = open(t->it->partial, O_WRONLY | O_CLOEXEC);
    t->h = t->fd < 0 ? NULL : curl_easy_init();
    if (!t->h)
        return false;
    t->multi = multi;
    t->start = t->have;
    t->req_end = t->seg_end;
    char range[64];
    snprintf(range, sizeof(range), "%llu-%llu", (unsigned long long)t->start, (unsigned long long)t->seg_end - 1);
    if (t->head->validator[0]) {
        /* The same file as the head's, or a whole answer that is refused. */
        CU_AUTOFREE char *h = cu_xasprintf("If-Range: %s", t->head->validator);
        t->hdrs = curl_slist_append(NULL, h);
    }
    setup_easy(t);
    curl_easy_setopt(t->h, CURLOPT_RANGE, range);
    t->state = X_ACTIVE;
    t->begun_us = cu_mono_us();
    cu_log_debug("GET %s bytes %s", t->it->url, range);
    curl_multi_add_handle(multi, t->h);
    return true;
}

static void
tail_free(struct xfer *t)
{
    if (t->h) {
        curl_multi_remove_handle(t->multi, t->h);
        curl_easy_cleanup(t->h);
    }
    if (t->fd >= 0)
        close(t->fd);
    curl_slist_free_all(t->hdrs);
    free(t);
}

static void
drop_tails(struct xfer *h)
{
    for (unsigned i = 0; i < h->n_tails; i++)
        tail_free(h->tails[i]);
    h->n_tails = 0;
    h->seg_end = h->it->size;
    h->chunk = 0;
}

/*
 * Give a split archive back to one connection: the head goes on from the prefix (bytes the tails
 * wrote past it are written again, in order).  PARTIAL.prefix stays until the archive is whole.
 */
static void
fall_back(struct xfer *h, const char *why)
{
    uint64_t p = prefix_of(h);
    cu_log_info(_("%s: a second connection failed (%s); going on with one"), h->it->name, why);
    drop_tails(h);
    if (h->state == X_PARKED) {
        if (h->fd >= 0)
            close(h->fd);
        h->fd = -1;
        h->have = p;
        h->state = X_WAIT;
    }
}

/* The archive is whole once every part is: then it is finished like one fetched in one piece. */
static void finish(struct xfer *x, enum cu_status code, const char *fmt, ...) CU_PRINTF(3, 4);

static void
maybe_whole(struct xfer *h)
{
    if (h->n_tails && h->state == X_PARKED && prefix_of(h) == h->it->size) {
        drop_tails(h);
        h->have = h->it->size;
        finish(h, CU_OK, "%s", "");
    }
}

/*
 * A new part [@start, @end) of @h's archive, at place @at among its tails, and its request.  False
 * when it cannot be started: then the archive is back on one connection (fall_back).
 */
static bool
add_tail(struct xfer *h, unsigned at, uint64_t start, uint64_t end, CURLM *multi)
{
    struct xfer *t = cu_xcalloc(1, sizeof(*t));
    *t = (struct xfer){.it = h->it, .net = h->net, .ev = h->ev, .fd = -1, .tail = true, .head = h,
                       .seg_start = start, .seg_end = end, .have = start};
    memmove(&h->tails[at + 1], &h->tails[at], (h->n_tails - at) * sizeof(h->tails[0]));
    h->tails[at] = t;
    h->n_tails++;
    if (!tail_begin(t, multi)) {
        fall_back(h, _("cannot start a second connection"));
        return false;
    }
    return true;
}

/* The end of what @h's parts ask for: past it, nothing yet (a split in chunks). */
static uint64_t
assigned(const struct xfer *h)
{
    return h->n_tails ? h->tails[h->n_tails - 1]->seg_end : h->seg_end;
}

/* Parts that are done and next to each other become one; the first joins a head parked at its end. */
static void
compact(struct xfer *h)
{
    unsigned n = 0;
    for (unsigned i = 0; i < h->n_tails; i++) {
        struct xfer *t = h->tails[i];
        struct xfer *prev = n ? h->tails[n - 1] : NULL;
        if (t->state == X_DONE && prev && prev->state == X_DONE) {
            prev->seg_end = prev->have = t->seg_end;
            tail_free(t);
            continue;
        }
        if (t->state == X_DONE && !prev && i + 1 < h->n_tails && h->state == X_PARKED && h->have == h->seg_end) {
            h->seg_end = h->have = t->seg_end; /* one tail always stays: a split head has tails */
            tail_free(t);
            continue;
        }
        h->tails[n++] = t;
    }
    h->n_tails = n;
}

/*
 * A split in chunks: the next chunk nobody has asked for yet goes to a new connection, so that
 * every connection of the archive works near the front, where the consumer reads (in k + 1 long
 * parts, the bytes it can read come at one connection's rate until the first part is whole).
 * False when there is none left (or no room for another part).
 */
static bool
next_chunk(struct xfer *h, CURLM *multi)
{
    compact(h);
    uint64_t at = assigned(h);
    if (!h->chunk || !h->n_tails || at >= h->it->size || h->n_tails >= MAX_TAILS)
        return false;
    /* No chunk of less than half a chunk at the end: the last takes it. */
    uint64_t end = h->it->size - at < h->chunk + h->chunk / 2 ? h->it->size : at + h->chunk;
    return add_tail(h, h->n_tails, at, end, multi);
}

/*
 * CUDAUP_TEST_PART_WAIT_MS (README "Settings"), a test seam: the first-byte wait that chunk_for
 * counts for a tail's request (none for the head's) in place of the one measured, so that the
 * suite's chunk sizes do not follow how busy the machine is.  False when unset.
 */
static bool
part_wait_seam(const struct xfer *x, curl_off_t *wait)
{
    const char *s = getenv("CUDAUP_TEST_PART_WAIT_MS");
    uint64_t ms;
    if (!s || !*s || !cu_parse_u64(s, 600000, &ms))
        return false;
    *wait = x->tail ? (curl_off_t)(ms * 1000) : 0;
    return true;
}

/*
 * Chunks worth their request.  Each chunk's request waits for its first byte (the round trip and
 * the server's answer) before its bytes flow: measured on @x, one of the archive's connections,
 * a chunk is at least 8 such waits at @x's rate, so that the waits cost an eighth of the time on
 * the wire or less (a far, fast server gets big chunks); never less than @floor (CUDAUP_SPLIT_MIN),
 * nor more than CHUNK_MAX.  *@waited (when not NULL): the wait counted, in microseconds.
 */
static uint64_t
chunk_for(const struct xfer *x, uint64_t floor, int64_t *waited)
{
    curl_off_t first = 0, wait;
    if (!x->h || curl_easy_getinfo(x->h, CURLINFO_STARTTRANSFER_TIME_T, &first) != CURLE_OK || first <= 0)
        return floor;
    if (!part_wait_seam(x, &wait))
        wait = first;
    if (waited)
        *waited = (int64_t)wait;
    int64_t flowing = cu_mono_us() - x->begun_us - (int64_t)first;
    if (flowing <= 0 || x->have <= x->start || wait <= 0)
        return floor;
    double c = (double)(x->have - x->start) / (double)flowing * (double)wait * 8;
    uint64_t chunk = c >= (double)CHUNK_MAX ? CHUNK_MAX : (uint64_t)c;
    return chunk > floor ? chunk : floor;
}

/*
 * Split what is left of @h over @k + 1 connections: its own first part, and @k tails.  Where
 * the rest holds more than @k + 1 chunks of @chunk bytes, each connection takes a chunk, and the
 * next chunk in line as soon as its own is in (next_chunk); else the rest is cut into @k + 1
 * parts of whole MiB, at least @min_part each (fewer tails when the rest is short).
 */
static void
split(struct xfer *h, unsigned k, uint64_t min_part, uint64_t chunk, CURLM *multi)
{
    uint64_t left = h->it->size - h->have;
    while (k > 0 && left / (k + 1) < min_part)
        k--;
    if (k == 0)
        return;
    chunk = chunk_for(h, chunk, NULL);
    bool chunked = left / (k + 1) > chunk + chunk / 2;
    uint64_t part = chunked ? chunk : left / (k + 1);
    if (!chunked)
        part -= part % (1u << 20);
    /* Without the record of what is whole, a resume would trust the holes between the parts. */
    if (!persist_prefix(h, h->have))
        return;
    h->split_used = true;
    h->chunk = chunked ? chunk : 0;
    uint64_t at = h->have + part;
    h->seg_end = at;
    for (unsigned j = 0; j < k; j++) {
        uint64_t end = j + 1 == k && !chunked ? h->it->size : at + part;
        if (!add_tail(h, h->n_tails, at, end, multi))
            return;
        at = end;
    }
    advance(h);
    cu_log_info(_("%s: %u more connections for the rest"), h->it->name, k);
    if (chunked)
        cu_log_debug("%s: in chunks of %llu bytes, each connection taking the next in line", h->it->name,
                     (unsigned long long)chunk);
}

/*
 * One more connection for an archive already split: the part with the most left (the head's or a
 * tail's) gives its second half to a new tail.  False when no part has 2 * @min_part left.
 */
static bool
split_more(struct xfer *h, uint64_t min_part, CURLM *multi)
{
    if (h->n_tails >= MAX_TAILS)
        return false;
    if (next_chunk(h, multi))
        return true;
    if (!h->n_tails)
        return false; /* next_chunk fell back to one connection */
    struct xfer *best = h->state == X_ACTIVE && h->seg_end < h->it->size ? h : NULL;
    unsigned at = 0;
    for (unsigned i = 0; i < h->n_tails; i++) {
        struct xfer *t = h->tails[i];
        if (t->state == X_ACTIVE && (!best || t->seg_end - t->have > best->seg_end - best->have)) {
            best = t;
            at = i + 1;
        }
    }
    if (!best || best->seg_end - best->have < 2 * min_part)
        return false;
    uint64_t mid = best->have + (best->seg_end - best->have) / 2;
    mid -= mid % (1u << 20);
    if (mid <= best->have)
        return false;
    uint64_t end = best->seg_end;
    best->seg_end = mid; /* it stops there now: see write_cb */
    return add_tail(h, at, mid, end, multi);
}

/*
 * Try again later, or give up after the last retry.  An attempt that brought this much of the file
 * was no failure of the mirror: its retries start over (a long download outlasts many blips).
 */
#define PROGRESS_RESETS_RETRIES (1ull << 20)

static void
retry_or_fail(struct xfer *x, const char *why)
{
    if (x->have >= x->start + PROGRESS_RESETS_RETRIES)
        x->attempts = 0;
    x->attempts++;
    if (x->attempts > x->net->retries) {
        if (x->attempts == 1)
            finish(x, CU_E_NETWORK, _("Cannot download %s: %s. %s"), x->it->url, why, cu_net_resume_hint());
        else
            finish(x, CU_E_NETWORK, _("Cannot download %s after %u attempts and %.0f s of waiting: %s. %s"), x->it->url,
                   x->attempts, (double)x->waited_ms / 1000, why, cu_net_resume_hint());
        return;
    }
    long ms = cu_net_backoff_ms(x->net, x->attempts, x->retry_after, cu_net_jitter());
    x->waited_ms += ms;
    cu_log_info(_("%s: %s; trying again in %.1f s (retry %u of %u)"), x->it->name, why, (double)ms / 1000,
                x->attempts, x->net->retries);
    x->retry_at_ms = cu_mono_ms() + (x->net->virtual_waits ? 0 : ms);
    x->state = X_RETRY;
    if (x->fd >= 0)
        close(x->fd);
    x->fd = -1;
}

static void
done(struct xfer *x, CURLM *multi, CURLcode rc)
{
    char why[CURL_ERROR_SIZE + 64];
    curl_off_t ra = 0;
    curl_easy_getinfo(x->h, CURLINFO_RETRY_AFTER, &ra);
    x->retry_after = (long)ra;
    if (!x->checked)
        curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->code);
    struct xfer *hd = x->tail ? x->head : x;
    int64_t first = 0;
    uint64_t chunk = hd->chunk ? chunk_for(x, hd->chunk, &first) : 0;
    if (chunk > hd->chunk) {
        cu_log_debug("%s: chunks of %llu bytes from here (a request waited %.0f ms for its first byte)", hd->it->name,
                     (unsigned long long)chunk, (double)first / 1000);
        hd->chunk = chunk;
    }
    curl_multi_remove_handle(multi, x->h);
    curl_easy_cleanup(x->h);
    x->h = NULL;
    cu_log_debug("%s: curl %d, HTTP %ld, have %llu of %llu", x->it->name, (int)rc, x->code,
                 (unsigned long long)x->have, (unsigned long long)x->it->size);
    if (x->tail) {
        struct xfer *h = x->head;
        if (x->fd >= 0)
            close(x->fd);
        x->fd = -1;
        if ((rc == CURLE_OK || x->at_end) && !x->split_bad && x->have == x->seg_end) {
            x->state = X_DONE;
            advance(h);
            emit(h, false);
            next_chunk(h, multi); /* this connection takes the next chunk in line (x may be freed) */
            maybe_whole(h);
        } else {
            snprintf(why, sizeof(why), "%s", x->split_bad ? _("the server did not answer with the range asked for")
                                             : x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
            fall_back(h, why);
        }
        return;
    }
    if (x->at_end && x->have == x->seg_end && x->seg_end < x->it->size) {
        /* The head's part is here; the rest is the tails'. */
        x->at_end = false;
        x->state = X_PARKED;
        next_chunk(x, multi);
        maybe_whole(x);
        return;
    }

    if (x->too_big || rc == CURLE_FILESIZE_EXCEEDED) {
        CU_AUTOFREE char *mp = meta_path(x);
        unlink(mp);
        if (ftruncate(x->fd, 0) != 0)
            cu_log_debug("truncate failed");
        finish(x, CU_E_CHECKSUM, _("%s sent more than the %llu bytes its manifest lists; the download was deleted"),
               x->it->url, (unsigned long long)x->it->size);
        return;
    }
    if (x->bad_range || x->code == 416 || rc == CURLE_RANGE_ERROR) {
        /* It ignored the Range, or answered another one: the only safe way on is from byte 0. */
        cu_log_info(_("%s: the server could not resume; starting over"), x->it->name);
        restart_from_zero(x);
        retry_or_fail(x, _("the server could not resume the download"));
        return;
    }
    if (rc == CURLE_OK && !x->discard && (x->code == 200 || x->code == 206 || x->is_file)) {
        if (x->have == x->it->size || (x->it->size_is_limit && x->have > 0)) {
            finish(x, CU_OK, "%s", "");
        } else {
            /* A complete answer that is shorter is not the file (an error page, a wrong file). */
            uint64_t got = x->have;
            restart_from_zero(x);
            finish(x, CU_E_CHECKSUM, _("%s is %llu bytes, but its manifest says %llu (a wrong file or an error page): it fails its checksum and was deleted"),
                   x->it->url, (unsigned long long)got, (unsigned long long)x->it->size);
        }
        return;
    }
    if ((rc == CURLE_OK || x->error_body_long) && x->code >= 400) {
        snprintf(why, sizeof(why), _("the server answered HTTP %ld"), x->code);
        if (x->code >= 500 || x->code == 408 || x->code == 429)
            retry_or_fail(x, why);
        else if ((x->code == 404 || x->code == 410) && cu_net_on_mirror(x->net, x->it->url))
            finish(x, CU_E_NETWORK, _("%s is not on the mirror (HTTP %ld)"), x->it->url, x->code);
        else if (x->code == 404 || x->code == 410)
            finish(x, CU_E_NETWORK, _("%s does not exist on its server (HTTP %ld)"), x->it->url, x->code);
        else
            finish(x, CU_E_NETWORK, _("Cannot download %s: the server answered HTTP %ld"), x->it->url, x->code);
        return;
    }
    if (rc == CURLE_FILE_COULDNT_READ_FILE) {
        if (cu_net_on_mirror(x->net, x->it->url))
            finish(x, CU_E_NETWORK, _("%s is not on the mirror"), x->it->url);
        else
            finish(x, CU_E_NETWORK, _("%s does not exist"), x->it->url);
        return;
    }
    snprintf(why, sizeof(why), "%s", x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
    if (rc == CURLE_OK)
        snprintf(why, sizeof(why), _("unexpected HTTP %ld"), x->code);
    if (rc == CURLE_UNSUPPORTED_PROTOCOL)
        finish(x, CU_E_NETWORK, _("Cannot download %s: it was redirected to a scheme cudaup refuses (%s)"),
               x->it->url, why);
    else if (cu_net_transient((int)rc))
        retry_or_fail(x, why);
    else
        finish(x, CU_E_NETWORK, _("Cannot download %s: %s"), x->it->url, why);
}

enum cu_status
cu_fetch_run(const struct cu_net *net, struct cu_fetch_item *items, size_t n, unsigned parallel,
             const atomic_int *cancel, const struct cu_events *events, struct cu_error *err)
{
    CURLM *multi = curl_multi_init();
    struct xfer *xs = cu_xcalloc(n + 1, sizeof(*xs));
    enum cu_status st = CU_OK;
    size_t left = n;

    if (!multi) {
        free(xs);
        return cu_error_set(err, CU_E_NOMEM, 0, _("Cannot start the downloads"));
    }
    if (parallel == 0)
        parallel = 1;
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)parallel);
    for (size_t i = 0; i < n; i++) {
        xs[i] = (struct xfer){.it = &items[i], .net = net, .ev = events, .fd = -1, .state = X_WAIT,
                              .seg_end = items[i].size};
        xs[i].is_file = strncmp(items[i].url, "file:", 5) == 0;
        cu_error_clear(&items[i].result);
    }
    /* CUDAUP_SPLIT_MIN (README "Settings"): the least an archive must have left to be split. */
    uint64_t split_min = SPLIT_MIN_DEFAULT;
    const char *sm = getenv("CUDAUP_SPLIT_MIN");
    if (sm && *sm && !cu_parse_u64(sm, UINT64_MAX, &split_min))
        split_min = SPLIT_MIN_DEFAULT;
    /* Chunks of less than a MiB would be more requests than bytes worth asking for. */
    uint64_t chunk_min = split_min > (1u << 20) ? split_min : (1u << 20);
    while (left > 0) {
        if (cancel && atomic_load(cancel)) {
            st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
            break;
        }
        unsigned active = 0;
        bool pending = false;
        for (size_t i = 0; i < n; i++) {
            active += xs[i].state == X_ACTIVE;
            for (unsigned k = 0; k < xs[i].n_tails; k++)
                active += xs[i].tails[k]->state == X_ACTIVE;
        }
        int64_t now = cu_mono_ms(), next_wake = now + 100;
        uint64_t min_part = split_min / 4 ? split_min / 4 : 1;
        /*
         * The critical path first: the biggest archive (items come biggest first), which decodes
         * longest, gets half the connections as soon as its first answer is in, before the small
         * ones still waiting; until then they are kept for it.
         */
        unsigned reserve = 0;
        for (size_t i = 0; i < n && parallel >= 4; i++) {
            struct xfer *x = &xs[i];
            if (x->state == X_DONE || x->is_file || x->it->size_is_limit || x->it->size - x->have < split_min)
                continue;
            if (x->split_used || x->discard)
                break;
            if (x->state == X_WAIT || (x->state == X_ACTIVE && !x->checked)) {
                reserve = parallel / 2 - 1;
            } else if (x->state == X_ACTIVE && active < parallel) {
                unsigned before = x->n_tails;
                split(x, parallel / 2 - 1, min_part, chunk_min, multi);
                active += x->n_tails - before;
            }
            break;
        }
        for (size_t i = 0; i < n && active + (i ? reserve : 0) < parallel; i++) {
            struct xfer *x = &xs[i];
            if (x->state == X_WAIT || (x->state == X_RETRY && x->retry_at_ms <= now)) {
                if (begin(x, multi) == CU_OK && x->state == X_ACTIVE)
                    active++;
            } else if (x->state == X_RETRY && x->retry_at_ms < next_wake) {
                next_wake = x->retry_at_ms;
            }
        }
        for (size_t i = 0; i < n; i++)
            pending |= xs[i].state == X_WAIT || xs[i].state == X_RETRY;
        if (!pending && active < parallel) {
            /* Free connections and nothing waiting: the archive with the most left gets them. */
            struct xfer *big = NULL;
            for (size_t i = 0; i < n; i++) {
                struct xfer *x = &xs[i];
                if (x->state != X_ACTIVE || x->split_used || x->is_file || x->it->size_is_limit || !x->checked ||
                    x->discard || x->it->size - x->have < split_min)
                    continue;
                if (!big || x->it->size - x->have > big->it->size - big->have)
                    big = x;
            }
            if (big) {
                unsigned k = parallel - active;
                split(big, k > MAX_TAILS ? MAX_TAILS : k, min_part, chunk_min, multi);
            } else {
                /* More connections free since: the split archives' longest parts are halved. */
                for (size_t i = 0; i < n && active < parallel; i++)
                    while (xs[i].n_tails && active < parallel && split_more(&xs[i], min_part, multi))
                        active++;
            }
        }
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *msg;
        int q;
        while ((msg = curl_multi_info_read(multi, &q)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            struct xfer *x = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
            if (x)
                done(x, multi, msg->data.result);
        }
        left = 0;
        for (size_t i = 0; i < n; i++) {
            if (xs[i].state != X_DONE) {
                left++;
            } else if (items[i].result.code != CU_OK && st == CU_OK) {
                st = items[i].result.code;
                *err = items[i].result;
            }
        }
        if (st != CU_OK)
            break; /* the first final failure stops the rest */
        if (left) {
            long wait = (long)(next_wake - cu_mono_ms());
            curl_multi_poll(multi, NULL, 0, wait < 1 ? 1 : (wait > 100 ? 100 : (int)wait), NULL);
        }
    }
    /* Stop what is still going; partial files stay for a resume. */
    for (size_t i = 0; i < n; i++) {
        struct xfer *x = &xs[i];
        if (x->n_tails) {
            /* Parts out of order: the resume trusts what is whole from byte 0, and no more. */
            persist_prefix(x, prefix_of(x));
            drop_tails(x);
        }
        if (x->h) {
            curl_multi_remove_handle(multi, x->h);
            curl_easy_cleanup(x->h);
            x->h = NULL;
        }
        if (x->state != X_DONE) {
            x->state = X_DONE;
            cu_error_set(&items[i].result, CU_E_CANCELLED, 0, _("Stopped"));
            if (x->fd >= 0)
                close(x->fd);
            x->fd = -1;
            cu_stream_finish(items[i].stream, &items[i].result);
        }
        curl_slist_free_all(x->hdrs);
    }
    curl_multi_cleanup(multi);
    free(xs);
    return st;
}
