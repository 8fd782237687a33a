/* SPDX-License-Identifier: MIT */
/*
 * The install transaction's pipeline (toolkit_int.h): every archive of a plan is downloaded into
 * the sha256-keyed cache, or read whole from it, and a worker per archive reads it as it lands,
 * hashes it and unpacks it into its own staging folder, the CPUs handed to the decoders in turn
 * (struct cpus).  An archive checked and unpacked goes into the new tree at once (place.c); one
 * that fails its hash is deleted from the cache.
 */
#include "config.h"

#define CU_LOG_TAG "toolkit"
#include "core/install/toolkit_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/unpack/extract.h"
#include "core/fetch/probe.h"
#include "core/unpack/pyarchive.h"
#include "core/unpack/runfile.h"
#include "core/fetch/fetch.h"
#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/base/clock.h"
#include "core/fetch/cache.h"

/*
 * The CPUs, handed to decoders.  More decoders may be under way than there are CPUs, but only
 * as many decode at once as there are CPUs: a decoder waiting for bytes that have not arrived
 * hands its CPU on to one whose bytes have (on a shared link the archives arrive side by side,
 * and no CPU should sit behind a download while another archive lies whole in the cache).  A
 * free CPU goes to the waiting job nearest the front, the critical path first.
 */
struct cpus {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned free;
    bool *waiting; /* by job index */
};

/* Whether a job nearer the front than @idx waits for a CPU (c->mu held). */
static bool
waits_before(const struct cpus *c, size_t idx)
{
    for (size_t i = 0; i < idx; i++)
        if (c->waiting[i])
            return true;
    return false;
}

static void
cpu_take(struct cpus *c, size_t idx)
{
    pthread_mutex_lock(&c->mu);
    c->waiting[idx] = true;
    while (c->free == 0 || waits_before(c, idx))
        pthread_cond_wait(&c->cv, &c->mu);
    c->waiting[idx] = false;
    c->free--;
    pthread_cond_broadcast(&c->cv); /* the next in line may take another free one */
    pthread_mutex_unlock(&c->mu);
}

