/* SPDX-License-Identifier: MIT */
/*
 * Every hostile archive of TESTCASES.md 2.1 through cu_extract: the expected
 * outcome, nothing written outside the staging folder, canaries unchanged.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/unpack/extract.h"
#include "core/base/fsutil.h"
#include "tests/unit/testutil.h"

struct src {
    int fd;
};

/* Each case runs twice: decoding on the unpacking thread, and on a thread of its own ahead of it. */
static bool ahead;
static int on = 1;

static ssize_t
rd(void *ud, void *buf, size_t len)
{
    struct src *s = ud;
    ssize_t n = read(s->fd, buf, len);
    return n < 0 ? -errno : n;
}

static enum cu_status
run_one(const char *archive, const char *dir, uint64_t max_entries, struct cu_extract_result *res,
        struct cu_error *err)
{
    int dfd = tu_staging_open(dir);
    struct src s = {open(archive, O_RDONLY)};
    assert_true(s.fd >= 0);
    struct cu_extract_opts o = {.dirfd = dfd, .what = archive, .max_entries = max_entries, .ahead = ahead};
    enum cu_status st = cu_extract(&o, rd, &s, res, err);
    /* The whole input was read, even after a failure (the caller's hash covers it). */
    if (st != CU_E_CANCELLED)
        assert_int_equal(read(s.fd, (char[1]){0}, 1), 0);
    close(s.fd);
    close(dfd);
    return st;
}

static void
mode_is(const char *dir, const char *rel, mode_t want)
{
    char p[4096];
    struct stat st;
    assert_int_equal(lstat(tu_staging_path(p, sizeof(p), dir, rel), &st), 0);
    if ((st.st_mode & 07777) != want)
        print_error("%s: mode %o, want %o\n", rel, st.st_mode & 07777, want);
    assert_int_equal(st.st_mode & 07777, want);
}

static char *
content(const char *dir, const char *rel)
{
    char p[4096];
    return tu_read(tu_staging_path(p, sizeof(p), dir, rel));
}

static void
hostile_archives(void **state)
{
    ahead = *state != NULL;
    const char *hdir = getenv("HOSTILE_DIR");
    if (!hdir)
        skip();
    char path[4096];
    snprintf(path, sizeof(path), "%s/cases.txt", hdir);
    FILE *cases = fopen(path, "r");
    assert_non_null(cases);
    /* The sentence of each check that refuses an archive (core/unpack/extract.c). */
    static const struct {
        const char *why, *says;
    } checks[] = {
        {"name", "has an unsafe name"},
        {"top", "lies outside the archive's top folder"},
        {"linkout", "is a symbolic link that points outside the install"},
        {"chain", "leads outside the install through another link"},
        {"through", "would be written through a symbolic link"},
        {"hardlink", "is a hard link to something that is not a file unpacked before it"},
        {"harddata", "is a hard link that carries data"},
        {"replacedir", "would replace a folder"},
        {"dirover", "is a folder where a link or file already is"},
        {"device", "is a device, FIFO or socket"},
        {"cutshort", "is cut short or corrupt"},
        {"nottar", "is not a valid tar archive"},
        {"xzend", "it ends too early"},
        {"xzcorrupt", "its compressed data is corrupt"},
        {"memlimit", "needs more memory to decompress than the limit allows"},
        {"bomb", "unpacks to far more than its size"},
        {"notxz", "it is not an xz file"},
        {"empty", "is empty"},
        {"entries", "entries; it was refused"},
    };
    char name[256], expect[32], why[32];
    int n = 0;
    const char *canary_text = "canary: must not change\n";
    unlink("/tmp/cudaup-canary-target");
    while (fscanf(cases, "%255s %31s %31s", name, expect, why) == 3) {
        char *dir = tu_tmpdir("hostile");
        tu_write(dir, "canary.txt", canary_text);
        struct cu_extract_result res;
        struct cu_error err;
        cu_error_clear(&err);
        snprintf(path, sizeof(path), "%s/%s", hdir, name);
        uint64_t max_entries = strstr(name, "manyentries") ? 200 : 0;
        enum cu_status st = run_one(path, dir, max_entries, &res, &err);
        const char *says = NULL;
        for (size_t k = 0; k < sizeof(checks) / sizeof(checks[0]); k++)
            if (strcmp(checks[k].why, why) == 0)
                says = checks[k].says;
        bool ok = (strcmp(expect, "ok") == 0 && st == CU_OK) ||
                  (strcmp(expect, "unsafe") == 0 && st == CU_E_UNSAFE_PATH && says && strstr(cu_error_text(&err), says)) ||
                  (strcmp(expect, "archive") == 0 && st == CU_E_ARCHIVE && says && strstr(cu_error_text(&err), says));
        if (!ok || getenv("HOSTILE_SHOW"))
            print_error("%s: expected %s (%s), got %s (%s)\n", name, expect, why, cu_status_name(st),
                        cu_error_text(&err));
        assert_true(ok);
        /* Nothing beside staging changed. */
        assert_int_equal(tu_count_entries(dir), 2);
        char *c = content(dir, "../canary.txt");
        assert_non_null(c);
        assert_string_equal(c, canary_text);
        free(c);
        assert_int_equal(access("/tmp/cudaup-canary-target", F_OK), -1);
        assert_int_equal(access("/etc/cudaup-canary", F_OK), -1);
        if (st == CU_OK) {
            if (strcmp(name, "setuid.tar.xz") == 0) {
                mode_is(dir, "bin/su", 0755);
                mode_is(dir, "world", 0644);
                mode_is(dir, "allx", 0755);
            } else if (strcmp(name, "dupfile.tar.xz") == 0 || strcmp(name, "linkthenfile.tar.xz") == 0) {
                char *x = content(dir, "a");
                assert_non_null(x);
                assert_true(strstr(x, "second") || strstr(x, "file wins"));
                free(x);
                assert_int_equal(res.n, 1); /* last one wins, recorded once */
            } else if (strcmp(name, "good.tar.xz") == 0) {
                assert_string_equal(res.top, "top");
                mode_is(dir, "bin/tool", 0755);
                mode_is(dir, "include/foo.h", 0644);
                char *so = content(dir, "lib/libfoo.so");
                assert_non_null(so); /* the chain resolves inside the tree */
                free(so);
            } else if (strcmp(name, "paxname.tar.xz") == 0) {
                char *x = content(dir, "pax-name");
                assert_non_null(x);
                free(x);
            } else if (strcmp(name, "dir0000.tar.xz") == 0) {
                mode_is(dir, "locked", 0755);
            } else if (strcmp(name, "hardgood.tar.xz") == 0) {
                char *x = content(dir, "h");
                assert_string_equal(x, "shared\n");
                free(x);
            }
            for (size_t i = 0; i < res.n; i++)
                if (res.files[i].type == CU_FILE_REG)
                    assert_int_equal(strlen(res.files[i].sha256), 64);
        }
        cu_extract_result_fini(&res);
        struct cu_error e2;
        char st_dir[4096];
        snprintf(st_dir, sizeof(st_dir), "%s/staging", dir);
        assert_int_equal(cu_rm_rf(st_dir, &e2), CU_OK);
        tu_tmpdir_free(dir);
        n++;
    }
    fclose(cases);
    assert_true(n > 60);
}

