/* SPDX-License-Identifier: MIT */
/*
 * cu_extract's decompression layer (extract.h): the compressed input is read through the
 * caller's reader and decoded here with liblzma -- a memory limit, concatenated streams,
 * every check verified, several cores for a stream of sized blocks -- optionally on a thread
 * of its own, ahead of the tar reader; libarchive takes the raw tar through cu_xz_la_read.
 * A .tar.gz or .tar.zst passes through untouched, for libarchive's own filter.
 */
#include "config.h"

#define CU_LOG_TAG "extract"
#include "core/unpack/extract_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"

#define IN_BUF (1u << 17)
#define OUT_BUF (1u << 20)

/*
 * Decode ahead (issue 15, item 5): reading, hashing and xz-decoding run on a thread of
 * their own, a few buffers ahead of the tar reader, which parses and writes on the
 * caller's thread -- as a shell pipeline's xz and tar processes do.  Under contention
 * the two halves get a core each when one frees up; on a quiet machine the writes of the
 * critical archive overlap its decoding.
 */
#define AHEAD_SLOTS 4

struct ahead {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned char *buf[AHEAD_SLOTS];
    size_t len[AHEAD_SLOTS];
    uint64_t in_at[AHEAD_SLOTS]; /* xs.in_total when the slot was filled */
    unsigned head, count;        /* the oldest filled slot; how many are filled */
    int cur;                     /* the slot libarchive is reading; -1: none */
    bool done;                   /* the producer has stopped: at the end, or on an error */
    bool failed;                 /* it stopped on an error (xs.read_err or xs.lz_err says which) */
    bool quit;                   /* the tar reader has stopped: no more decoding */
};

/*
 * Say in the log which way this archive decodes.  liblzma's threaded decoder takes a stream
 * apart only where its block headers give both sizes (xz -T writes them; a single-threaded
 * encoder, NVIDIA's, does not): the flags byte after the 12-byte stream header and the block
 * header's size byte.
 */
static void
log_decode_path(const struct xzsrc *x, const unsigned char *b, size_t n)
{
    if (n < 14)
        return;
    bool sized = b[12] != 0 && (b[13] & 0xc0) == 0xc0;
    cu_log_debug("%s: %s%s", x->what,
                 sized && x->threads > 1 ? "xz blocks with their sizes: decoding on several cores"
                                         : "xz blocks without their sizes (or one decoder thread): decoding on one core",
                 x->ahead ? ", ahead of the unpacking" : "");
}

/* Decode into @out (OUT_BUF bytes); returns bytes (0 at the end of the xz data) or -1. */
static ssize_t
xz_fill_into(struct xzsrc *x, unsigned char *out)
{
    if (x->raw) {
        if (cu_extract_cancelled(x->cancel)) {
            x->read_err = -ECANCELED;
            return -1;
        }
        if (x->stream_end)
            return 0;
        ssize_t n = x->rd(x->ud, out, OUT_BUF);
        if (n < 0) {
            x->read_err = n;
            return -1;
        }
        x->in_total += (uint64_t)n;
        x->stream_end = x->in_eof = n == 0;
        return n;
    }
    x->z.next_out = out;
    x->z.avail_out = OUT_BUF;
    while (x->z.avail_out == OUT_BUF && !x->stream_end) {
        if (cu_extract_cancelled(x->cancel)) {
            x->read_err = -ECANCELED;
            return -1;
        }
        if (x->z.avail_in == 0 && !x->in_eof) {
            ssize_t n = x->rd(x->ud, x->in, IN_BUF);
            if (n < 0) {
                x->read_err = n;
                return -1;
            }
            if (n == 0) {
                x->in_eof = true;
            } else {
                if (x->in_total == 0)
                    log_decode_path(x, x->in, (size_t)n);
                x->in_total += (uint64_t)n;
                x->z.next_in = x->in;
                x->z.avail_in = (size_t)n;
            }
        }
        lzma_ret ret = lzma_code(&x->z, x->in_eof ? LZMA_FINISH : LZMA_RUN);
        if (ret == LZMA_STREAM_END) {
            x->stream_end = true;
            break;
        }
        if (ret != LZMA_OK) {
            x->lz_err = ret;
            return -1;
        }
    }
    return (ssize_t)(OUT_BUF - x->z.avail_out);
}

