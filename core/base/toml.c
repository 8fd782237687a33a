/* SPDX-License-Identifier: MIT */
/* A TOML reader for engines' configuration files (core/base/toml.h). */
#include "config.h"

#include "core/base/toml.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "core/base/str.h"

struct lex {
    const char *s; /* the text */
    size_t i;
    int line;
    struct cu_error *err;
    struct cu_toml *out;
    char *table;       /* the current table's canonical key, "" at the top */
    bool in_table;
};

static enum cu_status
fail(struct lex *x, const char *fmt, ...) CU_PRINTF(2, 3);
static enum cu_status
fail(struct lex *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    CU_AUTOFREE char *m = cu_xvasprintf(fmt, ap);
    va_end(ap);
    return cu_error_set(x->err, CU_E_INPUT, 0, "line %d: %s", x->line, m);
}

static char
peek(const struct lex *x)
{
    return x->s[x->i];
}

static void
skip_ws(struct lex *x)
{
    while (peek(x) == ' ' || peek(x) == '\t')
        x->i++;
}

/* Spaces, comments and newlines (inside arrays and between lines). */
static void
skip_ws_nl(struct lex *x)
{
    for (;;) {
        char c = peek(x);
        if (c == ' ' || c == '\t' || c == '\r') {
            x->i++;
        } else if (c == '\n') {
            x->i++;
            x->line++;
        } else if (c == '#') {
            while (peek(x) && peek(x) != '\n')
                x->i++;
        } else {
            return;
        }
    }
}

static bool
bare_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

char *
cu_toml_part(const char *part)
{
    bool bare = *part != '\0';
    for (const char *p = part; *p; p++)
        bare &= bare_char(*p);
    return bare ? cu_xstrdup(part) : cu_toml_quote(part);
}

