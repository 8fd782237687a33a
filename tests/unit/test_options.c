/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "testutil.h"

static enum cu_status
parse(struct cu_config *cfg, const char *const *envp, struct cu_error *err, ...)
{
    char *argv[32] = {(char *)(uintptr_t) "cudaup"};
    int argc = 1;
    va_list ap;
    va_start(ap, err);
    for (const char *a; (a = va_arg(ap, const char *)) != NULL;)
        argv[argc++] = (char *)(uintptr_t)a;
    va_end(ap);
    cu_config_init(cfg);
    return cu_options_parse(cfg, argc, argv, envp, err);
}

static void
basic(void **state)
{
    (void)state;
    struct cu_config cfg;
    struct cu_error err;
    const char *envp[] = {"CUDAUP_CONFIG=/dev/null", NULL};
    assert_ok(parse(&cfg, envp, &err, "-qy", "install", "--cuda=12.4", "--framework", "pytorch",
                    "--jobs", "8", NULL), &err);
    assert_int_equal(cfg.command, CU_CMD_INSTALL);
    assert_true(cfg.quiet && cfg.yes);
    assert_string_equal(cfg.cuda, "12.4");
    assert_string_equal(cfg.framework, "pytorch");
    assert_int_equal(cfg.jobs, 8);
    cu_config_fini(&cfg);

    assert_ok(parse(&cfg, envp, &err, "verify", "-vv", "--", "--weird-version", NULL), &err);
    assert_int_equal(cfg.verbose, 2);
    assert_int_equal(cfg.n_args, 1);
    assert_string_equal(cfg.args[0], "--weird-version");
    cu_config_fini(&cfg);
}

static void
errors(void **state)
{
    (void)state;
    struct cu_config cfg;
    struct cu_error err;
    const char *envp[] = {"CUDAUP_CONFIG=/dev/null", NULL};
    assert_status(parse(&cfg, envp, &err, "doctor", "--nope", NULL), CU_E_USAGE, &err);
    assert_non_null(strstr(err.msg, "--nope"));
    cu_config_fini(&cfg);
    assert_status(parse(&cfg, envp, &err, "plan", "--cuda", NULL), CU_E_USAGE, &err);
    assert_non_null(strstr(err.msg, "needs a value"));
    cu_config_fini(&cfg);
    assert_status(parse(&cfg, envp, &err, "doctor", "--cuda", "12", NULL), CU_E_USAGE, &err);
    assert_non_null(strstr(err.msg, "does not apply to 'doctor'"));
    cu_config_fini(&cfg);
    assert_status(parse(&cfg, envp, &err, "install", "--jobs", "-3", NULL), CU_E_USAGE, &err);
    assert_non_null(strstr(err.msg, "--jobs"));
    cu_config_fini(&cfg);
    assert_status(parse(&cfg, envp, &err, "-x", NULL), CU_E_USAGE, &err);
    cu_config_fini(&cfg);
    assert_status(parse(&cfg, envp, &err, "launch", NULL), CU_E_USAGE, &err);
    assert_non_null(strstr(err.msg, "launch"));
    cu_config_fini(&cfg);
    assert_status(parse(&cfg, envp, &err, "doctor", "-v=3", NULL), CU_E_USAGE, &err);
    cu_config_fini(&cfg);
}

static void
precedence(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("opts");
    tu_write(dir, "config", "# site defaults\nmirror = file:///from/file\ncuda = \"12.2\"\njobs=2\n");
    char *cfgpath;
    assert_true(asprintf(&cfgpath, "CUDAUP_CONFIG=%s/config", dir) > 0);
    const char *envp[] = {cfgpath, "CUDAUP_CUDA=12.6", "CUDAUP_JOBS=", "NO_COLOR=1", NULL};
    struct cu_config cfg;
    struct cu_error err;
    assert_ok(parse(&cfg, envp, &err, "install", NULL), &err);
    assert_string_equal(cfg.mirror, "file:///from/file"); /* file */
    assert_string_equal(cfg.cuda, "12.6");               /* env over file */
    assert_int_equal(cfg.jobs, 2);                        /* empty env var means unset */
    assert_true(cfg.no_color);
    cu_config_fini(&cfg);
    assert_ok(parse(&cfg, envp, &err, "plan", "--cuda", "11.8", NULL), &err);
    assert_string_equal(cfg.cuda, "11.8"); /* argv over env */
    cu_config_fini(&cfg);
    /* A wish from the environment does not make doctor fail. */
    assert_ok(parse(&cfg, envp, &err, "doctor", NULL), &err);
    cu_config_fini(&cfg);

    tu_write(dir, "config", "jobs = many\n");
    assert_status(parse(&cfg, envp, &err, "plan", NULL), CU_E_USAGE, &err);
    assert_non_null(strstr(err.msg, "line 1"));
    cu_config_fini(&cfg);
    tu_write(dir, "config", "root = /x\n");
    assert_status(parse(&cfg, envp, &err, "plan", NULL), CU_E_USAGE, &err);
    cu_config_fini(&cfg);
    free(cfgpath);
    tu_tmpdir_free(dir);
}

