/* SPDX-License-Identifier: MIT */
/*
 * Allocation helpers that never return NULL (STYLE 20).  On exhaustion they
 * run the hook registered with cu_mem_set_oom_hook() (the TUI restores the
 * terminal there), print one line and abort.
 */
#ifndef CU_MEM_H
#define CU_MEM_H

#include <stdarg.h>
#include <stddef.h>

#include "core/base/macros.h"

typedef void (*cu_oom_hook_fn)(void);

/** Register the terminal-restore hook; called once by main before threads start. */
void cu_mem_set_oom_hook(cu_oom_hook_fn fn);

void *cu_xmalloc(size_t n);
void *cu_xcalloc(size_t nmemb, size_t size);
void *cu_xrealloc(void *p, size_t n);
/** Grow an array of @nmemb elements of @size; checks the multiplication. */
void *cu_xreallocarray(void *p, size_t nmemb, size_t size);
/** Duplicate @s; NULL gives NULL. Caller owns the result. */
char *cu_xstrdup(const char *s);
char *cu_xstrndup(const char *s, size_t n);
/** printf into a new string the caller owns. */
char *cu_xasprintf(const char *fmt, ...) CU_PRINTF(1, 2);
char *cu_xvasprintf(const char *fmt, va_list ap) CU_PRINTF(1, 0);

#endif /* CU_MEM_H */
