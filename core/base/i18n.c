/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"

#include <locale.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Translation -> original, keyed by the translation's address (gettext hands out the same
 * pointer into the mapped catalog each time).  Open addressing, never shrinks: a catalog has
 * about a thousand strings.
 */
#define SLOTS 8192

static struct {
    const char *translated, *original;
} map[SLOTS];
static size_t n_map;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool active;

static size_t
slot_of(const void *p)
{
    uintptr_t h = (uintptr_t)p;
    h ^= h >> 17;
    h *= 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 7) % SLOTS;
}

static void
remember(const char *translated, const char *original)
{
    if (translated == original)
        return;
    pthread_mutex_lock(&mu);
    if (n_map < SLOTS / 2) {
        size_t i = slot_of(translated);
        while (map[i].translated && map[i].translated != translated)
            i = (i + 1) % SLOTS;
        if (!map[i].translated) {
            map[i].translated = translated;
            map[i].original = original;
            n_map++;
        }
    }
    pthread_mutex_unlock(&mu);
    active = true;
}

/*
 * Text formatted from translations (an error's message, a resolver's reason) is copied on into
 * other messages with "%s"; its English twin is kept by content, so that the copy can be taken
 * back too.  Bounded: a run makes a few dozen such texts.
 */
#define TEXTS 2048

static struct {
    uint64_t hash;
    char *translated, *english;
} texts[TEXTS];
static size_t n_texts;

static uint64_t
hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ? h : 1;
}

void
cu_i18n_note(const char *translated, const char *english)
{
    if (!active || !translated || !english || strcmp(translated, english) == 0)
        return;
    uint64_t h = hash_text(translated);
    pthread_mutex_lock(&mu);
    if (n_texts < TEXTS / 2) {
        size_t i = (size_t)(h % TEXTS);
        while (texts[i].hash && !(texts[i].hash == h && strcmp(texts[i].translated, translated) == 0))
            i = (i + 1) % TEXTS;
        if (!texts[i].hash) {
            char *a = strdup(translated), *b = strdup(english);
            if (a && b) {
                texts[i].hash = h;
                texts[i].translated = a;
                texts[i].english = b;
                n_texts++;
            } else {
                free(a);
                free(b);
            }
        }
    }
    pthread_mutex_unlock(&mu);
}

const char *
cu_english(const char *s)
{
    if (!s || !active)
        return s;
    const char *out = NULL;
    pthread_mutex_lock(&mu);
    for (size_t i = slot_of(s); map[i].translated; i = (i + 1) % SLOTS)
        if (map[i].translated == s) {
            out = map[i].original;
            break;
        }
    if (!out && n_texts) {
        uint64_t h = hash_text(s);
        for (size_t i = (size_t)(h % TEXTS); texts[i].hash; i = (i + 1) % TEXTS)
            if (texts[i].hash == h && strcmp(texts[i].translated, s) == 0) {
                out = texts[i].english;
                break;
            }
    }
    pthread_mutex_unlock(&mu);
    return out ? out : s;
}

void
cu_vformat_pair(char *out, char *out_en, size_t len, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    vsnprintf(out, len, fmt, ap);
    if (active)
        cu_vformat_en(out_en, len, fmt, ap2);
    else if (len)
        snprintf(out_en, len, "%s", out); /* English already: formatted once */
    va_end(ap2);
}

void
cu_vformat_both(char *out, char *out_en, size_t len, const char *fmt, va_list ap)
{
    cu_vformat_pair(out, out_en, len, fmt, ap);
    cu_i18n_note(out, out_en);
}

void
cu_i18n_note_formatted(const char *formatted, const char *fmt, va_list ap)
{
    if (!active)
        return;
    /* Room for the whole text in both languages (a CJK character takes three bytes). */
    size_t len = strlen(formatted) * 2 + 1024;
    char *a = malloc(len), *b = malloc(len);
    if (a && b) {
        va_list copy;
        va_copy(copy, ap);
        cu_vformat_both(a, b, len, fmt, copy);
        va_end(copy);
    }
    free(a);
    free(b);
}

char *
cu_tr_asprintf(const char *fmt, ...)
{
    char buf[2048], en[2048];
    va_list ap;
    va_start(ap, fmt);
    cu_vformat_both(buf, en, sizeof(buf), fmt, ap);
    va_end(ap);
    char *s = strdup(buf);
    if (!s)
        abort();
    return s;
}

bool
cu_i18n_active(void)
{
    return active;
}

#ifdef ENABLE_NLS
const char *
cu_gettext(const char *msgid)
{
    const char *t = dgettext(GETTEXT_PACKAGE, msgid);
    remember(t, msgid);
    return t;
}

const char *
cu_ngettext(const char *msgid, const char *plural, unsigned long n)
{
    const char *t = dngettext(GETTEXT_PACKAGE, msgid, plural, n);
    /* A language with one form for every count maps it back to the form this count takes. */
    remember(t, n == 1 ? msgid : plural);
    return t;
}
#endif

