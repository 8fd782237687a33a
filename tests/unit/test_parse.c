/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <string.h>

#include "core/base/parse.h"
#include "core/base/str.h"
#include "testutil.h"

static void
u64_strict(void **state)
{
    (void)state;
    uint64_t v = 0;
    assert_true(cu_parse_u64("0", 10, &v) && v == 0);
    assert_true(cu_parse_u64("18446744073709551615", UINT64_MAX, &v) && v == UINT64_MAX);
    assert_false(cu_parse_u64("18446744073709551616", UINT64_MAX, &v));
    assert_false(cu_parse_u64("11", 10, &v));
    const char *bad[] = {"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "1.0", "１"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(cu_parse_u64(bad[i], UINT64_MAX, &v));
    assert_false(cu_parse_u64(NULL, 10, &v));
}

static void
version_parse(void **state)
{
    (void)state;
    struct cu_version v;
    char buf[64];
    assert_true(cu_version_parse("12.4.1", &v));
    assert_int_equal(v.n, 3);
    assert_string_equal(cu_version_format(&v, 0, buf, sizeof(buf)), "12.4.1");
    assert_string_equal(cu_version_format(&v, 2, buf, sizeof(buf)), "12.4");
    assert_true(cu_version_parse("9.1.0.70", &v) && v.n == 4);
    /* cuda-toolkit 13.3.0 pins nvidia-cuda-cccl==13.3.3.3.1.* (five parts) */
    assert_true(cu_version_parse("13.3.3.3.1", &v) && v.n == 5);
    assert_string_equal(cu_version_format(&v, 0, buf, sizeof(buf)), "13.3.3.3.1");
    assert_true(cu_version_parse("1.2.3.4.5.6", &v) && v.n == 6);
    const char *bad[] = {"", "12.", ".4", "12..4", "12.4.x", "12.4.1.2.3.4.5", "1.2.3.4.5.6.7", "v12", "12-4",
                         "1234567890", "12.4 ", "12,4", "auto"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_false(cu_version_parse(bad[i], &v));
        assert_int_equal(v.n, 0);
    }
}

static void
version_order(void **state)
{
    (void)state;
    assert_true(cu_version_strcmp("12.10", "12.9") > 0);
    assert_true(cu_version_strcmp("12.4", "12.4.0") < 0);
    assert_true(cu_version_strcmp("550.54.14", "550.54.15") < 0);
    assert_int_equal(cu_version_strcmp("9.1.0", "9.1.0"), 0);
    assert_true(cu_version_strcmp("junk", "1.0") < 0);
    struct cu_version a, p;
    assert_true(cu_version_parse("12.4.1", &a));
    assert_true(cu_version_parse("12.4", &p));
    assert_true(cu_version_matches(&a, &p));
    assert_true(cu_version_parse("12.41", &p));
    assert_false(cu_version_matches(&a, &p));
    assert_true(cu_version_parse("12.4.1.0", &p));
    assert_false(cu_version_matches(&a, &p));
}

static void
cuda_int(void **state)
{
    (void)state;
    struct cu_version v;
    cu_version_from_cuda_int(12040, &v);
    assert_int_equal(v.part[0], 12);
    assert_int_equal(v.part[1], 4);
    assert_int_equal(cu_version_to_cuda_int(&v), 12040);
    cu_version_from_cuda_int(13000, &v);
    assert_int_equal(v.part[1], 0);
    cu_version_from_cuda_int(0, &v);
    assert_int_equal(v.n, 0);
}

static void
strings(void **state)
{
    (void)state;
    char *j = cu_path_join("/a/", "/b");
    assert_string_equal(j, "/a/b");
    free(j);
    j = cu_path_join("/", "x");
    assert_string_equal(j, "/x");
    free(j);
    j = cu_sh_quote("it's $HOME");
    assert_string_equal(j, "'it'\\''s $HOME'");
    free(j);
    j = cu_str_sanitize("a\nb\033[31m");
    assert_string_equal(j, "a?b?[31m");
    free(j);
    struct cu_strv v;
    cu_strv_init(&v);
    cu_strv_split(&v, "::a:b::c:", ":");
    assert_int_equal(v.n, 3);
    assert_string_equal(v.v[2], "c");
    assert_null(v.v[3]);
    char *j2 = cu_strv_join(&v, " ");
    assert_string_equal(j2, "a b c");
    free(j2);
    cu_strv_fini(&v);
    j2 = cu_strv_join(&v, " ");
    assert_string_equal(j2, "");
    free(j2);
    struct cu_buf b;
    cu_buf_init(&b);
    for (int i = 0; i < 1000; i++)
        cu_buf_printf(&b, "%d,", i);
    assert_int_equal(b.len, strlen(b.data));
    cu_buf_fini(&b);
}

/* The line of a tool's error that says what failed (issue 35, item 3): pyenv's shim names the failure
 * first and ends on a note ("Python versions to be found at the same time."). */
static void
failure_line(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"pyenv: python3.7: command not found\n\nThe `python3.7' command exists in these Python versions:\n  3.7.17\n\n"
         "Note: See 'pyenv help global' for tips on allowing both\n      Python versions to be found at the same time.\n",
         "pyenv: python3.7: command not found"},
        {"Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
         "ModuleNotFoundError: No module named 'ensurepip'\n", "ModuleNotFoundError: No module named 'ensurepip'"},
        {"WARNING: something odd\nerror: externally-managed-environment\n\nThis environment is managed\n",
         "error: externally-managed-environment"},
        {"  one line only  \n", "one line only"},
        {"\n\n", ""},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = cu_str_failure_line(cases[i].text);
        assert_string_equal(got, cases[i].want);
        free(got);
    }
    char *none = cu_str_failure_line(NULL);
    assert_string_equal(none, "");
    free(none);
}

