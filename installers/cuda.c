/* SPDX-License-Identifier: MIT */
/* The CUDA toolkit: its component archives, merged into PREFIX/cuda-X.Y. */
#include "config.h"

#include "installer.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/fsutil.h"

static void
inst_cuda_plan(struct cu_plan *p)
{
    char b[32], size[96], mm[16];
    uint64_t bytes = 0;
    size_t n = 0, unknown = 0;
    if (!cu_plan_system_toolkit(p)) /* --toolkit wheels or none: no archive (the plan's toolkit reason says why) */
        return;
    for (size_t i = 0; i < p->n_downloads; i++)
        if (p->downloads[i].product == CU_PRODUCT_CUDA) {
            bool known;
            uint64_t sz = cu_download_size(&p->downloads[i], &known); /* a bound is not a size */
            if (!known)
                unknown++;
            else
                bytes += sz;
            n++;
        }
    /* NVIDIA publishes no size for its runfiles: say so rather than "0 B". */
    if (unknown && unknown == n)
        snprintf(size, sizeof(size), "%s", _("its size not published"));
    else if (unknown)
        snprintf(size, sizeof(size), _("%s, and %zu of a size not published"), cu_format_bytes(bytes, b, sizeof(b)),
                 unknown);
    else
        cu_format_bytes(bytes, size, sizeof(size));
    cu_plan_add_step(p, "cuda", "install",
                     ngettext_("download %zu archive (%s), check its sha256 and unpack it into %s",
                               "download %zu archives (%s), check their sha256 and unpack them into %s", n),
                     n, size, p->cuda_path);
    /* A link of the user's to another toolkit is said, with what uninstall does with it (it is kept beside the
     * install's record and put back). */
    CU_AUTOFREE char *link = cu_path_join(p->prefix, "cuda");
    char cur[4096];
    ssize_t ln = readlink(link, cur, sizeof(cur) - 1);
    cu_plan_cuda_mm(p, mm, sizeof(mm));
    if (ln > 0) {
        cur[ln] = '\0';
        CU_AUTOFREE char *ours = cu_xasprintf("cuda-%s", mm);
        if (strcmp(cur, ours) != 0 && strcmp(cur, p->cuda_path) != 0) {
            cu_plan_add_step(p, "cuda", "link",
                             _("point %s/cuda at cuda-%s and lib64 at lib (it points at %s now; uninstalling CUDA %s points it back there)"),
                             p->prefix, mm, cur, mm);
            return;
        }
    }
    cu_plan_add_step(p, "cuda", "link", _("point %s/cuda at cuda-%s and lib64 at lib"), p->prefix, mm);
}

const struct cu_installer_ops inst_cuda_ops = {
    .name = "cuda",
    .plan = inst_cuda_plan,
};
