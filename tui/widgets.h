/* SPDX-License-Identifier: MIT */
/*
 * Drawing helpers for the wizard: frames, text clipped and wrapped by
 * display width (CJK counts two columns), lists, gauges, boxes.  UI thread
 * only.
 */
#ifndef CU_WIDGETS_H
#define CU_WIDGETS_H

#include <stdbool.h>

#include "tui.h"

enum tui_color { TC_NORMAL, TC_TITLE, TC_GOOD, TC_BAD, TC_DIM, TC_SEL, TC_WARN, TC_KEY };

/** Set up colour pairs, unless colour is off (NO_COLOR, --no-color, or a terminal without it). */
void tui_colors_init(struct tui *t);
void tui_attr(struct tui *t, enum tui_color c, bool on);

/**
 * Clear the screen and draw the title bar (with the step number of the
 * main flow), the notice line and the footer with @keys.  Returns the first
 * free row; the body may use rows up to tui_body_end().
 */
int tui_frame(struct tui *t, const char *title, const char *keys);
/** The last row the body may use. */
int tui_body_end(void);
/** Text at (y, x) in @w columns; a cut shows as "…" in the last column. Returns the columns used. */
int tui_text(int y, int x, int w, const char *s);
/** The first @w columns of @s, no ellipsis: for drawing over part of a row (its colour). */
int tui_text_part(int y, int x, int w, const char *s);
/**
 * @line with its one TUI_PATH mark replaced by @path, shortened to "…" and its
 * end when the whole would not fit @w columns: a long path keeps its useful
 * part and the sentence around it stays.  Caller frees.
 */
char *tui_fit_path(const struct tui *t, int w, const char *line, const char *path);
#define TUI_PATH "\001"
/** Like tui_text, then fill the rest of the @w columns with spaces. */
void tui_text_pad(int y, int x, int w, const char *s);
/**
 * @s wrapped to @w columns by cu_line_break (at spaces; in CJK text between characters; never inside a
 * Latin word unless it is wider than a row); returns the rows used (at most @rows).  When the rows
 * run out first, the last one ends in "…".
 */
int tui_wrap(int y, int x, int w, int rows, const char *s);
/** tui_wrap with each paragraph's continuation rows @hang columns further in (under a table's last column). */
int tui_wrap_hang(int y, int x, int w, int hang, int rows, const char *s);
/** The rows tui_wrap_hang takes for the whole of @s: 0 for "". */
int tui_wrap_rows(const char *s, int w, int hang);
/** The display width of a UTF-8 string. */
int tui_width(const char *s);
/** A bar of @w columns filled to @frac (0..1). */
void tui_gauge(struct tui *t, int y, int x, int w, double frac);
/**
 * A scrolled list of @n rows in a window of @h rows; the selected one is
 * highlighted when @focus.  Keeps *top so that @sel is visible.
 */
void tui_list(struct tui *t, int y, int x, int w, int h, char *const *rows, int n, int sel, int *top, bool focus);
/**
 * A scrolled list whose entries wrap: each takes the rows its whole text needs at @w columns (its
 * continuation rows @hang columns in), the selected one highlighted and kept in view (*@top is the
 * first entry shown); ▲/▼ in column @x + @w say there is more.  @lead, when not NULL, colours the
 * first @lead_w columns of each entry that is not selected (a mark).  @fold, when not NULL, marks
 * the entries that take one row (cut with "…") unless selected: those that need not be read whole.
 * Returns the rows used.
 */
int tui_wlist(struct tui *t, int y, int x, int w, int h, char *const *rows, int n, int hang, int sel, int *top,
              const enum tui_color *lead, int lead_w, const bool *fold);
/** The notice (t->message), wrapped over as many rows above the keys as it needs. */
void tui_notice_draw(struct tui *t);
/** A centred box with a title and wrapped lines (help, questions). */
void tui_box(struct tui *t, const char *title, const char *const *lines, int n);
/** tui_text in colour @c: headings, labels. Returns the columns used. */
int tui_text_color(struct tui *t, enum tui_color c, int y, int x, int w, const char *s);
/** Dim text clipped to @w columns: hints under a field, side notes. */
void tui_dim(struct tui *t, int y, int x, int w, const char *s);
/** Dimmed text wrapped over at most @rows rows; returns the rows used. */
int tui_dim_wrap(struct tui *t, int y, int x, int w, int rows, const char *s);
/** A spinner and @text, while the engine works. */
void tui_busy_line(struct tui *t, int y, const char *text);
/** The "[ Continue ]" row of a form, highlighted when it has the focus. */
void tui_button(struct tui *t, int y, bool focus);
/** Up/Down/Tab/Shift-Tab move a form's focus round @n rows, stepping over row @skip (-1: none). */
bool tui_form_move(int ch, int *sel, int n, int skip);
/** The cycle direction of a choice field's key: -1 (Left), 1 (Right, Space), 0 for other keys. */
int tui_cycle_dir(int ch);
/** The value @dir steps from @cur in @set of @n (round; an unknown @cur counts as the first). */
const char *tui_cycle_value(const char *const *set, int n, const char *cur, int dir);
/** The widest of @n labels, in columns. */
int tui_labels_width(const char *const *labels, int n);
/** "✓"/"✗"/"·" in UTF-8 terminals, "+"/"x"/"-" elsewhere. */
const char *tui_mark(const struct tui *t, int kind);
/** Move a selection by a key (up, down, page, home, end) within @n; true when the key was one of them. */
bool tui_move_sel(int ch, int *sel, int n, int page);


/* A document of lines, wrapped to the screen and scrolled: the text screens build one per draw. */
struct tui_doc_line {
    enum tui_color color;
    int indent;
    char *text;
    int hang; /* continuation rows this much further in */
};
struct tui_doc {
    struct tui_doc_line *v;
    size_t n;
};
void tui_doc_add(struct tui_doc *d, enum tui_color c, int indent, const char *fmt, ...) CU_PRINTF(4, 5);
/** The line added last wraps with its continuation rows @hang columns further in. */
void tui_doc_hang(struct tui_doc *d, int hang);
/** Draw from wrapped row *top (kept in range) in rows [y, y + h); frees the lines. */
void tui_doc_draw(struct tui *t, struct tui_doc *d, int y, int h, int *top);
/** The cursor keys scroll a document: true when @ch was one of them. */
bool tui_doc_scroll(int ch, int *top, int page);

/** @text with the engine's flags told as the wizard's choices ("--env-tool conda" -> "“Tool: conda” on the
 *  Python environment screen"; "give --python-source system or --env-tool conda" -> "choose “From: this
 *  machine's” or “Tool: conda” on the Python environment screen"). Caller frees. */
char *tui_unflag(const char *text);

#endif
