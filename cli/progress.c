/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/resolve/plan.h"
#include "core/base/clock.h"
#include "installers/pipprog.h"
#include "report.h"
#include "term.h"

enum { RATE_SAMPLES = 32, RATE_WINDOW_MS = 6000, RATE_MIN_MS = 500 };

struct item {
    char *name;
    char phase[16];
    uint64_t done, total;     /* the last event's */
    uint64_t dl_done, dl_total; /* downloaded of the archive's size (the cache counts as downloaded) */
    bool unpacked;            /* checked and unpacked */
    int64_t last_json_ms;
    bool announced; /* the line for its end was printed */
    bool planned;   /* one of the plan's archives: its size is in the totals from the start */
    bool from_store; /* from the cache or already in place: not counted in the speed */
};

struct cu_progress {
    struct cu_app *app;
    pthread_mutex_t mu;
    bool tty;
    bool line_open;
    struct item *items;
    size_t n;
    int64_t last_draw_ms, start_ms, last_line_ms;
    bool planned; /* the totals are the plan's: archives outside it are not counted */
    bool dl_only; /* `mirror`: the archives are downloaded and checked, never unpacked */
    uint64_t kept_bytes; /* bytes from the cache or already in place */
    /* The speed is the bytes fetched over the last seconds (RATE_WINDOW_MS), sampled as the line is drawn:
     * an average since the start fell to "4 B/s" after a long driver step or downloads from the cache. */
    int64_t samp_ms[RATE_SAMPLES];
    uint64_t samp_bytes[RATE_SAMPLES];
    size_t n_samp, samp_next;
    /* A failed step's line waits: the command's own error line says the same sentence at the end, so it is
     * said once (cu_progress_end); anything else printed after it lets it out first. */
    char *held_installer, *held_msg;
    /* The stages: the archives (download, check, unpack, put in place), then the Python
     * environment (create it, pip), each numbered "[k/n]" when the plan has both. */
    int n_stages;
    struct cu_env_figures envf;
};


struct cu_progress *
cu_progress_new(struct cu_app *app)
{
    struct cu_progress *p = cu_xcalloc(1, sizeof(*p));
    p->app = app;
    pthread_mutex_init(&p->mu, NULL);
    p->tty = isatty(STDERR_FILENO) && !app->cfg.json;
    p->dl_only = app->cfg.command == CU_CMD_MIRROR;
    p->start_ms = cu_mono_ms();
    return p;
}

void
cu_progress_free(struct cu_progress *p)
{
    if (!p)
        return;
    cu_progress_flush(p);
    for (size_t i = 0; i < p->n; i++)
        free(p->items[i].name);
    free(p->items);
    free(p->held_installer);
    free(p->held_msg);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static struct item *
item(struct cu_progress *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->items[i].name, name) == 0)
            return &p->items[i];
    p->items = cu_xreallocarray(p->items, p->n + 1, sizeof(*p->items));
    struct item *it = &p->items[p->n++];
    memset(it, 0, sizeof(*it));
    it->name = cu_xstrdup(name);
    return it;
}

static void
json_line(const struct cu_event *e)
{
    static const char *const types[] = {"step-start", "progress", "log", "step-done"};
    json_t *o = json_object();
    json_object_set_new(o, "event", json_string(types[e->type]));
    if (e->installer)
        json_object_set_new(o, "installer", json_string(e->installer));
    if (e->item)
        json_object_set_new(o, "item", json_string(e->item));
    if (e->phase)
        json_object_set_new(o, "phase", json_string(e->phase));
    if (e->type == CU_EV_PROGRESS) {
        json_object_set_new(o, "done", json_integer((json_int_t)e->done));
        json_object_set_new(o, "total", json_integer((json_int_t)e->total));
        if (e->item && strcmp(e->item, "environment") == 0) {
            json_object_set_new(o, "so_far", json_integer((json_int_t)e->so_far));
            json_object_set_new(o, "files", json_integer((json_int_t)e->files));
        }
    }
    if (e->message)
        json_object_set_new(o, "message", json_string(e->message));
    if (e->type == CU_EV_STEP_DONE) {
        json_object_set_new(o, "status", json_string(e->status == CU_OK ? "ok" : "failed"));
        json_object_set_new(o, "changed", json_boolean(e->changed));
    }
    char *s = json_dumps(o, JSON_COMPACT);
    fprintf(stderr, "%s\n", s);
    free(s);
    json_decref(o);
}

