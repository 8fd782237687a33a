/* SPDX-License-Identifier: MIT */
/*
 * The toolkit of an environment's compiler wheels where they keep one folder per component (CUDA 12's
 * site-packages/nvidia/cuda_nvcc, cuda_runtime, cuda_cccl, ...): a view of links inside the environment, with
 * the bin/, include/, lib/ and nvvm/ of a toolkit, which CUDA_HOME names (--toolkit wheels, issue 50).
 * CUDA 13's wheels share one folder (nvidia/cu13) and need no view.
 */
#include "config.h"

#include "core/install/envfile.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"

static const char *const parts[] = {"bin", "include", "lib"};

/* Link every entry of @from into @to (made), where @to has none of that name yet. */
static enum cu_status
link_entries(const char *from, const char *to, struct cu_error *err)
{
    DIR *d = opendir(from);
    if (!d)
        return CU_OK;
    enum cu_status st = cu_mkdir_p(to, 0755, err);
    struct dirent *e;
    while (st == CU_OK && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || strcmp(e->d_name, "__pycache__") == 0 ||
            strcmp(e->d_name, "__init__.py") == 0)
            continue;
        CU_AUTOFREE char *src = cu_path_join(from, e->d_name);
        CU_AUTOFREE char *dst = cu_path_join(to, e->d_name);
        struct stat sb;
        if (lstat(dst, &sb) == 0)
            continue; /* the first component that has it wins (headers several wheels share) */
        if (symlink(src, dst) != 0)
            st = cu_error_set(err, CU_E_IO, errno, _("cannot link %s to %s"), dst, src);
    }
    closedir(d);
    return st;
}

enum cu_status
cu_env_toolkit_view(const char *nvidia_dir, const char *view, struct cu_error *err)
{
    enum cu_status st;
    if (!cu_is_dir(nvidia_dir))
        return cu_error_set(err, CU_E_IO, ENOENT, _("%s is not there: pip installed no CUDA wheels"), nvidia_dir);
    /* The view is cudaup's own: made again from what pip installed. */
    if ((st = cu_rm_rf(view, err)) != CU_OK || (st = cu_mkdir_p(view, 0755, err)) != CU_OK)
        return st;
    DIR *d = opendir(nvidia_dir);
    if (!d)
        return cu_error_set(err, CU_E_IO, errno, _("cannot read %s"), nvidia_dir);
    struct cu_strv comps;
    cu_strv_init(&comps);
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && strcmp(e->d_name, "__pycache__") != 0)
            cu_strv_push(&comps, e->d_name);
    closedir(d);
    /* The compiler's own folder first, so that its files win where another wheel has one of the same name. */
    cu_strv_sort(&comps);
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = 0; st == CU_OK && i < comps.n; i++) {
            if ((strcmp(comps.v[i], "cuda_nvcc") == 0) != (pass == 0))
                continue;
            CU_AUTOFREE char *comp = cu_path_join(nvidia_dir, comps.v[i]);
            for (size_t k = 0; st == CU_OK && k < CU_N_ELEMENTS(parts); k++) {
                CU_AUTOFREE char *from = cu_path_join(comp, parts[k]);
                CU_AUTOFREE char *to = cu_path_join(view, parts[k]);
                st = link_entries(from, to, err);
            }
            CU_AUTOFREE char *nvvm = cu_path_join(comp, "nvvm");
            CU_AUTOFREE char *vnvvm = cu_path_join(view, "nvvm");
            if (st == CU_OK && cu_is_dir(nvvm) && !cu_path_exists(vnvvm) && symlink(nvvm, vnvvm) != 0)
                st = cu_error_set(err, CU_E_IO, errno, _("cannot link %s to %s"), vnvvm, nvvm);
        }
    cu_strv_fini(&comps);
    /* Build systems look in lib64 (torch.utils.cpp_extension among them). */
    CU_AUTOFREE char *lib64 = cu_path_join(view, "lib64");
    if (st == CU_OK && !cu_path_exists(lib64) && symlink("lib", lib64) != 0)
        st = cu_error_set(err, CU_E_IO, errno, _("cannot link %s to %s"), lib64, "lib");
    return st;
}
