/* SPDX-License-Identifier: MIT */
/*
 * What a package index says, as cudaup reads it (issue 44): requirements and their markers as torch's, cuda-toolkit's
 * and JAX's METADATA write them (core/base/pipreq.c), a project's page in PEP 691 JSON and PEP 503 HTML
 * (core/fetch/pypage.c), and a wheel's METADATA out of its zip directory, zip64 included, damaged ones refused
 * (core/unpack/wheelzip.c); and the catalog with a learned release in its own shapes (core/catalog/catalog_learn.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/base/mem.h"
#include "core/base/pipreq.h"
#include "core/base/str.h"
#include "core/catalog/catalog.h"
#include "core/catalog/catalog_learned.h"
#include "core/fetch/pypage.h"
#include "core/unpack/wheelzip.h"
#include "testutil.h"

/* ---- requirements and markers ---------------------------------------------------------- */

static void
requirements(void **state)
{
    (void)state;
    struct cu_pipreq q;
    assert_true(cu_pipreq_parse("cuda-toolkit[cublas,cudart]==13.2.2; platform_system == \"Linux\"", &q));
    assert_string_equal(q.name, "cuda-toolkit");
    assert_string_equal(q.extras, "cublas,cudart");
    assert_string_equal(q.spec, "==13.2.2");
    assert_string_equal(q.marker, "platform_system == \"Linux\"");
    cu_pipreq_fini(&q);
    assert_true(cu_pipreq_parse("Jax_CUDA13.Plugin[With_CUDA] (<=0.12.2,>=0.12.2) ; extra == 'cuda13'", &q));
    assert_string_equal(q.name, "jax-cuda13-plugin");
    assert_string_equal(q.extras, "with-cuda");
    assert_string_equal(q.spec, "<=0.12.2,>=0.12.2");
    cu_pipreq_fini(&q);
    assert_true(cu_pipreq_parse("nvidia-nvvm; extra == \"with-cuda\"", &q));
    assert_string_equal(q.spec, "");
    cu_pipreq_fini(&q);
    assert_false(cu_pipreq_parse("torch @ https://example.org/torch.whl", &q));
    assert_false(cu_pipreq_parse("[x]==1", &q));

    struct cu_strv req;
    char *rp = NULL;
    cu_strv_init(&req);
    assert_true(cu_metadata_read("Metadata-Version: 2.4\r\nName: torch\r\nVersion: 2.16.0\r\nRequires-Python: >=3.11\r\n"
                                 "Requires-Dist: filelock\r\nrequires-dist: nvidia-cudnn-cu13==9.26.0.51\r\n\r\n"
                                 "Requires-Dist: not-a-header-in-the-body\r\n",
                                 &req, &rp));
    assert_int_equal(req.n, 2);
    assert_string_equal(req.v[1], "nvidia-cudnn-cu13==9.26.0.51");
    assert_string_equal(rp, ">=3.11");
    free(rp);
    cu_strv_fini(&req);
    cu_strv_init(&req);
    assert_false(cu_metadata_read("<html>not metadata</html>", &req, &rp));
    cu_strv_fini(&req);
}

static void
markers(void **state)
{
    (void)state;
    /* cuda-toolkit's: the extra decides, on Linux x86_64. */
    const char *ct = "(sys_platform == 'linux' and platform_machine == 'aarch64' or sys_platform == 'linux' and "
                     "platform_machine == 'x86_64' or sys_platform == 'win32' and platform_machine == 'AMD64') and "
                     "extra == 'cublas'";
    assert_int_equal(cu_marker_eval(ct, "x86_64", "cublas", NULL), 1);
    assert_int_equal(cu_marker_eval(ct, "x86_64", "cufft", NULL), 0);
    assert_int_equal(cu_marker_eval(ct, "ppc64le", "cublas", NULL), 0);
    /* extras compare normalized (PEP 685); python_version counts as true for any Python, unless one is named */
    assert_int_equal(cu_marker_eval("sys_platform == \"linux\" and extra == \"with_cuda\"", "x86_64", "with-cuda", NULL), 1);
    assert_int_equal(cu_marker_eval("platform_system == \"Linux\" and python_version < \"3.15\"", "x86_64", "", NULL), 1);
    assert_int_equal(cu_marker_eval("python_version < \"3.15\"", "x86_64", "", "3.15"), 0);
    assert_int_equal(cu_marker_eval("python_version < \"3.15\"", "x86_64", "", "3.9"), 1);
    assert_int_equal(cu_marker_eval("", "x86_64", "", NULL), 1);
    assert_int_equal(cu_marker_eval("extra == \"cuda12\"", "x86_64", "", NULL), 0);
    /* what cudaup does not understand is said, never guessed */
    assert_int_equal(cu_marker_eval("platform_system = \"Linux\"", "x86_64", "", NULL), -1);
    assert_int_equal(cu_marker_eval("sparkle == \"yes\"", "x86_64", "", NULL), -1);
    assert_int_equal(cu_marker_eval("(extra == 'a'", "x86_64", "a", NULL), -1);
}

