/* SPDX-License-Identifier: MIT */
/*
 * The wizard's event loop: one poll() on the terminal and the wake pipe, a
 * worker thread for the engine, a queue between them (STYLE 27-33).
 */
#include "config.h"

#include "tui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/machine/engines.h"
#include "core/machine/syscmd.h"
#include "core/base/log.h"
#include "core/base/linebreak.h"
#include "core/base/mem.h"
#include "core/fetch/mirror.h"
#include "core/base/str.h"
#include "installers/verifyrun.h"
#include "advice.h"
#include "internal.h"
#include "widgets.h"
#include "core/base/clock.h"

static const struct tui_screen_ops *const screens[SCR_COUNT] = {
    [SCR_WELCOME] = &scr_welcome_ops,     [SCR_EXISTING] = &scr_existing_ops,
    [SCR_SYSTEM] = &scr_system_ops,       [SCR_FRAMEWORK] = &scr_framework_ops,
    [SCR_VERSIONS] = &scr_versions_ops,   [SCR_COMPONENTS] = &scr_components_ops,
    [SCR_LOCATION] = &scr_location_ops,   [SCR_PYENV] = &scr_pyenv_ops, [SCR_CONTAINERS] = &scr_containers_ops,
    [SCR_REVIEW] = &scr_review_ops,       [SCR_PROGRESS] = &scr_progress_ops,
    [SCR_VALIDATION] = &scr_validation_ops, [SCR_DONE] = &scr_done_ops,
};



/* Is a container engine installed on this Linux (its program in the root: files only, no command runs)? The wizard's
 * Containers screen is shown then, unless cudaup runs inside a container (GPU containers are the host's). */
static bool
containers_here(const struct tui_opts *o)
{
    if (!o->facts || o->facts->container.inside)
        return false;
    struct cu_sys sys;
    struct cu_engines en;
    cu_sys_init(&sys, o->envp, o->root ? o->root->path : "/", false);
    struct cu_engines_opts eo = {&sys, o->envp, false, false};
    cu_engines_probe(&eo, &en);
    bool any = false;
    for (int k = 0; k < CU_N_ENGINES; k++)
        any |= en.e[k].installed;
    cu_engines_fini(&en);
    cu_sys_fini(&sys);
    return any;
}

static void
restore_terminal(void)
{
    if (!isendwin())
        endwin();
}

static SCREEN *
open_screen(bool headless, FILE **in, FILE **out)
{
    *in = *out = NULL;
    if (!headless)
        return newterm(NULL, stdout, stdin);
    /* No terminal: draw into /dev/null with the size in LINES/COLUMNS (default 80x24). */
    *out = fopen("/dev/null", "w");
    *in = fopen("/dev/null", "r");
    if (!*in || !*out)
        return NULL;
    if (!getenv("LINES"))
        setenv("LINES", "24", 0);
    if (!getenv("COLUMNS"))
        setenv("COLUMNS", "80", 0);
    const char *terms[] = {getenv("TERM"), "xterm-256color", "xterm", "vt100", "dumb"};
    for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]); i++) {
        if (!terms[i] || !*terms[i])
            continue;
        SCREEN *s = newterm(terms[i], *out, *in);
        if (s)
            return s;
    }
    return NULL;
}

/* No CUDA install of cudaup's, but an environment it made that holds its own toolkit (--toolkit wheels or none, issue 50):
 * the rerun's menu checks, repairs or removes that, as verify, repair and uninstall env do. */
static void
find_toolkit_env(struct tui *t)
{
    struct cu_toolkit_env te;
    if (!cu_toolkit_env_find(t->o.state_dir, NULL, &te))
        return;
    t->existing = cu_steal_ptr(&te.path);
    t->existing_tk = te.kind;
    if (te.release && !cu_version_parse(te.release, &t->existing_version))
        t->existing_version.n = 0;
    cu_toolkit_env_fini(&te);
}

static void
find_existing(struct tui *t)
{
    CU_AUTOFREE char *link = cu_path_join(t->o.prefix, "cuda");
    char real[PATH_MAX];
    CU_AUTOFREE char *rec = realpath(link, real) ? cu_path_join(real, ".cudaup/record.json") : NULL;
    if (!rec || !cu_path_exists(rec)) {
        find_toolkit_env(t);
        return;
    }
    t->existing = cu_xstrdup(real);
    const char *base = strrchr(real, '/');
    if (base && cu_str_has_prefix(base + 1, "cuda-") && !cu_version_parse(base + 6, &t->existing_version))
        t->existing_version.n = 0;
    for (size_t i = 0; i < t->o.facts->n_installs; i++)
        if (strcmp(t->o.facts->installs[i].path, real) == 0 && t->o.facts->installs[i].version.n)
            t->existing_version = t->o.facts->installs[i].version;
}

