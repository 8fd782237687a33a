/* SPDX-License-Identifier: MIT */
/*
 * cu_tree_trusted (core/unpack/treecheck.c) while others write in the folder it checks.  A shared
 * cache is used by several runs at once: each makes and removes its own lock and temporary files
 * in archives/, so an entry listed by the walk can be gone by the time it is examined.  Such an
 * entry is no danger (it is not there), and the check must not fail on it: it did, and one of two
 * installs sharing a cache failed with "Cannot examine CACHE/archives/./SHA.lock: No such file or
 * directory" (found by 20 runs of test_cache under load).
 *
 * The moment is made here, not waited for: the check looks up each entry's owner's name
 * (getpwuid_r, defined below over the C library's), and at the first entry below the folder this
 * test removes the folder's other files, which the walk has already listed and not yet examined.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/error.h"
#include "core/base/mem.h"
#include "core/unpack/treecheck.h"
#include "testutil.h"

/* Armed by a test: the folder whose files go at the owner look-up for its first entry (the 3rd: the folder is
 * looked up twice, before the walk and as its first step). */
static const char *vanish_dir;
static int lookups;
static int vanished;

int
getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len, struct passwd **res)
{
    static int (*real)(uid_t, struct passwd *, char *, size_t, struct passwd **);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "getpwuid_r");
    if (vanish_dir && ++lookups == 3) {
        DIR *d = opendir(vanish_dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char *p = cu_xasprintf("%s/%s", vanish_dir, e->d_name);
            if (unlink(p) == 0)
                vanished++;
            free(p);
        }
        if (d)
            closedir(d);
    }
    return real(uid, pw, buf, len, res);
}

static void
entries_gone_during_the_walk(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("treecheck-vanish");
    char *archives = cu_xasprintf("%s/archives", dir);
    assert_int_equal(mkdir(archives, 0755), 0);
    static const char *const names[] = {"a.lock", "b.partial.meta.cudaup-tmp-1-Ab12Cd", "c.lock"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        tu_write(archives, names[i], "x\n");
    struct cu_error err;
    cu_error_clear(&err);
    vanish_dir = archives;
    lookups = vanished = 0;
    enum cu_status st = cu_tree_trusted(archives, &err);
    vanish_dir = NULL;
    /* The moment was made: files the walk had listed were removed before it examined them. */
    assert_true(vanished >= 2);
    assert_ok(st, &err);
    free(archives);
    tu_tmpdir_free(dir);
}

/* What is there is still judged: a folder every user may write, found in the same walk, is refused. */
static void
still_judged(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("treecheck-judged");
    char *open_dir = cu_xasprintf("%s/archives/open", dir);
    char *archives = cu_xasprintf("%s/archives", dir);
    assert_int_equal(mkdir(archives, 0755), 0);
    assert_int_equal(mkdir(open_dir, 0777), 0);
    assert_int_equal(chmod(open_dir, 0777), 0);
    struct cu_error err;
    cu_error_clear(&err);
    assert_status(cu_tree_trusted(archives, &err), CU_E_UNSAFE_PATH, &err);
    assert_non_null(strstr(err.msg, "/open"));
    free(open_dir);
    free(archives);
    tu_tmpdir_free(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entries_gone_during_the_walk),
        cmocka_unit_test(still_judged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
