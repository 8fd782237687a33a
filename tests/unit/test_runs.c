/* SPDX-License-Identifier: MIT */
/*
 * Does a driver run a CUDA release (core/resolve/runs.c), and do the resolver and verify agree on it
 * (issue 49 item 2): what a plan takes, natively or by NVIDIA's minor-version compatibility, verify's driver
 * check passes, with the limit said; what it refuses, verify fails, with a fix that changes something.
 */
#include "config.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/catalog/catalog.h"
#include "core/machine/sysinfo.h"
#include "core/resolve/resolve.h"
#include "core/resolve/runs.h"
#include "core/verify/checks.h"
#include "core/verify/verify.h"
#include "core/verify/verify_int.h"
#include "testutil.h"

static struct cu_version
ver(const char *s)
{
    struct cu_version v;
    assert_true(cu_version_parse(s, &v));
    return v;
}

static char *
vs(const struct cu_version *v, char *buf)
{
    return cu_driver_version_format(v, buf, 32);
}

static enum cu_runs
runs(const struct cu_catalog *cat, const char *driver, const char *cuda_max, const char *cuda, struct cu_runs_how *how)
{
    struct cu_version d = {{0}, 0}, m = {{0}, 0}, c = ver(cuda);
    if (driver)
        d = ver(driver);
    if (cuda_max)
        m = ver(cuda_max);
    return cu_driver_runs_cuda(cat, driver ? &d : NULL, cuda_max ? &m : NULL, &c, how);
}

/* The rule itself, on the embedded catalog's facts (NVIDIA's driver table and the cuda_major floors). */
static void
rule(void **state)
{
    const struct cu_catalog *cat = *state;
    struct cu_runs_how how;
    char b[32];
    /* The seed's case: 12.9 on 535 by minor-version compatibility (12.x on 525.60.13 or newer); natively 575.57.08. */
    assert_int_equal(runs(cat, "535.183.01", NULL, "12.9.1", &how), CU_RUNS_COMPAT);
    assert_string_equal(vs(&how.floor, b), "525.60.13");
    assert_string_equal(vs(&how.native, b), "575.57.08");
    assert_string_equal(cu_version_format(&how.own, 2, b, sizeof(b)), "12.2");
    assert_false(how.inferred);
    /* NVIDIA's table decides "natively", as the resolver plans: 12.4.1 needs 550.54.15 though 550.54.14 says CUDA
     * 12.4; it runs by compatibility.  The driver's word names its own CUDA in the limit. */
    assert_int_equal(runs(cat, "535.183.01", "12.2", "12.9.1", &how), CU_RUNS_COMPAT);
    assert_int_equal(runs(cat, "550.54.14", "12.4", "12.4.0", &how), CU_RUNS_NATIVE);
    assert_int_equal(runs(cat, "550.54.14", "12.4", "12.4.1", &how), CU_RUNS_COMPAT);
    assert_string_equal(vs(&how.native, b), "550.54.15");
    assert_int_equal(runs(cat, "580.95.05", "13.0", "12.6.3", &how), CU_RUNS_NATIVE);
    assert_int_equal(runs(cat, "580.95.05", NULL, "12.6", &how), CU_RUNS_NATIVE);
    /* Never across a major. */
    assert_int_equal(runs(cat, "470.82.01", "11.4", "12.6.3", &how), CU_RUNS_NOT);
    assert_string_equal(vs(&how.floor, b), "525.60.13");
    assert_int_equal(runs(cat, "550.54.14", "12.4", "13.0.2", &how), CU_RUNS_NOT);
    assert_string_equal(vs(&how.floor, b), "580.65.06");
    /* CUDA 13.4: no source gives its native driver; by compatibility on a 13 driver, inferred. */
    assert_true(cu_catalog_cuda_floor_unknown(cat, &(struct cu_version){{13, 4, 2}, 3}));
    assert_int_equal(runs(cat, "595.71.05", "13.2", "13.4.2", &how), CU_RUNS_COMPAT);
    assert_true(how.inferred);
    assert_int_equal(how.native.n, 0);
    assert_int_equal(runs(cat, "550.54.14", "12.4", "13.4.2", &how), CU_RUNS_NOT);
    /* A driver that says it runs 13.4 runs it, whatever the table lacks. */
    assert_int_equal(runs(cat, "615.20.01", "13.4", "13.4.2", &how), CU_RUNS_NATIVE);
    /* A driver whose version is unread: only its CUDA speaks; compatibility never crosses a major. */
    assert_int_equal(runs(cat, NULL, "11.4", "12.6.3", &how), CU_RUNS_NOT);
    assert_int_equal(runs(cat, NULL, "12.2", "12.6.3", &how), CU_RUNS_UNKNOWN);

    /* The limit, as plan and verify say it. */
    assert_int_equal(runs(cat, "535.183.01", "12.2", "12.9.1", &how), CU_RUNS_COMPAT);
    CU_AUTOFREE char *lim = cu_runs_limit(&how, &(struct cu_version){{12, 9}, 2});
    assert_non_null(strstr(lim, "cannot JIT-compile PTX newer than its own CUDA 12.2"));
    assert_non_null(strstr(lim, "driver 575.57.08 or newer"));
    assert_int_equal(runs(cat, "595.71.05", "13.2", "13.4.2", &how), CU_RUNS_COMPAT);
    CU_AUTOFREE char *lim2 = cu_runs_limit(&how, &(struct cu_version){{13, 4}, 2});
    assert_non_null(strstr(lim2, "the driver of CUDA 13.4, which no source cudaup has read names"));
}