/* A sentence's full stop (issue 35, round four): a Chinese sentence that ends with a value or a Latin word
 * takes "。" ("最高可运行 CUDA 13.0." was ASCII); English stays "."; a path in CJK script does not make an
 * English sentence Chinese; a bracketed aside goes inside a Chinese sentence's stop. */
static void
sentence_stop(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"NVIDIA 580.95.05，最高可运行 CUDA 13.0", "NVIDIA 580.95.05，最高可运行 CUDA 13.0。"},
        {"python3.12 不在 PATH 中，因此无法创建 venv", "python3.12 不在 PATH 中，因此无法创建 venv。"},
        {"/nonexistent/cuda 处没有安装 CUDA", "/nonexistent/cuda 处没有安装 CUDA。"},
        {"版本 12.6；已将内核编译为 PTX", "版本 12.6；已将内核编译为 PTX。"},
        {"已安装。", "已安装。"},
        {"自动：cuDNN 9.5.1.", "自动：cuDNN 9.5.1。"},
        {"正在下载...", "正在下载..."},
        {"Cannot write /home/用户/x", "Cannot write /home/用户/x."},
        {"Run `echo 你好` to see", "Run `echo 你好` to see."},
        {"CUDA runs up to 13.0", "CUDA runs up to 13.0."},
        {"Done.", "Done."},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = cu_str_sentence(cases[i].text);
        assert_string_equal(got, cases[i].want);
        free(got);
    }
    char *a = cu_str_aside("读取软件包列表。", "`apt-get update`");
    assert_string_equal(a, "读取软件包列表（`apt-get update`）。");
    free(a);
    a = cu_str_aside("Read the package lists.", "`apt-get update`");
    assert_string_equal(a, "Read the package lists. (`apt-get update`)");
    free(a);
    /* One sentence after another: a space in English, none after zh_CN's 。 ("重启。 然后" was the fault). */
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_puts(&b, "请立即重启。");
    cu_buf_sentence(&b, " 然后再次运行 cudaup。");
    assert_string_equal(b.data, "请立即重启。然后再次运行 cudaup。");
    cu_buf_reset(&b);
    cu_buf_puts(&b, "Reboot now.");
    cu_buf_sentence(&b, "Then run cudaup again.");
    assert_string_equal(b.data, "Reboot now. Then run cudaup again.");
    cu_buf_fini(&b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(u64_strict),   cmocka_unit_test(version_parse),
        cmocka_unit_test(version_order), cmocka_unit_test(cuda_int),
        cmocka_unit_test(strings),       cmocka_unit_test(failure_line),
        cmocka_unit_test(sentence_stop),
    };
    return TU_RUN(tests);
}
