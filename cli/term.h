/* SPDX-License-Identifier: MIT */
/*
 * The terminal the CLI writes to: its width, and text measured, cut and wrapped in the
 * columns it takes there (a CJK character takes two).
 */
#ifndef CU_TERM_H
#define CU_TERM_H

#include <stddef.h>
#include <stdio.h>

#include "core/base/macros.h"

/**
 * The width of the terminal on @fd in columns: COLUMNS when it holds a positive number, else
 * what the terminal reports (TIOCGWINSZ), else 80.  0 when @fd is not a terminal (a pipe or a
 * file: nothing is cut or wrapped there).
 */
int cu_term_width(int fd);

/** The columns @s takes on a terminal (an undecodable byte counts as one). */
size_t cu_text_cols(const char *s);

/** Cut @s in place to at most @cols columns, at a character boundary. */
void cu_text_cut(char *s, size_t cols);

/**
 * Write @prefix then @text to @out, wrapped at word boundaries to @width columns (never inside a
 * word; between two wide characters where text has no spaces); continuation lines are indented
 * to line up under the text (by two spaces when @prefix is empty or long).  A word longer than a line is left whole on a line of its own.  @width 0: one
 * line, as is.  Each of @text's own lines is wrapped in turn; ends with a newline.
 */
void cu_print_wrapped(FILE *out, const char *prefix, const char *text, int width);

/**
 * The same, for a line the caller began: @used columns are taken on it already, and continuation
 * lines are indented by @indent columns.
 */
void cu_print_wrapped_at(FILE *out, size_t used, size_t indent, const char *text, int width);

/** Format, then cu_print_wrapped to @out at the width of the terminal it is (none when it is not one). */
void cu_say(FILE *out, const char *prefix, const char *fmt, ...) CU_PRINTF(3, 4);

#endif /* CU_TERM_H */
