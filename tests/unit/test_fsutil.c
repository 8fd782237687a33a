/* SPDX-License-Identifier: MIT */
/*
 * The file-system helpers under failure (issue 16): every write, fsync, close, rename, mkdir,
 * symlink and read that can fail is made to fail through the faultfs shim linked into this
 * test, and each must give the error it documents and leave no temporary file behind.  The
 * trust rules for folders, the path rules, hashing, dlopen and the error texts are checked
 * against fixed expectations (DESIGN's exit codes, sha256 test vectors), not the code's output.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/dl.h"
#include "core/base/error.h"
#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "testutil.h"

void faultfs_set(const char *spec); /* tests/fakes/faultfs.c, linked in */

static char *
path_in(const char *dir, const char *rel)
{
    return cu_xasprintf("%s/%s", dir, rel);
}

/* Nothing named *.cudaup-tmp-* is left in @dir. */
static void
assert_no_tmp(const char *dir)
{
    char *cmd = cu_xasprintf("ls -a '%s' | grep -q cudaup-tmp", dir);
    assert_int_not_equal(system(cmd), 0);
    free(cmd);
}

static void
test_write_atomic_faults(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("fsutil-write");
    char *p = path_in(dir, "state.json");
    struct cu_error err;
    assert_ok(cu_write_file_atomic(p, "old", 3, 0644, &err), &err);

    static const struct {
        const char *rule, *errname;
    } faults[] = {
        {"write:ENOSPC:state.json.cudaup-tmp", "No space left"},
        {"fsync:EIO:state.json.cudaup-tmp", "Input/output error"},
        {"close:EDQUOT:state.json.cudaup-tmp", "quota"},
        {"rename:EXDEV:state.json", "cross-device"},
    };
    for (size_t i = 0; i < CU_N_ELEMENTS(faults); i++) {
        faultfs_set(faults[i].rule);
        cu_error_clear(&err);
        assert_status(cu_write_file_atomic(p, "new contents", 12, 0644, &err), CU_E_IO, &err);
        faultfs_set(NULL);
        if (!strstr(err.msg, "state.json") || !strstr(err.msg, faults[i].errname))
            print_error("%s: %s\n", faults[i].rule, err.msg);
        assert_non_null(strstr(err.msg, faults[i].errname));
        /* The old file is whole and the temporary is gone. */
        char *s = tu_read(p);
        assert_string_equal(s, "old");
        free(s);
        assert_no_tmp(dir);
    }
    /* The file is renamed into place, but its folder cannot be made durable: an error too. */
    char *rule = cu_xasprintf("fsync:EIO:%s:1", dir);
    faultfs_set(rule);
    assert_status(cu_write_file_atomic(p, "new", 3, 0644, &err), CU_E_IO, &err);
    faultfs_set(NULL);
    free(rule);
    assert_no_tmp(dir);
    assert_ok(cu_write_file_atomic(p, "old", 3, 0644, &err), &err);
    /* ENOSPC advises freeing space; EACCES advises another folder. */
    faultfs_set("write:ENOSPC:state.json.cudaup-tmp");
    assert_status(cu_write_file_atomic(p, "x", 1, 0644, &err), CU_E_IO, &err);
    faultfs_set(NULL);
    assert_non_null(strstr(cu_error_advice(&err), "disk space"));
    /* A folder that does not exist: no temp can be made. */
    char *nodir = path_in(dir, "missing/state.json");
    assert_status(cu_write_file_atomic(nodir, "x", 1, 0644, &err), CU_E_IO, &err);
    free(nodir);
    free(p);
    tu_tmpdir_free(dir);
}