/* verify's driver check of an install of CUDA @cuda on driver @driver (it reports @cuda_max). */
static struct cu_check
verify_driver(const struct cu_catalog *cat, const char *driver, const char *cuda_max, const struct cu_version *cuda)
{
    struct cu_facts f;
    memset(&f, 0, sizeof(f));
    f.driver.kind = CU_DRIVER_NVIDIA;
    f.driver.version = ver(driver);
    if (cuda_max)
        f.driver.cuda_max = ver(cuda_max);
    struct cu_cuda_install in;
    memset(&in, 0, sizeof(in));
    in.version = *cuda;
    struct cu_verify_opts o = {.facts = &f, .cat = cat};
    struct cu_checks out = {0};
    cu_verify_check_driver(&o, &in, &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0].name, "driver");
    struct cu_check c = out.v[0];
    memset(&out.v[0], 0, sizeof(out.v[0]));
    cu_checks_fini(&out);
    return c;
}

static void
check_free(struct cu_check *c)
{
    free(c->name);
    free(c->detail);
    free(c->fact);
    free(c->fix);
}

/* verify's sentences: a pass by compatibility with its limit, the inferred 13.4, a failure whose fix pins the CUDA. */
static void
verify_says(void **state)
{
    const struct cu_catalog *cat = *state;
    struct cu_version v129 = ver("12.9.1"), v126 = ver("12.6.3"), v134 = ver("13.4.2");
    /* It failed: "runs CUDA up to 12.2, but this install is 12.9; it needs driver 575.57.08". */
    struct cu_check c = verify_driver(cat, "535.183.01", "12.2", &v129);
    assert_int_equal(c.status, CU_CHECK_PASS);
    assert_non_null(strstr(c.detail, "minor-version compatibility"));
    assert_non_null(strstr(c.detail, "cannot JIT-compile PTX newer than its own CUDA 12.2"));
    check_free(&c);
    /* The H100 on 550 (it failed with exit 4 while every GPU check passed). */
    c = verify_driver(cat, "550.54.14", "12.4", &v129);
    assert_int_equal(c.status, CU_CHECK_PASS);
    check_free(&c);
    c = verify_driver(cat, "595.71.05", "13.2", &v134);
    assert_int_equal(c.status, CU_CHECK_PASS);
    assert_non_null(strstr(c.detail, "inferred: no source cudaup has read gives the driver CUDA 13.4 needs natively"));
    check_free(&c);
    c = verify_driver(cat, "470.82.01", "11.4", &v126);
    assert_int_equal(c.status, CU_CHECK_FAIL);
    assert_non_null(strstr(c.detail, "525.60.13 or newer by NVIDIA's minor-version compatibility"));
    /* The fix pins the CUDA: unpinned, --driver auto keeps the driver and plans an older CUDA (no change here). */
    assert_non_null(c.fix);
    assert_non_null(strstr(c.fix, "cudaup plan --cuda 12.6 --driver auto"));
    check_free(&c);
}