static void
cpu_give(struct cpus *c)
{
    pthread_mutex_lock(&c->mu);
    c->free++;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* Between two reads: give the CPU up to a job nearer the front that waits for one. */
static void
cpu_yield(struct cpus *c, size_t idx)
{
    pthread_mutex_lock(&c->mu);
    bool before = waits_before(c, idx);
    pthread_mutex_unlock(&c->mu);
    if (before) {
        cpu_give(c);
        cpu_take(c, idx);
    }
}

struct hashing_reader {
    struct cu_stream *s;
    struct cu_sha256 h;
    uint64_t n;
    bool stale;
    struct job *j;
};

static ssize_t
hr_read(void *ud, void *buf, size_t len)
{
    struct hashing_reader *r = ud;
    struct job *j = r->j;
    ssize_t n;
    if (!cu_stream_ready(r->s)) {
        /* Waiting for the download: the CPU goes to a decoder that has bytes. */
        int64_t t0 = cu_mono_us();
        if (j->cpus)
            cpu_give(j->cpus);
        n = cu_stream_read(r->s, buf, len);
        int64_t t1 = cu_mono_us();
        if (j->cpus)
            cpu_take(j->cpus, j->idx);
        j->wait_bytes += t1 - t0;
        j->wait_cpu += cu_mono_us() - t1;
    } else {
        if (j->cpus) {
            int64_t t0 = cu_mono_us();
            cpu_yield(j->cpus, j->idx);
            j->wait_cpu += cu_mono_us() - t0;
        }
        n = cu_stream_read(r->s, buf, len);
    }
    if (n > 0) {
        cu_sha256_update(&r->h, buf, (size_t)n);
        r->n += (uint64_t)n;
    } else if (n == -ESTALE) {
        r->stale = true;
    }
    return n;
}

struct unpack_progress {
    const struct job *j;
};

static void
unpack_progress(void *ud, uint64_t bytes)
{
    const struct job *j = ud;
    struct cu_event e = {.type = CU_EV_PROGRESS, .installer = j->installer, .item = j->d->component,
                         .phase = "unpack", .done = bytes, .total = 0};
    cu_emit(j->ctx->events, &e);
}

static void
run_job(struct job *j)
{
    struct cu_error e;
    enum cu_status st = CU_OK;
    struct hashing_reader hr;
    char sha[65] = "";

    cu_error_clear(&j->result);
    for (int round = 0;; round++) {
        cu_stream_rewind(&j->stream);
        memset(&hr, 0, sizeof(hr));
        hr.s = &j->stream;
        hr.j = j;
        if (cu_sha256_init(&hr.h, &j->result) != CU_OK)
            goto fail;
        cu_error_clear(&e);
        if (j->staging && !j->d->runfile_layout) { /* a runfile is read once it is whole (below) */
            if (cu_rm_rf(j->staging, &j->result) != CU_OK || cu_mkdir_p(j->staging, 0755, &j->result) != CU_OK) {
                cu_sha256_fini(&hr.h);
                goto fail;
            }
            int dfd = open(j->staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd < 0) {
                cu_error_set(&j->result, CU_E_IO, errno, _("Cannot open %s"), j->staging);
                cu_sha256_fini(&hr.h);
                goto fail;
            }
            const char *base = strrchr(j->d->relative_path, '/');
            struct cu_pyfull pf = {0};
            struct cu_extract_opts o = {
                .dirfd = dfd,
                .what = base ? base + 1 : j->d->relative_path,
                .gzip = cu_str_has_suffix(j->d->relative_path, ".tar.gz") || cu_str_has_suffix(j->d->relative_path, ".tgz"),
                .zstd = cu_str_has_suffix(j->d->relative_path, ".tar.zst"),
                .rename = cu_pyarchive_is_full(j->d->archive_layout) ? cu_pyfull_rename : NULL,
                .rename_ud = &pf,
                .threads = j->threads,
                .ahead = j->ahead,
                .cancel = j->stop,
                .progress = unpack_progress,
                .userdata = j,
            };
            cu_extract_result_fini(&j->res);
            st = cu_extract(&o, hr_read, &hr, &j->res, &e);
            cu_pyfull_fini(&pf);
            close(dfd);
        } else {
            unsigned char buf[1 << 16];
            ssize_t n;
            while ((n = hr_read(&hr, buf, sizeof(buf))) > 0)
                ;
            st = n == 0 ? CU_OK : CU_E_NETWORK;
            if (n < 0 && n != -ESTALE)
                cu_error_set(&e, n == -ECANCELED ? CU_E_CANCELLED : CU_E_NETWORK, 0, "%s", _("Interrupted"));
        }
        if (hr.stale && round < 8) {
            cu_sha256_fini(&hr.h);
            continue; /* the download started over from byte 0 */
        }
        break;
    }
    /* What arrived first: a download that was not the file is deleted, whatever else happened. */
    struct cu_error wres;
    cu_stream_wait(&j->stream, &wres);
    if (wres.code == CU_E_CHECKSUM) {
        cu_sha256_fini(&hr.h);
        j->result = wres;
        unlink(j->partial); /* what arrived is not the file: never resume from it */
        CU_AUTOFREE char *meta = cu_xasprintf("%s.meta", j->partial);
        unlink(meta);
        goto fail;
    }
    /*
     * The archive was not read to its end (cu_extract reads on after its own errors, the
     * disk's included, so this is the others stopping us, or the user).  Nothing is known
     * of these bytes: they stay for the next run, never judged by a hash of part of them.
     */
    if ((hr.n < j->d->size || j->d->size_unknown) &&
        (atomic_load(j->stop) || st == CU_E_CANCELLED || e.code == CU_E_CANCELLED)) {
        cu_sha256_fini(&hr.h);
        cu_error_set(&j->result, CU_E_CANCELLED, 0, _("Interrupted"));
        goto fail;
    }
    cu_sha256_final(&hr.h, sha);
    cu_sha256_fini(&hr.h);

    if (atomic_load(j->stop) && (wres.code == CU_E_CANCELLED || st == CU_E_CANCELLED)) {
        cu_error_set(&j->result, CU_E_CANCELLED, 0, _("Interrupted"));
        goto fail;
    }
    if (wres.code != CU_OK) {
        j->result = wres;
        goto fail;
    }
    if ((!j->d->size_unknown && hr.n != j->d->size) || strcmp(sha, j->d->sha256) != 0) {
        const char *base = strrchr(j->d->relative_path, '/');
        if (j->cached && !j->refetched) {
            /* A damaged copy in the cache (a disk's error, a hand's edit): it goes, and the archive is
             * downloaded again in this run (cu_pipeline's next round); the others go on meanwhile. */
            cu_log_warn(_("%s in the cache was damaged (sha256 %.16s..., expected %.16s...); it was deleted and is downloaded again"),
                        base ? base + 1 : j->d->relative_path, sha, j->d->sha256);
            struct stat now;
            if (stat(j->final, &now) == 0 && now.st_dev == j->cached_dev && now.st_ino == j->cached_ino)
                unlink(j->final); /* that copy, not one another run has put there since */
            j->refetch = true;
            cu_error_clear(&j->result);
            return;
        }
        if (j->d->size_unknown)
            cu_error_set(&j->result, CU_E_CHECKSUM, 0,
                         _("%s did not match its checksum (%llu bytes, sha256 %.16s..., expected %.16s...); the file was deleted"),
                         base ? base + 1 : j->d->relative_path, (unsigned long long)hr.n, sha, j->d->sha256);
        else
            cu_error_set(&j->result, CU_E_CHECKSUM, 0,
                         _("%s did not match its checksum (%llu bytes, sha256 %.16s..., expected %llu bytes, %.16s...); the file was deleted"),
                         base ? base + 1 : j->d->relative_path, (unsigned long long)hr.n, sha,
                         (unsigned long long)j->d->size, j->d->sha256);
        unlink(j->partial);
        unlink(j->final);
        CU_AUTOFREE char *meta = cu_xasprintf("%s.meta", j->partial);
        unlink(meta);
        goto fail;
    }
    if (st != CU_OK) {
        j->result = e; /* the published archive itself is bad: a hostile or broken archive */
        goto fail;
    }
    if (j->staging) {
        /* This archive is checked and unpacked: the front ends count it towards the whole. */
        struct cu_event ue = {.type = CU_EV_PROGRESS, .installer = j->installer, .item = j->d->component,
                              .phase = "unpacked", .done = hr.n, .total = hr.n};
        cu_emit(j->ctx->events, &ue);
    }
    if (!j->cached) {
        if (rename(j->partial, j->final) != 0) {
            cu_error_set(&j->result, CU_E_IO, errno, _("Cannot keep %s in the cache"), j->final);
            goto fail;
        }
        CU_AUTOFREE char *meta = cu_xasprintf("%s.meta", j->partial);
        unlink(meta);
    }
    if (j->staging && j->d->runfile_layout) {
        const char *rb = strrchr(j->d->relative_path, '/');
        cu_extract_result_fini(&j->res);
        if (cu_runfile_stage(j->final, rb ? rb + 1 : j->d->relative_path, j->d->sha256, j->d->runfile_layout,
                             j->staging, j->ctx->plan->components, j->stop, &j->res, &j->result) != CU_OK)
            goto fail;
    }
    /* No serial tail: this component goes into the new tree now, while the others still arrive. */
    if (j->place_into && cu_place_job(j->place_into, j, &j->result) != CU_OK)
        goto fail;
    return;
fail:
    atomic_store(j->stop, 1);
}

struct pool {
    struct job **jobs; /* this round's, largest first */
    size_t n;
    pthread_mutex_t mu;
    size_t next;
    atomic_size_t finished;
    struct cpus *cpus;
    int64_t t0; /* microseconds: when the pipeline started, for the log */
};

static void *
worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            break;
        struct job *j = p->jobs[i];
        struct timespec c0, c1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        int64_t begin = cu_mono_us();
        if (p->cpus)
            cpu_take(p->cpus, i);
        j->wait_cpu = cu_mono_us() - begin;
        run_job(j);
        cu_cache_release(j->ctx->cache_dir, j->d->sha256, &j->lock); /* kept, or given up: another run may have it */
        if (p->cpus)
            cpu_give(p->cpus);
        int64_t end = cu_mono_us();
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        if (j->result.code == CU_OK)
            cu_log_debug("%s: from %.2f s to %.2f s: %.2f s of CPU on its unpacking thread, %.2f s waiting for bytes, %.2f s for a CPU",
                         j->d->component, (double)(begin - p->t0) / 1e6, (double)(end - p->t0) / 1e6,
                         (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9,
                         (double)j->wait_bytes / 1e6, (double)j->wait_cpu / 1e6);
        atomic_fetch_add(&p->finished, 1);
    }
    return NULL;
}

