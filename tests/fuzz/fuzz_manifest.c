/* SPDX-License-Identifier: MIT */
/* NVIDIA's redistrib JSON, as a mirror could serve it: never a crash, a leak or a bad path accepted. */
#include "config.h"

#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "core/catalog/manifest.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const enum cu_product products[] = {CU_PRODUCT_CUDA, CU_PRODUCT_CUDNN};
    for (size_t i = 0; i < 2; i++) {
        struct cu_manifest *m = NULL;
        struct cu_error err;
        cu_error_clear(&err);
        if (cu_manifest_parse(products[i], "12.4.1", (const char *)data, size, &m, &err) == CU_OK) {
            /* Whatever parsed must hold only values the rest of cudaup may use: safe paths, a
             * sha256 of 64 lower-case hex digits, a size within the bounds of a real archive. */
            for (size_t p = 0; p < m->n_packages; p++)
                for (size_t a = 0; a < m->packages[p].n_artifacts; a++) {
                    const struct cu_artifact *art = &m->packages[p].artifacts[a];
                    if (!cu_manifest_path_ok(art->relative_path) || strlen(art->sha256) != 64 ||
                        strspn(art->sha256, "0123456789abcdef") != 64 || art->size == 0 ||
                        art->size > (UINT64_C(1) << 40))
                        abort();
                }
            cu_manifest_free(m);
        } else if (!err.msg[0] || err.code == CU_OK) {
            abort(); /* a refusal always says why */
        }
    }
    return 0;
}