/* ---- the resolver and verify on the same facts ---- */

struct memsrc {
    char *labels[2][64];
    size_t n[2];
    struct cu_manifest *m[2][64];
};

static enum cu_status
ms_index(void *ctx, enum cu_product p, char *const **labels, size_t *n, struct cu_error *err)
{
    (void)err;
    struct memsrc *s = ctx;
    *labels = s->labels[p];
    *n = s->n[p];
    return CU_OK;
}

static enum cu_status
ms_get(void *ctx, enum cu_product p, const char *label, const struct cu_manifest **out, struct cu_error *err)
{
    struct memsrc *s = ctx;
    for (size_t i = 0; i < s->n[p]; i++) {
        if (strcmp(s->labels[p][i], label) != 0)
            continue;
        if (!s->m[p][i]) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/tests/fixtures/nvidia/%s/redist/redistrib_%s.json", getenv("SRCDIR"),
                     p ? "cudnn" : "cuda", label);
            char *data = tu_read(path);
            assert_non_null(data);
            enum cu_status st = cu_manifest_parse(p, label, data, strlen(data), &s->m[p][i], err);
            free(data);
            if (st != CU_OK)
                return st;
        }
        *out = s->m[p][i];
        return CU_OK;
    }
    return cu_error_set(err, CU_E_NOT_FOUND, 0, "no %s", label);
}

static int
desc(const void *a, const void *b)
{
    return cu_version_strcmp(*(char *const *)b, *(char *const *)a);
}

static void
memsrc_load(struct memsrc *s)
{
    for (int p = 0; p < 2; p++) {
        char dir[4096];
        snprintf(dir, sizeof(dir), "%s/tests/fixtures/nvidia/%s/redist", getenv("SRCDIR"), p ? "cudnn" : "cuda");
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *de;
        while ((de = readdir(d)))
            if (strncmp(de->d_name, "redistrib_", 10) == 0 && s->n[p] < 64)
                s->labels[p][s->n[p]++] = strndup(de->d_name + 10, strlen(de->d_name) - 15);
        closedir(d);
        qsort(s->labels[p], s->n[p], sizeof(char *), desc);
    }
}

/* One plan on driver @drv (reporting @cuda_max) and its check: a plan the resolver makes, verify's driver check
 * of its install passes; where it rests on minor-version compatibility, the plan warns with verify's limit.
 * Returns 0: no plan, 1: a plan natively, 2: a plan by compatibility. */
