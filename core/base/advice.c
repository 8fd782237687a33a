/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/advice.h"

#include <string.h>

static const char *const names[CU_ADV_COUNT] = {
    [CU_ADV_NONE] = "",
    [CU_ADV_INSTALL] = "install",
    [CU_ADV_CUDA] = "cuda",
    [CU_ADV_DRIVER_OR_CUDA] = "driver-or-cuda",
    [CU_ADV_ADD_CUDNN] = "add-cudnn",
    [CU_ADV_ENV_VAR] = "env-var",
    [CU_ADV_LD_CLEAN] = "ld-clean",
    [CU_ADV_REPAIR] = "repair",
    [CU_ADV_REINSTALL] = "reinstall",
    [CU_ADV_MIRROR_DOWN] = "mirror-down",
    [CU_ADV_MIRROR_LACKS] = "mirror-lacks",
    [CU_ADV_REQUEST] = "request",
};

const char *
cu_advice_name(enum cu_advice a)
{
    return (unsigned)a < CU_ADV_COUNT ? names[a] : "";
}

enum cu_advice
cu_advice_from_name(const char *name)
{
    for (int i = 1; name && *name && i < CU_ADV_COUNT; i++)
        if (strcmp(names[i], name) == 0)
            return (enum cu_advice)i;
    return CU_ADV_NONE;
}