/* The figures of the whole run: bytes downloaded of all archives, and archives unpacked (downloaded, for
 * `mirror`, which unpacks nothing). */
struct figures {
    int pct;
    const char *stage; /* NULL while the bytes still come: "downloaded" in the line says it */
    uint64_t done, total, rate; /* rate 0: no byte came over the last seconds (none is shown) */
    long left_s; /* -1: not known */
    size_t n_unpacked, n;
};

/* Bytes per second over the last RATE_WINDOW_MS, from the samples; 0 when none came or too little time passed. */
static uint64_t
rate_now(struct cu_progress *p, uint64_t fetched, int64_t now)
{
    size_t last = (p->samp_next + RATE_SAMPLES - 1) % RATE_SAMPLES;
    if (!p->n_samp || now - p->samp_ms[last] >= 250) {
        p->samp_ms[p->samp_next] = now;
        p->samp_bytes[p->samp_next] = fetched;
        p->samp_next = (p->samp_next + 1) % RATE_SAMPLES;
        if (p->n_samp < RATE_SAMPLES)
            p->n_samp++;
    }
    /* The oldest sample still inside the window. */
    int64_t t0 = 0;
    uint64_t b0 = 0;
    bool have = false;
    for (size_t k = 0; k < p->n_samp; k++) {
        size_t i = (p->samp_next + RATE_SAMPLES - p->n_samp + k) % RATE_SAMPLES;
        if (now - p->samp_ms[i] <= RATE_WINDOW_MS) {
            t0 = p->samp_ms[i];
            b0 = p->samp_bytes[i];
            have = true;
            break;
        }
    }
    if (!have || now - t0 < RATE_MIN_MS || fetched <= b0)
        return 0;
    return (uint64_t)((double)(fetched - b0) * 1000.0 / (double)(now - t0));
}

static void
figures(struct cu_progress *p, struct figures *f)
{
    uint64_t done = 0, total = 0, unpacked = 0;
    size_t n = 0, n_unpacked = 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct item *it = &p->items[i];
        if (!it->dl_total || (p->planned && !it->planned))
            continue;
        n++;
        total += it->dl_total;
        done += it->dl_done < it->dl_total ? it->dl_done : it->dl_total;
        bool over = p->dl_only ? it->dl_done >= it->dl_total : it->unpacked;
        if (over) {
            n_unpacked++;
            unpacked += it->dl_total;
        }
    }
    uint64_t fetched = done > p->kept_bytes ? done - p->kept_bytes : 0;
    uint64_t rate = done < total ? rate_now(p, fetched, cu_mono_ms()) : 0;
    /* Half for the bytes, half for the archives unpacked; `mirror`'s are whole once downloaded and checked. */
    int pct = !total      ? 0
              : p->dl_only ? (int)(100.0 * (double)done / (double)total)
                           : (int)(100.0 * ((double)done + (double)unpacked) / (2.0 * (double)total));
    if (pct > 99)
        pct = 99; /* 100 is for the end, when the files are in place */
    *f = (struct figures){.pct = pct, .done = done, .total = total, .rate = rate, .left_s = -1,
                          .n_unpacked = n_unpacked, .n = n};
    if (rate > 0 && total > done)
        f->left_s = (long)((double)(total - done) / (double)rate);
    f->stage = done < total ? NULL : n_unpacked < n ? _("unpacking") : _("putting files in place");
}

/*
 * The progress line, in at most @width columns (0: no limit).  What does not fit goes in a fixed
 * order, as rustup's, uv's and pip's bars do: the speed first, then the time left, then the
 * counts; the head (percentage, stage, bytes) is cut only when even it alone is too wide.
 */
/* "[1/2] " before the stage's line when the run has two stages; "" otherwise. */
static void
stage_mark(int k, int n, char *buf, size_t len)
{
    if (n > 1)
        snprintf(buf, len, "[%d/%d] ", k, n);
    else
        buf[0] = '\0';
}

