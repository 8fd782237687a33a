/* SPDX-License-Identifier: MIT */
/*
 * The English twin of translated messages (issue 14: the log is English).  cu_vformat_en is checked
 * against a second implementation, libc's vsnprintf, for every conversion cudaup's messages use;
 * and, with the zh_CN catalog loaded, errors and advice read Chinese while their twins read English.
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/resolve/plan.h"
#include "core/base/str.h"
#include "core/verify/verify.h"
#include "core/verify/verify_report.h"
#include "testutil.h"

static void CU_PRINTF(1, 2)
same_as_libc(const char *fmt, ...)
{
    char a[512], b[512];
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    vsnprintf(a, sizeof(a), fmt, ap);
    cu_vformat_en(b, sizeof(b), fmt, ap2);
    va_end(ap2);
    va_end(ap);
    if (strcmp(a, b) != 0)
        print_error("format \"%s\": libc \"%s\", cu_vformat_en \"%s\"\n", fmt, a, b);
    assert_string_equal(a, b);
}

/* The same with output buffers of every length up to the text's: cut exactly where libc cuts. */
static void CU_PRINTF(1, 2)
same_cut_as_libc(const char *fmt, ...)
{
    char full[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(full, sizeof(full), fmt, ap);
    va_end(ap);
    for (size_t len = 1; len <= (size_t)n + 1; len++) {
        char a[512], b[512];
        va_list x, y;
        va_start(x, fmt);
        va_copy(y, x);
        vsnprintf(a, len, fmt, x);
        memset(b, 'Z', sizeof(b));
        cu_vformat_en(b, len, fmt, y);
        va_end(y);
        va_end(x);
        if (strcmp(a, b) != 0)
            print_error("format \"%s\" cut at %zu: libc \"%s\", cu_vformat_en \"%s\"\n", fmt, len, a, b);
        assert_string_equal(a, b);
    }
    char none[1] = {'Z'};
    va_start(ap, fmt);
    cu_vformat_en(none, 0, fmt, ap); /* no room at all: nothing written */
    va_end(ap);
    assert_int_equal(none[0], 'Z');
}

static bool
have_zh(void)
{
#ifdef ENABLE_NLS
    const char *dir = getenv("CUDAUP_LOCALEDIR");
    if (!dir)
        return false;
    setlocale(LC_ALL, "C.UTF-8");
    setenv("LANGUAGE", "zh_CN", 1);
    bindtextdomain(GETTEXT_PACKAGE, dir);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    return strcmp(_("Cannot write %s"), "Cannot write %s") != 0;
#else
    return false;
#endif
}

static void
formats(void **state)
{
    (void)state;
    /* Before and after translations are in play: the same text as libc's. */
    for (int round = 0; round < 2; round++) {
        if (round == 1 && !have_zh())
            skip();
        same_as_libc("plain text, 100%% sure");
        same_as_libc("%d %i %u %x %X %o %c|%5d|%-5d|%05d|%+d", -3, 4, 5u, 255, 255, 8, 'z', 42, 42, 42, 42);
        same_as_libc("%ld %lu %lld %llu %zu %zd %jd %td", -1L, 2UL, -3LL, 4ULL, (size_t)5, (ssize_t)-6, (intmax_t)7,
                     (ptrdiff_t)8);
        same_as_libc("%hd %hhu", (short)-9, (unsigned char)200);
        same_as_libc("%.1f GB/s, %g, %e, %5.2f%%", 12.345, 0.5, 1e10, 3.14159);
        same_as_libc("%s|%10s|%-10s|%.3s|%*s|%.*s|%-*.*s|", "abc", "right", "left", "truncate", 6, "w", 2, "xyz", 8, 3,
                     "both");
        same_as_libc("%*d|%.*d|%*.*d", 5, 1, 3, 2, 6, 4, 3);
        same_as_libc("%*ld %*zu %*llu", 4, 10L, 4, (size_t)11, 4, 12ULL);
        same_as_libc("%.*ld %.*zu %*.*llu %*.*zu %*.*ld", 3, 1L, 3, (size_t)2, 5, 3, 3ULL, 5, 3, (size_t)4, 5, 3, 5L);
        same_as_libc("%.2f %*.*f %*f", 1.0, 7, 2, 2.5, 6, 3.5);
        same_as_libc("%*s %.*s %*.*s", 3, "a", 1, "bc", 4, 1, "de");
        same_as_libc("%s%s|%.0s|%d%%", "", "", "gone", 5); /* empty pieces */
        same_as_libc("%p", (void *)0x1234);
        same_cut_as_libc("Cannot write %s: %d of %zu bytes (%.1f%%)", "/opt/cuda-12.6/lib/libcudart.so", 3, (size_t)10, 30.0);
        same_cut_as_libc("%-8s|%5ld|%llu|%c", "ab", -4L, 5ULL, 'q');
    }
}

static void
zh_errors_have_english_twins(void **state)
{
    (void)state;
    if (!have_zh())
        skip();
    struct cu_error err;
    cu_error_set(&err, CU_E_IO, ENOSPC, _("Cannot write %s"), "/opt/x");
    assert_string_not_equal(err.msg, err.msg_en);
    assert_string_equal(cu_error_text_en(&err), "Cannot write /opt/x: No space left on device");
    assert_string_equal(cu_error_advice_en(&err),
                        "Free some disk space or choose another folder with --prefix or --cache-dir.");
    assert_string_not_equal(cu_error_advice(&err), cu_error_advice_en(&err));
    /* A translated message copied on with "%s", then prefixed: still English underneath. */
    struct cu_error outer;
    cu_error_set(&outer, CU_E_IO, 0, "%s", err.msg);
    cu_error_prefix(&outer, _("Cannot write %s"), "/opt/y");
    assert_string_equal(outer.msg_en, "Cannot write /opt/y: Cannot write /opt/x: No space left on device");
    cu_error_advise(&outer, _("Cannot write %s"), "/opt/z");
    assert_string_equal(cu_error_advice_en(&outer), "Cannot write /opt/z");
    /* A translated text made with cu_tr_asprintf, and a translated word, are taken back too. */
    char *s = cu_tr_asprintf(_("Cannot write %s"), "/opt/w");
    assert_string_equal(cu_english(s), "Cannot write /opt/w");
    free(s);
    assert_string_equal(cu_english(_("failed")), "failed");
    /* Plural forms come back as the English form of the count. */
    const char *pl = ngettext_("%zu file re-created", "%zu files re-created", 3);
    assert_string_equal(cu_english(pl), "%zu files re-created");
    assert_string_equal(cu_strerror_en(ENOENT), "No such file or directory");
    assert_null(cu_english(NULL));
}

static void
capture(void *ud, enum cu_log_level level, const char *tag, const char *msg, const char *msg_en)
{
    (void)level;
    (void)tag;
    (void)msg;
    cu_strv_push(ud, msg_en);
}

/* verify's checks and the plan's reasons reach the log in English, however the screen reads them. */
static void
zh_log_is_english(void **state)
{
    (void)state;
    if (!have_zh())
        skip();
    struct cu_checks c;
    memset(&c, 0, sizeof(c));
    cu_checks_add(&c, "nvcc", CU_CHECK_FAIL, _("nvcc reports release %s, but the install is %s"), "11.8", "12.6");
    assert_string_not_equal(c.v[0].detail, "nvcc reports release 11.8, but the install is 12.6");
    struct cu_plan *p = cu_plan_new();
    cu_plan_reason_src(p, "row x", _("Python %s: the newest %s supports."), "3.11", "TensorFlow 2.15.0");
    struct cu_strv lines;
    cu_strv_init(&lines);
    cu_log_set_level(CU_LOG_INFO);
    cu_log_set_handler(capture, &lines);
    cu_checks_log(&c, "/p");
    cu_plan_log_reasons(p);
    cu_log_set_handler(NULL, NULL);
    bool check = false, reason = false;
    for (size_t i = 0; i < lines.n; i++) {
        static const char want[] = "fail nvcc: nvcc reports release 11.8, but the install is 12.6 (fix: cudaup repair ";
        check |= strncmp(lines.v[i], want, sizeof(want) - 1) == 0;
        reason |= strcmp(lines.v[i], "why: Python 3.11: the newest TensorFlow 2.15.0 supports. (source: row x)") == 0;
    }
    if (!check || !reason)
        for (size_t i = 0; i < lines.n; i++)
            print_error("%s\n", lines.v[i]);
    assert_true(check && reason);
    cu_strv_fini(&lines);
    cu_plan_free(p);
    cu_checks_fini(&c);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formats),
        cmocka_unit_test(zh_errors_have_english_twins),
        cmocka_unit_test(zh_log_is_english),
    };
    return TU_RUN(tests);
}
