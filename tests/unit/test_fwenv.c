/* SPDX-License-Identifier: MIT */
/*
 * Reading what framework packages installed (fwenv.c) from files written here, the way pip lays
 * them out: every value expected is the one written into the file, and files that are odd, cut
 * short or hostile give no value rather than a wrong one.
 */
#include "config.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog/catalog.h"
#include "core/doctor/fwenv.h"
#include "core/base/mem.h"
#include "core/base/sysroot.h"
#include "testutil.h"

#define SP "env/lib/python3.11/site-packages/"

struct fx {
    char *dir;
    struct cu_catalog *cat;
};

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    if (tu_catfx_init("fwenv", &f->dir, &f->cat) != 0)
        return -1;
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *f = *state;
    tu_catfx_fini(f->dir, f->cat);
    free(f);
    return 0;
}

/* Scan the one environment /env of a fresh root holding @n files (path, text pairs). */
static void
scan(struct fx *f, const char *const *files, size_t n, struct cu_fwenvs *out)
{
    static unsigned serial;
    char *root_dir = cu_xasprintf("%s/r%u", f->dir, serial++); /* a fresh root each time */
    for (size_t i = 0; i + 1 < n; i += 2)
        tu_write(root_dir, files[i], files[i + 1]);
    struct cu_sysroot root;
    struct cu_error err;
    assert_ok(cu_sysroot_init(&root, root_dir, &err), &err);
    memset(out, 0, sizeof(*out));
    cu_fwenvs_add(&root, f->cat, "/env", out);
    cu_fwenvs_add(&root, f->cat, "/env", out);     /* twice: found once */
    cu_fwenvs_add(&root, f->cat, "relative", out); /* not a folder path: ignored */
    cu_sysroot_fini(&root);
    free(root_dir);
}

#define SCAN(f, out, ...)                                                                          \
    do {                                                                                           \
        static const char *const files_[] = {__VA_ARGS__};                                       \
        scan(f, files_, sizeof(files_) / sizeof(files_[0]), out);                                 \
    } while (0)

static void
assert_str_or_null(const char *got, const char *want)
{
    if (!want)
        assert_null(got);
    else
        assert_string_equal(got, want);
}

static void
torch_version_files(void **state)
{
    struct fx *f = *state;
    static const struct {
        const char *text, *version, *cuda, *tag;
        bool cpu;
    } cases[] = {
        {"from typing import Optional\n__version__ = '2.8.0+cu126'\ncuda: Optional[str] = '12.6'\n", "2.8.0+cu126",
         "12.6", "cu126", false},
        {"__version__ = \"2.3.0\"\ncuda = \"12.1\"", "2.3.0", "12.1", "cu121", false}, /* PyPI: no tag, no newline */
        {"__version__ = '2.8.0+cpu'\ncuda: Optional[str] = None\n", "2.8.0+cpu", NULL, NULL, true},
        {"__version__x = 'no'\n__version__: str = '2.1.0+cu118'\ncuda = '11.8'\n", "2.1.0+cu118", "11.8", "cu118", false},
        {"__version__ = '2.1\ncuda = '12.1'\n", NULL, "12.1", "cu121", false},          /* a quote never closed */
        {"__version__\n= '2.1.0'\ncuda =\n'12.1'\n", NULL, NULL, NULL, true},           /* '=' or the value on the next line */
        {"__version__ = 2\ncuda = 12.1\n", NULL, NULL, NULL, true},                     /* not strings */
        {"cuda = '12'\n__version__ = '2.4.0'\n", "2.4.0", "12", NULL, false},           /* a CUDA without a minor */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cu_fwenvs out;
        const char *files[] = {SP "torch/version.py", cases[i].text};
        scan(f, files, 2, &out);
        assert_int_equal(out.n, 1);
        struct cu_fwenv *e = &out.v[0];
        assert_string_equal(e->framework, "pytorch");
        assert_string_equal(e->path, "/env");
        assert_str_or_null(e->version, cases[i].version);
        assert_str_or_null(e->cuda_build, cases[i].cuda);
        assert_str_or_null(e->tag, cases[i].tag);
        assert_true(e->cpu_only == cases[i].cpu);
        cu_fwenvs_fini(&out);
    }
}

