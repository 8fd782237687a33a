/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/doctor/doctor.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/doctor/container_doctor.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/machine/nvtypes.h"
#include "core/resolve/runs.h"
#include "core/base/str.h"
#include "core/resolve/driver_distro.h"

void
cu_problems_init(struct cu_problems *p)
{
    p->v = NULL;
    p->n = 0;
}

void
cu_problems_fini(struct cu_problems *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].code);
        free(p->v[i].message);
        free(p->v[i].fix);
        free(p->v[i].adv_arg);
        free(p->v[i].source);
    }
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

void
cu_problems_add(struct cu_problems *p, const char *code, enum cu_severity sev, char *message,
                char *fix)
{
    p->v = cu_xreallocarray(p->v, p->n + 1, sizeof(*p->v));
    p->v[p->n++] = (struct cu_problem){cu_xstrdup(code), sev, message, fix, CU_ADV_NONE, NULL, NULL};
}

void
cu_problems_source(struct cu_problems *p, const char *source)
{
    if (!p->n)
        return;
    struct cu_problem *last = &p->v[p->n - 1];
    free(last->source);
    last->source = source ? cu_xstrdup(source) : NULL;
}

void
cu_problems_advise(struct cu_problems *p, enum cu_advice adv, const char *arg)
{
    if (!p->n)
        return;
    struct cu_problem *last = &p->v[p->n - 1];
    last->adv = adv;
    free(last->adv_arg);
    last->adv_arg = arg ? cu_xstrdup(arg) : NULL;
}

bool
cu_problems_has_error(const struct cu_problems *p)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->v[i].severity == CU_SEV_ERROR)
            return true;
    return false;
}

const char *
cu_severity_name(enum cu_severity s)
{
    switch (s) {
    case CU_SEV_ERROR: return "error";
    case CU_SEV_WARNING: return "warning";
    case CU_SEV_INFO:
    default: return "info";
    }
}

static const char *
vstr(const struct cu_version *v, char *buf, size_t len)
{
    return cu_version_format(v, 0, buf, len);
}

/* Driver versions keep their zero-padded parts: 470.82.01, not 470.82.1. */
static const char *
dstr(const struct cu_version *v, char *buf, size_t len)
{
    return cu_driver_version_format(v, buf, len);
}

bool
cu_doctor_best_cuda(const struct cu_facts *f, const struct cu_catalog *cat, struct cu_version *cuda,
                    struct cu_version *driver)
{
    if (f->n_gpus == 0)
        return false;
    for (size_t i = 0; i < cat->n_cuda; i++) {
        const struct cu_cat_cuda *r = &cat->cuda[i];
        bool ok = r->archives && !r->driver_unknown; /* a driver to name (CUDA 13.4's is not known) */
        for (size_t g = 0; ok && g < f->n_gpus; g++) {
            if (!f->gpus[g].cc.n)
                continue;
            ok = cu_catalog_cuda_supports_cc(cat, &r->version, &f->gpus[g].cc) == 1;
        }
        if (!ok)
            continue;
        *cuda = (struct cu_version){{r->version.part[0], r->version.part[1]}, 2};
        return cu_catalog_cuda_min_driver(cat, cuda, driver);
    }
    return false;
}

char *
cu_doctor_driver_hint(const struct cu_facts *f, const struct cu_catalog *cat)
{
    /* The distribution's own way, from its row of data/driver/distributions.csv (a derivative's, else its base's). */
    char *h = cu_drv_distro_hint(f, cat);
    return h ? h : cu_xstrdup(_("Use your distribution's NVIDIA driver package or NVIDIA's installer, then reboot."));
}

