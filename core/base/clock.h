/* SPDX-License-Identifier: MIT */
/* The two clocks (STYLE 37): a monotonic one for timeouts and rates, and the wall clock, which tests set. */
#ifndef CU_CLOCK_H
#define CU_CLOCK_H

#include <stdint.h>
#include <time.h>

/** Milliseconds of CLOCK_MONOTONIC: for deadlines, back-offs and speeds.  Any thread. */
int64_t cu_mono_ms(void);
/** Microseconds of the same clock: for timing work that takes less than a millisecond.  Any thread. */
int64_t cu_mono_us(void);

/** The wall clock, or CUDAUP_TEST_NOW (seconds since the epoch) when @envp sets it. */
time_t cu_now(const char *const *envp);

#endif
