/* SPDX-License-Identifier: MIT */
/*
 * A fuzz target: libFuzzer's entry point.  Built with -Dfuzzing=true (clang)
 * each target links -fsanitize=fuzzer; otherwise tests/fuzz/smoke.c drives
 * it over the seeds and deterministic mutations of them (suite fuzz-smoke).
 */
#ifndef CU_FUZZ_H
#define CU_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
