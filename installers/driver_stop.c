/* SPDX-License-Identifier: MIT */
/*
 * Where a driver install stopped before its end (driver_int.h): a step that failed, or Ctrl-C, which lets the
 * running command finish and then stops.  STATE/resume.json says which of the plan's driver steps were done
 * (the keys a reboot's record has, and "stopped", "stopped_at", "driver_done"), so that the next run goes on
 * from the step that stopped instead of repeating the package transaction (issue 49).  A step is skipped only
 * while it is the same step of the same plan and what it made is still there: the files cudaup wrote, the
 * packages of the install transaction.  A module load is never skipped (it says whether a reboot is needed).
 */
#include "config.h"

#define CU_LOG_TAG "driver"
#include "driver_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"

#define RESUME "resume.json"
#define MAX_DONE 64

/* A step as the record names it: its action and what it runs, writes or fetches. Caller owns. */
static char *
step_key(const struct cu_drv_step *s)
{
    CU_AUTOFREE char *line = s->argv || s->path || s->url ? cu_drv_step_line(s) : NULL;
    return line ? cu_xasprintf("%s %s", s->action, line) : cu_xstrdup(s->action);
}

/* A step for a sentence: its command in backticks, the file it writes, or what it is. Caller owns. */
static char *
step_said(const struct cu_drv_step *s)
{
    if (s->argv) {
        CU_AUTOFREE char *line = cu_drv_step_line(s);
        return cu_xasprintf("`%s`", line);
    }
    if (s->path || s->url)
        return cu_xstrdup(s->path ? s->path : s->url);
    if (strcmp(s->action, "reboot") == 0)
        return cu_xstrdup(_("the reboot"));
    return cu_xstrdup(s->action);
}

char *
drv_steps_left(const struct cu_drv_plan *d, size_t at)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = at; i < d->n_steps; i++) {
        CU_AUTOFREE char *x = step_said(&d->steps[i]);
        cu_buf_printf(&b, "%s%s", i > at ? "; " : "", x);
    }
    return cu_buf_steal(&b);
}

enum cu_status
drv_stop_write(struct inst_driver_ctx *c, const struct cu_plan *plan, const struct cu_facts *facts, size_t at,
               const char *why, bool queued, struct cu_error *err)
{
    const struct cu_drv_plan *d = plan->driver;
    json_t *r = json_object();
    json_t *steps = json_array(), *done = json_array();
    /* The keys a reboot's record has (inst_driver_resume reads them), then where it stopped. */
    for (size_t i = 0; i < plan->n_steps; i++)
        if (strcmp(plan->steps[i].installer, "driver") != 0)
            json_array_append_new(steps, json_string(plan->steps[i].detail));
    for (size_t i = 0; i < at && i < d->n_steps && i < MAX_DONE; i++) {
        CU_AUTOFREE char *k = step_key(&d->steps[i]);
        json_array_append_new(done, json_string(k));
    }
    json_object_set_new(r, "after", json_string("driver"));
    json_object_set_new(r, "branch", json_integer(d->branch));
    json_object_set_new(r, "flavor", json_string(d->flavor));
    json_object_set_new(r, "secure_boot", json_string(d->secure_boot));
    json_object_set_new(r, "mok_cert", cu_json_str_or_null(d->mok_cert));
    json_object_set_new(r, "mok_queued", json_boolean(queued));
    json_object_set_new(r, "steps", steps);
    json_object_set_new(r, "boot_id", cu_json_str_or_null(c->sys->image || !facts->drv ? NULL : facts->drv->boot_id));
    json_object_set_new(r, "image", json_boolean(c->sys->image));
    json_object_set_new(r, "stopped", json_string(why));
    if (at < d->n_steps) {
        CU_AUTOFREE char *k = step_key(&d->steps[at]);
        json_object_set_new(r, "stopped_at", json_string(k));
    }
    json_object_set_new(r, "driver_done", done);
    return drv_write_json(c->state_dir, RESUME, r, err);
}

/* The record, when it is a stop (not a reboot's): NULL otherwise. */
static json_t *
stop_record(const char *state_dir)
{
    json_t *r = inst_driver_resume_record(state_dir);
    const char *why = r ? cu_json_str(r, "stopped") : NULL;
    if (!why || (strcmp(why, "failed") != 0 && strcmp(why, "interrupted") != 0)) {
        json_decref(r);
        return NULL;
    }
    return r;
}