static void
wheel_names(void **state)
{
    (void)state;
    struct cu_wheel_name w;
    assert_true(cu_wheel_name_parse("torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl", &w));
    assert_string_equal(w.name, "torch");
    assert_string_equal(w.version, "2.16.0");
    assert_true(cu_wheel_for_linux(&w, "x86_64"));
    assert_false(cu_wheel_for_linux(&w, "aarch64"));
    assert_true(cu_wheel_for_python(&w, 12));
    assert_false(cu_wheel_for_python(&w, 11));
    cu_wheel_name_fini(&w);
    assert_true(cu_wheel_name_parse("jax_cuda13_plugin-0.12.2-1-cp313-cp313-manylinux2014_x86_64.manylinux_2_17_x86_64.whl", &w));
    assert_string_equal(w.name, "jax-cuda13-plugin");
    assert_true(cu_wheel_for_linux(&w, "x86_64"));
    cu_wheel_name_fini(&w);
    assert_true(cu_wheel_name_parse("foo-1.0-cp39-abi3-manylinux_2_17_x86_64.whl", &w));
    assert_true(cu_wheel_for_python(&w, 12));
    assert_false(cu_wheel_for_python(&w, 8));
    cu_wheel_name_fini(&w);
    assert_true(cu_wheel_name_parse("jax-0.12.2-py3-none-any.whl", &w));
    assert_true(cu_wheel_for_linux(&w, "x86_64") && cu_wheel_for_python(&w, 15));
    cu_wheel_name_fini(&w);
    assert_false(cu_wheel_name_parse("torch-2.16.0.tar.gz", &w));
    assert_false(cu_wheel_name_parse("torch-2.16.0-cp312.whl", &w));
    assert_false(cu_wheel_name_parse("../torch-2.16.0-cp312-cp312-any.whl", &w));
}

static void
pep440(void **state)
{
    (void)state;
    struct cu_version v;
    char pre[16];
    assert_true(cu_pep440_parse("2.22.0rc0", &v, pre) && v.n == 3 && strcmp(pre, "rc0") == 0);
    assert_true(cu_pep440_parse("0.12.0.1", &v, pre) && v.n == 4 && !pre[0]);
    assert_true(cu_pep440_parse("3.0.0a2", &v, pre) && strcmp(pre, "a2") == 0);
    assert_false(cu_pep440_parse("2.16.0.dev20260101", &v, pre));
    assert_false(cu_pep440_parse("2.16.0+cu132", &v, pre));
    assert_false(cu_pep440_parse("1!2.0", &v, pre));
    assert_false(cu_pep440_parse("2.16.0rc", &v, pre));
    assert_true(cu_pep440_cmp("2.22.0rc0", "2.22.0") < 0);
    assert_true(cu_pep440_cmp("2.22.0rc1", "2.22.0rc0") > 0);
    assert_true(cu_pep440_cmp("2.22.0b3", "2.22.0rc0") < 0);
    assert_true(cu_pep440_cmp("2.21.0", "2.22.0rc0") < 0);
    assert_int_equal(cu_pep440_cmp("13.0.3", "13.0.3.0"), 0);
}

/* ---- pages ------------------------------------------------------------------------------- */

