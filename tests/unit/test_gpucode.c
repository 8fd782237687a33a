/* SPDX-License-Identifier: MIT */
/* Which code of a framework build a GPU runs: NVIDIA's rule, at its edges. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/catalog/gpucode.h"
#include "testutil.h"

static struct cu_version
cc(const char *s)
{
    struct cu_version v;
    assert_true(cu_version_parse(s, &v));
    return v;
}

static enum cu_code_fit
fit(int *sass, size_t ns, int *ptx, size_t np, const char *c, int *target)
{
    struct cu_cat_code code = {.sass = sass, .n_sass = ns, .ptx = ptx, .n_ptx = np};
    struct cu_version v = cc(c);
    return cu_code_fit(&code, &v, target);
}

static void
sass_within_a_major(void **state)
{
    (void)state;
    int t;
    /* TensorFlow 2.18-2.20: sm_60;sm_70;sm_80;sm_89 + compute_90 (tensorflow .bazelrc @0071ad1d). */
    int tf_sass[] = {60, 70, 80, 89}, tf_ptx[] = {90};
    assert_int_equal(fit(tf_sass, 4, tf_ptx, 1, "8.6", &t), CU_CODE_SASS);
    assert_int_equal(t, 80); /* sm_80 runs on 8.6: same major, lower minor */
    assert_int_equal(fit(tf_sass, 4, tf_ptx, 1, "8.9", &t), CU_CODE_SASS);
    assert_int_equal(t, 89); /* the closest minor wins */
    assert_int_equal(fit(tf_sass, 4, tf_ptx, 1, "6.1", &t), CU_CODE_SASS);
    assert_int_equal(t, 60);
    /* sm_89 does not run on 9.0 (another major): only the PTX, by JIT. */
    assert_int_equal(fit(tf_sass, 4, tf_ptx, 1, "9.0", &t), CU_CODE_PTX);
    assert_int_equal(t, 90);
    assert_int_equal(fit(tf_sass, 4, tf_ptx, 1, "12.0", &t), CU_CODE_PTX);
    /* A GTX 970 (5.2): no sm_5x, and PTX compute_90 is above it. */
    assert_int_equal(fit(tf_sass, 4, tf_ptx, 1, "5.2", &t), CU_CODE_NONE);
    assert_int_equal(t, 0);
    /* SASS of a higher minor does not run on a lower one: sm_52 on a 5.0 GPU (tensorflow#46537). */
    int tf23[] = {35, 37, 52, 60, 61, 70}, tf23_ptx[] = {70};
    assert_int_equal(fit(tf23, 6, tf23_ptx, 1, "5.0", &t), CU_CODE_NONE);
    assert_int_equal(fit(tf23, 6, tf23_ptx, 1, "5.2", &t), CU_CODE_SASS);
    /* PyTorch 2.8 cu128: sm_70 and up, no PTX (pytorch build_cuda.sh @00c7a380): no code for 5.2 or 6.1. */
    int cu128[] = {70, 75, 80, 86, 90, 100, 120};
    assert_int_equal(fit(cu128, 7, NULL, 0, "5.2", &t), CU_CODE_NONE);
    assert_int_equal(fit(cu128, 7, NULL, 0, "6.1", &t), CU_CODE_NONE);
    assert_int_equal(fit(cu128, 7, NULL, 0, "12.0", &t), CU_CODE_SASS);
    assert_int_equal(t, 120);
    assert_int_equal(fit(cu128, 7, NULL, 0, "10.3", &t), CU_CODE_SASS);
    assert_int_equal(t, 100);
    assert_int_equal(fit(cu128, 7, NULL, 0, "11.0", &t), CU_CODE_NONE); /* Thor: no sm_110, no PTX */
}

static void
describe(void **state)
{
    (void)state;
    int sass[] = {60, 70, 80, 89}, ptx[] = {90};
    struct cu_cat_code code = {.sass = sass, .n_sass = 4, .ptx = ptx, .n_ptx = 1};
    char *s = cu_code_describe(&code);
    assert_string_equal(s, "sm_60, sm_70, sm_80, sm_89 and PTX compute_90");
    free(s);
    code.n_ptx = 0;
    s = cu_code_describe(&code);
    assert_string_equal(s, "sm_60, sm_70, sm_80 and sm_89");
    free(s);
    assert_string_equal(cu_code_fit_name(CU_CODE_PTX), "ptx-jit");
    struct cu_version v = cu_code_cc(120);
    assert_true(v.n == 2 && v.part[0] == 12 && v.part[1] == 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sass_within_a_major),
        cmocka_unit_test(describe),
    };
    return TU_RUN(tests);
}