void
drv_stop_clear(const char *state_dir)
{
    json_t *r = stop_record(state_dir);
    if (!r)
        return;
    json_decref(r);
    CU_AUTOFREE char *path = cu_path_join(state_dir, RESUME);
    if (unlink(path) != 0)
        cu_log_warn(_("Cannot remove %s"), path);
}

/* The packages an install step names (its words that are not options, the subcommand aside). */
static void
install_names(const struct cu_drv_step *s, struct cu_strv *out)
{
    for (size_t i = 1; s->argv[i]; i++)
        if (s->argv[i][0] != '-' && strcmp(s->argv[i], "install") != 0)
            cu_strv_push(out, s->argv[i]);
}

/* Is what step @s made still there: the file cudaup wrote, the packages of the transaction? */
static bool
still_there(struct inst_driver_ctx *c, const struct cu_drv_plan *d, const struct cu_drv_step *s)
{
    if (s->path && s->text)
        return cu_sys_exists(c->sys, s->path);
    if (strcmp(s->action, "install") != 0 || !s->argv)
        return true;
    struct cu_strv want, have;
    struct cu_error e;
    cu_strv_init(&want);
    cu_strv_init(&have);
    install_names(s, &want);
    bool ok = drv_installed(c->sys, d->manager, &have, NULL, NULL, &e) == CU_OK;
    for (size_t i = 0; ok && i < want.n; i++)
        ok = cu_strv_contains(&have, want.v[i]);
    cu_strv_fini(&want);
    cu_strv_fini(&have);
    return ok;
}

/*
 * Is recorded key @k step @s?  The same key; or, for the install transaction, one that named every package @s
 * names (the plan made again leaves out what the stopped run already installed: mokutil).
 */
static bool
same_step(const char *k, const struct cu_drv_step *s)
{
    CU_AUTOFREE char *key = step_key(s);
    if (strcmp(k, key) == 0)
        return true;
    if (strcmp(s->action, "install") != 0 || !cu_str_has_prefix(k, "install "))
        return false;
    struct cu_strv had, now;
    cu_strv_init(&had);
    cu_strv_init(&now);
    cu_strv_split(&had, k, " ");
    cu_strv_split(&now, key, " ");
    bool ok = now.n >= 3 && had.n >= now.n;
    for (size_t i = 0; ok && i < now.n; i++)
        ok = cu_strv_contains(&had, now.v[i]);
    cu_strv_fini(&had);
    cu_strv_fini(&now);
    return ok;
}

size_t
drv_stop_resume(struct inst_driver_ctx *c, const struct cu_drv_plan *d, bool *queued, char **said)
{
    *said = NULL;
    json_t *r = stop_record(c->state_dir);
    if (!r)
        return 0;
    const json_t *done = json_object_get(r, "driver_done");
    const char *flavor = cu_json_str(r, "flavor"), *why = cu_json_str(r, "stopped");
    size_t n = 0;
    if (json_is_array(done) && json_array_size(done) <= MAX_DONE &&
        json_integer_value(json_object_get(r, "branch")) == d->branch && flavor && d->flavor &&
        strcmp(flavor, d->flavor) == 0) {
        for (; n < json_array_size(done) && n < d->n_steps; n++) {
            const struct cu_drv_step *s = &d->steps[n];
            const json_t *k = json_array_get(done, n);
            /* The module load is run again: whether it loads now says whether a reboot is needed. */
            if (!json_is_string(k) || !same_step(json_string_value(k), s) || strcmp(s->action, "load") == 0 ||
                !still_there(c, d, s))
                break;
            if (strcmp(s->action, "mok") == 0)
                *queued = true;
        }
    }
    if (n) {
        CU_AUTOFREE char *left = drv_steps_left(d, n);
        CU_AUTOFREE char *last = step_said(&d->steps[n - 1]);
        if (strcmp(why, "interrupted") == 0)
            *said = cu_xasprintf(_("The last run was interrupted after %s: going on from there (%zu of the driver's %zu steps are done), with %s."),
                                 last, n, d->n_steps, left);
        else
            *said = cu_xasprintf(_("The last run stopped at a step that failed: going on from there (%zu of the driver's %zu steps are done), with %s."),
                                 n, d->n_steps, left);
    }
    json_decref(r);
    return n;
}
