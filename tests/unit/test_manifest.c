/* SPDX-License-Identifier: MIT */
/* Manifest parsing: the real shapes and the hostile ones of TESTCASES.md 2.2. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/base/fsutil.h"
#include "core/catalog/manifest.h"
#include "testutil.h"

#define SHA "25b8071951baba827be1580b841d363464f6ee6c39f48d33a81646f90cc95ed1"

static char *
one_artifact(const char *path, const char *sha, const char *size)
{
    char *s;
    if (asprintf(&s,
                 "{\"release_label\": \"12.4.1\", \"cuda_cudart\": {\"name\": \"CUDA Runtime\", \"version\": \"12.4.127\","
                 " \"linux-x86_64\": {\"relative_path\": %s, \"sha256\": %s, \"md5\": \"x\", \"size\": %s}}}",
                 path, sha, size) < 0)
        abort();
    return s;
}

static enum cu_status
parse(const char *json, struct cu_manifest **m, struct cu_error *err)
{
    return cu_manifest_parse(CU_PRODUCT_CUDA, "12.4.1", json, strlen(json), m, err);
}

static void
real_shapes(void **state)
{
    (void)state;
    struct cu_manifest *m = NULL;
    struct cu_error err;
    char *j = one_artifact("\"cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.4.127-archive.tar.xz\"",
                           "\"" SHA "\"", "\"1487960\"");
    assert_ok(parse(j, &m, &err), &err);
    const struct cu_package *p = cu_manifest_package(m, "cuda_cudart");
    assert_non_null(p);
    assert_string_equal(p->version, "12.4.127");
    const struct cu_artifact *a = cu_package_artifact(p, "linux-x86_64", NULL);
    assert_non_null(a);
    assert_int_equal(a->size, 1487960);
    assert_null(cu_package_artifact(p, "linux-sbsa", NULL));
    assert_int_equal(strlen(m->sha256), 64);
    cu_manifest_free(m);
    free(j);

    /* cuDNN's extra level by CUDA major, and its cuda_variant list. */
    const char *dnn = "{\"release_label\": \"9.14.0\", \"release_product\": \"cudnn\", \"cudnn\": {"
                      "\"version\": \"9.14.0.64\", \"cuda_variant\": [\"12\", \"13\"], \"linux-x86_64\": {"
                      "\"cuda12\": {\"relative_path\": \"cudnn/a_cuda12-archive.tar.xz\", \"sha256\": \"" SHA "\", \"size\": \"10\"},"
                      "\"cuda13\": {\"relative_path\": \"cudnn/a_cuda13-archive.tar.xz\", \"sha256\": \"" SHA "\", \"size\": 11}}}}";
    assert_ok(cu_manifest_parse(CU_PRODUCT_CUDNN, "9.14.0", dnn, strlen(dnn), &m, &err), &err);
    a = cu_package_artifact(cu_manifest_package(m, "cudnn"), "linux-x86_64", "13");
    assert_non_null(a);
    assert_int_equal(a->size, 11);
    assert_null(cu_package_artifact(cu_manifest_package(m, "cudnn"), "linux-x86_64", NULL));
    cu_manifest_free(m);
}

static void
real_files(void **state)
{
    (void)state;
    const char *src = getenv("SRCDIR");
    const char *files[] = {"cuda/redist/redistrib_12.4.1.json", "cuda/redist/redistrib_13.0.2.json",
                           "cudnn/redist/redistrib_9.14.0.json", "cudnn/redist/redistrib_8.9.7.json"};
    if (!src)
        skip();
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *path, *data, label[16];
        struct cu_manifest *m = NULL;
        struct cu_error err;
        assert_true(asprintf(&path, "%s/tests/fixtures/nvidia/%s", src, files[i]) > 0);
        data = tu_read(path);
        assert_non_null(data);
        const char *u = strrchr(files[i], '_') + 1;
        snprintf(label, sizeof(label), "%.*s", (int)(strlen(u) - 5), u);
        enum cu_product p = strncmp(files[i], "cudnn", 5) == 0 ? CU_PRODUCT_CUDNN : CU_PRODUCT_CUDA;
        assert_ok(cu_manifest_parse(p, label, data, strlen(data), &m, &err), &err);
        assert_true(m->n_packages >= 2);
        cu_manifest_free(m);
        free(data);
        free(path);
    }
}

