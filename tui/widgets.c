/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "widgets.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/base/i18n.h"
#include "core/base/linebreak.h"
#include "core/base/mem.h"

enum { PAIR_TITLE = 1, PAIR_GOOD, PAIR_BAD, PAIR_WARN, PAIR_KEY, PAIR_SEL };

void
tui_colors_init(struct tui *t)
{
    t->color = t->color && has_colors();
    if (!t->color)
        return;
    start_color();
    use_default_colors();
    init_pair(PAIR_TITLE, COLOR_WHITE, COLOR_BLUE);
    init_pair(PAIR_GOOD, COLOR_GREEN, -1);
    init_pair(PAIR_BAD, COLOR_RED, -1);
    init_pair(PAIR_WARN, COLOR_YELLOW, -1);
    init_pair(PAIR_KEY, COLOR_CYAN, -1);
    init_pair(PAIR_SEL, COLOR_BLACK, COLOR_CYAN);
}

/* Without colour everything still reads: reverse video, bold and dim carry the meaning. */
static attr_t
attr_of(const struct tui *t, enum tui_color c)
{
    switch (c) {
    case TC_TITLE: return t->color ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE | A_BOLD;
    case TC_GOOD: return t->color ? COLOR_PAIR(PAIR_GOOD) : A_NORMAL;
    case TC_BAD: return t->color ? COLOR_PAIR(PAIR_BAD) | A_BOLD : A_BOLD;
    case TC_WARN: return t->color ? COLOR_PAIR(PAIR_WARN) : A_BOLD;
    case TC_KEY: return t->color ? COLOR_PAIR(PAIR_KEY) | A_BOLD : A_BOLD;
    case TC_SEL: return t->color ? COLOR_PAIR(PAIR_SEL) : A_REVERSE;
    case TC_DIM: return A_DIM;
    case TC_NORMAL:
    default: return A_NORMAL;
    }
}

void
tui_attr(struct tui *t, enum tui_color c, bool on)
{
    if (on)
        attron(attr_of(t, c));
    else
        attroff(attr_of(t, c));
}

/* Decode UTF-8 one character at a time; bad bytes count as one '?' column. */
static size_t
next_char(const char *s, wchar_t *wc, mbstate_t *st)
{
    size_t n = mbrtowc(wc, s, MB_CUR_MAX, st);
    if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
        memset(st, 0, sizeof(*st));
        *wc = L'?';
        return 1;
    }
    return n;
}

static int
char_width(wchar_t wc)
{
    int w = wcwidth(wc);
    return w < 0 ? 1 : w;
}

int
tui_width(const char *s)
{
    mbstate_t st;
    wchar_t wc;
    int w = 0;
    memset(&st, 0, sizeof(st));
    while (s && *s) {
        s += next_char(s, &wc, &st);
        w += char_width(wc == L'\t' ? L' ' : wc);
    }
    return w;
}

static int text_at(int y, int x, int w, const char *s, bool ellipsis);

int
tui_text(int y, int x, int w, const char *s)
{
    return text_at(y, x, w, s, true);
}

int
tui_text_part(int y, int x, int w, const char *s)
{
    return text_at(y, x, w, s, false);
}

static int
text_at(int y, int x, int w, const char *s, bool ellipsis)
{
    mbstate_t st;
    wchar_t buf[512];
    int used = 0, n = 0;
    memset(&st, 0, sizeof(st));
    while (s && *s && n < (int)(sizeof(buf) / sizeof(buf[0])) - 1) {
        wchar_t wc;
        size_t len = next_char(s, &wc, &st);
        if (wc == L'\t' || wc == L'\n' || wc < 32)
            wc = L' ';
        int cw = char_width(wc);
        if (used + cw > w) {
            /* Cut: say so with an ellipsis in the last column, never silently. */
            if (ellipsis && w > 0 && MB_CUR_MAX > 1) {
                while (n > 0 && used + 1 > w) {
                    used -= char_width(buf[n - 1]);
                    n--;
                }
                buf[n++] = L'\u2026';
                used++;
            }
            break;
        }
        buf[n++] = wc;
        used += cw;
        s += len;
    }
    buf[n] = 0;
    if (n > 0 && w > 0)
        mvaddnwstr(y, x, buf, n);
    return used;
}