static const char *const cmd_names[CU_CMD_COUNT] = {"", "doctor", "plan", "install", "verify", "repair",
                                                    "uninstall", "list", "mirror"};

/* The usage text of @cmd at @width; caller frees. */
static char *
usage_of(enum cu_command cmd, int width)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    cu_options_usage(f, cmd, width);
    assert_int_equal(fclose(f), 0);
    return text;
}

/* Parse `cudaup CMD --NAME` (with a value when it takes one). */
static enum cu_status
parse_one(enum cu_command cmd, const char *name, struct cu_error *err)
{
    const char *envp[] = {"CUDAUP_CONFIG=/dev/null", NULL};
    struct cu_config cfg;
    char flag[64], valued[64];
    snprintf(flag, sizeof(flag), "--%s", name);
    snprintf(valued, sizeof(valued), "--%s=1", name);
    const char *c = cmd == CU_CMD_NONE ? NULL : cmd_names[cmd];
    enum cu_status st = c ? parse(&cfg, envp, err, c, flag, NULL) : parse(&cfg, envp, err, flag, NULL);
    cu_config_fini(&cfg);
    if (st == CU_E_USAGE && strstr(err->msg, "needs a value")) {
        st = c ? parse(&cfg, envp, err, c, valued, NULL) : parse(&cfg, envp, err, valued, NULL);
        cu_config_fini(&cfg);
    }
    return st;
}

/* Whether @text has the option @name as a line of its own ("  --name" or "  -x, --name"). */
static bool
lists(const char *text, const char *name)
{
    char a[80], b[80];
    snprintf(a, sizeof(a), "\n  --%s ", name);
    snprintf(b, sizeof(b), ", --%s ", name);
    char a2[80];
    snprintf(a2, sizeof(a2), "\n  --%s\n", name);
    return strstr(text, a) || strstr(text, b) || strstr(text, a2);
}

/* One table serves the parser and --help: what a command's help lists, it accepts; nothing else is listed. */
static void
help_matches_parser(void **state)
{
    (void)state;
    struct cu_error err;
    for (int cmd = CU_CMD_DOCTOR; cmd < CU_CMD_COUNT; cmd++) {
        char *text = usage_of((enum cu_command)cmd, 0);
        for (size_t i = 0; cu_options_name(i); i++) {
            const char *name = cu_options_name(i);
            bool listed = cu_options_listed(name, (enum cu_command)cmd);
            if (listed != lists(text, name))
                fail_msg("cudaup %s --help %s --%s, but the table says the opposite:\n%s", cmd_names[cmd],
                         listed ? "does not list" : "lists", name, text);
            enum cu_status st = parse_one((enum cu_command)cmd, name, &err);
            bool accepted = st == CU_OK;
            if (accepted != cu_options_accepted(name, (enum cu_command)cmd))
                fail_msg("cudaup %s --%s: the parser %s it (%s)", cmd_names[cmd], name,
                         accepted ? "accepts" : "refuses", err.msg);
            if (listed && !accepted)
                fail_msg("cudaup %s --help lists --%s, which it refuses: %s", cmd_names[cmd], name, err.msg);
        }
        free(text);
    }
}

