/* SPDX-License-Identifier: MIT */
/*
 * Line breaking for text meant to be read, after the spirit of Unicode's line breaking algorithm
 * (UAX #14) for the text cudaup shows: Latin words break at spaces, CJK text between characters,
 * with the kinsoku rules that keep closing punctuation off the start of a line and opening
 * punctuation off its end.
 */
#include "config.h"

#include "core/base/linebreak.h"

#include <limits.h>
#include <string.h>
#include <wchar.h>

#include "core/base/mem.h"

enum brk { BRK_NONE, BRK_WEAK, BRK_STRONG };

/* The character at @s: its length in bytes (at least 1), the character and its columns. */
static size_t
decode(const char *s, wchar_t *wc, int *cols)
{
    mbstate_t st;
    memset(&st, 0, sizeof(st));
    size_t n = mbrtowc(wc, s, strnlen(s, MB_LEN_MAX), &st);
    if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
        *wc = L'?';
        *cols = 1;
        return 1;
    }
    if (*wc == L'\t')
        *wc = L' ';
    if (*wc == (wchar_t)CU_KEEP_OPEN[0] || *wc == (wchar_t)CU_KEEP_CLOSE[0]) {
        *cols = 0; /* a mark: never shown */
        return n;
    }
    int w = wcwidth(*wc);
    *cols = w < 0 ? 1 : w;
    return n;
}

/* Punctuation a line may not start with. */
static bool
closing(wchar_t c)
{
    static const wchar_t set[] = L",.;:!?)]}%\u2026\u2019\u201d\u3001\u3002\u3009\u300b\u300d\u300f\u3011\u3015\u3017"
                                 L"\u30fc\uff01\uff05\uff09\uff0c\uff0e\uff1a\uff1b\uff1f\uff3d\uff5d";
    return c && wcschr(set, c) != NULL;
}

/* Punctuation a line may not end with. */
static bool
opening(wchar_t c)
{
    static const wchar_t set[] = L"([{\u2018\u201c\u3008\u300a\u300c\u300e\u3010\u3014\u3016\uff08\uff3b\uff5b";
    return c && wcschr(set, c) != NULL;
}

/* May a line end between @p and @c (neither a space)?  Strong where a reader expects it. */
static enum brk
between(wchar_t p, int pw, wchar_t c, int cw)
{
    if (closing(c) || opening(p))
        return BRK_NONE;
    if (pw == 2 && cw == 2)
        return closing(p) ? BRK_STRONG : BRK_WEAK; /* inside CJK text: after its punctuation, or anywhere */
    if (pw == 2 || cw == 2)
        return BRK_STRONG; /* where CJK text meets a Latin word */
    return BRK_NONE;       /* inside a Latin word */
}

/*
 * A command at @s that must not break (CU_KEEP_OPEN to CU_KEEP_CLOSE, or `between backticks`): its length
 * in bytes, its columns, its first and last characters shown and their columns; 0 when none starts at @s.
 */
static size_t
kept_span(const char *s, int *cols, wchar_t *first, int *first_w, wchar_t *last, int *last_w)
{
    size_t n;
    if (s[0] == CU_KEEP_OPEN[0]) {
        n = strcspn(s + 1, CU_KEEP_CLOSE "\n") + 1;
        n += s[n] == CU_KEEP_CLOSE[0];
    } else if (s[0] == '`' && strcspn(s + 1, "`\n") < strlen(s + 1) && s[1 + strcspn(s + 1, "`\n")] == '`') {
        n = strcspn(s + 1, "`") + 2;
    } else {
        return 0;
    }
    *cols = 0;
    *first = *last = 0;
    *first_w = *last_w = 0;
    for (size_t k = 0; k < n;) {
        wchar_t c;
        int w;
        k += decode(s + k, &c, &w);
        if (!w)
            continue;
        if (!*first)
            *first = c, *first_w = w;
        *last = c, *last_w = w;
        *cols += w;
    }
    return n;
}