static void
names(void **state)
{
    (void)state;
    const char *good[] = {"top", "top/", "./top/a", "top/a/b.c", "top/a..b", "top/...", "top/.hidden"};
    const char *bad[] = {"", "/x", "top//a", "top/./a", "top/..", "../x", "top/a\nb", "top/\x7f", "./", "."};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_true(cu_extract_name_ok(good[i]));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(cu_extract_name_ok(bad[i]));
}

static ssize_t
cancel_rd(void *ud, void *buf, size_t len)
{
    atomic_int *c = ud;
    atomic_store(c, 1);
    (void)buf;
    (void)len;
    return -ECANCELED;
}

static void
cancels(void **state)
{
    char *dir = tu_tmpdir("cancel");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    atomic_int c = 0;
    struct cu_extract_opts o = {.dirfd = dfd, .what = "x", .cancel = &c, .ahead = *state != NULL};
    struct cu_extract_result res;
    struct cu_error err;
    assert_status(cu_extract(&o, cancel_rd, &c, &res, &err), CU_E_CANCELLED, &err);
    close(dfd);
    tu_tmpdir_free(dir);
}

/* A reader that fails after @left bytes: the download broke under the decoder. */
struct failing {
    int fd;
    size_t left;
    int calls_after; /* reads asked for after the failure */
};

static ssize_t
failing_rd(void *ud, void *buf, size_t len)
{
    struct failing *f = ud;
    if (f->left == 0) {
        f->calls_after++;
        return -EIO;
    }
    ssize_t n = read(f->fd, buf, len < f->left ? len : f->left);
    if (n > 0)
        f->left -= (size_t)n;
    return n < 0 ? -errno : n;
}

static void
read_fails(void **state)
{
    const char *hdir = getenv("HOSTILE_DIR");
    if (!hdir)
        skip();
    char path[4096];
    snprintf(path, sizeof(path), "%s/good.tar.xz", hdir);
    size_t cuts[] = {0, 1, 100, 200};
    for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
        char *dir = tu_tmpdir("readfail");
        int dfd = open(dir, O_RDONLY | O_DIRECTORY);
        struct failing f = {.fd = open(path, O_RDONLY), .left = cuts[k]};
        assert_true(dfd >= 0 && f.fd >= 0);
        struct cu_extract_opts o = {.dirfd = dfd, .what = "good.tar.xz", .ahead = *state != NULL};
        struct cu_extract_result res;
        struct cu_error err;
        cu_error_clear(&err);
        assert_status(cu_extract(&o, failing_rd, &f, &res, &err), CU_E_NETWORK, &err);
        assert_non_null(strstr(cu_error_text(&err), "could not be read to its end"));
        assert_int_equal(err.sys_errno, EIO);
        /* Once the reader failed it is not asked again (no drain after a read error). */
        assert_int_equal(f.calls_after, 1);
        close(f.fd);
        close(dfd);
        tu_tmpdir_free(dir);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names),
        cmocka_unit_test_prestate(cancels, NULL),
        cmocka_unit_test_prestate(cancels, &on),
        cmocka_unit_test_prestate(read_fails, NULL),
        cmocka_unit_test_prestate(read_fails, &on),
        cmocka_unit_test_prestate(hostile_archives, NULL),
        cmocka_unit_test_prestate(hostile_archives, &on),
    };
    return TU_RUN(tests);
}
