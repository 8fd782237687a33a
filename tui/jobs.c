/* SPDX-License-Identifier: MIT */
/* The engine on a worker thread, and the queue of its events to the screen thread (STYLE 27-33). */
#include "config.h"

#include "tui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/fetch/mirror.h"
#include "core/base/str.h"
#include "core/machine/syscmd.h"
#include "core/doctor/doctor.h"
#include "core/doctor/driver_doctor.h"
#include "core/verify/verify_containers.h"
#include "installers/containers/containers.h"
#include "installers/driver.h"
#include "installers/verifyrun.h"
#include "internal.h"
#include "widgets.h"

/* ---- the queue (any thread) --------------------------------------------------------- */

void
tui_msg_fini(struct tui_msg *m)
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
            last->so_far = m->so_far;
            last->files = m->files;
            if (m->message) { /* the package pip is at */
                free(last->message);
                last->message = m->message;
                m->message = NULL;
            }
            pthread_mutex_unlock(&t->mu);
            tui_msg_fini(m);
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
        .so_far = ev->so_far,
        .files = ev->files,
        .status = ev->status,
        .changed = ev->changed,
    };
    push(j->t, &m);
}

/* While curses is up the log goes to the file, and warnings wait for endwin (STYLE 42). */
void
tui_log_sink(void *userdata, enum cu_log_level level, const char *tag, const char *msg, const char *msg_en)
{
    struct tui *t = userdata;
    if (t->o.log) {
        char ts[32];
        time_t now = time(NULL);
        struct tm tm;
        strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", localtime_r(&now, &tm));
        fprintf(t->o.log, "%s %s %s: %s\n", ts, cu_log_level_name(level), tag, msg_en); /* English: to be shared */
        fflush(t->o.log);
    }
    if (level > CU_LOG_INFO || cu_log_record_only(tag))
        return; /* a command's output comes to the screen once, as its step's event */
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
        .root = o->root && !cu_sysroot_is_host(o->root) ? o->root->path : NULL,
        .profile_d = o->profile_d,
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
        .root = o->root,
    };
}

