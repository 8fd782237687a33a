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
#include "core/base/sysroot.h"
#include "core/install/envfile.h"
#include "core/machine/gpulib.h"
#include "testutil.h"

#define OTHER 54321 /* a uid that is neither root nor this user */

static char *
path_in(const char *dir, const char *rel)
{
    return cu_xasprintf("%s/%s", dir, rel);
}

/* A tree under @dir/tree whose /etc/profile.d is an absolute link to @dir/host (the escape's canary). */
static void
tree_with_escape(const char *dir, char **tree, char **host)
{
    *tree = path_in(dir, "tree");
    *host = path_in(dir, "host");
    tu_write(dir, "tree/etc/os-release", "ID=debian\n");
    tu_write(dir, "host/keep", "host\n");
    tu_symlink(*host, dir, "tree/etc/profile.d");
}

static void
profiled_stays_inside(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("sysroot-profiled");
    char *tree, *host;
    struct cu_sysroot root;
    struct cu_error err;
    bool changed = false;
    tree_with_escape(dir, &tree, &host);
    assert_ok(cu_sysroot_init(&root, tree, &err), &err);
    char *pd = path_in(tree, "etc/profile.d");
    /* The link is followed inside the tree: the file lands at TREE/HOST/cudaup.sh, never in HOST. */
    assert_ok(cu_profiled_install(&root, pd, "/var/lib/cudaup", &changed, &err), &err);
    assert_true(changed);
    char *canary = path_in(host, "cudaup.sh");
    assert_false(cu_path_exists(canary));
    char *inside = cu_xasprintf("%s%s/cudaup.sh", tree, host);
    char *text = tu_read(inside);
    assert_non_null(text);
    assert_non_null(strstr(text, "'/var/lib/cudaup/env.sh'"));
    free(text);
    /* uninstall removes the tree's file, and never a host file of that name. */
    tu_write(host, "cudaup.sh", "# the host's own\n");
    assert_ok(cu_profiled_uninstall(&root, pd, &changed, &err), &err);
    assert_true(changed);
    assert_false(cu_path_exists(inside));
    text = tu_read(canary);
    assert_string_equal(text, "# the host's own\n");
    free(text);
    /* A whole /etc that is an absolute link: the same. */
    char *tree2 = path_in(dir, "tree2"), *host2 = path_in(dir, "host2");
    tu_write(dir, "host2/keep", "host\n");
    tu_write(tree2, "real-etc/os-release", "ID=debian\n");
    char *abs_etc = cu_xasprintf("%s/real-etc", host2);
    tu_write(tree2, "x", "");
    tu_symlink(abs_etc, tree2, "etc");
    struct cu_sysroot root2;
    assert_ok(cu_sysroot_init(&root2, tree2, &err), &err);
    char *pd2 = path_in(tree2, "etc/profile.d");
    assert_ok(cu_profiled_install(&root2, pd2, "/var/lib/cudaup", &changed, &err), &err);
    char *canary2 = path_in(host2, "real-etc");
    assert_false(cu_path_exists(canary2));
    char *inside2 = cu_xasprintf("%s%s/real-etc/profile.d/cudaup.sh", tree2, host2);
    assert_true(cu_path_exists(inside2));
    cu_sysroot_fini(&root2);
    cu_sysroot_fini(&root);
    free(inside2);
    free(canary2);
    free(pd2);
    free(abs_etc);
    free(tree2);
    free(host2);
    free(inside);
    free(canary);
    free(pd);
    free(tree);
    free(host);
    tu_tmpdir_free(dir);
}

static void
resolve_inside(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("sysroot-resolve");
    char *tree = path_in(dir, "tree"), *host = path_in(dir, "host");
    struct cu_sysroot root;
    struct cu_error err;
    char *out = NULL;
    tu_write(dir, "tree/usr/share/x", "");
    tu_write(dir, "host/keep", "");
    /* TREE/var is an absolute link to HOST: inside the tree that is TREE/HOST, which exists there. */
    char *inner = cu_xasprintf("%s%s", tree, host);
    assert_ok(cu_mkdir_p(inner, 0755, &err), &err);
    tu_symlink(host, dir, "tree/var");
    assert_ok(cu_sysroot_init(&root, tree, &err), &err);
    assert_ok(cu_sysroot_resolve(&root, "/var/lib/cudaup", &out, &err), &err);
    char *want = cu_xasprintf("%s/lib/cudaup", inner);
    assert_string_equal(out, want);
    free(out);
    assert_ok(cu_sysroot_resolve(&root, "/usr/local", &out, &err), &err);
    char *want2 = path_in(tree, "usr/local");
    assert_string_equal(out, want2);
    free(out);
    /* A link that leads nowhere inside the tree (its target is only on the host): refused, never followed. */
    tu_symlink(host, dir, "tree/opt");
    assert_int_equal(rmdir(inner), 0);
    assert_status(cu_sysroot_resolve(&root, "/opt/cudaup", &out, &err), CU_E_UNSAFE_PATH, &err);
    assert_null(out);
    /* A file where a folder should be. */
    tu_write(dir, "tree/srv", "file");
    assert_status(cu_sysroot_resolve(&root, "/srv/x", &out, &err), CU_E_IO, &err);
    /* Made inside the tree, one folder at a time, where the tree's link leads inside it; never on the host. */
    int fd = cu_sysroot_open_dir(&root, "/opt/sub", true);
    assert_true(fd >= 0);
    close(fd);
    char *hsub = path_in(host, "sub");
    assert_false(cu_path_exists(hsub));
    char *tsub = cu_xasprintf("%s%s/sub", tree, host);
    assert_true(cu_is_dir(tsub));
    free(tsub);
    fd = cu_sysroot_open_dir(&root, "/usr/local/share", true);
    assert_true(fd >= 0);
    close(fd);
    char *made = path_in(tree, "usr/local/share");
    assert_true(cu_is_dir(made));
    cu_sysroot_fini(&root);
    free(made);
    free(hsub);
    free(want);
    free(want2);
    free(inner);
    free(tree);
    free(host);
    tu_tmpdir_free(dir);
}

