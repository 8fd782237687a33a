/* SPDX-License-Identifier: MIT */
/*
 * The wizard's event loop: one poll() on the terminal and the wake pipe, a
 * worker thread for the engine, a queue between them (STYLE 27-33).
 */
#include "config.h"

#include "tui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "core/fsutil.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/mem.h"
#include "core/mirror.h"
#include "core/str.h"
#include "widgets.h"
#include "core/clock.h"

static const struct tui_screen_ops *const screens[SCR_COUNT] = {
    [SCR_WELCOME] = &scr_welcome_ops,     [SCR_EXISTING] = &scr_existing_ops,
    [SCR_SYSTEM] = &scr_system_ops,       [SCR_FRAMEWORK] = &scr_framework_ops,
    [SCR_VERSIONS] = &scr_versions_ops,   [SCR_COMPONENTS] = &scr_components_ops,
    [SCR_LOCATION] = &scr_location_ops,   [SCR_PYENV] = &scr_pyenv_ops,
    [SCR_REVIEW] = &scr_review_ops,       [SCR_PROGRESS] = &scr_progress_ops,
    [SCR_VALIDATION] = &scr_validation_ops, [SCR_DONE] = &scr_done_ops,
};


/* ---- the queue (any thread) --------------------------------------------------------- */

static void
msg_fini(struct tui_msg *m)
{
    free(m->installer);
    free(m->item);
    free(m->phase);
    free(m->message);
}

static void
wake(struct tui *t)
{
    char c = 1;
    ssize_t r = write(t->wake[1], &c, 1);
    (void)r; /* a full pipe already wakes the loop */
}

static void
push(struct tui *t, struct tui_msg *m)
{
    pthread_mutex_lock(&t->mu);
    /* Progress of the same item replaces the last one still queued: the loop draws only the newest. */
    if (m->type == CU_EV_PROGRESS && !m->job && t->n_queue > 0) {
        struct tui_msg *last = &t->queue[t->n_queue - 1];
        if (last->type == CU_EV_PROGRESS && !last->job && last->item && m->item && strcmp(last->item, m->item) == 0 &&
            last->phase && m->phase && strcmp(last->phase, m->phase) == 0) {
            last->done = m->done;
            last->total = m->total;
            pthread_mutex_unlock(&t->mu);
            msg_fini(m);
            return;
        }
    }
    if (t->n_queue == t->cap_queue) {
        t->cap_queue = t->cap_queue ? t->cap_queue * 2 : 64;
        t->queue = cu_xreallocarray(t->queue, t->cap_queue, sizeof(*t->queue));
    }
    t->queue[t->n_queue++] = *m;
    pthread_mutex_unlock(&t->mu);
    wake(t);
}

/* The engine's event sink: copy what the event borrows, queue it. */
static void
job_event(void *userdata, const struct cu_event *ev)
{
    struct tui_job *j = userdata;
    struct tui_msg m = {
        .type = ev->type,
        .installer = ev->installer ? cu_xstrdup(ev->installer) : NULL,
        .item = ev->item ? cu_xstrdup(ev->item) : NULL,
        .phase = ev->phase ? cu_xstrdup(ev->phase) : NULL,
        .message = ev->message ? cu_xstrdup(ev->message) : NULL,
        .done = ev->done,
        .total = ev->total,
        .status = ev->status,
        .changed = ev->changed,
    };
    push(j->t, &m);
}

/* While curses is up the log goes to the file, and warnings wait for endwin (STYLE 42). */
static void
log_sink(void *userdata, enum cu_log_level level, const char *tag, const char *msg)
{
    struct tui *t = userdata;
    if (t->o.log) {
        char ts[32];
        time_t now = time(NULL);
        struct tm tm;
        strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", localtime_r(&now, &tm));
        fprintf(t->o.log, "%s %s %s: %s\n", ts, cu_log_level_name(level), tag, msg);
        fflush(t->o.log);
    }
    if (level > CU_LOG_INFO)
        return;
    struct tui_msg m = {.type = CU_EV_LOG, .message = cu_xstrdup(msg), .log_warning = level <= CU_LOG_WARN};
    push(t, &m);
}

/* ---- jobs (worker thread) ------------------------------------------------------------ */

static void
prepare_in(const struct tui_job *j, struct cu_prepare_in *in)
{
    const struct tui_opts *o = j->o;
    *in = (struct cu_prepare_in){
        .cfg = &j->cfg,
        .facts = o->facts,
        .catalog = o->catalog,
        .envp = o->envp,
        .prefix = j->cfg.prefix ? j->cfg.prefix : o->prefix,
        .state_dir = o->state_dir,
        .cache_dir = o->cache_dir,
        .is_root = o->is_root,
        .low_speed_time_s = o->low_speed_time_s,
        .retry_base_ms = o->retry_base_ms,
    };
}

static void
run_ctx_init(struct tui_job *j)
{
    const struct tui_opts *o = j->o;
    j->evs = (struct cu_events){job_event, j};
    j->ctx = (struct cu_run_ctx){
        .plan = j->plan_in,
        .net = j->net,
        .cache_dir = o->cache_dir,
        .jobs = (unsigned)j->cfg.jobs,
        .cancel = &j->t->cancel,
        .events = &j->evs,
        .envp = o->envp,
        .is_root = o->is_root,
        .profile_d = o->profile_d,
    };
}

