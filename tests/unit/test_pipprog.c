/* SPDX-License-Identifier: MIT */
/*
 * pip's progress read from its own lines (installers/pipprog.c): the lines below are pip's, as pip
 * 23 and 24.1 print them (format_size(), "Progress N of M" from --progress-bar raw); what the
 * environment's stage shows is derived from them alone.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "installers/pipprog.h"
#include "testutil.h"

static void
feed(struct cu_pip_progress *pp, const char *const *lines, bool *changed_all)
{
    *changed_all = true;
    for (const char *const *l = lines; *l; l++) {
        bool log_it;
        *changed_all &= cu_pip_progress_line(pp, *l, &log_it);
    }
}

static void
test_download_with_raw_progress(void **state)
{
    (void)state;
    struct cu_pip_progress pp = {0};
    bool changed, log_it;
    const char *const head[] = {
        "Collecting tensorflow==2.15.0",
        "  Downloading tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl (475.2 MB)",
        NULL};
    feed(&pp, head, &changed);
    assert_true(changed);
    assert_int_equal(pp.phase, CU_PIP_DOWNLOAD);
    assert_string_equal(pp.package, "tensorflow");
    assert_int_equal(pp.file_total, 475200000);
    assert_int_equal(pp.n_files, 1);
    /* A raw line: the file's bytes so far; it is not logged. */
    assert_true(cu_pip_progress_line(&pp, "Progress 120000000 of 475217430", &log_it));
    assert_false(log_it);
    assert_int_equal(pp.file_done, 120000000);
    assert_int_equal(pp.file_total, 475217430); /* the exact size replaces the rounded one */
    assert_int_equal(cu_pip_progress_bytes(&pp), 120000000);
    /* The next requirement: the first file is counted whole. */
    const char *const next[] = {
        "Collecting numpy<2.0.0,>=1.23.5 (from tensorflow==2.15.0)",
        "  Using cached numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl (18.3 MB)",
        "Collecting h5py>=2.9.0",
        "  Downloading https://mirror.example/simple/h5py/h5py-3.10.0-cp311-cp311-manylinux_2_17_x86_64.whl (4.8 MB)",
        "Progress 4800000 of 4800000",
        "Installing collected packages: numpy, h5py, tensorflow",
        NULL};
    feed(&pp, next, &changed);
    assert_true(changed);
    assert_int_equal(pp.phase, CU_PIP_INSTALL);
    assert_int_equal(pp.n_installing, 3);
    /* pip 23+ fetches each wheel's metadata while it resolves: not a file of the install. */
    struct cu_pip_progress meta = {0};
    assert_true(cu_pip_progress_line(&meta, "Collecting h5py>=2.9.0", &log_it));
    assert_false(cu_pip_progress_line(&meta, "  Downloading h5py-3.10.0-cp311-cp311-manylinux_2_17_x86_64.whl.metadata (2.5 kB)",
                                      &log_it));
    assert_int_equal(meta.n_files, 0);
    assert_int_equal(meta.phase, CU_PIP_RESOLVE);
    assert_string_equal(meta.package, "h5py");
    assert_int_equal(pp.n_files, 3);
    /* numpy came from pip's cache: not downloaded */
    assert_int_equal(cu_pip_progress_bytes(&pp), 475217430 + 4800000);
    assert_true(cu_pip_progress_line(&pp, "Successfully installed h5py-3.10.0 numpy-1.26.4 tensorflow-2.15.0", &log_it));
    assert_int_equal(pp.phase, CU_PIP_DONE);
    assert_true(log_it);
}

