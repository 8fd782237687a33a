/* SPDX-License-Identifier: MIT */
/* Manifest parsing: the real shapes and the hostile ones of TESTCASES.md 2.2. */
#include "config.h"

#include <dirent.h>
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
        "{\"release_label\": \"12.4.0\"}",
        "{\"release_label\": 12}", "{\"release_product\": \"cudnn\"}", "{\"../../x\": {}}",
        "{\"a/b\": {}}", "{\"s\\u0000x\": {}}", "{\"../../x\": 3}",
        /* A known level with a damaged artifact is damage, not a new shape. */
        "{\"p\": {\"linux-x86_64\": {\"cuda13.2\": {\"relative_path\": \"../x.tar.xz\", \"sha256\": \"" SHA "\", \"size\": \"1\"}}}}",
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

/* Shapes cudaup does not know are left out with a note, never a refusal of the manifest (issue 42:
 * CUDA 13.1+'s cuda_compat "cuda13.1" level made every plan on those manifests exit 2). */
static void
unknown_shapes(void **state)
{
    (void)state;
    const struct {
        const char *json, *pkg, *platform, *note;
    } cases[] = {
        {"{\"cuda_cudart\": [1]}", "cuda_cudart", NULL, "not an object"},
        {"{\"cuda_cudart\": \"x\"}", "cuda_cudart", NULL, "not an object"},
        {"{\"p\": {\"linux-x86_64\": 3}}", "p", "linux-x86_64", "not an object"},
        {"{\"p\": {\"linux-x86_64\": {}}}", "p", "linux-x86_64", "empty"},
        {"{\"p\": {\"linux-x86_64\": {\"cudaX\": {}}}}", "p", "linux-x86_64", "neither an artifact"},
        {"{\"p\": {\"linux-x86_64\": {\"cuda13.2.1\": {}}}}", "p", "linux-x86_64", "neither an artifact"},
        {"{\"p\": {\"linux-x86_64\": {\"cuda13\": 4}}}", "p", "linux-x86_64", "cuda13 level is not an object"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cu_manifest *m = NULL;
        struct cu_error err;
        assert_ok(parse(cases[i].json, &m, &err), &err);
        const struct cu_package *p = cu_manifest_package(m, cases[i].pkg);
        assert_non_null(p);
        assert_int_equal(p->n_artifacts, 0);
        const char *note = cu_package_skip_note(p, "linux-x86_64");
        assert_non_null(note);
        assert_non_null(strstr(note, cases[i].note));
        /* A package left out whole is left out on every platform; a platform's entry on that platform alone. */
        assert_true((cu_package_skip_note(p, "linux-sbsa") != NULL) == (cases[i].platform == NULL));
        cu_manifest_free(m);
    }
    /* cuda_compat's level names a CUDA minor from 13.1 on; a flat artifact may sit beside variant levels. */
    const char *compat = "{\"cuda_compat\": {\"version\": \"595.71.05\", \"cuda_variant\": [\"13.2\"], \"linux-x86_64\": {"
                         "\"cuda13.2\": {\"relative_path\": \"c/a_cuda13.2-archive.tar.xz\", \"sha256\": \"" SHA "\", \"size\": \"5\"}}},"
                         " \"cudnn\": {\"windows-arm64\": {\"relative_path\": \"d/a.zip\", \"sha256\": \"" SHA "\", \"size\": \"6\","
                         " \"cuda13\": {\"relative_path\": \"d/b.zip\", \"sha256\": \"" SHA "\", \"size\": \"7\"}}}}";
    struct cu_manifest *m = NULL;
    struct cu_error err;
    assert_ok(parse(compat, &m, &err), &err);
    const struct cu_artifact *a = cu_package_artifact(cu_manifest_package(m, "cuda_compat"), "linux-x86_64", "13.2");
    assert_non_null(a);
    assert_int_equal(a->size, 5);
    assert_null(cu_package_artifact(cu_manifest_package(m, "cuda_compat"), "linux-x86_64", NULL));
    assert_int_equal(cu_package_artifact(cu_manifest_package(m, "cudnn"), "windows-arm64", NULL)->size, 6);
    assert_int_equal(cu_package_artifact(cu_manifest_package(m, "cudnn"), "windows-arm64", "13")->size, 7);
    assert_null(cu_package_skip_note(cu_manifest_package(m, "cudnn"), "windows-arm64"));
    cu_manifest_free(m);
}

/* Every manifest NVIDIA has published that the project holds: the fixture of the 13.1+ shape always,
 * and each one in ../shared/data/nvidia/redistrib where that folder is beside the repository. */
static void
every_shared_manifest(void **state)
{
    (void)state;
    const char *src = getenv("SRCDIR");
    if (!src)
        skip();
    char *path, *data;
    struct cu_manifest *m = NULL;
    struct cu_error err;
    assert_true(asprintf(&path, "%s/tests/fixtures/manifests/redistrib_13.2.2.json", src) > 0);
    data = tu_read(path);
    assert_non_null(data);
    assert_ok(cu_manifest_parse(CU_PRODUCT_CUDA, "13.2.2", data, strlen(data), &m, &err), &err);
    assert_non_null(cu_package_artifact(cu_manifest_package(m, "cuda_compat"), "linux-x86_64", "13.2"));
    assert_non_null(cu_package_artifact(cu_manifest_package(m, "cuda_nvcc"), "linux-x86_64", NULL));
    cu_manifest_free(m);
    free(data);
    free(path);

    size_t n = 0;
    const char *prods[] = {"cuda", "cudnn"};
    for (size_t k = 0; k < 2; k++) {
        char *dir;
        assert_true(asprintf(&dir, "%s/../shared/data/nvidia/redistrib/%s", src, prods[k]) > 0);
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (strncmp(e->d_name, "redistrib_", 10) != 0 || len < 16 || strcmp(e->d_name + len - 5, ".json") != 0)
                continue;
            char label[64];
            snprintf(label, sizeof(label), "%.*s", (int)(len - 15), e->d_name + 10);
            assert_true(asprintf(&path, "%s/%s", dir, e->d_name) > 0);
            data = tu_read(path);
            assert_non_null(data);
            enum cu_product p = k ? CU_PRODUCT_CUDNN : CU_PRODUCT_CUDA;
            if (cu_manifest_parse(p, label, data, strlen(data), &m, &err) != CU_OK)
                fail_msg("%s: %s", path, err.msg);
            /* NVIDIA's own files hold no shape cudaup leaves out on the platforms it installs for. */
            for (size_t i = 0; i < m->n_packages; i++)
                for (size_t j = 0; j < m->packages[i].n_skipped; j++) {
                    const char *pl = m->packages[i].skipped[j].platform;
                    if (!pl || strncmp(pl, "linux-", 6) == 0)
                        fail_msg("%s: %s", path, m->packages[i].skipped[j].note);
                }
            cu_manifest_free(m);
            free(data);
            free(path);
            n++;
        }
        if (d)
            closedir(d);
        free(dir);
    }
    printf("# %zu manifests of ../shared parsed%s\n", n, n ? "" : " (no ../shared beside the repository)");
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
        cmocka_unit_test(unknown_shapes),          cmocka_unit_test(every_shared_manifest),
    };
    return TU_RUN(tests);
}