char *
tui_fit_path(const struct tui *t, int w, const char *line, const char *path)
{
    const char *mark = strstr(line, TUI_PATH);
    const char *ell = t->utf8 ? "\u2026" : "...";
    if (!mark)
        return cu_xstrdup(line);
    CU_AUTOFREE char *before = cu_xstrndup(line, (size_t)(mark - line));
    const char *after = mark + 1;
    int room = w - tui_width(before) - tui_width(after);
    const char *p = path ? path : "";
    if (tui_width(p) > room && room > tui_width(ell) + 8) {
        while (*p && tui_width(p) > room - tui_width(ell)) {
            p++;
            while (((unsigned char)*p & 0xc0) == 0x80)
                p++;
        }
        return cu_xasprintf("%s%s%s%s", before, ell, p, after);
    }
    return cu_xasprintf("%s%s%s", before, p, after);
}

void
tui_text_pad(int y, int x, int w, const char *s)
{
    int used = tui_text(y, x, w, s);
    if (used < w)
        mvhline(y, x + used, ' ', w - used);
}

/*
 * Lay @s out in rows of @w columns (the continuation rows of each paragraph @hang columns further
 * in and narrower), by cu_line_break; draw them from (y, x) when @draw.  When @rows runs out
 * before the text does, the last row says so with "…".  Returns the rows used.
 */
static int
wrap_layout(int y, int x, int w, int hang, int rows, const char *s, bool draw)
{
    int row = 0;
    bool cont = false; /* the row continues a paragraph */
    if (w <= 0)
        return 0;
    while (s && *s && row < rows) {
        int ind = cont && hang < w - 4 ? hang : 0;
        size_t next;
        size_t len = cu_line_break(s, w - ind, true, &next);
        if (draw) {
            CU_AUTOFREE char *line = cu_line_shown(s, len);
            if (row == rows - 1 && s[next]) {
                /* The last row there is, and more text: cut, never silently. */
                CU_AUTOFREE char *rest = cu_line_shown(s, strcspn(s, "\n"));
                CU_AUTOFREE char *more = tui_width(rest) > w - ind ? cu_xstrdup(rest) : cu_xasprintf("%s %s", rest, MB_CUR_MAX > 1 ? "\u2026" : "...");
                tui_text(y + row, x + ind, w - ind, more);
            } else {
                tui_text(y + row, x + ind, w - ind, line);
            }
        }
        row++;
        cont = next > 0 && s[next - 1] != '\n';
        s += next;
    }
    return row;
}

int
tui_wrap(int y, int x, int w, int rows, const char *s)
{
    return wrap_layout(y, x, w, 0, rows, s, true);
}

int
tui_wrap_hang(int y, int x, int w, int hang, int rows, const char *s)
{
    return wrap_layout(y, x, w, hang, rows, s, true);
}

int
tui_wrap_rows(const char *s, int w, int hang)
{
    return wrap_layout(0, 0, w, hang, 1 << 20, s, false);
}

