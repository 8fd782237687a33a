/* SPDX-License-Identifier: MIT */
/*
 * The driver inside a container (issue 48 item 1): the host's driver serves it, so its plan is never a driver
 * step (no package, modprobe, nouveau blacklist, initramfs, MOK or branch hold: a container cannot load a
 * module, and in a privileged one modprobe acts on the host's kernel).  What the plan says instead: which
 * driver of the host it sees, or how to start the container with the GPU.  Called by cu_drv_choose only.
 */
#include "config.h"

#include "core/resolve/driver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"

static void
say(struct cu_strv *reasons, const char *fmt, ...) CU_PRINTF(2, 3);
static void
say(struct cu_strv *reasons, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cu_i18n_push_noted(reasons, fmt, ap);
    va_end(ap);
}

char *
cu_drv_container_where(const struct cu_container_info *c)
{
    const char *title = cu_container_engine_title(c);
    return title ? cu_tr_asprintf(_("%s, seen in %s"), title, c->evidence) : cu_tr_asprintf(_("seen in %s"), c->evidence);
}

bool
cu_drv_container(const struct cu_facts *f, const char *mode, struct cu_strv *reasons, char **refusal, char **advice)
{
    const struct cu_driver_info *d = &f->driver;
    CU_AUTOFREE char *where = cu_drv_container_where(&f->container);
    char b[32];
    *refusal = *advice = NULL;
    if (strcmp(mode, "auto") != 0 && strcmp(mode, "keep") != 0 && strcmp(mode, "none") != 0) {
        /* An explicit branch cannot be had here: said, with what does work, before anything is touched. */
        *refusal = cu_tr_asprintf(_("--driver %s: cudaup runs inside a container (%s), which cannot install or load a driver: the host's driver serves it."),
                                  mode, where);
        *advice = cu_tr_asprintf(_("Install the driver on the host (there, `cudaup install --driver %s`), start this container with the GPU (`docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...`), and run cudaup here with --driver keep."),
                                 mode);
        return true;
    }
    say(reasons, _("cudaup runs inside a container (%s): the host's NVIDIA driver serves it, and a container cannot install or load a driver (its modprobe would act on the host's kernel), so no driver step is planned."),
        where);
    bool seen = (d->kind == CU_DRIVER_NVIDIA || d->kind == CU_DRIVER_WSL) && d->version.n;
    if (seen) {
        cu_driver_version_format(&d->version, b, sizeof(b));
        const char *from = d->kernel_module ? "/proc/driver/nvidia/version" : d->nvml_path ? "NVML" : "libcuda.so.1";
        if (d->libcuda_path)
            say(reasons, _("The host's driver is %s (read from %s), and this container has its libcuda.so.1."), b,
                from);
        else
            say(reasons, _("The host's driver %s is visible (read from %s), but this container was started without its libraries (no libcuda.so.1): start it with the GPU, `docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...` (the NVIDIA Container Toolkit on the host puts them in)."),
                b, from);
    } else if (d->kind == CU_DRIVER_NVIDIA) {
        say(reasons, _("The host's driver runs (this container's libcuda.so.1 starts), but does not say its release."));
    } else if (d->kind == CU_DRIVER_NOUVEAU) {
        say(reasons, _("The host's GPU is held by nouveau, which runs no CUDA: install the NVIDIA driver on the host (not in this container), then start this container with the GPU: `docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...`."));
    } else {
        say(reasons, _("This container sees no NVIDIA driver: start it with the GPU, `docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...`, on a host whose NVIDIA driver is installed (install it on the host, not in this container)."));
    }
    return false;
}
