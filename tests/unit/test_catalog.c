/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog/catalog.h"
#include "core/catalog/catalog_loads.h"
#include "core/catalog/catalog_pins.h"
#include "core/catalog/cudnn_matrix.h"
#include "core/catalog/manifest.h"
#include "core/resolve/plan.h"
#include "core/base/str.h"
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

static const char *
vs(const struct cu_version *v)
{
    static char buf[32];
    return cu_version_format(v, 0, buf, sizeof(buf));
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
    /* Kepler 3.0: dropped by CUDA 11.0 (the arch table), built for by the 10.x runfiles (data/legacy/cuda_runfiles.csv:
     * 10.2.89 lists sm 30), so 10.2 is its last and 10.0 the first of a Turing 7.5 too. */
    struct cu_version kepler30 = V("3.0"), turing = V("7.5"), cuda102 = V("10.2.89");
    assert_true(cu_catalog_cuda_last_for_cc(cat, &kepler30, &out));
    assert_string_equal(vs(&out), "10.2");
    assert_int_equal(cu_catalog_cuda_supports_cc(cat, &cuda102, &kepler30), 1);
    assert_int_equal(cu_catalog_cuda_supports_cc(cat, &cuda102, &blackwell), 0);
    assert_true(cu_catalog_cuda_first_for_cc(cat, &turing, &out));
    assert_string_equal(vs(&out), "10.0");
    struct cu_version cuda92 = V("9.2");
    assert_int_equal(cu_catalog_cuda_supports_cc(cat, &cuda92, &turing), -1); /* neither table nor runfile knows it */
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

/* The built-in catalog with its cuDNN support matrix replaced by @rows (a JSON array). */
static struct cu_catalog *
with_matrix(const char *rows)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/data/catalog.json", getenv("SRCDIR"));
    char *text = tu_read(path);
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    free(text);
    assert_non_null(root);
    json_t *m = json_loads(rows, 0, &je);
    assert_non_null(m);
    json_object_set_new(root, "cudnn_support", m);
    char *out = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    struct cu_catalog *cat = NULL;
    struct cu_error err;
    assert_ok(cu_catalog_parse(out, strlen(out), "test", &cat, &err), &err);
    free(out);
    return cat;
}

/*
 * A release without a matrix of its own, between two that were read: the newer one decides (issue 34).
 * Made-up rows: 9.0.0 lists Maxwell to Hopper, 9.10.0 Turing to Blackwell.
 */