static void
check_gpus(const struct cu_facts *f, const struct cu_catalog *cat, struct cu_problems *out)
{
    char b1[32], b2[32];

    if (f->n_gpus == 0) {
        if (f->os.wsl)
            cu_problems_add(out, "no-gpu", CU_SEV_ERROR,
                            cu_xstrdup(_("WSL2 sees no NVIDIA GPU.")),
                            cu_xstrdup(_("Install or update the NVIDIA driver on Windows (not inside WSL), run `wsl --update`, then restart WSL.")));
        else if (f->container.inside)
            cu_problems_add(out, "no-gpu", CU_SEV_ERROR, cu_xstrdup(_("No NVIDIA GPU was found.")),
                            cu_xstrdup(_("Start this container with the GPU, on a host that has one: `docker run --gpus all ...` or `podman run --device nvidia.com/gpu=all ...`.")));
        else
            cu_problems_add(out, "no-gpu", CU_SEV_ERROR,
                            cu_xstrdup(_("No NVIDIA GPU was found.")),
                            cu_xstrdup(_("Check that the GPU is seated and enabled in the firmware settings; in a virtual machine or container, pass the GPU through (for example `docker run --gpus all`).")));
        return;
    }
    for (size_t i = 0; i < f->n_gpus; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        struct cu_version last;
        if (g->kernel_driver && strcmp(g->kernel_driver, "vfio-pci") == 0)
            cu_problems_add(out, "gpu-vfio", CU_SEV_WARNING,
                            cu_xasprintf(_("GPU %d (%s) is bound to vfio-pci, which reserves it for a virtual machine."),
                                         g->index, g->name),
                            cu_xasprintf(_("Unbind %s from vfio-pci (check the vfio-pci.ids kernel option) if this host should use it."),
                                         g->bus));
        if (!g->cc.n) {
            cu_problems_add(out, "gpu-unknown", CU_SEV_WARNING,
                            cu_xasprintf(_("cudaup does not know the compute capability of GPU %d (%s, %s)."),
                                         g->index, g->name, g->pci_id),
                            cu_xstrdup(_("Load the NVIDIA driver so cudaup can ask it, or choose a version yourself with --cuda X.Y.")));
            continue;
        }
        if (!cu_catalog_cuda_last_for_cc(cat, &g->cc, &last) ||
            cu_version_cmp(&last, &(struct cu_version){{cat->archives_from.part[0],
                                                         cat->archives_from.part[1]}, 2}) < 0) {
            cu_problems_add(out, "gpu-too-old", CU_SEV_ERROR,
                            cu_xasprintf(_("GPU %d (%s) has compute capability %s, which no CUDA release with downloadable archives supports."),
                                         g->index, g->name, vstr(&g->cc, b1, sizeof(b1))),
                            cu_xasprintf(_("Use a GPU of compute capability 5.0 or newer; CUDA %s was the last for this one."),
                                         cu_catalog_cuda_last_for_cc(cat, &g->cc, &last)
                                             ? vstr(&last, b2, sizeof(b2))
                                             : "10.2"));
        }
    }
}

