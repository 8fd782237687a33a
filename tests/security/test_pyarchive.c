/* SPDX-License-Identifier: MIT */
/*
 * python-build-standalone's "full" .tar.zst through cu_extract with the
 * full layout's rename (core/unpack/pyarchive.c): only python/install/ is placed,
 * under the names an install_only archive gives; its other folders are
 * skipped; an unsafe name anywhere, a link or hard link that leaves the
 * installed tree, and a member outside python/ are refused with nothing
 * written outside staging; a gzip stream under the zstd reader is refused;
 * a tree without bin/python3.X is refused before it is placed.  The
 * archives are written here with libarchive's write API and its zstd filter.
 */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/unpack/extract.h"
#include "core/unpack/pyarchive.h"
#include "tests/unit/testutil.h"

/* One member: 'f' file (data), 'l' symlink (data: target), 'h' hard link (data: target), 'd' folder. */
struct member {
    char type;
    const char *name;
    const char *data;
};

enum filter { ZSTD, GZIP, BARE };

static void
write_archive(const char *path, const struct member *m, size_t n, enum filter f)
{
    struct archive *a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    int r = f == GZIP ? archive_write_add_filter_gzip(a) : f == ZSTD ? archive_write_add_filter_zstd(a) : ARCHIVE_OK;
    if (r != ARCHIVE_OK) {
        print_message("# this libarchive cannot write %s\n", f == GZIP ? "gzip" : "zstd");
        skip();
    }
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, m[i].name);
        archive_entry_set_mtime(e, 1600000000, 0);
        switch (m[i].type) {
        case 'd':
            archive_entry_set_filetype(e, AE_IFDIR);
            archive_entry_set_perm(e, 0755);
            break;
        case 'l':
            archive_entry_set_filetype(e, AE_IFLNK);
            archive_entry_set_perm(e, 0777);
            archive_entry_set_symlink(e, m[i].data);
            break;
        case 'h':
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_perm(e, 0755);
            archive_entry_set_hardlink(e, m[i].data);
            archive_entry_set_size(e, 0);
            break;
        default:
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_perm(e, 0755);
            archive_entry_set_size(e, (la_int64_t)strlen(m[i].data));
            break;
        }
        assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
        if (m[i].type == 'f')
            assert_int_equal(archive_write_data(a, m[i].data, strlen(m[i].data)), (la_ssize_t)strlen(m[i].data));
        archive_entry_free(e);
    }
    assert_int_equal(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
}

struct src {
    int fd;
};

static ssize_t
rd(void *ud, void *buf, size_t len)
{
    struct src *s = ud;
    ssize_t n = read(s->fd, buf, len);
    return n < 0 ? -errno : n;
}

/* Unpack DIR/a.tar.zst into DIR/staging as the full layout; the status. */
static enum cu_status
unpack(const char *dir, struct cu_extract_result *res, struct cu_error *err)
{
    char staging[4096], archive[4096];
    snprintf(staging, sizeof(staging), "%s/staging", dir);
    snprintf(archive, sizeof(archive), "%s/a.tar.zst", dir);
    mkdir(staging, 0755);
    int dfd = open(staging, O_RDONLY | O_DIRECTORY);
    struct src s = {open(archive, O_RDONLY)};
    assert_true(dfd >= 0 && s.fd >= 0);
    struct cu_pyfull pf = {0};
    struct cu_extract_opts o = {.dirfd = dfd, .what = "a.tar.zst", .zstd = true, .rename = cu_pyfull_rename,
                                .rename_ud = &pf};
    enum cu_status st = cu_extract(&o, rd, &s, res, err);
    cu_pyfull_fini(&pf);
    close(s.fd);
    close(dfd);
    return st;
}

static bool
placed(const char *dir, const char *rel)
{
    char p[4096];
    struct stat sb;
    snprintf(p, sizeof(p), "%s/staging/%s", dir, rel);
    return lstat(p, &sb) == 0;
}

static bool
in_result(const struct cu_extract_result *res, const char *path)
{
    for (size_t i = 0; i < res->n; i++)
        if (strcmp(res->files[i].path, path) == 0)
            return true;
    return false;
}