void
tui_gauge(struct tui *t, int y, int x, int w, double frac)
{
    if (w <= 0)
        return;
    if (frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    int fill = (int)(frac * w + 0.5);
    move(y, x);
    tui_attr(t, TC_GOOD, true);
    for (int i = 0; i < fill; i++) {
        if (t->utf8)
            addwstr(L"\u2588");
        else
            addch('#');
    }
    tui_attr(t, TC_GOOD, false);
    tui_attr(t, TC_DIM, true);
    for (int i = fill; i < w; i++) {
        if (t->utf8)
            addwstr(L"\u2591");
        else
            addch('-');
    }
    tui_attr(t, TC_DIM, false);
}

void
tui_list(struct tui *t, int y, int x, int w, int h, char *const *rows, int n, int sel, int *top, bool focus)
{
    if (h <= 0)
        return;
    if (sel < *top)
        *top = sel;
    if (sel >= *top + h)
        *top = sel - h + 1;
    if (*top > n - h)
        *top = n - h > 0 ? n - h : 0;
    if (*top < 0)
        *top = 0;
    for (int i = 0; i < h && *top + i < n; i++) {
        int r = *top + i;
        bool hl = r == sel && focus;
        if (hl)
            tui_attr(t, TC_SEL, true);
        tui_text_pad(y + i, x, w, rows[r]);
        if (hl)
            tui_attr(t, TC_SEL, false);
    }
    if (*top > 0)
        tui_text(y, x + w, 1, t->utf8 ? "\u25b2" : "^");
    if (*top + h < n)
        tui_text(y + h - 1, x + w, 1, t->utf8 ? "\u25bc" : "v");
}

void
tui_box(struct tui *t, const char *title, const char *const *lines, int n)
{
    int w = COLS - 8 > 70 ? 70 : COLS - 8;
    if (w < 20)
        w = COLS;
    int rows = 0, first = n ? (lines[0][0] ? tui_wrap_rows(lines[0], w - 4, 0) : 1) : 0;
    for (int i = 0; i < n; i++)
        rows += lines[i][0] ? tui_wrap_rows(lines[i], w - 4, 0) : 1;
    int h = rows + 4;
    if (h > LINES - 2) {
        /* Too tall: the first line (the text) gives up its last rows, so that the keys under it stay in view. */
        h = LINES - 2;
        first -= rows + 4 - h;
        if (first < 1)
            first = 1;
    }
    int y = (LINES - h) / 2, x = (COLS - w) / 2;
    for (int r = 0; r < h; r++)
        mvhline(y + r, x, ' ', w);
    /* Line drawing as text (not the alternate character set), so that dumps read the same as the screen. */
    const char *h_ = t->utf8 ? "\u2500" : "-", *v_ = t->utf8 ? "\u2502" : "|";
    tui_attr(t, TC_KEY, true);
    for (int i = 1; i < w - 1; i++) {
        tui_text(y, x + i, 1, h_);
        tui_text(y + h - 1, x + i, 1, h_);
    }
    for (int r = 1; r < h - 1; r++) {
        tui_text(y + r, x, 1, v_);
        tui_text(y + r, x + w - 1, 1, v_);
    }
    tui_text(y, x, 1, t->utf8 ? "\u250c" : "+");
    tui_text(y, x + w - 1, 1, t->utf8 ? "\u2510" : "+");
    tui_text(y + h - 1, x, 1, t->utf8 ? "\u2514" : "+");
    tui_text(y + h - 1, x + w - 1, 1, t->utf8 ? "\u2518" : "+");
    CU_AUTOFREE char *tt = cu_xasprintf(" %s ", title);
    tui_text(y, x + 2, w - 4, tt);
    tui_attr(t, TC_KEY, false);
    int r = y + 2;
    for (int i = 0; i < n && r < y + h - 1; i++) {
        if (!lines[i][0]) {
            r++;
            continue;
        }
        int room = y + h - 1 - r;
        r += tui_wrap(r, x + 2, w - 4, i == 0 && first < room ? first : room, lines[i]);
    }
}

int
tui_text_color(struct tui *t, enum tui_color c, int y, int x, int w, const char *s)
{
    tui_attr(t, c, true);
    int used = tui_text(y, x, w, s);
    tui_attr(t, c, false);
    return used;
}

void
tui_dim(struct tui *t, int y, int x, int w, const char *s)
{
    tui_text_color(t, TC_DIM, y, x, w, s);
}

int
tui_dim_wrap(struct tui *t, int y, int x, int w, int rows, const char *s)
{
    tui_attr(t, TC_DIM, true);
    int used = tui_wrap(y, x, w, rows, s);
    tui_attr(t, TC_DIM, false);
    return used;
}

void
tui_busy_line(struct tui *t, int y, const char *text)
{
    static const char spin[] = "|/-\\";
    CU_AUTOFREE char *w = cu_xasprintf("%c %s", spin[t->spin % 4], text);
    tui_text(y, 3, COLS - 4, w);
}

void
tui_button(struct tui *t, int y, bool focus)
{
    if (focus)
        tui_attr(t, TC_SEL, true);
    tui_text(y, 3, COLS - 6, _("[ Continue ]"));
    if (focus)
        tui_attr(t, TC_SEL, false);
}

bool
tui_form_move(int ch, int *sel, int n, int skip)
{
    int dir = ch == KEY_UP || ch == KEY_BTAB ? -1 : ch == KEY_DOWN || ch == '\t' ? 1 : 0;
    if (!dir || n <= 0)
        return false;
    *sel = (*sel + dir + n) % n;
    if (*sel == skip)
        *sel = (*sel + dir + n) % n;
    return true;
}

int
tui_cycle_dir(int ch)
{
    return ch == KEY_LEFT ? -1 : (ch == KEY_RIGHT || ch == ' ') ? 1 : 0;
}

const char *
tui_cycle_value(const char *const *set, int n, const char *cur, int dir)
{
    int i = 0;
    for (int k = 0; k < n; k++)
        if (cur && strcmp(set[k], cur) == 0)
            i = k;
    return set[((i + dir) % n + n) % n];
}

int
tui_labels_width(const char *const *labels, int n)
{
    int lw = 0;
    for (int i = 0; i < n; i++)
        if (tui_width(labels[i]) > lw)
            lw = tui_width(labels[i]);
    return lw;
}

const char *
tui_mark(const struct tui *t, int kind)
{
    if (kind > 0)
        return t->utf8 ? "\u2713" : "+";
    if (kind < 0)
        return t->utf8 ? "\u2717" : "x";
    return t->utf8 ? "\u00b7" : "-";
}

bool
tui_move_sel(int ch, int *sel, int n, int page)
{
    int s = *sel;
    switch (ch) {
    case KEY_UP: s--; break;
    case KEY_DOWN: s++; break;
    case KEY_PPAGE: s -= page; break;
    case KEY_NPAGE: s += page; break;
    case KEY_HOME: s = 0; break;
    case KEY_END: s = n - 1; break;
    default: return false;
    }
    if (s >= n)
        s = n - 1;
    if (s < 0)
        s = 0;
    *sel = s;
    return true;
}

int
tui_body_end(void)
{
    return LINES - 3;
}

int
tui_frame(struct tui *t, const char *title, const char *keys)
{
    static const enum tui_scr flow[] = {SCR_SYSTEM, SCR_FRAMEWORK, SCR_VERSIONS, SCR_COMPONENTS, SCR_LOCATION,
                                        SCR_PYENV, SCR_CONTAINERS, SCR_REVIEW, SCR_PROGRESS, SCR_VALIDATION, SCR_DONE};
    erase();
    tui_attr(t, TC_TITLE, true);
    mvhline(0, 0, ' ', COLS);
    CU_AUTOFREE char *left = cu_xasprintf(" cudaup %s %s %s", PACKAGE_VERSION, t->utf8 ? "\u2014" : "-", title);
    char right[64] = "";
    /* The steps this run really takes: no Python screen without a framework, and none at all for an
     * action chosen from the menu of an existing install (it is not the install's flow). */
    bool no_fw = t->ans.framework && strcmp(t->ans.framework, "none") == 0;
    bool menu = false, flow_seen = t->scr == SCR_SYSTEM;
    for (int h = 0; h < t->n_history; h++) {
        menu |= t->history[h] == SCR_EXISTING;
        flow_seen |= t->history[h] == SCR_SYSTEM;
    }
    size_t n = 0, at = 0;
    for (size_t i = 0; i < sizeof(flow) / sizeof(flow[0]); i++) {
        if ((flow[i] == SCR_PYENV && no_fw) || (flow[i] == SCR_CONTAINERS && !t->containers_offer))
            continue;
        n++;
        if (flow[i] == t->scr)
            at = n;
    }
    if (at && !(menu && !flow_seen))
        snprintf(right, sizeof(right), _("Step %zu of %zu "), at, n);
    int rw = tui_width(right);
    tui_text(0, 0, COLS - rw - 1, left);
    if (rw < COLS - 10)
        tui_text(0, COLS - rw, rw, right);
    tui_attr(t, TC_TITLE, false);
    /* The keys line: on a narrow terminal it takes the row above too (when no message needs it),
     * broken between two keys, so that every key stays visible. */
    const char *keys2 = NULL;
    CU_AUTOFREE char *keys1 = NULL;
    CU_AUTOFREE char *tight = NULL;
    if (tui_width(keys) > COLS - 2) {
        /* First closer together (two spaces between keys, not three): often that is enough. */
        struct cu_buf b;
        cu_buf_init(&b);
        for (const char *p = keys; *p; p++)
            if (!(p[0] == ' ' && p[1] == ' ' && p[2] == ' '))
                cu_buf_putc(&b, *p);
        tight = cu_buf_steal(&b);
        keys = tight;
    }
    if (tui_width(keys) > COLS - 2) {
        /* Then over two rows, broken between two keys where the rows come out most even: no "q: quit"
         * alone on the second (issue 35). */
        const char *best = NULL;
        int best_w = 1 << 20;
        for (const char *p = strstr(keys, "  "); p; p = strstr(p + 1, "  ")) {
            CU_AUTOFREE char *head = cu_xstrndup(keys, (size_t)(p - keys));
            int w1 = tui_width(head), w2 = tui_width(p + strspn(p, " "));
            if (w1 > COLS - 2)
                break;
            if (w2 <= COLS - 2 && (w1 > w2 ? w1 : w2) < best_w) {
                best_w = w1 > w2 ? w1 : w2;
                best = p;
            }
        }
        if (best) {
            keys1 = cu_xstrndup(keys, (size_t)(best - keys));
            keys2 = best + strspn(best, " ");
        }
    }
    tui_attr(t, TC_DIM, true);
    mvhline(LINES - 1, 0, ' ', COLS);
    tui_attr(t, TC_DIM, false);
    tui_attr(t, TC_KEY, true);
    if (keys1) {
        tui_text(LINES - 2, 1, COLS - 2, keys1);
        tui_text(LINES - 1, 1, COLS - 2, keys2);
    } else {
        tui_text(LINES - 1, 1, COLS - 2, keys);
    }
    tui_attr(t, TC_KEY, false);
    t->keys_rows = keys1 ? 2 : 1;
    return 2;
}

void
tui_notice(struct tui *t, bool bad, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->message, sizeof(t->message), fmt, ap);
    va_end(ap);
    t->message_bad = bad;
}