static void
check_driver(const struct cu_facts *f, const struct cu_catalog *cat, struct cu_problems *out)
{
    const struct cu_driver_info *d = &f->driver;
    struct cu_version best, need;
    char b1[32], b2[32], b3[32], b4[32];
    bool have_best = cu_doctor_best_cuda(f, cat, &best, &need);
    CU_AUTOFREE char *hint = cu_doctor_driver_hint(f, cat);

    if (f->container.inside) { /* the host's driver, said the container's way (container_doctor.c) */
        struct cu_container_finding v[8];
        size_t n = cu_container_driver_findings(f, cat, have_best ? &best : NULL, &need, v, CU_N_ELEMENTS(v));
        for (size_t i = 0; i < n; i++)
            cu_problems_add(out, v[i].code, v[i].severity, v[i].message, v[i].fix);
        return;
    }
    if (f->n_gpus == 0 && d->kind != CU_DRIVER_WSL)
        return;
    if (d->kind == CU_DRIVER_NOUVEAU || (d->nouveau_loaded && d->kind == CU_DRIVER_NVIDIA)) {
        const char *initramfs = cu_drv_distro_initramfs(f, cat->driver);
        cu_problems_add(out, "nouveau", CU_SEV_ERROR,
                        cu_xstrdup(_("The open-source nouveau driver is loaded and holds the GPU, so the NVIDIA driver cannot use it.")),
                        initramfs ? cu_xasprintf(_("Blacklist nouveau (`echo 'blacklist nouveau' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf`, then `sudo %s`), install the NVIDIA driver and reboot. %s"),
                                                 initramfs, hint)
                                  : cu_xasprintf(_("Blacklist nouveau (`echo 'blacklist nouveau' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf`, then rebuild the initramfs), install the NVIDIA driver and reboot. %s"),
                                                 hint));
        return;
    }
    if (d->kind == CU_DRIVER_NONE) {
        if (d->nvml_path || d->libcuda_path)
            cu_problems_add(out, "no-driver", CU_SEV_ERROR,
                            cu_xstrdup(_("No NVIDIA driver is loaded: its libraries are installed, but its kernel module is not running.")),
                            cu_xstrdup(_("Run `sudo modprobe nvidia`; if that fails, reinstall the driver for the running kernel (DKMS) and check that Secure Boot allows the module.")));
        else if (have_best)
            cu_problems_add(out, "no-driver", CU_SEV_ERROR,
                            cu_xstrdup(_("No NVIDIA driver is loaded.")),
                            cu_xasprintf(_("Install the NVIDIA driver %s or newer (it runs CUDA %s). %s"),
                                         dstr(&need, b1, sizeof(b1)), vstr(&best, b2, sizeof(b2)), hint));
        else
            cu_problems_add(out, "no-driver", CU_SEV_ERROR,
                            cu_xstrdup(_("No NVIDIA driver is loaded.")),
                            cu_xstrdup(hint));
        return;
    }
    /* A kernel module alone runs nothing: CUDA programs need the driver's libcuda.so.1. */
    if (d->kind == CU_DRIVER_NVIDIA && !d->libcuda_path) {
        cu_problems_add(out, "no-libcuda", CU_SEV_ERROR,
                        cu_xasprintf(_("The NVIDIA kernel module %s is loaded, but the driver's user-space library libcuda.so.1 is not installed, so no CUDA program can run yet."),
                                     d->version.n ? dstr(&d->version, b1, sizeof(b1)) : ""),
                        cu_xasprintf(_("Install the user-space part of the same driver release (Debian and Ubuntu: libnvidia-compute-%u, or the whole nvidia-driver package), then run `cudaup doctor` again."),
                                     d->version.n ? (unsigned)d->version.part[0] : 0u));
    }
    /* The kernel module and its user-space libraries must be the same release. */
    if ((d->nvml_error && strstr(d->nvml_error, "mismatch")) ||
        d->libcuda_result == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH ||
        (d->kind == CU_DRIVER_NVIDIA && d->version.n && d->lib_version.n &&
         cu_version_cmp(&d->version, &d->lib_version) != 0)) {
        cu_problems_add(out, "driver-mismatch", CU_SEV_ERROR,
                        d->lib_version.n && cu_version_cmp(&d->version, &d->lib_version) != 0
                            ? cu_xasprintf(_("The NVIDIA kernel module (%s) and its libraries (%s) are different releases."),
                                           dstr(&d->version, b1, sizeof(b1)),
                                           dstr(&d->lib_version, b2, sizeof(b2)))
                            : cu_xstrdup(_("The NVIDIA kernel module and its libraries are different releases.")),
                        cu_xstrdup(_("Reboot, so that the kernel module of the installed driver is the one loaded.")));
    }
    if (d->libcuda_result == CUDA_ERROR_NO_DEVICE && f->n_gpus > 0) {
        cu_problems_add(out, "cuda-no-device", CU_SEV_ERROR,
                        cu_xstrdup(_("The driver is loaded, but CUDA sees no GPU.")),
                        cu_xstrdup(_("Check that /dev/nvidia* exist and that you may open them (groups video or render), and that CUDA_VISIBLE_DEVICES is not empty or -1.")));
    }
    if (f->os.wsl && d->kind == CU_DRIVER_WSL && d->libcuda_path &&
        !strstr(d->libcuda_path, "/usr/lib/wsl/")) {
        cu_problems_add(out, "wsl-linux-driver", CU_SEV_WARNING,
                        cu_xasprintf(_("A Linux libcuda (%s) shadows the one the Windows driver provides."),
                                     d->libcuda_path),
                        cu_xstrdup(_("Remove the Linux NVIDIA driver packages inside WSL; the Windows driver provides libcuda in /usr/lib/wsl/lib.")));
    }
    if (!d->version.n)
        return;
    if (!d->cuda_max.n) {
        cu_problems_add(out, "driver-too-old", CU_SEV_ERROR,
                        cu_xasprintf(_("The NVIDIA driver %s is older than any CUDA release cudaup knows."),
                                     dstr(&d->version, b1, sizeof(b1))),
                        cu_xasprintf(_("Install a newer NVIDIA driver. %s"), hint));
        return;
    }
    /* A GPU the driver's newest CUDA cannot build for (a new GPU on an old driver). */
    for (size_t i = 0; i < f->n_gpus; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        struct cu_version first, drv;
        if (!g->cc.n || !cu_catalog_cuda_first_for_cc(cat, &g->cc, &first))
            continue;
        if (cu_version_cmp(&first, &d->cuda_max) > 0 && cu_catalog_cuda_min_driver(cat, &first, &drv)) {
            cu_problems_add(out, "driver-too-old-for-gpu", CU_SEV_ERROR,
                            cu_xasprintf(_("GPU %d (%s) needs CUDA %s or newer, but the driver %s runs CUDA up to %s."),
                                         g->index, g->name, vstr(&first, b1, sizeof(b1)),
                                         dstr(&d->version, b2, sizeof(b2)),
                                         vstr(&d->cuda_max, b3, sizeof(b3))),
                            cu_xasprintf(_("Install the NVIDIA driver %s or newer. %s"),
                                         dstr(&drv, b1, sizeof(b1)), hint));
            return;
        }
    }
    if (have_best && cu_version_cmp(&d->cuda_max, &best) < 0) {
        cu_problems_add(out, "driver-update-available", CU_SEV_INFO,
                        cu_xasprintf(_("The driver %s runs CUDA up to %s; CUDA %s would need driver %s."),
                                     dstr(&d->version, b1, sizeof(b1)),
                                     vstr(&d->cuda_max, b2, sizeof(b2)), vstr(&best, b3, sizeof(b3)),
                                     dstr(&need, b4, sizeof(b4))),
                        cu_xstrdup(_("Nothing needs doing: cudaup picks a CUDA this driver runs. Update the driver to use newer CUDA releases.")));
    }
}

