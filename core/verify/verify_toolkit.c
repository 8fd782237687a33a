/* SPDX-License-Identifier: MIT */
/*
 * The toolkit of an environment's compiler wheels (--toolkit wheels, issue 50), checked as a system one is:
 * "toolkit" (nvcc of the toolkit folder the activation names runs, is the release and the wheel the environment
 * record holds, and compiles the test kernel for every GPU of the machine) and "toolkit-kernel" (on a GPU, that
 * kernel loaded with the driver API and run, every value checked; the child's side is cu_verify_check_toolkit_kernel).
 * An environment of --toolkit none asks for no toolkit: its check is a skip that says so.
 */
#include "config.h"

#define CU_LOG_TAG "verify"
#include "core/verify/verify_int.h"

#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/machine/nvtypes.h"
#include "core/machine/sysinfo.h"
#include "core/verify/checks.h"
#include "core/verify/verify.h"
#include "core/verify/verify_report.h"
#include "core/verify/verify_rt.h"

/* One environment's toolkit, as its record names it. */
struct tk {
    const char *env, *framework, *kind, *home, *release, *nvcc_version;
};

/* "release 13.0, V13.0.88" of nvcc --version: *mm ("13.0") and *full ("13.0.88"); false when not there. */
static bool
nvcc_release(const char *text, struct cu_version *mm, struct cu_version *full)
{
    const char *rel = strstr(text, "release ");
    memset(mm, 0, sizeof(*mm));
    memset(full, 0, sizeof(*full));
    if (!rel)
        return false;
    CU_AUTOFREE char *v = cu_xstrndup(rel + 8, strcspn(rel + 8, ",\n "));
    if (!cu_version_parse(v, mm))
        return false;
    const char *V = strstr(rel, ", V");
    if (V) {
        CU_AUTOFREE char *w = cu_xstrndup(V + 3, strcspn(V + 3, "\n "));
        if (!cu_version_parse(w, full))
            memset(full, 0, sizeof(*full));
    }
    return true;
}

/* The GPUs' architectures ("sm_120"), each once; none without facts. */
static void
gpu_archs(const struct cu_facts *f, struct cu_strv *out)
{
    for (size_t i = 0; f && i < f->n_gpus; i++) {
        if (!f->gpus[i].cc.n)
            continue;
        CU_AUTOFREE char *a = cu_xasprintf("sm_%u%u", f->gpus[i].cc.part[0], f->gpus[i].cc.n > 1 ? f->gpus[i].cc.part[1] : 0);
        bool seen = false;
        for (size_t k = 0; k < out->n; k++)
            seen |= strcmp(out->v[k], a) == 0;
        if (!seen)
            cu_strv_push(out, a);
    }
}

/* Run nvcc @argv; NULL on success, else why (caller frees). */
static char *
run_nvcc(const struct cu_verify_opts *o, const char *const *argv, struct cu_exec_result *res)
{
    struct cu_error err;
    struct cu_exec_opts eo = {.envp = o->envp, .timeout_ms = o->timeout_ms, .cancel = o->cancel};
    cu_exec_result_init(res);
    if (cu_exec(argv, &eo, res, &err) != CU_OK)
        return cu_xstrdup(cu_error_text(&err));
    if (res->timed_out)
        return cu_xstrdup(_("it timed out"));
    if (res->exit_code != 0)
        return cu_xstrdup(res->err.len ? cu_str_strip(res->err.data) : res->out.len ? cu_str_strip(res->out.data) : "?");
    return NULL;
}