/* What python-build-standalone's 3.7.9 full archive holds, in small. */
static const struct member full_tree[] = {
    {'d', "python", NULL},
    {'f', "python/PYTHON.json", "{\"python_exe\": \"install/bin/python3.7m\"}\n"},
    {'d', "python/build", NULL},
    {'f', "python/build/lib/libssl.a", "static library\n"},
    {'f', "python/licenses/LICENSE.cpython.txt", "PSF\n"},
    {'d', "python/install", NULL},
    {'f', "python/install/bin/python3.7", "\x7f" "ELF interpreter\n"},
    {'h', "python/install/bin/python3.7m", "python/install/bin/python3.7"},
    {'l', "python/install/bin/python3", "python3.7"},
    {'f', "python/install/lib/python3.7/os.py", "# os\n"},
    {'f', "python/install/lib/libpython3.7m.so.1.0", "\x7f" "ELF library\n"},
    {'f', "python/install/include/python3.7m/Python.h", "/* Python.h */\n"},
};

static void
full_layout_placed(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("pyfull-good");
    char path[4096];
    snprintf(path, sizeof(path), "%s/a.tar.zst", dir);
    write_archive(path, full_tree, sizeof(full_tree) / sizeof(full_tree[0]), ZSTD);
    struct cu_extract_result res;
    struct cu_error err = {0};
    assert_ok(unpack(dir, &res, &err), &err);
    /* the installed tree, as an install_only archive gives it */
    assert_true(placed(dir, "bin/python3.7"));
    assert_true(placed(dir, "bin/python3.7m")); /* CPython 3.7's hard link */
    assert_true(placed(dir, "bin/python3"));
    assert_true(placed(dir, "lib/python3.7/os.py"));
    assert_true(placed(dir, "lib/libpython3.7m.so.1.0"));
    assert_true(placed(dir, "include/python3.7m/Python.h"));
    assert_true(in_result(&res, "bin/python3.7m") && in_result(&res, "lib/python3.7/os.py"));
    /* and nothing of the build */
    assert_false(placed(dir, "PYTHON.json"));
    assert_false(placed(dir, "build"));
    assert_false(placed(dir, "licenses"));
    assert_false(placed(dir, "install"));
    assert_false(in_result(&res, "PYTHON.json") || in_result(&res, "build/lib/libssl.a"));
    assert_string_equal(res.top, "python");
    assert_ok(cu_pyarchive_check(&res, "3.7.9", "a.tar.zst", &err), &err);
    /* a tree of another Python, or none, is refused before it is placed */
    assert_int_equal(cu_pyarchive_check(&res, "3.8.20", "a.tar.zst", &err), CU_E_ARCHIVE);
    assert_non_null(strstr(err.msg, "bin/python3.8"));
    cu_extract_result_fini(&res);
    tu_tmpdir_free(dir);
}

/* An install_only archive taken for a full one: nothing under python/install/, so no Python. */
static void
wrong_layout_holds_nothing(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("pyfull-wrong");
    char path[4096];
    static const struct member m[] = {
        {'d', "python", NULL},
        {'f', "python/bin/python3.7", "interpreter\n"},
        {'f', "python/lib/python3.7/os.py", "# os\n"},
    };
    snprintf(path, sizeof(path), "%s/a.tar.zst", dir);
    write_archive(path, m, sizeof(m) / sizeof(m[0]), ZSTD);
    struct cu_extract_result res;
    struct cu_error err = {0};
    assert_ok(unpack(dir, &res, &err), &err);
    assert_false(placed(dir, "bin"));
    assert_int_equal(cu_pyarchive_check(&res, "3.7.9", "a.tar.zst", &err), CU_E_ARCHIVE);
    cu_extract_result_fini(&res);
    tu_tmpdir_free(dir);
}

/* Every member under another top folder than python/: whatever it holds, not the catalog's Python. */
static void
other_top_folder_refused(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("pyfull-othertop");
    char path[4096];
    static const struct member m[] = {
        {'d', "other", NULL},
        {'f', "other/bin/python3.7", "interpreter\n"},
        {'f', "other/install/bin/python3.7", "interpreter\n"},
    };
    snprintf(path, sizeof(path), "%s/a.tar.zst", dir);
    write_archive(path, m, sizeof(m) / sizeof(m[0]), ZSTD);
    struct cu_extract_result res;
    struct cu_error err = {0};
    enum cu_status st = unpack(dir, &res, &err);
    if (st == CU_OK)
        st = cu_pyarchive_check(&res, "3.7.9", "a.tar.zst", &err);
    assert_int_equal(st, CU_E_ARCHIVE);
    assert_non_null(strstr(err.msg, "other/"));
    cu_extract_result_fini(&res);
    tu_tmpdir_free(dir);
}

