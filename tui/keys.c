/* SPDX-License-Identifier: MIT */
/* The keys script that drives the wizard in tests (--keys-script). */
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

/* ---- the keys script (tests) -------------------------------------------------------- */

static const struct {
    const char *name;
    int key;
} key_names[] = {
    {"enter", '\n'},       {"esc", 27},           {"up", KEY_UP},       {"down", KEY_DOWN},
    {"left", KEY_LEFT},    {"right", KEY_RIGHT},  {"tab", '\t'},        {"btab", KEY_BTAB},
    {"space", ' '},        {"backspace", KEY_BACKSPACE}, {"pgup", KEY_PPAGE}, {"pgdn", KEY_NPAGE},
    {"home", KEY_HOME},    {"end", KEY_END},      {"f1", KEY_F(1)},     {"ctrl-u", 21},
};

static int
key_by_name(const char *s)
{
    for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
        if (strcmp(s, key_names[i].name) == 0)
            return key_names[i].key;
    if (s[0] && !s[1] && s[0] > ' ' && s[0] < 127)
        return s[0];
    return -1;
}

/* Check every line before curses starts, so a bad script is one sentence and exit 2. */
enum cu_status
tui_script_load(const char *path, struct script *s, struct cu_error *err)
{
    char *text = NULL;
    size_t len;
    enum cu_status st = cu_read_file(path, 1 << 20, &text, &len, err);
    struct cu_strv v;
    memset(s, 0, sizeof(*s));
    if (st != CU_OK)
        return st;
    cu_strv_init(&v);
    size_t lineno = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        size_t l = strlen(line);
        while (l > 0 && (line[l - 1] == '\r' || line[l - 1] == ' '))
            line[--l] = '\0';
        while (*line == ' ')
            line++;
        if (!*line || *line == '#')
            continue;
        const char *cmd = strncmp(line, "now ", 4) == 0 ? line + 4 : line; /* "now": even while a job runs */
        const char *arg = strchr(cmd, ' ');
        CU_AUTOFREE char *word = cu_xstrndup(cmd, arg ? (size_t)(arg - cmd) : strlen(cmd));
        bool ok = (!arg && key_by_name(word) >= 0) || (arg && strcmp(word, "type") == 0) ||
                  (arg && strcmp(word, "dump") == 0) || (arg && strcmp(word, "sleep") == 0) ||
                  (arg && strcmp(word, "resize") == 0) || (!arg && strcmp(word, "wait") == 0);
        if (!ok) {
            cu_error_set(err, CU_E_USAGE, 0, _("--keys-script %s, line %zu: '%s' is not a key or command."), path, lineno,
                         line);
            cu_strv_fini(&v);
            free(text);
            return CU_E_USAGE;
        }
        cu_strv_push(&v, line);
    }
    free(text);
    s->lines = v.v;
    s->n = v.n;
    return CU_OK;
}

enum cu_status
tui_keys_script_check(const char *path, struct cu_error *err)
{
    struct script s;
    enum cu_status st = tui_script_load(path, &s, err);
    if (st == CU_OK)
        cu_strv_free(s.lines);
    else
        st = err->code = CU_E_USAGE; /* a script that cannot be read is bad input too (exit 2) */
    return st;
}

static void
feed_text(struct tui *t, const char *s)
{
    mbstate_t st;
    memset(&st, 0, sizeof(st));
    while (*s) {
        wchar_t wc;
        size_t n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
        if (n == (size_t)-1 || n == (size_t)-2 || n == 0)
            break;
        tui_handle_key(t, wc < 128 ? (int)wc : (int)(TUI_WCHAR + wc));
        s += n;
    }
}

/* Run the next line when it may run now; false when it must wait (for the job, or a sleep). */
bool
tui_script_step(struct tui *t, struct script *s)
{
    const char *line = s->lines[s->pos];
    const char *arg = strchr(line, ' ');
    bool now = strncmp(line, "now ", 4) == 0;
    if (s->sleep_until) {
        if (cu_mono_ms() < s->sleep_until)
            return false;
        s->sleep_until = 0;
        s->pos++;
        return true;
    }
    bool sleep_line = strncmp(line, "sleep ", 6) == 0;
    if (!now && !sleep_line && tui_busy(t))
        return false; /* keys wait until the engine is idle, so that runs are repeatable */
    s->pos++;
    if (now)
        line = arg + 1, arg = strchr(line, ' ');
    if (strncmp(line, "type ", 5) == 0) {
        feed_text(t, arg + 1);
    } else if (strncmp(line, "dump ", 5) == 0) {
        tui_draw(t);
        tui_dump_screen(arg + 1);
    } else if (strncmp(line, "sleep ", 6) == 0) {
        uint64_t ms = 0;
        if (!cu_parse_u64(arg + 1, 600000, &ms))
            ms = 0;
        s->sleep_until = cu_mono_ms() + (int64_t)ms;
        s->pos--; /* stay on this line until the time is up */
    } else if (strncmp(line, "resize ", 7) == 0) {
        unsigned w = 0, h = 0;
        if (sscanf(arg + 1, "%ux%u", &w, &h) == 2 && w > 0 && h > 0) {
            resizeterm((int)h, (int)w);
            tui_handle_key(t, KEY_RESIZE);
        }
    } else if (strcmp(line, "wait") != 0) {
        tui_handle_key(t, key_by_name(line));
    }
    return true;
}

/* ---- start and stop --------------------------------------------------------------------- */