void
tui_notice_draw(struct tui *t)
{
    if (!t->message[0])
        return;
    /* Above the keys, as many rows as the notice needs (up to a third of the screen), over the
     * body's last rows: a notice is read whole, and goes with the next key. */
    int w = COLS - 2, max = LINES / 3 > 1 ? LINES / 3 : 1;
    int n = tui_wrap_rows(t->message, w, 0);
    if (n > max)
        n = max;
    if (n < 1)
        n = 1;
    int bottom = LINES - 1 - (t->keys_rows > 1 ? 2 : 1);
    int top = bottom - n + 1;
    enum tui_color c = t->message_bad ? TC_BAD : TC_WARN;
    for (int r = top; r <= bottom; r++)
        mvhline(r, 0, ' ', COLS);
    tui_attr(t, c, true);
    tui_wrap(top, 1, w, n, t->message);
    tui_attr(t, c, false);
}

int
tui_wlist(struct tui *t, int y, int x, int w, int h, char *const *rows, int n, int hang, int sel, int *top,
          const enum tui_color *lead, int lead_w, const bool *fold)
{
    if (h <= 0 || n <= 0)
        return 0;
    if (sel >= n)
        sel = n - 1;
    if (sel < 0)
        sel = 0;
    int *need = cu_xcalloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++) {
        need[i] = fold && fold[i] && i != sel ? 1 : tui_wrap_rows(rows[i], w, hang);
        if (need[i] < 1)
            need[i] = 1;
    }
    if (*top > sel)
        *top = sel;
    if (*top < 0)
        *top = 0;
    /* The selected entry in view, whole when it fits... */
    for (;;) {
        int sum = 0;
        for (int k = *top; k <= sel; k++)
            sum += need[k];
        if (sum <= h || *top == sel)
            break;
        (*top)++;
    }
    /* ...and no room left empty below the last entry when there are entries above. */
    for (;;) {
        int sum = 0;
        for (int k = *top - 1; k >= 0 && k < n; k++)
            sum += need[k];
        if (*top == 0 || sum > h)
            break;
        (*top)--;
    }
    int r = y, i;
    for (i = *top; i < n && r < y + h; i++) {
        int avail = y + h - r;
        /* An entry that would not fit whole waits below the fold (▼), unless it is the first. */
        if (r > y && need[i] > avail)
            break;
        int used = need[i] < avail ? need[i] : avail;
        if (i == sel) {
            tui_attr(t, TC_SEL, true);
            for (int k = 0; k < used; k++)
                mvhline(r + k, x, ' ', w);
            tui_wrap_hang(r, x, w, hang, avail, rows[i]);
            tui_attr(t, TC_SEL, false);
        } else {
            if (need[i] == 1)
                tui_text(r, x, w, rows[i]); /* one row: folded, "…" where it is cut */
            else
                tui_wrap_hang(r, x, w, hang, avail, rows[i]);
            if (lead) {
                tui_attr(t, lead[i], true);
                tui_text_part(r, x, lead_w, rows[i]);
                tui_attr(t, lead[i], false);
            }
        }
        r += used;
    }
    if (*top > 0)
        tui_text(y, x + w, 1, t->utf8 ? "\u25b2" : "^");
    if (i < n)
        tui_text(y + h - 1, x + w, 1, t->utf8 ? "\u25bc" : "v");
    free(need);
    return r - y;
}

