/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 through OpenSSL's EVP interface, which uses the CPU's SHA
 * extensions where present (SPEED.md 3.5).  Streaming: hash while the bytes
 * arrive, never in a second pass.
 */
#ifndef CU_HASH_H
#define CU_HASH_H

#include <stddef.h>

#include "core/base/error.h"

struct cu_sha256 {
    void *ctx; /* EVP_MD_CTX */
};

/** Start a hash. Errors: CU_E_NOMEM when OpenSSL cannot allocate. */
CU_NODISCARD enum cu_status cu_sha256_init(struct cu_sha256 *h, struct cu_error *err);
void cu_sha256_update(struct cu_sha256 *h, const void *data, size_t len);
/** Finish into 64 hex digits plus NUL; the hash can be re-initialised after. */
void cu_sha256_final(struct cu_sha256 *h, char out[65]);
void cu_sha256_fini(struct cu_sha256 *h);

/** One-shot hash of a buffer. */
void cu_sha256_hex(const void *data, size_t len, char out[65]);

/**
 * Hash a whole file.  Errors: CU_E_NOT_FOUND, CU_E_IO.
 * @size, when not NULL, receives the number of bytes read.
 */
CU_NODISCARD enum cu_status cu_sha256_file(const char *path, char out[65], unsigned long long *size,
                                           struct cu_error *err);

#endif /* CU_HASH_H */