static void
hostile_paths(void **state)
{
    (void)state;
    const char *bad[] = {
        "\"/etc/passwd.tar.xz\"", "\"../x.tar.xz\"", "\"a/../../x.tar.xz\"", "\"%2e%2e/x.tar.xz\"",
        "\"a\\\\b.tar.xz\"", "\"a.tar.xz?x=1\"", "\"a.tar.xz#f\"", "\"https://other.host/x.tar.xz\"",
        "\"file:///etc/passwd\"", "\"\"", "\"a//b.tar.xz\"", "\"./a.tar.xz\"", "\"a/.\"",
        "\"dir/\"", "\"a b.tar.xz\"", "\"a.zip\"", "\"caf\\u00e9.tar.xz\"", "3", "null",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct cu_manifest *m = NULL;
        struct cu_error err;
        char *j = one_artifact(bad[i], "\"" SHA "\"", "\"1\"");
        assert_status(parse(j, &m, &err), CU_E_INPUT, &err);
        assert_null(m);
        assert_non_null(strstr(err.msg, "cuda_cudart"));
        free(j);
    }
    char longp[1100];
    memset(longp, 'a', sizeof(longp));
    longp[0] = '"';
    memcpy(longp + 1070, ".tar.xz\"", 9);
    struct cu_manifest *m = NULL;
    struct cu_error err;
    char *j = one_artifact(longp, "\"" SHA "\"", "\"1\"");
    assert_status(parse(j, &m, &err), CU_E_INPUT, &err);
    free(j);
}

static void
hostile_sizes_and_hashes(void **state)
{
    (void)state;
    const char *sizes[] = {"\"-1\"", "-1", "1.5", "\"1.5\"", "\"0x10\"", "\"+1\"", "\"\"",
                           "\"99999999999999999999\"", "\"9223372036854775808\"", "true", "null", "\" 1\""};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        struct cu_manifest *m = NULL;
        struct cu_error err;
        char *j = one_artifact("\"a/b.tar.xz\"", "\"" SHA "\"", sizes[i]);
        assert_status(parse(j, &m, &err), CU_E_INPUT, &err);
        free(j);
    }
    const char *shas[] = {"\"" SHA "0\"", "\"25b8071951baba827be1580b841d363464f6ee6c39f48d33a81646f90cc95ed\"",
                          "\"zz" SHA "\"", "null", "5"};
    for (size_t i = 0; i < sizeof(shas) / sizeof(shas[0]); i++) {
        struct cu_manifest *m = NULL;
        struct cu_error err;
        char *j = one_artifact("\"a/b.tar.xz\"", shas[i], "\"1\"");
        assert_status(parse(j, &m, &err), CU_E_INPUT, &err);
        free(j);
    }
    /* md5 alone is not a trust anchor. */
    const char *md5only = "{\"p\": {\"linux-x86_64\": {\"relative_path\": \"a/b.tar.xz\", \"md5\": \"00\", \"size\": \"1\"}}}";
    struct cu_manifest *m = NULL;
    struct cu_error err;
    assert_status(parse(md5only, &m, &err), CU_E_INPUT, &err);
    assert_non_null(strstr(err.msg, "sha256"));
    /* Upper-case hex is the same hash; it is kept in lower case. */
    char *j = one_artifact("\"a/b.tar.xz\"", "\"25B8071951BABA827BE1580B841D363464F6EE6C39F48D33A81646F90CC95ED1\"", "0");
    assert_ok(parse(j, &m, &err), &err);
    assert_string_equal(cu_package_artifact(cu_manifest_package(m, "cuda_cudart"), "linux-x86_64", NULL)->sha256, SHA);
    cu_manifest_free(m);
    free(j);
}

