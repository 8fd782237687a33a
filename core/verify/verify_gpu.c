/* SPDX-License-Identifier: MIT */
/*
 * The child checks that do real GPU work and check every answer: device (what GPU 0 reports),
 * gpu-kernel (y = a*x + y on a million floats), bandwidth (copies, timed and compared) and
 * cudnn-conv (a cuDNN convolution against a CPU reference).  cu_check_child (verify_child.c)
 * runs them; they stand on the harness of verify_rt.c.
 */
#include "config.h"

#include "core/verify/verify_int.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/clock.h"
#include "core/base/i18n.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/machine/nvtypes.h"
#include "core/machine/sysinfo.h"
#include "core/verify/checks.h"
#include "core/verify/verify.h"
#include "core/verify/verify_rt.h"

static double
now_s(void)
{
    return (double)cu_mono_us() / 1e6;
}

void
cu_verify_check_device(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct rt r;
    if (!cu_verify_rt_open_device(dir, in, &r, out))
        return;
    int n = 0, maj = 0, min = 0, sms = 0;
    cudaError_t e = r.device_count(&n);
    /* What the device reports is checked, not printed whatever it is. */
    if (e == cudaSuccess && r.attr && ((e = r.attr(&maj, 75, 0)) != cudaSuccess || (e = r.attr(&min, 76, 0)) != cudaSuccess ||
                                       (e = r.attr(&sms, 16, 0)) != cudaSuccess)) {
        cu_verify_fail(out, cu_xasprintf(_("cudaDeviceGetAttribute failed: %s"), cu_verify_rt_err(&r, e)));
        free(r.path);
        return;
    }
    if (e == cudaSuccess && r.attr && maj < 1) {
        cu_verify_fail(out, cu_xasprintf(_("GPU 0 reports compute capability %d.%d, which no GPU has"), maj, min));
        free(r.path);
        return;
    }
    char name[256] = "?";
    if (r.props) {
        /* cudaDeviceProp changes between releases, but name[256] comes first in all of them. */
        char *buf = cu_xcalloc(1, 8192);
        if (r.props(buf, 0) == cudaSuccess)
            snprintf(name, sizeof(name), "%.255s", buf);
        free(buf);
    }
    size_t fr = 0, tot = 0;
    if (r.mem_info && (e = r.mem_info(&fr, &tot)) != cudaSuccess) {
        cu_verify_fail(out, cu_xasprintf(_("cudaMemGetInfo failed: %s"), cu_verify_rt_err(&r, e)));
        free(r.path);
        return;
    }
    cu_verify_pass(out, cu_xasprintf(ngettext_("%d GPU; GPU 0: %s, compute capability %d.%d, %d multiprocessors, %zu MiB",
                                     "%d GPUs; GPU 0: %s, compute capability %d.%d, %d multiprocessors, %zu MiB", (unsigned long)n),
                           n, name, maj,
                           min, sms, tot >> 20));
    free(r.path);
}

