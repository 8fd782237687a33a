/* SPDX-License-Identifier: MIT */
/* pip's version specifiers as the frameworks' wheels write them (core/base/pipspec.c), with the real pins
 * of data/compat/framework_wheel_requires.csv: the sets that meet and the ones pip refuses. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/pipspec.h"
#include "testutil.h"

static struct cu_version
V(const char *s)
{
    struct cu_version v;
    assert_true(cu_version_parse(s, &v));
    return v;
}

static bool
meet2(const char *a, const char *b)
{
    struct cu_pipspec x, y;
    assert_true(cu_pipspec_parse(a, &x));
    assert_true(cu_pipspec_parse(b, &y));
    const struct cu_pipspec *two[2] = {&x, &y};
    return cu_pipspec_meet(two, 2);
}

static bool
has(const char *spec, const char *version)
{
    struct cu_pipspec s;
    assert_true(cu_pipspec_parse(spec, &s));
    struct cu_version v = V(version);
    return cu_pipspec_contains(&s, &v);
}

static void
parse_and_contain(void **state)
{
    (void)state;
    struct cu_pipspec s;
    assert_true(cu_pipspec_parse("", &s) && s.n == 0);
    assert_true(cu_pipspec_parse(NULL, &s) && s.n == 0);
    assert_true(cu_pipspec_parse("<10.0,>=9.3.0.75", &s) && s.n == 2);
    assert_true(has("<10.0,>=9.3.0.75", "9.10.2.21"));
    assert_false(has("<10.0,>=9.3.0.75", "9.1.0.70"));
    assert_false(has("<10.0,>=9.3.0.75", "10.0"));
    assert_true(has("==13.1.0.3.*", "13.1.0.3"));
    assert_false(has("==13.1.0.3.*", "13.1.0.4"));
    assert_true(has("==9.10.2.21", "9.10.2.21"));
    assert_true(has(">=9.8", "9.8.0.87"));
    assert_true(has("~=3.4", "3.9"));
    assert_false(has("~=3.4", "4.0"));
    assert_true(has("!=1.2", "1.3"));
    assert_int_equal(cu_pipver_cmp(&(struct cu_version){{9, 0}, 2}, &(struct cu_version){{9, 0, 0}, 3}), 0);
    /* What the frameworks' wheels never write is refused, not guessed. */
    assert_false(cu_pipspec_parse("===9.1", &s));
    assert_false(cu_pipspec_parse(">=9.*", &s));
    assert_false(cu_pipspec_parse("9.1", &s));
    assert_false(cu_pipspec_parse(">=9.1rc1", &s));
    assert_false(cu_pipspec_parse(">=", &s));
    assert_false(cu_pipspec_parse("~=3", &s));
}

static void
real_pins(void **state)
{
    (void)state;
    /* torch 2.10.0 with tensorflow[and-cuda] 2.21.0: NCCL, pip's ResolutionImpossible (resolutions.md). */
    assert_false(meet2("==2.27.5", "<3.0,>=2.27.7"));
    /* torch 2.10.0 with tensorflow[and-cuda] 2.20.0: one cuDNN, 9.10.2.21. */
    assert_true(meet2("==9.10.2.21", "<10.0,>=9.3.0.75"));
    /* torch 2.5.1 with jax[cuda12] 0.6.2: cuDNN 9.1.0.70 against >=9.8 (resolutions.md). */
    assert_false(meet2("==9.1.0.70", "<10.0,>=9.8"));
    /* TF 2.19.1 with jax 0.4.38: nvcc ==12.5.82 against >=12.6.85. */
    assert_false(meet2("==12.5.82", ">=12.6.85"));
    /* jax 0.4.26 (cuDNN <9) with TF 2.18 (==9.3.0.75). */
    assert_false(meet2("<9.0,>=8.9.2.26", "==9.3.0.75"));
    /* Two ranges: pip takes the newest both allow. */
    assert_true(meet2(">=2.18.1", "<3.0,>=2.25.1"));
    assert_false(meet2("<9.0", ">=9.0"));
    assert_true(meet2("<=9.0", ">=9.0"));
    /* torch 2.11's cuda-toolkit pins (a prefix) against jax[cuda13]'s range. */
    assert_true(meet2("==13.0.96.*", ">=13.0.48"));
    assert_false(meet2("==13.0.96.*", "==13.2.86.*"));
    assert_true(meet2("<=13.1.1.3,>=13.1.0.3", "==13.1.1.3.*"));
    /* The one release an exact pin names, for the constraints file. */
    struct cu_pipspec a, b;
    assert_true(cu_pipspec_parse("==9.10.2.21", &a) && cu_pipspec_parse("<10.0,>=9.8", &b));
    const struct cu_pipspec *two[2] = {&b, &a};
    struct cu_version v;
    bool prefix = true;
    assert_true(cu_pipspec_pinned(two, 2, &v, &prefix));
    assert_false(prefix);
    assert_int_equal(cu_pipver_cmp(&v, &(struct cu_version){{9, 10, 2, 21}, 4}), 0);
    const struct cu_pipspec *one[1] = {&b};
    assert_false(cu_pipspec_pinned(one, 1, &v, &prefix));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(parse_and_contain), cmocka_unit_test(real_pins)};
    return TU_RUN(tests);
}
