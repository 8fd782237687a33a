/* SPDX-License-Identifier: MIT */
/* A catalog given with CUDAUP_CATALOG: malformed input is an error, never a crash. */
#include "config.h"

#include "fuzz.h"

#include "core/catalog/catalog.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cu_catalog *c = NULL;
    struct cu_error err;
    cu_error_clear(&err);
    if (cu_catalog_parse((const char *)data, size, "fuzz", &c, &err) == CU_OK) {
        /* What loaded is in bounds: GPU code numbers are sm numbers, versions have parts. */
        const struct cu_cat_code *lists[] = {c->code_torch, c->code_tf, c->code_jax};
        const size_t ns[] = {c->n_code_torch, c->n_code_tf, c->n_code_jax};
        for (size_t l = 0; l < 3; l++)
            for (size_t i = 0; i < ns[l]; i++) {
                if (!lists[l][i].from.n)
                    abort();
                for (size_t k = 0; k < lists[l][i].n_sass; k++)
                    if (lists[l][i].sass[k] <= 0 || lists[l][i].sass[k] > 1000)
                        abort();
            }
        for (size_t i = 0; i < c->n_cuda; i++)
            if (!c->cuda[i].version.n)
                abort();
        cu_catalog_free(c);
    } else if (!err.msg[0] || err.code == CU_OK) {
        abort(); /* a refusal always says why */
    }
    return 0;
}
