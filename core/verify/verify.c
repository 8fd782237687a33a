/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "verify"
#include "core/verify/verify.h"
#include "core/verify/verify_libs.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/install/envfile.h"
#include "core/base/fsutil.h"
#include "core/catalog/gpucode.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/resolve/plan.h"
#include "core/machine/nvtypes.h"
#include "core/base/proc.h"
#include "core/install/record.h"
#include "core/verify/verify_report.h"
#include "core/verify/verifyrec.h"
#include "core/base/str.h"

/* ---- finding things in an install ---------------------------------------------------- */

static const char *const lib_dirs[] = {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"};

char *
cu_install_lib(const char *dir, const char *stem, unsigned major)
{
    for (size_t i = 0; i < CU_N_ELEMENTS(lib_dirs); i++) {
        CU_AUTOFREE char *exact = cu_xasprintf("%s/%s/%s.%u", dir, lib_dirs[i], stem, major);
        if (major && access(exact, R_OK) == 0)
            return cu_steal_ptr(&exact);
    }
    for (size_t i = 0; i < CU_N_ELEMENTS(lib_dirs); i++) {
        CU_AUTOFREE char *plain = cu_xasprintf("%s/%s/%s", dir, lib_dirs[i], stem);
        if (access(plain, R_OK) == 0)
            return cu_steal_ptr(&plain);
    }
    return NULL;
}

static bool
read_install(const char *dir, struct cu_cuda_install *in)
{
    struct cu_sysroot host;
    struct cu_error err;
    if (cu_sysroot_init(&host, "/", &err) != CU_OK)
        return false;
    bool ok = cu_cuda_install_read(&host, dir, in);
    cu_sysroot_fini(&host);
    return ok;
}

/* ---- child side: the library and GPU work ------------------------------------------- */

static const char saxpy_src[] =
    "extern \"C\" __global__ void cudaup_saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

/* The same kernel as PTX for sm_50, which every driver since CUDA 11 can JIT for newer GPUs. */
static const char saxpy_ptx[] =
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

struct dim3 {
    unsigned x, y, z;
};

struct rt {
    void *h;
    char *path;
    cudaError_t (*runtime_version)(int *);
    cudaError_t (*device_count)(int *);
    cudaError_t (*set_device)(int);
    cudaError_t (*attr)(int *, int, int);
    cudaError_t (*props)(void *, int);
    cudaError_t (*mem_info)(size_t *, size_t *);
    cudaError_t (*malloc_)(void **, size_t);
    cudaError_t (*free_)(void *);
    cudaError_t (*malloc_host)(void **, size_t);
    cudaError_t (*free_host)(void *);
    cudaError_t (*memcpy_)(void *, const void *, size_t, int);
    cudaError_t (*sync)(void);
    const char *(*err_str)(cudaError_t);
    cudaError_t (*lib_load)(void **, const void *, void *, void **, unsigned, void *, void **, unsigned);
    cudaError_t (*lib_kernel)(void **, void *, const char *);
    cudaError_t (*launch)(const void *, struct dim3, struct dim3, void **, size_t, void *);
};

/* dlsym into a function pointer without the void*-to-function cast ISO C forbids. */
static void
dlfn(void *fnptr, void *h, const char *a, const char *b)
{
    void *f = h ? dlsym(h, a) : NULL;
    if (!f && b && h)
        f = dlsym(h, b);
    memcpy(fnptr, &f, sizeof(f));
}

static bool
rt_open(const char *dir, unsigned major, struct rt *r, struct cu_check *out)
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
    dlfn(&r->runtime_version, r->h, "cudaRuntimeGetVersion", NULL);
    dlfn(&r->device_count, r->h, "cudaGetDeviceCount", NULL);
    dlfn(&r->set_device, r->h, "cudaSetDevice", NULL);
    dlfn(&r->attr, r->h, "cudaDeviceGetAttribute", NULL);
    dlfn(&r->props, r->h, "cudaGetDeviceProperties_v2", "cudaGetDeviceProperties");
    dlfn(&r->mem_info, r->h, "cudaMemGetInfo", NULL);
    dlfn(&r->malloc_, r->h, "cudaMalloc", NULL);
    dlfn(&r->free_, r->h, "cudaFree", NULL);
    dlfn(&r->malloc_host, r->h, "cudaMallocHost", NULL);
    dlfn(&r->free_host, r->h, "cudaFreeHost", NULL);
    dlfn(&r->memcpy_, r->h, "cudaMemcpy", NULL);
    dlfn(&r->sync, r->h, "cudaDeviceSynchronize", NULL);
    dlfn(&r->err_str, r->h, "cudaGetErrorString", NULL);
    dlfn(&r->lib_load, r->h, "cudaLibraryLoadData", NULL);
    dlfn(&r->lib_kernel, r->h, "cudaLibraryGetKernel", NULL);
    dlfn(&r->launch, r->h, "cudaLaunchKernel", NULL);
    if (!r->runtime_version || !r->device_count || !r->malloc_ || !r->memcpy_ || !r->free_ || !r->sync) {
        out->status = CU_CHECK_FAIL;
        out->detail = cu_xasprintf(_("%s lacks functions every CUDA runtime has"), r->path);
        return false;
    }
    return true;
}

static const char *
rt_err(const struct rt *r, cudaError_t e)
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
        out->detail = cu_verify_unreachable(r->path, "cudaGetDeviceCount", (int)e, r->err_str ? r->err_str(e) : NULL);
        return false;
    }
    if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
        out->status = CU_CHECK_SKIP;
        out->detail = cu_xstrdup(_("CUDA sees no GPU"));
        return false;
    }
    if (e != cudaSuccess) {
        out->status = CU_CHECK_FAIL;
        out->detail = cu_xasprintf(_("cudaGetDeviceCount failed: %s"), rt_err(r, e));
        return false;
    }
    if (r->set_device && (e = r->set_device(0)) != cudaSuccess) {
        out->status = CU_CHECK_FAIL;
        out->detail = cu_xasprintf(_("cudaSetDevice(0) failed: %s"), rt_err(r, e));
        return false;
    }
    return true;
}

