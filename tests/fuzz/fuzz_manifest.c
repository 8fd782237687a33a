/* SPDX-License-Identifier: MIT */
/* NVIDIA's redistrib JSON, as a mirror could serve it: never a crash, a leak or a bad path accepted. */
#include "config.h"

#include "fuzz.h"

#include <stdlib.h>

#include "core/manifest.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const enum cu_product products[] = {CU_PRODUCT_CUDA, CU_PRODUCT_CUDNN};
    for (size_t i = 0; i < 2; i++) {
        struct cu_manifest *m = NULL;
        struct cu_error err;
        if (cu_manifest_parse(products[i], "12.4.1", (const char *)data, size, &m, &err) == CU_OK) {
            /* Whatever parsed must hold only names and paths the rest of cudaup may use. */
            for (size_t p = 0; p < m->n_packages; p++)
                for (size_t a = 0; a < m->packages[p].n_artifacts; a++)
                    if (!cu_manifest_path_ok(m->packages[p].artifacts[a].relative_path))
                        abort();
            cu_manifest_free(m);
        }
    }
    return 0;
}