/* Fit "@head, @tail1, @tail2" into @width, dropping the tails from the last; the head is cut last. */
static void
fit(const char *head, const char *tail1, const char *tail2, int width, char *buf, size_t len)
{
    for (int drop = 0; drop <= 2; drop++) {
        const char *t1 = drop < 2 ? tail1 : "", *t2 = drop < 1 ? tail2 : "";
        snprintf(buf, len, "%s%s%s%s%s", head, *t1 ? ", " : "", t1, *t2 ? ", " : "", t2);
        if (width <= 0 || cu_text_cols(buf) < (size_t)width)
            return;
    }
    cu_text_cut(buf, (size_t)width - 1);
}

/* The environment's line: pip learns sizes as it goes, so the stage claims no total of its own. */
static void
compose_env(const struct cu_env_figures *e, int k, int n, int width, char *buf, size_t len)
{
    char mark[32], head[256], withmark[300], sofar[96], files[64];
    stage_mark(k, n, mark, sizeof(mark));
    cu_env_figures_text(e, head, sizeof(head), sofar, sizeof(sofar), files, sizeof(files));
    snprintf(withmark, sizeof(withmark), "%s%s", mark, head);
    fit(withmark, sofar, files, width, buf, len);
}

/*
 * What does not fit goes in a fixed order: the archives' count (long, then short), the speed, then the time
 * left; the head (percentage, stage, bytes) is cut only when even it alone is too wide.  At 80 columns a
 * download shows its speed and time left (issue 49: they went first, and an 80-column line had neither).
 */
static void
compose(const struct figures *f, bool dl_only, int k, int n, int width, char *buf, size_t len)
{
    char a[32], b[32], r[32], head[160], speed[48] = "", left[48] = "", counts[96], shortc[64], mark[32];
    stage_mark(k, n, mark, sizeof(mark));
    cu_format_bytes(f->done, a, sizeof(a));
    cu_format_bytes(f->total, b, sizeof(b));
    if (f->stage)
        snprintf(head, sizeof(head), _("%s%3d%% %s: %s of %s downloaded"), mark, f->pct, f->stage, a, b);
    else
        snprintf(head, sizeof(head), _("%s%3d%% %s of %s downloaded"), mark, f->pct, a, b);
    if (f->rate > 0)
        snprintf(speed, sizeof(speed), _("%s/s"), cu_format_bytes(f->rate, r, sizeof(r)));
    if (f->left_s >= 0)
        snprintf(left, sizeof(left), _("%ldm%02lds left"), f->left_s / 60, f->left_s % 60);
    if (dl_only) {
        snprintf(counts, sizeof(counts), _("%zu of %zu archives downloaded"), f->n_unpacked, f->n);
        snprintf(shortc, sizeof(shortc), _("%zu/%zu downloaded"), f->n_unpacked, f->n);
    } else {
        snprintf(counts, sizeof(counts), _("%zu of %zu archives unpacked"), f->n_unpacked, f->n);
        snprintf(shortc, sizeof(shortc), _("%zu/%zu unpacked"), f->n_unpacked, f->n);
    }
    /* 0: everything; 1: the short count; 2: no count; 3: nor speed; 4: nor time left */
    for (int drop = 0; drop <= 4; drop++) {
        const char *ct = drop == 0 ? counts : drop == 1 ? shortc : "";
        const char *sp = drop < 3 ? speed : "", *lf = drop < 4 ? left : "";
        snprintf(buf, len, "%s%s%s%s%s%s", head, *sp || *lf ? " (" : "", sp, *sp && *lf ? ", " : "", lf,
                 *sp || *lf ? ")" : "");
        if (*ct) {
            size_t l = strlen(buf);
            snprintf(buf + l, len - l, ", %s", ct);
        }
        /* The last column stays free: a terminal that wraps on it would leave a line per redraw. */
        if (width <= 0 || cu_text_cols(buf) < (size_t)width)
            return;
    }
    cu_text_cut(buf, (size_t)width - 1);
}

static void
summary(struct cu_progress *p, int width, char *buf, size_t len)
{
    if (p->envf.begun) {
        compose_env(&p->envf, p->n_stages, p->n_stages, width, buf, len);
        return;
    }
    struct figures f;
    figures(p, &f);
    compose(&f, p->dl_only, 1, p->n_stages, width, buf, len);
}

static void
draw(struct cu_progress *p)
{
    char line[512];
    summary(p, cu_term_width(STDERR_FILENO), line, sizeof(line));
    fputs("\r\033[K", stderr); /* back to the start of the line, and clear it */
    fputs(line, stderr);
    p->line_open = true;
}