static void
run_job(struct tui_job *j)
{
    const struct tui_opts *o = j->o;
    struct cu_prepare_in in;
    struct cu_maint_in mi = {
        .prefix = j->cfg.prefix ? j->cfg.prefix : o->prefix,
        .state_dir = o->state_dir,
        .cache_dir = o->cache_dir,
        .mirror = j->cfg.mirror,
        .catalog = o->catalog,
        .retries = (unsigned)j->cfg.retries,
        .profile_d = o->profile_d,
    };
    prepare_in(j, &in);
    run_ctx_init(j);
    switch (j->kind) {
    case JOB_CUDA_CHOICES:
    case JOB_CUDNN_CHOICES:
        j->status = cu_prepare_choices(&in, j->kind == JOB_CUDA_CHOICES ? CU_PRODUCT_CUDA : CU_PRODUCT_CUDNN,
                                       &j->t->cancel, &j->choices, &j->n_choices, &j->err);
        break;
    case JOB_PLAN:
        j->status = cu_prepare_plan(&in, &j->mirror, &j->plan, &j->err);
        break;
    case JOB_INSTALL:
        j->status = cu_install_run(&j->ctx, &j->err);
        break;
    case JOB_VERIFY: {
        CU_AUTOFREE char *python = NULL, *framework = NULL;
        cu_pyenv_recorded(o->state_dir, &python, &framework);
        struct cu_verify_opts vo = {
            .dir = j->dir,
            .facts = o->facts,
            .cat = o->catalog,
            .deep = j->cfg.deep,
            .require_gpu = j->cfg.require_gpu,
            .timeout_ms = (long)j->cfg.gpu_timeout * 1000,
            .self_exe = o->self_exe,
            .envp = o->envp,
            .python = python,
            .framework = framework,
            .cancel = &j->t->cancel,
        };
        cu_verify_run(&vo, &j->checks);
        j->status = cu_checks_failed(&j->checks) ? CU_E_PROBLEMS : CU_OK;
        break;
    }
    case JOB_REPAIR:
        j->status = cu_repair_run(&mi, j->dir, j->cfg.deep, &j->repaired, &j->ctx, &j->err);
        break;
    case JOB_UNINSTALL:
        j->status = cu_uninstall_run(&mi, j->dir, &j->ctx, &j->err);
        break;
    case JOB_NONE:
    default:
        break;
    }
}

static void *
worker_main(void *arg)
{
    struct tui_job *j = arg;
    run_job(j);
    /* The log holds every failure of the run, with what to do, not only the screen. */
    if (j->status != CU_OK && j->status != CU_E_CANCELLED && j->kind != JOB_VERIFY && j->err.msg[0]) {
        const char *advice = cu_error_advice(&j->err);
        if (advice)
            cu_log_msg(CU_LOG_ERROR, "wizard", "%s (%s)", j->err.msg, advice);
        else
            cu_log_msg(CU_LOG_ERROR, "wizard", "%s", j->err.msg);
    }
    struct tui_msg m = {.type = CU_EV_STEP_DONE, .job = j, .status = j->status};
    push(j->t, &m);
    return NULL;
}

static void
job_free(struct tui_job *j)
{
    if (!j)
        return;
    cu_config_fini(&j->cfg);
    free(j->dir);
    cu_plan_free(j->plan);
    cu_mirror_free(j->mirror);
    cu_choices_free(j->choices, j->n_choices);
    cu_run_ctx_fini(&j->ctx);
    cu_checks_fini(&j->checks);
    cu_strv_free(j->repaired.components);
    free(j);
}

bool
tui_busy(const struct tui *t)
{
    return t->job != NULL;
}

