/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/str.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/base/mem.h"

void
cu_buf_init(struct cu_buf *b)
{
    b->cap = 64;
    b->len = 0;
    b->data = cu_xmalloc(b->cap);
    b->data[0] = '\0';
}

void
cu_buf_fini(struct cu_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void
cu_buf_reset(struct cu_buf *b)
{
    b->len = 0;
    b->data[0] = '\0';
}

static void
buf_reserve(struct cu_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = cu_xrealloc(b->data, cap);
    b->cap = cap;
}

void
cu_buf_append(struct cu_buf *b, const void *data, size_t len)
{
    buf_reserve(b, len);
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void
cu_buf_puts(struct cu_buf *b, const char *s)
{
    cu_buf_append(b, s, strlen(s));
}

void
cu_buf_putc(struct cu_buf *b, char c)
{
    cu_buf_append(b, &c, 1);
}

void
cu_buf_printf(struct cu_buf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        buf_reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

char *
cu_buf_steal(struct cu_buf *b)
{
    char *s = b->data;
    b->data = NULL; /* released: nothing is left to free */
    b->len = b->cap = 0;
    return s;
}

void
cu_strv_init(struct cu_strv *s)
{
    s->n = 0;
    s->cap = 4;
    s->v = cu_xcalloc(s->cap, sizeof(char *));
}

void
cu_strv_fini(struct cu_strv *s)
{
    if (!s->v)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

void
cu_strv_push_owned(struct cu_strv *s, char *str)
{
    if (s->n + 2 > s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4;
        s->v = cu_xreallocarray(s->v, s->cap, sizeof(char *));
    }
    s->v[s->n++] = str;
    s->v[s->n] = NULL;
}

void
cu_strv_push(struct cu_strv *s, const char *str)
{
    cu_strv_push_owned(s, cu_xstrdup(str));
}

void
cu_strv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

char **
cu_strv_dup(char *const *v)
{
    struct cu_strv s;
    if (!v)
        return NULL;
    cu_strv_init(&s);
    for (; *v; v++)
        cu_strv_push(&s, *v);
    return s.v ? s.v : cu_xcalloc(1, sizeof(char *));
}

bool
cu_strv_contains(const struct cu_strv *s, const char *str)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], str) == 0)
            return true;
    return false;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void
cu_strv_sort(struct cu_strv *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof(char *), cmp_str);
}

char *
cu_strv_join(const struct cu_strv *s, const char *sep)
{
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_printf(&b, "%s", "");
    for (size_t i = 0; i < s->n; i++)
        cu_buf_printf(&b, "%s%s", i ? sep : "", s->v[i]);
    return cu_buf_steal(&b);
}

void
cu_strv_split(struct cu_strv *s, const char *str, const char *seps)
{
    const char *p = str;
    while (p && *p) {
        size_t skip = strspn(p, seps);
        p += skip;
        if (!*p)
            break;
        size_t len = strcspn(p, seps);
        cu_strv_push_owned(s, cu_xstrndup(p, len));
        p += len;
    }
}

bool
cu_str_has_prefix(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

bool
cu_str_has_suffix(const char *s, const char *suffix)
{
    if (!s)
        return false;
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

char *
cu_str_strip(char *s)
{
    char *start = s;
    while (*start && isspace((unsigned char)*start))
        start++;
    size_t len = strlen(start);
    while (len && isspace((unsigned char)start[len - 1]))
        len--;
    memmove(s, start, len);
    s[len] = '\0';
    return s;
}

static bool
speaks_of_failure(const char *line, size_t n)
{
    static const char *const words[] = {"error", "not found", "cannot", "can't", "failed", "no module named",
                                        "denied", "unable"};
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
        size_t k = strlen(words[w]);
        for (size_t i = 0; i + k <= n; i++)
            if (strncasecmp(line + i, words[w], k) == 0)
                return true;
    }
    return false;
}

char *
cu_str_failure_line(const char *text)
{
    const char *first = NULL, *said = NULL, *exc = NULL;
    size_t first_n = 0, said_n = 0, exc_n = 0;
    bool traceback = false;
    for (const char *l = text ? text : ""; *l;) {
        size_t n = strcspn(l, "\n");
        const char *s = l;
        size_t m = n;
        while (m && isspace((unsigned char)*s)) {
            s++;
            m--;
        }
        while (m && isspace((unsigned char)s[m - 1]))
            m--;
        if (m) {
            if (!first) {
                first = s;
                first_n = m;
            }
            if (!said && speaks_of_failure(s, m)) {
                said = s;
                said_n = m;
            }
            if (strncmp(s, "Traceback (most recent call last)", 33) == 0)
                traceback = true;
            else if (traceback && s == l) { /* at the margin: the exception, once the frames are done */
                exc = s;
                exc_n = m;
            }
        }
        l += n + (l[n] == '\n');
    }
    if (exc)
        return cu_xstrndup(exc, exc_n);
    if (said)
        return cu_xstrndup(said, said_n);
    return first ? cu_xstrndup(first, first_n) : cu_xstrdup("");
}

char *
cu_path_walk_next(char *cur, char **rest)
{
    for (;;) {
        char *r = *rest;
        while (*r == '/')
            r++;
        if (!*r)
            return NULL;
        size_t n = strcspn(r, "/");
        char *name = cu_xstrndup(r, n);
        char *tail = cu_xstrdup(r + n);
        free(*rest);
        *rest = tail;
        if (strcmp(name, "..") == 0) {
            char *slash = strrchr(cur, '/');
            if (slash)
                *slash = '\0';
        }
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
            return name;
        free(name);
    }
}

void
cu_path_walk_link(char *cur, char **rest, const char *to)
{
    char *joined = cu_xasprintf("%s/%s", to, *rest);
    free(*rest);
    *rest = joined;
    if (to[0] == '/')
        cur[0] = '\0';
}

char *
cu_path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    if (la == 1 && a[0] == '/')
        return cu_xasprintf("/%s", b);
    if (!*b)
        return cu_xstrndup(a, la);
    return cu_xasprintf("%.*s/%s", (int)la, a, b);
}