void
cu_verify_check_kernel(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct rt r;
    struct nvrtc nv;
    char *why = NULL;
    if (!cu_verify_rt_open_device(dir, in, &r, out))
        return;
    int maj = 0, min = 0;
    if (r.attr) {
        r.attr(&maj, 75, 0);
        r.attr(&min, 76, 0);
    }
    /* PTX for this GPU from the install's NVRTC; the built-in sm_50 PTX otherwise. */
    char *ptx = NULL;
    const char *how = _("the built-in PTX");
    if (cu_verify_nvrtc_open(dir, in->version.part[0], &nv, &why)) {
        CU_AUTOFREE char *arch = cu_xasprintf("--gpu-architecture=compute_%d%d", maj, min);
        ptx = cu_verify_nvrtc_compile(&nv, arch, &why);
        if (ptx)
            how = _("PTX from NVRTC");
    }
    free(nv.path);
    free(why);
    if (!ptx)
        ptx = cu_xstrdup(cu_verify_saxpy_ptx);
    int n = 1 << 20;
    float a = 3.0f;
    float *hx = cu_xmalloc(sizeof(float) * (size_t)n), *hy = cu_xmalloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++) {
        hx[i] = (float)(i % 1000);
        hy[i] = 2.0f;
    }
    void *dx = NULL, *dy = NULL;
    cudaError_t e;
    if ((e = r.malloc_(&dx, sizeof(float) * (size_t)n)) != cudaSuccess ||
        (e = r.malloc_(&dy, sizeof(float) * (size_t)n)) != cudaSuccess ||
        (e = r.memcpy_(dx, hx, sizeof(float) * (size_t)n, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = r.memcpy_(dy, hy, sizeof(float) * (size_t)n, cudaMemcpyHostToDevice)) != cudaSuccess) {
        cu_verify_fail(out, cu_xasprintf(_("GPU memory: %s"), cu_verify_rt_err(&r, e)));
        goto mem;
    }
    void *args[] = {&n, &a, &dx, &dy};
    struct dim3 block = {256, 1, 1}, grid = {(unsigned)((n + 255) / 256), 1, 1};
    if (r.lib_load && r.lib_kernel && r.launch) {
        void *lib = NULL, *k = NULL;
        if ((e = r.lib_load(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0)) != cudaSuccess ||
            (e = r.lib_kernel(&k, lib, "cudaup_saxpy")) != cudaSuccess ||
            (e = r.launch(k, grid, block, args, 0, NULL)) != cudaSuccess || (e = r.sync()) != cudaSuccess) {
            cu_verify_fail(out, cu_xasprintf(_("the kernel did not run: %s"), cu_verify_rt_err(&r, e)));
            goto mem;
        }
    } else {
        /* CUDA 11's runtime cannot load PTX: the driver API does it in the runtime's context. */
        void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        CUresult (*load)(CUmodule *, const void *);
        CUresult (*getf)(CUfunction *, CUmodule, const char *);
        CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                           void **, void **);
        cu_verify_dlfn(&load, cuda, "cuModuleLoadData", NULL);
        cu_verify_dlfn(&getf, cuda, "cuModuleGetFunction", NULL);
        cu_verify_dlfn(&launch, cuda, "cuLaunchKernel", NULL);
        CUmodule mod;
        CUfunction fn;
        CUresult cr;
        if (!load || !getf || !launch) {
            cu_verify_fail(out, cu_xstrdup(_("neither the runtime nor libcuda can load PTX")));
            goto mem;
        }
        if ((cr = load(&mod, ptx)) != CUDA_SUCCESS || (cr = getf(&fn, mod, "cudaup_saxpy")) != CUDA_SUCCESS ||
            (cr = launch(fn, grid.x, 1, 1, block.x, 1, 1, 0, NULL, args, NULL)) != CUDA_SUCCESS) {
            cu_verify_fail(out, cu_xasprintf(_("the kernel did not run: CUresult %d"), (int)cr));
            goto mem;
        }
        if ((e = r.sync()) != cudaSuccess) {
            cu_verify_fail(out, cu_xasprintf(_("the kernel did not finish: %s"), cu_verify_rt_err(&r, e)));
            goto mem;
        }
    }
    if ((e = r.memcpy_(hy, dy, sizeof(float) * (size_t)n, cudaMemcpyDeviceToHost)) != cudaSuccess) {
        cu_verify_fail(out, cu_xasprintf(_("copying the result back failed: %s"), cu_verify_rt_err(&r, e)));
        goto mem;
    }
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++) {
        float want = a * (float)(i % 1000) + 2.0f;
        if (fabsf(hy[i] - want) > 1e-3f) {
            if (first < 0)
                first = i;
            bad++;
        }
    }
    if (bad)
        cu_verify_fail(out, cu_xasprintf(_("the kernel computed %d of %d values wrong (first at %d: %g, expected %g)"), bad, n, first,
                               (double)hy[first], (double)(a * (float)(first % 1000) + 2.0f)));
    else
        cu_verify_pass(out, cu_xasprintf(_("ran y = a*x + y on %d floats with %s; every value checked"), n, how));
mem:
    if (dx)
        r.free_(dx);
    if (dy)
        r.free_(dy);
    free(hx);
    free(hy);
    free(ptx);
    free(r.path);
}