bool
tui_start(struct tui *t, enum tui_job_kind kind, const char *dir)
{
    sigset_t all, old;
    if (t->job)
        return false;
    struct tui_job *j = cu_xcalloc(1, sizeof(*j));
    j->kind = kind;
    cu_config_copy(&j->cfg, &t->ans);
    j->dir = dir ? cu_xstrdup(dir) : NULL;
    j->o = &t->o;
    j->t = t;
    if (kind == JOB_INSTALL) {
        j->plan_in = t->plan;
        j->net = cu_mirror_net(t->mirror);
    }
    cu_error_clear(&j->err);
    atomic_store(&t->cancel, 0);
    for (size_t i = 0; i < t->n_items; i++)
        free(t->items[i].name);
    t->n_items = 0;
    t->step[0] = '\0';
    t->started_ms = cu_mono_ms();
    t->rate_bytes = 0;
    t->rate_ms = t->started_ms;
    t->speed = 0;
    /* Signals belong to the UI thread, whose handler sets the flag it polls. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&t->worker, NULL, worker_main, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        char b[128];
        tui_notice(t, true, _("Cannot start a thread: %s"), cu_strerror(rc, b, sizeof(b)));
        job_free(j);
        return false;
    }
    t->job = j;
    return true;
}

/* ---- messages (UI thread) -------------------------------------------------------------- */

static struct tui_item *
item_of(struct tui *t, const char *name)
{
    for (size_t i = 0; i < t->n_items; i++)
        if (strcmp(t->items[i].name, name) == 0)
            return &t->items[i];
    t->items = cu_xreallocarray(t->items, t->n_items + 1, sizeof(*t->items));
    struct tui_item *it = &t->items[t->n_items++];
    memset(it, 0, sizeof(*it));
    it->name = cu_xstrdup(name);
    return it;
}

static void
log_line(struct tui *t, const char *s)
{
    size_t i = (t->log_head + t->n_log) % TUI_LOG_LINES;
    if (t->n_log == TUI_LOG_LINES) {
        free(t->log[t->log_head]);
        t->log[t->log_head] = NULL;
        t->log_head = (t->log_head + 1) % TUI_LOG_LINES;
        i = (t->log_head + t->n_log - 1) % TUI_LOG_LINES;
    } else {
        t->n_log++;
    }
    t->log[i] = cu_xstrdup(s);
}

static void
set_str(char **dst, char *src)
{
    free(*dst);
    *dst = src;
}

/* The job ended: its results move into struct tui, then the screen hears of it. */
static void
finish_job(struct tui *t, struct tui_job *j)
{
    pthread_join(t->worker, NULL);
    t->job = NULL;
    t->last_job = j->kind;
    t->last_status = j->status;
    t->last_err = j->err;
    t->ended_ms = cu_mono_ms();
    switch (j->kind) {
    case JOB_CUDA_CHOICES:
    case JOB_CUDNN_CHOICES: {
        bool cuda = j->kind == JOB_CUDA_CHOICES;
        struct cu_choice **v = cuda ? &t->cuda_choices : &t->cudnn_choices;
        size_t *n = cuda ? &t->n_cuda_choices : &t->n_cudnn_choices;
        cu_choices_free(*v, *n);
        *v = cu_steal_ptr(&j->choices);
        *n = j->n_choices;
        j->n_choices = 0;
        t->choices_failed[!cuda] = j->status != CU_OK;
        t->choices_err[!cuda] = j->err;
        /* Failures are keyed too: the same answers are not asked again until the user retries. */
        set_str(cuda ? &t->cuda_key : &t->cudnn_key, tui_answers_key(&j->cfg, j->kind));
        break;
    }
    case JOB_PLAN:
        cu_plan_free(t->plan);
        cu_mirror_free(t->mirror);
        t->plan = cu_steal_ptr(&j->plan);
        t->mirror = cu_steal_ptr(&j->mirror);
        t->plan_failed = j->status != CU_OK;
        t->plan_err = j->err;
        set_str(&t->plan_key, tui_answers_key(&j->cfg, JOB_PLAN));
        break;
    case JOB_INSTALL:
        if (j->status == CU_OK && t->plan)
            set_str(&t->target, cu_xstrdup(t->plan->cuda_path));
        break;
    case JOB_VERIFY:
        cu_checks_fini(&t->checks);
        t->checks = j->checks;
        memset(&j->checks, 0, sizeof(j->checks));
        t->checked = true;
        break;
    case JOB_REPAIR:
    case JOB_UNINSTALL:
    case JOB_NONE:
    default:
        break;
    }
    /* The exit status is that of the last thing the wizard did. */
    if (j->kind == JOB_VERIFY)
        t->rc = j->status == CU_OK ? 0 : 4;
    else
        t->rc = j->status == CU_OK ? 0 : cu_status_exit_code(j->status);
}

static void
handle_msg(struct tui *t, struct tui_msg *m)
{
    char b[64];
    switch (m->type) {
    case CU_EV_STEP_START:
        snprintf(t->step, sizeof(t->step), "%s: %s", m->installer ? m->installer : "", m->message ? m->message : "");
        log_line(t, t->step);
        break;
    case CU_EV_PROGRESS:
        if (m->item) {
            struct tui_item *it = item_of(t, m->item);
            snprintf(it->phase, sizeof(it->phase), "%s", m->phase ? m->phase : "");
            if (m->phase && strcmp(m->phase, "unpack") == 0) {
                it->unpacked = m->done;
            } else if (m->phase && strcmp(m->phase, "unpacked") == 0) {
                it->finished = true;
                if (!it->total)
                    it->total = m->total;
                it->done = it->total;
            } else {
                if (m->done > it->done)
                    t->rate_bytes += m->done - it->done;
                it->done = m->done;
                if (m->total)
                    it->total = m->total;
            }
        }
        break;
    case CU_EV_LOG:
        if (m->message) {
            log_line(t, m->message);
            bool seen = false;
            for (size_t i = 0; i < t->n_replay && !seen; i++)
                seen = strcmp(t->replay[i], m->message) == 0;
            if (m->log_warning && !seen) {
                t->replay = cu_xreallocarray(t->replay, t->n_replay + 1, sizeof(char *));
                t->replay[t->n_replay++] = cu_xstrdup(m->message);
            }
        }
        break;
    case CU_EV_STEP_DONE:
        if (m->job)
            break;
        snprintf(b, sizeof(b), "%s", m->status == CU_OK ? (m->changed ? _("done") : _("unchanged")) : _("failed"));
        {
            CU_AUTOFREE char *line = cu_xasprintf("%s: %s (%s)", m->installer ? m->installer : "",
                                                  m->message ? m->message : "", b);
            log_line(t, line);
            if (t->o.log) {
                fprintf(t->o.log, "%s %s\n", m->status == CU_OK ? "step" : "step failed:", line);
                fflush(t->o.log);
            }
        }
        break;
    }
    struct tui_job *j = m->job;
    if (j)
        finish_job(t, j);
    if (screens[t->scr]->on_event)
        screens[t->scr]->on_event(t, m);
    job_free(j);
}

static void
drain(struct tui *t)
{
    char buf[256];
    while (read(t->wake[0], buf, sizeof(buf)) > 0)
        ;
    for (;;) {
        pthread_mutex_lock(&t->mu);
        struct tui_msg *q = t->queue;
        size_t n = t->n_queue;
        t->queue = NULL;
        t->n_queue = t->cap_queue = 0;
        pthread_mutex_unlock(&t->mu);
        if (!n) {
            free(q);
            break;
        }
        for (size_t i = 0; i < n; i++) {
            handle_msg(t, &q[i]);
            msg_fini(&q[i]);
        }
        free(q);
    }
    /* A smoothed download speed, from the bytes seen since the last sample. */
    int64_t now = cu_mono_ms();
    if (t->job && now - t->rate_ms >= 500) {
        double inst = (double)t->rate_bytes * 1000.0 / (double)(now - t->rate_ms);
        t->speed = t->speed == 0 ? inst : 0.7 * t->speed + 0.3 * inst;
        t->rate_bytes = 0;
        t->rate_ms = now;
    }
}

/* ---- answers and navigation ---------------------------------------------------------- */

void
tui_set_answer(struct tui *t, char **field, const char *value)
{
    (void)t;
    free(*field);
    *field = value && *value ? cu_xstrdup(value) : NULL;
}

static const char *
or_empty(const char *s)
{
    return s ? s : "";
}

char *
tui_answers_key(const struct cu_config *a, enum tui_job_kind kind)
{
    switch (kind) {
    case JOB_CUDA_CHOICES:
        return cu_xasprintf("%s|%s|%s|%s|%s", or_empty(a->framework), or_empty(a->python), or_empty(a->cudnn),
                            or_empty(a->platform), or_empty(a->mirror));
    case JOB_CUDNN_CHOICES:
        return cu_xasprintf("%s|%s|%s|%s|%s", or_empty(a->cuda), or_empty(a->framework), or_empty(a->python),
                            or_empty(a->platform), or_empty(a->mirror));
    default:
        return cu_xasprintf("%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s", or_empty(a->cuda), or_empty(a->cudnn),
                            or_empty(a->framework), or_empty(a->python), or_empty(a->components),
                            or_empty(a->env_scope), or_empty(a->shell_rc), or_empty(a->env_tool),
                            or_empty(a->env_name), or_empty(a->platform), or_empty(a->mirror), or_empty(a->prefix),
                            or_empty(a->python_source));
    }
}

bool
tui_stale(const struct tui *t, enum tui_job_kind kind)
{
    const char *have = kind == JOB_CUDA_CHOICES ? t->cuda_key : kind == JOB_CUDNN_CHOICES ? t->cudnn_key : t->plan_key;
    CU_AUTOFREE char *want = tui_answers_key(&t->ans, kind);
    return !have || strcmp(have, want) != 0;
}

void
tui_refresh(struct tui *t, enum tui_job_kind kind)
{
    if (!tui_busy(t) && tui_stale(t, kind))
        tui_start(t, kind, NULL);
}

void
tui_notice(struct tui *t, bool bad, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->message, sizeof(t->message), fmt, ap);
    va_end(ap);
    t->message_bad = bad;
}

