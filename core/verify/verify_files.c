/* SPDX-License-Identifier: MIT */
/*
 * The checks of the install's tree, run in the parent: files (every recorded file as installed,
 * or, without a record, what every toolkit has) and nvcc (that it runs, is the install's release,
 * and compiles the test kernel to PTX).
 */
#include "config.h"

#define CU_LOG_TAG "verify"
#include "core/verify/verify_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/install/record.h"
#include "core/machine/sysinfo.h"
#include "core/verify/checks.h"
#include "core/verify/verify.h"
#include "core/verify/verify_rt.h"
#include "core/verify/verifyrec.h"

void
cu_verify_check_files(const struct cu_verify_opts *o, const struct cu_cuda_install *in, struct cu_checks *out)
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

void
cu_verify_check_nvcc(const struct cu_verify_opts *o, const struct cu_cuda_install *in, struct cu_checks *out)
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
