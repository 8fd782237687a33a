/* SPDX-License-Identifier: MIT */
/* The headless reporter: text or JSON on stdout, messages on stderr. */
#ifndef CU_REPORT_H
#define CU_REPORT_H

#include <jansson.h>

#include "app.h"

enum cu_color { CU_COLOR_NONE, CU_COLOR_RED, CU_COLOR_YELLOW, CU_COLOR_GREEN, CU_COLOR_BOLD,
                CU_COLOR_DIM };

/** Escape sequence for @c on stdout (@err_stream false) or stderr, "" when colour is off. */
const char *cu_color(const struct cu_app *app, enum cu_color c, bool err_stream);
const char *cu_color_reset(const struct cu_app *app, bool err_stream);

/**
 * Report a failure: one sentence (and advice) on stderr; with --json also an
 * error document on stdout.  @return the exit code for @err.
 */
int cu_report_error(struct cu_app *app, const struct cu_error *err);

/**
 * Print @s to @out padded with spaces to @width terminal columns, counting
 * wide (CJK) characters as two.
 */
void cu_print_padded(FILE *out, const char *s, int width);

/** The one sentence and its advice on stderr only (when the JSON document is written elsewhere). */
void cu_report_error_line(struct cu_app *app, const struct cu_error *err);

/** Print @doc on stdout, indented, and release it. */
void cu_report_json(struct cu_app *app, json_t *doc);
/**
 * Finish a command's JSON document: when @st failed add exit_code, error and
 * advice, print it, and put the error line on stderr too.  Takes @doc.
 * Returns the exit status.
 */
int cu_report_json_result(struct cu_app *app, json_t *doc, enum cu_status st, const struct cu_error *err);

#endif /* CU_REPORT_H */
