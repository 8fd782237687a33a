/* SPDX-License-Identifier: MIT */
/*
 * The one event interface the engine reports through (DESIGN "Flow of
 * data"): a step started, bytes done of a total, a log line, a step finished.
 * Events may be emitted from any engine thread; the sink must be thread safe
 * (the CLI's takes a lock, the wizard's pushes onto its queue).  Strings in
 * an event are borrowed for the duration of the call.
 */
#ifndef CU_EVENT_H
#define CU_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/error.h"

enum cu_event_type {
    CU_EV_STEP_START,
    CU_EV_PROGRESS,
    CU_EV_LOG,
    CU_EV_STEP_DONE,
};

struct cu_event {
    enum cu_event_type type;
    const char *installer; /* "cuda", "cudnn", "envvars", ... */
    const char *item;      /* a component, for progress */
    const char *phase;     /* "download", "unpack", "cached" */
    uint64_t done, total;  /* bytes */
    /* The Python environment's stage (item "environment"): done/total are the file pip downloads,
     * message its package; so_far counts every byte pip downloaded, files its files. */
    uint64_t so_far;
    unsigned files;
    const char *message;   /* step detail, log text, or the failure */
    enum cu_status status; /* STEP_DONE */
    bool changed;          /* STEP_DONE */
};

typedef void (*cu_event_fn)(void *userdata, const struct cu_event *ev);

struct cu_events {
    cu_event_fn fn;
    void *userdata;
};

static inline void
cu_emit(const struct cu_events *evs, const struct cu_event *ev)
{
    if (evs && evs->fn)
        evs->fn(evs->userdata, ev);
}

#endif /* CU_EVENT_H */