static void
test_stale_tmp(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("fsutil-stale");
    char *p = path_in(dir, "f");
    char *old = path_in(dir, "f.cudaup-tmp-old");
    char *young = path_in(dir, "f.cudaup-tmp-young");
    char *other = path_in(dir, "g.cudaup-tmp-old");
    tu_write(dir, "f.cudaup-tmp-old", "x");
    tu_write(dir, "f.cudaup-tmp-young", "x");
    tu_write(dir, "g.cudaup-tmp-old", "x");
    tu_symlink("f", dir, "f.cudaup-tmp-link");
    struct timespec t[2] = {{.tv_sec = 1000}, {.tv_sec = 1000}};
    assert_int_equal(utimensat(AT_FDCWD, old, t, 0), 0);
    assert_int_equal(utimensat(AT_FDCWD, other, t, 0), 0);
    cu_clean_stale_tmp(p);
    assert_false(cu_path_exists(old));  /* ours, old: removed */
    assert_true(cu_path_exists(young)); /* a live writer's: kept */
    assert_true(cu_path_exists(other)); /* another file's: kept */
    char *link = path_in(dir, "f.cudaup-tmp-link");
    assert_true(cu_path_exists(link)); /* not a regular file: kept */
    cu_clean_stale_tmp("/nonexistent-cudaup/x");
    free(link);
    free(p);
    free(old);
    free(young);
    free(other);
    tu_tmpdir_free(dir);
}

static void
test_read_file(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("fsutil-read");
    tu_write(dir, "ten", "0123456789");
    char *p = path_in(dir, "ten"), *out = NULL;
    size_t len = 0;
    struct cu_error err;
    assert_ok(cu_read_file(p, 10, &out, &len, &err), &err);
    assert_int_equal(len, 10);
    free(out);
    assert_status(cu_read_file(p, 9, &out, &len, &err), CU_E_INPUT, &err);
    assert_null(out);
    assert_non_null(strstr(err.msg, "larger than 9 bytes"));
    char *missing = path_in(dir, "missing");
    assert_status(cu_read_file(missing, 10, &out, NULL, &err), CU_E_NOT_FOUND, &err);
    /* A folder opens but cannot be read: EISDIR. */
    assert_status(cu_read_file(dir, 10, &out, NULL, &err), CU_E_IO, &err);
    faultfs_set("read:EIO:ten");
    assert_status(cu_read_file(p, 10, &out, NULL, &err), CU_E_IO, &err);
    faultfs_set(NULL);
    assert_non_null(strstr(err.msg, "Input/output error"));
    free(missing);
    free(p);
    tu_tmpdir_free(dir);
}

static void
test_mkdir_p(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("fsutil-mkdir");
    char *deep = path_in(dir, "a/b/c///");
    struct cu_error err;
    assert_ok(cu_mkdir_p(deep, 0755, &err), &err);
    assert_ok(cu_mkdir_p(deep, 0755, &err), &err); /* again: fine */
    tu_write(dir, "file", "x");
    char *through = path_in(dir, "file/sub");
    assert_status(cu_mkdir_p(through, 0755, &err), CU_E_IO, &err);
    assert_non_null(strstr(err.msg, "file"));
    char *onfile = path_in(dir, "file");
    assert_status(cu_mkdir_p(onfile, 0755, &err), CU_E_IO, &err); /* exists, not a folder */
    assert_non_null(strstr(err.msg, "Not a directory"));
    char *fresh = path_in(dir, "x/y");
    faultfs_set("mkdir:EROFS:/x");
    assert_status(cu_mkdir_p(fresh, 0755, &err), CU_E_IO, &err);
    faultfs_set(NULL);
    assert_non_null(strstr(cu_error_advice(&err), "write to"));
    free(fresh);
    free(onfile);
    free(through);
    free(deep);
    tu_tmpdir_free(dir);
}

