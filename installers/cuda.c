/* SPDX-License-Identifier: MIT */
/* The CUDA toolkit: its component archives, merged into PREFIX/cuda-X.Y. */
#include "config.h"

#include "installer.h"

#include <string.h>

#include "core/i18n.h"

static void
inst_cuda_plan(struct cu_plan *p)
{
    char size[32], mm[16];
    uint64_t bytes = 0;
    size_t n = 0;
    for (size_t i = 0; i < p->n_downloads; i++)
        if (p->downloads[i].product == CU_PRODUCT_CUDA) {
            bytes += p->downloads[i].size_unknown ? 0 : p->downloads[i].size; /* a bound, not a size */
            n++;
        }
    cu_plan_add_step(p, "cuda", "install",
                     ngettext_("download %zu archive (%s), check its sha256 and unpack it into %s",
                               "download %zu archives (%s), check their sha256 and unpack them into %s", n),
                     n, cu_format_bytes(bytes, size, sizeof(size)), p->cuda_path);
    cu_plan_add_step(p, "cuda", "link", _("point %s/cuda at cuda-%s and lib64 at lib"), p->prefix,
                     cu_plan_cuda_mm(p, mm, sizeof(mm)));
}

const struct cu_installer_ops inst_cuda_ops = {
    .name = "cuda",
    .plan = inst_cuda_plan,
};
