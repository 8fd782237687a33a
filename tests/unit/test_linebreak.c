/* SPDX-License-Identifier: MIT */
/*
 * Line breaking (issue 26: the wizard wraps instead of cutting with "…"): Latin words stay whole,
 * CJK text fills its lines and breaks between characters, never inside one's bytes, punctuation
 * keeps to its side, and a break at punctuation is preferred to one inside a CJK word.
 */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/base/linebreak.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "testutil.h"

enum { MAX_LINES = 64 };

/* @s broken at @cols: the lines, as "a|b|c". */
static char *
lines_of(const char *s, int cols, bool cut_long)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (int n = 0; *s && n < MAX_LINES; n++) {
        size_t next;
        size_t len = cu_line_break(s, cols, cut_long, &next);
        CU_AUTOFREE char *shown = cu_line_shown(s, len);
        cu_buf_printf(&b, "%s%s", n ? "|" : "", shown);
        assert_true(next > 0);
        s += next;
    }
    return cu_buf_steal(&b);
}

static void
check(const char *s, int cols, bool cut_long, const char *want)
{
    CU_AUTOFREE char *got = lines_of(s, cols, cut_long);
    if (strcmp(got, want) != 0)
        print_error("\"%s\" at %d columns:\n  got  %s\n  want %s\n", s, cols, got, want);
    assert_string_equal(got, want);
}

static void
latin_words_stay_whole(void **state)
{
    (void)state;
    check("the quick brown fox", 10, true, "the quick|brown fox");
    check("the quick brown fox", 9, true, "the quick|brown fox");
    check("the quick brown fox", 8, true, "the|quick|brown|fox");
    check("a  b", 1, true, "a|b");
    /* A word wider than the line: cut after a '/' in its second half, or kept whole when asked. */
    check("in /opt/nvidia/cuda", 12, true, "in|/opt/nvidia/|cuda");
    check("in /opt/nvidia/cuda now", 6, false, "in|/opt/nvidia/cuda|now");
    check("abcdefghij", 4, true, "abcd|efgh|ij");
}

static void
newlines_end_lines(void **state)
{
    (void)state;
    check("ab\ncd", 10, true, "ab|cd");
    check("ab\n\ncd", 10, true, "ab||cd");
    check("ab cd   \nef", 4, true, "ab|cd|ef");
    assert_int_equal(cu_line_count("", 10), 0);
    assert_int_equal(cu_line_count("ab\n\ncd", 10), 3);
    assert_int_equal(cu_line_count("the quick brown fox", 9), 2);
}

static void
cjk_breaks_between_characters(void **state)
{
    (void)state;
    /* No spaces: it fills the line, two columns a character. */
    check("一二三四五六七八", 8, true, "一二三四|五六七八");
    check("一二三四五六七八", 7, true, "一二三|四五六|七八");
    /* Next to Latin words it fills the line too, breaking where the scripts meet, not at the space. */
    check("安装了 CUDA 工具包和驱动程序", 16, true, "安装了 CUDA 工具|包和驱动程序");
    /* Closing punctuation stays with the text before it, opening with the text after it. */
    check("一二三四。", 8, true, "一二三|四。");
    check("一二三（四五）", 8, true, "一二三|（四五）");
    check("文件：bin/nvcc", 8, true, "文件：|bin/nvcc");
    /* A break after punctuation near the end of the line is taken before one inside a word. */
    check("选择，方向键", 8, true, "选择，|方向键");
    check("按 Enter 继续，方向键选择", 18, true, "按 Enter 继续，|方向键选择");
}

/* For every width: no line too wide (unless it is one cut word), none starting with closing or
 * ending with opening punctuation, every break on a character boundary, no Latin word split,
 * and the text whole again when the lines are put back together. */
static void
every_width(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "cudaup 让这台机器能在 NVIDIA GPU 上做深度学习：它选出适合 GPU、驱动和你的框架的 CUDA 工具包与 cuDNN，下载 NVIDIA 的归档并校验、安装，设置环境变量和 Python 环境，并用真实的 GPU 运算验证结果。",
        "files: 在记录的 34 个文件中，缺失 2 个，被改动 0 个，权限改变 0 个（第一个：bin/nvcc）；按 r 修复。",
        "2 missing, 0 altered, 0 with a changed mode, of 34 recorded (first: bin/nvcc); press r to repair.",
        "Every message of this run is in /home/someone/.local/state/cudaup/cudaup.log.",
    };
    for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
        for (int cols = 6; cols <= 90; cols++) {
            const char *s = texts[k];
            struct cu_buf back;
            cu_buf_init(&back);
            int lines = 0;
            while (*s) {
                size_t next;
                size_t len = cu_line_break(s, cols, true, &next);
                CU_AUTOFREE char *line = cu_xstrndup(s, len);
                mbstate_t st;
                memset(&st, 0, sizeof(st));
                const char *p = line;
                assert_true(mbsrtowcs(NULL, &p, 0, &st) != (size_t)-1); /* whole characters only */
                assert_true(cu_text_width(line) <= cols);
                wchar_t first = 0, last = 0;
                mbtowc(&first, line, strlen(line));
                for (const char *q = line; *q;) {
                    int n = mbtowc(&last, q, strlen(q));
                    q += n > 0 ? n : 1;
                }
                /* (Narrower than the longest word, a line is cut where it must be.) */
                if (lines > 0 && cols >= 12 && wcschr(L"，。、：；）！？", first))
                    print_error("starts with punctuation at %d: \"%s\"\n", cols, line);
                if (lines > 0 && cols >= 12)
                    assert_true(wcschr(L"，。、：；）！？", first) == NULL);
                if (s[next] && cols >= 12)
                    assert_true(wcschr(L"（“", last) == NULL);
                /* A Latin word split: letters on both sides of the break. */
                if (s[next] && len > 0 && cols >= 12) {
                    char a = line[len - 1], b = s[len];
                    /* the run of ASCII around the break: a word wider than the line must be cut */
                    size_t w0 = len, w1 = len;
                    while (w0 > 0 && line[w0 - 1] != ' ' && (unsigned char)line[w0 - 1] < 0x80)
                        w0--;
                    while (s[w1] && s[w1] != ' ' && (unsigned char)s[w1] < 0x80)
                        w1++;
                    bool split = ((a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z')) &&
                                 ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) && (int)(w1 - w0) <= cols;
                    if (split)
                        print_error("split at %d: \"%s\" | \"%s\"\n", cols, line, s + len);
                    assert_false(split);
                }
                cu_buf_printf(&back, "%s", line);
                s += next;
                lines++;
            }
            assert_int_equal(lines, cu_line_count(texts[k], cols));
            /* Put back together (spaces aside), the text is whole. */
            CU_AUTOFREE char *got = cu_buf_steal(&back);
            struct cu_buf want;
            cu_buf_init(&want);
            for (const char *q = texts[k]; *q; q++)
                if (*q != ' ')
                    cu_buf_putc(&want, *q);
            CU_AUTOFREE char *w = cu_buf_steal(&want);
            struct cu_buf g2;
            cu_buf_init(&g2);
            for (const char *q = got ? got : ""; *q; q++)
                if (*q != ' ')
                    cu_buf_putc(&g2, *q);
            CU_AUTOFREE char *g = cu_buf_steal(&g2);
            assert_string_equal(g, w);
        }
    }
}