static void
test_trusted_dir(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("fsutil-trust");
    struct cu_error err;
    char *good = path_in(dir, "good"), *file = path_in(dir, "file"), *link = path_in(dir, "link");
    char *open_ = path_in(dir, "open"), *sticky = path_in(dir, "sticky"), *missing = path_in(dir, "none");
    assert_int_equal(mkdir(good, 0755), 0);
    tu_write(dir, "file", "x");
    tu_symlink("good", dir, "link");
    assert_int_equal(mkdir(open_, 0777), 0);
    assert_int_equal(chmod(open_, 0777), 0);
    assert_int_equal(mkdir(sticky, 0777), 0);
    assert_int_equal(chmod(sticky, 01777), 0);
    assert_ok(cu_trusted_dir(good, &err), &err);
    assert_ok(cu_trusted_dir(sticky, &err), &err); /* like /tmp */
    assert_status(cu_trusted_dir(missing, &err), CU_E_NOT_FOUND, &err);
    assert_status(cu_trusted_dir(file, &err), CU_E_UNSAFE_PATH, &err);
    assert_non_null(strstr(err.msg, "is not a folder"));
    assert_status(cu_trusted_dir(link, &err), CU_E_UNSAFE_PATH, &err);
    assert_non_null(strstr(err.msg, "symbolic link to good"));
    assert_status(cu_trusted_dir(open_, &err), CU_E_UNSAFE_PATH, &err);
    assert_non_null(strstr(err.msg, "chmod o-w"));
    if (geteuid() == 0) {
        /* Another user's folder (uid 54321 has no name: "uid 54321"). */
        char *theirs = path_in(dir, "theirs");
        assert_int_equal(mkdir(theirs, 0755), 0);
        assert_int_equal(chown(theirs, 54321, 54321), 0);
        assert_status(cu_trusted_dir(theirs, &err), CU_E_UNSAFE_PATH, &err);
        assert_non_null(strstr(err.msg, "uid 54321"));
        free(theirs);
    } else {
        char *rootdir = cu_xstrdup("/");
        assert_ok(cu_trusted_dir(rootdir, &err), &err); /* root's: trusted */
        free(rootdir);
    }
    char name[64];
    assert_string_equal(cu_user_name(0, name, sizeof(name)), "root");
    assert_string_equal(cu_user_name(54321, name, sizeof(name)), "uid 54321");
    free(good);
    free(file);
    free(link);
    free(open_);
    free(sticky);
    free(missing);
    tu_tmpdir_free(dir);
}

static void
test_rm_rf(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("fsutil-rm");
    struct cu_error err;
    /* Folders with no permissions at all, two levels deep, still go. */
    tu_write(dir, "t/a/b/file", "x");
    char *a = path_in(dir, "t/a"), *b = path_in(dir, "t/a/b"), *t = path_in(dir, "t");
    assert_int_equal(chmod(b, 0), 0);
    assert_int_equal(chmod(a, 0), 0);
    assert_ok(cu_rm_rf(t, &err), &err);
    assert_false(cu_path_exists(t));
    assert_ok(cu_rm_rf(t, &err), &err); /* missing: fine */
    tu_write(dir, "plain", "x");
    char *plain = path_in(dir, "plain");
    assert_ok(cu_rm_rf(plain, &err), &err);
    assert_false(cu_path_exists(plain));
    /* A link to a folder goes, the folder stays. */
    tu_write(dir, "kept/f", "x");
    tu_symlink("kept", dir, "ln");
    char *ln = path_in(dir, "ln"), *kept = path_in(dir, "kept/f");
    assert_ok(cu_rm_rf(ln, &err), &err);
    assert_true(cu_path_exists(kept));
    /* Atomic removal: the rename fails, nothing is removed. */
    tu_write(dir, "d/f", "x");
    char *d = path_in(dir, "d"), *trash = path_in(dir, ".trash-d"), *df = path_in(dir, "d/f");
    faultfs_set("rename:EXDEV:.trash-d");
    assert_status(cu_rm_rf_atomic(d, trash, &err), CU_E_IO, &err);
    faultfs_set(NULL);
    assert_true(cu_path_exists(df));
    assert_ok(cu_rm_rf_atomic(d, trash, &err), &err);
    assert_false(cu_path_exists(d));
    assert_false(cu_path_exists(trash));
    /* A path under a file cannot be examined. */
    char *under = path_in(dir, "kept/f/x");
    assert_status(cu_rm_rf(under, &err), CU_E_IO, &err);
    free(under);
    free(d);
    free(trash);
    free(df);
    free(ln);
    free(kept);
    free(plain);
    free(a);
    free(b);
    free(t);
    tu_tmpdir_free(dir);
}