static void
test_sizes_and_names(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        const char *package;
        uint64_t size;
    } cases[] = {
        {"  Downloading six-1.16.0-py2.py3-none-any.whl (11 kB)", "six", 11000},
        {"  Downloading tiny-1.0-py3-none-any.whl (812 bytes)", "tiny", 812},
        {"  Downloading a-1.0-py3-none-any.whl (1.5 kB)", "a", 1500},
        {"  Downloading http://127.0.0.1:8080/torch-2.6.0%2Bcu118-cp311-cp311-linux_x86_64.whl (2300.1 MB)", "torch",
         2300100000},
        {"  Downloading nosize-1.0.tar.gz", "nosize", 0},
        {"  Downloading odd-1.0.whl (lots)", "odd", 0},
    };
    for (size_t i = 0; i < CU_N_ELEMENTS(cases); i++) {
        struct cu_pip_progress pp = {0};
        bool log_it;
        assert_true(cu_pip_progress_line(&pp, cases[i].line, &log_it));
        assert_string_equal(pp.package, cases[i].package);
        assert_int_equal(pp.file_total, cases[i].size);
    }
    struct cu_pip_progress pp = {0};
    bool log_it;
    assert_true(cu_pip_progress_line(&pp, "Collecting jax[cuda12]>=0.6.0,<0.7.1", &log_it));
    assert_string_equal(pp.package, "jax");
    assert_true(cu_pip_progress_line(&pp, "Processing /srv/wheels/keras-2.15.0-py3-none-any.whl", &log_it));
    assert_string_equal(pp.package, "keras");
    /* Other lines change nothing, and are logged; a raw line before any download is ignored. */
    assert_false(cu_pip_progress_line(&pp, "Requirement already satisfied: six in ./env/lib", &log_it));
    assert_true(log_it);
    assert_false(cu_pip_progress_line(&pp, "Progress 10 of 20", &log_it));
    assert_false(log_it);
    char long_name[300];
    memset(long_name, 'x', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    char *line = cu_xasprintf("Collecting %s", long_name);
    assert_true(cu_pip_progress_line(&pp, line, &log_it));
    assert_int_equal(strlen(pp.package), sizeof(pp.package) - 1);
    free(line);
}

static void
test_stage_text(void **state)
{
    (void)state;
    struct cu_env_figures f = {0};
    char head[256], sofar[96], files[64];
    cu_env_figures_update(&f, "create", "tf", 0, 0, 0, 0);
    cu_env_figures_text(&f, head, sizeof(head), sofar, sizeof(sofar), files, sizeof(files));
    assert_string_equal(head, "Python environment: creating tf");
    assert_string_equal(sofar, "");
    cu_env_figures_update(&f, "pip-download", "tensorflow", 118800000, 475200000, 130000000, 3);
    cu_env_figures_text(&f, head, sizeof(head), sofar, sizeof(sofar), files, sizeof(files));
    assert_string_equal(head, "Python environment: pip downloads tensorflow, 25% of 475 MB");
    assert_string_equal(sofar, "130 MB downloaded by pip");
    assert_string_equal(files, "3 files");
    assert_true(cu_env_figures_frac(&f) > 0.24 && cu_env_figures_frac(&f) < 0.26);
    cu_env_figures_update(&f, "pip-download", "keras", 0, 1700000, 130000000, 4);
    cu_env_figures_text(&f, head, sizeof(head), sofar, sizeof(sofar), files, sizeof(files));
    assert_string_equal(head, "Python environment: pip downloads keras (1.7 MB)");
    assert_true(cu_env_figures_frac(&f) < 0);
    cu_env_figures_update(&f, "pip-install", "", 0, 0, 131700000, 1);
    cu_env_figures_text(&f, head, sizeof(head), sofar, sizeof(sofar), files, sizeof(files));
    assert_string_equal(head, "Python environment: pip installs 1 package");
    assert_string_equal(files, "");
}

static void
test_raw_progress_by_version(void **state)
{
    (void)state;
    assert_int_equal(cu_pip_version_key("24.1"), 2401);
    assert_int_equal(cu_pip_version_key("23.2.1"), 2302);
    assert_int_equal(cu_pip_version_key("x"), 0);
    char *dir = tu_tmpdir("pipprog");
    tu_write(dir, "env/bin/python", "");
    tu_write(dir, "env/lib/python3.11/site-packages/pip-23.2.1.dist-info/METADATA", "");
    char *py = cu_xasprintf("%s/env/bin/python", dir);
    assert_false(cu_pip_has_raw_progress(py));
    tu_write(dir, "env/lib/python3.11/site-packages/pip-24.1.dist-info/METADATA", "");
    assert_true(cu_pip_has_raw_progress(py));
    assert_false(cu_pip_has_raw_progress("python"));
    free(py);
    tu_tmpdir_free(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_download_with_raw_progress),
        cmocka_unit_test(test_sizes_and_names),
        cmocka_unit_test(test_stage_text),
        cmocka_unit_test(test_raw_progress_by_version),
    };
    return tu_run("pipprog", tests, CU_N_ELEMENTS(tests));
}
