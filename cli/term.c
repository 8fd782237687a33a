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

#include "core/mem.h"
#include "core/parse.h"

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

/* Where a line of at most @avail columns that starts at @s may end: the byte offset past its last
 * whole word (or wide character), and *next where the following line starts. */
static size_t
line_end(const char *s, size_t len, size_t avail, size_t *next)
{
    size_t used = 0, i = 0, brk = 0, brk_next = 0;
    while (i < len) {
        int w;
        size_t n = next_char(s + i, &w);
        if (s[i] == ' ' && i > 0) {
            brk = i;
            brk_next = i + 1;
        } else if (w == 2 && i > 0) {
            brk = i; /* before a wide character: where CJK text may break */
            brk_next = i;
        }
        if (used + (size_t)w > avail && i > 0)
            break;
        used += (size_t)w;
        i += n;
    }
    if (i >= len) {
        *next = len;
        return len;
    }
    if (brk == 0) {
        /* One word longer than the line: keep it whole. */
        size_t e = i;
        while (e < len && s[e] != ' ')
            e++;
        brk = e;
        brk_next = e;
    }
    while (brk_next < len && s[brk_next] == ' ')
        brk_next++;
    *next = brk_next;
    return brk;
}

void
cu_print_wrapped_at(FILE *out, size_t used, size_t indent, const char *text, int width)
{
    if (width <= 0) {
        fputs(text, out);
        fputc('\n', out);
        return;
    }
    bool at_start = true; /* the line the caller began */
    for (const char *l = text;;) {
        size_t len = strcspn(l, "\n");
        size_t pos = 0;
        do {
            size_t lead = at_start ? used : indent;
            size_t avail = (size_t)width > lead + 10 ? (size_t)width - lead - 1 : 10;
            size_t next, end = line_end(l + pos, len - pos, avail, &next);
            if (!at_start)
                fprintf(out, "%*s", (int)indent, "");
            /* no spaces left at the end of a line */
            while (end > 0 && l[pos + end - 1] == ' ')
                end--;
            fwrite(l + pos, 1, end, out);
            fputc('\n', out);
            at_start = false;
            pos += next;
        } while (pos < len);
        if (!l[len])
            break;
        l += len + 1;
        if (!*l)
            break;
    }
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
