/* SPDX-License-Identifier: MIT */
/* A bar per archive and one overall, speed, time left, the step, the log; cancel rolls back. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/i18n.h"
#include "core/resolve/driver.h"
#include "core/base/mem.h"
#include "widgets.h"
#include "core/base/clock.h"

static const char *
title(void)
{
    return _("Progress");
}

static const char *
help(void)
{
    return _("Archives are downloaded several at a time, checked against their SHA-256 sums and unpacked into a staging folder as they arrive; only when all of them are in does the new folder replace the old one. c or Esc cancels: the staging folder is removed and what you had stays as it was.");
}


static void
enter(struct tui *t)
{
    if (tui_busy(t))
        return;
    if (t->progress_job == JOB_INSTALL && !t->plan)
        return;
    if (!tui_start(t, t->progress_job, t->progress_job == JOB_INSTALL ? NULL : t->target))
        return;
    t->last_job = JOB_NONE; /* this screen shows the new job, not the previous one */
    if (t->progress_job == JOB_INSTALL) {
        for (size_t i = 0; i < t->plan->n_downloads; i++) {
            const struct cu_plan_download *d = &t->plan->downloads[i];
            t->items = cu_xreallocarray(t->items, t->n_items + 1, sizeof(*t->items));
            /* A size no source publishes is no size: the one the mirror reported, or unknown (its
             * d->size is only the most the download accepts). */
            t->items[t->n_items++] = (struct tui_item){.name = cu_xstrdup(d->component),
                                                       .total = d->size_unknown ? d->size_seen : d->size,
                                                       .unsized = d->size_unknown};
        }
    }
}

