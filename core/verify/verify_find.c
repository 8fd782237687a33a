/* SPDX-License-Identifier: MIT */
/*
 * Finding things in an install, for both sides of verify: the install's library by its stem
 * (cu_install_lib, verify.h) and what the install is (cu_verify_read_install, verify_int.h).
 */
#include "config.h"

#include "core/verify/verify_int.h"

#include <stdbool.h>
#include <unistd.h>

#include "core/base/error.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/base/sysroot.h"
#include "core/machine/sysinfo.h"
#include "core/verify/verify.h"

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

bool
cu_verify_read_install(const char *dir, struct cu_cuda_install *in)
{
    struct cu_sysroot host;
    struct cu_error err;
    if (cu_sysroot_init(&host, "/", &err) != CU_OK)
        return false;
    bool ok = cu_cuda_install_read(&host, dir, in);
    cu_sysroot_fini(&host);
    return ok;
}