/* The GPU libraries of a tree are loaded from the tree, even through its absolute links (never this host's). */
static void
libraries_inside(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("sysroot-libs");
    char *tree = path_in(dir, "tree"), *host = path_in(dir, "host");
    struct cu_sysroot root;
    struct cu_error err;
    tu_write(dir, "host/libnvidia-ml.so.1", "the host's\n");
    char *inner = cu_xasprintf("%s%s", tree, host);
    tu_write(inner, "libnvidia-ml.so.1", "the tree's\n");
    char *abs_lib = path_in(host, "libnvidia-ml.so.1");
    tu_write(tree, "usr/lib/x86_64-linux-gnu/.keep", "");
    tu_symlink(abs_lib, tree, "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
    assert_ok(cu_sysroot_init(&root, tree, &err), &err);
    char **cand = cu_gpulib_candidates(&root, "libnvidia-ml.so.1", NULL);
    assert_non_null(cand[0]);
    char *want = path_in(inner, "libnvidia-ml.so.1");
    assert_string_equal(cand[0], want);
    assert_null(cand[1]);
    cu_strv_free(cand);
    cu_sysroot_fini(&root);
    free(want);
    free(abs_lib);
    free(inner);
    free(tree);
    free(host);
    tu_tmpdir_free(dir);
}

static void
seen_paths(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("sysroot-seen");
    char *tree = path_in(dir, "tree");
    char *p;
    tu_write(dir, "tree/usr/local/x", "");
    p = cu_root_seen_path(tree, path_in(tree, "usr/local/cuda"));
    assert_string_equal(p, "/usr/local/cuda");
    free(p);
    p = cu_root_seen_path(tree, tree);
    assert_string_equal(p, "/");
    free(p);
    p = cu_root_seen_path("/", "/opt/x");
    assert_string_equal(p, "/opt/x");
    free(p);
    assert_null(cu_root_seen_path(tree, "/opt/x"));
    char *sib = cu_xasprintf("%s-other/usr", tree); /* a name that begins like the root's is not inside it */
    assert_null(cu_root_seen_path(tree, sib));
    free(sib);
    /* Reached through a link to the tree. */
    tu_symlink(tree, dir, "alias");
    char *via = path_in(dir, "alias/usr/local/cuda-12.6");
    p = cu_root_seen_path(tree, via);
    assert_string_equal(p, "/usr/local/cuda-12.6");
    free(p);
    free(via);
    free(tree);
    tu_tmpdir_free(dir);
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
        /* Inside a root: a program under another user's folder, or their program, is not run. */
        tu_write(dir, "tree/usr/bin/tool", "#!/bin/sh\n");
        char *tool = path_in(dir, "tree/usr/bin/tool"), *tree = path_in(dir, "tree"), *bin = path_in(dir, "tree/usr/bin");
        assert_int_equal(chmod(tool, 0755), 0);
        struct cu_sysroot root;
        assert_ok(cu_sysroot_init(&root, tree, &err), &err);
        assert_ok(cu_sysroot_trusted_path(&root, "/usr/bin/tool", &err), &err);
        tu_symlink("usr/bin", dir, "tree/bin");
        assert_ok(cu_sysroot_trusted_path(&root, "/bin/tool", &err), &err);
        assert_int_equal(chown(bin, OTHER, OTHER), 0);
        assert_status(cu_sysroot_trusted_path(&root, "/bin/tool", &err), CU_E_UNSAFE_PATH, &err);
        assert_non_null(strstr(err.msg, bin));
        assert_int_equal(chown(bin, 0, 0), 0);
        assert_int_equal(chown(tool, OTHER, OTHER), 0);
        assert_status(cu_sysroot_trusted_path(&root, "/usr/bin/tool", &err), CU_E_UNSAFE_PATH, &err);
        assert_int_equal(chown(tool, 0, 0), 0);
        assert_int_equal(chmod(tool, 0777), 0);
        assert_status(cu_sysroot_trusted_path(&root, "/usr/bin/tool", &err), CU_E_UNSAFE_PATH, &err);
        assert_int_equal(chmod(tool, 0755), 0);
        assert_int_equal(chown(tree, OTHER, OTHER), 0);
        assert_status(cu_sysroot_trusted_path(&root, "/usr/bin/tool", &err), CU_E_UNSAFE_PATH, &err);
        assert_int_equal(chown(tree, 0, 0), 0);
        cu_sysroot_fini(&root);
        free(tool);
        free(tree);
        free(bin);
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
        cmocka_unit_test(profiled_stays_inside),
        cmocka_unit_test(resolve_inside),
        cmocka_unit_test(seen_paths),
        cmocka_unit_test(libraries_inside),
        cmocka_unit_test(path_trust),
    };
    return TU_RUN(tests);
}
