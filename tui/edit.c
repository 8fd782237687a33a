/* SPDX-License-Identifier: MIT */
/* Text fields. */
#include "config.h"

#include "tui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/fetch/mirror.h"
#include "core/base/str.h"
#include "internal.h"
#include "widgets.h"

/* ---- text fields ------------------------------------------------------------------- */

void
tui_edit_begin(struct tui *t, const char *init)
{
    snprintf(t->cur.edit, sizeof(t->cur.edit), "%s", init ? init : "");
    t->cur.editing = true;
}

int
tui_edit_key(struct tui *t, int ch)
{
    size_t len = strlen(t->cur.edit);
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        t->cur.editing = false;
        return 1;
    }
    if (ch == 27) {
        t->cur.editing = false;
        return -1;
    }
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        while (len > 0 && ((unsigned char)t->cur.edit[len - 1] & 0xc0) == 0x80)
            len--; /* continuation bytes of a UTF-8 character */
        if (len > 0)
            len--;
        t->cur.edit[len] = '\0';
        return 0;
    }
    if (ch == 21) { /* ^U */
        t->cur.edit[0] = '\0';
        return 0;
    }
    char mb[8];
    size_t n = 0;
    if (ch >= 32 && ch < 127) {
        mb[0] = (char)ch;
        n = 1;
    } else if (ch >= TUI_WCHAR) {
        mbstate_t st;
        memset(&st, 0, sizeof(st));
        n = wcrtomb(mb, (wchar_t)(ch - TUI_WCHAR), &st);
        if (n == (size_t)-1)
            n = 0;
    }
    if (n && len + n < sizeof(t->cur.edit)) {
        memcpy(t->cur.edit + len, mb, n);
        t->cur.edit[len + n] = '\0';
    }
    return 0;
}

void
tui_edit_draw(struct tui *t, int y, int x, int w, const char *value, bool focus)
{
    const char *s = t->cur.editing && focus ? t->cur.edit : (value ? value : "");
    if (focus)
        tui_attr(t, TC_SEL, true);
    mvhline(y, x, ' ', w);
    /* Show the end of a long value: that is where the typing happens; a start left out is marked "…"
     * (issue 35: a path cut from the left read as another path). */
    const char *ell = t->utf8 ? "\u2026" : "...";
    int sw = tui_width(s);
    bool cut = sw > w - 2;
    while (cut && sw > w - 2 - tui_width(ell) && *s) {
        s++;
        while (((unsigned char)*s & 0xc0) == 0x80)
            s++;
        sw = tui_width(s);
    }
    CU_AUTOFREE char *shown = cut ? cu_xasprintf("%s%s", ell, s) : cu_xstrdup(s);
    int used = tui_text(y, x, w - 1, shown);
    if (t->cur.editing && focus)
        tui_text(y, x + used, 1, "_");
    if (focus)
        tui_attr(t, TC_SEL, false);
}

/* ---- drawing --------------------------------------------------------------------------- */