void
cu_verify_check_bandwidth(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct rt r;
    if (!cu_verify_rt_open_device(dir, in, &r, out))
        return;
    const size_t size = 64u << 20;
    const int reps = 5;
    unsigned char *h = NULL, *h2 = NULL;
    void *d = NULL, *d2 = NULL;
    cudaError_t e = cudaSuccess;
    bool pinned = r.malloc_host && r.free_host && r.malloc_host((void **)&h, size) == cudaSuccess &&
                  r.malloc_host((void **)&h2, size) == cudaSuccess;
    if (!pinned) {
        h = cu_xmalloc(size);
        h2 = cu_xmalloc(size);
    }
    for (size_t i = 0; i < size; i++)
        h[i] = (unsigned char)(i * 131u + 7u);
    memset(h2, 0, size);
    if ((e = r.malloc_(&d, size)) != cudaSuccess || (e = r.malloc_(&d2, size)) != cudaSuccess) {
        cu_verify_fail(out, cu_xasprintf(_("GPU memory: %s"), cu_verify_rt_err(&r, e)));
        goto out;
    }
    double t[3] = {0, 0, 0};
    /* In this order, so that what comes back to the host went there and back through both buffers. */
    const int kinds[3] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToDevice, cudaMemcpyDeviceToHost};
    for (int k = 0; k < 3; k++) {
        double t0 = now_s();
        for (int i = 0; i < reps && e == cudaSuccess; i++) {
            if (kinds[k] == cudaMemcpyHostToDevice)
                e = r.memcpy_(d, h, size, kinds[k]);
            else if (kinds[k] == cudaMemcpyDeviceToHost)
                e = r.memcpy_(h2, d2, size, kinds[k]);
            else
                e = r.memcpy_(d2, d, size, kinds[k]);
        }
        if (e == cudaSuccess)
            e = r.sync();
        t[k] = now_s() - t0;
        if (e != cudaSuccess) {
            cu_verify_fail(out, cu_xasprintf(_("copying failed: %s"), cu_verify_rt_err(&r, e)));
            goto out;
        }
    }
    if (memcmp(h, h2, size) != 0) {
        cu_verify_fail(out, cu_xstrdup(_("bytes copied to the GPU and back came back different")));
        goto out;
    }
    double gb = (double)size * reps / 1e9;
    cu_verify_pass(out, cu_xasprintf(_("host to device %.1f GB/s, device to host %.1f GB/s, device to device %.1f GB/s (%s memory, checked)"),
                           gb / t[0], gb / t[2], gb / t[1], pinned ? _("pinned") : _("pageable")));
out:
    if (d)
        r.free_(d);
    if (d2)
        r.free_(d2);
    if (pinned) {
        r.free_host(h);
        r.free_host(h2);
    } else {
        free(h);
        free(h2);
    }
    free(r.path);
}

void
cu_verify_check_cudnn_conv(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct rt r;
    unsigned major = in->cudnn.n ? in->cudnn.part[0] : 9;
    CU_AUTOFREE char *path = cu_install_lib(dir, "libcudnn.so", major);
    if (!path) {
        out->status = CU_CHECK_SKIP;
        out->detail = cu_xstrdup(_("this install has no cuDNN"));
        return;
    }
    if (!cu_verify_rt_open_device(dir, in, &r, out))
        return;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
#define DN(f) cu_verify_dlfn(&f, h, #f, NULL)
    cudnnStatus_t (*cudnnCreate)(cudnnHandle_t *);
    cudnnStatus_t (*cudnnDestroy)(cudnnHandle_t);
    cudnnStatus_t (*cudnnCreateTensorDescriptor)(cudnnTensorDescriptor_t *);
    cudnnStatus_t (*cudnnSetTensor4dDescriptor)(cudnnTensorDescriptor_t, int, int, int, int, int, int);
    cudnnStatus_t (*cudnnCreateFilterDescriptor)(cudnnFilterDescriptor_t *);
    cudnnStatus_t (*cudnnSetFilter4dDescriptor)(cudnnFilterDescriptor_t, int, int, int, int, int, int);
    cudnnStatus_t (*cudnnCreateConvolutionDescriptor)(cudnnConvolutionDescriptor_t *);
    cudnnStatus_t (*cudnnSetConvolution2dDescriptor)(cudnnConvolutionDescriptor_t, int, int, int, int, int, int, int,
                                                     int);
    cudnnStatus_t (*cudnnGetConvolutionForwardWorkspaceSize)(cudnnHandle_t, cudnnTensorDescriptor_t,
                                                             cudnnFilterDescriptor_t, cudnnConvolutionDescriptor_t,
                                                             cudnnTensorDescriptor_t, int, size_t *);
    cudnnStatus_t (*cudnnConvolutionForward)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,
                                             cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int,
                                             void *, size_t, const void *, cudnnTensorDescriptor_t, void *);
    const char *(*cudnnGetErrorString)(cudnnStatus_t);
    DN(cudnnCreate);
    DN(cudnnDestroy);
    DN(cudnnCreateTensorDescriptor);
    DN(cudnnSetTensor4dDescriptor);
    DN(cudnnCreateFilterDescriptor);
    DN(cudnnSetFilter4dDescriptor);
    DN(cudnnCreateConvolutionDescriptor);
    DN(cudnnSetConvolution2dDescriptor);
    DN(cudnnGetConvolutionForwardWorkspaceSize);
    DN(cudnnConvolutionForward);
    DN(cudnnGetErrorString);