static void
tui_fini(struct tui *t)
{
    if (t->job) {
        atomic_store(&t->cancel, 1);
        pthread_join(t->worker, NULL);
        tui_job_free(t->job);
        t->job = NULL;
    }
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->n_queue; i++) {
        tui_msg_fini(&t->queue[i]);
        if (t->queue[i].job)
            tui_job_free(t->queue[i].job);
    }
    free(t->queue);
    pthread_mutex_unlock(&t->mu);
    pthread_mutex_destroy(&t->mu);
    if (t->wake[0] >= 0)
        close(t->wake[0]);
    if (t->wake[1] >= 0)
        close(t->wake[1]);
    cu_config_fini(&t->ans);
    cu_problems_fini(&t->problems);
    cu_plan_free(t->plan);
    cu_mirror_free(t->mirror);
    cu_choices_free(t->cuda_choices, t->n_cuda_choices);
    cu_choices_free(t->cudnn_choices, t->n_cudnn_choices);
    cu_checks_fini(&t->checks);
    cu_strv_free(t->comp_sel);
    free(t->plan_key);
    free(t->tk_default);
    free(t->cuda_key);
    free(t->cudnn_key);
    free(t->target);
    free(t->existing);
    free(t->existing_state);
    for (size_t i = 0; i < t->n_items; i++)
        free(t->items[i].name);
    free(t->items);
    for (size_t i = 0; i < TUI_LOG_LINES; i++)
        free(t->log[i]);
    for (size_t i = 0; i < t->n_replay; i++)
        free(t->replay[i]);
    free(t->replay);
}