static void
check_installs(const struct cu_facts *f, const struct cu_catalog *cat, struct cu_problems *out)
{
    char b1[32], b2[32], b3[32];

    if (f->n_installs == 0) {
        cu_problems_add(out, "no-cuda", CU_SEV_INFO, cu_xstrdup(_("No CUDA toolkit is installed.")),
                        cu_xstrdup(_("Run `cudaup install` to install the CUDA toolkit and cuDNN that fit this machine.")));
        cu_problems_advise(out, CU_ADV_INSTALL, NULL);
        return;
    }
    for (size_t i = 0; i < f->n_installs; i++) {
        const struct cu_cuda_install *in = &f->installs[i];
        struct cu_version drv;
        if (!in->version.n) {
            cu_problems_add(out, "cuda-unknown-version", CU_SEV_WARNING,
                            cu_xasprintf(_("The CUDA folder %s does not say which version it is."), in->path),
                            cu_xstrdup(_("Reinstall it, or remove it if it is left over.")));
            continue;
        }
        vstr(&in->version, b1, sizeof(b1));
        /* The rule the resolver plans by and verify checks by (core/resolve/runs.c): what runs by NVIDIA's
         * minor-version compatibility is no problem, only its limit is worth knowing. */
        struct cu_runs_how how;
        enum cu_runs runs = f->driver.kind == CU_DRIVER_NVIDIA || f->driver.kind == CU_DRIVER_WSL
                                ? cu_driver_runs_cuda(cat, &f->driver.version, &f->driver.cuda_max, &in->version, &how)
                                : CU_RUNS_UNKNOWN;
        struct cu_version in_mm = {{in->version.part[0], in->version.part[1]}, 2};
        if (runs == CU_RUNS_NOT && f->driver.cuda_max.n && (how.floor.n || how.native.n)) {
            drv = how.floor.n && how.native.n && cu_version_cmp(&how.floor, &how.native) < 0 ? how.floor
                  : how.native.n                                                             ? how.native
                                                                                             : how.floor;
            cu_problems_add(out, "cuda-too-new-for-driver", CU_SEV_WARNING,
                            cu_xasprintf(_("CUDA %s in %s needs driver %s or newer; this driver runs CUDA up to %s."),
                                         b1, in->path, dstr(&drv, b2, sizeof(b2)),
                                         vstr(&f->driver.cuda_max, b3, sizeof(b3))),
                            cu_xasprintf(_("Update the driver, or run `cudaup install --cuda %s`."),
                                         vstr(&f->driver.cuda_max, b3, sizeof(b3))));
            cu_problems_advise(out, CU_ADV_DRIVER_OR_CUDA, b3);
        } else if (runs == CU_RUNS_COMPAT) {
            CU_AUTOFREE char *limit = cu_runs_limit(&how, &in_mm);
            cu_problems_add(out, "cuda-minor-version-compat", CU_SEV_INFO,
                            cu_xasprintf(_("CUDA %s in %s runs on driver %s by NVIDIA's minor-version compatibility: %s."),
                                         b1, in->path, dstr(&f->driver.version, b2, sizeof(b2)), limit),
                            how.native.n
                                ? cu_xasprintf(_("Nothing needs doing for programs built for this GPU; to JIT-compile newer PTX too, install driver %s or newer."),
                                               dstr(&how.native, b3, sizeof(b3)))
                                : cu_xstrdup(_("Nothing needs doing for programs built for this GPU; to JIT-compile newer PTX too, install a newer driver.")));
        }
        for (size_t g = 0; g < f->n_gpus; g++) {
            struct cu_version last;
            const struct cu_gpu_info *gpu = &f->gpus[g];
            if (!gpu->cc.n || cu_catalog_cuda_supports_cc(cat, &in->version, &gpu->cc) != 0)
                continue;
            bool has_last = cu_catalog_cuda_last_for_cc(cat, &gpu->cc, &last);
            cu_problems_add(out, "cuda-drops-gpu", CU_SEV_WARNING,
                            cu_xasprintf(_("CUDA %s in %s cannot build for GPU %d (%s, compute capability %s)."),
                                         b1, in->path, gpu->index, gpu->name,
                                         vstr(&gpu->cc, b2, sizeof(b2))),
                            has_last ? cu_xasprintf(_("Run `cudaup install --cuda %s`."),
                                                    vstr(&last, b3, sizeof(b3)))
                                     : cu_xstrdup(_("Use an older CUDA release for this GPU.")));
            if (has_last)
                cu_problems_advise(out, CU_ADV_CUDA, b3);
        }
        if (!in->cudnn.n) {
            cu_problems_add(out, "no-cudnn", CU_SEV_INFO,
                            cu_xasprintf(_("CUDA %s in %s has no cuDNN."), b1, in->path),
                            cu_xasprintf(_("Run `cudaup install --cuda %s` to add the cuDNN that fits it."),
                                         cu_version_format(&in->version, 2, b2, sizeof(b2))));
            cu_problems_advise(out, CU_ADV_ADD_CUDNN, b2);
        }
    }
}

