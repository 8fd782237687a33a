/* SPDX-License-Identifier: MIT */
/* rc files and env scripts: TESTCASES.md 2.4 at the lowest layer. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/install/envfile.h"
#include "testutil.h"

static char *
cat2(const char *a, const char *b)
{
    char *s;
    if (asprintf(&s, "%s/%s", a, b) < 0)
        abort();
    return s;
}

static void
write_bytes(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void
bytes_round_trip(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rc");
    char *rc = cat2(dir, "bashrc"), *st = cat2(dir, "state");
    const char orig[] = "\xef\xbb\xbf# BOM first\nlatin1 \xe9\xff bytes\n\nno newline at the end";
    write_bytes(rc, orig, sizeof(orig) - 1);
    chmod(rc, 0600);
    bool changed;
    struct cu_error err;
    assert_ok(cu_rc_install(rc, st, &changed, &err), &err);
    assert_true(changed);
    struct stat sb;
    assert_int_equal(stat(rc, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600); /* the mode is kept */
    char *now = tu_read(rc);
    assert_memory_equal(now, orig, sizeof(orig) - 1);
    assert_non_null(strstr(now, "\n# >>> cudaup >>>\n"));
    free(now);
    /* twice: no change */
    assert_ok(cu_rc_install(rc, st, &changed, &err), &err);
    assert_false(changed);
    assert_ok(cu_rc_uninstall(rc, st, &changed, &err), &err);
    now = tu_read(rc);
    assert_int_equal(strlen(now), sizeof(orig) - 1);
    assert_memory_equal(now, orig, sizeof(orig) - 1);
    free(now);
    free(rc);
    free(st);
    tu_tmpdir_free(dir);
}

static void
user_edit_kept(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rc");
    char *rc = cat2(dir, "zshrc"), *st = cat2(dir, "state");
    tu_write(dir, "zshrc", "export A=1\n");
    bool changed;
    struct cu_error err;
    assert_ok(cu_rc_install(rc, st, &changed, &err), &err);
    FILE *f = fopen(rc, "a");
    fputs("export B=2\n", f); /* the user edits after us */
    fclose(f);
    assert_ok(cu_rc_uninstall(rc, st, &changed, &err), &err);
    char *now = tu_read(rc);
    assert_string_equal(now, "export A=1\nexport B=2\n");
    free(now);
    free(rc);
    free(st);
    tu_tmpdir_free(dir);
}

static void
fish_block(void **state)
{
    (void)state;
    char *b = cu_rc_block("/st ate", true, "\n");
    assert_non_null(strstr(b, "source '/st ate/env.fish'"));
    free(b);
    char *q = cu_fish_quote("it's a \\ back");
    assert_string_equal(q, "'it\\'s a \\\\ back'");
    free(q);
}

static void
odd_prefix_under_sh(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("env");
    char *home = cat2(dir, "a b'c$d`e\xc3\xa9/cuda");
    bool changed;
    struct cu_error err;
    assert_ok(cu_env_write_scripts(dir, home, &changed, &err), &err);
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "env -i PATH=/usr/bin:/bin sh -eu -c '. \"$0\"; . \"$0\"; printf \"%%s|%%s|%%s\" \"$CUDA_HOME\" \"$PATH\" \"$LD_LIBRARY_PATH\"' %s/env.sh",
             dir);
    FILE *p = popen(cmd, "r");
    char out[8192] = "";
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    char want[8192];
    snprintf(want, sizeof(want), "%s|%s/bin:/usr/bin:/bin|%s/lib64", home, home, home);
    assert_string_equal(out, want);
    /* ':' and line breaks cannot go into PATH */
    assert_status(cu_env_write_scripts(dir, "/a:b/cuda", &changed, &err), CU_E_USAGE, &err);
    assert_status(cu_env_write_scripts(dir, "/a\nb", &changed, &err), CU_E_USAGE, &err);
    free(home);
    tu_tmpdir_free(dir);
}

