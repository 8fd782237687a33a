/* SPDX-License-Identifier: MIT */
/* rc files and env scripts: TESTCASES.md 2.4 at the lowest layer. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
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
    assert_ok(cu_env_write_scripts(dir, home, true, &changed, &err), &err);
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
    assert_status(cu_env_write_scripts(dir, "/a:b/cuda", true, &changed, &err), CU_E_USAGE, &err);
    assert_status(cu_env_write_scripts(dir, "/a\nb", true, &changed, &err), CU_E_USAGE, &err);
    free(home);
    tu_tmpdir_free(dir);
}

/* Issue 36: where the frameworks bring their own CUDA wheels, env.sh puts no CUDA folder in
 * LD_LIBRARY_PATH (it would come before the wheels' RUNPATH), keeps the user's own, and says so for
 * repair; a state written before it said means LD_LIBRARY_PATH, as those env.sh files set it. */
static void
no_ld_library_path(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("env");
    char *home = cat2(dir, "/cuda");
    bool changed;
    struct cu_error err;
    assert_true(cu_env_ld_library_path(dir)); /* nothing written yet: as before */
    assert_ok(cu_env_write_scripts(dir, home, false, &changed, &err), &err);
    assert_true(changed);
    assert_false(cu_env_ld_library_path(dir));
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=/usr/lib/wsl/lib sh -eu -c '. \"$0\"; printf \"%%s|%%s\" \"$CUDA_HOME\" \"$LD_LIBRARY_PATH\"' %s/env.sh",
             dir);
    FILE *p = popen(cmd, "r");
    char out[8192] = "";
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    char want[8192];
    snprintf(want, sizeof(want), "%s|/usr/lib/wsl/lib", home);
    assert_string_equal(out, want);
    char *fish = cat2(dir, "/env.fish"), *text = NULL;
    assert_ok(cu_read_file(fish, 1 << 20, &text, NULL, &err), &err);
    assert_null(strstr(text, "LD_LIBRARY_PATH"));
    free(text);
    free(fish);
    /* Back to a plan that needs it (CUDA alone): written, and said. */
    assert_ok(cu_env_write_scripts(dir, home, true, &changed, &err), &err);
    assert_true(changed);
    assert_true(cu_env_ld_library_path(dir));
    free(home);
    tu_tmpdir_free(dir);
}

/* Run @script (activate, then deactivate) under @shell with LD_LIBRARY_PATH=@llp; what it printed. */
static char *
run_hooks(const char *shell, const char *act, const char *deact, const char *llp)
{
    char cmd[8192];
    snprintf(cmd, sizeof(cmd),
             "env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH='%s' %s -c '. \"$0\"; printf \"%%s|\" \"${LD_LIBRARY_PATH-unset}\"; "
             ". \"$1\"; printf \"%%s\" \"${LD_LIBRARY_PATH-unset}\"' %s %s",
             llp, shell, act, deact);
    FILE *p = popen(cmd, "r");
    char out[8192] = "";
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    return strdup(out);
}

/* Issue 36: an environment whose frameworks bring their own CUDA wheels activates with no CUDA folder in
 * LD_LIBRARY_PATH (the loader reads it before the wheels' RUNPATH); /usr/lib/wsl/lib and folders without
 * CUDA libraries stay; deactivation puts the variable back.  In sh, bash and zsh. */
static void
guard_hooks(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("guard");
    char *env = cat2(dir, "/env"), *cuda = cat2(dir, "/usr-local-cuda"), *cudnn = cat2(dir, "/cudnn-8"),
         *other = cat2(dir, "/my libs");
    char *lib = cat2(cuda, "/libcublas.so.12"), *lib2 = cat2(cudnn, "/libcudnn.so.8"), *own = cat2(other, "/libfoo.so");
    struct cu_error err;
    bool changed;
    assert_ok(cu_mkdir_p(cuda, 0755, &err), &err);
    assert_ok(cu_mkdir_p(cudnn, 0755, &err), &err);
    assert_ok(cu_mkdir_p(other, 0755, &err), &err);
    assert_ok(cu_write_file_atomic(lib, "x", 1, 0644, &err), &err);
    assert_ok(cu_write_file_atomic(lib2, "x", 1, 0644, &err), &err);
    assert_ok(cu_write_file_atomic(own, "x", 1, 0644, &err), &err);
    assert_ok(cu_conda_hooks_install(env, dir, "/opt/cuda", CU_HOOK_GUARD, &changed, &err), &err);
    char *act = cat2(env, "/etc/conda/activate.d/cudaup.sh"), *deact = cat2(env, "/etc/conda/deactivate.d/cudaup.sh");
    char llp[4096], want[8192];
    snprintf(llp, sizeof(llp), "%s:/usr/lib/wsl/lib:%s:%s", cuda, other, cudnn);
    snprintf(want, sizeof(want), "/usr/lib/wsl/lib:%s|%s", other, llp);
    static const char *const shells[] = {"sh", "bash", "zsh"};
    for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++) {
        char path[64];
        snprintf(path, sizeof(path), "/usr/bin/%s", shells[i]);
        if (access(path, X_OK) != 0 && strcmp(shells[i], "sh") != 0)
            continue;
        char *out = run_hooks(shells[i], act, deact, llp);
        assert_string_equal(out, want);
        free(out);
    }
    /* Only CUDA folders: the variable goes while the environment is active, and comes back. */
    snprintf(llp, sizeof(llp), "%s", cuda);
    snprintf(want, sizeof(want), "unset|%s", cuda);
    char *out = run_hooks("sh", act, deact, llp);
    assert_string_equal(out, want);
    free(out);
    /* Without the guard (a framework that loads the CUDA folder's libraries), activation leaves them. */
    assert_ok(cu_conda_hooks_install(env, dir, "/opt/cuda", 0, &changed, &err), &err);
    assert_true(changed);
    snprintf(want, sizeof(want), "%s|%s", cuda, cuda);
    out = run_hooks("sh", act, deact, llp);
    assert_string_equal(out, want);
    free(out);
    free(act);
    free(deact);
    free(lib);
    free(lib2);
    free(own);
    free(env);
    free(cuda);
    free(cudnn);
    free(other);
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
        cmocka_unit_test(odd_prefix_under_sh), cmocka_unit_test(no_ld_library_path), cmocka_unit_test(guard_hooks), cmocka_unit_test(csh_refused),
    };
    return TU_RUN(tests);
}
