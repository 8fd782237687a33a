/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "term.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include "core/base/linebreak.h"
#include "core/base/mem.h"
#include "core/base/parse.h"

int
cu_term_width(int fd)
{
    if (!isatty(fd))
        return 0;
    const char *c = getenv("COLUMNS");
    uint64_t v;
    if (c && cu_parse_u64(c, 9999, &v) && v > 0)
        return (int)v;
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

/* The next character of @s: its length in bytes (at least 1) and its columns. */
static size_t
next_char(const char *s, int *cols)
{
    mbstate_t st;
    wchar_t wc;
    memset(&st, 0, sizeof(st));
    size_t n = mbrtowc(&wc, s, strnlen(s, MB_LEN_MAX), &st);
    if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
        *cols = 1;
        return 1;
    }
    int w = wcwidth(wc);
    *cols = w > 0 ? w : 0;
    return n;
}

size_t
cu_text_cols(const char *s)
{
    size_t cols = 0;
    while (*s) {
        int w;
        s += next_char(s, &w);
        cols += (size_t)w;
    }
    return cols;
}

void
cu_text_cut(char *s, size_t cols)
{
    size_t used = 0;
    char *p = s;
    while (*p) {
        int w;
        size_t n = next_char(p, &w);
        if (used + (size_t)w > cols)
            break;
        used += (size_t)w;
        p += n;
    }
    *p = '\0';
}

void
cu_print_wrapped_at(FILE *out, size_t used, size_t indent, const char *text, int width)
{
    if (width <= 0) {
        CU_AUTOFREE char *shown = cu_line_shown(text, strlen(text));
        fputs(shown, out);
        fputc('\n', out);
        return;
    }
    /* Lines break where core/linebreak says text may (spaces, between CJK characters, never before
     * closing punctuation), as the wizard's do; a word wider than the line stays whole. */
    bool at_start = true; /* the line the caller began */
    const char *s = text;
    do {
        size_t lead = at_start ? used : indent;
        size_t avail = (size_t)width > lead + 10 ? (size_t)width - lead - 1 : 10;
        size_t next, end = cu_line_break(s, (int)avail, false, &next);
        if (!at_start)
            fprintf(out, "%*s", (int)indent, "");
        CU_AUTOFREE char *shown = cu_line_shown(s, end);
        fputs(shown, out);
        fputc('\n', out);
        at_start = false;
        s += next;
    } while (*s);
}

void
cu_print_wrapped(FILE *out, const char *prefix, const char *text, int width)
{
    size_t used = cu_text_cols(prefix);
    fputs(prefix, out);
    cu_print_wrapped_at(out, used, used && used <= 24 ? used : 2, text, width);
}

void
cu_say(FILE *out, const char *prefix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = cu_xvasprintf(fmt, ap);
    va_end(ap);
    cu_print_wrapped(out, prefix, text, cu_term_width(fileno(out)));
    free(text);
}