static void
cudnn_neighbours(void **state)
{
    (void)state;
    struct cu_catalog *cat = with_matrix(
        "[{\"cc\": [\"7.5\", \"8.0\", \"8.6\", \"8.9\", \"9.0\", \"10.0\", \"12.0\"], \"cuda\": [\"12.8\"], \"cuda_major\": \"12\","
        "  \"cudnn\": \"9.10.0\", \"driver\": \"525.60.13\"},"
        " {\"cc\": [\"5.0\", \"6.0\", \"6.1\", \"7.0\", \"7.5\", \"8.0\", \"8.6\", \"8.9\", \"9.0\"], \"cuda\": [\"12.3\"],"
        "  \"cuda_major\": \"12\", \"cudnn\": \"9.0.0\", \"driver\": \"525.60.13\"}]");
    struct cu_version v95 = V("9.5.1"), v8 = V("8.9.7"), v912 = V("9.12.0"), blackwell = V("12.0"), pascal = V("6.1"),
                      ampere = V("8.6");
    const struct cu_cat_cudnn_support *against = NULL;
    /* Listed by the newer neighbour only: not refused on the strength of the older matrix. */
    assert_int_equal(cu_catalog_cudnn_lists(cat, &v95, 12, &blackwell, &against), 1);
    /* Listed by the older only: the newer dropped it, so the release is not given the GPU. */
    assert_int_equal(cu_catalog_cudnn_lists(cat, &v95, 12, &pascal, &against), 0);
    assert_string_equal(vs(&against->cudnn), "9.10.0");
    assert_int_equal(cu_catalog_cudnn_lists(cat, &v95, 12, &ampere, NULL), 1);
    /* One neighbour only: that one judges. */
    assert_int_equal(cu_catalog_cudnn_lists(cat, &v8, 12, &pascal, NULL), 1);
    assert_int_equal(cu_catalog_cudnn_lists(cat, &v912, 12, &pascal, &against), 0);
    assert_string_equal(vs(&against->cudnn), "9.10.0");
    assert_int_equal(cu_catalog_cudnn_lists(cat, &v8, 11, &pascal, NULL), -1);
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

/* The line an install gives the user to try is a call the installed release has (issue 35, item 1):
 * TensorFlow 1.14 has no tf.config.list_physical_devices (2.1+). */
static void
gpu_check_lines(void **state)
{
    (void)state;
    struct cu_catalog *cat = load();
    const struct cu_catalog_gpu_checks *g = &cat->gpu_checks;
    char *l = cu_framework_try_line(g, "tensorflow", "1.14.0");
    assert_non_null(l);
    assert_string_equal(l, "python -c 'import tensorflow as tf; print(tf.test.is_gpu_available(cuda_only=True))'");
    free(l);
    l = cu_framework_try_line(g, "tensorflow", "2.0.1"); /* 2.0 has neither in tf.config outside experimental */
    assert_non_null(strstr(l, "is_gpu_available"));
    free(l);
    l = cu_framework_try_line(g, "tensorflow", "2.1.0");
    assert_non_null(strstr(l, "tf.config.list_physical_devices(\"GPU\")"));
    free(l);
    l = cu_framework_try_line(g, "tensorflow", NULL); /* the newest */
    assert_non_null(strstr(l, "tf.config.list_physical_devices"));
    free(l);
    l = cu_framework_try_line(g, "pytorch", "2.5.1");
    assert_string_equal(l, "python -c 'import torch; print(torch.cuda.is_available())'");
    free(l);
    l = cu_framework_try_line(g, "jax", "0.4.30");
    assert_non_null(strstr(l, "jax.devices()"));
    free(l);
    assert_null(cu_framework_try_line(g, "caffe", "1.0"));
    assert_null(cu_framework_try_line(NULL, "pytorch", NULL));
    cu_catalog_free(cat);
    /* A row whose statement would end the shell's single quotes is refused. */
    json_t *root = json_loadb((const char *)cu_catalog_json, cu_catalog_json_len, 0, NULL);
    json_object_set_new(json_array_get(json_object_get(root, "gpu_check"), 0), "python",
                        json_string("import os; os.system('rm -rf ~')"));
    char *text = json_dumps(root, 0);
    struct cu_catalog_gpu_checks bad;
    struct cu_error err;
    json_t *again = json_loads(text, 0, NULL);
    assert_int_equal(cu_catalog_gpu_checks_parse(again, "test", &bad, &err), CU_E_INPUT);
    json_decref(again);
    free(text);
    json_decref(root);
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
                        !strchr(cat->pythons[i].file, '/') && cat->pythons[i].layout &&
                        cu_str_has_suffix(cat->pythons[i].file, cat->pythons[i].zstd ? ".tar.zst" : ".tar.gz"));
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
        } else if (json_is_object(val) && json_object_size(val) <= 12) {
            /* A table of tables (the driver's): three rows of each carry every field too. */
            const char *k2;
            json_t *v2;
            json_object_foreach(val, k2, v2) {
                while (json_is_array(v2) && json_array_size(v2) > 3)
                    json_array_remove(v2, json_array_size(v2) - 1);
            }
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

/* Parse @root with pythons[0] changed by @key = @val (NULL: removed); the status. */
static enum cu_status
python_variant(json_t *root, const char *key, json_t *val, struct cu_catalog **out)
{
    json_t *copy = json_deep_copy(root);
    json_t *py = json_array_get(json_object_get(copy, "pythons"), 0);
    if (val)
        json_object_set_new(py, key, val);
    else
        json_object_del(py, key);
    char *text = json_dumps(copy, JSON_COMPACT);
    struct cu_error err;
    enum cu_status st = cu_catalog_parse(text, strlen(text), "variant", out, &err);
    if (st != CU_OK)
        assert_non_null(strstr(err.msg, "pythons[0]"));
    free(text);
    json_decref(copy);
    return st;
}

/* data/python's 3.7.9 (the "full" .tar.zst) beside shared/data's install_only 3.8+; the fields checked. */
static void
python_layouts(void **state)
{
    (void)state;
    struct cu_catalog *cat = load();
    struct cu_version v37 = V("3.7"), v311 = V("3.11");
    const struct cu_cat_python *p = cu_catalog_python(cat, &v37, "x86_64");
    assert_non_null(p);
    assert_string_equal(p->layout, "full");
    assert_true(p->zstd);
    assert_int_equal(p->size, 28357634);
    assert_string_equal(p->sha256, "c6d6256d13e929e77e7ee6e53470fe63ad19d173fee6d56bb1b2dbda67081543");
    assert_string_equal(p->file, "cpython-3.7.9-x86_64-unknown-linux-gnu-pgo-20200823T0036.tar.zst");
    assert_null(cu_catalog_python(cat, &v37, "aarch64")); /* python-build-standalone made none */
    p = cu_catalog_python(cat, &v311, "x86_64");
    assert_non_null(p);
    assert_string_equal(p->layout, "install_only");
    assert_false(p->zstd);
    assert_int_equal(p->size, 0); /* uv's table gives no size */
    cu_catalog_free(cat);

    /* An older catalog without the fields: install_only, gzip, no size.  Wrong ones: refused. */
    json_t *root = small_catalog();
    json_t *py = json_array_get(json_object_get(root, "pythons"), 0);
    json_object_del(py, "layout");
    json_object_del(py, "compression");
    json_object_del(py, "size");
    cat = NULL;
    assert_int_equal(python_variant(root, "size", json_null(), &cat), CU_OK);
    assert_string_equal(cat->pythons[0].layout, "install_only");
    assert_false(cat->pythons[0].zstd);
    assert_int_equal(cat->pythons[0].size, 0);
    cu_catalog_free(cat);
    cat = NULL;
    assert_int_equal(python_variant(root, "size", json_integer(1234), &cat), CU_OK);
    assert_int_equal(cat->pythons[0].size, 1234);
    cu_catalog_free(cat);
    cat = NULL;
    assert_int_equal(python_variant(root, "layout", json_string("flat"), &cat), CU_E_INPUT);
    assert_int_equal(python_variant(root, "compression", json_string("xz"), &cat), CU_E_INPUT);
    /* the reader follows the compression, the mirror the file name: a .tar.gz said to be zstd is refused */
    assert_int_equal(python_variant(root, "compression", json_string("zstd"), &cat), CU_E_INPUT);
    assert_int_equal(python_variant(root, "size", json_integer(-5), &cat), CU_E_INPUT);
    assert_int_equal(python_variant(root, "size", json_string("28357634"), &cat), CU_E_INPUT);
    assert_null(cat);
    json_decref(root);
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

/* The Pythons each JAX release has wheels for (data/compat/jax_python.csv), a post-release included. */
static void
jax_pythons(void **state)
{
    (void)state;
    struct cu_catalog *cat = load();
    struct cu_version lo, hi;
    assert_true(cu_catalog_jax_python(&cat->pip, &(struct cu_version){{0, 12, 0, 1}, 4}, &lo, &hi));
    assert_string_equal(vs(&lo), "3.12");
    assert_string_equal(vs(&hi), "3.15");
    assert_true(cu_catalog_jax_python(&cat->pip, &(struct cu_version){{0, 4, 37}, 3}, &lo, &hi));
    assert_string_equal(vs(&lo), "3.10");
    assert_string_equal(vs(&hi), "3.13");
    assert_true(cu_catalog_jax_python(&cat->pip, &(struct cu_version){{0, 10, 2}, 3}, &lo, &hi));
    assert_string_equal(vs(&lo), "3.11");
    assert_false(cu_catalog_jax_python(&cat->pip, &(struct cu_version){{0, 3, 25}, 3}, &lo, &hi));
    assert_false(cu_catalog_jax_python(&cat->pip, &(struct cu_version){{0}, 0}, &lo, &hi));
    cu_catalog_free(cat);
}

/* Parse the built-in catalog with @key's first row changed by @field = @val; the status. */
static enum cu_status
pins_variant(const char *key, const char *field, json_t *val)
{
    json_error_t je;
    json_t *root = json_loadb((const char *)cu_catalog_json, cu_catalog_json_len, 0, &je);
    assert_non_null(root);
    json_object_set_new(json_array_get(json_object_get(root, key), 0), field, val);
    char *text = json_dumps(root, JSON_COMPACT);
    struct cu_catalog *cat = NULL;
    struct cu_error err;
    enum cu_status st = cu_catalog_parse(text, strlen(text), "variant", &cat, &err);
    if (st != CU_OK)
        assert_non_null(strstr(err.msg, key));
    cu_catalog_free(cat);
    free(text);
    json_decref(root);
    return st;
}

/* The companions built for each torch release (data/compat/pytorch_companions.csv, read in the companions' wheels on
 * PyPI) and the nvidia-* wheels of each CUDA release (cuda_wheel_components.csv joined with NVIDIA's manifests). */
static void
pins_tables(void **state)
{
    (void)state;
    struct cu_catalog *cat = load();
    const struct cu_catalog_pins *p = &cat->wheels.pins;
    struct cu_version t = V("2.10.0");
    const struct cu_cat_companion *c = cu_catalog_companion(p, "torchvision", &t);
    assert_true(c && c->version && strcmp(c->version, "0.25.0") == 0 && c->read && strcmp(c->requires, "==2.10.0") == 0);
    c = cu_catalog_companion(p, "torchaudio", &t);
    assert_true(c && c->version && strcmp(c->version, "2.10.0") == 0);
    /* torchvision 0.29.1 and 0.29.2 ask torch>=2.14.0: built against 2.14, inferred; torchaudio has none for 2.14 */
    t = V("2.14.1");
    c = cu_catalog_companion(p, "torchvision", &t);
    assert_true(c && c->version && strcmp(c->version, "0.29.2") == 0 && !c->read && strcmp(c->basis, "range") == 0);
    c = cu_catalog_companion(p, "torchaudio", &t);
    assert_true(c && !c->version && strcmp(c->basis, "none") == 0);
    t = V("2.14"); /* a minor: its newest release's row */
    c = cu_catalog_companion(p, "torchvision", &t);
    assert_true(c && strcmp(vs(&c->torch), "2.14.1") == 0);
    t = V("2.15.0");
    assert_true(cu_catalog_companion(p, "torchvision", &t) && !cu_catalog_companion(p, "torchvision", &t)->version);
    t = V("2.99.0");
    assert_null(cu_catalog_companion(p, "torchvision", &t));
    c = cu_catalog_companion_newest(p, "torchaudio");
    assert_true(c && strcmp(vs(&c->torch), "2.11.0") == 0 && strcmp(c->version, "2.11.1") == 0);

    /* torch 2.14.1's pins (cuda-toolkit 13.0.3): the runtime and cuBLAS agree with CUDA 13.0.3 alone. */
    struct cu_pipspec s1, s2, s3;
    assert_true(cu_pipspec_parse("==13.0.96.*", &s1) && cu_pipspec_parse("==13.1.1.3.*", &s2));
    const char *pk[] = {"nvidia-cuda-runtime", "nvidia-cublas", "nvidia-cuda-nvrtc-cu12"};
    const struct cu_pipspec *sp[] = {&s1, &s2, &s3};
    bool all = false;
    const struct cu_cat_cuda_release *r = cu_catalog_cuda_release_held(p, pk, sp, 2, &all);
    assert_true(r && strcmp(vs(&r->release), "13.0.3") == 0 && all && strcmp(r->runtime, "nvidia-cuda-runtime") == 0);
    assert_string_equal(vs(cu_catalog_cuda_wheel_version(r, "nvidia-nvjitlink")), "13.0.88");
    assert_string_equal(vs(cu_catalog_cuda_wheel_version(r, "nvidia-cuda-nvcc")), "13.0.88");
    assert_string_equal(vs(cu_catalog_cuda_wheel_version(r, "nvidia-nvvm")), "13.0.88");
    assert_null(cu_catalog_cuda_wheel_version(r, "nvidia-cudnn-cu13")); /* cuDNN is no wheel of the CUDA release */
    assert_true(cu_catalog_cuda_wheel_known(p, "nvidia-nvjitlink-cu12") && !cu_catalog_cuda_wheel_known(p, "nvidia-nccl-cu12"));
    /* torch 2.7.1 mixes 12.6.2's nvrtc (12.6.77) with 12.6.3's cuBLAS: none agrees with all, the runtime's newest */
    const char *pk2[] = {"nvidia-cuda-runtime-cu12", "nvidia-cuda-nvrtc-cu12", "nvidia-cublas-cu12"};
    assert_true(cu_pipspec_parse("==12.6.77", &s1) && cu_pipspec_parse("==12.6.77", &s2) &&
                cu_pipspec_parse("==12.6.4.1", &s3));
    r = cu_catalog_cuda_release_held(p, pk2, sp, 3, &all);
    assert_true(r && strcmp(vs(&r->release), "12.6.3") == 0 && !all);
    /* no runtime among them, or one no release has: none */
    assert_null(cu_catalog_cuda_release_held(p, pk2 + 1, sp + 1, 2, &all));
    assert_true(cu_pipspec_parse("==12.6.999", &s1));
    assert_null(cu_catalog_cuda_release_held(p, pk2, sp, 1, &all));
    /* CUDA 13's nvidia-cuda-cccl is held in every release: at the manifest's cuda_cccl up to 13.2.2, and where the
     * manifest has none (13.3 on) at cuda-toolkit's own pin, vouched by it (cuda_toolkit_pins.csv 13.3.0:
     * nvidia-cuda-cccl==13.3.3.3.1.*); no wheel of 13.3.0 is left unheld. */
    const struct cu_cat_cuda_release *r1330 = NULL, *r1322 = NULL;
    for (size_t i = 0; i < p->n_cuda; i++) {
        if (strcmp(vs(&p->cuda[i].release), "13.3.0") == 0)
            r1330 = &p->cuda[i];
        if (strcmp(vs(&p->cuda[i].release), "13.2.2") == 0)
            r1322 = &p->cuda[i];
    }
    assert_true(r1330 && r1322);
    const struct cu_cat_cuda_wheel *cccl = NULL;
    for (size_t k = 0; k < r1330->n_toolkit_only; k++)
        if (strcmp(r1330->toolkit_only[k].package, "nvidia-cuda-cccl") == 0)
            cccl = &r1330->toolkit_only[k];
    assert_non_null(cccl);
    assert_string_equal(vs(&cccl->version), "13.3.3.3.1");
    assert_true(cccl->by_toolkit && cccl->component && strcmp(cccl->component, "cuda_cccl") == 0);
    assert_int_equal(r1330->n_unheld, 0);
    for (size_t k = 0; k < r1330->n; k++) /* the others, at the manifest's versions */
        assert_false(r1330->wheels[k].by_toolkit);
    cccl = NULL;
    for (size_t k = 0; k < r1322->n_toolkit_only; k++)
        if (strcmp(r1322->toolkit_only[k].package, "nvidia-cuda-cccl") == 0)
            cccl = &r1322->toolkit_only[k];
    assert_true(cccl && strcmp(vs(&cccl->version), "13.2.86") == 0 && !cccl->by_toolkit);
    cu_catalog_free(cat);

    /* Rows that do not say what they claim are refused, naming the table. */
    assert_int_equal(pins_variant("pytorch_companions", "version", json_string("0.30.0")), CU_E_INPUT); /* basis none */
    assert_int_equal(pins_variant("pytorch_companions", "requires", json_string(">=x")), CU_E_INPUT);
    assert_int_equal(pins_variant("pytorch_companions", "package", json_string("torchtext")), CU_E_INPUT);
    assert_int_equal(pins_variant("cuda_wheels", "runtime", json_string("nvidia-nope")), CU_E_INPUT);
    assert_int_equal(pins_variant("cuda_wheels", "release", json_string("1.0")), CU_E_INPUT); /* out of order */
    assert_int_equal(pins_variant("cuda_wheels", "wheels", json_pack("{s:s}", "nvidia-cuda-runtime", "x")), CU_E_INPUT);
    assert_int_equal(pins_variant("cuda_wheels", "release", json_string("13.9.0")), CU_OK);
    /* vouched_by: a source cudaup knows, of a wheel of that release */
    assert_int_equal(pins_variant("cuda_wheels", "vouched_by", json_pack("{s:s}", "nvidia-cuda-cccl", "cuda-toolkit")),
                     CU_OK);
    assert_int_equal(pins_variant("cuda_wheels", "vouched_by", json_pack("{s:s}", "nvidia-cuda-cccl", "a blog")),
                     CU_E_INPUT);
    assert_int_equal(pins_variant("cuda_wheels", "vouched_by", json_pack("{s:s}", "nvidia-nope", "cuda-toolkit")),
                     CU_E_INPUT);
    assert_int_equal(pins_variant("cuda_wheels", "vouched_by", json_string("cuda-toolkit")), CU_E_INPUT);
}

/* What a CUDA library dlopens on GPU work comes from the rows of its own wheel's release alone (issue 47: the
 * cu13 wheel's rows were taken for nvidia-cudnn-cu12, predicting libcublasLt.so.13 in a CUDA 12 environment). */
static void
lib_loads_own_wheel(void **state)
{
    (void)state;
    struct cu_catalog *cat = load();
    const struct cu_cat_lib_load *rows[16];
    struct cu_version v12 = V("9.10.2.21"), v13 = V("9.26.0.51"), other = V("9.10.1.4");
    size_t n = cu_catalog_lib_loads(&cat->loads, "libcudnn_engines_precompiled.so.9", "nvidia-cudnn-cu12", &v12, rows, 16);
    bool blt = false, nvrtc = false;
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(rows[i]->package, "nvidia-cudnn-cu12");
        assert_false(cu_str_has_suffix(rows[i]->target, ".so.13"));
        blt |= strcmp(rows[i]->target, "libcublasLt.so.12") == 0;
        nvrtc |= strcmp(rows[i]->target, "libnvrtc.so.12") == 0;
    }
    assert_true(n == 2 && blt && nvrtc); /* recorded in the real file [cuda_lib_loads.csv] */
    n = cu_catalog_lib_loads(&cat->loads, "libcudnn_engines_precompiled.so.9", "nvidia-cudnn-cu13", &v13, rows, 16);
    assert_true(n == 2 && strcmp(rows[0]->package, "nvidia-cudnn-cu13") == 0);
    /* A caller of a wheel or release without rows: nothing predicted, never another wheel's or release's rows. */
    assert_int_equal(cu_catalog_lib_loads(&cat->loads, "libcudnn_engines_tensor_ir.so.9", "nvidia-cudnn-cu12", &v12,
                                          rows, 16), 0);
    assert_int_equal(cu_catalog_lib_loads(&cat->loads, "libcudnn_adv.so.9", "nvidia-cudnn-cu12", &other, rows, 16), 0);
    assert_int_equal(cu_catalog_lib_loads(&cat->loads, "libcudnn_adv.so.9", NULL, &v12, rows, 16), 0);
    cu_catalog_free(cat);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_lookups), cmocka_unit_test(cuda_driver_table),
        cmocka_unit_test(arch_support), cmocka_unit_test(cudnn_rows), cmocka_unit_test(cudnn_neighbours),
        cmocka_unit_test(malformed),    cmocka_unit_test(frameworks),
        cmocka_unit_test(every_field_mutated), cmocka_unit_test(python_layouts),
        cmocka_unit_test(gpu_check_lines), cmocka_unit_test(jax_pythons), cmocka_unit_test(pins_tables),
        cmocka_unit_test(lib_loads_own_wheel),
    };
    return TU_RUN(tests);
}
