/* SPDX-License-Identifier: MIT */
/*
 * What `repair` will do for the driver, worked out before it runs (installers/driver.h): the running
 * kernel's headers before a DKMS rebuild (the data's running_headers), the signed module packages, the
 * blacklist, the reload, the hold.  The same choices inst_driver_repair (driver_repair.c) carries out.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "driver_repair_plan.h"

bool
drv_has_code(const struct cu_problems *pr, const char *code)
{
    for (size_t i = 0; i < pr->n; i++)
        if (strcmp(pr->v[i].code, code) == 0)
            return true;
    return false;
}

/* The branch repair works on: the running driver's, else its libraries'. */
int
drv_repair_branch(const struct cu_facts *f)
{
    const struct cu_drv_state *s = f->drv;
    return f->driver.version.n ? (int)f->driver.version.part[0] : s && s->lib_version.n ? (int)s->lib_version.part[0] : 0;
}

/* The install command of @manager, as words (apt-get, dnf, zypper, pacman). */
const char *
drv_install_words(const char *manager)
{
    return strcmp(manager, "apt") == 0      ? "apt-get install -y"
           : strcmp(manager, "dnf") == 0    ? "dnf install -y"
           : strcmp(manager, "zypper") == 0 ? "zypper --non-interactive install"
                                            : "pacman -S --noconfirm --needed";
}

/*
 * The packages with the running kernel's headers (the data's running_headers, {R} its release), which DKMS
 * needs to build for it: after a kernel update the metas that follow the kernel may not have brought them
 * (they were never installed, or the update came without them).  None in a machine image (no kernel runs
 * there: its kernels' headers are the image's own) or where the release is not known.
 */
void
drv_running_headers(const struct cu_drv_pkg *row, const struct cu_facts *f, int branch, bool image, struct cu_strv *out)
{
    const struct cu_drv_state *s = f->drv;
    if (!row || image || !s || !s->kernel_release || !*s->kernel_release)
        return;
    for (char **h = row->running_headers; h && *h; h++)
        cu_strv_push_owned(out, cu_drv_expand_row(row, *h, branch, f));
}

/* The signed module packages repair installs: the row's meta, and the running kernel's own one. */
void
drv_signed_packages(const struct cu_drv_pkg *row, const struct cu_facts *f, int branch, bool image, char **meta, char **own)
{
    const struct cu_drv_state *s = f->drv;
    *meta = *own = NULL;
    if (!row || !row->signed_modules[0])
        return;
    *meta = cu_drv_expand_row(row, row->signed_modules[0], branch, f);
    /* The running kernel's own module package too: the meta follows one kernel flavour's meta, and after a
     * kernel update (an HWE kernel, say) it may not have this kernel's (packages.ubuntu.com names them
     * linux-modules-nvidia-580-6.8.0-45-generic: the meta's name with the release for the flavour). */
    const char *k = strstr(row->signed_modules[0], "{KM}"); /* the kernel meta's name, or its flavour's */
    size_t kn = 4;
    if (!k) {
        k = strstr(row->signed_modules[0], "{K}");
        kn = 3;
    }
    if (k && s && s->kernel_release && !image) {
        CU_AUTOFREE char *tmpl = cu_xasprintf("%.*s{R}%s", (int)(k - row->signed_modules[0]), row->signed_modules[0], k + kn);
        *own = cu_drv_expand_row(row, tmpl, branch, f);
    }
}

void
inst_driver_repair_plan(const struct cu_facts *f, const struct cu_catalog *cat, const struct cu_problems *pr, bool image,
                        struct cu_strv *lines)
{
    const struct cu_drv_state *s = f->drv;
    int branch = drv_repair_branch(f);
    const struct cu_drv_pkg *row = branch ? cu_drv_row_for(f, cat, branch, s ? s->flavor : NULL) : NULL;
    const struct cu_drv_pkg *any = row ? row : cu_drv_row_for(f, cat, 0, NULL);
    const char *krel = s && s->kernel_release ? s->kernel_release : "?";
    if (drv_has_code(pr, "nouveau"))
        cu_strv_push_owned(lines, cu_xasprintf(_("keep nouveau from loading (a blacklist file), then rebuild the initramfs: %s"),
                                               any && any->initramfs ? any->initramfs : "update-initramfs -u"));
    bool missing = drv_has_code(pr, "driver-module-missing"), unsigned_sb = drv_has_code(pr, "driver-unsigned-secure-boot");
    if (missing || unsigned_sb) {
        CU_AUTOFREE char *meta = NULL, *own = NULL;
        drv_signed_packages(row, f, branch, image, &meta, &own);
        if (meta) {
            cu_strv_push_owned(lines, cu_xasprintf(_("install the signed module packages: apt-get install -y %s%s%s"), meta,
                                                   own ? " " : "", own ? own : ""));
        } else {
            struct cu_strv h;
            cu_strv_init(&h);
            drv_running_headers(row, f, branch, image, &h);
            if (h.n) {
                CU_AUTOFREE char *list = cu_strv_join(&h, " ");
                cu_strv_push_owned(lines, cu_xasprintf(_("install the headers of the running kernel %s: %s %s"), krel,
                                                       drv_install_words(row->manager), list));
            }
            cu_strv_fini(&h);
            cu_strv_push_owned(lines, cu_xasprintf(_("rebuild the nvidia module with DKMS for each kernel with headers (the running one: %s): dkms remove, then dkms install"),
                                                   krel));
            if (unsigned_sb)
                cu_strv_push_owned(lines, cu_xasprintf(_("queue its signing key for enrolment: mokutil --import %s"),
                                                       row && row->mok_cert ? row->mok_cert : "/var/lib/dkms/mok.pub"));
        }
    }
    if ((missing && !unsigned_sb) || drv_has_code(pr, "driver-mismatch"))
        if (!image)
            cu_strv_push(lines, _("reload the module: modprobe -r nvidia_uvm nvidia_drm nvidia_modeset nvidia, then modprobe nvidia"));
    if (drv_has_code(pr, "driver-unpinned") && s)
        cu_strv_push_owned(lines, cu_xasprintf(_("hold the driver's branch %d (%s)"), branch, row ? row->pin : "apt-mark hold"));
}