void
tui_doc_add(struct tui_doc *d, enum tui_color c, int indent, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = cu_xvasprintf(fmt, ap);
    va_end(ap);
    d->v = cu_xreallocarray(d->v, d->n + 1, sizeof(*d->v));
    d->v[d->n++] = (struct tui_doc_line){c, indent, text, 0};
}

void
tui_doc_hang(struct tui_doc *d, int hang)
{
    if (d->n)
        d->v[d->n - 1].hang = hang;
}

/* The rows a document line takes at the screen's width (an empty one takes one). */
static int
doc_rows(const struct tui_doc_line *l, int w)
{
    int rows = tui_wrap_rows(l->text, w - l->indent, l->hang);
    return rows > 0 ? rows : 1;
}

void
tui_doc_draw(struct tui *t, struct tui_doc *d, int y, int h, int *top)
{
    int w = COLS - 2;
    /* *top counts document lines; keep it where the last screenful still fills the window. */
    int rows_from_end = 0, last_top = (int)d->n;
    while (last_top > 0) {
        int rows = doc_rows(&d->v[last_top - 1], w);
        if (rows_from_end + rows > h)
            break;
        rows_from_end += rows;
        last_top--;
    }
    if (*top > last_top)
        *top = last_top;
    if (*top < 0)
        *top = 0;
    int r = y;
    size_t i;
    for (i = (size_t)*top; i < d->n && r < y + h; i++) {
        struct tui_doc_line *l = &d->v[i];
        /* A line that would not fit whole waits below the fold (▼), unless it is the first. */
        int need = doc_rows(l, w);
        if (r > y && need > y + h - r)
            break;
        tui_attr(t, l->color, true);
        int drawn = tui_wrap_hang(r, 1 + l->indent, w - l->indent, l->hang, y + h - r, l->text);
        tui_attr(t, l->color, false);
        r += drawn > 0 ? drawn : 1;
    }
    if (*top > 0)
        tui_text(y, COLS - 1, 1, t->utf8 ? "\u25b2" : "^");
    if (i < d->n)
        tui_text(y + h - 1, COLS - 1, 1, t->utf8 ? "\u25bc" : "v");
    for (i = 0; i < d->n; i++)
        free(d->v[i].text);
    free(d->v);
    d->v = NULL;
    d->n = 0;
}