static void
show(struct tui *t, enum tui_scr s)
{
    if (screens[t->scr]->leave)
        screens[t->scr]->leave(t);
    t->scr = s;
    memset(&t->cur, 0, sizeof(t->cur));
    t->message[0] = '\0';
    if (screens[s]->enter)
        screens[s]->enter(t);
}

void
tui_goto(struct tui *t, enum tui_scr s)
{
    if (s == t->scr)
        return;
    if (t->n_history < (int)(sizeof(t->history) / sizeof(t->history[0])))
        t->history[t->n_history++] = t->scr;
    show(t, s);
}

void
tui_back(struct tui *t)
{
    /* A job's screen is never gone back to: entering it would start the job again. */
    while (t->n_history > 0 && t->history[t->n_history - 1] == SCR_PROGRESS && t->scr != SCR_PROGRESS)
        t->n_history--;
    if (t->n_history == 0)
        return;
    show(t, t->history[--t->n_history]);
}

static bool
wants_framework(const struct tui *t)
{
    return !(t->ans.framework && strcmp(t->ans.framework, "none") == 0);
}

void
tui_next(struct tui *t)
{
    switch (t->scr) {
    case SCR_WELCOME: tui_goto(t, t->existing ? SCR_EXISTING : SCR_SYSTEM); break;
    case SCR_EXISTING: tui_goto(t, SCR_SYSTEM); break;
    case SCR_SYSTEM: tui_goto(t, SCR_FRAMEWORK); break;
    case SCR_FRAMEWORK: tui_goto(t, SCR_VERSIONS); break;
    case SCR_VERSIONS: tui_goto(t, SCR_COMPONENTS); break;
    case SCR_COMPONENTS: tui_goto(t, SCR_LOCATION); break;
    case SCR_LOCATION: tui_goto(t, wants_framework(t) ? SCR_PYENV : SCR_REVIEW); break;
    case SCR_PYENV: tui_goto(t, SCR_REVIEW); break;
    case SCR_REVIEW: tui_goto(t, SCR_PROGRESS); break;
    case SCR_PROGRESS: tui_goto(t, SCR_VALIDATION); break;
    case SCR_VALIDATION: tui_goto(t, SCR_DONE); break;
    case SCR_DONE: t->running = false; break;
    case SCR_COUNT:
    default: break;
    }
}

