/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/verify/verifyrec.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/machine/nvtypes.h"
#include "core/install/record.h"
#include "core/base/str.h"

static bool
named(const char *path, const char *stem)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(stem);
    return strncmp(base, stem, n) == 0 && (base[n] == '\0' || base[n] == '.');
}

char *
cu_verify_recorded_gone(const char *dir, const char *stem)
{
    struct cu_record *rec = NULL;
    struct cu_error err;
    if (cu_record_load(dir, &rec, &err) != CU_OK)
        return NULL;
    char *out = NULL;
    for (size_t i = 0; i < rec->n_files && !out; i++) {
        const struct cu_record_file *f = &rec->files[i];
        if (f->type == 'd' || !named(f->path, stem))
            continue;
        CU_AUTOFREE char *p = cu_path_join(dir, f->path);
        struct stat sb;
        if (lstat(p, &sb) != 0)
            out = cu_xasprintf(_("the install's record lists %s, and it is gone"), f->path);
    }
    cu_record_free(rec);
    return out;
}

bool
cu_verify_record_cudnn(const char *dir, struct cu_version *out)
{
    struct cu_record *rec = NULL;
    struct cu_error err;
    if (cu_record_load(dir, &rec, &err) != CU_OK)
        return false;
    bool ok = rec->cudnn_version && cu_version_parse(rec->cudnn_version, out);
    cu_record_free(rec);
    return ok;
}

/* The file the loader took libcuda.so.1 from, when this process has it loaded. Caller frees. */
static char *
loaded_libcuda(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return NULL;
    struct link_map *lm = NULL;
    char *path = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name)
        path = cu_xstrdup(lm->l_name);
    dlclose(h);
    return path;
}

char *
cu_verify_unreachable(const char *rt_path, const char *call, int code, const char *code_text, char **fix_out)
{
    const char *name = code == CUDA_ERROR_STUB_LIBRARY         ? "CUDA_ERROR_STUB_LIBRARY"
                       : code == cudaErrorInsufficientDriver ? "cudaErrorInsufficientDriver"
                                                             : "error";
    CU_AUTOFREE char *libcuda = loaded_libcuda();
    CU_AUTOFREE char *where = libcuda ? cu_xasprintf(_("it loaded %s"), libcuda)
                                      : cu_xstrdup(_("no libcuda.so.1 was loaded"));
    const char *fix;
    if (code == CUDA_ERROR_STUB_LIBRARY)
        fix = _("take the toolkit's stubs folder (lib64/stubs) out of LD_LIBRARY_PATH: its libcuda.so only stands in "
                "for the driver's when programs are linked");
    else if (libcuda)
        fix = _("make the driver's own libcuda.so.1 the one the loader finds first (check LD_LIBRARY_PATH and "
                "`ldconfig -p | grep libcuda`), or install a driver new enough for this CUDA");
    else
        fix = _("put the driver's libcuda.so.1 where the loader looks (`ldconfig -p | grep libcuda` lists none), "
                "or reinstall the driver's libraries at the version of its kernel module");
    /* The cause, and its fix apart: said once, not beside a generic one (issue 35). */
    *fix_out = cu_xstrdup(fix);
    return cu_xasprintf(_("the driver is loaded, but this install's libcudart (%s) could not reach the GPU: "
                          "%s() returned %s (%d: %s); %s"),
                        rt_path, call, name, code, code_text ? code_text : "?", where);
}
