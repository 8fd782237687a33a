/* SPDX-License-Identifier: MIT */
/* A double of libcuda.so.1 (the driver API), answering from fakegpu.h. */
#include <stdio.h>
#include <string.h>

#include "core/machine/nvtypes.h"
#include "fakegpu.h"

#define EXPORT __attribute__((visibility("default")))

static int initialised;

EXPORT CUresult cuInit(unsigned int flags);
EXPORT CUresult cuDriverGetVersion(int *v);
EXPORT CUresult cuDeviceGetCount(int *n);
EXPORT CUresult cuDeviceGet(CUdevice *d, int i);
EXPORT CUresult cuDeviceGetName(char *buf, int len, CUdevice d);
EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d);
EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d);
EXPORT CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice d);
EXPORT CUresult cuGetErrorName(CUresult r, const char **s);

CUresult
cuInit(unsigned int flags)
{
    (void)flags;
    CUresult r = fake_config()->cu_init;
    if (r == CUDA_SUCCESS && fake_config()->n_gpus == 0)
        r = CUDA_ERROR_NO_DEVICE;
    initialised = r == CUDA_SUCCESS;
    return r;
}

CUresult
cuDriverGetVersion(int *v)
{
    FAKE_FAIL_RETURN(CUresult);
    *v = fake_config()->cuda;
    return CUDA_SUCCESS;
}

CUresult
cuDeviceGetCount(int *n)
{
    FAKE_FAIL_RETURN(CUresult);
    if (!initialised)
        return CUDA_ERROR_NOT_INITIALIZED;
    *n = fake_config()->n_gpus;
    return CUDA_SUCCESS;
}

static const struct fake_gpu *
dev(CUdevice d)
{
    if (!initialised || d < 0 || d >= fake_config()->n_gpus)
        return NULL;
    return &fake_config()->gpus[d];
}

CUresult
cuDeviceGet(CUdevice *d, int i)
{
    FAKE_FAIL_RETURN(CUresult);
    if (!dev(i))
        return CUDA_ERROR_INVALID_DEVICE;
    *d = i;
    return CUDA_SUCCESS;
}

CUresult
cuDeviceGetName(char *buf, int len, CUdevice d)
{
    FAKE_FAIL_RETURN(CUresult);
    const struct fake_gpu *g = dev(d);
    if (!g)
        return CUDA_ERROR_INVALID_DEVICE;
    snprintf(buf, (size_t)len, "%s", g->name);
    return CUDA_SUCCESS;
}

CUresult
cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
    FAKE_FAIL_RETURN(CUresult);
    const struct fake_gpu *g = dev(d);
    if (!g)
        return CUDA_ERROR_INVALID_DEVICE;
    if (attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
        *v = g->cc_major;
    else if (attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
        *v = g->cc_minor;
    else
        *v = 0;
    return CUDA_SUCCESS;
}

CUresult
cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
    FAKE_FAIL_RETURN(CUresult);
    const struct fake_gpu *g = dev(d);
    if (!g)
        return CUDA_ERROR_INVALID_DEVICE;
    *bytes = (size_t)(g->mem_mib * 1024ull * 1024ull);
    return CUDA_SUCCESS;
}

CUresult
cuDeviceGetPCIBusId(char *buf, int len, CUdevice d)
{
    FAKE_FAIL_RETURN(CUresult);
    const struct fake_gpu *g = dev(d);
    if (!g)
        return CUDA_ERROR_INVALID_DEVICE;
    snprintf(buf, (size_t)len, "%s", g->bus);
    return CUDA_SUCCESS;
}

CUresult
cuGetErrorName(CUresult r, const char **s)
{
    (void)r;
    *s = "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
}