static int
by_size_desc(const void *a, const void *b)
{
    const struct job *x = a, *y = b;
    return (x->d->size < y->d->size) - (x->d->size > y->d->size);
}

void
cu_pipeline_jobs_fini(struct job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].stream_open)
            cu_stream_fini(&jobs[i].stream);
        cu_cache_release(jobs[i].ctx->cache_dir, jobs[i].d->sha256, &jobs[i].lock);
        free(jobs[i].final);
        free(jobs[i].partial);
        free(jobs[i].staging);
        cu_extract_result_fini(&jobs[i].res);
    }
    free(jobs);
}

/*
 * One round of the pipeline over @js[0..@n) (largest first): hold their archives in the cache,
 * read those it holds whole from there, ask for every other before the first byte is fetched, then
 * download and consume them all at once.  A job whose cached copy failed its hash comes back with
 * ->refetch set and no error.
 */
static enum cu_status
run_round(const struct cu_run_ctx *ctx, struct job **js, size_t n, atomic_int *stop, const char **culprit,
          struct cu_error *err)
{
    enum cu_status st = CU_OK;
    atomic_store(stop, 0);

    /* Another run sharing the cache may be fetching the same archives: wait for it (core/fetch/cache.h). */
    const char **sha = cu_xcalloc(n + 1, sizeof(*sha)), **name = cu_xcalloc(n + 1, sizeof(*name));
    int *lock = cu_xcalloc(n + 1, sizeof(*lock));
    for (size_t i = 0; i < n; i++) {
        sha[i] = js[i]->d->sha256;
        name[i] = js[i]->d->component;
    }
    st = cu_cache_hold(ctx->cache_dir, sha, name, n, ctx->cancel, lock, err);
    for (size_t i = 0; i < n; i++)
        js[i]->lock = lock[i];
    free(sha);
    free(name);
    free(lock);