char *
cu_toml_quote(const char *s)
{
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_putc(&b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            cu_buf_printf(&b, "\\%c", *p);
        else if (*p == '\n')
            cu_buf_puts(&b, "\\n");
        else if (*p == '\t')
            cu_buf_puts(&b, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            cu_buf_printf(&b, "\\u%04x", *p);
        else
            cu_buf_putc(&b, (char)*p);
    }
    cu_buf_putc(&b, '"');
    return cu_buf_steal(&b);
}

static void
put_utf8(struct cu_buf *b, unsigned long cp)
{
    if (cp < 0x80) {
        cu_buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        cu_buf_putc(b, (char)(0xc0 | (cp >> 6)));
        cu_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        cu_buf_putc(b, (char)(0xe0 | (cp >> 12)));
        cu_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        cu_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else {
        cu_buf_putc(b, (char)(0xf0 | (cp >> 18)));
        cu_buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
        cu_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        cu_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    }
}

/* A string at x->i (basic, literal, or their multi-line forms), decoded into *out. */
static enum cu_status
string(struct lex *x, char **out)
{
    char q = peek(x);
    bool multi = x->s[x->i + 1] == q && x->s[x->i + 2] == q;
    struct cu_buf b;
    cu_buf_init(&b);
    x->i += multi ? 3 : 1;
    if (multi && peek(x) == '\n') { /* a newline right after the opening quotes is trimmed */
        x->i++;
        x->line++;
    } else if (multi && peek(x) == '\r' && x->s[x->i + 1] == '\n') {
        x->i += 2;
        x->line++;
    }
    for (;;) {
        char c = peek(x);
        if (!c || (!multi && c == '\n')) {
            cu_buf_fini(&b);
            return fail(x, "unterminated string");
        }
        if (c == q && (!multi || (x->s[x->i + 1] == q && x->s[x->i + 2] == q))) {
            x->i += multi ? 3 : 1;
            /* up to two more quotes right before the closing three belong to the string */
            while (multi && peek(x) == q && b.len < (size_t)-1) {
                cu_buf_putc(&b, q);
                x->i++;
            }
            break;
        }
        if (c == '\n')
            x->line++;
        if (c == '\\' && q == '"') {
            char e = x->s[x->i + 1];
            x->i += 2;
            switch (e) {
            case 'b': cu_buf_putc(&b, '\b'); break;
            case 't': cu_buf_putc(&b, '\t'); break;
            case 'n': cu_buf_putc(&b, '\n'); break;
            case 'f': cu_buf_putc(&b, '\f'); break;
            case 'r': cu_buf_putc(&b, '\r'); break;
            case '"': cu_buf_putc(&b, '"'); break;
            case '\\': cu_buf_putc(&b, '\\'); break;
            case 'u':
            case 'U': {
                size_t n = e == 'u' ? 4 : 8;
                char hex[9] = {0};
                for (size_t k = 0; k < n; k++) {
                    char h = x->s[x->i + k];
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) {
                        cu_buf_fini(&b);
                        return fail(x, "bad \\%c escape in a string", e);
                    }
                    hex[k] = h;
                }
                x->i += n;
                put_utf8(&b, strtoul(hex, NULL, 16));
                break;
            }
            case '\n':
            case ' ':
            case '\t':
            case '\r':
                if (!multi) {
                    cu_buf_fini(&b);
                    return fail(x, "bad escape in a string");
                }
                /* a line-ending backslash: the newline and the spaces after it vanish */
                x->i--;
                while (peek(x) == ' ' || peek(x) == '\t' || peek(x) == '\r' || peek(x) == '\n') {
                    if (peek(x) == '\n')
                        x->line++;
                    x->i++;
                }
                break;
            default:
                cu_buf_fini(&b);
                return fail(x, "bad escape \\%c in a string", e ? e : ' ');
            }
            continue;
        }
        cu_buf_putc(&b, c);
        x->i++;
    }
    if (!b.data)
        cu_buf_puts(&b, "");
    *out = cu_buf_steal(&b);
    return CU_OK;
}

/* A key (bare, quoted, dotted) into canonical parts appended to @path (a canonical key, may be ""). */
static enum cu_status
key(struct lex *x, const char *prefix, char **out)
{
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_puts(&b, prefix);
    for (;;) {
        skip_ws(x);
        char *part = NULL;
        char c = peek(x);
        if (c == '"' || c == '\'') {
            if (x->s[x->i + 1] == c && x->s[x->i + 2] == c) {
                cu_buf_fini(&b);
                return fail(x, "a key cannot be a multi-line string");
            }
            enum cu_status st = string(x, &part);
            if (st != CU_OK) {
                cu_buf_fini(&b);
                return st;
            }
        } else {
            size_t start = x->i;
            while (bare_char(peek(x)))
                x->i++;
            if (x->i == start) {
                cu_buf_fini(&b);
                return fail(x, "a key was expected");
            }
            part = cu_xstrndup(x->s + start, x->i - start);
        }
        CU_AUTOFREE char *canon = cu_toml_part(part);
        free(part);
        if (b.len)
            cu_buf_putc(&b, '.');
        cu_buf_puts(&b, canon);
        skip_ws(x);
        if (peek(x) != '.')
            break;
        x->i++;
    }
    *out = cu_buf_steal(&b);
    return CU_OK;
}

static struct cu_toml_entry *
add_entry(struct lex *x, char *k, int line)
{
    struct cu_toml *t = x->out;
    t->v = cu_xreallocarray(t->v, t->n + 1, sizeof(*t->v));
    struct cu_toml_entry *e = &t->v[t->n++];
    memset(e, 0, sizeof(*e));
    e->key = k;
    e->line = e->end_line = line;
    e->top = !x->in_table;
    return e;
}

static bool
defined(const struct cu_toml *t, const char *k)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i].key, k) == 0)
            return true;
    return false;
}

static enum cu_status value(struct lex *x, char *k, int line);

/* An inline table { a = 1, b.c = "x" }: each key an entry of its own under @k. */
static enum cu_status
inline_table(struct lex *x, const char *k)
{
    x->i++; /* { */
    skip_ws(x);
    if (peek(x) == '}') {
        x->i++;
        return CU_OK;
    }
    for (;;) {
        char *sub = NULL;
        enum cu_status st = key(x, k, &sub);
        if (st != CU_OK)
            return st;
        skip_ws(x);
        if (peek(x) != '=') {
            free(sub);
            return fail(x, "'=' was expected after a key");
        }
        x->i++;
        skip_ws(x);
        if ((st = value(x, sub, x->line)) != CU_OK)
            return st;
        skip_ws(x);
        if (peek(x) == ',') {
            x->i++;
            continue;
        }
        if (peek(x) == '}') {
            x->i++;
            return CU_OK;
        }
        return fail(x, "',' or '}' was expected in an inline table");
    }
}

