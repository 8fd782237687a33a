/* SPDX-License-Identifier: MIT */
/* A catalog given with CUDAUP_CATALOG: malformed input is an error, never a crash. */
#include "config.h"

#include "fuzz.h"

#include "core/catalog.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cu_catalog *c = NULL;
    struct cu_error err;
    if (cu_catalog_parse((const char *)data, size, "fuzz", &c, &err) == CU_OK)
        cu_catalog_free(c);
    return 0;
}