size_t
cu_line_break(const char *s, int cols, bool cut_long, size_t *next)
{
    size_t i = 0, strong = 0, weak = 0;
    int used = 0, strong_col = 0;
    wchar_t prev = 0;
    int prev_w = 0;
    bool text = false; /* a character other than a space was seen: a break before it is not an empty line */
    bool over = false;
    if (cols < 1)
        cols = 1;
    while (s[i] && s[i] != '\n') {
        wchar_t c, last;
        int w, last_w, span_w = 0;
        size_t n = kept_span(s + i, &span_w, &c, &w, &last, &last_w);
        /* A command is one unit: a line breaks before or after it, never inside, and one wider than a
         * whole line is kept whole on a line of its own (a terminal folds it and a paste still reads one
         * line; a wizard row cuts it with "…", which is seen, where a break would paste as two lines). */
        if (!n) {
            n = decode(s + i, &c, &w);
            last = c, last_w = span_w = w;
        }
        if (!span_w) { /* a mark alone, or an empty span */
            i += n;
            continue;
        }
        if (text) {
            enum brk b = c == L' ' ? (prev == L' ' ? BRK_NONE : BRK_STRONG)
                         : prev == L' ' ? BRK_NONE
                                        : between(prev, prev_w, c, w);
            if (b == BRK_STRONG) {
                strong = i;
                strong_col = used;
            } else if (b == BRK_WEAK) {
                weak = i;
            }
        }
        if (used + span_w > cols && i > 0) {
            over = true;
            break;
        }
        used += span_w;
        i += n;
        text |= c != L' ';
        prev = last;
        prev_w = last_w;
    }
    size_t end;
    if (!over) {
        end = i;
        *next = s[i] == '\n' ? i + 1 : i;
    } else {
        int slack = cols / 8 < 4 ? 4 : cols / 8 > 10 ? 10 : cols / 8;
        int sw, fw, lw;
        wchar_t f, l;
        size_t kn = kept_span(s + i, &sw, &f, &fw, &l, &lw); /* the line overflowed at a command */
        if (strong && (weak <= strong || strong_col >= cols - slack)) {
            end = strong;
        } else if (weak) {
            end = weak;
        } else if (cut_long && !kn) {
            /* One word wider than the line (a path): cut it, after a '/' or '-' in its second half. */
            end = i;
            for (size_t k = i; k > i / 2; k--)
                if (s[k - 1] == '/' || s[k - 1] == '-') {
                    end = k;
                    break;
                }
        } else {
            /* Kept whole: the word runs on to its own end.  A command wider than the line, with no break
             * before it on this line, stays with what is glued to it ("(`cmd`,"), breaking at the space
             * after it, never between "(" and "`". */
            end = i + kn;
            while (s[end] && s[end] != ' ' && s[end] != '\n') {
                wchar_t c;
                int w;
                size_t n = decode(s + end, &c, &w);
                if (w == 2)
                    break;
                end += n;
            }
        }
        size_t k = end;
        while (s[k] == ' ' || s[k] == '\t')
            k++;
        if (s[k] == '\n')
            k++;
        *next = k;
    }
    while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t'))
        end--;
    return end;
}

int
cu_line_count(const char *s, int cols)
{
    int n = 0;
    while (s && *s) {
        size_t next;
        cu_line_break(s, cols, true, &next);
        s += next;
        n++;
    }
    return n;
}

int
cu_text_width(const char *s)
{
    int cols = 0;
    while (s && *s) {
        wchar_t c;
        int w;
        s += decode(s, &c, &w);
        cols += w;
    }
    return cols;
}

char *
cu_keep(const char *cmd)
{
    return cu_xasprintf(CU_KEEP_OPEN "%s" CU_KEEP_CLOSE, cmd);
}

char *
cu_line_shown(const char *s, size_t len)
{
    char *out = cu_xmalloc(len + 1), *o = out;
    for (size_t k = 0; k < len && s[k]; k++)
        if (s[k] != CU_KEEP_OPEN[0] && s[k] != CU_KEEP_CLOSE[0])
            *o++ = s[k];
    *o = 0;
    return out;
}