/* An array [ ... ]: its string items decoded into @items; nested arrays and tables skipped over. */
static enum cu_status
array(struct lex *x, struct cu_strv *items, const char *k)
{
    x->i++; /* [ */
    size_t n = 0;
    for (;;) {
        skip_ws_nl(x);
        char c = peek(x);
        if (c == ']') {
            x->i++;
            return CU_OK;
        }
        if (!c)
            return fail(x, "unterminated array");
        if (c == '"' || c == '\'') {
            char *s = NULL;
            enum cu_status st = string(x, &s);
            if (st != CU_OK)
                return st;
            cu_strv_push_owned(items, s);
        } else if (c == '[') {
            struct cu_strv sub;
            cu_strv_init(&sub);
            enum cu_status st = array(x, &sub, k);
            cu_strv_fini(&sub);
            if (st != CU_OK)
                return st;
        } else if (c == '{') {
            CU_AUTOFREE char *ik = cu_xasprintf("%s[%zu]", k, n);
            enum cu_status st = inline_table(x, ik);
            if (st != CU_OK)
                return st;
        } else {
            size_t start = x->i;
            while (peek(x) && !strchr(",]\n#", peek(x)))
                x->i++;
            if (x->i == start)
                return fail(x, "a value was expected in an array");
        }
        n++;
        skip_ws_nl(x);
        if (peek(x) == ',') {
            x->i++;
            continue;
        }
        if (peek(x) == ']') {
            x->i++;
            return CU_OK;
        }
        return fail(x, peek(x) ? "',' or ']' was expected in an array" : "unterminated array");
    }
}

/* The value of key @k (taken) at x->i. */
static enum cu_status
value(struct lex *x, char *k, int line)
{
    if (defined(x->out, k)) {
        enum cu_status st = fail(x, "the key %s is defined twice", k);
        free(k);
        return st;
    }
    add_entry(x, k, line);
    size_t idx = x->out->n - 1; /* entries may be added below it (an inline table's): found again by index */
#define E (&x->out->v[idx])
    size_t start = x->i;
    char c = peek(x);
    enum cu_status st = CU_OK;
    if (c == '"' || c == '\'') {
        E->type = CU_TOML_STRING;
        char *s = NULL;
        st = string(x, &s);
        E->value = s;
    } else if (c == '[') {
        struct cu_strv items;
        cu_strv_init(&items);
        E->type = CU_TOML_ARRAY;
        CU_AUTOFREE char *kk = cu_xstrdup(k);
        st = array(x, &items, kk);
        E->items = cu_xcalloc(items.n + 1, sizeof(char *));
        for (size_t i = 0; i < items.n; i++)
            E->items[i] = cu_xstrdup(items.v[i]);
        cu_strv_fini(&items);
        E->value = cu_xstrndup(x->s + start, x->i - start);
    } else if (c == '{') {
        E->type = CU_TOML_TABLE;
        CU_AUTOFREE char *kk = cu_xstrdup(k);
        st = inline_table(x, kk);
        E->value = cu_xstrndup(x->s + start, x->i - start);
    } else {
        while (peek(x) && !strchr(",]}\n#", peek(x)))
            x->i++;
        CU_AUTOFREE char *raw = cu_xstrndup(x->s + start, x->i - start);
        char *w = cu_str_strip(raw);
        if (!*w)
            return fail(x, "a value was expected");
        /* a bare value has no space, but a date-time's "1979-05-27 07:32:00" */
        if (strpbrk(w, " \t") && !(strlen(w) > 11 && w[4] == '-' && w[7] == '-' && w[10] == ' '))
            return fail(x, "unexpected text after a value");
        E->value = cu_xstrdup(w);
        if (strcmp(w, "true") == 0 || strcmp(w, "false") == 0) {
            E->type = CU_TOML_BOOL;
        } else {
            /* an integer: decimal with _ separators, or 0x / 0o / 0b */
            struct cu_buf d;
            cu_buf_init(&d);
            for (const char *p = w; *p; p++)
                if (*p != '_')
                    cu_buf_putc(&d, *p);
            char *end = NULL;
            errno = 0;
            int base = 10;
            const char *digits = d.data;
            if (strncmp(digits, "0x", 2) == 0 || strncmp(digits, "0o", 2) == 0 || strncmp(digits, "0b", 2) == 0) {
                base = digits[1] == 'x' ? 16 : digits[1] == 'o' ? 8 : 2;
                digits += 2;
            }
            long long v = strtoll(digits, &end, base);
            E->type = end && !*end && errno == 0 && *digits ? CU_TOML_INT : CU_TOML_OTHER;
            E->ival = v;
            cu_buf_fini(&d);
        }
    }
    /* the value's last line; an inline table's keys share its lines */
    for (size_t i = idx; i < x->out->n; i++) {
        x->out->v[i].line = line;
        x->out->v[i].end_line = x->line;
    }
#undef E
    return st;
}

