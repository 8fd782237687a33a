/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "dl"
#include "core/base/dl.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"

enum cu_status
cu_dl_open(struct cu_dl *dl, const char *const *candidates, const struct cu_dl_sym *syms,
           size_t n_syms, void *table, struct cu_error *err)
{
    char first_err[200] = "";

    dl->handle = NULL;
    dl->path = NULL;
    for (const char *const *c = candidates; c && *c; c++) {
        void *h = dlopen(*c, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            cu_log_debug("dlopen %s: %s", *c, e ? e : "?");
            if (!first_err[0] && e && strstr(e, "No such file") == NULL)
                snprintf(first_err, sizeof(first_err), "%s", e);
            continue;
        }
        const char *missing = NULL;
        for (size_t i = 0; i < n_syms; i++) {
            dlerror();
            void *f = dlsym(h, syms[i].name);
            if (!f && !syms[i].optional) {
                missing = syms[i].name;
                break;
            }
            memcpy((char *)table + syms[i].offset, &f, sizeof(f));
        }
        if (missing) {
            cu_log_debug("%s lacks %s", *c, missing);
            snprintf(first_err, sizeof(first_err), "%s has no function %s", *c, missing);
            dlclose(h);
            continue;
        }
        dl->handle = h;
        dl->path = cu_xstrdup(*c);
        cu_log_debug("loaded %s", *c);
        return CU_OK;
    }
    if (first_err[0])
        return cu_error_set(err, CU_E_DRIVER, 0, "%s", first_err);
    return cu_error_set(err, CU_E_NOT_FOUND, 0, _("%s was not found"),
                        candidates && candidates[0] ? candidates[0] : "library");
}

void
cu_dl_close(struct cu_dl *dl)
{
    if (dl->handle)
        dlclose(dl->handle);
    dl->handle = NULL;
    cu_clear_ptr(&dl->path, free);
}
