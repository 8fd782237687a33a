/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "core/manifest.h"
#include "testutil.h"

extern const unsigned char cu_catalog_json[];
extern const size_t cu_catalog_json_len;

static struct cu_catalog *
load(void)
{
    struct cu_catalog *cat = NULL;
    struct cu_error err;
    assert_ok(cu_catalog_load(NULL, &cat, &err), &err);
    return cat;
}

static struct cu_version
V(const char *s)
{
    struct cu_version v;
    assert_true(cu_version_parse(s, &v));
    return v;
}

static void
gpu_lookups(void **state)
{
    (void)state;
    struct cu_catalog *cat = load();
    const struct cu_cat_gpu *g = cu_catalog_gpu(cat, 0x2684);
    assert_non_null(g);
    assert_string_equal(g->name, "GeForce RTX 4090");
    struct cu_version cc = V("8.9");
    assert_int_equal(cu_version_cmp(&g->cc, &cc), 0);
    assert_string_equal(cu_catalog_arch_name(cat, &g->cc), "Ada Lovelace");
    g = cu_catalog_gpu(cat, 0x2335);
    assert_non_null(g);
    assert_string_equal(g->chip, "GH100");
    assert_null(cu_catalog_gpu(cat, 0xfffe));
    const struct cu_cat_product *p = cu_catalog_product(cat, "NVIDIA  h200");
    assert_non_null(p);
    assert_int_equal(p->cc.part[0], 9);
    assert_null(cu_catalog_product(cat, "NVIDIA Nonexistent 9000"));
    cu_catalog_free(cat);
}

static void
cuda_driver_table(void **state)
{
    (void)state;
    struct cu_catalog *cat = load();
    struct cu_version out, d;
    d = V("550.54.14");
    assert_true(cu_catalog_cuda_max_for_driver(cat, &d, &out));
    assert_int_equal(out.part[0], 12);
    assert_int_equal(out.part[1], 4);
    d = V("470.82.01");
    assert_true(cu_catalog_cuda_max_for_driver(cat, &d, &out));
    assert_int_equal(out.part[1], 4); /* 11.4 */
    d = V("300.0");
    assert_false(cu_catalog_cuda_max_for_driver(cat, &d, &out));
    struct cu_version v = V("12.8");
    assert_true(cu_catalog_cuda_min_driver(cat, &v, &out));
    struct cu_version want = V("570.26");
    assert_int_equal(cu_version_cmp(&out, &want), 0);
    v = V("12.8.1");
    assert_true(cu_catalog_cuda_min_driver(cat, &v, &out));
    want = V("570.124.06");
    assert_int_equal(cu_version_cmp(&out, &want), 0);
    cu_catalog_free(cat);
}

static void
arch_support(void **state)
{
    (void)state;
    struct cu_catalog *cat = load();
    struct cu_version cuda = V("13.0"), pascal = V("6.1"), hopper = V("9.0"), out;
    assert_int_equal(cu_catalog_cuda_supports_cc(cat, &cuda, &pascal), 0);
    assert_int_equal(cu_catalog_cuda_supports_cc(cat, &cuda, &hopper), 1);
    assert_true(cu_catalog_cuda_last_for_cc(cat, &pascal, &out));
    assert_int_equal(out.part[0], 12);
    assert_int_equal(out.part[1], 9);
    struct cu_version blackwell = V("12.0");
    assert_true(cu_catalog_cuda_first_for_cc(cat, &blackwell, &out));
    assert_int_equal(out.part[1], 8);
    struct cu_version kepler30 = V("3.0");
    assert_false(cu_catalog_cuda_last_for_cc(cat, &kepler30, &out));
    cu_catalog_free(cat);
}

static void
cudnn_rows(void **state)
{
    (void)state;
    struct cu_catalog *cat = load();
    struct cu_version v = V("9.14.0");
    const struct cu_cat_cudnn_support *s = cu_catalog_cudnn_support(cat, &v, 12);
    assert_non_null(s);
    struct cu_version row = V("9.10.2");
    assert_int_equal(cu_version_cmp(&s->cudnn, &row), 0);
    assert_int_equal(s->n_cc_needs, 2);
    v = V("9.17.1");
    s = cu_catalog_cudnn_support(cat, &v, 13);
    assert_non_null(s);
    assert_int_equal(s->cc[0].part[0], 7); /* Turing and newer only */
    const struct cu_cat_cudnn *c = cu_catalog_cudnn(cat, &(struct cu_version){{9, 14, 0, 64}, 4});
    assert_non_null(c);
    assert_true(c->variants_known);
    assert_string_equal(c->variants_x86_64[0], "12");
    cu_catalog_free(cat);
}