static void
tensorflow_build_info(void **state)
{
    struct fx *f = *state;
    struct cu_fwenvs out;
    SCAN(f, &out, SP "tensorflow-2.15.0.dist-info/METADATA", "", SP "tensorflow-io-0.37.dist-info/METADATA", "",
         SP "tensorflow-2.99.0.dist-info-old/METADATA", "", SP "tensorflow/python/platform/build_info.py",
         "build_info = {'cuda_compute_capabilities': ['sm_60', \"compute_90\"], 'cuda_version': \"12.2\", "
         "'cudnn_version': '8', 'is_cuda_build': True}\n",
         SP "nvidia/cudnn/__init__.py", "");
    assert_int_equal(out.n, 1);
    struct cu_fwenv *e = &out.v[0];
    assert_string_equal(e->version, "2.15.0"); /* not tensorflow-io's, not the stray folder's */
    assert_string_equal(e->cuda_build, "12.2");
    assert_string_equal(e->cudnn_build, "8");
    assert_false(e->cpu_only);
    assert_true(e->bundled); /* pip's nvidia/cudnn */
    assert_int_equal(e->n_sass, 1);
    assert_int_equal(e->sass[0], 60);
    assert_int_equal(e->n_ptx, 1);
    assert_int_equal(e->ptx[0], 90);
    assert_true(e->code_read);
    cu_fwenvs_fini(&out);

    /* Values that are not strings, a list cut short, no list: nothing made up. */
    SCAN(f, &out, SP "tensorflow/python/platform/build_info.py",
         "build_info = {'cuda_version': 12.2, 'cudnn_version': '9', 'cuda_compute_capabilities': ['sm_70', 'sm_");
    assert_int_equal(out.n, 1);
    e = &out.v[0];
    assert_null(e->version);
    assert_null(e->cuda_build);
    assert_true(e->cpu_only);
    assert_false(e->bundled);
    assert_int_equal(e->n_sass, 0);
    cu_fwenvs_fini(&out);
    SCAN(f, &out, SP "tensorflow/python/platform/build_info.py",
         "build_info = {'cuda_compute_capabilities': None, 'cuda_version': '12.3', 'is_cuda_build': True}\n");
    assert_int_equal(out.v[0].n_sass + out.v[0].n_ptx, 0);
    assert_false(out.v[0].code_read);
    cu_fwenvs_fini(&out);
}

/*
 * TensorFlow's build_info.py in each of its 2.x forms, as the real wheels hold it (tests/fixtures/wheels/build_info,
 * recorded by scripts/record-wheels from PyPI): module-level names (2.1), a dict (2.3), an OrderedDict of pairs
 * (2.5 on, 2.20 and 2.21 among them).  Each value expected is what Python itself makes of the file.
 */