static void
urls(void **state)
{
    (void)state;
    const char *page = "http://h:8080/pypi/simple/torch/";
    struct {
        const char *href, *want;
    } cases[] = {
        {"../../files/t.whl#sha256=ab", "http://h:8080/pypi/files/t.whl#sha256=ab"},
        {"t.whl", "http://h:8080/pypi/simple/torch/t.whl"},
        {"/packages/t.whl", "http://h:8080/packages/t.whl"},
        {"//files.example/t.whl", "http://files.example/t.whl"},
        {"https://files.pythonhosted.org/packages/a/b/t.whl", "https://files.pythonhosted.org/packages/a/b/t.whl"},
        {"../../../../../etc/t.whl", "http://h:8080/etc/t.whl"},
    };
    for (size_t i = 0; i < CU_N_ELEMENTS(cases); i++) {
        char *u = cu_url_resolve(page, cases[i].href);
        assert_string_equal(u, cases[i].want);
        free(u);
    }
}

static void
pages(void **state)
{
    (void)state;
    struct cu_pyproject *p = NULL;
    struct cu_error err;
    const char *json =
        "{\"meta\": {\"api-version\": \"1.1\"}, \"name\": \"torch\", \"files\": ["
        "{\"filename\": \"torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl\", \"url\": \"../../files/x.whl\","
        " \"hashes\": {\"sha256\": \"AB" "0000000000000000000000000000000000000000000000000000000000000000\"},"
        " \"core-metadata\": false},"
        "{\"filename\": \"torch-2.15.9-cp312-cp312-manylinux_2_28_x86_64.whl\", \"url\": \"https://f.example/y.whl\","
        " \"hashes\": {\"sha256\": \"" "1111111111111111111111111111111111111111111111111111111111111111\"},"
        " \"yanked\": \"broken\", \"core-metadata\": {\"sha256\": \""
        "2222222222222222222222222222222222222222222222222222222222222222\"}, \"requires-python\": \">=3.11\"}]}";
    assert_ok(cu_pyproject_parse(json, strlen(json), true, "http://h/simple/torch/", "Torch", &p, &err), &err);
    assert_string_equal(p->name, "torch");
    assert_int_equal(p->n_files, 2);
    assert_string_equal(p->files[0].url, "http://h/files/x.whl");
    assert_false(p->files[0].core_metadata || p->files[0].yanked);
    assert_true(p->files[1].yanked && p->files[1].core_metadata);
    assert_string_equal(p->files[1].metadata_sha256, "2222222222222222222222222222222222222222222222222222222222222222");
    assert_string_equal(p->files[1].requires_python, ">=3.11");
    cu_pyproject_free(p);

    const char *html = "<!DOCTYPE html><html><body><h1>Links for torch</h1>\n"
                       "<a href=\"../../files/torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl#sha256="
                       "3333333333333333333333333333333333333333333333333333333333333333\" data-requires-python=\"&gt;=3.11\""
                       " data-core-metadata=\"sha256=4444444444444444444444444444444444444444444444444444444444444444\">"
                       "torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl</a><br>\n"
                       "<a href='../../files/torch-2.15.9-cp312-cp312-manylinux_2_28_x86_64.whl' data-yanked=\"\">"
                       "torch-2.15.9-cp312-cp312-manylinux_2_28_x86_64.whl</a>\n"
                       "<a href=\"../../files/old.whl\" data-dist-info-metadata=\"true\">old.whl</a></body></html>";
    assert_ok(cu_pyproject_parse(html, strlen(html), false, "http://h/pypi/simple/torch/", "torch", &p, &err), &err);
    assert_int_equal(p->n_files, 3);
    assert_string_equal(p->files[0].sha256, "3333333333333333333333333333333333333333333333333333333333333333");
    assert_string_equal(p->files[0].url, "http://h/pypi/files/torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl");
    assert_string_equal(p->files[0].requires_python, ">=3.11");
    assert_true(p->files[0].core_metadata && !p->files[0].yanked);
    assert_true(p->files[1].yanked && !p->files[1].core_metadata && !p->files[1].sha256[0]);
    assert_true(p->files[2].core_metadata && !p->files[2].metadata_sha256[0]);
    cu_pyproject_free(p);

    /* Not an index: said, naming the page. */
    assert_status(cu_pyproject_parse("{\"files\": []}", 13, true, "http://h/simple/x/", "x", &p, &err), CU_E_INPUT, &err);
    assert_non_null(strstr(err.msg, "http://h/simple/x/"));
    assert_status(cu_pyproject_parse("<<this is not an index>>", 24, true, "http://h/simple/x/", "x", &p, &err),
                  CU_E_INPUT, &err);
    assert_status(cu_pyproject_parse("plain text", 10, false, "http://h/simple/x/", "x", &p, &err), CU_E_INPUT, &err);
}