static void
csh_refused(void **state)
{
    (void)state;
    bool changed;
    struct cu_error err;
    assert_status(cu_rc_install("/tmp/x/.cshrc", "/tmp/x", &changed, &err), CU_E_USAGE, &err);
}

/* Links and owners on the way to the rc file (TESTCASES 2.4.5), a file the user never had, a backup gone. */
static void
links_owners_and_restores(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rc-links");
    char *st = cat2(dir, "state");
    struct cu_error err;
    bool changed;
    /* A chain of links: the file at its end is edited, and the links stay links. */
    tu_write(dir, "real/bashrc", "# mine\n");
    tu_symlink("real/bashrc", dir, "mid");
    tu_symlink("mid", dir, "bashrc");
    char *rc = cat2(dir, "bashrc"), *real = cat2(dir, "real/bashrc"), *mid = cat2(dir, "mid");
    assert_ok(cu_rc_install(rc, st, &changed, &err), &err);
    char *now = tu_read(real);
    assert_non_null(strstr(now, "# >>> cudaup >>>"));
    free(now);
    struct stat sb;
    assert_int_equal(lstat(rc, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_ok(cu_rc_uninstall(rc, st, &changed, &err), &err);
    assert_true(changed);
    now = tu_read(real);
    assert_string_equal(now, "# mine\n");
    free(now);
    /* A loop of links: refused or left alone, never followed forever. */
    tu_symlink("loop-b", dir, "loop-a");
    tu_symlink("loop-a", dir, "loop-b");
    char *loop = cat2(dir, "loop-a");
    enum cu_status s1 = cu_rc_install(loop, st, &changed, &err);
    assert_int_not_equal(s1, CU_OK);
    free(loop);
    /* A file the user did not have: made, and removed again on uninstall. */
    char *fresh = cat2(dir, "fresh-rc");
    assert_ok(cu_rc_install(fresh, st, &changed, &err), &err);
    assert_true(changed);
    assert_ok(cu_rc_uninstall(fresh, st, &changed, &err), &err);
    assert_int_not_equal(access(fresh, F_OK), 0);
    /* Edited by the user after cudaup's block: only the block goes, the edit stays. */
    tu_write(dir, "edited", "# before\n");
    char *edited = cat2(dir, "edited");
    assert_ok(cu_rc_install(edited, st, &changed, &err), &err);
    FILE *fp = fopen(edited, "a");
    fputs("alias ll='ls -l'\n", fp);
    fclose(fp);
    assert_ok(cu_rc_uninstall(edited, st, &changed, &err), &err);
    now = tu_read(edited);
    assert_string_equal(now, "# before\nalias ll='ls -l'\n");
    free(now);
    /* Uninstall of a file with no block of ours: unchanged. */
    assert_ok(cu_rc_uninstall(edited, st, &changed, &err), &err);
    assert_false(changed);
    if (geteuid() == 0) {
        /* Another user's rc file, and another user's link: refused, naming the owner. */
        tu_write(dir, "theirs", "# theirs\n");
        char *theirs = cat2(dir, "theirs");
        assert_int_equal(chown(theirs, 54321, 54321), 0);
        assert_status(cu_rc_install(theirs, st, &changed, &err), CU_E_UNSAFE_PATH, &err);
        assert_non_null(strstr(err.msg, "uid 54321"));
        tu_symlink("real/bashrc", dir, "their-link");
        char *tl = cat2(dir, "their-link");
        assert_int_equal(lchown(tl, 54321, 54321), 0);
        assert_status(cu_rc_install(tl, st, &changed, &err), CU_E_UNSAFE_PATH, &err);
        assert_non_null(strstr(err.msg, "link owned by uid 54321"));
        free(tl);
        free(theirs);
    }
    free(edited);
    free(fresh);
    free(rc);
    free(real);
    free(mid);
    free(st);
    tu_tmpdir_free(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(links_owners_and_restores),
        cmocka_unit_test(bytes_round_trip), cmocka_unit_test(user_edit_kept), cmocka_unit_test(fish_block),
        cmocka_unit_test(odd_prefix_under_sh), cmocka_unit_test(csh_refused),
    };
    return TU_RUN(tests);
}
