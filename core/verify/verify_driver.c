/* SPDX-License-Identifier: MIT */
/*
 * The NVIDIA driver, as verify sees it: whether one is loaded (cu_verify_has_driver, which the GPU
 * and framework checks ask before doing GPU work) and the driver check: it runs this install's CUDA.
 */
#include "config.h"

#include "core/verify/verify_int.h"

#include <stdbool.h>

#include "core/base/i18n.h"
#include "core/base/parse.h"
#include "core/base/mem.h"
#include "core/catalog/catalog.h"
#include "core/resolve/runs.h"
#include "core/machine/sysinfo.h"
#include "core/verify/checks.h"
#include "core/verify/verify.h"

bool
cu_verify_has_driver(const struct cu_facts *f)
{
    return f && (f->driver.kind == CU_DRIVER_NVIDIA || f->driver.kind == CU_DRIVER_WSL);
}

/* The fix of a driver too old for the install: a command that plans the driver it needs (with the CUDA
 * pinned, --driver auto plans a newer branch; unpinned it would keep the driver and pick an older CUDA,
 * changing nothing), or, on WSL2, the Windows driver, which no Linux package replaces. */
static char *
driver_fix(const struct cu_driver_info *d, const struct cu_version *m)
{
    char b[32];
    cu_version_format(m, 2, b, sizeof(b));
    if (d->kind == CU_DRIVER_WSL)
        return cu_tr_asprintf(_("install a newer NVIDIA driver on Windows: WSL2 runs the Windows driver, and no Linux driver package replaces it"));
    return cu_tr_asprintf(_("cudaup plan --cuda %s --driver auto names the driver cudaup would install for CUDA %s (cudaup install with the same options installs it)"),
                          b, b);
}

void
cu_verify_check_driver(const struct cu_verify_opts *o, const struct cu_cuda_install *in, struct cu_checks *out)
{
    const struct cu_driver_info *d = &o->facts->driver;
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    if (!cu_verify_has_driver(o->facts)) {
        cu_checks_add(out, "driver", o->require_gpu ? CU_CHECK_FAIL : CU_CHECK_SKIP, "%s",
                      d->kind == CU_DRIVER_NOUVEAU ? _("the nouveau driver is loaded, not NVIDIA's")
                                                   : _("no NVIDIA driver is loaded"));
        return;
    }
    const char *dv = d->version.n ? cu_driver_version_format(&d->version, b1, sizeof(b1)) : "?";
    const char *own = d->cuda_max.n ? cu_version_format(&d->cuda_max, 0, b2, sizeof(b2)) : "?";
    if (!in->version.n) {
        cu_checks_add(out, "driver", CU_CHECK_PASS, _("NVIDIA %s, runs CUDA up to %s"), dv, own);
        return;
    }
    /* The resolver's rule (core/resolve/runs.c): what a plan takes by minor-version compatibility passes here. */
    struct cu_version m = {{in->version.part[0], in->version.part[1]}, 2};
    const char *mv = cu_version_format(&m, 0, b3, sizeof(b3));
    struct cu_runs_how how;
    CU_AUTOFREE char *limit = NULL;
    switch (cu_driver_runs_cuda(o->cat, &d->version, &d->cuda_max, &in->version, &how)) {
    case CU_RUNS_NATIVE:
        cu_checks_add(out, "driver", CU_CHECK_PASS, _("NVIDIA %s, runs CUDA up to %s"), dv,
                      how.own.n ? cu_version_format(&how.own, 0, b2, sizeof(b2)) : own);
        return;
    case CU_RUNS_COMPAT:
        limit = cu_runs_limit(&how, &m);
        if (how.inferred)
            cu_checks_add(out, "driver", CU_CHECK_PASS,
                          _("NVIDIA %s runs CUDA %s by NVIDIA's minor-version compatibility (CUDA %u.x on driver %s or newer), inferred: no source cudaup has read gives the driver CUDA %s needs natively; %s"),
                          dv, mv, m.part[0], cu_driver_version_format(&how.floor, b4, sizeof(b4)), mv, limit);
        else
            cu_checks_add(out, "driver", CU_CHECK_PASS,
                          _("NVIDIA %s runs CUDA %s by NVIDIA's minor-version compatibility (CUDA %u.x on driver %s or newer): %s"),
                          dv, mv, m.part[0], cu_driver_version_format(&how.floor, b4, sizeof(b4)), limit);
        return;
    case CU_RUNS_NOT: {
        char *detail;
        if (how.floor.n && how.native.n && cu_version_cmp(&how.floor, &how.native) < 0)
            detail = cu_tr_asprintf(_("the driver %s runs CUDA up to %s, but this install is %s; it needs driver %s or newer by NVIDIA's minor-version compatibility (CUDA %u.x), %s natively"),
                                    dv, own, mv, cu_driver_version_format(&how.floor, b4, sizeof(b4)), m.part[0],
                                    cu_driver_version_format(&how.native, b5, sizeof(b5)));
        else if (how.native.n)
            detail = cu_tr_asprintf(_("the driver %s runs CUDA up to %s, but this install is %s; it needs driver %s or newer"),
                                    dv, own, mv, cu_driver_version_format(&how.native, b5, sizeof(b5)));
        else if (how.floor.n)
            detail = cu_tr_asprintf(_("the driver %s runs CUDA up to %s, but this install is %s; no source cudaup has read gives the driver it needs natively, and by NVIDIA's minor-version compatibility it needs driver %s or newer"),
                                    dv, own, mv, cu_driver_version_format(&how.floor, b4, sizeof(b4)));
        else
            detail = cu_tr_asprintf(_("the driver %s runs CUDA up to %s, but this install is %s, of a newer major"), dv, own, mv);
        cu_checks_add_fix(out, "driver", CU_CHECK_FAIL, detail, driver_fix(d, &m));
        return;
    }
    case CU_RUNS_UNKNOWN:
    default:
        /* Said as what it is: no source tells, and the GPU checks after it show whether the driver runs it. */
        cu_checks_add(out, "driver", CU_CHECK_SKIP,
                      _("NVIDIA %s (runs CUDA up to %s): no source cudaup has read says which driver CUDA %s needs, natively or by minor-version compatibility; the GPU checks show whether this one runs it"),
                      dv, own, mv);
        return;
    }
}
