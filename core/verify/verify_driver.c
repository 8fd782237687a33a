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
#include "core/catalog/catalog.h"
#include "core/machine/sysinfo.h"
#include "core/verify/checks.h"
#include "core/verify/verify.h"

bool
cu_verify_has_driver(const struct cu_facts *f)
{
    return f && (f->driver.kind == CU_DRIVER_NVIDIA || f->driver.kind == CU_DRIVER_WSL);
}

void
cu_verify_check_driver(const struct cu_verify_opts *o, const struct cu_cuda_install *in, struct cu_checks *out)
{
    const struct cu_driver_info *d = &o->facts->driver;
    char b1[32], b2[32], b3[32], b4[32];
    if (!cu_verify_has_driver(o->facts)) {
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