/* Say the failed step that waited, if one does. */
static void
let_out(struct cu_progress *p)
{
    if (!p->held_installer)
        return;
    if (p->line_open) {
        fputs("\r\033[K", stderr);
        p->line_open = false;
    }
    /* One message, so that a translation puts its own colon after its word ("[cuda] 失败：…"). */
    cu_say(stderr, "cudaup: ", _("[%s] %s: %s"), p->held_installer, _("failed"), p->held_msg);
    cu_clear_ptr(&p->held_installer, free);
    cu_clear_ptr(&p->held_msg, free);
}

static void
on_event(void *ud, const struct cu_event *e)
{
    struct cu_progress *p = ud;
    struct cu_app *app = p->app;
    pthread_mutex_lock(&p->mu);
    if (app->cfg.json) {
        if (e->type == CU_EV_PROGRESS && e->item) {
            struct item *it = item(p, e->item);
            int64_t t = cu_mono_ms();
            bool last = e->total && e->done >= e->total;
            if (t - it->last_json_ms >= 500 || last || strcmp(it->phase, e->phase ? e->phase : "") != 0) {
                it->last_json_ms = t;
                snprintf(it->phase, sizeof(it->phase), "%s", e->phase ? e->phase : "");
                json_line(e);
            }
        } else {
            json_line(e);
        }
        pthread_mutex_unlock(&p->mu);
        return;
    }
    if (e->type == CU_EV_PROGRESS && e->item && strcmp(e->item, "environment") == 0) {
        bool entered = !p->envf.begun;
        bool turned = strcmp(p->envf.phase, e->phase ? e->phase : "") != 0;
        if (entered && p->line_open) {
            fputs("\r\033[K", stderr); /* the archives' line gives way */
            p->line_open = false;
        }
        cu_env_figures_update(&p->envf, e->phase, e->message, e->done, e->total, e->so_far, e->files);
        int64_t now = cu_mono_ms();
        if (app->cfg.quiet) {
            /* nothing */
        } else if (p->tty) {
            if (turned || now - p->last_draw_ms >= 100) {
                p->last_draw_ms = now;
                draw(p);
            }
        } else if (entered || turned || now - p->last_line_ms >= 5000) {
            /* Not a terminal: a line when the stage begins and turns, and every few seconds. */
            char line[512];
            p->last_line_ms = now;
            summary(p, 0, line, sizeof(line));
            fprintf(stderr, "cudaup: %s\n", line);
        }
    } else if (e->type == CU_EV_PROGRESS && e->item) {
        struct item *it = item(p, e->item);
        bool first = strcmp(it->phase, e->phase ? e->phase : "") != 0;
        snprintf(it->phase, sizeof(it->phase), "%s", e->phase ? e->phase : "");
        it->done = e->done;
        it->total = e->total;
        bool stored = strcmp(it->phase, "cached") == 0 || strcmp(it->phase, "kept") == 0;
        if (stored && !it->from_store) {
            it->from_store = true;
            p->kept_bytes += e->total;
        }
        if (strcmp(it->phase, "download") == 0 || strcmp(it->phase, "cached") == 0) {
            it->dl_done = e->done;
            if (e->total && !it->planned)
                it->dl_total = e->total;
        } else if (strcmp(it->phase, "unpacked") == 0 || strcmp(it->phase, "kept") == 0) {
            it->unpacked = true;
            if (!it->dl_total)
                it->dl_total = e->total;
            it->dl_done = it->dl_total;
        }
        int64_t now = cu_mono_ms();
        if (app->cfg.quiet) {
            /* nothing */
        } else if (p->tty) {
            if (now - p->last_draw_ms >= 100) {
                p->last_draw_ms = now;
                draw(p);
            }
        } else if (now - p->last_line_ms >= 5000 && now - p->start_ms >= 5000) {
            /* Not a terminal (a CI log): a line every few seconds, so it never sits silent. */
            char line[512];
            p->last_line_ms = now;
            summary(p, 0, line, sizeof(line));
            fprintf(stderr, "cudaup: %s\n", line);
        }
        if (app->cfg.quiet || p->tty) {
            /* drawn above */
        } else if (first && strcmp(it->phase, "cached") == 0) {
            fprintf(stderr, _("cudaup: %s: from the cache\n"), e->item);
        } else if (e->total && e->done >= e->total && strcmp(it->phase, "download") == 0 && !it->announced) {
            it->announced = true;
            char b[32];
            fprintf(stderr, _("cudaup: %s: downloaded %s\n"), e->item, cu_format_bytes(e->total, b, sizeof(b)));
        }
    } else if (e->type == CU_EV_LOG && !app->cfg.quiet) {
        let_out(p);
        if (p->line_open)
            fputs("\r\033[K", stderr);
        /* A system command's own output (the package manager's, as it comes): indented under its step. */
        bool output = e->phase && strcmp(e->phase, "output") == 0;
        cu_print_wrapped(stderr, output ? "    " : "cudaup: ", e->message, p->tty ? cu_term_width(STDERR_FILENO) : 0);
        if (p->line_open)
            draw(p);
    } else if (e->type == CU_EV_STEP_DONE && !app->cfg.quiet) {
        let_out(p);
        if (e->status != CU_OK) {
            /* Held until the command says its error (the same sentence, most often) or something else follows. */
            p->held_installer = cu_xstrdup(e->installer ? e->installer : "");
            p->held_msg = cu_xstrdup(e->message ? e->message : "");
            pthread_mutex_unlock(&p->mu);
            return;
        }
        if (p->line_open) {
            fputs("\r\033[K", stderr);
            p->line_open = false;
        }
        const char *mark = e->status != CU_OK ? _("failed") : e->changed ? _("done") : _("unchanged");
        /* One message, so that a translation puts its own colon after its word ("[cuda] 完成：…"). */
        cu_say(stderr, "cudaup: ", _("[%s] %s: %s"), e->installer, mark, e->message ? e->message : "");
    }
    pthread_mutex_unlock(&p->mu);
}