/* The stage the next title names, from the worker: a message with a stage and no text (handle_msg). */
static void
set_stage(struct tui *t, const char *stage)
{
    struct tui_msg m = {.type = CU_EV_STEP_START, .installer = cu_xstrdup(stage)};
    push(t, &m);
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
        .root = o->root,
        .keep_env = j->cfg.keep_env,
        .envp = o->envp,
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
    case JOB_INSTALL: {
        /* The driver first (it may stop for a reboot: the progress screen then says what to do).
         * mokutil cannot ask its password while curses holds the terminal, so the screen names it. */
        struct cu_sys sys;
        cu_sys_init(&sys, o->envp, o->root ? o->root->path : "/", false);
        struct inst_driver_ctx dc = {&sys, j->net, o->state_dir, o->cache_dir, &j->ctx, o->catalog, NULL};
        j->status = CU_OK;
        bool driver = j->plan_in->driver && strcmp(j->plan_in->driver->action, "install") == 0;
        if (driver)
            j->status = cu_install_preflight(&j->ctx, &j->err); /* before the first system change */
        /* The driver's stage from its first check on: a refusal before its first command is the driver's to
         * title ("Installing CUDA ... failed" said a missing apt-get was CUDA's, issue 49 item 11). */
        if (driver && j->status == CU_OK)
            set_stage(j->t, "driver");
        if (j->status == CU_OK)
            j->status = inst_driver_install(&dc, j->plan_in, o->facts, &j->err);
        if (driver && j->status == CU_OK)
            set_stage(j->t, "");
        /* GPU containers: nobody can be asked from this thread, so an engine that runs containers is not restarted
         * (its step says how to restart it). */
        struct inst_ctr_ctx cc = {&sys, j->net, o->state_dir, o->cache_dir, &j->ctx, o->catalog, o->envp, NULL, NULL, NULL};
        bool containers = j->status == CU_OK && j->plan_in->containers;
        if (containers) {
            set_stage(j->t, "containers"); /* a failure here is the containers' to title, not CUDA's */
            j->status = inst_containers_install(&cc, j->plan_in, o->facts, &j->err);
        }
        if (containers && j->status == CU_OK)
            set_stage(j->t, "");
        cu_sys_fini(&sys);
        if (j->status == CU_OK)
            j->status = cu_install_run(&j->ctx, &j->err);
        break;
    }
    case JOB_VERIFY: {
        /* What `cudaup verify` checks: the CUDA install, or (no CUDA install: --toolkit wheels or none) the environment
         * that holds its own toolkit; GPU containers where cudaup set them up (installers/verifyrun.h). */
        struct cu_verify_opts vo = {
            .dir = j->env ? NULL : j->dir,
            .facts = o->facts,
            .cat = o->catalog,
            .deep = j->cfg.deep,
            .require_gpu = j->cfg.require_gpu,
            .timeout_ms = (long)j->cfg.gpu_timeout * 1000,
            .self_exe = o->self_exe,
            .envp = o->envp,
            .cancel = &j->t->cancel,
            .state_dir = o->state_dir,
            .root = o->root,
        };
        cu_verify_installed(&vo, &j->checks);
        j->status = cu_checks_failed(&j->checks) ? CU_E_PROBLEMS : CU_OK;
        break;
    }
    case JOB_REPAIR: {
        /* The driver first, what repair fixes of it (never another driver); then the install's files. */
        struct cu_problems all, fix;
        cu_problems_init(&all);
        cu_problems_init(&fix);
        cu_doctor_check(o->facts, o->catalog, o->root, o->envp, &all);
        cu_drv_doctor(o->facts, o->catalog, &all, &all);
        for (size_t i = 0; i < all.n; i++)
            if (inst_driver_repairs(all.v[i].code))
                cu_problems_add(&fix, all.v[i].code, all.v[i].severity, cu_xstrdup(all.v[i].message), cu_xstrdup(all.v[i].fix));
        bool reboot = false;
        j->status = CU_OK;
        if (fix.n) {
            struct cu_sys sys;
            cu_sys_init(&sys, o->envp, o->root ? o->root->path : "/", false);
            struct inst_driver_ctx dc = {&sys, NULL, o->state_dir, o->cache_dir, &j->ctx, o->catalog, NULL};
            j->status = inst_driver_repair(&dc, o->facts, o->catalog, &fix, &reboot, &j->err);
            cu_sys_fini(&sys);
        }
        cu_problems_fini(&all);
        cu_problems_fini(&fix);
        /* The install's files, or the environment's Python, hold and compiler wheels where it holds its own toolkit
         * (as `cudaup repair` chooses). */
        if (j->status == CU_OK)
            j->status = j->env ? cu_env_repair_run(&mi, j->cfg.deep, &j->repaired, &j->ctx, &j->err)
                               : cu_repair_run(&mi, j->dir, j->cfg.deep, &j->repaired, &j->ctx, &j->err);
        if (j->status == CU_OK && reboot) {
            j->status = cu_error_set(&j->err, CU_E_REBOOT, 0, _("The driver is repaired as far as a running system allows; a reboot finishes it."));
            cu_error_advise(&j->err, _("Reboot (enrol the signing key at the blue MokManager screen if one was queued), then run cudaup again."));
        }
        break;
    }
    case JOB_UNINSTALL: /* CUDA X.Y, or the environment with its toolkit (`cudaup uninstall env`) */
        j->status = j->env ? cu_env_uninstall_run(&mi, &j->ctx, &j->err) : cu_uninstall_run(&mi, j->dir, &j->ctx, &j->err);
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
        cu_log_err(CU_LOG_ERROR, "wizard", &j->err);
    }
    struct tui_msg m = {.type = CU_EV_STEP_DONE, .job = j, .status = j->status};
    push(j->t, &m);
    return NULL;
}

