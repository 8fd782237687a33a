/* SPDX-License-Identifier: MIT */
/*
 * The child's side of verify (`cudaup __check NAME DIR`, verify.h): cu_check_child runs one check
 * by its name, and here are the checks that load the install's libraries and compare their
 * versions with the install's: cudart, nvrtc, cudnn.  The checks that do GPU work are in
 * verify_gpu.c; what they share in verify_rt.c.
 */
#include "config.h"

#include "core/verify/verify.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/machine/nvtypes.h"
#include "core/machine/sysinfo.h"
#include "core/verify/checks.h"
#include "core/verify/verify_int.h"
#include "core/verify/verify_rt.h"
#include "core/verify/verifyrec.h"

static void
check_cudart(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct rt r;
    int v = 0;
    if (!cu_verify_rt_open(dir, in->version.part[0], &r, out))
        return;
    cudaError_t e = r.runtime_version(&v);
    struct cu_version got;
    cu_version_from_cuda_int(v, &got);
    char b1[32], b2[32];
    if (e != cudaSuccess)
        cu_verify_fail(out, cu_xasprintf(_("cudaRuntimeGetVersion failed: %s"), cu_verify_rt_err(&r, e)));
    else if (in->version.n && (got.part[0] != in->version.part[0] || got.part[1] != in->version.part[1]))
        cu_verify_fail(out, cu_xasprintf(_("%s is CUDA %s, but the install is %s"), r.path, cu_version_format(&got, 2, b1, sizeof(b1)),
                               cu_version_format(&in->version, 2, b2, sizeof(b2))));
    else
        cu_verify_pass(out, cu_xasprintf(_("CUDA runtime %s (%s)"), cu_version_format(&got, 2, b1, sizeof(b1)), r.path));
    free(r.path);
}

static void
check_nvrtc(const char *dir, const struct cu_cuda_install *in, struct cu_check *out)
{
    struct nvrtc n;
    char *why = NULL;
    int maj = 0, min = 0;
    if (!cu_verify_nvrtc_open(dir, in->version.part[0], &n, &why)) {
        /* A toolkit without the NVRTC component is a choice, not a fault. */
        char *gone = n.path ? NULL : cu_verify_recorded_gone(dir, "libnvrtc.so");
        if (gone)
            cu_check_fail_repair(out, gone), free(why); /* recorded, so installed: damage, not a choice */
        else if (!n.path)
            out->status = CU_CHECK_SKIP, out->detail = why;
        else
            cu_verify_fail(out, why);
        free(n.path);
        return;
    }
    n.version(&maj, &min);
    if (in->version.n && ((unsigned)maj != in->version.part[0] || (unsigned)min != in->version.part[1])) {
        cu_verify_fail(out, cu_xasprintf(_("%s is NVRTC %d.%d, but the install is %u.%u"), n.path, maj, min,
                               in->version.part[0], in->version.part[1]));
    } else {
        char *ptx = cu_verify_nvrtc_compile(&n, NULL, &why);
        if (ptx && strstr(ptx, "cudaup_saxpy"))
            cu_verify_pass(out, cu_xasprintf(_("NVRTC %d.%d compiled a kernel to PTX"), maj, min));
        else
            cu_verify_fail(out, why ? why : cu_xstrdup(_("NVRTC's PTX lacks the kernel")));
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
        cu_verify_fail(out, cu_xasprintf(_("%s does not load: %s"), path, e ? e : "?"));
        return;
    }
    size_t (*get_version)(void);
    cu_verify_dlfn(&get_version, h, "cudnnGetVersion", NULL);
    if (!get_version) {
        cu_verify_fail(out, cu_xasprintf(_("%s has no cudnnGetVersion"), path));
        return;
    }
    size_t v = get_version();
    /* 8.x: 8907 = 8.9.7; 9.x: 91900 = 9.19.0 */
    unsigned a = (unsigned)(v >= 90000 ? v / 10000 : v / 1000);
    unsigned b = (unsigned)(v >= 90000 ? (v % 10000) / 100 : (v % 1000) / 100);
    unsigned c = (unsigned)(v >= 90000 ? v % 100 : v % 100);
    struct cu_version rec;
    if (cu_verify_record_cudnn(dir, &rec) && (a != rec.part[0] || b != rec.part[1] || c != rec.part[2]))
        cu_verify_fail(out, cu_xasprintf(_("libcudnn says %u.%u.%u, but the install is %u.%u.%u"), a, b, c, rec.part[0],
                               rec.part[1], rec.part[2])); /* the record decides, as for nvcc, cudart and nvrtc */
    else if (in->cudnn.n && (a != in->cudnn.part[0] || b != in->cudnn.part[1] || c != in->cudnn.part[2]))
        cu_verify_fail(out, cu_xasprintf(_("libcudnn says %u.%u.%u, but cudnn_version.h says %u.%u.%u"), a, b, c, in->cudnn.part[0],
                               in->cudnn.part[1], in->cudnn.part[2]));
    else
        cu_verify_pass(out, cu_xasprintf(_("cuDNN %u.%u.%u (%s)"), a, b, c, path));
}

void
cu_check_child(const char *name, const char *dir, struct cu_check *out)
{
    struct cu_cuda_install in;
    memset(out, 0, sizeof(*out));
    out->name = cu_xstrdup(name);
    if (strcmp(name, "toolkit-kernel") == 0) { /* @dir is the kernel nvcc compiled (verify_toolkit.c) */
        cu_verify_check_toolkit_kernel(dir, out);
        return;
    }
    if (!cu_verify_read_install(dir, &in)) {
        cu_verify_fail(out, cu_xasprintf(_("%s is not a CUDA install"), dir));
        return;
    }
    /* Under another machine root: that root's driver library, loaded first, is the one libcudart finds. */
    const char *libcuda = getenv("CUDAUP_CHECK_LIBCUDA");
    if (libcuda && *libcuda && !dlopen(libcuda, RTLD_NOW | RTLD_GLOBAL)) {
        const char *why = dlerror();
        out->status = CU_CHECK_SKIP;
        out->detail = cu_xasprintf(_("the machine root's driver library %s cannot be loaded on this host (%s), and this host's is not run against that driver"),
                                   libcuda, why ? why : "?");
        cu_cuda_install_fini(&in);
        return;
    }
    static const struct {
        const char *name;
        void (*fn)(const char *, const struct cu_cuda_install *, struct cu_check *);
    } checks[] = {{"cudart", check_cudart},
                  {"nvrtc", check_nvrtc},
                  {"cudnn", check_cudnn},
                  {"device", cu_verify_check_device},
                  {"gpu-kernel", cu_verify_check_kernel},
                  {"bandwidth", cu_verify_check_bandwidth},
                  {"cudnn-conv", cu_verify_check_cudnn_conv}};
    for (size_t i = 0; i < CU_N_ELEMENTS(checks); i++)
        if (strcmp(checks[i].name, name) == 0) {
            checks[i].fn(dir, &in, out);
            cu_cuda_install_fini(&in);
            return;
        }
    cu_verify_fail(out, cu_xasprintf("unknown check %s", name));
    cu_cuda_install_fini(&in);
}
