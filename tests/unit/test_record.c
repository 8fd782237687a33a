/* SPDX-License-Identifier: MIT */
/* The install record: every field of a real record mutated is refused clearly or loads checked values. */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fsutil.h"
#include "core/catalog/manifest.h"
#include "core/base/mem.h"
#include "core/install/record.h"
#include "testutil.h"

#define SHA "25b8071951baba827be1580b841d363464f6ee6c39f48d33a81646f90cc95ed1"

static struct cu_record *
sample(bool python)
{
    struct cu_record *r = cu_record_new();
    if (python)
        r->python_version = cu_xstrdup("3.11.16");
    else
        r->cuda_version = cu_xstrdup("12.4.1");
    r->platform = cu_xstrdup("linux-x86_64");
    if (!python) {
        r->cudnn_version = cu_xstrdup("9.5.1");
        r->cudnn_full = cu_xstrdup("9.5.1.17");
        r->cudnn_variant = cu_xstrdup("12");
    }
    r->mirror = cu_xstrdup("https://mirror.test/compute");
    r->created = cu_xstrdup("2026-12-03T00:00:00Z");
    r->components = cu_xcalloc(2, sizeof(*r->components));
    r->components[0] = (struct cu_record_component){.name = cu_xstrdup(python ? "python" : "cuda_cudart"),
                                                    .product = python ? CU_PRODUCT_PYTHON : CU_PRODUCT_CUDA,
                                                    .version = cu_xstrdup("1.0"), .size = 10,
                                                    .url = cu_xstrdup("https://mirror.test/x.tar.xz")};
    memcpy(r->components[0].sha256, SHA, 65);
    r->n_components = 1;
    r->files = cu_xcalloc(3, sizeof(*r->files));
    r->files[0] = (struct cu_record_file){.path = cu_xstrdup("lib"), .type = 'd', .mode = 0755,
                                          .component = cu_xstrdup("cuda_cudart")};
    r->files[1] = (struct cu_record_file){.path = cu_xstrdup("lib/libcudart.so.12"), .type = 'f', .mode = 0644,
                                          .size = 10, .component = cu_xstrdup("cuda_cudart")};
    memcpy(r->files[1].sha256, SHA, 65);
    r->files[2] = (struct cu_record_file){.path = cu_xstrdup("lib/libcudart.so"), .type = 'l', .mode = 0777,
                                          .size = 14, .target = cu_xstrdup("libcudart.so.12"),
                                          .component = cu_xstrdup("cuda_cudart")};
    r->n_files = 3;
    return r;
}

struct rmut {
    char *dir;
    bool python;
    size_t tried, refused;
};

static void
try_record(json_t *root, void *ud)
{
    struct rmut *m = ud;
    char *path;
    if (asprintf(&path, "%s/.cudaup/record.json", m->dir) < 0)
        abort();
    assert_int_equal(json_dump_file(root, path, JSON_COMPACT), 0);
    struct cu_record *r = NULL;
    struct cu_error err;
    enum cu_status st = m->python ? cu_record_load_python(m->dir, &r, &err) : cu_record_load(m->dir, &r, &err);
    m->tried++;
    if (st != CU_OK) {
        assert_int_equal(st, CU_E_INPUT);
        assert_null(r);
        assert_non_null(strstr(err.msg, "record"));
        m->refused++;
    } else {
        assert_true(m->python ? r->python_version != NULL : r->cuda_version != NULL);
        for (size_t i = 0; i < r->n_files; i++) {
            const struct cu_record_file *f = &r->files[i];
            assert_true(cu_relpath_ok(f->path) && strchr("fld", f->type));
            assert_true(f->type != 'f' || cu_sha256_hex_ok(f->sha256));
            assert_true(f->type != 'l' || f->target);
        }
        for (size_t i = 0; i < r->n_components; i++)
            assert_true(cu_sha256_hex_ok(r->components[i].sha256));
        cu_record_free(r);
    }
    free(path);
}

static void
mutate(bool python)
{
    struct rmut m = {tu_tmpdir("record"), python, 0, 0};
    struct cu_record *r = sample(python);
    struct cu_error err;
    assert_ok(cu_record_save(r, m.dir, &err), &err);
    cu_record_free(r);
    char *path;
    if (asprintf(&path, "%s/.cudaup/record.json", m.dir) < 0)
        abort();
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    assert_non_null(root);
    free(path);
    try_record(root, &m);
    assert_int_equal(m.refused, 0);
    tu_mutate_json(root, 16, try_record, &m);
    printf("# %zu mutants of a %s record: %zu refused\n", m.tried, python ? "Python" : "CUDA", m.refused);
    assert_true(m.tried > 100 && m.refused > m.tried / 4 && m.refused < m.tried);
    json_decref(root);
    tu_tmpdir_free(m.dir);
}

static void
cuda_record_mutated(void **state)
{
    (void)state;
    mutate(false);
}

static void
python_record_mutated(void **state)
{
    (void)state;
    mutate(true);
}

/* A Python's record is not a CUDA install's, and the other way round. */
static void
kinds_kept_apart(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("kinds");
    struct cu_record *r = sample(true), *out = NULL;
    struct cu_error err;
    assert_ok(cu_record_save(r, dir, &err), &err);
    assert_status(cu_record_load(dir, &out, &err), CU_E_INPUT, &err);
    assert_ok(cu_record_load_python(dir, &out, &err), &err);
    assert_string_equal(out->python_version, "3.11.16");
    assert_int_equal(out->components[0].product, CU_PRODUCT_PYTHON);
    cu_record_free(out);
    cu_record_free(r);
    tu_tmpdir_free(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cuda_record_mutated),
        cmocka_unit_test(python_record_mutated),
        cmocka_unit_test(kinds_kept_apart),
    };
    return TU_RUN(tests);
}
