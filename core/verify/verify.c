/* SPDX-License-Identifier: MIT */
/*
 * verify's running order (verify.h): cu_verify_run runs every family of checks in turn (the
 * install's tree, verify_files.c; its libraries and GPU work, each in a child process of its own,
 * child() here; the NVIDIA driver, verify_driver.c; the framework's environment,
 * verify_framework.c) and logs what they found.  The child's side is cu_check_child
 * (verify_child.c).
 */
#include "config.h"

#include "core/verify/verify.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/advice.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/machine/sysinfo.h"
#include "core/verify/checks.h"
#include "core/verify/verify_int.h"
#include "core/verify/verify_report.h"

/*
 * The driver library of the machine root, as a path on this host resolved inside that root (its links
 * stay inside it), or NULL when it has none.
 */
static char *
root_libcuda(const struct cu_sysroot *root)
{
    static const char *const dirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
                                       "/usr/lib/wsl/lib", "/usr/lib"};
    for (size_t i = 0; i < CU_N_ELEMENTS(dirs); i++) {
        CU_AUTOFREE char *p = cu_path_join(dirs[i], "libcuda.so.1");
        int fd = cu_sysroot_open(root, p, O_RDONLY);
        if (fd < 0)
            continue;
        char buf[4096];
        CU_AUTOFREE char *self = cu_xasprintf("/proc/self/fd/%d", fd);
        ssize_t n = readlink(self, buf, sizeof(buf) - 1);
        close(fd);
        if (n > 0) {
            buf[n] = '\0';
            return cu_xstrdup(buf);
        }
    }
    return NULL;
}

/* Run one child check and add its outcome. */
static void
child(const struct cu_verify_opts *o, const char *name, bool needs_gpu, struct cu_checks *out)
{
    if (needs_gpu && !cu_verify_has_driver(o->facts)) {
        cu_checks_add(out, name, o->require_gpu ? CU_CHECK_FAIL : CU_CHECK_SKIP, "%s",
                      _("no NVIDIA driver is loaded"));
        return;
    }
    /* Another machine's driver is not this host's: its own libcuda, or no GPU work at all. */
    CU_AUTOFREE char *libcuda = needs_gpu && o->root && !cu_sysroot_is_host(o->root) ? root_libcuda(o->root) : NULL;
    if (needs_gpu && o->root && !cu_sysroot_is_host(o->root) && !libcuda) {
        cu_checks_add(out, name, o->require_gpu ? CU_CHECK_FAIL : CU_CHECK_SKIP,
                      _("the machine is read from %s, which has no libcuda.so.1 of its own, and this host's driver libraries are not run against its driver"),
                      o->root->path);
        return;
    }
    CU_AUTOFREE char *libs = cu_xasprintf("%s/lib64:%s/lib", o->dir, o->dir);
    struct cu_strv env;
    cu_strv_init(&env);
    const char *old = cu_env_get(o->envp, "LD_LIBRARY_PATH");
    for (const char *const *e = o->envp; e && *e; e++)
        if (!cu_str_has_prefix(*e, "LD_LIBRARY_PATH=") && !cu_str_has_prefix(*e, "CUDAUP_CHECK_LIBCUDA="))
            cu_strv_push(&env, *e);
    cu_strv_push_owned(&env, old && *old ? cu_xasprintf("LD_LIBRARY_PATH=%s:%s", libs, old)
                                         : cu_xasprintf("LD_LIBRARY_PATH=%s", libs));
    if (libcuda)
        cu_strv_push_owned(&env, cu_xasprintf("CUDAUP_CHECK_LIBCUDA=%s", libcuda));
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
        if (cs == CU_CHECK_FAIL && cu_json_str(j, "fix"))
            out->v[out->n - 1].fix = cu_xstrdup(cu_json_str(j, "fix"));
    }
    json_decref(j);
    cu_exec_result_fini(&res);
    cu_strv_fini(&env);
}

void
cu_verify_run(const struct cu_verify_opts *o, struct cu_checks *out)
{
    struct cu_cuda_install in;
    memset(out, 0, sizeof(*out));
    if (!cu_verify_read_install(o->dir, &in)) {
        cu_checks_add(out, "files", CU_CHECK_FAIL, _("%s is not a CUDA install"), o->dir);
        cu_checks_log(out, o->dir);
        return;
    }
    cu_verify_check_files(o, &in, out);
    cu_verify_check_nvcc(o, &in, out);
    child(o, "cudart", false, out);
    child(o, "nvrtc", false, out);
    child(o, "cudnn", false, out);
    cu_verify_check_driver(o, &in, out);
    child(o, "device", true, out);
    /* One cause, said once (issue 35): a runtime that does not load fails cudart, and device would say the
     * same words again; GPU work cannot run where the device check failed (the runtime could not reach the
     * GPU, or it hung), and each of it would repeat that cause (and wait out its time limit again). */
    struct cu_check *dev = &out->v[out->n - 1], *rt = NULL;
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i].name, "cudart") == 0)
            rt = &out->v[i];
    bool same = dev->status == CU_CHECK_FAIL && rt && rt->status == CU_CHECK_FAIL && dev->detail && rt->detail &&
                strcmp(dev->detail, rt->detail) == 0;
    if (same) {
        dev->status = o->require_gpu ? CU_CHECK_FAIL : CU_CHECK_SKIP;
        free(dev->detail);
        dev->detail = cu_xstrdup(_("not run: the cudart check failed"));
        cu_clear_ptr(&dev->fact, free);
        cu_clear_ptr(&dev->fix, free);
        dev->adv = CU_ADV_NONE;
    }
    const char *failed = same ? "cudart" : dev->status == CU_CHECK_FAIL ? "device" : NULL;
    static const char *const work[] = {"gpu-kernel", "bandwidth", "cudnn-conv"};
    for (size_t i = 0; i < CU_N_ELEMENTS(work); i++) {
        if (failed) /* --require-gpu: what did not run on the GPU fails, as its skips do */
            cu_checks_add(out, work[i], o->require_gpu ? CU_CHECK_FAIL : CU_CHECK_SKIP, "%s",
                          strcmp(failed, "cudart") == 0 ? _("not run: the cudart check failed")
                                                        : _("not run: the device check failed"));
        else
            child(o, work[i], true, out);
    }
    cu_verify_check_python(o, out);
    cu_verify_check_framework(o, out);
    cu_verify_check_toolkits(o, out); /* an environment's own compiler wheels, where one has them */
    cu_cuda_install_fini(&in);
    cu_checks_log(out, o->dir); /* the wizard's and the CLI's alike: a failure can be read from the log */
}
