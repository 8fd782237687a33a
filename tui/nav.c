/* SPDX-License-Identifier: MIT */
/* Answers, screens and the way between them. */
#include "config.h"

#include "tui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "internal.h"
#include "widgets.h"

void
tui_set_answer(struct tui *t, char **field, const char *value)
{
    (void)t;
    free(*field);
    *field = value && *value ? cu_xstrdup(value) : NULL;
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

static void
show(struct tui *t, enum tui_scr s)
{
    if (t->screens[t->scr]->leave)
        t->screens[t->scr]->leave(t);
    t->scr = s;
    memset(&t->cur, 0, sizeof(t->cur));
    t->message[0] = '\0';
    if (t->screens[s]->enter)
        t->screens[s]->enter(t);
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
    case SCR_LOCATION: tui_goto(t, wants_framework(t) ? SCR_PYENV : t->containers_offer ? SCR_CONTAINERS : SCR_REVIEW); break;
    case SCR_PYENV: tui_goto(t, t->containers_offer ? SCR_CONTAINERS : SCR_REVIEW); break;
    case SCR_CONTAINERS: tui_goto(t, SCR_REVIEW); break;
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
    t->ask_tick[0] = '\0';
    t->ask_ticked = NULL;
}

void
tui_ask_tick(struct tui *t, const char *label, bool *ticked)
{
    snprintf(t->ask_tick, sizeof(t->ask_tick), "%s", label);
    t->ask_ticked = ticked;
}

