/* SPDX-License-Identifier: MIT */
/* Helpers shared by the cmocka unit tests. */
#ifndef CU_TESTUTIL_H
#define CU_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/base/error.h"

/* Assert a status and print the cu_error message when it is not the one expected. */
#define assert_status(st, want, err)                                                         \
    do {                                                                                     \
        enum cu_status st_ = (st);                                                           \
        if (st_ != (want))                                                                   \
            print_error("status %s, expected %s: %s\n", cu_status_name(st_),                 \
                        cu_status_name(want), cu_error_text(err));                           \
        assert_int_equal(st_, (want));                                                       \
    } while (0)

#define assert_ok(st, err) assert_status(st, CU_OK, err)

/**
 * A fresh temporary folder for one test.  It is removed by tu_tmpdir_free()
 * only when the test got that far, so a failed test leaves it for a look.
 */
char *tu_tmpdir(const char *tag);
void tu_tmpdir_free(char *dir);
struct cu_catalog;
/**
 * The two things most fixtures start from: a tu_tmpdir(@tag) in *@dir and the built-in
 * catalog in *@cat.  -1 when the catalog does not load (a cmocka setup's failure).
 */
int tu_catfx_init(const char *tag, char **dir, struct cu_catalog **cat);
void tu_catfx_fini(char *dir, struct cu_catalog *cat);
/** Write @text to DIR/REL, creating parent folders. */
void tu_write(const char *dir, const char *rel, const char *text);
void tu_symlink(const char *target, const char *dir, const char *rel);
/** How many entries folder @dir holds ("." and ".." aside); 0 when it cannot be read. */
size_t tu_count_entries(const char *dir);
/** Make DIR/staging (an unpacker's target) and open it as a folder; asserts it opened. */
int tu_staging_open(const char *dir);
/** DIR/staging/REL into @buf (the unpacked tree's files). */
const char *tu_staging_path(char *buf, size_t len, const char *dir, const char *rel);
/** Read a whole file; caller frees. NULL when missing. */
char *tu_read(const char *path);
struct json_t;
/**
 * Mutate @root in place, one change at a time, calling @try after each and restoring it after:
 * every value of every object (up to @keys keys per object) and of the first two elements of
 * every array is replaced by null, -1, "x", [], {} and a too-long number string, and every
 * object key is removed, and its value moved under keys no format knows ("x", a too-long number,
 * "1.2.3.4.5.6.7", "").  The walk goes into the originals.
 */
void tu_mutate_json(struct json_t *root, size_t keys, void (*try)(struct json_t *root, void *ud), void *ud);

/** Run cmocka with TAP output so meson counts each case. */
int tu_run(const char *name, const struct CMUnitTest *tests, size_t n);

/**
 * A whole test program that cannot run here: one TAP line "ok 1 - @name # SKIP @reason" (the form TAP
 * and meson count as a skip; cmocka's own skip() prints "not ok").  Returns 0 for main() to return.
 */
int tu_skip_all(const char *name, const char *reason);
/** Run @argv (argv[0] found on PATH) and wait; its exit status, or -1 when it could not run. */
int tu_spawn(const char *const *argv);

#define TU_RUN(tests) tu_run(__FILE__, tests, sizeof(tests) / sizeof(tests[0]))

#endif