static bool
path_exists(const struct cu_sysroot *root, const char *p)
{
    return root ? cu_sysroot_exists(root, p) : true;
}

static void
check_env(const struct cu_facts *f, const char *const *envp, struct cu_problems *out,
          const struct cu_sysroot *root)
{
    const char *vars[] = {"CUDA_HOME", "CUDA_PATH"};
    const char *vals[] = {f->env.cuda_home, f->env.cuda_path};
    for (size_t i = 0; i < CU_N_ELEMENTS(vars); i++) {
        if (vals[i] && *vals[i] && !path_exists(root, vals[i])) {
            cu_problems_add(out, "env-missing-folder", CU_SEV_WARNING,
                            cu_xasprintf(_("%s points at %s, which does not exist."), vars[i], vals[i]),
                            cu_xasprintf(_("Unset %s or point it at an installed CUDA; `cudaup install` writes it for you."),
                                         vars[i]));
            cu_problems_advise(out, CU_ADV_ENV_VAR, vars[i]);
        }
    }
    for (char **p = f->env.path_cuda; p && *p; p++)
        if (!path_exists(root, *p))
            cu_problems_add(out, "env-missing-folder", CU_SEV_WARNING,
                            cu_xasprintf(_("PATH lists %s, which does not exist."), *p),
                            cu_xstrdup(_("Remove it from PATH in your shell start-up files.")));
    for (char **p = f->env.ld_cuda; p && *p; p++)
        if (!path_exists(root, *p))
            cu_problems_add(out, "env-missing-folder", CU_SEV_WARNING,
                            cu_xasprintf(_("LD_LIBRARY_PATH lists %s, which does not exist."), *p),
                            cu_xstrdup(_("Remove it from LD_LIBRARY_PATH in your shell start-up files.")));
    if (f->env.ld_empty_entry)
        cu_problems_add(out, "env-ld-empty-entry", CU_SEV_WARNING,
                        cu_xstrdup(_("LD_LIBRARY_PATH has an empty entry, so libraries are also loaded from the current folder.")),
                        cu_xstrdup(_("Remove the leading, trailing or doubled ':' from LD_LIBRARY_PATH.")));
    /* Two CUDA versions on the library path: whichever comes first wins, silently. */
    CU_AUTOFREE char *first = NULL;
    for (char **p = f->env.ld_cuda; p && *p; p++) {
        const char *v = strstr(*p, "cuda-");
        if (!v)
            continue;
        size_t n = strcspn(v, "/");
        if (!first) {
            first = cu_xstrndup(v, n);
        } else if (strncmp(first, v, n) != 0 || strlen(first) != n) {
            cu_problems_add(out, "env-mixed-cuda", CU_SEV_WARNING,
                            cu_xasprintf(_("LD_LIBRARY_PATH mixes %s and %.*s; programs get whichever comes first."),
                                         first, (int)n, v),
                            cu_xstrdup(_("Keep one CUDA version in LD_LIBRARY_PATH; `cudaup install` writes a clean one.")));
            cu_problems_advise(out, CU_ADV_LD_CLEAN, NULL);
            break;
        }
    }
    const char *vis = cu_env_get(envp, "CUDA_VISIBLE_DEVICES");
    if (vis && (!*vis || strcmp(vis, "-1") == 0))
        cu_problems_add(out, "env-no-visible-devices", CU_SEV_WARNING,
                        cu_xstrdup(_("CUDA_VISIBLE_DEVICES hides every GPU from CUDA programs.")),
                        cu_xstrdup(_("Unset CUDA_VISIBLE_DEVICES, or list the GPUs to use (for example 0).")));
}