    /* What the cache holds whole is read from there; every other archive is asked for (core/fetch/probe.h)
     * before the first byte of any is fetched, so that all that are missing are named at once. */
    struct cu_probe_item *probes = cu_xcalloc(n + 1, sizeof(*probes));
    size_t n_probes = 0;
    for (size_t i = 0; i < n && st == CU_OK; i++) {
        struct job *j = js[i];
        struct stat sb;
        /* A file of unknown size is in the cache only after its hash matched (run_job renames it there). */
        j->cached = stat(j->final, &sb) == 0 && (j->d->size_unknown ? sb.st_size > 0 : (uint64_t)sb.st_size == j->d->size);
        j->have = j->cached ? (uint64_t)sb.st_size : j->d->size;
        j->cached_dev = j->cached ? sb.st_dev : 0;
        j->cached_ino = j->cached ? sb.st_ino : 0;
        if (j->cached) /* whole and only read: another run may use it meanwhile */
            cu_cache_release(ctx->cache_dir, j->d->sha256, &j->lock);
        else
            probes[n_probes++] = (struct cu_probe_item){.url = j->d->url, .name = j->d->component, .size = j->d->size,
                                                        .size_is_limit = j->d->size_unknown};
    }
    if (st == CU_OK && (st = cu_probe_run(ctx->net, probes, n_probes, ctx->jobs ? ctx->jobs : 1, ctx->cancel, err)) != CU_OK) {
        size_t n_failed = 0;
        bool py = false;
        for (size_t i = 0; i < n_probes; i++) {
            if (probes[i].verdict < CU_PROBE_MISSING)
                continue;
            n_failed++;
            py |= strcmp(probes[i].name, "python") == 0;
            for (size_t k = 0; k < n && culprit && !*culprit; k++)
                if (strcmp(js[k]->d->component, probes[i].name) == 0)
                    *culprit = js[k]->installer;
        }
        cu_download_advise(ctx->net, st, py, n_failed, err);
    }
    free(probes);

