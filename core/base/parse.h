/* SPDX-License-Identifier: MIT */
/*
 * Strict number and version parsing (STYLE 44): no atoi, every byte checked.
 */
#ifndef CU_PARSE_H
#define CU_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/error.h"

/** Parse a decimal unsigned integer in [0, max]; no sign, no spaces, no base prefix. */
CU_NODISCARD bool cu_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Six: NVIDIA's wheels number in five parts too (nvidia-cuda-cccl 13.3.3.3.1, which cuda-toolkit 13.3.0 pins). */
#define CU_VERSION_MAX_PARTS 6

/** A dotted numeric version such as 12.4, 550.54.14, 9.1.0.70 or 13.3.3.3.1. */
struct cu_version {
    uint32_t part[CU_VERSION_MAX_PARTS];
    int n; /* number of parts given, 1..6; 0 means "none" */
};

/**
 * Parse "X", "X.Y", "X.Y.Z", ... up to six parts (each part at most 9 digits).
 * @return false on anything else, with @out zeroed.
 */
CU_NODISCARD bool cu_version_parse(const char *s, struct cu_version *out);

/** Compare the first parts both have, then the longer one is greater; <0, 0, >0. */
int cu_version_cmp(const struct cu_version *a, const struct cu_version *b);

/** Compare two version strings; unparsable strings sort first. */
int cu_version_strcmp(const char *a, const char *b);

/** True when @v starts with every part of @prefix (12.4.1 matches 12.4 and 12). */
bool cu_version_matches(const struct cu_version *v, const struct cu_version *prefix);

/** Format into @buf with @nparts parts (or all when 0). Returns @buf. */
char *cu_version_format(const struct cu_version *v, int nparts, char *buf, size_t len);

/**
 * Format an NVIDIA driver version, whose parts after the first are written
 * with at least two digits (470.82.01, 570.124.06, 570.26). Returns @buf.
 */
char *cu_driver_version_format(const struct cu_version *v, char *buf, size_t len);

/** Encode as CUDA does: 12040 for 12.4. */
int cu_version_to_cuda_int(const struct cu_version *v);
/** Decode 12040 into 12.4. */
void cu_version_from_cuda_int(int n, struct cu_version *out);

#endif /* CU_PARSE_H */