static void
hostile_structure(void **state)
{
    (void)state;
    const char *bad[] = {
        "", "[]", "\"x\"", "{", "{} trailing", "\xef\xbb\xbf{}", "{\"a\": 1, \"a\": 2}",
        "{\"cuda_cudart\": [1]}", "{\"cuda_cudart\": \"x\"}", "{\"release_label\": \"12.4.0\"}",
        "{\"release_label\": 12}", "{\"release_product\": \"cudnn\"}", "{\"../../x\": {}}",
        "{\"a/b\": {}}", "{\"p\": {\"linux-x86_64\": 3}}", "{\"p\": {\"linux-x86_64\": {}}}",
        "{\"p\": {\"linux-x86_64\": {\"cudaX\": {}}}}", "{\"s\\u0000x\": {}}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct cu_manifest *m = NULL;
        struct cu_error err;
        assert_status(parse(bad[i], &m, &err), CU_E_INPUT, &err);
        assert_null(m);
    }
    /* UTF-16 and NUL bytes inside the buffer. */
    const char utf16[] = {'\xff', '\xfe', '{', 0, '}', 0};
    struct cu_manifest *m = NULL;
    struct cu_error err;
    assert_status(cu_manifest_parse(CU_PRODUCT_CUDA, "1.0.0", utf16, sizeof(utf16), &m, &err), CU_E_INPUT, &err);
    /* Nesting 10 000 deep must fail cleanly, not exhaust the stack. */
    size_t depth = 10000;
    char *deep = malloc(depth * 2 + 16);
    size_t k = 0;
    for (size_t i = 0; i < depth; i++)
        deep[k++] = '[';
    for (size_t i = 0; i < depth; i++)
        deep[k++] = ']';
    deep[k] = '\0';
    assert_status(parse(deep, &m, &err), CU_E_INPUT, &err);
    free(deep);
    /* Unknown keys and platforms are ignored; a missing label is fine. */
    const char *ok = "{\"release_date\": \"2025-01-01\", \"future_key\": {\"x\": 1},"
                     " \"p\": {\"license_path\": \"x\", \"unknown\": [1], \"windows-x86_64\": {\"relative_path\": \"p/a.zip\","
                     " \"sha256\": \"" SHA "\", \"size\": \"3\"}}}";
    assert_ok(parse(ok, &m, &err), &err);
    assert_string_equal(m->release_date, "2025-01-01");
    cu_manifest_free(m);
}

/* ---- every field of real manifests, mutated: a clear refusal or checked values ---- */

struct mmut {
    enum cu_product product;
    const char *label;
    size_t tried, refused;
};

static void
try_manifest(json_t *root, void *ud)
{
    struct mmut *m = ud;
    char *text = json_dumps(root, JSON_COMPACT);
    struct cu_manifest *man = NULL;
    struct cu_error err;
    enum cu_status st = cu_manifest_parse(m->product, m->label, text, strlen(text), &man, &err);
    m->tried++;
    if (st != CU_OK) {
        assert_int_equal(st, CU_E_INPUT);
        assert_null(man);
        assert_true(err.msg[0] != '\0');
        m->refused++;
    } else {
        /* Whatever passes holds only what an install may trust. */
        for (size_t i = 0; i < man->n_packages; i++)
            for (size_t k = 0; k < man->packages[i].n_artifacts; k++) {
                const struct cu_artifact *a = &man->packages[i].artifacts[k];
                assert_true(cu_relpath_ok(a->relative_path) && strstr(a->relative_path, "..") == NULL);
                assert_true(cu_sha256_hex_ok(a->sha256));
                assert_true(a->size > 0);
            }
        cu_manifest_free(man);
    }
    free(text);
}

static void
mutate_real(const char *product_dir, enum cu_product product, const char *label)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/fixtures/nvidia/%s/redist/redistrib_%s.json", getenv("SRCDIR"), product_dir,
             label);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    assert_non_null(root);
    /* A few packages are enough: each has the same shape. */
    void *tmp;
    const char *key;
    json_t *val;
    size_t kept = 0;
    json_object_foreach_safe(root, tmp, key, val) {
        if (json_is_object(val) && kept++ >= 3)
            json_object_del(root, key);
    }
    struct mmut m = {product, label, 0, 0};
    try_manifest(root, &m);
    assert_int_equal(m.refused, 0);
    tu_mutate_json(root, 16, try_manifest, &m);
    printf("# %zu mutants of redistrib_%s.json: %zu refused\n", m.tried, label, m.refused);
    assert_true(m.tried > 100 && m.refused > m.tried / 4 && m.refused < m.tried);
    json_decref(root);
}

static void
every_field_mutated(void **state)
{
    (void)state;
    mutate_real("cuda", CU_PRODUCT_CUDA, "12.4.0");
    mutate_real("cudnn", CU_PRODUCT_CUDNN, "9.10.2");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(real_shapes),     cmocka_unit_test(real_files),
        cmocka_unit_test(hostile_paths),   cmocka_unit_test(hostile_sizes_and_hashes),
        cmocka_unit_test(hostile_structure),       cmocka_unit_test(every_field_mutated),
    };
    return TU_RUN(tests);
}