static bool
utf8_locale(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

/*
 * @prefix, then @text broken into lines of @width columns where core/linebreak says text may break (a command
 * between keep marks whole), continuation lines under the text; @width 0: one line.
 */
static void
print_wrapped(FILE *out, const char *prefix, const char *text, int width)
{
    int lead = tui_width(prefix);
    fputs(prefix, out);
    const char *s = text;
    bool first = true;
    do {
        int avail = width > lead + 10 ? width - lead - 1 : width > 0 ? 10 : 1 << 20;
        size_t next, end = cu_line_break(s, avail, false, &next);
        if (!first)
            fprintf(out, "%*s", lead, "");
        CU_AUTOFREE char *shown = cu_line_shown(s, end);
        fputs(shown, out);
        fputc('\n', out);
        first = false;
        s += next;
    } while (*s);
}

int
tui_run(const struct tui_opts *o, const char *keys_script, uint64_t iterations)
{
    struct tui t;
    struct script sc;
    struct cu_error err;
    FILE *fin = NULL, *fout = NULL;
    SCREEN *scr = NULL;
    int rc;

    memset(&t, 0, sizeof(t));
    memset(&sc, 0, sizeof(sc));
    t.o = *o;
    t.containers_offer = containers_here(o);
    t.screens = screens;
    t.wake[0] = t.wake[1] = -1;
    pthread_mutex_init(&t.mu, NULL);
    cu_config_copy(&t.ans, o->cfg);
    tui_set_answer(&t, &t.ans.prefix, o->prefix); /* absolute, as the command line resolved it */
    cu_problems_init(&t.problems);
    t.headless = getenv("CUDAUP_TUI_HEADLESS") && *getenv("CUDAUP_TUI_HEADLESS");
    t.color = !o->cfg->no_color;
    t.utf8 = utf8_locale();
    if (keys_script && *keys_script && tui_script_load(keys_script, &sc, &err) != CU_OK) {
        fprintf(stderr, "cudaup: %s\n", cu_error_text(&err));
        tui_fini(&t);
        return 2;
    }
    if (pipe2(t.wake, O_NONBLOCK | O_CLOEXEC) != 0) {
        char b[128];
        fprintf(stderr, _("cudaup: cannot start the wizard: %s\n"), cu_strerror(errno, b, sizeof(b)));
        tui_fini(&t);
        cu_strv_free(sc.lines);
        return 1;
    }
    find_existing(&t);
    cu_doctor_check(o->facts, o->catalog, o->root, o->envp, &t.problems);

    scr = open_screen(t.headless, &fin, &fout);
    if (!scr) {
        fprintf(stderr, "%s\n", _("cudaup: this terminal cannot show the wizard (set TERM, or run it headless: cudaup install --yes)."));
        if (fin)
            fclose(fin);
        if (fout)
            fclose(fout);
        tui_fini(&t);
        cu_strv_free(sc.lines);
        return 2;
    }
    cu_mem_set_oom_hook(restore_terminal);
    cu_log_set_handler(tui_log_sink, &t);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    tui_colors_init(&t);

    t.running = true;
    t.scr = SCR_WELCOME;
    if (o->resumed) /* the run after the driver's reboot says so, and goes on from Welcome */
        tui_notice(&t, false, "%s", o->resumed);
    if (t.screens[t.scr]->enter)
        t.screens[t.scr]->enter(&t);
    uint64_t turns = 0;
    int64_t last_draw = 0;
    bool dirty = true;
    while (t.running) {
        tui_drain(&t);
        tui_word_errors(&t);
        if (o->signal_cancel && atomic_load(o->signal_cancel)) {
            atomic_store(o->signal_cancel, 0);
            if (t.job) {
                atomic_store(&t.cancel, 1); /* the job ends cancelled; its screen says so */
            } else {
                t.rc = 130;
                break;
            }
        }
        int64_t now = cu_mono_ms();
        if (dirty || (t.job && now - last_draw >= 100)) {
            t.spin++;
            tui_draw(&t);
            last_draw = now;
            dirty = false;
        }
        if (iterations && ++turns >= iterations)
            break;
        if (sc.pos < sc.n) {
            if (tui_script_step(&t, &sc)) {
                dirty = true;
                continue;
            }
        } else if (t.headless && !t.job) {
            break; /* the script is done and there is nobody to type */
        }
        struct pollfd pf[2] = {{.fd = t.wake[0], .events = POLLIN}, {.fd = STDIN_FILENO, .events = POLLIN}};
        int npf = t.headless ? 1 : 2;
        int timeout = t.job || sc.pos < sc.n ? 100 : 1000;
        if (poll(pf, (nfds_t)npf, timeout) < 0 && errno != EINTR)
            break;
        if (pf[0].revents)
            dirty = true;
        wint_t wc;
        int r;
        while ((r = get_wch(&wc)) != ERR) {
            int ch = r == KEY_CODE_YES ? (int)wc : wc < 128 ? (int)wc : (int)(TUI_WCHAR + wc);
            tui_handle_key(&t, ch);
            dirty = true;
            if (!t.running)
                break;
        }
    }
    if (t.job) {
        /* Leaving with work in flight: cancel it and let it roll back before the screen goes. */
        atomic_store(&t.cancel, 1);
        tui_notice(&t, false, "%s", _("Stopping; rolling back what was half done..."));
        tui_draw(&t);
        while (t.job) {
            struct pollfd pf = {.fd = t.wake[0], .events = POLLIN};
            poll(&pf, 1, 100);
            tui_drain(&t);
        }
        t.rc = 130;
    }
    rc = t.rc;
    /* The text left on the terminal is laid out for its width, as the CLI's is (the terminal cut it mid-word,
     * issue 49 item 19); to a pipe or a file, a line each. */
    int width = isatty(STDOUT_FILENO) ? COLS : 0;
    endwin();
    delscreen(scr);
    if (fin)
        fclose(fin);
    if (fout)
        fclose(fout);
    cu_log_set_handler(NULL, NULL);
    int err_width = isatty(STDERR_FILENO) ? width : 0;
    for (size_t i = 0; i < t.n_replay; i++)
        print_wrapped(stderr, "cudaup: ", t.replay[i], err_width);
    if (t.scr == SCR_DONE && t.target && t.last_job != JOB_UNINSTALL) {
        /* Whole, for copying: the screen had to wrap the long paths.  A command is never broken (it would paste
         * as two lines); the words around it wrap between words. */
        char **next = tui_next_commands(&t);
        CU_AUTOFREE char *head = t.target_tk && t.plan
                                     ? cu_xasprintf(_("The environment is installed, with no CUDA folder (Toolkit: %s). Next:"), t.target_tk)
                                 : t.target_tk ? cu_xasprintf(_("The Python environment %s holds its own CUDA toolkit (Toolkit: %s). Next:"), t.target, t.target_tk)
                                               : cu_xasprintf(_("CUDA is installed in %s. Next:"), t.target);
        print_wrapped(stdout, "", head, width);
        for (char **n = next; n && *n; n++)
            print_wrapped(stdout, "  ", *n, width);
        cu_strv_free(next);
    }
    tui_fini(&t);
    cu_strv_free(sc.lines);
    return rc;
}