#undef DN
    if (!cudnnCreate || !cudnnSetTensor4dDescriptor || !cudnnConvolutionForward || !cudnnSetFilter4dDescriptor ||
        !cudnnSetConvolution2dDescriptor || !cudnnGetConvolutionForwardWorkspaceSize || !cudnnDestroy ||
        !cudnnCreateTensorDescriptor || !cudnnCreateFilterDescriptor || !cudnnCreateConvolutionDescriptor) {
        cu_verify_fail(out, cu_xasprintf(_("%s does not load or lacks the convolution API"), path));
        free(r.path);
        return;
    }
    enum { N = 2, C = 3, H = 16, W = 16, K = 4, R = 3, S = 3 };
    static float x[N * C * H * W], w[K * C * R * S], y[N * K * H * W], ref[N * K * H * W];
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (int i = 0; i < K * C * R * S; i++)
        w[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    /* The CPU reference: cross-correlation, padding 1, stride 1. */
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int i = 0; i < H; i++)
                for (int j = 0; j < W; j++) {
                    float s = 0;
                    for (int c = 0; c < C; c++)
                        for (int p = 0; p < R; p++)
                            for (int q = 0; q < S; q++) {
                                int ii = i + p - 1, jj = j + q - 1;
                                if (ii >= 0 && ii < H && jj >= 0 && jj < W)
                                    s += x[((n * C + c) * H + ii) * W + jj] * w[((k * C + c) * R + p) * S + q];
                            }
                    ref[((n * K + k) * H + i) * W + j] = s;
                }
    cudnnHandle_t hd = NULL;
    cudnnTensorDescriptor_t xd = NULL, yd = NULL;
    cudnnFilterDescriptor_t wd = NULL;
    cudnnConvolutionDescriptor_t cd = NULL;
    void *dx = NULL, *dw = NULL, *dy = NULL, *ws = NULL;
    size_t wss = 0;
    cudnnStatus_t s;
    const float one = 1.0f, zero = 0.0f;
    const char *stage = "cudnnCreate";
    if ((s = cudnnCreate(&hd)) != CUDNN_STATUS_SUCCESS)
        goto cfail;
    stage = "descriptors";
    if ((s = cudnnCreateTensorDescriptor(&xd)) || (s = cudnnCreateTensorDescriptor(&yd)) ||
        (s = cudnnCreateFilterDescriptor(&wd)) || (s = cudnnCreateConvolutionDescriptor(&cd)) ||
        (s = cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W)) ||
        (s = cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W)) ||
        (s = cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S)) ||
        (s = cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)))
        goto cfail;
    stage = "cudnnGetConvolutionForwardWorkspaceSize";
    if ((s = cudnnGetConvolutionForwardWorkspaceSize(hd, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                                     &wss)))
        goto cfail;
    if (r.malloc_(&dx, sizeof(x)) || r.malloc_(&dw, sizeof(w)) || r.malloc_(&dy, sizeof(y)) ||
        (wss && r.malloc_(&ws, wss)) || r.memcpy_(dx, x, sizeof(x), cudaMemcpyHostToDevice) ||
        r.memcpy_(dw, w, sizeof(w), cudaMemcpyHostToDevice)) {
        cu_verify_fail(out, cu_xstrdup(_("GPU memory for the convolution could not be set up")));
        goto cdone;
    }
    stage = "cudnnConvolutionForward";
    if ((s = cudnnConvolutionForward(hd, &one, xd, dx, wd, dw, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ws, wss,
                                     &zero, yd, dy)))
        goto cfail;
    if (r.sync() || r.memcpy_(y, dy, sizeof(y), cudaMemcpyDeviceToHost)) {
        cu_verify_fail(out, cu_xstrdup(_("the convolution's result could not be read back")));
        goto cdone;
    }
    double worst = 0;
    for (size_t i = 0; i < sizeof(y) / sizeof(y[0]); i++)
        worst = fmax(worst, fabs((double)y[i] - (double)ref[i]));
    if (worst > 1e-3)
        cu_verify_fail(out, cu_xasprintf(_("the convolution differs from the CPU reference by up to %g"), worst));
    else
        cu_verify_pass(out, cu_xasprintf(_("a %dx%dx%dx%d convolution with a %dx%d filter matches the CPU reference (max error %.1e)"), N, C,
                               H, W, R, S, worst));
    goto cdone;
cfail:
    cu_verify_fail(out, cu_xasprintf(_("%s failed: %s"), stage, cudnnGetErrorString ? cudnnGetErrorString(s) : "?"));
cdone:
    if (dx)
        r.free_(dx);
    if (dw)
        r.free_(dw);
    if (dy)
        r.free_(dy);
    if (ws)
        r.free_(ws);
    if (hd)
        cudnnDestroy(hd);
    free(r.path);
}
