/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/fetch/net.h"
#include "core/machine/syscmd.h"
#include "core/base/str.h"
#include "options.h"
#include "report.h"
#include "term.h"

extern char **environ;

/* The one flag signal handlers touch (STYLE 33); the engine polls it. */
static atomic_int cancel_flag;

static void
on_signal(int sig)
{
    (void)sig;
    atomic_store(&cancel_flag, 1);
}

static void
catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Logs go to stderr (filtered by -q/-v) and, in full, to the log file. */
static void
cli_log_sink(void *userdata, enum cu_log_level level, const char *tag, const char *msg, const char *msg_en)
{
    struct cu_app *app = userdata;
    if (app->log) {
        char ts[32];
        time_t now = time(NULL);
        struct tm tm;
        strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", localtime_r(&now, &tm));
        fprintf(app->log, "%s %s %s: %s\n", ts, cu_log_level_name(level), tag, msg_en); /* English: to be shared */
        fflush(app->log);
    }
    if (cu_log_record_only(tag))
        return; /* a command's output the screen shows under its step (progress.c) */
    enum cu_log_level shown = app->cfg.quiet ? CU_LOG_ERROR
                              : app->cfg.verbose >= 2 ? CU_LOG_DEBUG
                              : app->cfg.verbose == 1 ? CU_LOG_INFO
                                                      : CU_LOG_WARN;
    const char *dbg = getenv("CUDAUP_DEBUG");
    int env_level = cu_log_level_parse(dbg);
    if (env_level > (int)shown)
        shown = (enum cu_log_level)env_level;
    if (level > shown)
        return;
    if (app->cfg.json) {
        json_t *o = json_object();
        json_object_set_new(o, "event", json_string("log"));
        json_object_set_new(o, "level", json_string(cu_log_level_name(level)));
        json_object_set_new(o, "message", json_string(msg));
        char *s = json_dumps(o, JSON_COMPACT);
        if (s)
            fprintf(stderr, "%s\n", s);
        free(s);
        json_decref(o);
        return;
    }
    enum cu_color c = level == CU_LOG_ERROR ? CU_COLOR_RED
                      : level == CU_LOG_WARN ? CU_COLOR_YELLOW
                                             : CU_COLOR_DIM;
    fputs(cu_color(app, c, true), stderr);
    cu_print_wrapped(stderr, "cudaup: ", msg, cu_term_width(STDERR_FILENO));
    fputs(cu_color_reset(app, true), stderr);
}

static void
setup_i18n(void)
{
    setlocale(LC_ALL, "");
#ifdef ENABLE_NLS
    const char *dir = getenv("CUDAUP_LOCALEDIR");
    bindtextdomain(GETTEXT_PACKAGE, dir && *dir ? dir : LOCALEDIR);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
#endif
}

static int
not_yet(struct cu_app *app)
{
    struct cu_error err;
    cu_error_set(&err, CU_E_USAGE, 0, _("'%s' is not available in this build yet."),
                 cu_command_name(app->cfg.command));
    return cu_report_error(app, &err);
}

static int
dispatch(struct cu_app *app)
{
    switch (app->cfg.command) {
    case CU_CMD_DOCTOR:
        return cu_cmd_doctor(app);
    case CU_CMD_PLAN:
        return cu_cmd_plan(app);
    case CU_CMD_LIST:
        return cu_cmd_list(app);
    case CU_CMD_INSTALL:
        return cu_cmd_install(app);
    case CU_CMD_UNINSTALL:
        return cu_cmd_uninstall(app);
    case CU_CMD_MIRROR:
        return cu_cmd_mirror(app);
    case CU_CMD_NONE:
        return cu_cmd_wizard(app);
    case CU_CMD_VERIFY:
        return cu_cmd_verify(app);
    case CU_CMD_REPAIR:
        return cu_cmd_repair(app);
    case CU_CMD_COUNT:
    default:
        return not_yet(app);
    }
}

int
main(int argc, char **argv)
{
    struct cu_app app;
    struct cu_error err;
    int rc;

    memset(&app, 0, sizeof(app));
    setup_i18n();
    if (argc >= 2 && strcmp(argv[1], "__check") == 0)
        return cu_check_child_main(argc, argv); /* verify's child: no options, one JSON line */
    if (argc >= 2 && strcmp(argv[1], "__chroot") == 0)
        return cu_sys_chroot_main(argc, argv); /* a system command inside a machine root (core/machine/syscmd.h) */
    cu_config_init(&app.cfg);
    app.envp = (const char *const *)environ;
    cu_log_init_from_env();
    cu_log_set_handler(cli_log_sink, &app);

    bool tty_out = isatty(STDOUT_FILENO), tty_err = isatty(STDERR_FILENO);
    if (cu_options_parse(&app.cfg, argc, argv, app.envp, &err) != CU_OK) {
        app.color_err = tty_err && !app.cfg.no_color;
        rc = cu_report_error(&app, &err);
        goto out;
    }
    app.color = tty_out && !app.cfg.no_color && !app.cfg.json;
    app.color_err = tty_err && !app.cfg.no_color;
    cu_log_set_level(app.cfg.verbose >= 2 ? CU_LOG_DEBUG : CU_LOG_INFO);
    cu_log_init_from_env();

    /* Test seam (README "Settings"): stop once the command line is accepted, to test the option table. */
    const char *parse_only = getenv("CUDAUP_TEST_PARSE_ONLY");
    if (parse_only && *parse_only) {
        printf("%s\n", cu_command_name(app.cfg.command));
        rc = 0;
        goto out;
    }
    if (app.cfg.version) {
        printf("cudaup %s\n", PACKAGE_VERSION);
        rc = 0;
        goto out;
    }
    if (app.cfg.help) {
        cu_options_usage(stdout, app.cfg.command, cu_term_width(STDOUT_FILENO));
        rc = 0;
        goto out;
    }
    const char *headless = getenv("CUDAUP_TUI_HEADLESS"); /* test seam: the wizard draws into /dev/null */
    if (app.cfg.command == CU_CMD_NONE && !(headless && *headless) &&
        (app.cfg.non_interactive || !isatty(STDIN_FILENO) || !tty_out)) {
        fprintf(stderr, "%s\n",
                _("cudaup: no command given, and this is not a terminal, so the wizard cannot start."));
        fprintf(stderr, "%s\n",
                _("Run it headless, for example: cudaup doctor; cudaup plan; cudaup install --yes. See cudaup --help."));
        rc = 2;
        goto out;
    }
    if (cu_app_setup(&app, &err) != CU_OK) {
        rc = cu_report_error(&app, &err);
        goto out;
    }
    cu_net_global_init();
    app.cancel = &cancel_flag;
    catch_signals();
    rc = dispatch(&app);
    if (atomic_load(&cancel_flag) && rc != 0)
        rc = 130;
    cu_net_global_fini();
out:
    if (app.log)
        fclose(app.log);
    free(app.log_path);
    cu_log_set_handler(NULL, NULL);
    cu_catalog_free(app.catalog);
    if (app.root_open)
        cu_sysroot_fini(&app.root);
    free(app.self_exe);
    free(app.prefix);
    free(app.state_dir);
    free(app.profile_d_owned);
    free(app.cache_dir);
    cu_config_fini(&app.cfg);
    return rc;
}
