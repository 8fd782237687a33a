/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "log.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};

/* Process-wide sink, like libinput's per-context handler but for one engine. */
static struct {
    cu_log_fn fn;
    void *userdata;
    _Atomic int level;
} logger = {NULL, NULL, CU_LOG_WARN};

static void
default_sink(void *userdata, enum cu_log_level level, const char *tag, const char *msg)
{
    (void)userdata;
    (void)tag;
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

void
cu_log_init_from_env(void)
{
    int l = cu_log_level_parse(getenv("CUDAUP_DEBUG"));
    if (l >= 0)
        cu_log_set_level((enum cu_log_level)l);
}

void
cu_log_vmsg(enum cu_log_level level, const char *tag, const char *fmt, va_list ap)
{
    if ((int)level > atomic_load(&logger.level))
        return;
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    /* Control bytes from file names or servers never reach a terminal or log raw. */
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t')
            *p = '?';
    if (logger.fn)
        logger.fn(logger.userdata, level, tag, msg);
    else
        default_sink(NULL, level, tag, msg);
}

void
cu_log_msg(enum cu_log_level level, const char *tag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cu_log_vmsg(level, tag, fmt, ap);
    va_end(ap);
}
