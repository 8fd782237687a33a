/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/catalog/catalog.h"

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

int
tu_catfx_init(const char *tag, char **dir, struct cu_catalog **cat)
{
    struct cu_error err;
    *dir = tu_tmpdir(tag);
    return cu_catalog_load(NULL, cat, &err) == CU_OK ? 0 : -1;
}

void
tu_catfx_fini(char *dir, struct cu_catalog *cat)
{
    cu_catalog_free(cat);
    tu_tmpdir_free(dir);
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
tu_skip_all(const char *name, const char *reason)
{
    printf("1..1\nok 1 - %s # SKIP %s\n", name, reason);
    fflush(stdout);
    return 0;
}

int
tu_spawn(const char *const *argv)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        char *v[16];
        size_t n = 0;
        for (; argv[n] && n < 15; n++)
            v[n] = strdup(argv[n]);
        v[n] = NULL;
        execvp(v[0], v);
        _exit(127);
    }
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

int
tu_run(const char *name, const struct CMUnitTest *tests, size_t n)
{
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return _cmocka_run_group_tests(name, tests, n, NULL, NULL);
}

/* ---- JSON mutants ---------------------------------------------------------------------- */

struct mutator {
    json_t *root;
    size_t keys;
    void (*try)(json_t *root, void *ud);
    void *ud;
};

static json_t *
wrong_value(int k)
{
    switch (k) {
    case 0: return json_null();
    case 1: return json_integer(-1);
    case 2: return json_string("x");
    case 3: return json_array();
    case 4: return json_object();
    default: return json_string("99999999999999999999.1");
    }
}

static void walk(struct mutator *m, json_t *node, int depth);

static void
mutate_at(struct mutator *m, json_t *parent, const char *key, size_t idx, int depth)
{
    json_t *orig = key ? json_object_get(parent, key) : json_array_get(parent, idx);
    json_incref(orig);
    for (int k = 0; k < 6; k++) {
        if (key)
            json_object_set_new(parent, key, wrong_value(k));
        else
            json_array_set_new(parent, idx, wrong_value(k));
        m->try(m->root, m->ud);
    }
    if (key) {
        json_object_del(parent, key);
        m->try(m->root, m->ud);
        /* The same value under a key that is not a name, a version or a number the format knows. */
        static const char *const bad_keys[] = {"x", "99999999999999999999", "1.2.3.4.5.6.7", ""};
        for (size_t k = 0; k < sizeof(bad_keys) / sizeof(bad_keys[0]); k++) {
            if (json_object_get(parent, bad_keys[k]))
                continue;
            json_object_set(parent, bad_keys[k], orig);
            m->try(m->root, m->ud);
            json_object_del(parent, bad_keys[k]);
        }
        json_object_set(parent, key, orig);
    } else {
        json_array_set(parent, idx, orig);
    }
    walk(m, orig, depth + 1);
    json_decref(orig);
}

static void
walk(struct mutator *m, json_t *node, int depth)
{
    if (depth > 8)
        return;
    if (json_is_object(node)) {
        /* The keys first: an object must not change while it is iterated. */
        char **keys = calloc(m->keys + 1, sizeof(char *));
        size_t n = 0;
        const char *key;
        json_t *val;
        json_object_foreach(node, key, val) {
            if (n < m->keys)
                keys[n++] = strdup(key);
        }
        for (size_t i = 0; i < n; i++) {
            mutate_at(m, node, keys[i], 0, depth);
            free(keys[i]);
        }
        free(keys);
    } else if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node) && i < 2; i++)
            mutate_at(m, node, NULL, i, depth);
    }
}

void
tu_mutate_json(json_t *root, size_t keys, void (*try)(json_t *root, void *ud), void *ud)
{
    struct mutator m = {root, keys, try, ud};
    walk(&m, root, 0);
}

size_t
tu_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t n = 0;
    while (d && (de = readdir(d)))
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

const char *
tu_staging_path(char *buf, size_t len, const char *dir, const char *rel)
{
    snprintf(buf, len, "%s/staging%s%s", dir, rel && *rel ? "/" : "", rel ? rel : "");
    return buf;
}

int
tu_staging_open(const char *dir)
{
    char staging[4096];
    tu_staging_path(staging, sizeof(staging), dir, NULL);
    mkdir(staging, 0755);
    int dfd = open(staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    return dfd;
}