static int
agree_one(const struct cu_catalog *cat, struct cu_manifest_source *ms, const char *drv, const char *cuda_max,
          struct cu_wishes w)
{
    struct cu_facts *f = cu_xcalloc(1, sizeof(*f));
    snprintf(f->os.machine, sizeof(f->os.machine), "x86_64");
    f->gpus = cu_xcalloc(2, sizeof(*f->gpus));
    f->gpus[0].name = cu_xstrdup("H100");
    f->gpus[0].source = cu_xstrdup("test");
    f->gpus[0].cc = ver("9.0");
    f->n_gpus = 1;
    f->driver.kind = CU_DRIVER_NVIDIA;
    f->driver.version = ver(drv);
    f->driver.cuda_max = ver(cuda_max);
    struct cu_resolve_in in = {f, cat, &w, ms, "/opt/p"};
    struct cu_plan *p = NULL;
    struct cu_error err;
    cu_error_clear(&err);
    int planned = 0;
    if (cu_resolve(&in, &p, &err) == CU_OK) {
        bool compat;
        struct cu_check c = verify_driver(cat, drv, cuda_max, &p->cuda);
        if (c.status == CU_CHECK_FAIL)
            print_error("driver %s, --cuda %s --framework %s: the plan takes CUDA %u.%u, and verify says: %s\n", drv,
                        w.cuda ? w.cuda : "auto", w.framework ? w.framework : "(default)", p->cuda.part[0],
                        p->cuda.part[1], c.detail);
        assert_int_not_equal(c.status, CU_CHECK_FAIL);
        compat = strstr(c.detail, "minor-version compatibility") != NULL;
        if (compat) {
            bool said = false;
            for (size_t k = 0; k < p->warnings.n; k++)
                said = said || strstr(p->warnings.v[k], "cannot JIT-compile PTX newer than its own CUDA") != NULL;
            assert_true(said);
        }
        planned = compat ? 2 : 1;
        check_free(&c);
    }
    cu_plan_free(p);
    cu_facts_free(f);
    return planned;
}

/*
 * The resolver and verify on the same facts, on drivers of four branches (each reporting its CUDA as NVML does):
 * every plan the resolver makes, by default, for each framework and for each CUDA release on the fixture mirror
 * pinned, verify's driver check of its install passes.  The seed's default plan took CUDA 12.9 on 535 by
 * minor-version compatibility, and verify failed the install with a fix that planned no change.
 */
static void
plan_and_verify_agree(void **state)
{
    const struct cu_catalog *cat = *state;
    static const char *const drivers[][2] = {
        {"470.82.01", "11.4"}, {"535.183.01", "12.2"}, {"550.54.14", "12.4"}, {"580.95.05", "13.0"}};
    static const char *const frameworks[] = {NULL, "tensorflow", "pytorch", "jax", "none"};
    struct memsrc src;
    memset(&src, 0, sizeof(src));
    memsrc_load(&src);
    struct cu_manifest_source ms = {&src, "https://mirror.test/compute", ms_index, ms_get, NULL};
    size_t n[3] = {0};
    for (size_t d = 0; d < CU_N_ELEMENTS(drivers); d++) {
        for (size_t k = 0; k < CU_N_ELEMENTS(frameworks); k++)
            n[agree_one(cat, &ms, drivers[d][0], drivers[d][1],
                        (struct cu_wishes){.framework = frameworks[k], .cudnn = "none"})]++;
        for (size_t i = 0; i < src.n[0]; i++)
            for (size_t k = 0; k < CU_N_ELEMENTS(frameworks); k++)
                n[agree_one(cat, &ms, drivers[d][0], drivers[d][1],
                            (struct cu_wishes){.cuda = src.labels[0][i], .framework = frameworks[k], .cudnn = "none"})]++;
    }
    print_message("# %zu refused, %zu planned natively, %zu by minor-version compatibility\n", n[0], n[1], n[2]);
    /* TensorFlow 2.21 on 535 and 550 takes CUDA 12.9 by compatibility: the case is exercised, and not alone. */
    assert_true(n[2] >= 2 && n[1] >= 10);
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < src.n[p]; i++) {
            free(src.labels[p][i]);
            cu_manifest_free(src.m[p][i]);
        }
}

static int
setup(void **state)
{
    struct cu_catalog *cat;
    struct cu_error err;
    if (cu_catalog_load(NULL, &cat, &err) != CU_OK)
        return -1;
    *state = cat;
    return 0;
}

static int
teardown(void **state)
{
    cu_catalog_free(*state);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(rule, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_says, setup, teardown),
        cmocka_unit_test_setup_teardown(plan_and_verify_agree, setup, teardown),
    };
    return TU_RUN(tests);
}