void
cu_doctor_check(const struct cu_facts *f, const struct cu_catalog *cat,
                const struct cu_sysroot *root, const char *const *envp, struct cu_problems *out)
{
    check_gpus(f, cat, out);
    check_driver(f, cat, out);
    check_installs(f, cat, out);
    check_env(f, envp, out, root);
}

static json_t *
jversion(const struct cu_version *v)
{
    char buf[64];
    return v->n ? json_string(cu_version_format(v, 0, buf, sizeof(buf))) : json_null();
}

static json_t *
jdriver(const struct cu_version *v)
{
    char buf[64];
    return v->n ? json_string(cu_driver_version_format(v, buf, sizeof(buf))) : json_null();
}

static json_t *
jstrv(char **v)
{
    json_t *a = json_array();
    for (char **p = v; p && *p; p++)
        json_array_append_new(a, json_string(*p));
    return a;
}

json_t *
cu_doctor_json(const struct cu_facts *f, const struct cu_problems *problems)
{
    json_t *doc = json_object();
    json_t *gpus = json_array();
    for (size_t i = 0; i < f->n_gpus; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        json_t *o = json_object();
        json_object_set_new(o, "index", json_integer(g->index));
        json_object_set_new(o, "name", json_string(g->name));
        json_object_set_new(o, "pci_id", g->pci_id[0] ? json_string(g->pci_id) : json_null());
        json_object_set_new(o, "bus", g->bus[0] ? json_string(g->bus) : json_null());
        json_object_set_new(o, "compute_capability", jversion(&g->cc));
        json_object_set_new(o, "architecture", cu_json_str_or_null(g->arch));
        json_object_set_new(o, "memory_mib",
                            g->memory_mib ? json_integer((json_int_t)g->memory_mib) : json_null());
        json_object_set_new(o, "source", json_string(g->source));
        json_object_set_new(o, "kernel_driver", cu_json_str_or_null(g->kernel_driver));
        json_array_append_new(gpus, o);
    }
    json_object_set_new(doc, "gpus", gpus);

    const struct cu_driver_info *d = &f->driver;
    json_t *drv = json_object();
    json_object_set_new(drv, "kind", json_string(cu_driver_kind_name(d->kind)));
    json_object_set_new(drv, "version", jdriver(&d->version));
    json_object_set_new(drv, "cuda_max", jversion(&d->cuda_max));
    json_object_set_new(drv, "cuda_max_source", cu_json_str_or_null(d->cuda_max_source));
    json_object_set_new(drv, "nvml", cu_json_str_or_null(d->nvml_path));
    json_object_set_new(drv, "libcuda", cu_json_str_or_null(d->libcuda_path));
    json_object_set_new(doc, "driver", drv);

    json_t *inst = json_array();
    for (size_t i = 0; i < f->n_installs; i++) {
        const struct cu_cuda_install *in = &f->installs[i];
        json_t *o = json_object();
        json_object_set_new(o, "path", json_string(in->path));
        json_object_set_new(o, "version", jversion(&in->version));
        if (in->cudnn.n) {
            json_t *c = json_object();
            json_object_set_new(c, "version", jversion(&in->cudnn));
            json_object_set_new(o, "cudnn", c);
        } else {
            json_object_set_new(o, "cudnn", json_null());
        }
        json_object_set_new(o, "managed", json_boolean(in->managed));
        json_object_set_new(o, "links", jstrv(in->links));
        json_object_set_new(o, "nvcc", json_boolean(in->has_nvcc));
        json_array_append_new(inst, o);
    }
    json_object_set_new(doc, "cuda_installs", inst);

    if (f->pyenv) {
        json_t *p = json_object();
        json_object_set_new(p, "tool", json_string(f->pyenv->tool));
        json_object_set_new(p, "path", cu_json_str_or_null(f->pyenv->path));
        json_object_set_new(p, "version", cu_json_str_or_null(f->pyenv->version));
        json_object_set_new(p, "active_env", cu_json_str_or_null(f->pyenv->active_env));
        json_object_set_new(doc, "python_envs", p);
    } else {
        json_object_set_new(doc, "python_envs", json_null());
    }

    json_t *env = json_object();
    json_object_set_new(env, "CUDA_HOME", cu_json_str_or_null(f->env.cuda_home));
    json_object_set_new(env, "CUDA_PATH", cu_json_str_or_null(f->env.cuda_path));
    json_object_set_new(env, "PATH", jstrv(f->env.path_cuda));
    json_object_set_new(env, "LD_LIBRARY_PATH", jstrv(f->env.ld_cuda));
    json_object_set_new(doc, "env", env);

    json_t *os = json_object();
    json_object_set_new(os, "id", cu_json_str_or_null(f->os.id));
    json_object_set_new(os, "version_id", cu_json_str_or_null(f->os.version_id));
    json_object_set_new(os, "pretty_name", cu_json_str_or_null(f->os.pretty_name));
    json_object_set_new(os, "machine", json_string(f->os.machine));
    json_object_set_new(os, "wsl", json_boolean(f->os.wsl));
    json_object_set_new(doc, "os", os);

    json_t *probs = json_array();
    for (size_t i = 0; problems && i < problems->n; i++) {
        const struct cu_problem *p = &problems->v[i];
        json_t *o = json_object();
        json_object_set_new(o, "code", json_string(p->code));
        json_object_set_new(o, "severity", json_string(cu_severity_name(p->severity)));
        json_object_set_new(o, "message", json_string(p->message));
        json_object_set_new(o, "fix", json_string(p->fix));
        if (p->source)
            json_object_set_new(o, "source", json_string(p->source));
        json_array_append_new(probs, o);
    }
    json_object_set_new(doc, "problems", probs);
    return doc;
}