void
cu_progress_set_plan(struct cu_progress *p, const struct cu_plan *plan)
{
    pthread_mutex_lock(&p->mu);
    p->planned = true;
    uint64_t bytes = 0;
    size_t n = 0;
    for (size_t i = 0; i < plan->n_downloads + 1; i++) {
        const struct cu_plan_download *d = i < plan->n_downloads ? &plan->downloads[i]
                                           : plan->python && plan->python->dl.url ? &plan->python->dl
                                                                                   : NULL;
        if (!d || d->size_unknown || !d->size)
            continue; /* a size the source does not publish cannot be promised */
        struct item *it = item(p, d->component);
        it->planned = true;
        it->dl_total = d->size;
        bytes += d->size;
        n++;
    }
    bool env = plan->framework && plan->env.tool && strcmp(plan->env.tool, "none") != 0;
    bool archives = plan->n_downloads > 0 || (plan->python && plan->python->dl.url);
    p->n_stages = (archives ? 1 : 0) + (env ? 1 : 0);
    if (p->app->cfg.json) {
        /* The totals once, before the first progress line: they do not change during the run. */
        json_t *o = json_object();
        json_object_set_new(o, "event", json_string("totals"));
        json_object_set_new(o, "download_bytes", json_integer((json_int_t)bytes));
        json_object_set_new(o, "archives", json_integer((json_int_t)n));
        json_t *stages = json_array();
        if (archives)
            json_array_append_new(stages, json_string("archives"));
        if (env)
            json_array_append_new(stages, json_string("environment"));
        json_object_set_new(o, "stages", stages);
        char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
        fprintf(stderr, "%s\n", s);
        free(s);
        json_decref(o);
    }
    pthread_mutex_unlock(&p->mu);
}

struct cu_events
cu_progress_events(struct cu_progress *p)
{
    return (struct cu_events){on_event, p};
}

void
cu_progress_end(struct cu_progress *p, const struct cu_error *err)
{
    pthread_mutex_lock(&p->mu);
    /* The failed step's sentence is the error the command prints next: said there, once (issue 49). */
    if (p->held_msg && err && strcmp(p->held_msg, cu_error_text(err)) == 0) {
        cu_clear_ptr(&p->held_installer, free);
        cu_clear_ptr(&p->held_msg, free);
    }
    pthread_mutex_unlock(&p->mu);
    cu_progress_flush(p);
}

void
cu_progress_flush(struct cu_progress *p)
{
    pthread_mutex_lock(&p->mu);
    let_out(p);
    if (p->line_open) {
        fputs("\n", stderr);
        p->line_open = false;
    }
    pthread_mutex_unlock(&p->mu);
}
