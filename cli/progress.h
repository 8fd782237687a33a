/* SPDX-License-Identifier: MIT */
/*
 * The headless reporter of engine events: one updating line on a terminal
 * (at most every 100 ms), start/finish lines otherwise, JSON lines with
 * --json; all on stderr.  Thread safe.
 */
#ifndef CU_PROGRESS_H
#define CU_PROGRESS_H

#include "app.h"
#include "core/base/event.h"

struct cu_progress;

struct cu_progress *cu_progress_new(struct cu_app *app);
void cu_progress_free(struct cu_progress *p);
struct cu_plan;
/**
 * Take the totals from @plan (its archives and their sizes) before the run starts, so that the
 * first progress line shows the whole and the whole never moves; with --json, a "totals" line.
 */
void cu_progress_set_plan(struct cu_progress *p, const struct cu_plan *plan);
/** The sink to hand to the engine. */
struct cu_events cu_progress_events(struct cu_progress *p);
/** End an updating line, if one is showing (and say a failed step that waits to be said). */
void cu_progress_flush(struct cu_progress *p);
/**
 * The run ended with @err (NULL: it did not fail): a failed step whose sentence is @err's own is left to the
 * error line the command prints next, so that it is said once; then cu_progress_flush().
 */
void cu_progress_end(struct cu_progress *p, const struct cu_error *err);

#endif /* CU_PROGRESS_H */
