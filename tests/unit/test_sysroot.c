/* SPDX-License-Identifier: MIT */
/*
 * A machine root trusted no further than a prefix (issue 46): what cudaup writes inside a root resolves
 * inside it (the tree's own absolute links included), paths are named as that machine sees them, and a
 * folder on the way to a place cudaup writes, or to a program it runs inside a root, is root's or this
 * user's.  Each tree's "host" side is a scratch folder of this test's, never the real /etc or /usr/local.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "testutil.h"

#define OTHER 54321 /* a uid that is neither root nor this user */

static char *
path_in(const char *dir, const char *rel)
{
    return cu_xasprintf("%s/%s", dir, rel);
}

static void
path_trust(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("sysroot-trust");
    struct cu_error err;
    tu_write(dir, "mine/a/b", "");
    char *mine = path_in(dir, "mine/a/state");
    assert_ok(cu_path_trusted(mine, &err), &err);
    char *missing = path_in(dir, "nothing/here/yet");
    assert_ok(cu_path_trusted(missing, &err), &err);
    /* Every user may write it, without the sticky bit: refused; with it (as /tmp): fine. */
    char *ww = path_in(dir, "ww");
    assert_ok(cu_mkdir_p(ww, 0755, &err), &err);
    assert_int_equal(chmod(ww, 0777), 0);
    char *below = path_in(dir, "ww/state");
    assert_status(cu_path_trusted(below, &err), CU_E_UNSAFE_PATH, &err);
    assert_non_null(strstr(err.msg, ww));
    assert_int_equal(chmod(ww, 01777), 0);
    assert_ok(cu_path_trusted(below, &err), &err);
    if (geteuid() == 0) {
        /* A folder of another user's on the way (issue 46 item 4): that user could swap what is below. */
        char *theirs = path_in(dir, "theirs");
        assert_ok(cu_mkdir_p(theirs, 0755, &err), &err);
        assert_int_equal(chown(theirs, OTHER, OTHER), 0);
        char *st = path_in(dir, "theirs/mine/state");
        assert_status(cu_path_trusted(st, &err), CU_E_UNSAFE_PATH, &err);
        assert_non_null(strstr(err.msg, "uid 54321"));
        /* The same folder reached through root's link: what it leads to is judged. */
        tu_symlink(theirs, dir, "rootlink");
        char *vl = path_in(dir, "rootlink/state");
        assert_status(cu_path_trusted(vl, &err), CU_E_UNSAFE_PATH, &err);
        /* Another user's link on the way, to root's folder: refused by its owner. */
        tu_symlink(path_in(dir, "mine"), dir, "theirlink");
        char *tl = path_in(dir, "theirlink");
        assert_int_equal(lchown(tl, OTHER, OTHER), 0);
        char *vt = path_in(dir, "theirlink/state");
        assert_status(cu_path_trusted(vt, &err), CU_E_UNSAFE_PATH, &err);
        assert_non_null(strstr(err.msg, "link owned by uid 54321"));
        free(vt);
        free(tl);
        free(vl);
        free(st);
        free(theirs);
    }
    free(below);
    free(ww);
    free(missing);
    free(mine);
    tu_tmpdir_free(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(path_trust),
    };
    return TU_RUN(tests);
}