void
tui_job_free(struct tui_job *j)
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
    j->env = (kind == JOB_VERIFY || kind == JOB_REPAIR || kind == JOB_UNINSTALL) && t->target_tk;
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
    t->env = (struct cu_env_figures){0};
    t->step[0] = '\0';
    t->stage[0] = '\0';
    t->started_ms = cu_mono_ms();
    t->rate_bytes = 0;
    t->rate_ms = t->started_ms;
    t->speed = 0;
    t->idle_samples = 0;
    /* Signals belong to the UI thread, whose handler sets the flag it polls. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&t->worker, NULL, worker_main, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        char b[128];
        tui_notice(t, true, _("Cannot start a thread: %s"), cu_strerror(rc, b, sizeof(b)));
        tui_job_free(j);
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
    /* A runfile's or a .tgz's size is not published: its total is what the mirror reported while planning,
     * or unknown ("0 B of 34 GB" was the fetch's upper limit shown as a size, issue 35). */
    const struct cu_plan *p = t->plan;
    for (size_t i = 0; p && i < p->n_downloads + 1; i++) {
        const struct cu_plan_download *d = i < p->n_downloads ? &p->downloads[i] : p->python ? &p->python->dl : NULL;
        if (d && d->component && strcmp(d->component, name) == 0 && d->size_unknown) {
            it->unsized = true;
            it->total = d->size_seen;
        }
    }
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
        if (j->status == CU_OK && t->plan) {
            /* --toolkit wheels or none: no CUDA folder was made; Validation checks the environment that holds the
             * toolkit, as `cudaup verify` does (its folder as STATE/pyenv.json records it). */
            struct cu_toolkit_env te;
            bool env = !cu_plan_system_toolkit(t->plan) && cu_toolkit_env_find(t->o.state_dir, NULL, &te);
            set_str(&t->target, env ? cu_steal_ptr(&te.path) : cu_xstrdup(t->plan->cuda_path));
            t->target_tk = env ? te.kind : NULL;
            if (env)
                cu_toolkit_env_fini(&te);
        }
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
        /* The status line shows the step; the log below gets its end, not the same line twice.  Without a
         * message it only names the stage (set_stage). */
        if (m->message)
            snprintf(t->step, sizeof(t->step), "%s: %s", m->installer ? m->installer : "", m->message);
        snprintf(t->stage, sizeof(t->stage), "%s", m->installer ? m->installer : "");
        break;
    case CU_EV_PROGRESS:
        if (m->item && strcmp(m->item, "environment") == 0) {
            if (m->so_far > t->env.so_far)
                t->rate_bytes += m->so_far - t->env.so_far;
            cu_env_figures_update(&t->env, m->phase, m->message, m->done, m->total, m->so_far, m->files);
        } else if (m->item) {
            struct tui_item *it = item_of(t, m->item);
            snprintf(it->phase, sizeof(it->phase), "%s", m->phase ? m->phase : "");
            if (m->phase && strcmp(m->phase, "unpack") == 0) {
                it->unpacked = m->done;
            } else if (m->phase && (strcmp(m->phase, "unpacked") == 0 || strcmp(m->phase, "kept") == 0)) {
                it->finished = true;
                if (!it->total || it->unsized)
                    it->total = it->unsized && it->done ? it->done : m->total;
                it->done = it->total;
            } else {
                if (m->done > it->done)
                    t->rate_bytes += m->done - it->done;
                it->done = m->done;
                if (m->total && !it->unsized)
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
                /* English, so that the log can be shared. */
                fprintf(t->o.log, "%s %s: %s (%s)\n", m->status == CU_OK ? "step" : "step failed:",
                        m->installer ? m->installer : "", m->message ? cu_english(m->message) : "",
                        m->status == CU_OK ? (m->changed ? "done" : "unchanged") : "failed");
                fflush(t->o.log);
            }
        }
        break;
    }
    struct tui_job *j = m->job;
    if (j)
        finish_job(t, j);
    if (t->screens[t->scr]->on_event)
        t->screens[t->scr]->on_event(t, m);
    tui_job_free(j);
}

void
tui_drain(struct tui *t)
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
            tui_msg_fini(&q[i]);
        }
        free(q);
    }
    /* A smoothed download speed, from the bytes seen since the last sample. */
    int64_t now = cu_mono_ms();
    if (t->job && now - t->rate_ms >= 500) {
        double inst = (double)t->rate_bytes * 1000.0 / (double)(now - t->rate_ms);
        t->idle_samples = t->rate_bytes ? 0 : t->idle_samples + 1;
        t->speed = t->idle_samples >= 2 ? 0 : t->speed == 0 ? inst : 0.7 * t->speed + 0.3 * inst;
        t->rate_bytes = 0;
        t->rate_ms = now;
    }
}

/* ---- answers and navigation ---------------------------------------------------------- */

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
        return cu_xasprintf("%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s", or_empty(a->cuda), or_empty(a->cudnn),
                            or_empty(a->framework), or_empty(a->python), or_empty(a->components),
                            or_empty(a->env_scope), or_empty(a->shell_rc), or_empty(a->env_tool),
                            or_empty(a->env_name), or_empty(a->platform), or_empty(a->mirror), or_empty(a->prefix),
                            or_empty(a->python_source), or_empty(a->containers), or_empty(a->toolkit));
    }
}
