/* SPDX-License-Identifier: MIT */
/*
 * The cliff of a GPU generation (issue 45 item 1): the last driver branch, CUDA, cuDNN and framework build that
 * serve a compute capability, computed from the catalog.  Each expectation names the data row it comes from;
 * the mutated catalogs show that the table follows the data, not the code.
 */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog/catalog.h"
#include "core/catalog/cliff.h"
#include "testutil.h"

static struct cu_version
ver(const char *s)
{
    struct cu_version v;
    assert_true(cu_version_parse(s, &v));
    return v;
}

static void
assert_ver(const struct cu_version *v, const char *want)
{
    char b[32];
    assert_string_equal(cu_version_format(v, 0, b, sizeof(b)), want);
}

static struct cu_catalog *
embedded(void)
{
    struct cu_catalog *cat = NULL;
    struct cu_error err;
    assert_ok(cu_catalog_load(NULL, &cat, &err), &err);
    return cat;
}

/* The catalog of data/catalog.json with @edit applied to its parsed document. */
static struct cu_catalog *
edited(void (*edit)(json_t *root))
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/data/catalog.json", getenv("SRCDIR"));
    char *text = tu_read(path);
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    free(text);
    assert_non_null(root);
    edit(root);
    char *out = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    struct cu_catalog *cat = NULL;
    struct cu_error err;
    assert_ok(cu_catalog_parse(out, strlen(out), "test", &cat, &err), &err);
    free(out);
    return cat;
}

/* The seed's GTX 970 (5.2) and a GTX 1080 (6.1). */
static void
maxwell_and_pascal(void **state)
{
    (void)state;
    struct cu_catalog *cat = embedded();
    struct cu_cliff c;
    struct cu_version cc = ver("5.2");
    cu_cliff_for(cat, &cc, &c);
    assert_true(cu_cliff_dropped(&c));
    assert_string_equal(c.generation, "Maxwell/Pascal/Volta");
    /* driver_generations.csv 5.0-7.2: branch_last 580; driver_branches.csv goes on to 615. */
    assert_true(c.driver.known && !c.driver.current);
    assert_ver(&c.driver.version, "580");
    assert_true(c.driver.newest.part[0] > 580);
    /* cuda_arch_support.csv: 13.0 dropped sm_50-sm_72, so 12.9 is the last; its newest release in the catalog (NVIDIA's manifests) is 12.9.2. */
    assert_true(c.cuda.known && !c.cuda.current);
    assert_ver(&c.cuda.version, "12.9");
    assert_ver(&c.cuda.release, "12.9.2");
    /* cudnn_support_matrix.csv: 9.10.2 (CUDA 12) lists 5.0 (all of Maxwell); 9.17.0 starts at 7.5. */
    assert_true(c.cudnn.known && !c.cudnn.current);
    assert_ver(&c.cudnn.version, "9.10.2");
    assert_int_equal(c.cudnn.major, 12);
    /* pytorch_gpu_code.csv: 2.15's builds start at sm_75; 2.14's cu126 has sm_50 (read). */
    const struct cu_cliff_part *t = cu_cliff_framework(&c, "pytorch");
    assert_true(t->known && !t->current && t->read);
    assert_ver(&t->version, "2.14");
    assert_string_equal(t->tag, "cu126");
    assert_ver(&t->release, "2.14.1"); /* framework_pypi_releases.csv: 2.14's newest */
    assert_ver(&t->newest, "2.15");
    /* tensorflow_gpu_code.csv: 2.16.1-2.16.2 has sm_50, 2.17.0 on starts at sm_60. */
    const struct cu_cliff_part *tf = cu_cliff_framework(&c, "tensorflow");
    assert_true(tf->known && !tf->current);
    assert_ver(&tf->version, "2.16.2");
    /* jax_gpu_code.csv: the cuda12 plugin has sm_50 up to 0.12.0.1; 0.12.1's cuda13 starts at sm_75. */
    const struct cu_cliff_part *j = cu_cliff_framework(&c, "jax");
    assert_true(j->known && !j->current);
    assert_ver(&j->version, "0.12.0.1");
    assert_int_equal(j->major, 12);
    char *s = cu_cliff_describe(&c, "GPU 0 (GeForce GTX 970, compute capability 5.2)");
    assert_non_null(s);
    assert_non_null(strstr(s, "driver branch 580"));
    assert_non_null(strstr(s, "PyTorch 2.14 (cu126, 2.14.1)"));
    assert_non_null(strstr(s, "TensorFlow 2.16.2"));
    assert_non_null(strstr(s, "cuDNN 9.10.2 for CUDA 12"));
    free(s);

    cc = ver("6.1");
    cu_cliff_for(cat, &cc, &c);
    assert_ver(&cu_cliff_framework(&c, "pytorch")->version, "2.14");
    /* TensorFlow 2.21.0, the newest, still has sm_60: not dropped. */
    tf = cu_cliff_framework(&c, "tensorflow");
    assert_true(tf->known && tf->current);
    s = cu_cliff_describe(&c, "GPU 0");
    assert_non_null(strstr(s, "Still current for it: TensorFlow 2.21.0"));
    assert_non_null(strstr(s, "TensorFlow"));
    free(s);
    cu_catalog_free(cat);
}