static void
fmt_time(int64_t s, char *buf, size_t len)
{
    if (s < 0)
        s = 0;
    if (s >= 3600)
        snprintf(buf, len, "%lldh%02lldm", (long long)(s / 3600), (long long)(s / 60 % 60));
    else
        snprintf(buf, len, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
}

static const char *
phase_text(const struct tui_item *it, char *buf, size_t len)
{
    char b[32];
    bool fetched = it->total && it->done >= it->total;
    if (it->finished)
        return _("checked and unpacked");
    if (strcmp(it->phase, "cached") == 0)
        return _("from the cache");
    if (it->unpacked) {
        snprintf(buf, len, fetched ? _("unpacked %s") : _("downloading, unpacked %s"),
                 cu_format_bytes(it->unpacked, b, sizeof(b)));
        return buf;
    }
    if (fetched)
        return _("downloaded");
    if (it->phase[0])
        return _("downloading");
    return _("waiting");
}

/*
 * The status line's @parts over (at most) two rows of @w columns from @y, @x: each part whole on its row, two
 * spaces between parts, a part that does not fit on the first row starting the second; what fits on neither is
 * left out (the last parts first).  A part wider than a whole row is cut.
 */
static void
status_rows(const struct tui *t, int y, int x, int w, const char *const *parts, size_t n)
{
    (void)t;
    struct cu_buf row[2];
    cu_buf_init(&row[0]);
    cu_buf_init(&row[1]);
    int r = 0;
    for (size_t i = 0; i < n; i++) {
        int used = row[r].len ? tui_width(row[r].data) + 2 : 0;
        if (used + tui_width(parts[i]) > w && row[r].len && r == 0) {
            r = 1;
            used = 0;
        }
        if (used + tui_width(parts[i]) > w && row[r].len)
            continue; /* no room on either row */
        cu_buf_printf(&row[r], "%s%s", row[r].len ? "  " : "", parts[i]);
    }
    for (int k = 0; k < 2; k++) {
        tui_text_pad(y + k, x, w, row[k].len ? row[k].data : "");
        cu_buf_fini(&row[k]);
    }
}

static void
draw(struct tui *t)
{
    char b1[32], b2[32], b3[32], e1[32], e2[32];
    bool busy = tui_busy(t);
    bool finished = !busy && t->last_job == t->progress_job;
    const char *keys = busy ? _("c/Esc: cancel   ?: help")
                       : finished && t->last_status == CU_OK       ? _("Enter: continue   q: quit")
                       : finished && t->last_status == CU_E_REBOOT ? _("Enter: quit, then reboot   q: quit")
                                                                   : _("Enter/Esc: back   q: quit");
    int y = tui_frame(t, title(), keys);
    int end = tui_body_end();
    bool failed = finished && t->last_status != CU_OK && t->last_status != CU_E_CANCELLED;
    bool reboot = finished && t->last_status == CU_E_REBOOT;
    char what[256];
    if (reboot)
        snprintf(what, sizeof(what), "%s", _("Reboot: the NVIDIA driver is installed"));
    else if (t->progress_job == JOB_INSTALL && t->plan && strcmp(t->stage, "python") == 0 && t->plan->python)
        /* The title names the stage that runs (or stopped): not "Installing CUDA … failed" for a Python download. */
        snprintf(what, sizeof(what), failed ? _("Bringing Python %s into %s failed") : _("Bringing Python %s into %s"),
                 t->plan->python->version, TUI_PATH);
    else if (t->progress_job == JOB_INSTALL && t->plan && t->plan->framework &&
             (strcmp(t->stage, "pyenv") == 0 || strcmp(t->stage, "framework") == 0 || t->env.begun))
        snprintf(what, sizeof(what), failed ? _("Setting up %s in %s failed") : _("Setting up %s in %s"),
                 cu_framework_title(t->plan->framework->name), TUI_PATH);
    else if (t->progress_job == JOB_INSTALL && t->plan && strcmp(t->stage, "driver") == 0 && t->plan->driver)
        snprintf(what, sizeof(what), failed ? _("Installing the NVIDIA driver %d failed") : _("Installing the NVIDIA driver %d"),
                 t->plan->driver->branch);
    else if (t->progress_job == JOB_INSTALL && t->plan && strcmp(t->stage, "containers") == 0 && t->plan->containers)
        snprintf(what, sizeof(what), "%s", failed ? _("Setting this host up for GPU containers failed") : _("Setting this host up for GPU containers"));
    else if (t->progress_job == JOB_INSTALL && t->plan)
        snprintf(what, sizeof(what), failed ? _("Installing CUDA %s into %s failed") : _("Installing CUDA %s into %s"),
                 cu_version_format(&t->plan->cuda, 0, b1, sizeof(b1)), TUI_PATH);
    else if (t->progress_job == JOB_REPAIR)
        snprintf(what, sizeof(what), failed ? _("Repairing %s failed") : _("Repairing %s"), TUI_PATH);
    else if (t->target_tk) /* the environment that holds its own toolkit, as `cudaup uninstall env` removes it */
        snprintf(what, sizeof(what), failed ? _("Removing the Python environment %s failed") : _("Removing the Python environment %s"),
                 TUI_PATH);
    else
        snprintf(what, sizeof(what), failed ? _("Removing CUDA %s failed") : _("Removing CUDA %s"),
                 t->target ? t->target : "");
    if (finished && t->last_status == CU_E_CANCELLED) {
        /* The stage that was stopped, said so: not "Bringing Python …" as if it still ran (issue 35). */
        char stopped[sizeof(what)];
        snprintf(stopped, sizeof(stopped), _("%s (cancelled)"), what);
        snprintf(what, sizeof(what), "%s", stopped);
    }
    const char *where = t->progress_job != JOB_INSTALL || !t->plan     ? t->target
                        : strcmp(t->stage, "python") == 0 && t->plan->python ? t->plan->python->path
                        : strstr(what, TUI_PATH) && t->plan->framework && (strcmp(t->stage, "pyenv") == 0 ||
                                                                           strcmp(t->stage, "framework") == 0 || t->env.begun)
                            ? (t->plan->env.path ? t->plan->env.path : t->plan->env.name)
                            : t->plan->cuda_path;
    CU_AUTOFREE char *fitted = tui_fit_path(t, COLS - 2, what, where);
    tui_text_color(t, failed && !reboot ? TC_BAD : TC_KEY, y++, 1, COLS - 2, fitted);

    /* Overall: the whole run, download and unpack: half for the bytes fetched (those from the
     * cache count as fetched), half for the archives checked and unpacked.  100% only at the end. */
    uint64_t done = 0, total = 0, unpacked = 0;
    size_t n_unpacked = 0;
    for (size_t i = 0; i < t->n_items; i++) {
        const struct tui_item *it = &t->items[i];
        total += it->total;
        done += it->done < it->total ? it->done : it->total;
        if (it->finished) {
            unpacked += it->total;
            n_unpacked++;
        }
    }
    if (t->progress_job == JOB_INSTALL && t->plan && t->plan->download_bytes > total)
        total = t->plan->download_bytes;
    double frac = total ? ((double)done + (double)unpacked) / (2.0 * (double)total) : (finished ? 1.0 : 0.0);
    /* The Python environment is a stage of its own, after the archives: once it has begun, the
     * archives are in place, and their bar is full rather than waiting at 99%. */
    bool has_env = t->progress_job == JOB_INSTALL && t->plan && t->plan->framework && t->plan->env.tool &&
                   strcmp(t->plan->env.tool, "none") != 0;
    int n_stages = (total || t->n_items ? 1 : 0) + (has_env ? 1 : 0);
    if ((finished && t->last_status == CU_OK) || t->env.begun)
        frac = 1.0;
    else if (frac > 0.99)
        frac = 0.99; /* the files still go into place */
    int64_t el = ((busy ? cu_mono_ms() : t->ended_ms) - t->started_ms) / 1000;
    fmt_time(el, e1, sizeof(e1));
    /* The status in parts, each kept whole on a row ("elapsed" went alone onto the second row, issue 49): the
     * bytes, the archives unpacked, the speed and time left while bytes come, the time elapsed.  Nothing to
     * download (an uninstall, a repair of modes only): no byte counts of nothing. */
    const char *parts[5];
    size_t np = 0;
    CU_AUTOFREE char *bytes = NULL, *count = NULL, *speed = NULL, *left = NULL, *elapsed = cu_xasprintf(_("%s elapsed"), e1);
    if (total == 0 && t->n_items == 0) {
        bytes = n_stages > 1 ? cu_xasprintf("[1/%d] %3d%%", n_stages, (int)(frac * 100)) : cu_xasprintf("%3d%%", (int)(frac * 100));
    } else {
        cu_format_bytes(done, b1, sizeof(b1));
        cu_format_bytes(total, b2, sizeof(b2));
        CU_AUTOFREE char *head = cu_xasprintf(_("%3d%%  %s of %s downloaded"), (int)(frac * 100), b1, b2);
        bytes = n_stages > 1 ? cu_xasprintf("[1/%d] %s", n_stages, head) : cu_steal_ptr(&head);
        count = cu_xasprintf(_("%zu of %zu unpacked"), n_unpacked, t->n_items);
        /* A speed only while bytes come: none after the downloads (a smoothed speed decayed to "4 B/s"). */
        if (busy && t->speed >= 1 && total > done) {
            speed = cu_xasprintf(_("%s/s"), cu_format_bytes((uint64_t)t->speed, b3, sizeof(b3)));
            fmt_time((int64_t)((double)(total - done) / t->speed), e2, sizeof(e2));
            left = cu_xasprintf(_("%s left"), e2);
        }
    }
    parts[np++] = bytes;
    if (count)
        parts[np++] = count;
    if (speed)
        parts[np++] = speed;
    if (left)
        parts[np++] = left;
    parts[np++] = elapsed;
    tui_gauge(t, y, 2, COLS - 4, frac);
    status_rows(t, y + 1, 2, COLS - 4, parts, np);
    y += 3;
    if (has_env) {
        /* pip learns its sizes as it goes: the bar is the file it downloads, and the words say the rest. */
        char head[256], sofar[96], files[64];
        const struct cu_env_figures *e = &t->env;
        if (e->begun) {
            cu_env_figures_text(e, head, sizeof(head), sofar, sizeof(sofar), files, sizeof(files));
        } else {
            snprintf(head, sizeof(head), "%s", _("Python environment: after the archives"));
            sofar[0] = files[0] = '\0';
        }
        double ef = cu_env_figures_frac(e);
        if (finished && t->last_status == CU_OK)
            ef = 1.0;
        else if (strcmp(e->phase, "pip-install") == 0 || strcmp(e->phase, "pip-done") == 0)
            ef = 1.0;
        CU_AUTOFREE char *eline = cu_xasprintf("[%d/%d] %s%s%s%s%s", n_stages, n_stages, head, *sofar ? ", " : "",
                                               sofar, *files ? ", " : "", files);
        tui_gauge(t, y, 2, COLS - 4, ef < 0 ? 0 : ef);
        y += 1 + tui_wrap(y + 1, 2, COLS - 4, 2, eline);
        y += 1;
    }

    /* A failure takes the log's place: the whole sentence, wrapped, and what to do (the log is in the file). */
    int log_rows = failed ? 0 : 5;
    /* The step's sentence wraps over two rows rather than being cut. */
    int step_rows = t->step[0] && tui_wrap_rows(t->step, COLS - 2, 0) > 1 ? 2 : 1;
    /* A failure: why, what to do and where the log is, each whole. They take the rows they need (long
     * paths make them long), from the archives' list, which keeps the failed archive in view. */
    CU_AUTOFREE char *why = NULL, *fix = NULL, *logline = NULL;
    int why_rows = 0, fix_rows = 0, path_rows = 0, err_rows = 0;
    bool no_list = false;
    if (failed) {
        /* The mark stands beside the text, which wraps under itself: a long URL first never leaves the
         * mark alone on a row (issue 35). */
        why = tui_unflag(cu_error_text(&t->last_err));
        const char *advice = cu_error_advice(&t->last_err);
        CU_AUTOFREE char *told_fix = advice ? tui_unflag(advice) : NULL;
        fix = advice ? cu_xasprintf(_("What to do: %s"), told_fix) : NULL;
        logline = t->o.log_path ? cu_xasprintf(_("Every message of this run is in %s."), t->o.log_path) : NULL;
        why_rows = tui_wrap_rows(why, COLS - 4, 0);
        fix_rows = fix ? tui_wrap_rows(fix, COLS - 2, 0) : 0;
        path_rows = logline ? tui_wrap_rows(logline, COLS - 2, 0) : 0;
        int room = end - y - 2 - step_rows; /* one row of the list stays */
        if (why_rows + fix_rows + path_rows + 1 > room) {
            /* Too little: the list and the step's line give way (the sentence names the archive). */
            no_list = true;
            room = end - y;
        }
        if (room < 3)
            room = 3;
        /* When all cannot fit, the log's path gives way first, then what to do; why stays. */
        while (why_rows + fix_rows + path_rows > room && path_rows > 1)
            path_rows--;
        while (why_rows + fix_rows + path_rows > room && fix_rows > 1)
            fix_rows--;
        if (why_rows + fix_rows + path_rows > room)
            why_rows = room - fix_rows - path_rows > 1 ? room - fix_rows - path_rows : 1;
        err_rows = why_rows + fix_rows + path_rows + 1;
    }
    int item_rows = end - y - log_rows - err_rows - 2 - (step_rows - 1);
    if (item_rows < 1)
        item_rows = 1;
    if (no_list) /* what rows are left show the failed archive's row */
        item_rows = end - y - err_rows - 1 > 0 ? end - y - err_rows - 1 : 0;
    int nw = 24, gw = COLS - nw - 2 - 36;
    if (gw < 8)
        gw = 8;
    int first = t->cur.top;
    for (int i = 0; failed && i < (int)t->n_items; i++) /* the archive that failed is in view */
        if (strstr(cu_error_text(&t->last_err), t->items[i].name) && (i < first || i >= first + item_rows))
            first = i - item_rows + 1 > 0 ? i - item_rows + 1 : 0;
    if (first > (int)t->n_items - item_rows)
        first = (int)t->n_items - item_rows;
    if (first < 0)
        first = 0;
    t->cur.top = first;
    for (int r = 0; r < item_rows && first + r < (int)t->n_items; r++) {
        const struct tui_item *it = &t->items[first + r];
        tui_text_pad(y + r, 2, nw, it->name);
        tui_gauge(t, y + r, 2 + nw + 1, gw, it->total ? (double)it->done / (double)it->total : 0);
        char pb[64];
        bool culprit = failed && strstr(cu_error_text(&t->last_err), it->name);
        bool stopped = failed && !culprit && !(it->total && it->done >= it->total) && strcmp(it->phase, "cached") != 0;
        CU_AUTOFREE char *st = cu_xasprintf("%9s %s", it->total || !it->unsized ? cu_format_bytes(it->total, b1, sizeof(b1)) : "?",
                                            culprit ? _("failed") : stopped ? _("stopped") : phase_text(it, pb, sizeof(pb)));
        if (culprit)
            tui_text_color(t, TC_BAD, y + r, 2 + nw + gw + 2, COLS - (2 + nw + gw + 3), st);
        else
            tui_text(y + r, 2 + nw + gw + 2, COLS - (2 + nw + gw + 3), st);
    }
    y += item_rows + 1;
    tui_attr(t, TC_DIM, true);
    if (!no_list) {
        tui_wrap(y - 1, 1, COLS - 2, step_rows, t->step);
        y += step_rows - 1;
    }
    /* The newest messages that fit whole, each wrapped under itself (a note cut at "come from the…" at 60
     * columns told half of it, issue 35); a message taller than the room shows its first rows. */
    int from = (int)t->n_log, used = 0;
    while (from > 0 && from > (int)t->n_log - TUI_LOG_LINES) {
        int need = tui_wrap_rows(t->log[(t->log_head + (size_t)(from - 1)) % TUI_LOG_LINES], COLS - 4, 0);
        if (used + need > log_rows && used > 0)
            break;
        used += need;
        from--;
    }
    for (int idx = from, r = used < log_rows ? log_rows - used : 0; idx < (int)t->n_log && r < log_rows; idx++) {
        const char *msg = t->log[(t->log_head + (size_t)idx) % TUI_LOG_LINES];
        int need = tui_wrap_rows(msg, COLS - 4, 0);
        tui_wrap(y + r, 2, COLS - 4, need < log_rows - r ? need : log_rows - r, msg);
        r += need;
    }
    tui_attr(t, TC_DIM, false);
    if (failed) {
        int ey = end - err_rows + 2;
        tui_attr(t, reboot ? TC_WARN : TC_BAD, true);
        tui_text(ey, 1, 2, tui_mark(t, reboot ? 0 : -1));
        tui_wrap(ey, 3, COLS - 4, why_rows, why);
        tui_attr(t, reboot ? TC_WARN : TC_BAD, false);
        if (fix)
            tui_wrap(ey + why_rows, 1, COLS - 2, fix_rows, fix);
        if (logline)
            tui_dim_wrap(t, ey + why_rows + fix_rows, 1, COLS - 2, path_rows, logline);
    } else if (finished) {
        bool ok = t->last_status == CU_OK;
        const char *text = ok ? _("Done.")
                           : t->progress_job == JOB_UNINSTALL
                               ? _("Cancelled. What was half done has been removed; what you had is as it was.")
                               : _("Cancelled. What was half done has been removed and what you had is as it was; what was downloaded is kept for the next try.");
        /* The whole sentence, wrapped upwards from the last row of the body (it replaces the notice
         * "Cancelling…", which the run's end has made stale). */
        int n = tui_wrap_rows(text, COLS - 2, 0);
        if (n > 3)
            n = 3;
        t->message[0] = '\0';
        tui_attr(t, ok ? TC_GOOD : TC_BAD, true);
        for (int r = 0; r < n; r++)
            mvhline(end - r, 0, ' ', COLS);
        tui_wrap(end - n + 1, 1, COLS - 2, n, text);
        tui_attr(t, ok ? TC_GOOD : TC_BAD, false);
    }
}

static void
cancel_yes(struct tui *t)
{
    atomic_store(&t->cancel, 1);
    tui_notice(t, false, "%s", _("Cancelling; removing what was half done..."));
}

static bool
key(struct tui *t, int ch)
{
    bool enter_key = ch == '\n' || ch == '\r' || ch == KEY_ENTER;
    if (tui_busy(t)) {
        if (ch == 'c' || ch == 27) {
            tui_ask(t, _("Cancel"), _("Stop now? Nothing half-done is kept, and what you had before stays as it was."), cancel_yes);
            return true;
        }
        return tui_doc_scroll(ch, &t->cur.top, 5) || enter_key;
    }
    if (tui_doc_scroll(ch, &t->cur.top, 5))
        return true;
    /* The driver is installed and the machine must reboot: nothing here leads back to Review's install. */
    if (t->last_job == t->progress_job && t->last_status == CU_E_REBOOT) {
        if (enter_key) {
            t->rc = 5;
            t->running = false;
        }
        return enter_key || ch == 27;
    }
    if (enter_key || ch == 27) {
        bool ok = t->last_job == t->progress_job && t->last_status == CU_OK;
        if (ok && enter_key)
            tui_goto(t, t->progress_job == JOB_UNINSTALL ? SCR_DONE : SCR_VALIDATION);
        else
            tui_back(t);
        return true;
    }
    return false;
}

static void
on_event(struct tui *t, const struct tui_msg *m)
{
    if (!m->job || m->job->kind != t->progress_job)
        return;
    if (m->status == CU_OK && m->job->kind == JOB_UNINSTALL) {
        cu_clear_ptr(&t->existing, free);
        t->existing_tk = NULL;
    }
    if (m->status == CU_OK && m->job->kind != JOB_UNINSTALL)
        tui_goto(t, SCR_VALIDATION); /* the proof comes straight after */
    else if (m->status == CU_OK)
        tui_goto(t, SCR_DONE);
}

const struct tui_screen_ops scr_progress_ops = {
    .id = "progress",
    .title = title,
    .enter = enter,
    .draw = draw,
    .key = key,
    .on_event = on_event,
    .help = help,
};