bool
tui_doc_scroll(int ch, int *top, int page)
{
    switch (ch) {
    case KEY_UP: (*top)--; break;
    case KEY_DOWN: (*top)++; break;
    case KEY_PPAGE: *top -= page; break;
    case KEY_NPAGE: *top += page; break;
    case KEY_HOME: *top = 0; break;
    case KEY_END: *top = 1 << 20; break; /* tui_doc_draw pulls it back */
    default: return false;
    }
    if (*top < 0)
        *top = 0;
    return true;
}

/* ---- flags in the engine's sentences, told as the wizard's screens and choices ---- */

static const char *const v_tools[] = {"conda", "mamba", "micromamba", "venv", "none", NULL};
static const char *const v_sources[] = {"auto", "system", "cudaup", NULL};
static const char *const v_scopes[] = {"user", "system", "conda", "none", NULL};
static const char *const v_frameworks[] = {"tensorflow", "pytorch", "jax", "none", NULL};
static const char *const v_toolkits[] = {"system", "wheels", "none", NULL};

/* Where each flag's choice is made in the wizard. */
static const char *
flag_screen(const char *flag, const char **field)
{
    static const struct {
        const char *flag, *field, *screen;
    } map[] = {
        {"env-tool", N_("Tool"), N_("Python environment")},   {"env-name", N_("Name"), N_("Python environment")},
        {"python-source", N_("From"), N_("Python environment")}, {"python", N_("Python"), N_("Python environment")},
        {"cuda", N_("CUDA"), N_("Versions")},                   {"cudnn", N_("cuDNN"), N_("Versions")},
        {"framework", NULL, N_("Framework")},                   {"components", NULL, N_("Components")},
        {"toolkit", N_("Toolkit"), N_("Components")},
        {"prefix", N_("Install folder"), N_("Location and environment")},
        {"env-scope", N_("Environment"), N_("Location and environment")},
        {"shell-rc", N_("Shell start-up file"), N_("Location and environment")},
    };
    for (size_t i = 0; i < CU_N_ELEMENTS(map); i++)
        if (strcmp(map[i].flag, flag) == 0) {
            *field = map[i].field ? _(map[i].field) : NULL;
            return _(map[i].screen);
        }
    return NULL;
}