static void
tensorflow_build_info_forms(void **state)
{
    struct fx *f = *state;
    static const struct {
        const char *version, *cuda, *cudnn;
        int n_sass, n_ptx;
    } cases[] = {
        {"2.1.0", "10.1", "7", 0, 0},   {"2.3.0", "10.1", "7", 5, 1},  {"2.5.0", "11.2", "8", 5, 1},
        {"2.12.0", "11.8", "8", 5, 1},  {"2.15.0", "12.2", "8", 4, 1}, {"2.16.1", "12.3", "8", 4, 1},
        {"2.18.0", "12.5.1", "9", 4, 1}, {"2.21.0", "12.5.1", "9", 4, 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *fx = cu_xasprintf("%s/tests/fixtures/wheels/build_info/tensorflow-%s.json", getenv("SRCDIR"), cases[i].version);
        json_error_t je;
        json_t *doc = json_load_file(fx, 0, &je);
        assert_non_null(doc);
        json_t *srcs = json_object_get(doc, "sources");
        const char *rel;
        json_t *text;
        size_t n = 0;
        json_object_foreach(srcs, rel, text) {
            if (!strstr(rel, "build_info.py"))
                continue;
            char *path = cu_xasprintf(SP "%s", rel);
            char *meta = cu_xasprintf(SP "tensorflow-%s.dist-info/METADATA", cases[i].version);
            const char *files[] = {path, json_string_value(text), meta, ""};
            struct cu_fwenvs out;
            scan(f, files, 4, &out);
            assert_int_equal(out.n, 1);
            struct cu_fwenv *e = &out.v[0];
            assert_string_equal(e->version, cases[i].version);
            assert_str_or_null(e->cuda_build, cases[i].cuda);
            assert_str_or_null(e->cudnn_build, cases[i].cudnn);
            assert_false(e->cpu_only); /* every one is a CUDA build (issue 47: 2.20's was called CPU only) */
            assert_int_equal(e->n_sass, cases[i].n_sass);
            assert_int_equal(e->n_ptx, cases[i].n_ptx);
            cu_fwenvs_fini(&out);
            free(path);
            free(meta);
            n++;
        }
        assert_int_equal(n, 1);
        json_decref(doc);
        free(fx);
    }
}

static void
jax_dist_info(void **state)
{
    struct fx *f = *state;
    static const struct {
        const char *jaxlib, *plugin, *cuda;
        bool cpu;
    } cases[] = {
        {"jaxlib-0.4.13+cuda12.cudnn89.dist-info", NULL, "12", false},
        {"jaxlib-0.4.13+cuda1234.dist-info", NULL, NULL, true}, /* four digits: no CUDA major */
        {"jaxlib-0.4.13+cuda.dist-info", NULL, NULL, true},     /* no digits */
        {"jaxlib-0.4.30.dist-info", "jax_cuda13_plugin-0.7.2.dist-info", "13", false},
        {"jaxlib-0.4.30.dist-info", "jax_cuda11_plugin-0.4.30.dist-info", "11", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *lib = cu_xasprintf(SP "%s/METADATA", cases[i].jaxlib);
        char *plug = cu_xasprintf(SP "%s/METADATA", cases[i].plugin ? cases[i].plugin : "other-1.0.dist-info");
        const char *files[] = {SP "jax-0.4.30.dist-info/METADATA", "", lib, "", plug, ""};
        struct cu_fwenvs out;
        scan(f, files, 6, &out);
        assert_int_equal(out.n, 1);
        if ((out.v[0].cuda_build == NULL) != (cases[i].cuda == NULL))
            print_error("case %zu: cuda %s\n", i, out.v[0].cuda_build ? out.v[0].cuda_build : "(null)");
        assert_string_equal(out.v[0].framework, "jax");
        assert_string_equal(out.v[0].version, "0.4.30");
        assert_str_or_null(out.v[0].cuda_build, cases[i].cuda);
        assert_true(out.v[0].cpu_only == cases[i].cpu);
        assert_true(out.v[0].bundled == !cases[i].cpu);
        cu_fwenvs_fini(&out);
        free(lib);
        free(plug);
    }
    /* No jax-VERSION.dist-info at all: no JAX, whatever else is there. */
    struct cu_fwenvs out;
    SCAN(f, &out, SP "jaxlib-0.4.30.dist-info/METADATA", "", "env/lib/python3.11/nosp", "");
    assert_int_equal(out.n, 0);
    cu_fwenvs_fini(&out);
    cu_fwenvs_fini(NULL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(torch_version_files, setup, teardown),
        cmocka_unit_test_setup_teardown(tensorflow_build_info, setup, teardown),
        cmocka_unit_test_setup_teardown(tensorflow_build_info_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(jax_dist_info, setup, teardown),
    };
    return TU_RUN(tests);
}