/* The runtime of @dir, opened, with a GPU to work on; false (with @out filled, nothing held) when not. */
static bool
rt_open_device(const char *dir, const struct cu_cuda_install *in, struct rt *r, struct cu_check *out)
{
    if (!rt_open(dir, in->version.part[0], r, out))
        return false;
    if (!rt_device(r, out)) {
        free(r->path);
        r->path = NULL;
        return false;
    }
    return true;
}

static void
pass(struct cu_check *out, char *detail)
{
    out->status = CU_CHECK_PASS;
    out->detail = detail;
}

static void
fail(struct cu_check *out, char *detail)
{
    out->status = CU_CHECK_FAIL;
    out->detail = detail;
}

struct nvrtc {
    void *h;
    char *path;
    nvrtcResult (*version)(int *, int *);
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                          const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*ptx_size)(nvrtcProgram, size_t *);
    nvrtcResult (*ptx)(nvrtcProgram, char *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*destroy)(nvrtcProgram *);
};

static bool
nvrtc_open(const char *dir, unsigned major, struct nvrtc *n, char **why)
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
    dlfn(&n->version, n->h, "nvrtcVersion", NULL);
    dlfn(&n->create, n->h, "nvrtcCreateProgram", NULL);
    dlfn(&n->compile, n->h, "nvrtcCompileProgram", NULL);
    dlfn(&n->ptx_size, n->h, "nvrtcGetPTXSize", NULL);
    dlfn(&n->ptx, n->h, "nvrtcGetPTX", NULL);
    dlfn(&n->log_size, n->h, "nvrtcGetProgramLogSize", NULL);
    dlfn(&n->log, n->h, "nvrtcGetProgramLog", NULL);
    dlfn(&n->destroy, n->h, "nvrtcDestroyProgram", NULL);
    if (!n->version || !n->create || !n->compile || !n->ptx_size || !n->ptx || !n->destroy) {
        *why = cu_xasprintf(_("%s lacks the NVRTC functions"), n->path);
        return false;
    }
    return true;
}