static const char *const *
flag_values(const char *flag)
{
    if (strcmp(flag, "env-tool") == 0)
        return v_tools;
    if (strcmp(flag, "python-source") == 0)
        return v_sources;
    if (strcmp(flag, "env-scope") == 0)
        return v_scopes;
    if (strcmp(flag, "framework") == 0)
        return v_frameworks;
    if (strcmp(flag, "toolkit") == 0)
        return v_toolkits;
    return NULL;
}

static const char *
value_label(const char *flag, const char *v)
{
    if (strcmp(flag, "python-source") == 0)
        return strcmp(v, "cudaup") == 0 ? _("cudaup brings it") : strcmp(v, "system") == 0 ? _("this machine's") : _("automatic");
    return v;
}

/* Whether @mid, the text between two flags, is the word @or_ alone, whatever spaces are around it. */
static bool
joined_by(const char *mid, const char *or_)
{
    mid += strspn(mid, " ");
    or_ += strspn(or_, " ");
    size_t n = strlen(or_);
    while (n && or_[n - 1] == ' ')
        n--;
    return n && strncmp(mid, or_, n) == 0 && mid[n + strspn(mid + n, " ")] == '\0';
}

char *
tui_unflag(const char *text)
{
    struct cu_buf b;
    cu_buf_init(&b);
    CU_AUTOFREE char *whole = text && *text ? cu_str_sentence(text) : NULL;
    text = whole ? whole : text;
    char *last_item = NULL; /* the choice told last, its screen, and where its words start and end */
    const char *last_screen = NULL;
    size_t last_start = 0, last_end = 0;
    for (const char *p = text ? text : ""; *p;) {
        const char *field = NULL, *screen = NULL;
        char flag[32] = "";
        size_t fl = 0;
        /* after a space, "(" or a full-width "（" (zh_CN's "…而不是 12.6.3（--cuda）") */
        /* or after any other full-width mark ("；--deep" in "大小和权限；--deep 会重新计算哈希"): U+3000-303F, U+FF00-FF5F */
        bool opens = p == text || p[-1] == ' ' || p[-1] == '(' ||
                     (p - text >= 3 && (((unsigned char)p[-3] == 0xef && ((unsigned char)p[-2] == 0xbc || (unsigned char)p[-2] == 0xbd)) ||
                                        ((unsigned char)p[-3] == 0xe3 && (unsigned char)p[-2] == 0x80)));
        if (p[0] == '-' && p[1] == '-' && opens && islower((unsigned char)p[2])) {
            fl = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
            if (fl < sizeof(flag)) {
                memcpy(flag, p + 2, fl);
                flag[fl] = '\0';
                screen = flag_screen(flag, &field);
            }
        }
        if (!screen && strcmp(flag, "deep") == 0) {
            const char *words = _("the deep check (d on the Validation screen)");
            cu_buf_puts(&b, words);
            p += 2 + fl;
            /* The space a Latin flag needed before CJK text goes when the words end in CJK ("…d 键）会…"). */
            if (p[0] == ' ' && (unsigned char)p[1] >= 0x80 && (unsigned char)words[strlen(words) - 1] >= 0x80)
                p++;
            continue;
        }
        if (!screen) {
            cu_buf_putc(&b, *p++);
            continue;
        }
        const char *after = p + 2 + fl;
        char value[64] = "";
        if (*after == ' ') {
            size_t vl = strspn(after + 1, "abcdefghijklmnopqrstuvwxyz0123456789.=XY");
            const char *const *vals = flag_values(flag);
            if (vl && vl < sizeof(value)) {
                memcpy(value, after + 1, vl);
                value[vl] = '\0';
                while (vl && value[vl - 1] == '.') /* a sentence's full stop is not part of the value */
                    value[--vl] = '\0';
                bool ok = false;
                if (vals) {
                    CU_AUTOFREE char *base = cu_xstrndup(value, strcspn(value, "="));
                    for (const char *const *v = vals; *v && !ok; v++)
                        ok = strcmp(*v, base) == 0;
                } else {
                    ok = isdigit((unsigned char)value[0]) || strcmp(value, "X.Y") == 0 || strcmp(value, "auto") == 0;
                }
                if (ok && vl)
                    after += 1 + vl;
                else
                    value[0] = '\0';
            }
        }
        /* "give --python-source system": the verb goes with the flag ("give From this machine's on the ..."
         * read wrong, issue 35); the wizard's words choose the row and its value. */
        bool verb = false;
        static const char *const verbs[] = {"give ", "use ", "add "};
        for (size_t k = 0; k < CU_N_ELEMENTS(verbs) && !verb; k++) {
            size_t vl = strlen(verbs[k]);
            if (b.len >= vl && strcmp(b.data + b.len - vl, verbs[k]) == 0 && (b.len == vl || b.data[b.len - vl - 1] == ' ')) {
                b.len -= vl;
                b.data[b.len] = '\0';
                verb = true;
            }
        }
        if (verb)
            cu_buf_puts(&b, _("choose "));
        /* The choice itself: a value from the row's list quoted with its row ("“Tool: conda”"), a number
         * after its row ("CUDA 12.4"), or the row alone. */
        char *item = NULL;
        if (value[0] && field && (flag_values(flag) || strcmp(value_label(flag, value), value) != 0))
            item = cu_xasprintf(_("“%s: %s”"), field, value_label(flag, value));
        else if (value[0] && field)
            item = cu_xasprintf("%s %s", field, value);
        else if (value[0] || field)
            item = cu_xstrdup(value[0] ? value_label(flag, value) : field);
        /* Two choices on one screen joined by "or" name the screen once: "choose “From: this machine's”
         * or “Tool: conda” on the Python environment screen" (issue 35). */
        const char *or_ = _(" or "); /* as the sentence's own language joins two flags */
        if (item && last_item && strcmp(last_screen, screen) == 0 && b.len >= last_end &&
            (joined_by(b.data + last_end, or_) || joined_by(b.data + last_end, " or "))) {
            b.len = last_start;
            b.data[b.len] = '\0';
            cu_buf_printf(&b, _("%s or %s on the %s screen"), last_item, item, screen);
            free(item);
            item = NULL; /* a third joins no further */
        } else {
            /* The space a Latin flag needed after CJK text goes where the words start with CJK or a Chinese
             * quote ("请指定 “Python 环境”…" read with a space). */
            CU_AUTOFREE char *told = item ? cu_xasprintf(_("%s on the %s screen"), item, screen) : cu_xasprintf(_("the %s screen"), screen);
            if (b.len >= 2 && b.data[b.len - 1] == ' ' && (unsigned char)b.data[b.len - 2] >= 0x80 && (unsigned char)told[0] >= 0x80)
                b.data[--b.len] = '\0';
            last_start = b.len;
            if (item)
                cu_buf_printf(&b, _("%s on the %s screen"), item, screen);
            else
                cu_buf_printf(&b, _("the %s screen"), screen);
        }
        free(last_item);
        last_item = item;
        last_screen = screen;
        last_end = b.len;
        p = after;
        /* ... and the space before CJK text after them goes too, where they end in CJK or a quote. */
        if (p[0] == ' ' && (unsigned char)p[1] >= 0x80 && b.len && (unsigned char)b.data[b.len - 1] >= 0x80)
            p++;
    }
    free(last_item);
    return cu_buf_steal(&b);
}
