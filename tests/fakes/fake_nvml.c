/* SPDX-License-Identifier: MIT */
/* A double of libnvidia-ml.so.1: the functions cudaup calls, answering from fakegpu.h. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/machine/nvtypes.h"
#include "fakegpu.h"

#define EXPORT __attribute__((visibility("default")))

/* Handles are 1-based indexes disguised as pointers. */
static const struct fake_gpu *
gpu_of(nvmlDevice_t d)
{
    const struct fake_config *c = fake_config();
    size_t i = (size_t)(uintptr_t)d;
    if (i == 0 || (int)i > c->n_gpus)
        return NULL;
    return &c->gpus[i - 1];
}

EXPORT nvmlReturn_t nvmlInit_v2(void);
EXPORT nvmlReturn_t nvmlShutdown(void);
EXPORT const char *nvmlErrorString(nvmlReturn_t r);
EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int len);
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v);
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n);
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned int len);
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p);
EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *maj, int *min);
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m);

nvmlReturn_t
nvmlInit_v2(void)
{
    return fake_config()->nvml_init;
}

nvmlReturn_t
nvmlShutdown(void)
{
    return NVML_SUCCESS;
}

const char *
nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "Driver/library version mismatch";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    default: return "Unknown Error";
    }
}

nvmlReturn_t
nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
    FAKE_FAIL_RETURN(nvmlReturn_t);
    snprintf(buf, len, "%s", fake_config()->driver);
    return NVML_SUCCESS;
}

nvmlReturn_t
nvmlSystemGetCudaDriverVersion_v2(int *v)
{
    FAKE_FAIL_RETURN(nvmlReturn_t);
    *v = fake_config()->cuda;
    return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetCount_v2(unsigned int *n)
{
    FAKE_FAIL_RETURN(nvmlReturn_t);
    *n = (unsigned)fake_config()->n_gpus;
    return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    FAKE_FAIL_RETURN(nvmlReturn_t);
    if ((int)i >= fake_config()->n_gpus)
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *d = (nvmlDevice_t)(uintptr_t)(i + 1);
    return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned int len)
{
    FAKE_FAIL_RETURN(nvmlReturn_t);
    const struct fake_gpu *g = gpu_of(d);
    if (!g)
        return 2;
    snprintf(buf, len, "%s", g->name);
    return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p)
{
    FAKE_FAIL_RETURN(nvmlReturn_t);
    const struct fake_gpu *g = gpu_of(d);
    if (!g)
        return 2;
    memset(p, 0, sizeof(*p));
    /* NVML writes an 8-digit domain: 00000000:01:00.0 */
    snprintf(p->busId, sizeof(p->busId), "0000%s", g->bus);
    for (char *c = p->busId; *c; c++)
        if (*c >= 'a' && *c <= 'f')
            *c = (char)(*c - 'a' + 'A');
    p->pciDeviceId = (g->device_id << 16) | 0x10de;
    return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *maj, int *min)
{
    FAKE_FAIL_RETURN(nvmlReturn_t);
    const struct fake_gpu *g = gpu_of(d);
    if (!g)
        return 2;
    *maj = g->cc_major;
    *min = g->cc_minor;
    return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
    FAKE_FAIL_RETURN(nvmlReturn_t);
    const struct fake_gpu *g = gpu_of(d);
    if (!g)
        return 2;
    m->total = g->mem_mib * 1024ull * 1024ull;
    m->free = m->total;
    m->used = 0;
    return NVML_SUCCESS;
}