void
tui_ask(struct tui *t, const char *title, const char *text, void (*yes)(struct tui *t))
{
    t->asking = true;
    snprintf(t->ask_title, sizeof(t->ask_title), "%s", title);
    snprintf(t->ask_text, sizeof(t->ask_text), "%s", text);
    t->ask_yes = yes;
}

/* ---- text fields ------------------------------------------------------------------- */

void
tui_edit_begin(struct tui *t, const char *init)
{
    snprintf(t->cur.edit, sizeof(t->cur.edit), "%s", init ? init : "");
    t->cur.editing = true;
}

int
tui_edit_key(struct tui *t, int ch)
{
    size_t len = strlen(t->cur.edit);
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        t->cur.editing = false;
        return 1;
    }
    if (ch == 27) {
        t->cur.editing = false;
        return -1;
    }
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        while (len > 0 && ((unsigned char)t->cur.edit[len - 1] & 0xc0) == 0x80)
            len--; /* continuation bytes of a UTF-8 character */
        if (len > 0)
            len--;
        t->cur.edit[len] = '\0';
        return 0;
    }
    if (ch == 21) { /* ^U */
        t->cur.edit[0] = '\0';
        return 0;
    }
    char mb[8];
    size_t n = 0;
    if (ch >= 32 && ch < 127) {
        mb[0] = (char)ch;
        n = 1;
    } else if (ch >= TUI_WCHAR) {
        mbstate_t st;
        memset(&st, 0, sizeof(st));
        n = wcrtomb(mb, (wchar_t)(ch - TUI_WCHAR), &st);
        if (n == (size_t)-1)
            n = 0;
    }
    if (n && len + n < sizeof(t->cur.edit)) {
        memcpy(t->cur.edit + len, mb, n);
        t->cur.edit[len + n] = '\0';
    }
    return 0;
}

void
tui_edit_draw(struct tui *t, int y, int x, int w, const char *value, bool focus)
{
    const char *s = t->cur.editing && focus ? t->cur.edit : (value ? value : "");
    if (focus)
        tui_attr(t, TC_SEL, true);
    mvhline(y, x, ' ', w);
    /* Show the end of a long value: that is where the typing happens. */
    int sw = tui_width(s);
    while (sw > w - 2 && *s) {
        s++;
        while (((unsigned char)*s & 0xc0) == 0x80)
            s++;
        sw = tui_width(s);
    }
    int used = tui_text(y, x, w - 1, s);
    if (t->cur.editing && focus)
        tui_text(y, x + used, 1, "_");
    if (focus)
        tui_attr(t, TC_SEL, false);
}

/* ---- drawing --------------------------------------------------------------------------- */

static const char *
generic_help(void)
{
    return _("Enter: next, or accept.  Esc: back.  q: quit (asks first).  ?: this help.  Arrows move, Space toggles, Tab switches fields.");
}

static void
draw(struct tui *t)
{
    if (COLS < 40 || LINES < 12) {
        erase();
        mvprintw(0, 0, "%dx%d", COLS, LINES);
        tui_wrap(1, 0, COLS, LINES - 1, _("The terminal is too small for the wizard; make it at least 40x12 (80x24 is best)."));
        wnoutrefresh(stdscr);
        doupdate();
        return;
    }
    screens[t->scr]->draw(t);
    if (t->help) {
        const char *spec = screens[t->scr]->help ? screens[t->scr]->help() : NULL;
        const char *lines[] = {spec ? spec : "", spec ? "" : NULL, generic_help(), "", _("Press any key.")};
        const char *shown[5];
        int n = 0;
        for (size_t i = 0; i < 5; i++)
            if (lines[i])
                shown[n++] = lines[i];
        tui_box(t, _("Help"), shown, n);
    } else if (t->asking) {
        const char *lines[] = {t->ask_text, "", _("y: yes    n: no")};
        tui_box(t, t->ask_title, lines, 3);
    }
    wnoutrefresh(stdscr);
    doupdate();
}