/* The rest of a line after a key/value or header: spaces and a comment only. */
static enum cu_status
end_of_line(struct lex *x)
{
    skip_ws(x);
    if (peek(x) == '#')
        while (peek(x) && peek(x) != '\n')
            x->i++;
    if (peek(x) == '\r')
        x->i++;
    if (peek(x) && peek(x) != '\n')
        return fail(x, "unexpected text after a value");
    return CU_OK;
}

static enum cu_status
header(struct lex *x)
{
    bool arr = x->s[x->i + 1] == '[';
    x->i += arr ? 2 : 1;
    char *k = NULL;
    enum cu_status st = key(x, "", &k);
    if (st != CU_OK)
        return st;
    skip_ws(x);
    if (peek(x) != ']' || (arr && x->s[x->i + 1] != ']')) {
        free(k);
        return fail(x, "a table header is not closed");
    }
    x->i += arr ? 2 : 1;
    struct cu_toml *t = x->out;
    if (!arr && (cu_toml_table(t, k) || defined(t, k))) {
        st = fail(x, "the table [%s] is defined twice", k);
        free(k);
        return st;
    }
    size_t count = 0;
    for (size_t i = 0; i < t->n_tables; i++)
        count += t->tables[i].array && strcmp(t->tables[i].key, k) == 0;
    t->tables = cu_xreallocarray(t->tables, t->n_tables + 1, sizeof(*t->tables));
    struct cu_toml_table *h = &t->tables[t->n_tables++];
    h->key = cu_xstrdup(k);
    h->array = arr;
    h->line = h->end_line = x->line;
    if (!t->first_table_line)
        t->first_table_line = x->line;
    free(x->table);
    /* keys under the Nth [[a]] are a[N].key */
    x->table = arr ? cu_xasprintf("%s[%zu]", k, count) : k;
    if (arr)
        free(k);
    x->in_table = true;
    return end_of_line(x);
}

enum cu_status
cu_toml_parse(const char *text, struct cu_toml *out, struct cu_error *err)
{
    memset(out, 0, sizeof(*out));
    struct lex x = {text ? text : "", 0, 1, err, out, cu_xstrdup(""), false};
    enum cu_status st = CU_OK;
    while (st == CU_OK) {
        skip_ws(&x);
        char c = peek(&x);
        if (!c)
            break;
        if (c == '\n') {
            x.i++;
            x.line++;
            continue;
        }
        if (c == '\r' || c == '#') {
            while (peek(&x) && peek(&x) != '\n')
                x.i++;
            continue;
        }
        if (c == '[') {
            st = header(&x);
            continue;
        }
        int line = x.line;
        char *k = NULL;
        if ((st = key(&x, x.table, &k)) != CU_OK)
            break;
        skip_ws(&x);
        if (peek(&x) != '=') {
            free(k);
            st = fail(&x, "'=' was expected after a key");
            break;
        }
        x.i++;
        skip_ws(&x);
        if ((st = value(&x, k, line)) != CU_OK)
            break;
        st = end_of_line(&x);
    }
    out->n_lines = x.line;
    for (size_t i = 0; i < out->n_tables; i++)
        out->tables[i].end_line = i + 1 < out->n_tables ? out->tables[i + 1].line - 1 : x.line;
    free(x.table);
    if (st != CU_OK)
        cu_toml_fini(out);
    return st;
}

void
cu_toml_fini(struct cu_toml *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].key);
        free(t->v[i].value);
        cu_strv_free(t->v[i].items);
    }
    for (size_t i = 0; i < t->n_tables; i++)
        free(t->tables[i].key);
    free(t->v);
    free(t->tables);
    memset(t, 0, sizeof(*t));
}

const struct cu_toml_entry *
cu_toml_get(const struct cu_toml *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i].key, key) == 0)
            return &t->v[i];
    return NULL;
}

const struct cu_toml_table *
cu_toml_table(const struct cu_toml *t, const char *key)
{
    for (size_t i = 0; i < t->n_tables; i++)
        if (strcmp(t->tables[i].key, key) == 0)
            return &t->tables[i];
    return NULL;
}

static bool
under(const char *k, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(k, prefix, n) == 0 && (k[n] == '\0' || k[n] == '.' || k[n] == '[');
}

bool
cu_toml_has_prefix(const struct cu_toml *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (under(t->v[i].key, key))
            return true;
    for (size_t i = 0; i < t->n_tables; i++)
        if (under(t->tables[i].key, key))
            return true;
    return false;
}
