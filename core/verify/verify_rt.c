/* SPDX-License-Identifier: MIT */
/*
 * The harness of the child checks (verify_rt.h): the install's CUDA runtime and NVRTC, opened with
 * dlopen from the install itself; a GPU to work on; the test kernel, in CUDA C and as PTX; and
 * how a child check records its outcome (pass, fail).  The checks are in verify_child.c (the
 * libraries) and verify_gpu.c (the GPU work).
 */
#include "config.h"

#include "core/verify/verify_rt.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/machine/nvtypes.h"
#include "core/machine/sysinfo.h"
#include "core/verify/checks.h"
#include "core/verify/verify.h"
#include "core/verify/verifyrec.h"

const char cu_verify_saxpy_src[] =
    "extern \"C\" __global__ void cudaup_saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

/* The same kernel as PTX for sm_50, which every driver since CUDA 11 can JIT for newer GPUs. */
const char cu_verify_saxpy_ptx[] =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry cudaup_saxpy(.param .u32 p_n, .param .f32 p_a, .param .u64 p_x, .param .u64 p_y)\n"
    "{\n"
    "  .reg .pred %p<2>;\n  .reg .f32 %f<5>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u32 %r1, [p_n];\n  ld.param.f32 %f1, [p_a];\n"
    "  ld.param.u64 %rd1, [p_x];\n  ld.param.u64 %rd2, [p_y];\n"
    "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd3, %rd1;\n  cvta.to.global.u64 %rd4, %rd2;\n"
    "  mul.wide.s32 %rd5, %r5, 4;\n  add.s64 %rd6, %rd3, %rd5;\n  add.s64 %rd7, %rd4, %rd5;\n"
    "  ld.global.f32 %f2, [%rd6];\n  ld.global.f32 %f3, [%rd7];\n"
    "  fma.rn.f32 %f4, %f1, %f2, %f3;\n  st.global.f32 [%rd7], %f4;\n"
    "DONE:\n  ret;\n}\n";

/* dlsym into a function pointer without the void*-to-function cast ISO C forbids. */
void
cu_verify_dlfn(void *fnptr, void *h, const char *a, const char *b)
{
    void *f = h ? dlsym(h, a) : NULL;
    if (!f && b && h)
        f = dlsym(h, b);
    memcpy(fnptr, &f, sizeof(f));
}

bool
cu_verify_rt_open(const char *dir, unsigned major, struct rt *r, struct cu_check *out)
{
    memset(r, 0, sizeof(*r));
    r->path = cu_install_lib(dir, "libcudart.so", major);
    if (!r->path) {
        char *gone = cu_verify_recorded_gone(dir, "libcudart.so");
        if (gone) {
            cu_check_fail_repair(out, gone);
            return false;
        }
        out->status = CU_CHECK_FAIL;
        out->detail = cu_xstrdup(_("the install has no libcudart"));
        return false;
    }
    r->h = dlopen(r->path, RTLD_NOW | RTLD_LOCAL);
    if (!r->h) {
        const char *e = dlerror();
        out->status = CU_CHECK_FAIL;
        out->detail = cu_xasprintf(_("%s does not load: %s"), r->path, e ? e : "?");
        return false;
    }
    cu_verify_dlfn(&r->runtime_version, r->h, "cudaRuntimeGetVersion", NULL);
    cu_verify_dlfn(&r->device_count, r->h, "cudaGetDeviceCount", NULL);
    cu_verify_dlfn(&r->set_device, r->h, "cudaSetDevice", NULL);
    cu_verify_dlfn(&r->attr, r->h, "cudaDeviceGetAttribute", NULL);
    cu_verify_dlfn(&r->props, r->h, "cudaGetDeviceProperties_v2", "cudaGetDeviceProperties");
    cu_verify_dlfn(&r->mem_info, r->h, "cudaMemGetInfo", NULL);
    cu_verify_dlfn(&r->malloc_, r->h, "cudaMalloc", NULL);
    cu_verify_dlfn(&r->free_, r->h, "cudaFree", NULL);
    cu_verify_dlfn(&r->malloc_host, r->h, "cudaMallocHost", NULL);
    cu_verify_dlfn(&r->free_host, r->h, "cudaFreeHost", NULL);
    cu_verify_dlfn(&r->memcpy_, r->h, "cudaMemcpy", NULL);
    cu_verify_dlfn(&r->sync, r->h, "cudaDeviceSynchronize", NULL);
    cu_verify_dlfn(&r->err_str, r->h, "cudaGetErrorString", NULL);
    cu_verify_dlfn(&r->lib_load, r->h, "cudaLibraryLoadData", NULL);
    cu_verify_dlfn(&r->lib_kernel, r->h, "cudaLibraryGetKernel", NULL);
    cu_verify_dlfn(&r->launch, r->h, "cudaLaunchKernel", NULL);
    if (!r->runtime_version || !r->device_count || !r->malloc_ || !r->memcpy_ || !r->free_ || !r->sync) {
        out->status = CU_CHECK_FAIL;
        out->detail = cu_xasprintf(_("%s lacks functions every CUDA runtime has"), r->path);
        return false;
    }
    return true;
}

const char *
cu_verify_rt_err(const struct rt *r, cudaError_t e)
{
    const char *s = r->err_str ? r->err_str(e) : NULL;
    return s ? s : "unknown CUDA error";
}