void
tui_dump_screen(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    wchar_t *row = cu_xcalloc((size_t)COLS + 1, sizeof(wchar_t));
    size_t cap = (size_t)COLS * MB_CUR_MAX + 1;
    char *mb = cu_xmalloc(cap);
    for (int y = 0; y < LINES; y++) {
        int n = mvinnwstr(y, 0, row, COLS);
        if (n < 0)
            n = 0;
        row[n] = 0;
        size_t len = wcstombs(mb, row, cap);
        if (len == (size_t)-1)
            len = 0;
        while (len > 0 && mb[len - 1] == ' ')
            len--;
        fprintf(f, "%.*s\n", (int)len, mb);
    }
    free(mb);
    free(row);
    fclose(f);
}

/* ---- keys ---------------------------------------------------------------------------- */

static void
quit_yes(struct tui *t)
{
    t->running = false;
}

static void
handle_key(struct tui *t, int ch)
{
    if (ch == KEY_RESIZE) {
        clearok(stdscr, TRUE);
        return;
    }
    if (t->help) {
        t->help = false;
        return;
    }
    if (t->asking) {
        if (ch == 'y' || ch == 'Y') {
            t->asking = false;
            if (t->ask_yes)
                t->ask_yes(t);
        } else if (ch == 'n' || ch == 'N' || ch == 27 || ch == 'q') {
            t->asking = false;
        }
        return;
    }
    if (screens[t->scr]->key(t, ch))
        return;
    switch (ch) {
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (!tui_busy(t))
            tui_next(t);
        break;
    case 27:
        if (!tui_busy(t))
            tui_back(t);
        break;
    case 'q':
    case 'Q':
        tui_ask(t, _("Quit"),
                tui_busy(t) ? _("Quit cudaup? The work in progress is stopped and rolled back.")
                            : _("Quit cudaup?"),
                quit_yes);
        break;
    case '?':
    case KEY_F(1):
        t->help = true;
        break;
    default:
        break;
    }
}

/* ---- the keys script (tests) -------------------------------------------------------- */

struct script {
    char **lines;
    size_t n, pos;
    int64_t sleep_until;
};

static const struct {
    const char *name;
    int key;
} key_names[] = {
    {"enter", '\n'},       {"esc", 27},           {"up", KEY_UP},       {"down", KEY_DOWN},
    {"left", KEY_LEFT},    {"right", KEY_RIGHT},  {"tab", '\t'},        {"btab", KEY_BTAB},
    {"space", ' '},        {"backspace", KEY_BACKSPACE}, {"pgup", KEY_PPAGE}, {"pgdn", KEY_NPAGE},
    {"home", KEY_HOME},    {"end", KEY_END},      {"f1", KEY_F(1)},     {"ctrl-u", 21},
};

static int
key_by_name(const char *s)
{
    for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
        if (strcmp(s, key_names[i].name) == 0)
            return key_names[i].key;
    if (s[0] && !s[1] && s[0] > ' ' && s[0] < 127)
        return s[0];
    return -1;
}

/* Check every line before curses starts, so a bad script is one sentence and exit 2. */
static enum cu_status
script_load(const char *path, struct script *s, struct cu_error *err)
{
    char *text = NULL;
    size_t len;
    enum cu_status st = cu_read_file(path, 1 << 20, &text, &len, err);
    struct cu_strv v;
    memset(s, 0, sizeof(*s));
    if (st != CU_OK)
        return st;
    cu_strv_init(&v);
    size_t lineno = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        size_t l = strlen(line);
        while (l > 0 && (line[l - 1] == '\r' || line[l - 1] == ' '))
            line[--l] = '\0';
        while (*line == ' ')
            line++;
        if (!*line || *line == '#')
            continue;
        const char *cmd = strncmp(line, "now ", 4) == 0 ? line + 4 : line; /* "now": even while a job runs */
        const char *arg = strchr(cmd, ' ');
        CU_AUTOFREE char *word = cu_xstrndup(cmd, arg ? (size_t)(arg - cmd) : strlen(cmd));
        bool ok = (!arg && key_by_name(word) >= 0) || (arg && strcmp(word, "type") == 0) ||
                  (arg && strcmp(word, "dump") == 0) || (arg && strcmp(word, "sleep") == 0) ||
                  (arg && strcmp(word, "resize") == 0) || (!arg && strcmp(word, "wait") == 0);
        if (!ok) {
            cu_error_set(err, CU_E_USAGE, 0, _("--keys-script %s, line %zu: '%s' is not a key or command."), path, lineno,
                         line);
            cu_strv_fini(&v);
            free(text);
            return CU_E_USAGE;
        }
        cu_strv_push(&v, line);
    }
    free(text);
    s->lines = v.v;
    s->n = v.n;
    return CU_OK;
}

static void
feed_text(struct tui *t, const char *s)
{
    mbstate_t st;
    memset(&st, 0, sizeof(st));
    while (*s) {
        wchar_t wc;
        size_t n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
        if (n == (size_t)-1 || n == (size_t)-2 || n == 0)
            break;
        handle_key(t, wc < 128 ? (int)wc : (int)(TUI_WCHAR + wc));
        s += n;
    }
}