/* ---- a wheel's METADATA out of its zip ---------------------------------------------------- */

struct zipb {
    struct cu_buf b, cd;
    size_t n;
};

static void
le(struct cu_buf *b, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        cu_buf_putc(b, (char)((v >> (8 * i)) & 0xff));
}

/* One member, deflated (or stored), with a central directory entry; @crc_off perturbs the recorded CRC. */
static void
member(struct zipb *z, const char *name, const char *data, bool deflated, uint32_t crc_off)
{
    uLong crc = crc32(0L, (const Bytef *)data, (uInt)strlen(data)) + crc_off;
    unsigned char out[4096];
    size_t csize = strlen(data);
    const unsigned char *payload = (const unsigned char *)data;
    if (deflated) {
        z_stream s;
        memset(&s, 0, sizeof(s));
        assert_int_equal(deflateInit2(&s, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
        s.next_in = (Bytef *)(uintptr_t)data;
        s.avail_in = (uInt)strlen(data);
        s.next_out = out;
        s.avail_out = sizeof(out);
        assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
        csize = sizeof(out) - s.avail_out;
        deflateEnd(&s);
        payload = out;
    }
    size_t off = z->b.len;
    le(&z->b, 0x04034b50, 4), le(&z->b, 20, 2), le(&z->b, 0, 2), le(&z->b, deflated ? 8 : 0, 2), le(&z->b, 0, 4);
    le(&z->b, crc, 4), le(&z->b, csize, 4), le(&z->b, strlen(data), 4), le(&z->b, strlen(name), 2), le(&z->b, 0, 2);
    cu_buf_puts(&z->b, name);
    cu_buf_append(&z->b, payload, csize);
    le(&z->cd, 0x02014b50, 4), le(&z->cd, 20, 2), le(&z->cd, 20, 2), le(&z->cd, 0, 2), le(&z->cd, deflated ? 8 : 0, 2);
    le(&z->cd, 0, 4), le(&z->cd, crc, 4), le(&z->cd, csize, 4), le(&z->cd, strlen(data), 4), le(&z->cd, strlen(name), 2);
    le(&z->cd, 0, 2), le(&z->cd, 0, 2), le(&z->cd, 0, 2), le(&z->cd, 0, 2), le(&z->cd, 0, 4), le(&z->cd, off, 4);
    cu_buf_puts(&z->cd, name);
    z->n++;
}

static void
finish(struct zipb *z, bool zip64)
{
    size_t cd_off = z->b.len;
    cu_buf_append(&z->b, z->cd.data, z->cd.len);
    if (zip64) {
        size_t z64 = z->b.len;
        le(&z->b, 0x06064b50, 4), le(&z->b, 44, 8), le(&z->b, 45, 2), le(&z->b, 45, 2), le(&z->b, 0, 4);
        le(&z->b, 0, 4), le(&z->b, z->n, 8), le(&z->b, z->n, 8), le(&z->b, z->cd.len, 8), le(&z->b, cd_off, 8);
        le(&z->b, 0x07064b50, 4), le(&z->b, 0, 4), le(&z->b, z64, 8), le(&z->b, 1, 4);
        le(&z->b, 0x06054b50, 4), le(&z->b, 0, 4), le(&z->b, 0xFFFF, 2), le(&z->b, 0xFFFF, 2);
        le(&z->b, 0xFFFFFFFF, 4), le(&z->b, 0xFFFFFFFF, 4), le(&z->b, 0, 2);
    } else {
        le(&z->b, 0x06054b50, 4), le(&z->b, 0, 4), le(&z->b, z->n, 2), le(&z->b, z->n, 2);
        le(&z->b, z->cd.len, 4), le(&z->b, cd_off, 4), le(&z->b, 0, 2);
    }
}

/* A reader of memory, counting its reads. */
struct memrd {
    const struct cu_buf *b;
    int reads;
};

static enum cu_status
mem_read(void *ctx, uint64_t off, size_t len, bool from_end, struct cu_buf *out, uint64_t *total, struct cu_error *err)
{
    struct memrd *m = ctx;
    m->reads++;
    *total = m->b->len;
    if (from_end) {
        len = len > m->b->len ? m->b->len : len;
        off = m->b->len - len;
    }
    if (off + len > m->b->len)
        return cu_error_set(err, CU_E_INPUT, 0, "read past the end");
    cu_buf_reset(out);
    cu_buf_append(out, m->b->data + off, len);
    return CU_OK;
}

static enum cu_status
read_meta(struct zipb *z, struct cu_buf *out, struct cu_error *err, int *reads)
{
    struct memrd m = {&z->b, 0};
    struct cu_zip_reader rd = {&m, mem_read};
    enum cu_status st = cu_wheel_metadata(&rd, "t.whl", 1u << 20, out, err);
    if (reads)
        *reads = m.reads;
    return st;
}

static void
zb_init(struct zipb *z)
{
    cu_buf_init(&z->b);
    cu_buf_init(&z->cd);
    z->n = 0;
}

static void
zb_fini(struct zipb *z)
{
    cu_buf_fini(&z->b);
    cu_buf_fini(&z->cd);
}

static void
wheel_metadata(void **state)
{
    (void)state;
    const char *meta = "Metadata-Version: 2.4\nName: torch\nVersion: 2.16.0\nRequires-Dist: nvidia-cudnn-cu13==9.26.0.51\n\n";
    struct cu_error err;
    struct cu_buf out;
    cu_buf_init(&out);
    for (int zip64 = 0; zip64 < 2; zip64++)
        for (int defl = 0; defl < 2; defl++) {
            struct zipb z;
            zb_init(&z);
            member(&z, "torch/__init__.py", "x = 1\n", true, 0);
            member(&z, "torch-2.16.0.dist-info/METADATA", meta, defl, 0);
            /* a big member after it, as RECORD is: METADATA lies outside the last 64 KiB */
            char *big = cu_xmalloc(200001);
            for (size_t i = 0; i < 200000; i++)
                big[i] = (char)('a' + (i * 7919 % 26));
            big[200000] = '\0';
            member(&z, "torch-2.16.0.dist-info/RECORD", big, false, 0);
            free(big);
            finish(&z, zip64);
            int reads = 0;
            assert_ok(read_meta(&z, &out, &err, &reads), &err);
            assert_string_equal(out.data, meta);
            assert_true(reads >= 2); /* the tail, then the member (the directory lies in the tail) */
            zb_fini(&z);
        }
    /* Damaged wheels are refused, never half read. */
    struct zipb z;
    zb_init(&z);
    member(&z, "torch-2.16.0.dist-info/METADATA", meta, true, 1);
    finish(&z, false);
    assert_status(read_meta(&z, &out, &err, NULL), CU_E_INPUT, &err);
    assert_non_null(strstr(err.msg, "CRC"));
    assert_int_equal(out.len, 0);
    zb_fini(&z);
    zb_init(&z);
    member(&z, "a-1.dist-info/METADATA", meta, true, 0);
    member(&z, "b-1.dist-info/METADATA", meta, true, 0);
    finish(&z, false);
    assert_status(read_meta(&z, &out, &err, NULL), CU_E_INPUT, &err);
    assert_non_null(strstr(err.msg, "more than one"));
    zb_fini(&z);
    zb_init(&z);
    member(&z, "torch/x/y.dist-info/METADATA", meta, true, 0); /* not at the top */
    finish(&z, false);
    assert_status(read_meta(&z, &out, &err, NULL), CU_E_INPUT, &err);
    zb_fini(&z);
    zb_init(&z);
    cu_buf_puts(&z.b, "PK\003\004 not really a zip, no end record");
    assert_status(read_meta(&z, &out, &err, NULL), CU_E_INPUT, &err);
    zb_fini(&z);
    /* A directory that claims to lie past the file's end. */
    zb_init(&z);
    member(&z, "t-1.dist-info/METADATA", meta, true, 0);
    finish(&z, false);
    z.b.data[z.b.len - 3] = (char)0x7f; /* the directory's offset: far past the end */
    assert_status(read_meta(&z, &out, &err, NULL), CU_E_INPUT, &err);
    zb_fini(&z);
    cu_buf_fini(&out);
}

/* ---- the catalog with a learned release ---------------------------------------------------- */

static void
learned_catalog(void **state)
{
    (void)state;
    struct cu_catalog *base = NULL, *cat = NULL;
    struct cu_error err;
    assert_ok(cu_catalog_load(NULL, &base, &err), &err);
    struct cu_learned l;
    cu_learned_init(&l);
    l.index = cu_xstrdup("http://h/simple/");
    l.day = cu_xstrdup("2027-01-02");
    struct cu_learn_release *r = cu_learned_add(&l);
    r->framework = cu_xstrdup("pytorch");
    r->version = cu_xstrdup("2.16.0");
    r->py_min = 11, r->py_max = 14;
    r->main.project = cu_xstrdup("torch");
    r->main.version = cu_xstrdup("2.16.0");
    r->main.file = cu_xstrdup("torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl");
    r->main.how = cu_xstrdup("HTTP Range requests into the wheel");
    struct cu_strv req;
    cu_strv_init(&req);
    cu_strv_push(&req, "nvidia-cuda-runtime==13.2.86.*; platform_system == \"Linux\"");
    cu_strv_push(&req, "nvidia-cudnn-cu13==9.26.0.51; platform_system == \"Linux\"");
    cu_strv_push(&req, "filelock");
    r->main.requires = cu_steal_ptr(&req.v);
    struct cu_strv notes;
    cu_strv_init(&notes);
    assert_ok(cu_catalog_learn(base, &l, &cat, &notes, &err), &err);
    assert_int_equal(notes.n, 0);
    assert_int_equal(cat->n_torch, base->n_torch + 1);
    assert_int_equal(cat->torch[0].minor.part[1], 16);
    assert_string_equal(cat->torch[0].builds[0].tag, "cu132");
    assert_string_equal(cat->torch[0].builds[0].cudnn, "9.26.0.51");
    struct cu_version v = {{2, 16, 0}, 3};
    const struct cu_cat_learned *e = cu_catalog_learned(cat, "pytorch", &v, NULL);
    assert_non_null(e);
    assert_string_equal(e->inferred_from, "2.15");
    assert_null(e->no_inference);
    const struct cu_cat_code *c = cu_catalog_torch_code(cat, &v, "cu132");
    assert_non_null(c);
    assert_false(c->read);
    assert_non_null(strstr(c->source, "inferred from PyTorch 2.15's cu132 build"));
    assert_null(cu_catalog_learned(base, "pytorch", &v, NULL));
    cu_catalog_free(cat);
    /* A build for a CUDA no earlier release was built for: kept, with why nothing can be inferred. */
    free(r->main.requires[0]);
    r->main.requires[0] = cu_xstrdup("nvidia-cuda-runtime==13.9.1.*");
    assert_ok(cu_catalog_learn(base, &l, &cat, &notes, &err), &err);
    e = cu_catalog_learned(cat, "pytorch", &v, NULL);
    assert_non_null(e);
    assert_non_null(e->no_inference);
    assert_non_null(strstr(e->no_inference, "cu139"));
    assert_null(cu_catalog_torch_code(cat, &v, "cu139"));
    cu_catalog_free(cat);
    /* No CUDA runtime pinned: not made into an entry, said. */
    free(r->main.requires[0]);
    r->main.requires[0] = cu_xstrdup("numpy");
    assert_ok(cu_catalog_learn(base, &l, &cat, &notes, &err), &err);
    assert_int_equal(notes.n, 1);
    assert_null(cu_catalog_learned(cat, "pytorch", &v, NULL));
    cu_catalog_free(cat);
    cu_strv_fini(&notes);
    cu_learned_fini(&l);
    cu_catalog_free(base);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(requirements), cmocka_unit_test(markers),        cmocka_unit_test(wheel_names),
        cmocka_unit_test(pep440),       cmocka_unit_test(urls),           cmocka_unit_test(pages),
        cmocka_unit_test(wheel_metadata), cmocka_unit_test(learned_catalog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