static void *
ahead_main(void *ud)
{
    struct xzsrc *x = ud;
    struct ahead *h = x->ahead;
    pthread_mutex_lock(&h->mu);
    for (;;) {
        while (h->count == AHEAD_SLOTS && !h->quit)
            pthread_cond_wait(&h->cv, &h->mu);
        if (h->quit)
            break;
        /* The free slot after the filled ones; the reader's own is among the filled until it lets go. */
        unsigned slot = (h->head + h->count) % AHEAD_SLOTS;
        pthread_mutex_unlock(&h->mu);
        ssize_t n = xz_fill_into(x, h->buf[slot]);
        pthread_mutex_lock(&h->mu);
        if (n <= 0) {
            h->failed = n < 0;
            break;
        }
        h->len[slot] = (size_t)n;
        h->in_at[slot] = x->in_total;
        h->count++;
        pthread_cond_broadcast(&h->cv);
    }
    h->done = true;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

static void
ahead_free(struct xzsrc *x)
{
    struct ahead *h = x->ahead;
    x->ahead = NULL;
    for (unsigned i = 0; i < AHEAD_SLOTS; i++)
        free(h->buf[i]);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

/* Start decoding ahead; false (and decoding stays on the caller's thread) when no thread can be had. */
static bool
ahead_start(struct xzsrc *x)
{
    struct ahead *h = cu_xcalloc(1, sizeof(*h));
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    h->cur = -1;
    for (unsigned i = 0; i < AHEAD_SLOTS; i++)
        h->buf[i] = cu_xmalloc(OUT_BUF);
    x->ahead = h;
    if (pthread_create(&h->th, NULL, ahead_main, x) == 0)
        return true;
    cu_log_debug("no thread to decode ahead on; decoding on the unpacking thread");
    ahead_free(x);
    return false;
}

/* Stop the decoding thread and wait for it; afterwards the reader is the caller's again. */
void
cu_xz_ahead_stop(struct xzsrc *x)
{
    struct ahead *h = x->ahead;
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->quit = true;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->th, NULL);
    ahead_free(x);
}

/* The next decoded bytes, from the thread ahead or decoded here; 0 at the end, -1 on an error. */
ssize_t
cu_xz_next(struct xzsrc *x, const unsigned char **buf)
{
    struct ahead *h = x->ahead;
    if (!h) {
        ssize_t n = xz_fill_into(x, x->out);
        x->in_taken = x->in_total;
        *buf = x->out;
        return n;
    }
    pthread_mutex_lock(&h->mu);
    if (h->cur >= 0) { /* libarchive is done with the slot it had */
        h->head = (h->head + 1) % AHEAD_SLOTS;
        h->count--;
        h->cur = -1;
        pthread_cond_broadcast(&h->cv);
    }
    while (h->count == 0 && !h->done)
        pthread_cond_wait(&h->cv, &h->mu);
    ssize_t n;
    if (h->count > 0) {
        h->cur = (int)h->head;
        *buf = h->buf[h->head];
        n = (ssize_t)h->len[h->head];
        x->in_taken = h->in_at[h->head];
    } else {
        n = h->failed ? -1 : 0;
        *buf = x->out;
    }
    pthread_mutex_unlock(&h->mu);
    return n;
}

la_ssize_t
cu_xz_la_read(struct archive *a, void *ud, const void **buf)
{
    struct xzsrc *x = ud;
    const unsigned char *b;
    ssize_t n = cu_xz_next(x, &b);
    if (n < 0) {
        archive_set_error(a, EIO, "xz");
        return -1;
    }
    *buf = b;
    return n;
}

const char *
cu_xz_error_text(lzma_ret r)
{
    switch (r) {
    case LZMA_FORMAT_ERROR: return _("it is not an xz file (another container or a bare tar under a .tar.xz name)");
    case LZMA_MEMLIMIT_ERROR: return _("it needs more memory to decompress than the limit allows");
    case LZMA_DATA_ERROR: return _("its compressed data is corrupt or followed by garbage");
    case LZMA_BUF_ERROR: return _("it ends too early");
    case LZMA_UNSUPPORTED_CHECK: return _("it uses an integrity check this liblzma does not support");
    case LZMA_OPTIONS_ERROR: return _("it uses unsupported compression options");
    case LZMA_MEM_ERROR: return _("the decompressor ran out of memory");
    default: return _("it cannot be decompressed");
    }
}

void
cu_xz_init(struct xzsrc *xs, const struct cu_extract_opts *o, cu_read_fn rd, void *rd_ud)
{
    memset(xs, 0, sizeof(*xs));
    xs->rd = rd;
    xs->ud = rd_ud;
    xs->cancel = o->cancel;
    xs->what = o->what;
    xs->threads = o->threads;
    xs->z = (lzma_stream)LZMA_STREAM_INIT;
    xs->in = cu_xmalloc(IN_BUF);
    xs->out = cu_xmalloc(OUT_BUF);
    xs->raw = o->gzip || o->zstd;
}

enum cu_status
cu_xz_start(struct xzsrc *xs, const struct cu_extract_opts *o, struct cu_error *err)
{
    if (!xs->raw) {
        /*
         * liblzma's threaded decoder: a stream of several blocks (xz -T) is decoded on up to
         * o->threads cores, within a bounded memory; a single-block stream (NVIDIA's) decodes
         * on the calling thread as before.
         */
        lzma_ret zr;
#if LZMA_VERSION >= 50040002
        lzma_mt mt = {.flags = LZMA_CONCATENATED, .threads = o->threads ? o->threads : 1, .timeout = 0,
                      .memlimit_threading = o->memlimit / 2, .memlimit_stop = o->memlimit};
        zr = mt.threads > 1 ? lzma_stream_decoder_mt(&xs->z, &mt) : lzma_stream_decoder(&xs->z, o->memlimit, LZMA_CONCATENATED);
#else
        zr = lzma_stream_decoder(&xs->z, o->memlimit, LZMA_CONCATENATED);
#endif
        if (zr != LZMA_OK)
            return cu_error_set(err, CU_E_NOMEM, 0, _("Cannot start the xz decoder"));
    }
    if (o->ahead)
        ahead_start(xs);
    return CU_OK;
}

void
cu_xz_fini(struct xzsrc *xs)
{
    cu_xz_ahead_stop(xs);
    lzma_end(&xs->z);
    free(xs->in);
    free(xs->out);
}
