/* SPDX-License-Identifier: MIT */
/* cuDNN: its include/ and lib/ unpacked into the CUDA folder. */
#include "config.h"

#include "installer.h"

#include "core/base/i18n.h"

static void
inst_cudnn_plan(struct cu_plan *p)
{
    char size[32];
    bool known;
    if (!p->has_cudnn)
        return;
    for (size_t i = 0; i < p->n_downloads; i++) {
        const struct cu_plan_download *d = &p->downloads[i];
        if (d->product != CU_PRODUCT_CUDNN)
            continue;
        uint64_t sz = cu_download_size(d, &known);
        cu_plan_add_step(p, "cudnn", "install",
                         _("download cuDNN %s (the CUDA %s build, %s), check its sha256 and unpack it into %s"),
                         d->version ? d->version : "?", p->cudnn_variant,
                         known ? cu_format_bytes(sz, size, sizeof(size)) : _("size unpublished"), p->cuda_path);
    }
}

const struct cu_installer_ops inst_cudnn_ops = {
    .name = "cudnn",
    .plan = inst_cudnn_plan,
};
