/* SPDX-License-Identifier: MIT */
/* doctor's view of the driver from inside a container (core/doctor/container_doctor.h). */
#include "config.h"

#include "core/doctor/container_doctor.h"

#include <string.h>

#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/machine/nvtypes.h"

static void
add(struct cu_container_finding *out, size_t max, size_t *n, const char *code, enum cu_severity sev, char *message,
    char *fix)
{
    if (*n >= max) {
        free(message);
        free(fix);
        return;
    }
    out[(*n)++] = (struct cu_container_finding){code, sev, message, fix};
}

size_t
cu_container_driver_findings(const struct cu_facts *f, const struct cu_catalog *cat, const struct cu_version *best,
                             const struct cu_version *need, struct cu_container_finding *out, size_t max)
{
    const struct cu_driver_info *d = &f->driver;
    char b1[32], b2[32], b3[32], b4[32];
    size_t n = 0;

    if (!f->container.inside || (f->n_gpus == 0 && d->kind != CU_DRIVER_WSL))
        return 0; /* no GPU seen: check_gpus says so, with --gpus all in its fix */
    if (d->kind == CU_DRIVER_NOUVEAU) {
        add(out, max, &n, "container-nouveau", CU_SEV_ERROR,
            cu_xstrdup(_("The host's GPU is held by nouveau, the open-source driver, which runs no CUDA; a container shares the host's kernel and cannot change that.")),
            cu_xstrdup(_("On the host, not in this container: install the NVIDIA driver (it keeps nouveau out) and reboot the host; then start this container with the GPU: `docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...`.")));
        return n;
    }
    if (d->kind == CU_DRIVER_NONE) {
        char *msg = d->nvml_path || d->libcuda_path
                        ? cu_xstrdup(_("This container sees no NVIDIA driver: it was started without the GPU, or the host has none; the driver's libraries in this container do not start without it."))
                        : cu_xstrdup(_("This container sees no NVIDIA driver: it was started without the GPU, or the host has none."));
        char *fix = best && best->n
                        ? cu_xasprintf(_("Start this container with the GPU: `docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...` (the NVIDIA Container Toolkit on the host puts the driver's libraries in). The host needs NVIDIA driver %s or newer (it runs CUDA %s): install it on the host, not in this container."),
                                       cu_driver_version_format(need, b1, sizeof(b1)), cu_version_format(best, 0, b2, sizeof(b2)))
                        : cu_xstrdup(_("Start this container with the GPU: `docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...` (the NVIDIA Container Toolkit on the host puts the driver's libraries in), on a host with the NVIDIA driver installed (install it on the host, not in this container)."));
        add(out, max, &n, "container-no-driver", CU_SEV_ERROR, msg, fix);
        return n;
    }
    const char *ver = d->version.n ? cu_driver_version_format(&d->version, b1, sizeof(b1)) : "?";
    if (d->kind == CU_DRIVER_NVIDIA && !d->libcuda_path)
        add(out, max, &n, "container-no-libcuda", CU_SEV_ERROR,
            cu_xasprintf(_("The host's NVIDIA driver %s is visible, but this container was started without its libraries (no libcuda.so.1), so no CUDA program can run in it."),
                         ver),
            cu_xstrdup(_("Start this container with the GPU: `docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...` (the NVIDIA Container Toolkit on the host puts in the libraries of the host's driver). Do not install the driver's packages in the image: they would not match the host's driver.")));
    /* The host's module and the libraries in the container: an image that carries its own driver libraries. */
    if ((d->nvml_error && strstr(d->nvml_error, "mismatch")) || d->libcuda_result == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH ||
        (d->kind == CU_DRIVER_NVIDIA && d->version.n && d->lib_version.n && cu_version_cmp(&d->version, &d->lib_version) != 0))
        add(out, max, &n, "container-driver-mismatch", CU_SEV_ERROR,
            d->lib_version.n && cu_version_cmp(&d->version, &d->lib_version) != 0
                ? cu_xasprintf(_("The host's NVIDIA driver is %s, but the driver's libraries in this container are %s: the image carries its own (\"Driver/library version mismatch\")."),
                               ver, cu_driver_version_format(&d->lib_version, b2, sizeof(b2)))
                : cu_xstrdup(_("The host's NVIDIA driver and the driver's libraries in this container are different releases: the image carries its own (\"Driver/library version mismatch\").")),
            cu_xstrdup(_("Remove the driver's packages from the image (libnvidia-compute-*, libcuda1, nvidia-driver-*) and start the container with the GPU (`docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...`), so that the libraries of the host's driver are the ones put in.")));
    if (d->libcuda_result == CUDA_ERROR_NO_DEVICE)
        add(out, max, &n, "cuda-no-device", CU_SEV_ERROR, cu_xstrdup(_("The driver is loaded, but CUDA sees no GPU.")),
            cu_xstrdup(_("Start this container with the GPU (`docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...`), and check that NVIDIA_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES do not hide it.")));
    if (!d->version.n)
        return n;
    if (!d->cuda_max.n) {
        add(out, max, &n, "container-driver-too-old", CU_SEV_ERROR,
            cu_xasprintf(_("The NVIDIA driver %s is older than any CUDA release cudaup knows."), ver),
            cu_xstrdup(_("Update the NVIDIA driver on the host (not in this container), then start the container again.")));
        return n;
    }
    for (size_t i = 0; i < f->n_gpus; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        struct cu_version first, drv;
        if (!g->cc.n || !cu_catalog_cuda_first_for_cc(cat, &g->cc, &first))
            continue;
        if (cu_version_cmp(&first, &d->cuda_max) > 0 && cu_catalog_cuda_min_driver(cat, &first, &drv)) {
            add(out, max, &n, "container-driver-too-old-for-gpu", CU_SEV_ERROR,
                cu_xasprintf(_("GPU %d (%s) needs CUDA %s or newer, but the driver %s runs CUDA up to %s."), g->index, g->name,
                             cu_version_format(&first, 0, b2, sizeof(b2)), ver, cu_version_format(&d->cuda_max, 0, b3, sizeof(b3))),
                cu_xasprintf(_("Update the NVIDIA driver on the host (not in this container) to %s or newer, then start the container again."),
                             cu_driver_version_format(&drv, b4, sizeof(b4))));
            return n;
        }
    }
    if (best && best->n && cu_version_cmp(&d->cuda_max, best) < 0)
        add(out, max, &n, "driver-update-available", CU_SEV_INFO,
            cu_xasprintf(_("The driver %s runs CUDA up to %s; CUDA %s would need driver %s."), ver,
                         cu_version_format(&d->cuda_max, 0, b2, sizeof(b2)), cu_version_format(best, 0, b3, sizeof(b3)),
                         cu_driver_version_format(need, b4, sizeof(b4))),
            cu_xstrdup(_("Nothing needs doing: cudaup picks a CUDA this driver runs. Update the host's driver to use newer CUDA releases.")));
    return n;
}

json_t *
cu_container_json(const struct cu_container_info *c)
{
    if (!c->inside)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "engine", c->engine[0] ? json_string(c->engine) : json_null());
    json_object_set_new(o, "evidence", json_string(c->evidence));
    return o;
}
