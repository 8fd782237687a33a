/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "testutil.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
mkparents(char *path)
{
    for (char *s = path + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(path, 0755);
            *s = '/';
        }
    }
}

char *
tu_tmpdir(const char *tag)
{
    const char *base = getenv("CUDAUP_TEST_TMP");
    char *t;
    if (!base || !*base)
        base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    mkdir(base, 0755);
    if (asprintf(&t, "%s/cudaup-%s-XXXXXX", base, tag) < 0)
        abort();
    if (!mkdtemp(t))
        abort();
    return t;
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    chmod(path, 0700);
    return remove(path);
}

void
tu_tmpdir_free(char *dir)
{
    if (!dir)
        return;
    if (!getenv("CUDAUP_KEEP_TMP"))
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

void
tu_write(const char *dir, const char *rel, const char *text)
{
    char *p;
    if (asprintf(&p, "%s/%s", dir, rel) < 0)
        abort();
    mkparents(p);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(p);
}

void
tu_symlink(const char *target, const char *dir, const char *rel)
{
    char *p;
    if (asprintf(&p, "%s/%s", dir, rel) < 0)
        abort();
    mkparents(p);
    assert_int_equal(symlink(target, p), 0);
    free(p);
}

char *
tu_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        fclose(f);
        return NULL;
    }
    s[n] = '\0';
    fclose(f);
    return s;
}

int
tu_run(const char *name, const struct CMUnitTest *tests, size_t n)
{
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return _cmocka_run_group_tests(name, tests, n, NULL, NULL);
}