/* An RTX 4090 (8.9): every part's newest serves it, so there is no cliff to speak of. */
static void
ada_is_current(void **state)
{
    (void)state;
    struct cu_catalog *cat = embedded();
    struct cu_cliff c;
    struct cu_version cc = ver("8.9");
    cu_cliff_for(cat, &cc, &c);
    assert_false(cu_cliff_dropped(&c));
    assert_true(c.driver.current && c.cuda.current && c.cudnn.current);
    assert_null(cu_cliff_describe(&c, "GPU 0"));
    /* Kepler (3.0): driver_generations.csv 3.0-3.7 branch_last 470. */
    cc = ver("3.0");
    cu_cliff_for(cat, &cc, &c);
    assert_ver(&c.driver.version, "470");
    assert_false(cu_cliff_framework(&c, "pytorch")->known); /* no PyTorch build the catalog knows has sm_30 */
    cu_catalog_free(cat);
}

/* PyTorch 2.15's cu132 build given sm_60, and Pascal's last branch taken away: the table follows. */
static void
give_215_sm60(json_t *root)
{
    json_t *rows = json_object_get(json_object_get(root, "gpu_code"), "pytorch");
    size_t i;
    json_t *e;
    json_array_foreach (rows, i, e)
        if (strcmp(json_string_value(json_object_get(e, "torch")), "2.15") == 0 &&
            strcmp(json_string_value(json_object_get(e, "tag")), "cu132") == 0)
            json_array_insert_new(json_object_get(e, "sass"), 0, json_integer(60));
    json_t *gens = json_object_get(json_object_get(root, "driver"), "generations");
    json_array_foreach (gens, i, e)
        if (strcmp(json_string_value(json_object_get(e, "cc_min")), "5.0") == 0)
            json_object_set_new(e, "branch_last", json_null());
}

static void
follows_the_data(void **state)
{
    (void)state;
    struct cu_catalog *cat = edited(give_215_sm60);
    struct cu_cliff c;
    struct cu_version cc = ver("6.1");
    cu_cliff_for(cat, &cc, &c);
    const struct cu_cliff_part *t = cu_cliff_framework(&c, "pytorch");
    assert_true(t->known && t->current);
    assert_ver(&t->version, "2.15");
    assert_string_equal(t->tag, "cu132");
    assert_true(c.driver.current);
    cc = ver("5.2"); /* sm_60 does not run on 5.2: its cliff stays at 2.14 */
    cu_cliff_for(cat, &cc, &c);
    assert_ver(&cu_cliff_framework(&c, "pytorch")->version, "2.14");
    cu_catalog_free(cat);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(maxwell_and_pascal),
        cmocka_unit_test(ada_is_current),
        cmocka_unit_test(follows_the_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
