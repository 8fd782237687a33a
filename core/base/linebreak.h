/* SPDX-License-Identifier: MIT */
/*
 * Where text meant to be read breaks into lines of a given width, measured in the columns it takes
 * on a terminal (a CJK character takes two).  Pure text: the wizard draws with it, tests check it.
 */
#ifndef CU_LINEBREAK_H
#define CU_LINEBREAK_H

#include <stdbool.h>
#include <stddef.h>

/**
 * Where the line of at most @cols columns that starts at @s ends.
 *
 * A line may break after a space, between two wide (CJK) characters, and between a wide character
 * and a Latin word; never inside a Latin word, never before closing punctuation ("，", "。", "：",
 * ")", "…") and never after opening punctuation ("（", "“", "(").  Where a line could break both
 * between two CJK characters and, a little earlier, at a space or after punctuation, it breaks at
 * the space or the punctuation (within a few columns of the end), so that a word such as 方向键 is
 * not split when it need not be.  A Latin word wider than a whole line is cut at the line's last
 * column (after a '/' or '-' when one is in its second half) when @cut_long, else kept whole on a
 * line of its own.  Every line holds at least one character; a line also ends at a '\n'.
 *
 * @return the line's length in bytes, spaces at its end left out; *@next is the offset where the
 *         following line starts (its leading spaces and the '\n' skipped): strlen(@s) at the end.
 */
size_t cu_line_break(const char *s, int cols, bool cut_long, size_t *next);

/*
 * A command the user copies (a `cudaup ...` in backticks, the line after "try it:", ". env.sh") never
 * breaks across lines: cu_line_break keeps the text between two backticks, or between these two marks,
 * whole, on the line it fits or else on a line of its own, even where it is wider than that line
 * (with @cut_long too).  The marks take no column and are never shown: print what cu_line_shown returns.
 */
#define CU_KEEP_OPEN "\x0e"
#define CU_KEEP_CLOSE "\x0f"

/** @cmd between the two keep marks, for a message a wrapper lays out.  The caller frees it. */
char *cu_keep(const char *cmd);

/** The first @len bytes of @s (a line cu_line_break found) as shown: the keep marks left out.  Caller frees. */
char *cu_line_shown(const char *s, size_t len);

/** The number of lines cu_line_break (cutting long words) makes of @s at @cols: 0 for "". */
int cu_line_count(const char *s, int cols);

/** The columns @s takes on a terminal (a wide character two, an undecodable byte one, a keep mark none). */
int cu_text_width(const char *s);

#endif /* CU_LINEBREAK_H */
