/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one process-wide hook; written once by main() before any thread exists. */
static cu_oom_hook_fn oom_hook;

void
cu_mem_set_oom_hook(cu_oom_hook_fn fn)
{
    oom_hook = fn;
}

CU_NORETURN static void
oom(void)
{
    if (oom_hook)
        oom_hook();
    fputs("cudaup: out of memory\n", stderr);
    abort();
}

void *
cu_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *
cu_xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *
cu_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom();
    return q;
}

void *
cu_xreallocarray(void *p, size_t nmemb, size_t size)
{
    if (size && nmemb > SIZE_MAX / size)
        oom();
    return cu_xrealloc(p, nmemb * size);
}

char *
cu_xstrdup(const char *s)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        oom();
    return d;
}

char *
cu_xstrndup(const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *d = strndup(s, n);
    if (!d)
        oom();
    return d;
}

char *
cu_xvasprintf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        oom();
    return s;
}

char *
cu_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = cu_xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}
