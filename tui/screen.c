/* SPDX-License-Identifier: MIT */
/*
 * The current screen: drawing it (with the help or a question over it), dumping it for tests, and
 * handing it a key, with the keys every screen shares (Enter, Esc, q, ?).  The screens are reached
 * through the table the loop put in struct tui (tui.c), so that nothing here calls back into it.
 */
#include "config.h"

#include "tui.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "internal.h"
#include "widgets.h"

static const char *
generic_help(void)
{
    return _("Enter: next, or accept.  Esc: back.  q: quit (asks first).  ?: this help.  Arrows move, Space toggles, Tab switches fields.");
}

void
tui_draw(struct tui *t)
{
    if (COLS < 40 || LINES < 12) {
        erase();
        mvprintw(0, 0, "%dx%d", COLS, LINES);
        tui_wrap(1, 0, COLS, LINES - 1, _("The terminal is too small for the wizard; make it at least 40x12 (80x24 is best)."));
        wnoutrefresh(stdscr);
        doupdate();
        return;
    }
    t->screens[t->scr]->draw(t);
    tui_notice_draw(t);
    if (t->help) {
        const char *spec = t->screens[t->scr]->help ? t->screens[t->scr]->help() : NULL;
        const char *lines[] = {spec ? spec : "", spec ? "" : NULL, generic_help(), "", _("Press any key.")};
        const char *shown[5];
        int n = 0;
        for (size_t i = 0; i < 5; i++)
            if (lines[i])
                shown[n++] = lines[i];
        tui_box(t, _("Help"), shown, n);
    } else if (t->asking) {
        CU_AUTOFREE char *tick = t->ask_ticked ? cu_xasprintf("[%s] %s", *t->ask_ticked ? "x" : " ", t->ask_tick) : NULL;
        const char *lines[] = {t->ask_text, "", tick ? tick : _("y: yes    n: no"), "", _("y: yes    n: no    space: tick")};
        tui_box(t, t->ask_title, lines, tick ? 5 : 3);
    }
    wnoutrefresh(stdscr);
    doupdate();
}

void
tui_dump_screen(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    wchar_t *row = cu_xcalloc((size_t)COLS + 1, sizeof(wchar_t));
    size_t cap = (size_t)COLS * MB_CUR_MAX + 1;
    char *mb = cu_xmalloc(cap);
    for (int y = 0; y < LINES; y++) {
        int n = mvinnwstr(y, 0, row, COLS);
        if (n < 0)
            n = 0;
        row[n] = 0;
        size_t len = wcstombs(mb, row, cap);
        if (len == (size_t)-1)
            len = 0;
        while (len > 0 && mb[len - 1] == ' ')
            len--;
        fprintf(f, "%.*s\n", (int)len, mb);
    }
    free(mb);
    free(row);
    fclose(f);
}

/* ---- keys ---------------------------------------------------------------------------- */

static void
quit_yes(struct tui *t)
{
    t->running = false;
}

void
tui_handle_key(struct tui *t, int ch)
{
    if (ch == KEY_RESIZE) {
        clearok(stdscr, TRUE);
        return;
    }
    if (t->help) {
        t->help = false;
        return;
    }
    if (t->asking) {
        if (ch == 'y' || ch == 'Y') {
            t->asking = false;
            if (t->ask_yes)
                t->ask_yes(t);
        } else if (ch == 'n' || ch == 'N' || ch == 27 || ch == 'q') {
            t->asking = false;
        } else if (ch == ' ' && t->ask_ticked) {
            *t->ask_ticked = !*t->ask_ticked;
        }
        return;
    }
    if (t->screens[t->scr]->key(t, ch))
        return;
    switch (ch) {
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (!tui_busy(t))
            tui_next(t);
        break;
    case 27:
        if (!tui_busy(t))
            tui_back(t);
        break;
    case 'q':
    case 'Q':
        tui_ask(t, _("Quit"),
                tui_busy(t) ? _("Quit cudaup? The work in progress is stopped and rolled back.")
                            : _("Quit cudaup?"),
                quit_yes);
        break;
    case '?':
    case KEY_F(1):
        t->help = true;
        break;
    default:
        break;
    }
}