/* Is there a GPU to work on?  Sets a skip with the reason when not. */
static bool
rt_device(struct rt *r, struct cu_check *out)
{
    int n = 0;
    cudaError_t e = r->device_count(&n);
    if (e == cudaErrorInsufficientDriver || e == CUDA_ERROR_STUB_LIBRARY) {
        /* The parent runs this only when it found the driver loaded: name what stood between. */
        out->status = CU_CHECK_FAIL;
        out->detail = cu_verify_unreachable(r->path, "cudaGetDeviceCount", (int)e, r->err_str ? r->err_str(e) : NULL,
                                            &out->fix);
        return false;
    }
    if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
        out->status = CU_CHECK_SKIP;
        out->detail = cu_xstrdup(_("CUDA sees no GPU"));
        return false;
    }
    if (e != cudaSuccess) {
        out->status = CU_CHECK_FAIL;
        out->detail = cu_xasprintf(_("cudaGetDeviceCount failed: %s"), cu_verify_rt_err(r, e));
        return false;
    }
    if (r->set_device && (e = r->set_device(0)) != cudaSuccess) {
        out->status = CU_CHECK_FAIL;
        out->detail = cu_xasprintf(_("cudaSetDevice(0) failed: %s"), cu_verify_rt_err(r, e));
        return false;
    }
    return true;
}

/* The runtime of @dir, opened, with a GPU to work on; false (with @out filled, nothing held) when not. */
bool
cu_verify_rt_open_device(const char *dir, const struct cu_cuda_install *in, struct rt *r, struct cu_check *out)
{
    if (!cu_verify_rt_open(dir, in->version.part[0], r, out))
        return false;
    if (!rt_device(r, out)) {
        free(r->path);
        r->path = NULL;
        return false;
    }
    return true;
}

void
cu_verify_pass(struct cu_check *out, char *detail)
{
    out->status = CU_CHECK_PASS;
    out->detail = detail;
}

void
cu_verify_fail(struct cu_check *out, char *detail)
{
    out->status = CU_CHECK_FAIL;
    out->detail = detail;
}

bool
cu_verify_nvrtc_open(const char *dir, unsigned major, struct nvrtc *n, char **why)
{
    memset(n, 0, sizeof(*n));
    n->path = cu_install_lib(dir, "libnvrtc.so", major);
    if (!n->path) {
        *why = cu_xstrdup(_("the install has no libnvrtc"));
        return false;
    }
    n->h = dlopen(n->path, RTLD_NOW | RTLD_LOCAL);
    if (!n->h) {
        const char *e = dlerror();
        *why = cu_xasprintf(_("%s does not load: %s"), n->path, e ? e : "?");
        return false;
    }
    cu_verify_dlfn(&n->version, n->h, "nvrtcVersion", NULL);
    cu_verify_dlfn(&n->create, n->h, "nvrtcCreateProgram", NULL);
    cu_verify_dlfn(&n->compile, n->h, "nvrtcCompileProgram", NULL);
    cu_verify_dlfn(&n->ptx_size, n->h, "nvrtcGetPTXSize", NULL);
    cu_verify_dlfn(&n->ptx, n->h, "nvrtcGetPTX", NULL);
    cu_verify_dlfn(&n->log_size, n->h, "nvrtcGetProgramLogSize", NULL);
    cu_verify_dlfn(&n->log, n->h, "nvrtcGetProgramLog", NULL);
    cu_verify_dlfn(&n->destroy, n->h, "nvrtcDestroyProgram", NULL);
    if (!n->version || !n->create || !n->compile || !n->ptx_size || !n->ptx || !n->destroy) {
        *why = cu_xasprintf(_("%s lacks the NVRTC functions"), n->path);
        return false;
    }
    return true;
}

/* Compile the test kernel; returns PTX the caller frees, or NULL with *why. */
char *
cu_verify_nvrtc_compile(struct nvrtc *n, const char *arch, char **why)
{
    nvrtcProgram prog = NULL;
    char *ptx = NULL;
    const char *opts[] = {arch};
    if (n->create(&prog, cu_verify_saxpy_src, "cudaup_saxpy.cu", 0, NULL, NULL) != NVRTC_SUCCESS) {
        *why = cu_xstrdup(_("nvrtcCreateProgram failed"));
        return NULL;
    }
    if (n->compile(prog, arch ? 1 : 0, opts) != NVRTC_SUCCESS) {
        size_t ls = 0;
        char *log = NULL;
        if (n->log_size && n->log && n->log_size(prog, &ls) == NVRTC_SUCCESS && ls > 0 && ls < (1 << 20)) {
            log = cu_xcalloc(1, ls + 1);
            n->log(prog, log);
        }
        *why = cu_xasprintf(_("NVRTC could not compile a kernel: %s"), log ? log : "?");
        free(log);
    } else {
        size_t size = 0;
        if (n->ptx_size(prog, &size) == NVRTC_SUCCESS && size > 0 && size < (16u << 20)) {
            ptx = cu_xcalloc(1, size + 1);
            if (n->ptx(prog, ptx) != NVRTC_SUCCESS)
                cu_clear_ptr(&ptx, free);
        }
        if (!ptx)
            *why = cu_xstrdup(_("NVRTC gave no PTX"));
    }
    n->destroy(&prog);
    return ptx;
}
