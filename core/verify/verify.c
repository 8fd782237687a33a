/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "verify"
#include "core/verify/verify.h"
#include "core/verify/verify_int.h"
#include "core/verify/verify_libs.h"
#include "core/verify/verify_rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/install/envfile.h"
#include "core/base/fsutil.h"
#include "core/catalog/gpucode.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/resolve/plan.h"
#include "core/base/proc.h"
#include "core/install/record.h"
#include "core/verify/verify_report.h"
#include "core/verify/verifyrec.h"
#include "core/base/str.h"

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
    if (cu_write_file_atomic(src, cu_verify_saxpy_src, strlen(cu_verify_saxpy_src), 0644, &err) != CU_OK) {
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
    if (!cu_verify_read_install(o->dir, &in)) {
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

