/* SPDX-License-Identifier: MIT */
#include "config.h"

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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(basic),
        cmocka_unit_test(errors),
        cmocka_unit_test(precedence),
    };
    return TU_RUN(tests);
}