/* Options a command ignores: left out of its help; refused with one sentence, unless DESIGN promises them. */
static void
inapplicable(void **state)
{
    (void)state;
    static const struct {
        enum cu_command cmd;
        const char *name;
        bool design; /* DESIGN.md makes the command take it (plan: every option install takes, issue 35) */
    } cases[] = {
        {CU_CMD_DOCTOR, "yes", true},         {CU_CMD_DOCTOR, "mirror", true},     {CU_CMD_DOCTOR, "cache-dir", true},
        {CU_CMD_DOCTOR, "log", true},         {CU_CMD_DOCTOR, "jobs", false},      {CU_CMD_DOCTOR, "ca-cert", false},
        {CU_CMD_DOCTOR, "cuda", false},       {CU_CMD_LIST, "jobs", false},        {CU_CMD_LIST, "yes", true},
        {CU_CMD_MIRROR, "env-scope", true},   {CU_CMD_MIRROR, "shell-rc", true},   {CU_CMD_MIRROR, "env-name", true},
        {CU_CMD_MIRROR, "prefix", true},      {CU_CMD_MIRROR, "yes", true},        {CU_CMD_MIRROR, "env-dir", false},
        {CU_CMD_MIRROR, "keep-env", false},   {CU_CMD_VERIFY, "mirror", true},     {CU_CMD_VERIFY, "jobs", false},
        {CU_CMD_VERIFY, "yes", true},         {CU_CMD_VERIFY, "cache-dir", true},  {CU_CMD_VERIFY, "ca-cert", false},
        {CU_CMD_PLAN, "yes", true},           {CU_CMD_PLAN, "jobs", true},         {CU_CMD_PLAN, "log", true},
        {CU_CMD_UNINSTALL, "mirror", true},   {CU_CMD_UNINSTALL, "jobs", false},   {CU_CMD_UNINSTALL, "deep", false},
        {CU_CMD_REPAIR, "framework", false},  {CU_CMD_INSTALL, "deep", false},     {CU_CMD_INSTALL, "keep-env", false},
    };
    struct cu_error err;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = usage_of(cases[i].cmd, 0);
        if (lists(text, cases[i].name))
            fail_msg("cudaup %s --help lists --%s, which it ignores", cmd_names[cases[i].cmd], cases[i].name);
        free(text);
        enum cu_status st = parse_one(cases[i].cmd, cases[i].name, &err);
        if (cases[i].design) {
            if (st != CU_OK)
                fail_msg("cudaup %s --%s is refused, but DESIGN.md makes every such command take it: %s",
                         cmd_names[cases[i].cmd], cases[i].name, err.msg);
            continue;
        }
        assert_status(st, CU_E_USAGE, &err);
        char want[64];
        snprintf(want, sizeof(want), "--%s", cases[i].name);
        assert_non_null(strstr(err.msg, want));
        snprintf(want, sizeof(want), "'%s'", cmd_names[cases[i].cmd]);
        assert_non_null(strstr(err.msg, want));
    }
}

/* Each command's help: one usage line, groups, examples of that command; the overview points at them. */
static void
usage_text(void **state)
{
    (void)state;
    for (int cmd = CU_CMD_DOCTOR; cmd < CU_CMD_COUNT; cmd++) {
        char *text = usage_of((enum cu_command)cmd, 0);
        char want[64];
        snprintf(want, sizeof(want), "Usage: cudaup %s ", cmd_names[cmd]);
        assert_non_null(strstr(text, want));
        assert_null(strstr(text, "  [OPTIONS]"));
        assert_non_null(strstr(text, "\nExamples:\n"));
        snprintf(want, sizeof(want), "\n  cudaup %s", cmd_names[cmd]);
        size_t n = 0;
        for (const char *p = text; (p = strstr(p, want)) != NULL; p++)
            n++;
        if (n < 2 || n > 3)
            fail_msg("cudaup %s --help has %zu examples:\n%s", cmd_names[cmd], n, text);
        assert_non_null(strstr(text, "Output and help:"));
        free(text);
    }
    char *text = usage_of(CU_CMD_NONE, 0);
    for (int cmd = CU_CMD_DOCTOR; cmd < CU_CMD_COUNT; cmd++) {
        char want[64];
        snprintf(want, sizeof(want), "\n  %s ", cmd_names[cmd]);
        assert_non_null(strstr(text, want));
    }
    assert_non_null(strstr(text, "cudaup COMMAND --help"));
    assert_false(lists(text, "cuda"));
    assert_false(lists(text, "jobs"));
    assert_true(lists(text, "json"));
    assert_true(lists(text, "mirror")); /* DESIGN.md: every command takes it */
    free(text);
    /* Wrapped at the width given: no line longer, so a terminal never breaks a word. */
    text = usage_of(CU_CMD_INSTALL, 60);
    for (char *line = text, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        assert_non_null(nl);
        if (nl - line > 60)
            fail_msg("a help line of %d columns at width 60: %.*s", (int)(nl - line), (int)(nl - line), line);
    }
    free(text);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(basic),
        cmocka_unit_test(errors),
        cmocka_unit_test(precedence),
        cmocka_unit_test(help_matches_parser),
        cmocka_unit_test(inapplicable),
        cmocka_unit_test(usage_text),
    };
    return TU_RUN(tests);
}