    struct cu_fetch_item *items = cu_xcalloc(n + 1, sizeof(*items));
    size_t n_items = 0;
    for (size_t i = 0; i < n && st == CU_OK; i++) {
        struct job *j = js[i];
        const char *path = j->cached ? j->final : j->partial;
        if (!j->cached) {
            int fd = open(j->partial, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            if (fd < 0) {
                st = cu_error_set(err, CU_E_IO, errno, _("Cannot write %s"), j->partial);
                break;
            }
            close(fd);
        }
        if ((st = cu_stream_init(&j->stream, path, stop, err)) != CU_OK)
            break;
        j->stream_open = true;
        if (j->cached) {
            cu_stream_advance(&j->stream, j->have);
            cu_stream_finish(&j->stream, NULL);
            struct cu_event e = {.type = CU_EV_PROGRESS, .installer = j->installer, .item = j->d->component,
                                 .phase = "cached", .done = j->have, .total = j->have};
            cu_emit(ctx->events, &e);
        } else {
            items[n_items++] = (struct cu_fetch_item){.url = j->d->url, .name = j->d->component,
                                                      .installer = j->installer, .size = j->d->size,
                                                      .size_is_limit = j->d->size_unknown,
                                                      .partial = j->partial, .stream = &j->stream};
        }
    }
    if (st != CU_OK) {
        free(items);
        return st;
    }

    struct pool p = {.jobs = js, .n = n, .next = 0, .t0 = cu_mono_us()};
    pthread_mutex_init(&p.mu, NULL);
    /*
     * A decoder for each download under way (ctx->jobs at once), so that each archive is decoded
     * as it arrives; but decoding is CPU work, and no more decode at once than the CPUs this
     * process may use (struct cpus).
     */
    unsigned cpus = cu_cpu_count();
    unsigned nthreads = ctx->jobs ? ctx->jobs : 1;
    if (nthreads > n)
        nthreads = (unsigned)n;
    unsigned at_once = nthreads < cpus ? nthreads : cpus;
    struct cpus pool_cpus = {.free = at_once};
    if (nthreads > cpus) {
        pthread_mutex_init(&pool_cpus.mu, NULL);
        pthread_cond_init(&pool_cpus.cv, NULL);
        pool_cpus.waiting = cu_xcalloc(n + 1, sizeof(bool));
        p.cpus = &pool_cpus;
    }
    /* The largest archive is the critical path: its decoder may use every CPU when its xz stream
     * has several blocks; the others share what is left. */
    unsigned share = at_once > 1 ? cpus / at_once : cpus;
    /*
     * Decoding ahead on a thread of its own pays where a core is free for it: with fewer decoders
     * than CPUs, the unpacking and writing of each archive overlap its decoding (12% faster with
     * one decoder on two cores).  With a decoder on every CPU, the threads of the others only take
     * turns and the hand-over costs CPU (6% slower on the full-size plan when all decode ahead);
     * but the largest archive's decoding is the critical path, and taking its writes off that
     * thread pays there too (full-size plan 10% faster, a shared 50 MiB/s link 3%, even elsewhere;
     * scripts/bench-install --ab, README).  CUDAUP_DECODE_AHEAD=1 or 0 (README "Settings"): every
     * archive, or none.
     */
    const char *da = getenv("CUDAUP_DECODE_AHEAD");
    bool forced = da && (strcmp(da, "0") == 0 || strcmp(da, "1") == 0);
    bool ahead = forced ? strcmp(da, "1") == 0 : cpus > nthreads;
    bool ahead_first = forced ? ahead : cpus > 1;
    for (size_t i = 0; i < n; i++) {
        js[i]->threads = i == 0 ? cpus : share > 0 ? share : 1;
        js[i]->ahead = ahead || (i == 0 && ahead_first);
        js[i]->cpus = p.cpus;
        js[i]->idx = i;
    }
    cu_log_debug("%u decoders, at most %u decoding at once on %u CPUs; the largest archive's may use %u threads; decoding %s",
                 nthreads, at_once, cpus, cpus,
                 ahead         ? "ahead of the unpacking, on a thread of its own"
                 : ahead_first ? "the largest archive ahead of its unpacking, on a thread of its own; the others on the unpacking thread"
                               : "on the unpacking thread");
    pthread_t *th = cu_xcalloc(nthreads + 1, sizeof(*th));
    unsigned started = 0;
    for (unsigned i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, worker, &p) == 0)
            started++;
    if (started == 0)
        worker(&p); /* no threads to be had: do it here, serially */

