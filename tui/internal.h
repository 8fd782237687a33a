/* SPDX-License-Identifier: MIT */
/* Shared between the wizard's own files (tui.c, screen.c, jobs.c, nav.c, edit.c, keys.c); not part of tui.h. */
#ifndef CU_TUI_INTERNAL_H
#define CU_TUI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/log.h"
#include "tui.h"

/* jobs.c */
void tui_msg_fini(struct tui_msg *m);
void tui_job_free(struct tui_job *j);
/** While curses is up the log goes to the file, and warnings wait for endwin (STYLE 42). */
void tui_log_sink(void *userdata, enum cu_log_level level, const char *tag, const char *msg, const char *msg_en);
/** Handle every event the worker queued. */
void tui_drain(struct tui *t);

/* screen.c */
void tui_handle_key(struct tui *t, int ch);
/** Draw the current screen (and the help or question over it). */
void tui_draw(struct tui *t);

/* keys.c */
struct script {
    char **lines;
    size_t n, pos;
    int64_t sleep_until;
};

CU_NODISCARD enum cu_status tui_script_load(const char *path, struct script *s, struct cu_error *err);
/** Run the script's next line; false when there is nothing left to do now. */
bool tui_script_step(struct tui *t, struct script *s);

#endif
