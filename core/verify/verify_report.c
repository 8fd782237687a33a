/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "verify"
#include "core/verify/verify_report.h"

#include <string.h>

#include "core/base/i18n.h"
#include "core/base/log.h"

static const struct {
    const char *name;
    enum cu_check_fix fix;
} fixes[] = {
    {"files", CU_FIX_REPAIR},      {"nvcc", CU_FIX_NVCC},        {"cudart", CU_FIX_REPAIR},
    {"nvrtc", CU_FIX_REPAIR},      {"cudnn", CU_FIX_REPAIR},     {"python", CU_FIX_REPAIR},
    {"driver", CU_FIX_DRIVER},     {"device", CU_FIX_GPU},       {"gpu-kernel", CU_FIX_GPU},
    {"bandwidth", CU_FIX_GPU},     {"cudnn-conv", CU_FIX_GPU},   {"framework", CU_FIX_FRAMEWORK},
};

enum cu_check_fix
cu_check_fix_kind(const struct cu_check *c)
{
    if (c->status != CU_CHECK_FAIL)
        return CU_FIX_NONE;
    if (c->fix)
        return CU_FIX_OWN; /* it knows its cause: no generic fix beside it */
    /* A sentence with advice of its own other than repair (install again, …) says what to do; a
     * generic fix beside it would say something else (repair cannot restore a lost record). */
    if (c->fact && c->adv != CU_ADV_REPAIR && c->adv != CU_ADV_NONE)
        return CU_FIX_NONE;
    for (size_t i = 0; i < CU_N_ELEMENTS(fixes); i++)
        if (strcmp(c->name, fixes[i].name) == 0)
            return fixes[i].fix;
    return CU_FIX_GPU; /* a check this table does not know yet: doctor looks at the whole machine */
}

const char *
cu_check_fix(const struct cu_check *c)
{
    switch (cu_check_fix_kind(c)) {
    case CU_FIX_OWN:
        return c->fix;
    case CU_FIX_REPAIR:
        return _("cudaup repair restores the install from its record");
    case CU_FIX_NVCC:
        return _("cudaup repair restores nvcc's files from the install's record; to compile, nvcc also needs a host C++ compiler (g++)");
    case CU_FIX_DRIVER:
        return _("install an NVIDIA driver that runs this CUDA: cudaup plan --driver auto names the one cudaup would install");
    case CU_FIX_GPU:
        return _("cudaup doctor checks the driver and the GPU (after a driver update, reboot first); cudaup repair restores the install's libraries if they are damaged");
    case CU_FIX_FRAMEWORK:
        return _("cudaup doctor checks the driver; cudaup plan names a framework build that fits this machine, and cudaup install puts it in place");
    case CU_FIX_NONE:
    default:
        return NULL;
    }
}

void
cu_checks_log(const struct cu_checks *c, const char *dir)
{
    size_t pass = 0, fail = 0, skip = 0;
    cu_log_info(_("Checking %s"), dir);
    for (size_t i = 0; i < c->n; i++) {
        const struct cu_check *k = &c->v[i];
        const char *word = k->status == CU_CHECK_PASS ? _("pass") : k->status == CU_CHECK_FAIL ? _("fail") : _("skip");
        const char *fix = cu_check_fix(k);
        pass += k->status == CU_CHECK_PASS;
        fail += k->status == CU_CHECK_FAIL;
        skip += k->status == CU_CHECK_SKIP;
        if (fix)
            cu_log_info(_("%s %s: %s (fix: %s)"), word, k->name, k->detail ? k->detail : "", fix);
        else
            cu_log_info("%s %s: %s", word, k->name, k->detail ? k->detail : "");
    }
    cu_log_info(_("%zu passed, %zu failed, %zu skipped"), pass, fail, skip);
}