/* The kernel's run on GPU 0 from @cubin, in a child of its own (a hung GPU cannot take cudaup down). */
static void
run_kernel(const struct cu_verify_opts *o, const struct tk *t, const char *cubin, struct cu_checks *out)
{
    enum cu_check_status skip = o->require_gpu ? CU_CHECK_FAIL : CU_CHECK_SKIP;
    if (!cu_verify_has_driver(o->facts)) {
        cu_checks_add(out, "toolkit-kernel", skip, "%s", _("no NVIDIA driver is loaded"));
        return;
    }
    if (!cubin) {
        cu_checks_add(out, "toolkit-kernel", skip, "%s", _("not run: nvcc compiled no kernel for GPU 0"));
        return;
    }
    if (o->root && !cu_sysroot_is_host(o->root)) {
        cu_checks_add(out, "toolkit-kernel", skip, _("the machine is read from %s: this host's driver does not run its kernels"),
                      o->root->path);
        return;
    }
    const char *argv[] = {o->self_exe, "__check", "toolkit-kernel", cubin, NULL};
    struct cu_exec_opts eo = {.envp = o->envp, .timeout_ms = o->timeout_ms, .cancel = o->cancel};
    struct cu_exec_result res;
    struct cu_error err;
    json_t *j = NULL;
    cu_exec_result_init(&res);
    if (cu_exec(argv, &eo, &res, &err) != CU_OK) {
        cu_checks_add(out, "toolkit-kernel", CU_CHECK_FAIL, _("cannot run the check: %s"), cu_error_text(&err));
    } else if (res.timed_out) {
        cu_checks_add(out, "toolkit-kernel", CU_CHECK_FAIL, _("did not finish within %ld s (a hung driver or GPU?)"),
                      o->timeout_ms / 1000);
    } else if (cu_json_parse_object(res.out.data, res.out.len, "toolkit-kernel", &j, &err) != CU_OK ||
               !cu_json_str(j, "status") || !cu_json_str(j, "detail")) {
        cu_checks_add(out, "toolkit-kernel", CU_CHECK_FAIL, _("the check crashed (exit %d)%s%s"), res.exit_code,
                      res.err.len ? ": " : "", res.err.len ? cu_str_strip(res.err.data) : "");
    } else {
        const char *s = cu_json_str(j, "status");
        enum cu_check_status cs = strcmp(s, "pass") == 0 ? CU_CHECK_PASS : strcmp(s, "skip") == 0 ? skip : CU_CHECK_FAIL;
        cu_checks_add(out, "toolkit-kernel", cs, "%s", cu_json_str(j, "detail"));
    }
    cu_checks_about(out, t->framework);
    json_decref(j);
    cu_exec_result_fini(&res);
}

/* nvcc of the toolkit @t: there, runnable, the held release, and compiling for every GPU; then the run. */
static void
check_one(const struct cu_verify_opts *o, const struct tk *t, struct cu_checks *out)
{
    if (t->kind && strcmp(t->kind, "none") == 0) {
        cu_checks_add(out, "toolkit", CU_CHECK_SKIP, _("%s was made with --toolkit none: no CUDA toolkit is asked for"), t->env);
        cu_checks_about(out, t->framework);
        return;
    }
    if (!t->kind || strcmp(t->kind, "wheels") != 0)
        return; /* the system's: the nvcc check of the CUDA install */
    if (!t->home || !*t->home) {
        cu_checks_add(out, "toolkit", CU_CHECK_FAIL, _("STATE/pyenv.json records %s with --toolkit wheels but names no toolkit folder in it"),
                      t->env);
        cu_checks_about(out, t->framework);
        return;
    }
    CU_AUTOFREE char *nvcc = cu_path_join(t->home, "bin/nvcc");
    struct stat sb;
    if (stat(nvcc, &sb) != 0 || !S_ISREG(sb.st_mode) || access(nvcc, X_OK) != 0) {
        char *fact = cu_xasprintf(_("%s, the nvcc of %s's compiler wheels, is missing or cannot be run"), nvcc, t->env);
        cu_checks_add_advised(out, "toolkit", CU_CHECK_FAIL, CU_ADV_REPAIR, fact,
                              cu_xasprintf(_("%s; repair installs the compiler wheels again at their held versions"), fact));
        cu_checks_about(out, t->framework);
        return;
    }
    struct cu_exec_result res;
    const char *va[] = {nvcc, "--version", NULL};
    CU_AUTOFREE char *why = run_nvcc(o, va, &res);
    struct cu_version mm, full, want;
    char b1[32], b2[32];
    if (why || !nvcc_release(res.out.data ? res.out.data : "", &mm, &full)) {
        cu_checks_add(out, "toolkit", CU_CHECK_FAIL, _("%s --version failed: %s"), nvcc, why ? why : _("it names no release"));
        cu_checks_about(out, t->framework);
        cu_exec_result_fini(&res);
        return;
    }
    cu_exec_result_fini(&res);
    /* The release the plan held the compiler at (the framework's runtime's, never above the driver's). */
    if (t->release && cu_version_parse(t->release, &want) && (mm.part[0] != want.part[0] || mm.part[1] != want.part[1])) {
        char *fact = cu_xasprintf(_("%s is CUDA %s, but %s's compiler wheels are held at CUDA %s"), nvcc,
                                  cu_version_format(&mm, 2, b1, sizeof(b1)), t->env, cu_version_format(&want, 2, b2, sizeof(b2)));
        cu_checks_add_advised(out, "toolkit", CU_CHECK_FAIL, CU_ADV_REPAIR, fact,
                              cu_xasprintf(_("%s; repair installs the compiler wheels again at their held versions"), fact));
        cu_checks_about(out, t->framework);
        return;
    }
    if (t->nvcc_version && full.n && cu_version_parse(t->nvcc_version, &want) && cu_version_cmp(&full, &want) != 0) {
        char *fact = cu_xasprintf(_("%s is nvcc %s, but %s holds nvidia-cuda-nvcc %s"), nvcc,
                                  cu_version_format(&full, 0, b1, sizeof(b1)), t->env, t->nvcc_version);
        cu_checks_add_advised(out, "toolkit", CU_CHECK_FAIL, CU_ADV_REPAIR, fact,
                              cu_xasprintf(_("%s; repair installs the compiler wheels again at their held versions"), fact));
        cu_checks_about(out, t->framework);
        return;
    }
    /* A kernel for every GPU of the machine (PTX where none is known), as the system toolkit's nvcc check does. */
    char tmpl[] = "/tmp/cudaup-tk-XXXXXX";
    char *tmp = mkdtemp(tmpl);
    struct cu_error err;
    if (!tmp) {
        cu_checks_add(out, "toolkit", CU_CHECK_FAIL, _("cannot make a temporary folder"));
        return;
    }
    CU_AUTOFREE char *src = cu_path_join(tmp, "cudaup_saxpy.cu");
    struct cu_strv archs;
    cu_strv_init(&archs);
    gpu_archs(o->facts, &archs);
    CU_AUTOFREE char *first = NULL; /* GPU 0's kernel, for the run */
    char *fail = NULL;
    if (cu_write_file_atomic(src, cu_verify_saxpy_src, strlen(cu_verify_saxpy_src), 0644, &err) != CU_OK)
        fail = cu_xstrdup(err.msg);
    for (size_t i = 0; !fail && i < (archs.n ? archs.n : 1); i++) {
        CU_AUTOFREE char *obj = cu_xasprintf("%s/cudaup_saxpy.%s", tmp, archs.n ? archs.v[i] : "ptx");
        CU_AUTOFREE char *arch = archs.n ? cu_xasprintf("-arch=%s", archs.v[i]) : NULL;
        const char *ca[] = {nvcc, archs.n ? "-cubin" : "-ptx", src, "-o", obj, arch, NULL};
        CU_AUTOFREE char *w = run_nvcc(o, ca, &res);
        cu_exec_result_fini(&res);
        struct stat ob;
        if (w || stat(obj, &ob) != 0 || ob.st_size == 0)
            fail = cu_xasprintf(_("nvcc could not compile a kernel for %s: %s"), archs.n ? archs.v[i] : "PTX",
                                w ? w : _("nothing came out"));
        else if (i == 0 && archs.n)
            first = cu_steal_ptr(&obj);
    }
    struct cu_buf list;
    cu_buf_init(&list);
    for (size_t i = 0; i < archs.n; i++)
        cu_buf_printf(&list, "%s%s", i ? ", " : "", archs.v[i]);
    if (fail)
        cu_checks_add(out, "toolkit", CU_CHECK_FAIL, "%s", fail);
    else
        cu_checks_add(out, "toolkit", CU_CHECK_PASS, _("nvcc %s of %s's compiler wheels (%s) compiled a kernel for %s"),
                      cu_version_format(full.n ? &full : &mm, 0, b1, sizeof(b1)), t->env, t->home,
                      archs.n ? list.data : _("PTX (no GPU is known)"));
    cu_checks_about(out, t->framework);
    if (!fail)
        run_kernel(o, t, first, out);
    free(fail);
    cu_buf_fini(&list);
    cu_strv_fini(&archs);
    if (cu_rm_rf(tmp, &err) != CU_OK)
        cu_log_error_of(CU_LOG_DEBUG, &err);
}