    struct cu_error ferr;
    cu_error_clear(&ferr);
    enum cu_status fst = cu_fetch_run(ctx->net, items, n_items, ctx->jobs ? ctx->jobs : 1, ctx->cancel,
                                      ctx->events, &ferr);
    if (fst != CU_OK)
        atomic_store(stop, 1);
    while (atomic_load(&p.finished) < n) {
        if (ctx->cancel && atomic_load(ctx->cancel))
            atomic_store(stop, 1);
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&p.mu);
    if (p.cpus) {
        pthread_cond_destroy(&pool_cpus.cv);
        pthread_mutex_destroy(&pool_cpus.mu);
        free(pool_cpus.waiting);
    }
    bool py_failed = false; /* the nodes' Python, not NVIDIA's archive: other advice */
    const char *fetch_culprit = NULL;
    for (size_t k = 0; k < n_items; k++) {
        py_failed |= items[k].result.code != CU_OK && strcmp(items[k].name, "python") == 0;
        if (!fetch_culprit && items[k].result.code != CU_OK && items[k].result.code != CU_E_CANCELLED)
            fetch_culprit = items[k].installer;
    }
    free(items);

    /* One sentence: the user's interrupt, else the first real failure. */
    if (ctx->cancel && atomic_load(ctx->cancel)) {
        st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
    } else {
        for (size_t i = 0; i < n && st == CU_OK; i++)
            if (js[i]->result.code != CU_OK && js[i]->result.code != CU_E_CANCELLED) {
                *err = js[i]->result;
                st = err->code;
                if (culprit)
                    *culprit = js[i]->installer;
            }
        if (st == CU_OK && fst != CU_OK) {
            *err = ferr;
            st = fst;
            if (culprit)
                *culprit = fetch_culprit;
        }
    }
    if (st == CU_E_NETWORK)
        cu_download_advise(ctx->net, st, py_failed, 1, err);
    return st;
}

enum cu_status
cu_pipeline(const struct cu_run_ctx *ctx, const struct cu_plan_download *const *dl, size_t n,
            const char *staging_root, struct tree *place_into, struct job **jobs_out, const char **culprit,
            struct cu_error *err)
{
    struct job *jobs = cu_xcalloc(n + 1, sizeof(*jobs));
    atomic_int stop = 0;
    enum cu_status st = CU_OK;
    CU_AUTOFREE char *cache = cu_path_join(ctx->cache_dir, "archives");

    *jobs_out = NULL;
    if ((st = cu_cache_trusted(ctx->cache_dir, err)) != CU_OK || (st = cu_mkdir_p(cache, 0755, err)) != CU_OK) {
        free(jobs);
        return st;
    }
    for (size_t i = 0; i < n; i++) {
        struct job *j = &jobs[i];
        j->d = dl[i];
        j->ctx = ctx;
        j->stop = &stop;
        j->installer = cu_product_name(dl[i]->product);
        j->lock = -1;
        const char *ext = strstr(dl[i]->relative_path, ".tar.");
        j->final = cu_xasprintf("%s/%s%s", cache, dl[i]->sha256, ext && !strchr(ext, '/') ? ext : ".tar.xz");
        j->partial = cu_xasprintf("%s/%s.partial", cache, dl[i]->sha256);
        if (staging_root)
            j->staging = cu_xasprintf("%s/c/%s", staging_root, dl[i]->component);
        j->place_into = place_into;
    }
    qsort(jobs, n, sizeof(*jobs), by_size_desc); /* the critical path starts first */

    struct job **js = cu_xcalloc(n + 1, sizeof(*js));
    for (size_t i = 0; i < n; i++)
        js[i] = &jobs[i];
    st = run_round(ctx, js, n, &stop, culprit, err);
    /* A damaged copy in the cache is downloaded again now, not left to fail the run (issue 33 item 8). */
    size_t again = 0;
    for (size_t i = 0; st == CU_OK && i < n; i++) {
        struct job *j = &jobs[i];
        if (!j->refetch)
            continue;
        if (j->stream_open)
            cu_stream_fini(&j->stream);
        j->stream_open = false;
        j->refetch = false;
        j->refetched = true;
        j->cached = false;
        cu_error_clear(&j->result);
        cu_extract_result_fini(&j->res);
        js[again++] = j;
    }
    if (st == CU_OK && again > 0)
        st = run_round(ctx, js, again, &stop, culprit, err);
    free(js);
    if (st != CU_OK) {
        cu_pipeline_jobs_fini(jobs, n);
        return st;
    }
    *jobs_out = jobs;
    return CU_OK;
}