/* Run the next line when it may run now; false when it must wait (for the job, or a sleep). */
static bool
script_step(struct tui *t, struct script *s)
{
    const char *line = s->lines[s->pos];
    const char *arg = strchr(line, ' ');
    bool now = strncmp(line, "now ", 4) == 0;
    if (s->sleep_until) {
        if (cu_mono_ms() < s->sleep_until)
            return false;
        s->sleep_until = 0;
        s->pos++;
        return true;
    }
    bool sleep_line = strncmp(line, "sleep ", 6) == 0;
    if (!now && !sleep_line && tui_busy(t))
        return false; /* keys wait until the engine is idle, so that runs are repeatable */
    s->pos++;
    if (now)
        line = arg + 1, arg = strchr(line, ' ');
    if (strncmp(line, "type ", 5) == 0) {
        feed_text(t, arg + 1);
    } else if (strncmp(line, "dump ", 5) == 0) {
        draw(t);
        tui_dump_screen(arg + 1);
    } else if (strncmp(line, "sleep ", 6) == 0) {
        uint64_t ms = 0;
        if (!cu_parse_u64(arg + 1, 600000, &ms))
            ms = 0;
        s->sleep_until = cu_mono_ms() + (int64_t)ms;
        s->pos--; /* stay on this line until the time is up */
    } else if (strncmp(line, "resize ", 7) == 0) {
        unsigned w = 0, h = 0;
        if (sscanf(arg + 1, "%ux%u", &w, &h) == 2 && w > 0 && h > 0) {
            resizeterm((int)h, (int)w);
            handle_key(t, KEY_RESIZE);
        }
    } else if (strcmp(line, "wait") != 0) {
        handle_key(t, key_by_name(line));
    }
    return true;
}

/* ---- start and stop --------------------------------------------------------------------- */

static void
restore_terminal(void)
{
    if (!isendwin())
        endwin();
}

static SCREEN *
open_screen(bool headless, FILE **in, FILE **out)
{
    *in = *out = NULL;
    if (!headless)
        return newterm(NULL, stdout, stdin);
    /* No terminal: draw into /dev/null with the size in LINES/COLUMNS (default 80x24). */
    *out = fopen("/dev/null", "w");
    *in = fopen("/dev/null", "r");
    if (!*in || !*out)
        return NULL;
    if (!getenv("LINES"))
        setenv("LINES", "24", 0);
    if (!getenv("COLUMNS"))
        setenv("COLUMNS", "80", 0);
    const char *terms[] = {getenv("TERM"), "xterm-256color", "xterm", "vt100", "dumb"};
    for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]); i++) {
        if (!terms[i] || !*terms[i])
            continue;
        SCREEN *s = newterm(terms[i], *out, *in);
        if (s)
            return s;
    }
    return NULL;
}

static void
find_existing(struct tui *t)
{
    CU_AUTOFREE char *link = cu_path_join(t->o.prefix, "cuda");
    char real[PATH_MAX];
    if (!realpath(link, real))
        return;
    CU_AUTOFREE char *rec = cu_path_join(real, ".cudaup/record.json");
    if (!cu_path_exists(rec))
        return;
    t->existing = cu_xstrdup(real);
    const char *base = strrchr(real, '/');
    if (base && cu_str_has_prefix(base + 1, "cuda-") && !cu_version_parse(base + 6, &t->existing_version))
        t->existing_version.n = 0;
    for (size_t i = 0; i < t->o.facts->n_installs; i++)
        if (strcmp(t->o.facts->installs[i].path, real) == 0 && t->o.facts->installs[i].version.n)
            t->existing_version = t->o.facts->installs[i].version;
}

static void
tui_fini(struct tui *t)
{
    if (t->job) {
        atomic_store(&t->cancel, 1);
        pthread_join(t->worker, NULL);
        job_free(t->job);
        t->job = NULL;
    }
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->n_queue; i++) {
        msg_fini(&t->queue[i]);
        if (t->queue[i].job)
            job_free(t->queue[i].job);
    }
    free(t->queue);
    pthread_mutex_unlock(&t->mu);
    pthread_mutex_destroy(&t->mu);
    if (t->wake[0] >= 0)
        close(t->wake[0]);
    if (t->wake[1] >= 0)
        close(t->wake[1]);
    cu_config_fini(&t->ans);
    cu_problems_fini(&t->problems);
    cu_plan_free(t->plan);
    cu_mirror_free(t->mirror);
    cu_choices_free(t->cuda_choices, t->n_cuda_choices);
    cu_choices_free(t->cudnn_choices, t->n_cudnn_choices);
    cu_checks_fini(&t->checks);
    cu_strv_free(t->comp_sel);
    free(t->plan_key);
    free(t->cuda_key);
    free(t->cudnn_key);
    free(t->target);
    free(t->existing);
    for (size_t i = 0; i < t->n_items; i++)
        free(t->items[i].name);
    free(t->items);
    for (size_t i = 0; i < TUI_LOG_LINES; i++)
        free(t->log[i]);
    for (size_t i = 0; i < t->n_replay; i++)
        free(t->replay[i]);
    free(t->replay);
}

