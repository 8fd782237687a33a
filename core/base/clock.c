/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/clock.h"

#include <string.h>

#include "core/base/parse.h"

int64_t
cu_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t
cu_mono_ms(void)
{
    return cu_mono_us() / 1000;
}

time_t
cu_now(const char *const *envp)
{
    for (const char *const *e = envp; e && *e; e++) {
        uint64_t v;
        if (strncmp(*e, "CUDAUP_TEST_NOW=", 16) == 0 && cu_parse_u64(*e + 16, UINT64_MAX / 2, &v))
            return (time_t)v;
    }
    return time(NULL);
}