static void
test_relpath(void **state)
{
    (void)state;
    static const char *const good[] = {"a", "a/b", "a/b.c/d", "..a", "a/...", ".hidden"};
    static const char *const bad[] = {"", "/a", "a/", "a//b", ".", "..", "a/./b", "a/../b", "a/..",
                                      "a\nb", "a\x7f", "./a"};
    for (size_t i = 0; i < CU_N_ELEMENTS(good); i++)
        assert_true(cu_relpath_ok(good[i]));
    for (size_t i = 0; i < CU_N_ELEMENTS(bad); i++) {
        if (cu_relpath_ok(bad[i]))
            print_error("accepted \"%s\"\n", bad[i]);
        assert_false(cu_relpath_ok(bad[i]));
    }
    assert_false(cu_relpath_ok(NULL));
    char longname[300];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    assert_false(cu_relpath_ok(longname)); /* a component over 255 */
    char *huge = cu_xcalloc(5000, 1);
    for (size_t i = 0; i + 2 < 5000; i += 2)
        memcpy(huge + i, "a/", 2);
    huge[4997] = 'a';
    huge[4998] = '\0';
    assert_false(cu_relpath_ok(huge)); /* over 4096 */
    free(huge);
}

static void
test_openat_dir(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("fsutil-openat");
    struct cu_error err;
    int root = open(dir, O_RDONLY | O_DIRECTORY), fd = -1;
    assert_true(root >= 0);
    assert_ok(cu_openat_dir(root, "a//b/c", true, &fd, &err), &err);
    close(fd);
    assert_ok(cu_openat_dir(root, "", false, &fd, &err), &err);
    close(fd);
    assert_status(cu_openat_dir(root, "missing/x", false, &fd, &err), CU_E_IO, &err);
    assert_int_equal(fd, -1);
    tu_symlink("a", dir, "ln");
    assert_status(cu_openat_dir(root, "ln/b", false, &fd, &err), CU_E_UNSAFE_PATH, &err);
    assert_status(cu_openat_dir(root, "ln/b", true, &fd, &err), CU_E_UNSAFE_PATH, &err);
    tu_write(dir, "file", "x");
    assert_status(cu_openat_dir(root, "file/x", true, &fd, &err), CU_E_IO, &err);
    faultfs_set("mkdir:ENOSPC:/new");
    assert_status(cu_openat_dir(root, "new/x", true, &fd, &err), CU_E_IO, &err);
    faultfs_set(NULL);
    assert_non_null(strstr(err.msg, "No space"));
    assert_status(cu_openat_dir(-1, "a", false, &fd, &err), CU_E_IO, &err);

    /* openat2 beneath: links and ".." never lead out. */
    const char *base = NULL;
    int pfd = cu_open_parent_beneath(dir, "a/b/c/file", &base);
    assert_true(pfd >= 0);
    assert_string_equal(base, "file");
    close(pfd);
    pfd = cu_open_parent_beneath(dir, "top", &base);
    assert_true(pfd >= 0);
    close(pfd);
    assert_int_equal(cu_open_parent_beneath(dir, "ln/b/x", &base), -ELOOP);
    assert_int_equal(cu_open_parent_beneath(dir, "a/../../x", &base), -ELOOP);
    assert_int_equal(cu_open_parent_beneath(dir, "file/x", &base), -ENOTDIR);
    assert_int_equal(cu_open_parent_beneath(dir, "nope/x", &base), -ENOENT);
    char *missing = path_in(dir, "missing");
    assert_int_equal(cu_open_parent_beneath(missing, "x", &base), -ENOENT);
    free(missing);
    close(root);
    tu_tmpdir_free(dir);
}

static void
test_symlink_replace(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("fsutil-link");
    struct cu_error err;
    char *ln = path_in(dir, "cuda");
    assert_ok(cu_symlink_replace("cuda-12.4", ln, &err), &err);
    assert_ok(cu_symlink_replace("cuda-13.0", ln, &err), &err);
    char to[64];
    ssize_t n = readlink(ln, to, sizeof(to) - 1);
    assert_true(n > 0);
    to[n] = '\0';
    assert_string_equal(to, "cuda-13.0");
    faultfs_set("rename:EIO:/cuda");
    assert_status(cu_symlink_replace("cuda-14.0", ln, &err), CU_E_IO, &err);
    faultfs_set("symlink:EROFS:/cuda");
    assert_status(cu_symlink_replace("cuda-14.0", ln, &err), CU_E_IO, &err);
    faultfs_set(NULL);
    n = readlink(ln, to, sizeof(to) - 1);
    to[n] = '\0';
    assert_string_equal(to, "cuda-13.0"); /* unchanged by either failure */
    assert_no_tmp(dir);

    char *p = cu_link_target_path("/usr/local/cuda", "cuda-13.0");
    assert_string_equal(p, "/usr/local/cuda-13.0");
    free(p);
    p = cu_link_target_path("/cuda", "/opt/x");
    assert_string_equal(p, "/opt/x");
    free(p);
    p = cu_link_target_path("/cuda", "x");
    assert_string_equal(p, "/x");
    free(p);
    free(ln);
    tu_tmpdir_free(dir);
}