struct hostile {
    const char *what;
    struct member m[3];
    size_t n;
};

/* Refused wherever they stand: under install/, in the skipped folders, or outside python/. */
static const struct hostile hostile[] = {
    {"dot-dot under install", {{'f', "python/install/bin/python3.7", "x\n"}, {'f', "python/install/../../escape", "x\n"}}, 2},
    {"dot-dot in a skipped folder", {{'f', "python/install/bin/python3.7", "x\n"}, {'f', "python/build/../../escape", "x\n"}}, 2},
    {"absolute", {{'f', "python/install/bin/python3.7", "x\n"}, {'f', "/tmp/cudaup-pyfull-escape", "x\n"}}, 2},
    {"outside python/", {{'f', "python/install/bin/python3.7", "x\n"}, {'f', "other/escape", "x\n"}}, 2},
    {"outside python/, first", {{'f', "other/escape", "x\n"}, {'f', "python/install/bin/python3.7", "x\n"}}, 2},
    {"link into build/", {{'f', "python/build/lib/libx.a", "x\n"}, {'l', "python/install/lib/libx.a", "../../build/lib/libx.a"}}, 2},
    {"link to the outside", {{'l', "python/install/lib/evil", "../../../../../../etc"}, {'f', "python/install/lib/evil/passwd", "x\n"}}, 2},
    {"hard link to a skipped file", {{'f', "python/build/lib/libx.a", "x\n"}, {'h', "python/install/lib/libx.a", "python/build/lib/libx.a"}}, 2},
    {"hard link out", {{'f', "python/install/bin/python3.7", "x\n"}, {'h', "python/install/bin/python3", "python/install/../../../etc/passwd"}}, 2},
};

static void
hostile_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        char *dir = tu_tmpdir("pyfull-hostile");
        char path[4096], canary[4096];
        tu_write(dir, "canary.txt", "canary\n");
        snprintf(path, sizeof(path), "%s/a.tar.zst", dir);
        write_archive(path, hostile[i].m, hostile[i].n, ZSTD);
        struct cu_extract_result res;
        struct cu_error err = {0};
        enum cu_status st = unpack(dir, &res, &err);
        if (st != CU_E_UNSAFE_PATH)
            print_error("%s: status %d (%s)\n", hostile[i].what, st, err.msg);
        assert_int_equal(st, CU_E_UNSAFE_PATH);
        cu_extract_result_fini(&res);
        snprintf(canary, sizeof(canary), "%s/canary.txt", dir);
        char *c = tu_read(canary);
        assert_string_equal(c, "canary\n");
        free(c);
        snprintf(canary, sizeof(canary), "%s/escape", dir);
        assert_int_equal(access(canary, F_OK), -1);
        assert_int_equal(access("/tmp/cudaup-pyfull-escape", F_OK), -1);
        tu_tmpdir_free(dir);
    }
}

/* Only libarchive's zstd reader is registered: a gzip stream or a bare tar named .tar.zst is not unpacked. */
static void
other_container_refused(void **state)
{
    (void)state;
    for (enum filter f = GZIP; f <= BARE; f++) {
        char *dir = tu_tmpdir("pyfull-container");
        char path[4096];
        snprintf(path, sizeof(path), "%s/a.tar.zst", dir);
        write_archive(path, full_tree, sizeof(full_tree) / sizeof(full_tree[0]), f);
        struct cu_extract_result res;
        struct cu_error err = {0};
        assert_status(unpack(dir, &res, &err), CU_E_ARCHIVE, &err);
        assert_false(placed(dir, "bin"));
        cu_extract_result_fini(&res);
        tu_tmpdir_free(dir);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(full_layout_placed),
        cmocka_unit_test(wrong_layout_holds_nothing),
        cmocka_unit_test(other_top_folder_refused),
        cmocka_unit_test(hostile_refused),
        cmocka_unit_test(other_container_refused),
    };
    return TU_RUN(tests);
}