/* Compile the test kernel; returns PTX the caller frees, or NULL with *why. */
static char *
nvrtc_compile(struct nvrtc *n, const char *arch, char **why)
{
    nvrtcProgram prog = NULL;
    char *ptx = NULL;
    const char *opts[] = {arch};
    if (n->create(&prog, saxpy_src, "cudaup_saxpy.cu", 0, NULL, NULL) != NVRTC_SUCCESS) {
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

static double
now_s(void)
{
    return (double)cu_mono_us() / 1e6;
}

static void
check_cudart(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct rt r;
    int v = 0;
    if (!rt_open(dir, in->version.part[0], &r, out))
        return;
    cudaError_t e = r.runtime_version(&v);
    struct cu_version got;
    cu_version_from_cuda_int(v, &got);
    char b1[32], b2[32];
    if (e != cudaSuccess)
        fail(out, cu_xasprintf(_("cudaRuntimeGetVersion failed: %s"), rt_err(&r, e)));
    else if (in->version.n && (got.part[0] != in->version.part[0] || got.part[1] != in->version.part[1]))
        fail(out, cu_xasprintf(_("%s is CUDA %s, but the install is %s"), r.path, cu_version_format(&got, 2, b1, sizeof(b1)),
                               cu_version_format(&in->version, 2, b2, sizeof(b2))));
    else
        pass(out, cu_xasprintf(_("CUDA runtime %s (%s)"), cu_version_format(&got, 2, b1, sizeof(b1)), r.path));
    free(r.path);
}

static void
check_nvrtc(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct nvrtc n;
    char *why = NULL;
    int maj = 0, min = 0;
    if (!nvrtc_open(dir, in->version.part[0], &n, &why)) {
        /* A toolkit without the NVRTC component is a choice, not a fault. */
        char *gone = n.path ? NULL : cu_verify_recorded_gone(dir, "libnvrtc.so");
        if (gone)
            cu_check_fail_repair(out, gone), free(why); /* recorded, so installed: damage, not a choice */
        else if (!n.path)
            out->status = CU_CHECK_SKIP, out->detail = why;
        else
            fail(out, why);
        free(n.path);
        return;
    }
    n.version(&maj, &min);
    if (in->version.n && ((unsigned)maj != in->version.part[0] || (unsigned)min != in->version.part[1])) {
        fail(out, cu_xasprintf(_("%s is NVRTC %d.%d, but the install is %u.%u"), n.path, maj, min,
                               in->version.part[0], in->version.part[1]));
    } else {
        char *ptx = nvrtc_compile(&n, NULL, &why);
        if (ptx && strstr(ptx, "cudaup_saxpy"))
            pass(out, cu_xasprintf(_("NVRTC %d.%d compiled a kernel to PTX"), maj, min));
        else
            fail(out, why ? why : cu_xstrdup(_("NVRTC's PTX lacks the kernel")));
        free(ptx);
    }
    free(n.path);
}

static void
check_cudnn(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    unsigned major = in->cudnn.n ? in->cudnn.part[0] : 9;
    CU_AUTOFREE char *path = cu_install_lib(dir, "libcudnn.so", major);
    char *gone = path ? NULL : cu_verify_recorded_gone(dir, "libcudnn.so");
    if (gone) {
        cu_check_fail_repair(out, gone);
        return;
    }
    if (!path) {
        out->status = in->cudnn.n ? CU_CHECK_FAIL : CU_CHECK_SKIP;
        out->detail = cu_xstrdup(in->cudnn.n ? _("cudnn_version.h is there, but libcudnn is not")
                                             : _("this install has no cuDNN"));
        return;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        fail(out, cu_xasprintf(_("%s does not load: %s"), path, e ? e : "?"));
        return;
    }
    size_t (*get_version)(void);
    dlfn(&get_version, h, "cudnnGetVersion", NULL);
    if (!get_version) {
        fail(out, cu_xasprintf(_("%s has no cudnnGetVersion"), path));
        return;
    }
    size_t v = get_version();
    /* 8.x: 8907 = 8.9.7; 9.x: 91900 = 9.19.0 */
    unsigned a = (unsigned)(v >= 90000 ? v / 10000 : v / 1000);
    unsigned b = (unsigned)(v >= 90000 ? (v % 10000) / 100 : (v % 1000) / 100);
    unsigned c = (unsigned)(v >= 90000 ? v % 100 : v % 100);
    struct cu_version rec;
    if (cu_verify_record_cudnn(dir, &rec) && (a != rec.part[0] || b != rec.part[1] || c != rec.part[2]))
        fail(out, cu_xasprintf(_("libcudnn says %u.%u.%u, but the install is %u.%u.%u"), a, b, c, rec.part[0],
                               rec.part[1], rec.part[2])); /* the record decides, as for nvcc, cudart and nvrtc */
    else if (in->cudnn.n && (a != in->cudnn.part[0] || b != in->cudnn.part[1] || c != in->cudnn.part[2]))
        fail(out, cu_xasprintf(_("libcudnn says %u.%u.%u, but cudnn_version.h says %u.%u.%u"), a, b, c, in->cudnn.part[0],
                               in->cudnn.part[1], in->cudnn.part[2]));
    else
        pass(out, cu_xasprintf(_("cuDNN %u.%u.%u (%s)"), a, b, c, path));
}

static void
check_device(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct rt r;
    if (!rt_open_device(dir, in, &r, out))
        return;
    int n = 0, maj = 0, min = 0, sms = 0;
    cudaError_t e = r.device_count(&n);
    /* What the device reports is checked, not printed whatever it is. */
    if (e == cudaSuccess && r.attr && ((e = r.attr(&maj, 75, 0)) != cudaSuccess || (e = r.attr(&min, 76, 0)) != cudaSuccess ||
                                       (e = r.attr(&sms, 16, 0)) != cudaSuccess)) {
        fail(out, cu_xasprintf(_("cudaDeviceGetAttribute failed: %s"), rt_err(&r, e)));
        free(r.path);
        return;
    }
    if (e == cudaSuccess && r.attr && maj < 1) {
        fail(out, cu_xasprintf(_("GPU 0 reports compute capability %d.%d, which no GPU has"), maj, min));
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
        fail(out, cu_xasprintf(_("cudaMemGetInfo failed: %s"), rt_err(&r, e)));
        free(r.path);
        return;
    }
    pass(out, cu_xasprintf(ngettext_("%d GPU; GPU 0: %s, compute capability %d.%d, %d multiprocessors, %zu MiB",
                                     "%d GPUs; GPU 0: %s, compute capability %d.%d, %d multiprocessors, %zu MiB", (unsigned long)n),
                           n, name, maj,
                           min, sms, tot >> 20));
    free(r.path);
}

static void
check_kernel(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct rt r;
    struct nvrtc nv;
    char *why = NULL;
    if (!rt_open_device(dir, in, &r, out))
        return;
    int maj = 0, min = 0;
    if (r.attr) {
        r.attr(&maj, 75, 0);
        r.attr(&min, 76, 0);
    }
    /* PTX for this GPU from the install's NVRTC; the built-in sm_50 PTX otherwise. */
    char *ptx = NULL;
    const char *how = _("the built-in PTX");
    if (nvrtc_open(dir, in->version.part[0], &nv, &why)) {
        CU_AUTOFREE char *arch = cu_xasprintf("--gpu-architecture=compute_%d%d", maj, min);
        ptx = nvrtc_compile(&nv, arch, &why);
        if (ptx)
            how = _("PTX from NVRTC");
    }
    free(nv.path);
    free(why);
    if (!ptx)
        ptx = cu_xstrdup(saxpy_ptx);
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
        fail(out, cu_xasprintf(_("GPU memory: %s"), rt_err(&r, e)));
        goto mem;
    }
    void *args[] = {&n, &a, &dx, &dy};
    struct dim3 block = {256, 1, 1}, grid = {(unsigned)((n + 255) / 256), 1, 1};
    if (r.lib_load && r.lib_kernel && r.launch) {
        void *lib = NULL, *k = NULL;
        if ((e = r.lib_load(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0)) != cudaSuccess ||
            (e = r.lib_kernel(&k, lib, "cudaup_saxpy")) != cudaSuccess ||
            (e = r.launch(k, grid, block, args, 0, NULL)) != cudaSuccess || (e = r.sync()) != cudaSuccess) {
            fail(out, cu_xasprintf(_("the kernel did not run: %s"), rt_err(&r, e)));
            goto mem;
        }
    } else {
        /* CUDA 11's runtime cannot load PTX: the driver API does it in the runtime's context. */
        void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        CUresult (*load)(CUmodule *, const void *);
        CUresult (*getf)(CUfunction *, CUmodule, const char *);
        CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                           void **, void **);
        dlfn(&load, cuda, "cuModuleLoadData", NULL);
        dlfn(&getf, cuda, "cuModuleGetFunction", NULL);
        dlfn(&launch, cuda, "cuLaunchKernel", NULL);
        CUmodule mod;
        CUfunction fn;
        CUresult cr;
        if (!load || !getf || !launch) {
            fail(out, cu_xstrdup(_("neither the runtime nor libcuda can load PTX")));
            goto mem;
        }
        if ((cr = load(&mod, ptx)) != CUDA_SUCCESS || (cr = getf(&fn, mod, "cudaup_saxpy")) != CUDA_SUCCESS ||
            (cr = launch(fn, grid.x, 1, 1, block.x, 1, 1, 0, NULL, args, NULL)) != CUDA_SUCCESS) {
            fail(out, cu_xasprintf(_("the kernel did not run: CUresult %d"), (int)cr));
            goto mem;
        }
        if ((e = r.sync()) != cudaSuccess) {
            fail(out, cu_xasprintf(_("the kernel did not finish: %s"), rt_err(&r, e)));
            goto mem;
        }
    }
    if ((e = r.memcpy_(hy, dy, sizeof(float) * (size_t)n, cudaMemcpyDeviceToHost)) != cudaSuccess) {
        fail(out, cu_xasprintf(_("copying the result back failed: %s"), rt_err(&r, e)));
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
        fail(out, cu_xasprintf(_("the kernel computed %d of %d values wrong (first at %d: %g, expected %g)"), bad, n, first,
                               (double)hy[first], (double)(a * (float)(first % 1000) + 2.0f)));
    else
        pass(out, cu_xasprintf(_("ran y = a*x + y on %d floats with %s; every value checked"), n, how));
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

static void
check_bandwidth(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct rt r;
    if (!rt_open_device(dir, in, &r, out))
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
        fail(out, cu_xasprintf(_("GPU memory: %s"), rt_err(&r, e)));
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
            fail(out, cu_xasprintf(_("copying failed: %s"), rt_err(&r, e)));
            goto out;
        }
    }
    if (memcmp(h, h2, size) != 0) {
        fail(out, cu_xstrdup(_("bytes copied to the GPU and back came back different")));
        goto out;
    }
    double gb = (double)size * reps / 1e9;
    pass(out, cu_xasprintf(_("host to device %.1f GB/s, device to host %.1f GB/s, device to device %.1f GB/s (%s memory, checked)"),
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

static void
check_cudnn_conv(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct rt r;
    unsigned major = in->cudnn.n ? in->cudnn.part[0] : 9;
    CU_AUTOFREE char *path = cu_install_lib(dir, "libcudnn.so", major);
    if (!path) {
        out->status = CU_CHECK_SKIP;
        out->detail = cu_xstrdup(_("this install has no cuDNN"));
        return;
    }
    if (!rt_open_device(dir, in, &r, out))
        return;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
#define DN(f) dlfn(&f, h, #f, NULL)
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
        fail(out, cu_xasprintf(_("%s does not load or lacks the convolution API"), path));
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
        fail(out, cu_xstrdup(_("GPU memory for the convolution could not be set up")));
        goto cdone;
    }
    stage = "cudnnConvolutionForward";
    if ((s = cudnnConvolutionForward(hd, &one, xd, dx, wd, dw, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ws, wss,
                                     &zero, yd, dy)))
        goto cfail;
    if (r.sync() || r.memcpy_(y, dy, sizeof(y), cudaMemcpyDeviceToHost)) {
        fail(out, cu_xstrdup(_("the convolution's result could not be read back")));
        goto cdone;
    }
    double worst = 0;
    for (size_t i = 0; i < sizeof(y) / sizeof(y[0]); i++)
        worst = fmax(worst, fabs((double)y[i] - (double)ref[i]));
    if (worst > 1e-3)
        fail(out, cu_xasprintf(_("the convolution differs from the CPU reference by up to %g"), worst));
    else
        pass(out, cu_xasprintf(_("a %dx%dx%dx%d convolution with a %dx%d filter matches the CPU reference (max error %.1e)"), N, C,
                               H, W, R, S, worst));
    goto cdone;
cfail:
    fail(out, cu_xasprintf(_("%s failed: %s"), stage, cudnnGetErrorString ? cudnnGetErrorString(s) : "?"));
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

void
cu_check_child(const char *name, const char *dir, struct cu_check *out)
{
    struct cu_cuda_install in;
    memset(out, 0, sizeof(*out));
    out->name = cu_xstrdup(name);
    if (!read_install(dir, &in)) {
        fail(out, cu_xasprintf(_("%s is not a CUDA install"), dir));
        return;
    }
    static const struct {
        const char *name;
        void (*fn)(const char *, const struct cu_cuda_install *, struct cu_check *);
    } checks[] = {{"cudart", check_cudart},     {"nvrtc", check_nvrtc},         {"cudnn", check_cudnn},
                  {"device", check_device},     {"gpu-kernel", check_kernel},   {"bandwidth", check_bandwidth},
                  {"cudnn-conv", check_cudnn_conv}};
    for (size_t i = 0; i < CU_N_ELEMENTS(checks); i++)
        if (strcmp(checks[i].name, name) == 0) {
            checks[i].fn(dir, &in, out);
            cu_cuda_install_fini(&in);
            return;
        }
    fail(out, cu_xasprintf("unknown check %s", name));
    cu_cuda_install_fini(&in);
}

/* ---- parent side ------------------------------------------------------------------------ */

static void
check_files(const struct cu_verify_opts *o, const struct cu_cuda_install *in, struct cu_checks *out)
{
    struct cu_record *rec = NULL;
    struct cu_error err;
    enum cu_status st = cu_record_load(o->dir, &rec, &err);
    if (st == CU_OK) {
        size_t missing = 0, altered = 0, mode = 0;
        const char *first = NULL;
        for (size_t i = 0; i < rec->n_files; i++) {
            enum cu_file_state s = cu_record_check_file(o->dir, &rec->files[i], o->deep);
            if (s == CU_FILE_OK)
                continue;
            if (!first)
                first = rec->files[i].path;
            out->damaged = cu_xreallocarray(out->damaged, out->n_damaged + 1, sizeof(*out->damaged));
            out->damaged[out->n_damaged++] = (struct cu_damaged){
                cu_xstrdup(rec->files[i].path),
                s == CU_FILE_MISSING ? "missing" : s == CU_FILE_MODE ? "mode" : "altered"};
            missing += s == CU_FILE_MISSING;
            altered += s == CU_FILE_ALTERED;
            mode += s == CU_FILE_MODE;
        }
        if (missing || altered || mode) {
            char *fact = cu_xasprintf(_("%zu missing, %zu altered, %zu with a changed mode, of %zu recorded (first: %s)"),
                                      missing, altered, mode, rec->n_files, first);
            cu_checks_add_advised(out, "files", CU_CHECK_FAIL, CU_ADV_REPAIR, fact,
                                  cu_xasprintf(_("%s; repair restores them"), fact));
        } else
            cu_checks_add(out, "files", CU_CHECK_PASS, _("all %zu recorded files are as installed%s"), rec->n_files,
                          o->deep ? _(" (contents re-hashed)") : _(" (sizes and modes; --deep re-hashes)"));
        cu_record_free(rec);
        return;
    }
    if (st != CU_E_NOT_FOUND) {
        cu_checks_add(out, "files", CU_CHECK_FAIL, "%s", err.msg);
        return;
    }
    /* Not installed by cudaup: the files every toolkit has. */
    const char *need[] = {"include/cuda_runtime.h", "include/cuda.h"};
    for (size_t i = 0; i < CU_N_ELEMENTS(need); i++) {
        CU_AUTOFREE char *p = cu_path_join(o->dir, need[i]);
        if (access(p, R_OK) != 0) {
            cu_checks_add(out, "files", CU_CHECK_FAIL, _("%s is missing"), p);
            return;
        }
    }
    CU_AUTOFREE char *rt = cu_install_lib(o->dir, "libcudart.so", in->version.part[0]);
    if (!rt) {
        cu_checks_add(out, "files", CU_CHECK_FAIL, _("no libcudart in %s"), o->dir);
        return;
    }
    cu_checks_add(out, "files", CU_CHECK_PASS, _("not installed by cudaup (no record): the essential headers and libcudart are there"));
}

static void
check_nvcc(const struct cu_verify_opts *o, const struct cu_cuda_install *in, struct cu_checks *out)
{
    CU_AUTOFREE char *nvcc = cu_path_join(o->dir, "bin/nvcc");
    struct stat nsb;
    char *gone = NULL;
    if (stat(nvcc, &nsb) != 0 && (gone = cu_verify_recorded_gone(o->dir, "nvcc"))) {
        char *detail = cu_xasprintf(_("%s; repair restores it"), gone);
        cu_checks_add_advised(out, "nvcc", CU_CHECK_FAIL, CU_ADV_REPAIR, gone, detail);
        return;
    }
    if (stat(nvcc, &nsb) != 0) {
        cu_checks_add(out, "nvcc", CU_CHECK_SKIP, _("this install has no nvcc (the compiler component is not installed)"));
        return;
    }
    if (!S_ISREG(nsb.st_mode) || access(nvcc, X_OK) != 0) {
        /* There, but not runnable: that is damage, not a missing component. */
        char *fact = cu_xasprintf(_("%s is there but cannot be run (mode %04o)"), nvcc, (unsigned)(nsb.st_mode & 07777));
        cu_checks_add_advised(out, "nvcc", CU_CHECK_FAIL, CU_ADV_REPAIR, fact,
                              cu_xasprintf(_("%s; repair puts its mode back"), fact));
        return;
    }
    struct cu_exec_result res;
    struct cu_error err;
    cu_exec_result_init(&res);
    const char *va[] = {nvcc, "--version", NULL};
    struct cu_exec_opts eo = {.envp = o->envp, .timeout_ms = o->timeout_ms, .cancel = o->cancel};
    if (cu_exec(va, &eo, &res, &err) != CU_OK || res.exit_code != 0) {
        cu_checks_add(out, "nvcc", CU_CHECK_FAIL, _("nvcc --version failed: %s"),
                      res.err.len ? cu_str_strip(res.err.data) : cu_error_text(&err));
        cu_exec_result_fini(&res);
        return;
    }
    const char *rel = strstr(res.out.data, "release ");
    struct cu_version nv = {{0}, 0};
    if (rel) {
        CU_AUTOFREE char *v = cu_xstrndup(rel + 8, strcspn(rel + 8, ",\n "));
        if (!cu_version_parse(v, &nv))
            nv.n = 0;
    }
    char b1[32], b2[32];
    if (!nv.n || (in->version.n && (nv.part[0] != in->version.part[0] || nv.part[1] != in->version.part[1]))) {
        cu_checks_add(out, "nvcc", CU_CHECK_FAIL, _("nvcc reports release %s, but the install is %s"),
                      nv.n ? cu_version_format(&nv, 2, b1, sizeof(b1)) : "?",
                      cu_version_format(&in->version, 2, b2, sizeof(b2)));
        cu_exec_result_fini(&res);
        return;
    }
    cu_exec_result_fini(&res);
    /* Compile a kernel to PTX: no GPU needed, and it exercises nvcc's whole front end. */
    char tmpl[] = "/tmp/cudaup-nvcc-XXXXXX";
    char *tmp = mkdtemp(tmpl);
    if (!tmp) {
        cu_checks_add(out, "nvcc", CU_CHECK_FAIL, _("cannot make a temporary folder"));
        return;
    }
    CU_AUTOFREE char *src = cu_path_join(tmp, "cudaup_saxpy.cu");
    CU_AUTOFREE char *ptx = cu_path_join(tmp, "cudaup_saxpy.ptx");
    if (cu_write_file_atomic(src, saxpy_src, strlen(saxpy_src), 0644, &err) != CU_OK) {
        cu_checks_add(out, "nvcc", CU_CHECK_FAIL, "%s", err.msg);
        if (cu_rm_rf(tmp, &err) != CU_OK)
            cu_log_error_of(CU_LOG_DEBUG, &err);
        return;
    }
    const char *ca[] = {nvcc, "-ptx", src, "-o", ptx, NULL};
    cu_exec_result_init(&res);
    enum cu_status st = cu_exec(ca, &eo, &res, &err);
    CU_AUTOFREE char *out_ptx = NULL;
    size_t ptx_len = 0;
    if (st == CU_OK && cu_read_file(ptx, 64u << 20, &out_ptx, &ptx_len, &err) != CU_OK)
        out_ptx = NULL;
    if (st != CU_OK || res.exit_code != 0 || !out_ptx || !strstr(out_ptx, "cudaup_saxpy"))
        cu_checks_add(out, "nvcc", CU_CHECK_FAIL, _("nvcc could not compile a kernel to PTX: %s"),
                      res.timed_out ? _("it timed out") : res.err.len ? cu_str_strip(res.err.data) : _("no PTX came out"));
    else
        cu_checks_add(out, "nvcc", CU_CHECK_PASS, _("release %s; compiled a kernel to PTX"),
                      cu_version_format(&nv, 0, b1, sizeof(b1)));
    cu_exec_result_fini(&res);
    struct cu_error e2;
    if (cu_rm_rf(tmp, &e2) != CU_OK)
        cu_log_error_of(CU_LOG_DEBUG, &e2);
}

static bool
has_driver(const struct cu_facts *f)
{
    return f && (f->driver.kind == CU_DRIVER_NVIDIA || f->driver.kind == CU_DRIVER_WSL);
}

static void
check_driver(const struct cu_verify_opts *o, const struct cu_cuda_install *in, struct cu_checks *out)
{
    const struct cu_driver_info *d = &o->facts->driver;
    char b1[32], b2[32], b3[32], b4[32];
    if (!has_driver(o->facts)) {
        cu_checks_add(out, "driver", o->require_gpu ? CU_CHECK_FAIL : CU_CHECK_SKIP, "%s",
                      d->kind == CU_DRIVER_NOUVEAU ? _("the nouveau driver is loaded, not NVIDIA's")
                                                   : _("no NVIDIA driver is loaded"));
        return;
    }
    struct cu_version m = {{in->version.part[0], in->version.part[1]}, 2};
    if (d->cuda_max.n && in->version.n && cu_version_cmp(&d->cuda_max, &m) < 0) {
        struct cu_version need;
        bool known = cu_catalog_cuda_min_driver(o->cat, &in->version, &need);
        cu_checks_add(out, "driver", CU_CHECK_FAIL, _("the driver %s runs CUDA up to %s, but this install is %s%s%s"),
                      cu_driver_version_format(&d->version, b1, sizeof(b1)), cu_version_format(&d->cuda_max, 0, b2, sizeof(b2)),
                      cu_version_format(&m, 0, b3, sizeof(b3)), known ? _("; it needs driver ") : "",
                      known ? cu_driver_version_format(&need, b4, sizeof(b4)) : "");
        return;
    }
    cu_checks_add(out, "driver", CU_CHECK_PASS, _("NVIDIA %s, runs CUDA up to %s"),
                  cu_driver_version_format(&d->version, b1, sizeof(b1)),
                  d->cuda_max.n ? cu_version_format(&d->cuda_max, 0, b2, sizeof(b2)) : "?");
}

/* Run one child check and add its outcome. */
static void
child(const struct cu_verify_opts *o, const char *name, bool needs_gpu, struct cu_checks *out)
{
    if (needs_gpu && !has_driver(o->facts)) {
        cu_checks_add(out, name, o->require_gpu ? CU_CHECK_FAIL : CU_CHECK_SKIP, "%s",
                      _("no NVIDIA driver is loaded"));
        return;
    }
    CU_AUTOFREE char *libs = cu_xasprintf("%s/lib64:%s/lib", o->dir, o->dir);
    struct cu_strv env;
    cu_strv_init(&env);
    const char *old = cu_env_get(o->envp, "LD_LIBRARY_PATH");
    for (const char *const *e = o->envp; e && *e; e++)
        if (!cu_str_has_prefix(*e, "LD_LIBRARY_PATH="))
            cu_strv_push(&env, *e);
    cu_strv_push_owned(&env, old && *old ? cu_xasprintf("LD_LIBRARY_PATH=%s:%s", libs, old)
                                         : cu_xasprintf("LD_LIBRARY_PATH=%s", libs));
    const char *argv[] = {o->self_exe, "__check", name, o->dir, NULL};
    struct cu_exec_opts eo = {.envp = (const char *const *)env.v, .timeout_ms = o->timeout_ms, .cancel = o->cancel};
    struct cu_exec_result res;
    struct cu_error err;
    cu_exec_result_init(&res);
    enum cu_status st = cu_exec(argv, &eo, &res, &err);
    json_t *j = NULL;
    if (st != CU_OK) {
        cu_checks_add(out, name, CU_CHECK_FAIL, _("cannot run the check: %s"), cu_error_text(&err));
    } else if (res.timed_out) {
        cu_checks_add(out, name, CU_CHECK_FAIL, _("did not finish within %ld s (a hung driver or GPU?)"),
                      o->timeout_ms / 1000);
    } else if (cu_json_parse_object(res.out.data, res.out.len, name, &j, &err) != CU_OK ||
               !cu_json_str(j, "status") || !cu_json_str(j, "detail")) {
        cu_checks_add(out, name, CU_CHECK_FAIL, _("the check crashed (exit %d)%s%s"), res.exit_code,
                      res.err.len ? ": " : "", res.err.len ? cu_str_strip(res.err.data) : "");
    } else {
        const char *s = cu_json_str(j, "status");
        enum cu_check_status cs = strcmp(s, "pass") == 0 ? CU_CHECK_PASS
                                  : strcmp(s, "skip") == 0 ? CU_CHECK_SKIP
                                                           : CU_CHECK_FAIL;
        if (cs == CU_CHECK_SKIP && needs_gpu && o->require_gpu)
            cs = CU_CHECK_FAIL;
        const char *fact = cu_json_str(j, "fact");
        if (fact)
            cu_checks_add_advised(out, name, cs, cu_advice_from_name(cu_json_str(j, "advice")), cu_xstrdup(fact),
                                  cu_xstrdup(cu_json_str(j, "detail")));
        else
            cu_checks_add(out, name, cs, "%s", cu_json_str(j, "detail"));
    }
    json_decref(j);
    cu_exec_result_fini(&res);
    cu_strv_fini(&env);
}

/* ---- the framework computes on the GPU --------------------------------------------------- */

extern const unsigned char cu_fwprobe_py[];
extern const size_t cu_fwprobe_py_len;

/* A build's GPU code from its own arch list ("sm_50", "compute_90", "sm_90a"). False when none parses. */
static bool
arch_code(const json_t *arch, struct cu_cat_code *c)
{
    size_t n = json_array_size(arch);
    memset(c, 0, sizeof(*c));
    c->sass = cu_xcalloc(n + 1, sizeof(int));
    c->ptx = cu_xcalloc(n + 1, sizeof(int));
    for (size_t i = 0; i < n; i++)
        cu_code_add_arch(c, json_string_value(json_array_get(arch, i)));
    return c->n_sass + c->n_ptx > 0;
}

/* "9.1.0" against "9.3.0": the loaded cuDNN must be the build's major, at its minor or newer. */
static bool
cudnn_too_old(const char *loaded, const char *build, struct cu_version *l, struct cu_version *b)
{
    if (!loaded || !build || !cu_version_parse(loaded, l) || !cu_version_parse(build, b))
        return false;
    if (l->part[0] != b->part[0])
        return true;
    struct cu_version lm = {{l->part[0], l->n > 1 ? l->part[1] : 0}, 2};
    struct cu_version bm = {{b->part[0], b->n > 1 ? b->part[1] : 0}, 2};
    return b->n > 1 && cu_version_cmp(&lm, &bm) < 0;
}

/* Judge what the probe saw; adds one check, naming the first cause of a failure. */
static void
judge_framework(const struct cu_verify_opts *o, const json_t *j, struct cu_checks *out)
{
    char b1[32], b2[32];
    const char *name = cu_framework_title(o->framework);
    const char *ver = cu_json_str(j, "version") ? cu_json_str(j, "version") : "?";
    const char *cuda = cu_json_str(j, "cuda_build");
    const char *dnn_b = cu_json_str(j, "cudnn_build"), *dnn_l = cu_json_str(j, "cudnn_loaded");
    const json_t *devs = json_object_get(j, "devices");
    size_t seen = json_array_size(devs), ngpu = o->facts ? o->facts->n_gpus : 0;
    CU_AUTOFREE char *built = cu_xasprintf("%s%s", cuda ? _(", built for CUDA ") : "", cuda ? cuda : "");

    if (!has_driver(o->facts)) {
        cu_checks_add(out, "framework", o->require_gpu ? CU_CHECK_FAIL : CU_CHECK_SKIP,
                      _("%s %s imports%s; no GPU work was done: no NVIDIA driver is loaded"), name, ver, built);
        return;
    }
    /* The build's own code against every GPU the driver sees. */
    struct cu_cat_code code;
    const json_t *arch = json_object_get(j, "arch");
    bool have_code = json_is_array(arch) && arch_code(arch, &code);
    for (size_t i = 0; have_code && i < ngpu; i++) {
        const struct cu_gpu_info *g = &o->facts->gpus[i];
        int target;
        if (!g->cc.n || cu_code_fit(&code, &g->cc, &target) != CU_CODE_NONE)
            continue;
        CU_AUTOFREE char *has = cu_code_describe(&code);
        cu_checks_add(out, "framework", CU_CHECK_FAIL,
                      _("%s %s has no code for compute capability %s (GPU %d, %s): it was built for %s"), name, ver,
                      cu_version_format(&g->cc, 0, b1, sizeof(b1)), g->index, g->name, has);
        free(code.sass);
        free(code.ptx);
        return;
    }
    if (have_code) {
        free(code.sass);
        free(code.ptx);
    }
    if (!cu_verify_pip_libs(o->cat, o->facts, j, out))
        return;
    struct cu_version l, b;
    if (cudnn_too_old(dnn_l, dnn_b, &l, &b)) {
        cu_checks_add(out, "framework", CU_CHECK_FAIL,
                      _("cuDNN %s was loaded but %s %s needs %s or newer in %u.x"),
                      cu_version_format(&l, 2, b1, sizeof(b1)), name, ver, cu_version_format(&b, 2, b2, sizeof(b2)),
                      b.part[0]);
        return;
    }
    if (seen == 0 && ngpu > 0) {
        cu_checks_add(out, "framework", CU_CHECK_FAIL, ngettext_("the driver sees %zu GPU and %s %s none%s", "the driver sees %zu GPUs and %s %s none%s", ngpu), ngpu, name, ver,
                      cu_json_str(j, "backend_error") ? cu_json_str(j, "backend_error") : "");
        return;
    }
    for (size_t i = 0; i < seen; i++) {
        const json_t *d = json_array_get(devs, i);
        json_int_t idx = json_integer_value(json_object_get(d, "index"));
        const char *err = cu_json_str(d, "error");
        if (err) {
            cu_checks_add(out, "framework", CU_CHECK_FAIL, _("%s %s on GPU %lld: %s"), name, ver, (long long)idx, err);
            return;
        }
        if (!json_is_true(json_object_get(d, "on_gpu"))) {
            cu_checks_add(out, "framework", CU_CHECK_FAIL,
                          _("%s %s ran the work for GPU %lld on the CPU: it cannot use that GPU"), name, ver,
                          (long long)idx);
            return;
        }
        if (!json_is_true(json_object_get(d, "matmul"))) {
            cu_checks_add(out, "framework", CU_CHECK_FAIL,
                          _("a matrix multiply by %s on GPU %lld differs from the same work on the CPU"), name,
                          (long long)idx);
            return;
        }
        if (!json_is_true(json_object_get(d, "conv"))) {
            cu_checks_add(out, "framework", CU_CHECK_FAIL,
                          _("a 2-D convolution (cuDNN) by %s on GPU %lld differs from the same work on the CPU"), name,
                          (long long)idx);
            return;
        }
    }
    cu_checks_add(out, "framework", CU_CHECK_PASS,
                  ngettext_("%s %s%s%s%s: a matrix multiply and a 2-D convolution on %zu GPU agree with the CPU",
                            "%s %s%s%s%s: a matrix multiply and a 2-D convolution on %zu GPUs agree with the CPU", seen), name, ver,
                  built, dnn_l || dnn_b ? _(", cuDNN ") : "", dnn_l ? dnn_l : dnn_b ? dnn_b : "", seen);
}

static void
check_framework(const struct cu_verify_opts *o, struct cu_checks *out)
{
    if (!o->python || !o->framework) {
        cu_checks_add(out, "framework", CU_CHECK_SKIP, _("no framework environment is recorded for this install"));
        return;
    }
    CU_AUTOFREE char *code = cu_xstrndup((const char *)cu_fwprobe_py, cu_fwprobe_py_len);
    CU_AUTOFREE char *libs = cu_xasprintf("LD_LIBRARY_PATH=%s/lib64", o->dir);
    struct cu_strv env;
    cu_strv_init(&env);
    for (const char *const *e = o->envp; e && *e; e++)
        if (!cu_str_has_prefix(*e, "LD_LIBRARY_PATH="))
            cu_strv_push(&env, *e);
    cu_strv_push(&env, libs);
    const char *argv[] = {o->python, "-c", code, o->framework, NULL};
    struct cu_exec_opts eo = {.envp = (const char *const *)env.v, .timeout_ms = o->timeout_ms * 3, .cancel = o->cancel};
    struct cu_exec_result res;
    struct cu_error err;
    json_t *j = NULL;
    cu_exec_result_init(&res);
    if (cu_exec(argv, &eo, &res, &err) != CU_OK) {
        cu_checks_add(out, "framework", CU_CHECK_FAIL, _("cannot run %s: %s"), o->python, cu_error_text(&err));
    } else if (res.timed_out) {
        cu_checks_add(out, "framework", CU_CHECK_FAIL, _("%s did not finish its GPU work within %ld s (a hung driver or GPU?)"),
                      cu_framework_title(o->framework), o->timeout_ms * 3 / 1000);
    } else if (res.exit_code != 0) {
        const char *last = res.err.len ? strrchr(cu_str_strip(res.err.data), '\n') : NULL;
        cu_checks_add(out, "framework", CU_CHECK_FAIL, _("%s does not import: %s"), cu_framework_title(o->framework),
                      last ? last + 1 : res.err.len ? res.err.data : "?");
    } else {
        const char *line = strrchr(cu_str_strip(res.out.data), '\n');
        line = line ? line + 1 : res.out.data;
        if (cu_json_parse_object(line, strlen(line), "framework", &j, &err) != CU_OK)
            cu_checks_add(out, "framework", CU_CHECK_FAIL, _("%s printed something unexpected"), cu_framework_title(o->framework));
        else
            judge_framework(o, j, out);
    }
    json_decref(j);
    cu_exec_result_fini(&res);
    cu_strv_fini(&env);
}

/* The Python cudaup brought for the framework's venv: its recorded files, and that it runs. */
static void
check_python(const struct cu_verify_opts *o, struct cu_checks *out)
{
    if (!o->python)
        return;
    CU_AUTOFREE char *env = cu_xstrdup(o->python);
    for (int i = 0; i < 2; i++) {
        char *s = strrchr(env, '/');
        if (s)
            *s = '\0'; /* ENV/bin/python -> ENV */
    }
    CU_AUTOFREE char *dir = cu_venv_brought_python(env);
    if (!dir)
        return; /* made with a Python of the machine or of conda: not cudaup's to check */
    struct cu_record *rec = NULL;
    struct cu_error err;
    if (cu_record_load_python(dir, &rec, &err) != CU_OK) {
        char *fact = cu_xasprintf(_("%s: %s"), dir, cu_error_text(&err));
        cu_checks_add_advised(out, "python", CU_CHECK_FAIL, CU_ADV_REINSTALL, fact,
                              cu_xasprintf(_("%s; `cudaup install` with the same options brings it back"), fact));
        return;
    }
    size_t bad = 0;
    const char *first = NULL;
    for (size_t i = 0; i < rec->n_files; i++)
        if (cu_record_check_file(dir, &rec->files[i], o->deep) != CU_FILE_OK) {
            first = first ? first : rec->files[i].path;
            bad++;
        }
    CU_AUTOFREE char *exe = cu_xasprintf("%s/bin/python3", dir);
    const char *argv[] = {exe, "-c", "import ssl, venv, sys; print('%d.%d.%d' % sys.version_info[:3])", NULL};
    struct cu_exec_opts eo = {.envp = o->envp, .timeout_ms = o->timeout_ms, .cancel = o->cancel};
    struct cu_exec_result res;
    cu_exec_result_init(&res);
    bool runs = cu_exec(argv, &eo, &res, &err) == CU_OK && res.exit_code == 0 && !res.timed_out;
    if (bad) {
        char *fact = cu_xasprintf(_("%zu of the %zu files of Python %s in %s are missing or altered (first: %s)"), bad,
                                  rec->n_files, rec->python_version, dir, first);
        cu_checks_add_advised(out, "python", CU_CHECK_FAIL, CU_ADV_REPAIR, fact,
                              cu_xasprintf(_("%s; repair restores them"), fact));
    } else if (!runs)
        cu_checks_add(out, "python", CU_CHECK_FAIL, _("Python %s in %s does not run: %s"), rec->python_version, dir,
                      res.err.len ? cu_str_strip(res.err.data) : cu_error_text(&err));
    else
        cu_checks_add(out, "python", CU_CHECK_PASS, _("Python %s in %s: all %zu recorded files are as installed%s, and it runs"),
                      cu_str_strip(res.out.data), dir, rec->n_files,
                      o->deep ? _(" (contents re-hashed)") : _(" (sizes and modes; --deep re-hashes)"));
    cu_exec_result_fini(&res);
    cu_record_free(rec);
}

void
cu_verify_run(const struct cu_verify_opts *o, struct cu_checks *out)
{
    struct cu_cuda_install in;
    memset(out, 0, sizeof(*out));
    if (!read_install(o->dir, &in)) {
        cu_checks_add(out, "files", CU_CHECK_FAIL, _("%s is not a CUDA install"), o->dir);
        cu_checks_log(out, o->dir);
        return;
    }
    check_files(o, &in, out);
    check_nvcc(o, &in, out);
    child(o, "cudart", false, out);
    child(o, "nvrtc", false, out);
    child(o, "cudnn", false, out);
    check_driver(o, &in, out);
    child(o, "device", true, out);
    child(o, "gpu-kernel", true, out);
    child(o, "bandwidth", true, out);
    child(o, "cudnn-conv", true, out);
    check_python(o, out);
    check_framework(o, out);
    cu_cuda_install_fini(&in);
    cu_checks_log(out, o->dir); /* the wizard's and the CLI's alike: a failure can be read from the log */
}
