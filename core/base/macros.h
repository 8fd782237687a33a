/* SPDX-License-Identifier: MIT */
/*
 * Attribute macros and scope-cleanup helpers, kept in one place (STYLE 12, 22).
 */
#ifndef CU_MACROS_H
#define CU_MACROS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CU_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define CU_FORMAT_ARG(n) __attribute__((format_arg(n)))
#if defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L
#define CU_NODISCARD [[nodiscard]]
#else
#define CU_NODISCARD __attribute__((warn_unused_result))
#endif
#define CU_NORETURN __attribute__((noreturn))
#define CU_UNUSED __attribute__((unused))

/* CU_TESTABLE: static unless the unit tests need to reach the function. */
#ifdef CU_UNITTESTS
#define CU_TESTABLE
#else
#define CU_TESTABLE static
#endif

#define CU_N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

static inline void
cu_autofree_(void *p)
{
    int saved = errno;
    free(*(void **)p);
    errno = saved;
}

static inline void
cu_autoclose_(const int *fd)
{
    if (*fd >= 0) {
        int saved = errno;
        close(*fd);
        errno = saved;
    }
}

static inline void
cu_autofclose_(FILE **f)
{
    if (*f) {
        int saved = errno;
        fclose(*f);
        errno = saved;
    }
}

#define CU_AUTOFREE __attribute__((cleanup(cu_autofree_)))
#define CU_AUTOCLOSE __attribute__((cleanup(cu_autoclose_)))
#define CU_AUTOFCLOSE __attribute__((cleanup(cu_autofclose_)))

/** Hand ownership of *pp to the caller and leave NULL behind. */
static inline void *
cu_steal_ptr(void *pp)
{
    void **p = pp;
    void *v = *p;
    *p = NULL;
    return v;
}

/** Hand ownership of *fd to the caller and leave -1 behind. */
static inline int
cu_steal_fd(int *fd)
{
    int v = *fd;
    *fd = -1;
    return v;
}

/** Free *pp with fn and set it to NULL in one step. */
static inline void
cu_clear_ptr(void *pp, void (*fn)(void *))
{
    void **p = pp;
    if (*p) {
        fn(*p);
        *p = NULL;
    }
}

#endif /* CU_MACROS_H */
