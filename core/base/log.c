/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/log.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/error.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};

/* Process-wide sink, like libinput's per-context handler but for one engine. */
static struct {
    cu_log_fn fn;
    void *userdata;
    _Atomic int level;
} logger = {NULL, NULL, CU_LOG_WARN};

static void
default_sink(void *userdata, enum cu_log_level level, const char *tag, const char *msg, const char *msg_en)
{
    (void)userdata;
    (void)tag;
    (void)msg_en;
    fprintf(stderr, "cudaup: %s: %s\n", level_names[level], msg);
}

void
cu_log_set_handler(cu_log_fn fn, void *userdata)
{
    logger.fn = fn;
    logger.userdata = userdata;
}

void
cu_log_set_level(enum cu_log_level level)
{
    atomic_store(&logger.level, (int)level);
}

enum cu_log_level
cu_log_get_level(void)
{
    return (enum cu_log_level)atomic_load(&logger.level);
}

int
cu_log_level_parse(const char *s)
{
    if (!s)
        return -1;
    for (size_t i = 0; i < CU_N_ELEMENTS(level_names); i++)
        if (strcasecmp(s, level_names[i]) == 0)
            return (int)i;
    if (strcasecmp(s, "warning") == 0)
        return CU_LOG_WARN;
    return -1;
}

const char *
cu_log_level_name(enum cu_log_level level)
{
    if ((unsigned)level >= CU_N_ELEMENTS(level_names))
        return "?";
    return level_names[level];
}

bool
cu_log_record_only(const char *tag)
{
    return tag && strcmp(tag, CU_LOG_TAG_RECORD) == 0;
}

void
cu_log_init_from_env(void)
{
    int l = cu_log_level_parse(getenv("CUDAUP_DEBUG"));
    if (l >= 0)
        cu_log_set_level((enum cu_log_level)l);
}

/* Control bytes from file names or servers never reach a terminal or log raw. */
static void
defang(char *msg)
{
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t')
            *p = '?';
}

static void
deliver(enum cu_log_level level, const char *tag, char *msg, char *msg_en)
{
    defang(msg);
    defang(msg_en);
    if (logger.fn)
        logger.fn(logger.userdata, level, tag, msg, msg_en);
    else
        default_sink(NULL, level, tag, msg, msg_en);
}

void
cu_log_vmsg(enum cu_log_level level, const char *tag, const char *fmt, va_list ap)
{
    if ((int)level > atomic_load(&logger.level))
        return;
    char msg[1024], msg_en[1024];
    cu_vformat_pair(msg, msg_en, sizeof(msg), fmt, ap);
    deliver(level, tag, msg, msg_en);
}

void
cu_log_err(enum cu_log_level level, const char *tag, const struct cu_error *err)
{
    if ((int)level > atomic_load(&logger.level) || !err)
        return;
    char msg[1200], msg_en[1200];
    const char *a = cu_error_advice(err), *a_en = cu_error_advice_en(err);
    /* The advice in brackets after the message; inside a Chinese sentence's stop, in full-width ones. */
    char *told = a ? cu_str_aside(cu_error_text(err), a) : NULL;
    snprintf(msg, sizeof(msg), "%s", told ? told : cu_error_text(err));
    free(told);
    snprintf(msg_en, sizeof(msg_en), "%s%s%s%s", cu_error_text_en(err), a_en ? " (" : "", a_en ? a_en : "",
             a_en ? ")" : "");
    deliver(level, tag, msg, msg_en);
}

/*
 * What cu_log_once has delivered: hashes of the English texts.  Process-wide, as the sink is: the
 * same note from another plan of the same run is the same note to the user.
 */
static struct {
    pthread_mutex_t mu;
    uint64_t *seen;
    size_t n, cap;
} once = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static bool
first_time(const char *text)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    bool first = true;
    pthread_mutex_lock(&once.mu);
    for (size_t i = 0; i < once.n && first; i++)
        first = once.seen[i] != h;
    if (first) {
        if (once.n == once.cap) {
            once.cap = once.cap ? once.cap * 2 : 16;
            once.seen = cu_xreallocarray(once.seen, once.cap, sizeof(*once.seen));
        }
        once.seen[once.n++] = h;
    }
    pthread_mutex_unlock(&once.mu);
    return first;
}

void
cu_log_once(enum cu_log_level level, const char *tag, const char *fmt, ...)
{
    if ((int)level > atomic_load(&logger.level))
        return;
    char msg[1024], msg_en[1024];
    va_list ap;
    va_start(ap, fmt);
    cu_vformat_pair(msg, msg_en, sizeof(msg), fmt, ap);
    va_end(ap);
    if (first_time(msg_en))
        deliver(level, tag, msg, msg_en);
}

void
cu_log_msg(enum cu_log_level level, const char *tag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cu_log_vmsg(level, tag, fmt, ap);
    va_end(ap);
}
