/* SPDX-License-Identifier: MIT */
/*
 * A double of libcudart: device memory is host memory, and the one kernel
 * cudaup launches (cudaup_saxpy, found by name in the PTX it loads) is
 * computed on the CPU.  FAKE_NVIDIA_CONFIG gives the GPUs and can make the
 * kernel compute wrong values or never finish; FAKE_CUDART_VERSION the
 * version (default: its file's name, libcudart.so.X.Y.Z, else 12060).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/machine/nvtypes.h"
#include "fakegpu.h"

#define EXPORT __attribute__((visibility("default")))

struct dim3 {
    unsigned x, y, z;
};

static int cur;

static cudaError_t
ready(void)
{
    const struct fake_config *c = fake_config();
    if (c->cu_init == CUDA_ERROR_INSUFFICIENT_DRIVER)
        return cudaErrorInsufficientDriver;
    if (c->n_gpus == 0)
        return cudaErrorNoDevice;
    return cudaSuccess;
}

EXPORT cudaError_t cudaRuntimeGetVersion(int *v);
EXPORT cudaError_t cudaGetDeviceCount(int *n);
EXPORT cudaError_t cudaSetDevice(int d);
EXPORT cudaError_t cudaDeviceGetAttribute(int *v, int attr, int d);
EXPORT cudaError_t cudaGetDeviceProperties_v2(void *p, int d);
EXPORT cudaError_t cudaMemGetInfo(size_t *f, size_t *t);
EXPORT cudaError_t cudaMalloc(void **p, size_t n);
EXPORT cudaError_t cudaFree(void *p);
EXPORT cudaError_t cudaMallocHost(void **p, size_t n);
EXPORT cudaError_t cudaFreeHost(void *p);
EXPORT cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int kind);
EXPORT cudaError_t cudaDeviceSynchronize(void);
EXPORT const char *cudaGetErrorString(cudaError_t e);
EXPORT cudaError_t cudaLibraryLoadData(void **lib, const void *code, void *o, void **ov, unsigned n, void *lo,
                                       void **lov, unsigned ln);
EXPORT cudaError_t cudaLibraryGetKernel(void **k, void *lib, const char *name);
EXPORT cudaError_t cudaLaunchKernel(const void *f, struct dim3 g, struct dim3 b, void **args, size_t sh, void *s);

cudaError_t
cudaRuntimeGetVersion(int *v)
{
    const char *e = getenv("FAKE_CUDART_VERSION");
    unsigned n[3];
    if (e)
        *v = (int)strtol(e, NULL, 10);
    else if (fake_version_from_name("libcudart.so.", n))
        *v = (int)(n[0] * 1000 + n[1] * 10);
    else
        *v = 12060;
    return cudaSuccess;
}

cudaError_t
cudaGetDeviceCount(int *n)
{
    FAKE_FAIL_RETURN(cudaError_t);
    cudaError_t e = ready();
    *n = e == cudaSuccess ? fake_config()->n_gpus : 0;
    return e;
}

cudaError_t
cudaSetDevice(int d)
{
    FAKE_FAIL_RETURN(cudaError_t);
    if (d < 0 || d >= fake_config()->n_gpus)
        return 101;
    cur = d;
    return cudaSuccess;
}

cudaError_t
cudaDeviceGetAttribute(int *v, int attr, int d)
{
    FAKE_FAIL_RETURN(cudaError_t);
    const struct fake_gpu *g = &fake_config()->gpus[d];
    *v = attr == 75 ? g->cc_major : attr == 76 ? g->cc_minor : attr == 16 ? 132 : 0;
    return ready();
}

cudaError_t
cudaGetDeviceProperties_v2(void *p, int d)
{
    memset(p, 0, 1024);
    snprintf(p, 256, "%s", fake_config()->gpus[d].name);
    return ready();
}

cudaError_t
cudaMemGetInfo(size_t *f, size_t *t)
{
    FAKE_FAIL_RETURN(cudaError_t);
    *t = (size_t)fake_config()->gpus[cur].mem_mib << 20;
    *f = *t;
    return ready();
}

cudaError_t
cudaMalloc(void **p, size_t n)
{
    FAKE_FAIL_RETURN(cudaError_t);
    if (ready() != cudaSuccess)
        return ready();
    *p = malloc(n);
    return *p ? cudaSuccess : 2;
}

cudaError_t
cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}

cudaError_t
cudaMallocHost(void **p, size_t n)
{
    FAKE_FAIL_RETURN(cudaError_t);
    return cudaMalloc(p, n);
}

cudaError_t
cudaFreeHost(void *p)
{
    free(p);
    return cudaSuccess;
}

cudaError_t
cudaMemcpy(void *d, const void *s, size_t n, int kind)
{
    FAKE_FAIL_RETURN(cudaError_t);
    (void)kind;
    memmove(d, s, n);
    return cudaSuccess;
}

cudaError_t
cudaDeviceSynchronize(void)
{
    FAKE_FAIL_RETURN(cudaError_t);
    return cudaSuccess;
}

const char *
cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case 500: return "named symbol not found";
    default: return "fake error";
    }
}

struct lib {
    char *ptx;
};

cudaError_t
cudaLibraryLoadData(void **lib, const void *code, void *o, void **ov, unsigned n, void *lo, void **lov, unsigned ln)
{
    FAKE_FAIL_RETURN(cudaError_t);
    (void)o, (void)ov, (void)n, (void)lo, (void)lov, (void)ln;
    struct lib *l = malloc(sizeof(*l));
    l->ptx = strdup(code);
    *lib = l;
    return strstr(l->ptx, ".entry") ? cudaSuccess : 218; /* cudaErrorInvalidPtx */
}

static char saxpy_handle;

cudaError_t
cudaLibraryGetKernel(void **k, void *lib, const char *name)
{
    FAKE_FAIL_RETURN(cudaError_t);
    struct lib *l = lib;
    if (strcmp(name, "cudaup_saxpy") != 0 || !strstr(l->ptx, "cudaup_saxpy"))
        return 500;
    *k = &saxpy_handle;
    return cudaSuccess;
}

cudaError_t
cudaLaunchKernel(const void *f, struct dim3 g, struct dim3 b, void **args, size_t sh, void *s)
{
    FAKE_FAIL_RETURN(cudaError_t);
    (void)sh, (void)s;
    if (f != &saxpy_handle)
        return 98; /* cudaErrorInvalidDeviceFunction */
    if (fake_config()->hang_kernel)
        for (;;)
            pause();
    int n = *(int *)args[0];
    float a = *(float *)args[1];
    float *x = *(float **)args[2], *y = *(float **)args[3];
    long threads = (long)g.x * b.x;
    for (long i = 0; i < threads && i < n; i++)
        y[i] = a * x[i] + y[i];
    if (fake_config()->wrong_results)
        y[n / 2] += 1.0f;
    return cudaSuccess;
}