static void
malformed(void **state)
{
    (void)state;
    struct cu_catalog *cat = NULL;
    struct cu_error err;
    const char *cases[] = {
        "", "[]", "{\"schema\": 2}", "{\"schema\": 1}", "{\"schema\": 1, \"pci\": {\"2684\": 1}}",
        "\xef\xbb\xbf{}", "{\"schema\": 1, \"schema\": 1}",
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_status(cu_catalog_parse(cases[i], strlen(cases[i]), "test", &cat, &err), CU_E_INPUT,
                      &err);
        assert_null(cat);
        assert_true(strstr(err.msg, "test") != NULL);
    }
}

static void
frameworks(void **state)
{
    (void)state;
    struct cu_catalog *cat = load();
    assert_true(cat->n_tf > 10);
    assert_int_equal(cat->tf[cat->n_tf - 1].version.part[0], 1);
    bool found = false;
    for (size_t i = 0; i < cat->n_tf; i++) {
        struct cu_version v = V("1.14.0");
        if (cu_version_cmp(&cat->tf[i].version, &v) == 0) {
            found = true;
            assert_int_equal(cat->tf[i].cuda.part[0], 10);
            assert_string_equal(cat->tf[i].package, "tensorflow_gpu");
        }
    }
    assert_true(found);
    assert_true(cat->n_torch > 5);
    assert_true(cat->torch[0].n_builds >= 2);
    assert_int_equal(cat->n_jax, 2);
    assert_int_equal(cat->jax[0].cuda_major, 13);
    assert_non_null(cu_catalog_component_group(cat, "math"));
    assert_true(cu_catalog_component_never(cat, "nvidia_driver"));
    cu_catalog_free(cat);
}

/* ---- every field of the catalog, mutated: a clear refusal or values within bounds, never a crash ---- */

struct mut {
    json_t *root;
    size_t tried, refused;
};

static void
try_doc(json_t *root, void *ud)
{
    struct mut *m = ud;
    char *text = json_dumps(root, JSON_COMPACT);
    struct cu_catalog *cat = NULL;
    struct cu_error err;
    enum cu_status st = cu_catalog_parse(text, strlen(text), "mutant", &cat, &err);
    m->tried++;
    if (st != CU_OK) {
        /* Refused: as bad input, with one sentence that says where. */
        assert_int_equal(st, CU_E_INPUT);
        assert_null(cat);
        assert_non_null(strstr(err.msg, "mutant"));
        m->refused++;
    } else {
        for (size_t i = 0; i < cat->n_cuda; i++)
            assert_true(cat->cuda[i].version.n >= 2 && cat->cuda[i].version.n <= 4);
        for (size_t i = 0; i < cat->n_gpus; i++)
            assert_true(cat->gpus[i].cc.n == 0 || cat->gpus[i].cc.n == 2);
        for (size_t i = 0; i < cat->n_pythons; i++)
            assert_true(cat->pythons[i].version.n == 3 && cu_sha256_hex_ok(cat->pythons[i].sha256) &&
                        !strchr(cat->pythons[i].file, '/'));
        for (size_t i = 0; i < cat->n_cudnn; i++)
            assert_true(cat->cudnn[i].version.n >= 2);
        cu_catalog_free(cat);
    }
    free(text);
}

/* The built-in catalog, each big table cut to a few rows, so that thousands of mutants parse fast. */
static json_t *
small_catalog(void)
{
    json_error_t je;
    json_t *root = json_loadb((const char *)cu_catalog_json, cu_catalog_json_len, 0, &je);
    assert_non_null(root);
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (json_is_array(val)) {
            while (json_array_size(val) > 3)
                json_array_remove(val, json_array_size(val) - 1);
        } else if (json_is_object(val) && json_object_size(val) > 12) {
            void *tmp;
            size_t kept = 0;
            const char *k2;
            json_t *v2;
            json_object_foreach_safe(val, tmp, k2, v2) {
                if (kept++ >= 3)
                    json_object_del(val, k2);
            }
        }
    }
    return root;
}

static void
every_field_mutated(void **state)
{
    (void)state;
    struct mut m = {small_catalog(), 0, 0};
    try_doc(m.root, &m);
    assert_int_equal(m.refused, 0); /* the trimmed catalog itself is good */
    tu_mutate_json(m.root, 32, try_doc, &m);
    printf("# %zu mutants of the catalog: %zu refused, %zu parsed within bounds\n", m.tried, m.refused, m.tried - m.refused);
    /* Many mutants must be refused (a catalog is checked), and some pass (optional fields exist). */
    assert_true(m.tried > 500);
    assert_true(m.refused > m.tried / 4);
    assert_true(m.refused < m.tried);
    json_decref(m.root);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_lookups), cmocka_unit_test(cuda_driver_table),
        cmocka_unit_test(arch_support), cmocka_unit_test(cudnn_rows),
        cmocka_unit_test(malformed),    cmocka_unit_test(frameworks),
        cmocka_unit_test(every_field_mutated),
    };
    return TU_RUN(tests);
}