/* The arguments are fetched by the conversions of @fmt: flags, width, precision, length. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void
cu_vformat_en(char *out, size_t len, const char *fmt, va_list ap)
{
    if (!len)
        return;
    if (!active) {
        vsnprintf(out, len, fmt, ap);
        return;
    }
    const char *f = cu_english(fmt);
    size_t o = 0;
    out[0] = '\0';
#define PUT(...)                                                                                  \
    do {                                                                                          \
        if (o < len) {                                                                            \
            int k_ = snprintf(out + o, len - o, __VA_ARGS__);                                     \
            o += k_ > 0 ? (size_t)k_ : 0;                                                         \
        }                                                                                         \
    } while (0)
    while (*f) {
        const char *pct = strchr(f, '%');
        if (!pct) {
            PUT("%s", f);
            break;
        }
        PUT("%.*s", (int)(pct - f), f);
        const char *p = pct + 1;
        if (*p == '%') {
            PUT("%%");
            f = p + 1;
            continue;
        }
        int star[2], n_star = 0;
        p += strspn(p, "-+ #0'");
        if (*p == '*') {
            star[n_star++] = va_arg(ap, int);
            p++;
        } else {
            p += strspn(p, "0123456789");
        }
        if (*p == '.') {
            p++;
            if (*p == '*') {
                star[n_star++] = va_arg(ap, int);
                p++;
            } else {
                p += strspn(p, "0123456789");
            }
        }
        char lenmod[3] = "";
        if ((p[0] == 'h' && p[1] == 'h') || (p[0] == 'l' && p[1] == 'l')) {
            memcpy(lenmod, p, 2);
            p += 2;
        } else if (strchr("hlzjtL", *p) && *p) {
            lenmod[0] = *p++;
        }
        char conv = *p;
        if (!conv)
            break;
        char spec[64];
        snprintf(spec, sizeof(spec), "%.*s", (int)(p + 1 - pct), pct);
        /* One conversion at a time, with the argument of its type. */
        switch (conv) {
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': {
            long long v;
            if (!strcmp(lenmod, "ll") || !strcmp(lenmod, "j"))
                v = va_arg(ap, long long);
            else if (!strcmp(lenmod, "l"))
                v = va_arg(ap, long);
            else if (!strcmp(lenmod, "z") || !strcmp(lenmod, "t"))
                v = (long long)va_arg(ap, size_t);
            else
                v = va_arg(ap, int);
            if (!strcmp(lenmod, "ll") || !strcmp(lenmod, "j")) {
                if (n_star == 2) PUT(spec, star[0], star[1], v);
                else if (n_star == 1) PUT(spec, star[0], v);
                else PUT(spec, v);
            } else if (!strcmp(lenmod, "l")) {
                if (n_star == 2) PUT(spec, star[0], star[1], (long)v);
                else if (n_star == 1) PUT(spec, star[0], (long)v);
                else PUT(spec, (long)v);
            } else if (!strcmp(lenmod, "z") || !strcmp(lenmod, "t")) {
                if (n_star == 2) PUT(spec, star[0], star[1], (size_t)v);
                else if (n_star == 1) PUT(spec, star[0], (size_t)v);
                else PUT(spec, (size_t)v);
            } else {
                if (n_star == 2) PUT(spec, star[0], star[1], (int)v);
                else if (n_star == 1) PUT(spec, star[0], (int)v);
                else PUT(spec, (int)v);
            }
            break;
        }
        case 'f': case 'F': case 'g': case 'G': case 'e': case 'E': case 'a': case 'A': {
            double v = va_arg(ap, double);
            if (n_star == 2) PUT(spec, star[0], star[1], v);
            else if (n_star == 1) PUT(spec, star[0], v);
            else PUT(spec, v);
            break;
        }
        case 's': {
            const char *v = cu_english(va_arg(ap, const char *));
            if (n_star == 2) PUT(spec, star[0], star[1], v);
            else if (n_star == 1) PUT(spec, star[0], v);
            else PUT(spec, v);
            break;
        }
        case 'p': {
            void *v = va_arg(ap, void *);
            PUT(spec, v);
            break;
        }
        default:
            PUT("%s", spec); /* not a conversion cudaup uses: shown as written */
            break;
        }
        f = p + 1;
    }
#undef PUT
}
#pragma GCC diagnostic pop

static locale_t c_locale;

static void
init_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

const char *
cu_strerror_en(int errnum)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_c_locale);
    return c_locale ? strerror_l(errnum, c_locale) : "unknown error";
}

void
cu_i18n_push_noted(struct cu_strv *to, const char *fmt, va_list ap)
{
    va_list en;
    va_copy(en, ap);
    char *s = cu_xvasprintf(fmt, ap);
    cu_i18n_note_formatted(s, fmt, en);
    va_end(en);
    cu_strv_push_owned(to, s);
}