void
cu_verify_check_toolkits(const struct cu_verify_opts *o, struct cu_checks *out)
{
    const struct cu_verify_toolkit *k = &o->toolkit;
    struct tk t = {o->env_name ? o->env_name : o->python, o->framework, k->kind, k->home, k->release, k->nvcc_version};
    if (o->python)
        check_one(o, &t, out);
    for (size_t i = 0; o->more_toolkit && i < o->n_more; i++) {
        const struct cu_verify_env *e = &o->more[i];
        k = &o->more_toolkit[i];
        struct tk m = {e->name ? e->name : e->python, e->framework, k->kind, k->home, k->release, k->nvcc_version};
        check_one(o, &m, out);
    }
}

void
cu_verify_run_toolkit_env(const struct cu_verify_opts *o, struct cu_checks *out)
{
    memset(out, 0, sizeof(*out));
    cu_verify_check_python(o, out);
    cu_verify_check_framework(o, out);
    cu_verify_check_toolkits(o, out);
    cu_checks_log(out, o->env_name ? o->env_name : o->python);
}

/* ---- the child's side: the driver API alone (the wheels' runtime is the framework's, not loaded here) ---- */

void
cu_verify_check_toolkit_kernel(const char *cubin, struct cu_check *out)
{
    const char *lib = getenv("CUDAUP_CHECK_LIBCUDA");
    void *h = dlopen(lib && *lib ? lib : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) { /* --require-gpu makes it a failure (run_kernel) */
        const char *e = dlerror();
        out->status = CU_CHECK_SKIP;
        out->detail = cu_xasprintf(_("the driver library does not load here (%s): the kernel is not run"), e ? e : "?");
        return;
    }
    CUresult (*init)(unsigned), (*dev_get)(CUdevice *, int), (*retain)(CUcontext *, CUdevice), (*set)(CUcontext);
    CUresult (*load)(CUmodule *, const void *), (*getf)(CUfunction *, CUmodule, const char *);
    CUresult (*alloc)(CUdeviceptr *, size_t), (*dfree)(CUdeviceptr), (*sync)(void);
    CUresult (*htod)(CUdeviceptr, const void *, size_t), (*dtoh)(void *, CUdeviceptr, size_t);
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **,
                       void **);
    cu_verify_dlfn(&init, h, "cuInit", NULL);
    cu_verify_dlfn(&dev_get, h, "cuDeviceGet", NULL);
    cu_verify_dlfn(&retain, h, "cuDevicePrimaryCtxRetain", NULL);
    cu_verify_dlfn(&set, h, "cuCtxSetCurrent", NULL);
    cu_verify_dlfn(&load, h, "cuModuleLoadData", NULL);
    cu_verify_dlfn(&getf, h, "cuModuleGetFunction", NULL);
    cu_verify_dlfn(&alloc, h, "cuMemAlloc_v2", "cuMemAlloc");
    cu_verify_dlfn(&dfree, h, "cuMemFree_v2", "cuMemFree");
    cu_verify_dlfn(&htod, h, "cuMemcpyHtoD_v2", "cuMemcpyHtoD");
    cu_verify_dlfn(&dtoh, h, "cuMemcpyDtoH_v2", "cuMemcpyDtoH");
    cu_verify_dlfn(&sync, h, "cuCtxSynchronize", NULL);
    cu_verify_dlfn(&launch, h, "cuLaunchKernel", NULL);
    if (!init || !dev_get || !retain || !set || !load || !getf || !alloc || !dfree || !htod || !dtoh || !sync || !launch) {
        out->status = CU_CHECK_SKIP;
        out->detail = cu_xstrdup(_("the driver library lacks the module API (cuModuleLoadData, cuLaunchKernel): the kernel is not run"));
        return;
    }
    char *image = NULL;
    size_t len = 0;
    struct cu_error err;
    if (cu_read_file(cubin, 64u << 20, &image, &len, &err) != CU_OK) {
        cu_verify_fail(out, cu_xstrdup(err.msg));
        return;
    }
    enum { N = 1 << 20 };
    float *hx = cu_xmalloc(sizeof(float) * N), *hy = cu_xmalloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) {
        hx[i] = (float)(i % 1000);
        hy[i] = 2.0f;
    }
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    CUdeviceptr dx = 0, dy = 0;
    CUresult r;
    const char *stage = "cuInit";
    int n = N;
    float a = 3.0f;
    if ((r = init(0)) || (stage = "cuDeviceGet", r = dev_get(&dev, 0)) ||
        (stage = "cuDevicePrimaryCtxRetain", r = retain(&ctx, dev)) || (stage = "cuCtxSetCurrent", r = set(ctx)) ||
        (stage = "cuModuleLoadData", r = load(&mod, image)) ||
        (stage = "cuModuleGetFunction", r = getf(&fn, mod, "cudaup_saxpy")) ||
        (stage = "cuMemAlloc", r = alloc(&dx, sizeof(float) * N)) || (r = alloc(&dy, sizeof(float) * N)) ||
        (stage = "cuMemcpyHtoD", r = htod(dx, hx, sizeof(float) * N)) || (r = htod(dy, hy, sizeof(float) * N))) {
        cu_verify_fail(out, cu_xasprintf(_("the kernel nvcc compiled did not run: %s returned CUresult %d"), stage, (int)r));
        goto done;
    }
    void *args[] = {&n, &a, &dx, &dy};
    if ((stage = "cuLaunchKernel", r = launch(fn, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL)) ||
        (stage = "cuCtxSynchronize", r = sync()) || (stage = "cuMemcpyDtoH", r = dtoh(hy, dy, sizeof(float) * N))) {
        cu_verify_fail(out, cu_xasprintf(_("the kernel nvcc compiled did not run: %s returned CUresult %d"), stage, (int)r));
        goto done;
    }
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += fabsf(hy[i] - (a * (float)(i % 1000) + 2.0f)) > 1e-3f;
    if (bad)
        cu_verify_fail(out, cu_xasprintf(_("the kernel nvcc compiled computed %d of %d values wrong"), bad, N));
    else
        cu_verify_pass(out, cu_xasprintf(_("ran the kernel nvcc compiled (y = a*x + y on %d floats) on GPU 0; every value checked"), N));
done:
    if (dx)
        dfree(dx);
    if (dy)
        dfree(dy);
    free(hx);
    free(hy);
    free(image);
}