static void
test_sha256(void **state)
{
    (void)state;
    /* FIPS 180-2 test vectors. */
    char out[65];
    cu_sha256_hex("abc", 3, out);
    assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    cu_sha256_hex("", 0, out);
    assert_string_equal(out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    char *dir = tu_tmpdir("fsutil-sha");
    tu_write(dir, "abc", "abc");
    char *p = path_in(dir, "abc"), *missing = path_in(dir, "none");
    unsigned long long size = 0;
    struct cu_error err;
    assert_ok(cu_sha256_file(p, out, &size, &err), &err);
    assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(size, 3);
    assert_status(cu_sha256_file(missing, out, NULL, &err), CU_E_NOT_FOUND, &err);
    assert_status(cu_sha256_file(dir, out, NULL, &err), CU_E_IO, &err); /* EISDIR */
    faultfs_set("read:EIO:/abc");
    assert_status(cu_sha256_file(p, out, NULL, &err), CU_E_IO, &err);
    faultfs_set(NULL);
    /* A finished or never-started hash yields no digest rather than a wrong one. */
    struct cu_sha256 h = {0};
    cu_sha256_update(&h, "abc", 3);
    cu_sha256_final(&h, out);
    assert_string_equal(out, "");
    free(p);
    free(missing);
    tu_tmpdir_free(dir);
}

static void
test_errors(void **state)
{
    (void)state;
    /* DESIGN.md's exit codes. */
    assert_int_equal(cu_status_exit_code(CU_OK), 0);
    assert_int_equal(cu_status_exit_code(CU_E_IO), 1);
    assert_int_equal(cu_status_exit_code(CU_E_CHECKSUM), 1);
    assert_int_equal(cu_status_exit_code(CU_E_USAGE), 2);
    assert_int_equal(cu_status_exit_code(CU_E_INPUT), 2);
    assert_int_equal(cu_status_exit_code(CU_E_UNSUPPORTED), 3);
    assert_int_equal(cu_status_exit_code(CU_E_NOT_FOUND), 3);
    assert_int_equal(cu_status_exit_code(CU_E_PROBLEMS), 4);
    assert_int_equal(cu_status_exit_code(CU_E_CANCELLED), 130);
    assert_int_equal(cu_status_exit_code((enum cu_status)999), 1);
    assert_string_equal(cu_status_name((enum cu_status)999), "CU_E_UNKNOWN");
    assert_string_equal(cu_status_str((enum cu_status)999), "unknown error");
    assert_string_equal(cu_status_name(CU_E_CHECKSUM), "CU_E_CHECKSUM");

    struct cu_error err;
    cu_error_clear(NULL);
    assert_int_equal(cu_error_set(NULL, CU_E_IO, 0, "x"), CU_E_IO);
    cu_error_prefix(NULL, "x");
    cu_error_advise(NULL, "x");
    assert_null(cu_error_advice(NULL));
    assert_string_equal(cu_error_text(NULL), cu_status_str(CU_OK));
    /* No message: the status's own words. */
    cu_error_set(&err, CU_E_BUSY, 0, NULL);
    assert_string_equal(cu_error_text(&err), cu_status_str(CU_E_BUSY));
    assert_non_null(strstr(cu_error_advice(&err), "other cudaup"));
    cu_error_prefix(&err, "Installing %s", "13.0");
    assert_string_equal(err.msg, "Installing 13.0");
    cu_error_set(&err, CU_E_IO, ENOENT, NULL);
    assert_string_equal(err.msg, "No such file or directory");
    assert_null(cu_error_advice(&err)); /* no advice fits ENOENT */
    cu_error_set(&err, CU_E_IO, EACCES, "Cannot write %s", "/x");
    assert_string_equal(err.msg, "Cannot write /x: Permission denied");
    assert_non_null(strstr(cu_error_advice(&err), "--prefix"));
    cu_error_prefix(&err, "Step %d", 2);
    assert_string_equal(err.msg, "Step 2: Cannot write /x: Permission denied");
    cu_error_advise(&err, "Do %s.", "this");
    assert_string_equal(cu_error_advice(&err), "Do this.");
    static const enum cu_status advised[] = {CU_E_NETWORK, CU_E_CHECKSUM, CU_E_TOOL};
    for (size_t i = 0; i < CU_N_ELEMENTS(advised); i++) {
        cu_error_set(&err, advised[i], 0, "x");
        assert_non_null(cu_error_advice(&err));
    }
    cu_error_set(&err, CU_E_INPUT, 0, "x");
    assert_null(cu_error_advice(&err));
    /* A long path and a long reason are both kept in part. */
    char longp[600];
    memset(longp, 'p', sizeof(longp) - 1);
    longp[sizeof(longp) - 1] = '\0';
    cu_error_set(&err, CU_E_IO, 0, "reason at the end");
    cu_error_prefix(&err, "%s", longp);
    assert_non_null(strstr(err.msg, "reason at the end"));
    /* A path that fills the message: the system's reason is still at its end (issue 25 item 7). */
    cu_error_set(&err, CU_E_IO, ENAMETOOLONG, "Cannot write %s", longp);
    assert_true(cu_str_has_suffix(err.msg, "...: File name too long"));
    assert_true(cu_str_has_suffix(err.msg_en, "...: File name too long"));
    char buf[64];
    assert_non_null(strstr(cu_strerror(ENOSPC, buf, sizeof(buf)), "No space"));
}

struct caught {
    int n;
    char last[256];
};

static void
sink(void *ud, enum cu_log_level level, const char *tag, const char *msg, const char *msg_en)
{
    (void)level;
    (void)tag;
    (void)msg_en;
    struct caught *c = ud;
    c->n++;
    snprintf(c->last, sizeof(c->last), "%s", msg);
}

static void
test_log(void **state)
{
    (void)state;
    assert_int_equal(cu_log_level_parse("warning"), CU_LOG_WARN);
    assert_int_equal(cu_log_level_parse("DEBUG"), CU_LOG_DEBUG);
    assert_int_equal(cu_log_level_parse("loud"), -1);
    assert_int_equal(cu_log_level_parse(NULL), -1);
    assert_string_equal(cu_log_level_name((enum cu_log_level)99), "?");
    assert_string_equal(cu_log_level_name(CU_LOG_DEBUG), "debug");
    struct caught c = {0};
    enum cu_log_level was = cu_log_get_level();
    cu_log_set_handler(sink, &c);
    cu_log_set_level(CU_LOG_WARN);
    cu_log_msg(CU_LOG_DEBUG, "t", "hidden");
    assert_int_equal(c.n, 0);
    cu_log_msg(CU_LOG_WARN, "t", "a\033[2Jb\nc\td");
    assert_int_equal(c.n, 1);
    assert_string_equal(c.last, "a?[2Jb?c\td"); /* control bytes never reach a terminal */
    setenv("CUDAUP_DEBUG", "debug", 1);
    cu_log_init_from_env();
    assert_int_equal(cu_log_get_level(), CU_LOG_DEBUG);
    unsetenv("CUDAUP_DEBUG");
    cu_log_set_level(was);
    cu_log_set_handler(NULL, NULL);
}

typedef double (*cos_fn)(double);
struct mtab {
    cos_fn cos;
    void *nothing;
};

static void
test_dl(void **state)
{
    (void)state;
    struct cu_dl dl;
    struct mtab t = {0};
    struct cu_error err;
    const struct cu_dl_sym ok[] = {{"cos", offsetof(struct mtab, cos), false},
                                   {"cudaup_no_such_fn", offsetof(struct mtab, nothing), true}};
    const struct cu_dl_sym need[] = {{"cudaup_no_such_fn", offsetof(struct mtab, nothing), false}};
    const char *const missing[] = {"/nonexistent/libx.so", NULL};
    const char *const libm[] = {"/nonexistent/libx.so", "libm.so.6", NULL};
    assert_status(cu_dl_open(&dl, missing, ok, 2, &t, &err), CU_E_NOT_FOUND, &err);
    assert_non_null(strstr(err.msg, "/nonexistent/libx.so was not found"));
    assert_status(cu_dl_open(&dl, NULL, ok, 2, &t, &err), CU_E_NOT_FOUND, &err);
    assert_ok(cu_dl_open(&dl, libm, ok, 2, &t, &err), &err);
    assert_string_equal(dl.path, "libm.so.6");
    assert_true(t.cos(0.0) == 1.0);
    assert_null(t.nothing); /* optional and absent */
    cu_dl_close(&dl);
    cu_dl_close(&dl); /* twice: harmless */
    assert_status(cu_dl_open(&dl, libm, need, 1, &t, &err), CU_E_DRIVER, &err);
    assert_non_null(strstr(err.msg, "libm.so.6 has no function cudaup_no_such_fn"));
    /* A file that is not a library: the loader's reason, not "not found". */
    char *dir = tu_tmpdir("fsutil-dl");
    tu_write(dir, "libfake.so", "not an ELF file");
    char *p = path_in(dir, "libfake.so");
    const char *const bad[] = {p, NULL};
    assert_status(cu_dl_open(&dl, bad, ok, 2, &t, &err), CU_E_DRIVER, &err);
    free(p);
    tu_tmpdir_free(dir);
}

/* ASan builds: a refused allocation returns NULL, as libc's does, so the OOM path runs. */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

static void
exec_ok(const char *const *argv, const struct cu_exec_opts *o, struct cu_exec_result *res)
{
    struct cu_error err;
    cu_exec_result_init(res);
    assert_ok(cu_exec(argv, o, res, &err), &err);
}

static size_t seen_bytes;

static void
count_output(void *ud, const char *data, size_t len)
{
    (void)ud;
    (void)data;
    seen_bytes += len;
}

static void
test_exec(void **state)
{
    (void)state;
    struct cu_exec_result res;
    struct cu_error err;
    const char *const three[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    exec_ok(three, NULL, &res);
    assert_int_equal(res.exit_code, 3);
    assert_string_equal(res.out.data, "out\n");
    assert_string_equal(res.err.data, "err\n");
    cu_exec_result_fini(&res);
    /* Not on PATH, or not executable: CU_E_NOT_FOUND before anything runs. */
    const char *const missing[] = {"cudaup-no-such-tool", NULL};
    cu_exec_result_init(&res);
    assert_status(cu_exec(missing, NULL, &res, &err), CU_E_NOT_FOUND, &err);
    cu_exec_result_fini(&res);
    char *dir = tu_tmpdir("fsutil-exec");
    tu_write(dir, "tool", "#!/bin/sh\necho hi\n");
    char *tool = path_in(dir, "tool");
    assert_int_equal(chmod(tool, 0644), 0);
    const char *const noexec[] = {tool, NULL};
    cu_exec_result_init(&res);
    assert_status(cu_exec(noexec, NULL, &res, &err), CU_E_NOT_FOUND, &err);
    cu_exec_result_fini(&res);
    /* By name, on the PATH of the environment given. */
    assert_int_equal(chmod(tool, 0755), 0);
    char *pathvar = cu_xasprintf("PATH=/nonexistent:%s", dir);
    const char *const envp[] = {pathvar, NULL};
    const char *const byname[] = {"tool", NULL};
    struct cu_exec_opts eo = {.envp = envp};
    exec_ok(byname, &eo, &res);
    assert_string_equal(res.out.data, "hi\n");
    cu_exec_result_fini(&res);
    char *found = cu_which("tool", envp);
    assert_string_equal(found, tool);
    free(found);
    const char *const nopath[] = {"HOME=/", NULL};
    found = cu_which("sh", nopath); /* no PATH: /usr/bin:/bin */
    assert_non_null(found);
    free(found);
    /* In the folder asked for. */
    const char *const pwd[] = {"/bin/sh", "-c", "pwd -P", NULL};
    struct cu_exec_opts co = {.cwd = dir};
    exec_ok(pwd, &co, &res);
    char real[4096];
    assert_non_null(realpath(dir, real));
    assert_int_equal(strncmp(res.out.data, real, strlen(real)), 0);
    cu_exec_result_fini(&res);
    /* A time limit stops the command and what it started. */
    const char *const slow[] = {"/bin/sh", "-c", "sleep 30 & sleep 30", NULL};
    struct cu_exec_opts to = {.timeout_ms = 300};
    exec_ok(slow, &to, &res);
    assert_true(res.timed_out);
    assert_true(res.exit_code > 128);
    cu_exec_result_fini(&res);
    /* Cancelled from outside. */
    atomic_int cancel = 1;
    struct cu_exec_opts cc = {.cancel = &cancel};
    exec_ok(slow, &cc, &res);
    assert_true(res.cancelled);
    cu_exec_result_fini(&res);
    /* Killed by a signal: 128 + its number. */
    const char *const killed[] = {"/bin/sh", "-c", "kill -9 $$", NULL};
    exec_ok(killed, NULL, &res);
    assert_int_equal(res.exit_code, 128 + SIGKILL);
    cu_exec_result_fini(&res);
    /* Output past the limit is dropped, but every byte is seen by on_output. */
    const char *const loud[] = {"/bin/sh", "-c", "head -c 100000 /dev/zero", NULL};
    seen_bytes = 0;
    struct cu_exec_opts lo = {.max_output = 1000, .on_output = count_output};
    exec_ok(loud, &lo, &res);
    assert_true(res.out.len <= 1000);
    assert_int_equal(seen_bytes, 100000);
    cu_exec_result_fini(&res);
    unsigned n = cu_cpu_count();
    assert_true(n >= 1 && n <= (unsigned)sysconf(_SC_NPROCESSORS_CONF));
    free(pathvar);
    free(tool);
    tu_tmpdir_free(dir);
}

static void
oom_exit(void)
{
    _exit(42);
}

/* Each allocation that cannot be had ends in the OOM hook, never in a NULL handed on. */
static void
test_oom(void **state)
{
    (void)state;
    for (int k = 0; k < 5; k++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            cu_mem_set_oom_hook(oom_exit);
            void *p = NULL;
            switch (k) {
            case 0: p = cu_xmalloc(SIZE_MAX - 4096); break;
            case 1: p = cu_xcalloc(SIZE_MAX / 2, 4); break;
            case 2: p = cu_xrealloc(NULL, SIZE_MAX - 4096); break;
            case 3: p = cu_xreallocarray(NULL, SIZE_MAX / 2, 4); break;
            default: p = cu_xreallocarray(NULL, SIZE_MAX - 4096, 1); break;
            }
            (void)p;
            _exit(0);
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 42)
            print_error("case %d: status %d\n", k, status);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 42);
    }
    assert_null(cu_xstrdup(NULL));
    assert_null(cu_xstrndup(NULL, 3));
    char *s = cu_xstrndup("abcdef", 3);
    assert_string_equal(s, "abc");
    free(s);
    void *z = cu_xmalloc(0); /* zero bytes: still a pointer to free */
    assert_non_null(z);
    free(z);
    z = cu_xcalloc(0, 0);
    assert_non_null(z);
    z = cu_xrealloc(z, 0);
    assert_non_null(z);
    free(z);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_atomic_faults),
        cmocka_unit_test(test_stale_tmp),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_mkdir_p),
        cmocka_unit_test(test_trusted_dir),
        cmocka_unit_test(test_rm_rf),
        cmocka_unit_test(test_relpath),
        cmocka_unit_test(test_openat_dir),
        cmocka_unit_test(test_symlink_replace),
        cmocka_unit_test(test_sha256),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_log),
        cmocka_unit_test(test_dl),
        cmocka_unit_test(test_exec),
        cmocka_unit_test(test_oom),
    };
    return TU_RUN(tests);
}
