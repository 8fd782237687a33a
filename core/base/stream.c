/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/i18n.h"

enum cu_status
cu_stream_init(struct cu_stream *s, const char *path, const atomic_int *cancel, struct cu_error *err)
{
    memset(s, 0, sizeof(*s));
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot read %s"), path);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->cancel = cancel;
    cu_error_clear(&s->result);
    return CU_OK;
}

void
cu_stream_fini(struct cu_stream *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
}

void
cu_stream_advance(struct cu_stream *s, uint64_t avail)
{
    pthread_mutex_lock(&s->mu);
    s->avail = avail;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void
cu_stream_restart(struct cu_stream *s)
{
    pthread_mutex_lock(&s->mu);
    s->avail = 0;
    s->generation++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void
cu_stream_finish(struct cu_stream *s, const struct cu_error *result)
{
    pthread_mutex_lock(&s->mu);
    s->done = true;
    if (result)
        s->result = *result;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void
timed_wait(struct cu_stream *s)
{
    /* Woken by the writer; the timeout only bounds how late a cancel is seen. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100 * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&s->cv, &s->mu, &ts);
}

ssize_t
cu_stream_read(struct cu_stream *s, void *buf, size_t len)
{
    uint64_t avail;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (s->cancel && atomic_load(s->cancel)) {
            pthread_mutex_unlock(&s->mu);
            return -ECANCELED;
        }
        if (s->generation != s->reader_gen) {
            pthread_mutex_unlock(&s->mu);
            return -ESTALE;
        }
        if (s->pos < s->avail)
            break;
        if (s->done) {
            bool ok = s->result.code == CU_OK;
            pthread_mutex_unlock(&s->mu);
            return ok ? 0 : -EIO;
        }
        timed_wait(s);
    }
    avail = s->avail;
    uint64_t pos = s->pos;
    pthread_mutex_unlock(&s->mu);

    size_t n = avail - pos < len ? (size_t)(avail - pos) : len;
    ssize_t r;
    do
        r = pread(s->fd, buf, n, (off_t)pos);
    while (r < 0 && errno == EINTR);
    int e = r < 0 ? errno : 0;
    pthread_mutex_lock(&s->mu);
    if (s->generation != s->reader_gen)
        r = -ESTALE; /* the writer started over while we read: whatever we got is stale */
    else if (r < 0)
        r = -e;
    else if (r == 0)
        r = -EIO; /* shorter than the writer said, and not because it started over */
    else
        s->pos = pos + (uint64_t)r;
    pthread_mutex_unlock(&s->mu);
    return r;
}

bool
cu_stream_ready(struct cu_stream *s)
{
    pthread_mutex_lock(&s->mu);
    bool r = s->pos < s->avail || s->done || s->generation != s->reader_gen || (s->cancel && atomic_load(s->cancel));
    pthread_mutex_unlock(&s->mu);
    return r;
}

void
cu_stream_rewind(struct cu_stream *s)
{
    pthread_mutex_lock(&s->mu);
    s->reader_gen = s->generation;
    s->pos = 0;
    pthread_mutex_unlock(&s->mu);
}

void
cu_stream_wait(struct cu_stream *s, struct cu_error *result)
{
    pthread_mutex_lock(&s->mu);
    while (!s->done)
        timed_wait(s);
    if (result)
        *result = s->result;
    pthread_mutex_unlock(&s->mu);
}