char *
cu_str_sanitize(const char *s)
{
    char *d = cu_xstrdup(s ? s : "");
    for (char *p = d; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return d;
}

char *
cu_sh_quote(const char *s)
{
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_putc(&b, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            cu_buf_puts(&b, "'\\''");
        else
            cu_buf_putc(&b, *p);
    }
    cu_buf_putc(&b, '\'');
    return cu_buf_steal(&b);
}

/* A code point of CJK text (ideographs, their punctuation, full-width forms) starts at @p (UTF-8). */
static bool
cjk_at(const unsigned char *p)
{
    if (p[0] < 0xe2 || p[0] > 0xef || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
        return false;
    unsigned cp = ((p[0] & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu);
    return (cp >= 0x2e80 && cp <= 0x9fff) || (cp >= 0xff00 && cp <= 0xffef) || (cp >= 0xac00 && cp <= 0xd7af);
}

/*
 * Whether the first @n bytes of @s are a sentence in a CJK language: some CJK text outside a command in
 * backticks and outside a word with a slash (a path, which may be named in any script).  "python3.12 不在
 * PATH 中，因此无法创建 venv" is Chinese though it ends with a Latin word; "Cannot write /home/用户/x" is not.
 */
static bool
cjk_sentence(const char *s, size_t n)
{
    bool code = false;
    size_t word = 0; /* where the word at hand starts */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '`')
            code = !code;
        if (c == ' ' || c == '\n')
            word = i + 1;
        if (code || i + 3 > n || !cjk_at((const unsigned char *)s + i))
            continue;
        size_t end = i;
        while (end < n && s[end] != ' ' && s[end] != '\n')
            end++;
        if (!memchr(s + word, '/', end - word))
            return true;
    }
    return false;
}

/* One style everywhere: what cudaup says is a sentence, and a sentence ends with its full stop. */
char *
cu_str_sentence(const char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
        n--;
    if (n == 0)
        return cu_xstrdup(s);
    unsigned char last = (unsigned char)s[n - 1];
    /* A CJK sentence closed with an ASCII stop after a value ("CUDA 13.0."; not "..."): its own stop instead. */
    if (last == '.' && (n < 2 || s[n - 2] != '.') && cjk_sentence(s, n - 1))
        return cu_xasprintf("%.*s\xe3\x80\x82", (int)(n - 1), s);
    if (strchr(".!?", last) || (n >= 3 && (memcmp(s + n - 3, "\xe3\x80\x82", 3) == 0 ||   /* 。 */
                                           memcmp(s + n - 3, "\xef\xbc\x81", 3) == 0 ||   /* ！ */
                                           memcmp(s + n - 3, "\xef\xbc\x9f", 3) == 0)))   /* ？ */
        return cu_xstrndup(s, n);
    /* A CJK sentence gets the full-width stop, also after a value ("最高可运行 CUDA 13.0。"). */
    return cu_xasprintf("%.*s%s", (int)n, s, cjk_sentence(s, n) ? "\xe3\x80\x82" : ".");
}

char *
cu_str_aside(const char *sentence, const char *aside)
{
    size_t n = strlen(sentence);
    if (n >= 3 && memcmp(sentence + n - 3, "\xe3\x80\x82", 3) == 0)
        return cu_xasprintf("%.*s\xef\xbc\x88%s\xef\xbc\x89\xe3\x80\x82", (int)(n - 3), sentence, aside); /* …（x）。 */
    return cu_xasprintf("%s (%s)", sentence, aside);
}

void
cu_buf_sentence(struct cu_buf *b, const char *s)
{
    while (*s == ' ')
        s++;
    if (!*s)
        return;
    bool wide = b->len >= 3 && ((unsigned char)b->data[b->len - 3] == 0xe3 || (unsigned char)b->data[b->len - 3] == 0xef) &&
                ((unsigned char)b->data[b->len - 2] == 0x80 || (unsigned char)b->data[b->len - 2] == 0xbc);
    if (b->len && !wide && b->data[b->len - 1] != ' ')
        cu_buf_putc(b, ' ');
    cu_buf_puts(b, s);
}
