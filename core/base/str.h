/* SPDX-License-Identifier: MIT */
/*
 * Growable strings (struct cu_buf) and string vectors (struct cu_strv).
 * Both are embedded objects: cu_x_init()/cu_x_fini() (STYLE 7).
 */
#ifndef CU_STR_H
#define CU_STR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/macros.h"

struct cu_buf {
    char *data; /* always NUL-terminated after init */
    size_t len;
    size_t cap;
};

void cu_buf_init(struct cu_buf *b);
void cu_buf_fini(struct cu_buf *b);
void cu_buf_reset(struct cu_buf *b);
void cu_buf_append(struct cu_buf *b, const void *data, size_t len);
void cu_buf_puts(struct cu_buf *b, const char *s);
void cu_buf_putc(struct cu_buf *b, char c);
void cu_buf_printf(struct cu_buf *b, const char *fmt, ...) CU_PRINTF(2, 3);
/** Take the string out; the buffer is released (cu_buf_init it to use it again). Caller owns the result. */
char *cu_buf_steal(struct cu_buf *b);

/** A NULL-terminated vector of owned strings. */
struct cu_strv {
    char **v;
    size_t n;
    size_t cap;
};

void cu_strv_init(struct cu_strv *s);
void cu_strv_fini(struct cu_strv *s);
/** Append a copy of @str. */
void cu_strv_push(struct cu_strv *s, const char *str);
/** Append @str, taking ownership. */
void cu_strv_push_owned(struct cu_strv *s, char *str);
/** Free a bare NULL-terminated vector (what cu_steal_ptr(&strv.v) handed out). */
void cu_strv_free(char **v);
/** A copy of a bare NULL-terminated vector, or NULL for NULL. Caller frees (cu_strv_free). */
char **cu_strv_dup(char *const *v);
bool cu_strv_contains(const struct cu_strv *s, const char *str);
void cu_strv_sort(struct cu_strv *s);
/** @s's strings with @sep between them ("" for none). Caller frees. */
char *cu_strv_join(const struct cu_strv *s, const char *sep);
/** Split @str on any byte of @seps, dropping empty fields. */
void cu_strv_split(struct cu_strv *s, const char *str, const char *seps);

bool cu_str_has_prefix(const char *s, const char *prefix);
bool cu_str_has_suffix(const char *s, const char *suffix);
/** Trim ASCII white space at both ends, in place; returns @s. */
char *cu_str_strip(char *s);
/** Join two path parts with exactly one '/'. Caller owns the result. */
char *cu_path_join(const char *a, const char *b);
/**
 * One step of a walk down a path, component by component, as the kernel resolves it: @cur holds the folders
 * walked so far ("" for the top, no link among them), *@rest what is still to walk. "." is skipped, ".." takes
 * the last folder off @cur (never above the top). Returns the next name (caller frees), *@rest keeping what
 * follows it; NULL when nothing is left.
 */
char *cu_path_walk_next(char *cur, char **rest);
/** A link met on that walk, whose text is @to: it goes before *@rest, and an absolute one starts @cur again
 *  from the top. */
void cu_path_walk_link(char *cur, char **rest, const char *to);
/** Copy of @s with control bytes replaced by '?', for showing untrusted text. */
char *cu_str_sanitize(const char *s);
/** Quote @s for POSIX sh in single quotes. Caller owns the result. */
char *cu_sh_quote(const char *s);

/**
 * The line of a tool's multi-line error output @text that says what failed, trimmed: a Python
 * traceback's exception line (its last line at the margin), else the first line that speaks of an
 * error ("error", "not found", "cannot", "failed", "No module named", "denied"), else the first line
 * (pyenv's "pyenv: python3.7: command not found" comes before its notes).  "" for blank text.
 * Caller frees.
 */
char *cu_str_failure_line(const char *text);

/**
 * @s as a sentence: ending with its full stop: "。" when it is a CJK sentence (CJK text outside commands in
 * backticks and paths), even where it ends with a value ("最高可运行 CUDA 13.0。"), else ".". Caller frees.
 */
char *cu_str_sentence(const char *s);

/**
 * @sentence with @aside (a command, a path) in brackets after it: "Read the lists. (`apt-get update`)"; a
 * sentence that ends with "。" takes it inside, in full-width brackets: "读取列表（`apt-get update`）。".
 * Caller frees.
 */
char *cu_str_aside(const char *sentence, const char *aside);

/**
 * Append sentence @s (its leading spaces left out) to the text in @b: after a space, unless @b is empty or
 * ends with a full-width mark (zh_CN's "。", "）", "："), after which the next sentence follows directly.
 */
void cu_buf_sentence(struct cu_buf *b, const char *s);

#endif /* CU_STR_H */