/* CJK lines are full: each but the last ends within a few columns of the edge. */
static void
cjk_lines_are_not_ragged(void **state)
{
    (void)state;
    const char *s = "cudaup 让这台机器能在 NVIDIA GPU 上做深度学习：它选出适合 GPU、驱动和你的框架的 CUDA 工具包与 cuDNN，下载 NVIDIA 的归档并校验、安装，设置环境变量和 Python 环境，并用真实的 GPU 运算验证结果。";
    for (int cols = 40; cols <= 120; cols += 20) {
        const char *p = s;
        while (*p) {
            size_t next;
            size_t len = cu_line_break(p, cols, true, &next);
            if (!p[next])
                break;
            CU_AUTOFREE char *line = cu_xstrndup(p, len);
            int slack = cols / 8 < 4 ? 4 : cols / 8 > 10 ? 10 : cols / 8;
            if (cu_text_width(line) < cols - slack - 6) /* a Latin word of up to six letters may not fit */
                print_error("ragged at %d: \"%s\"\n", cols, line);
            assert_true(cu_text_width(line) >= cols - slack - 6);
            p += next;
        }
    }
}

/* A command the user copies never breaks (issue 35 walk, item 2): pasted, "python -c 'a;" then "  b'" is two lines. */
static void
commands_never_break(void **state)
{
    (void)state;
    for (int cut = 0; cut < 2; cut++) {
        check("Then try it: " CU_KEEP_OPEN "python -c 'import tf; print(tf)'" CU_KEEP_CLOSE, 40, cut,
              "Then try it:|python -c 'import tf; print(tf)'");
        /* Wider than a whole line: whole on a line of its own, the words around it on theirs. */
        check("Then try it: " CU_KEEP_OPEN "python -c 'import tf; print(tf)'" CU_KEEP_CLOSE " now", 20, cut,
              "Then try it:|python -c 'import tf; print(tf)'|now");
        check("activate it with: " CU_KEEP_OPEN ". /opt/envs/tf/bin/activate" CU_KEEP_CLOSE, 30, cut,
              "activate it with:|. /opt/envs/tf/bin/activate");
        /* What fits stays on the line. */
        check("run: " CU_KEEP_OPEN ". /x/env.sh" CU_KEEP_CLOSE " then", 40, cut, "run: . /x/env.sh then");
        /* Text in backticks is a command too, and keeps its backticks. */
        check("then `cudaup verify --deep` checks", 12, cut, "then|`cudaup verify --deep`|checks");
        check("a lone ` stays text", 8, cut, "a lone `|stays|text");
        /* Glued to its punctuation and wider than the line: "(" and "," stay with it (doctor's fix). */
        check("Blacklist it (`echo x | sudo tee /etc/y.conf`, then", 16, cut,
              "Blacklist it|(`echo x | sudo tee /etc/y.conf`,|then");
    }
    /* In Chinese text the command breaks away after its colon, never inside. */
    check("然后试一试：" CU_KEEP_OPEN "python -c 'a; b'" CU_KEEP_CLOSE, 16, true, "然后试一试：|python -c 'a; b'");
    assert_int_equal(cu_text_width(CU_KEEP_OPEN "ab" CU_KEEP_CLOSE), 2);
    CU_AUTOFREE char *k = cu_keep("ls -l");
    CU_AUTOFREE char *shown = cu_line_shown(k, strlen(k));
    assert_string_equal(shown, "ls -l");
}

int
main(void)
{
    if (!setlocale(LC_ALL, "C.UTF-8") && !setlocale(LC_ALL, "en_US.UTF-8")) {
        printf("1..0 # SKIP no UTF-8 locale\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(latin_words_stay_whole),
        cmocka_unit_test(commands_never_break),
        cmocka_unit_test(newlines_end_lines),
        cmocka_unit_test(cjk_breaks_between_characters),
        cmocka_unit_test(every_width),
        cmocka_unit_test(cjk_lines_are_not_ragged),
    };
    return TU_RUN(tests);
}