static bool
utf8_locale(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

int
tui_run(const struct tui_opts *o, const char *keys_script, uint64_t iterations)
{
    struct tui t;
    struct script sc;
    struct cu_error err;
    FILE *fin = NULL, *fout = NULL;
    SCREEN *scr = NULL;
    int rc;

    memset(&t, 0, sizeof(t));
    memset(&sc, 0, sizeof(sc));
    t.o = *o;
    t.wake[0] = t.wake[1] = -1;
    pthread_mutex_init(&t.mu, NULL);
    cu_config_copy(&t.ans, o->cfg);
    tui_set_answer(&t, &t.ans.prefix, o->prefix); /* absolute, as the command line resolved it */
    cu_problems_init(&t.problems);
    t.headless = getenv("CUDAUP_TUI_HEADLESS") && *getenv("CUDAUP_TUI_HEADLESS");
    t.color = !o->cfg->no_color;
    t.utf8 = utf8_locale();
    if (keys_script && *keys_script && script_load(keys_script, &sc, &err) != CU_OK) {
        fprintf(stderr, "cudaup: %s\n", cu_error_text(&err));
        tui_fini(&t);
        return 2;
    }
    if (pipe2(t.wake, O_NONBLOCK | O_CLOEXEC) != 0) {
        char b[128];
        fprintf(stderr, _("cudaup: cannot start the wizard: %s\n"), cu_strerror(errno, b, sizeof(b)));
        tui_fini(&t);
        cu_strv_free(sc.lines);
        return 1;
    }
    find_existing(&t);
    cu_doctor_check(o->facts, o->catalog, o->root, o->envp, &t.problems);

    scr = open_screen(t.headless, &fin, &fout);
    if (!scr) {
        fprintf(stderr, "%s\n", _("cudaup: this terminal cannot show the wizard (set TERM, or run it headless: cudaup install --yes)."));
        if (fin)
            fclose(fin);
        if (fout)
            fclose(fout);
        tui_fini(&t);
        cu_strv_free(sc.lines);
        return 2;
    }
    cu_mem_set_oom_hook(restore_terminal);
    cu_log_set_handler(log_sink, &t);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    tui_colors_init(&t);

    t.running = true;
    t.scr = SCR_WELCOME;
    if (screens[t.scr]->enter)
        screens[t.scr]->enter(&t);
    uint64_t turns = 0;
    int64_t last_draw = 0;
    bool dirty = true;
    while (t.running) {
        drain(&t);
        if (o->signal_cancel && atomic_load(o->signal_cancel)) {
            atomic_store(o->signal_cancel, 0);
            if (t.job) {
                atomic_store(&t.cancel, 1); /* the job ends cancelled; its screen says so */
            } else {
                t.rc = 130;
                break;
            }
        }
        int64_t now = cu_mono_ms();
        if (dirty || (t.job && now - last_draw >= 100)) {
            t.spin++;
            draw(&t);
            last_draw = now;
            dirty = false;
        }
        if (iterations && ++turns >= iterations)
            break;
        if (sc.pos < sc.n) {
            if (script_step(&t, &sc)) {
                dirty = true;
                continue;
            }
        } else if (t.headless && !t.job) {
            break; /* the script is done and there is nobody to type */
        }
        struct pollfd pf[2] = {{.fd = t.wake[0], .events = POLLIN}, {.fd = STDIN_FILENO, .events = POLLIN}};
        int npf = t.headless ? 1 : 2;
        int timeout = t.job || sc.pos < sc.n ? 100 : 1000;
        if (poll(pf, (nfds_t)npf, timeout) < 0 && errno != EINTR)
            break;
        if (pf[0].revents)
            dirty = true;
        wint_t wc;
        int r;
        while ((r = get_wch(&wc)) != ERR) {
            int ch = r == KEY_CODE_YES ? (int)wc : wc < 128 ? (int)wc : (int)(TUI_WCHAR + wc);
            handle_key(&t, ch);
            dirty = true;
            if (!t.running)
                break;
        }
    }
    if (t.job) {
        /* Leaving with work in flight: cancel it and let it roll back before the screen goes. */
        atomic_store(&t.cancel, 1);
        tui_notice(&t, false, "%s", _("Stopping; rolling back what was half done..."));
        draw(&t);
        while (t.job) {
            struct pollfd pf = {.fd = t.wake[0], .events = POLLIN};
            poll(&pf, 1, 100);
            drain(&t);
        }
        t.rc = 130;
    }
    rc = t.rc;
    endwin();
    delscreen(scr);
    if (fin)
        fclose(fin);
    if (fout)
        fclose(fout);
    cu_log_set_handler(NULL, NULL);
    for (size_t i = 0; i < t.n_replay; i++)
        fprintf(stderr, "cudaup: %s\n", t.replay[i]);
    if (t.scr == SCR_DONE && t.target && t.last_job != JOB_UNINSTALL) {
        /* Whole, for copying: the screen had to wrap the long paths. */
        char **next = tui_next_commands(&t);
        printf(_("CUDA is installed in %s. Next:\n"), t.target);
        for (char **n = next; n && *n; n++)
            printf("  %s\n", *n);
        cu_strv_free(next);
    }
    tui_fini(&t);
    cu_strv_free(sc.lines);
    return rc;
}
