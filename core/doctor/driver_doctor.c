/* SPDX-License-Identifier: MIT */
/* doctor's broken-driver states: each named, with the fix `cudaup repair` carries out. */
#include "config.h"

#include "core/resolve/driver.h"
#include "core/doctor/driver_doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/doctor/doctor.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"

static bool
seen_code(const struct cu_problems *p, const char *code)
{
    for (size_t i = 0; p && i < p->n; i++)
        if (strcmp(p->v[i].code, code) == 0)
            return true;
    return false;
}

/* The packages a hold names: those of the driver installed (dpkg; the kernel-module ones follow each kernel), else
 * the data's for this branch; none when neither is known. */
static void
pin_packages(const struct cu_facts *f, const struct cu_drv_pkg *row, int branch, struct cu_strv *out)
{
    for (size_t i = 0; i < f->drv->installed.n; i++)
        if (!cu_str_has_prefix(f->drv->installed.v[i], "linux-modules-nvidia-"))
            cu_strv_push(out, f->drv->installed.v[i]);
    for (char **t = row && !out->n ? row->packages : NULL; t && *t; t++)
        cu_strv_push_owned(out, cu_drv_expand(*t, branch, f));
}

/*
 * The command that holds the branch, naming what it holds ("sudo apt-mark hold nvidia-driver-550 ..."), or the
 * apt preferences line with its file in *@file; NULL when nothing can be named: no package of the branch is known
 * (none installed with dpkg, no data row carries it here) or the data names no way to hold it ("none").
 * A package manager is said only where the data or dpkg shows it is this machine's.
 */
static char *
pin_command(const struct cu_facts *f, const struct cu_drv_pkg *row, int branch, char **file)
{
    *file = NULL;
    /* No row: dpkg's packages say the machine is apt's; otherwise no manager is known. */
    const char *pin = row ? row->pin : f->drv->installed.n ? "apt-mark hold" : "none";
    if (strcmp(pin, "none") == 0)
        return NULL;
    struct cu_buf b;
    cu_buf_init(&b);
    struct cu_drv_step *ps = row && (strcmp(pin, "apt preferences") == 0 || strcmp(pin, "nvidia pinning package") == 0)
                                 ? cu_drv_pin_step(row, branch, f)
                                 : NULL;
    if (ps && ps->text) {
        /* "Pin: version 580.* (*nvidia*)", in /etc/apt/preferences.d/cudaup-nvidia-driver */
        CU_AUTOFREE char *glob = cu_drv_pin_version(row, branch, f);
        cu_buf_printf(&b, "Pin: version %s (", glob);
        for (char **t = row->pin_packages; *t; t++)
            cu_buf_printf(&b, "%s%s", t == row->pin_packages ? "" : " ", *t);
        cu_buf_printf(&b, ")");
        *file = cu_xstrdup(ps->path);
    } else if (ps && ps->argv) {
        CU_AUTOFREE char *line = cu_drv_step_line(ps);
        cu_buf_printf(&b, "sudo %s", line);
    } else if (strcmp(pin, "apt-mark hold") == 0 || strcmp(pin, "zypper addlock") == 0) {
        struct cu_strv pk;
        cu_strv_init(&pk);
        pin_packages(f, row, branch, &pk);
        cu_strv_sort(&pk); /* the same command whichever order dpkg's database lists them in */
        cu_buf_printf(&b, "sudo %s", pin);
        for (size_t i = 0; i < pk.n; i++)
            cu_buf_printf(&b, " %s", pk.v[i]);
        if (!pk.n)
            cu_buf_reset(&b); /* a hold of nothing holds nothing */
        cu_strv_fini(&pk);
    } else if (strcmp(pin, "dnf module") == 0) {
        if (row->module_stream) {
            CU_AUTOFREE char *x = cu_drv_expand(row->module_stream, branch, f);
            cu_buf_printf(&b, "sudo dnf module enable %s", x);
        }
    } else if (strcmp(pin, "dnf versionlock") == 0) {
        cu_buf_printf(&b, "sudo dnf versionlock add '*nvidia*%d*'", branch);
    }
    cu_drv_step_free(ps);
    if (!b.len) {
        cu_buf_fini(&b);
        return NULL;
    }
    return cu_buf_steal(&b);
}

/* The fix for a driver past a GPU's last branch @last: the install cudaup would plan for that branch, or what it
 * says when it would refuse (the same as --driver auto, then). */
static char *
last_branch_fix(const struct cu_facts *f, const struct cu_catalog *cat, int last)
{
    char ask[16];
    snprintf(ask, sizeof(ask), "%d", last);
    struct cu_drv_wish w = {.driver = ask};
    struct cu_drv_in in = {f, cat, &w};
    struct cu_drv_plan *p = cu_drv_choose(&in);
    char *fix = strcmp(p->action, "install") == 0
                    ? cu_xasprintf(_("Install branch %d, the last that drives it: `cudaup install --driver %d` (a driver change: cudaup shows it and asks before it changes anything), then reboot."),
                                   p->branch, p->branch)
                    : cu_xasprintf(_("%s Install a driver of branch %d yourself, reboot, then run cudaup again."),
                                   p->refusal ? p->refusal : "", last);
    cu_drv_plan_free(p);
    return fix;
}

void
cu_drv_doctor(const struct cu_facts *f, const struct cu_catalog *cat, const struct cu_problems *seen,
              struct cu_problems *out)
{
    const struct cu_drv_state *s = f->drv;
    const struct cu_driver_info *d = &f->driver;
    char b1[32], b2[32];
    if (!s || f->os.wsl || f->n_gpus == 0 || f->container.inside) /* a container's module, Secure Boot, pins are the host's */
        return;
    bool loaded = d->kind == CU_DRIVER_NVIDIA && d->version.n;
    int branch = loaded ? (int)d->version.part[0] : s->lib_version.n ? (int)s->lib_version.part[0] : 0;
    bool installed = s->installed.n || s->lib_version.n || d->nvml_path || d->libcuda_path;

    /* Module and libraries of different releases, seen from the files when NVML could not say. */
    if (loaded && s->lib_version.n && cu_version_cmp(&d->version, &s->lib_version) != 0 &&
        !seen_code(seen, "driver-mismatch"))
        cu_problems_add(out, "driver-mismatch", CU_SEV_ERROR,
                        cu_xasprintf(_("The NVIDIA kernel module (%s) and its libraries (%s) are different releases: an upgrade replaced the libraries, and the old module still runs (\"Driver/library version mismatch\")."),
                                     cu_driver_version_format(&d->version, b1, sizeof(b1)),
                                     cu_driver_version_format(&s->lib_version, b2, sizeof(b2))),
                        cu_xstrdup(_("Reboot; or, when nothing uses the GPU, reload the module (`sudo modprobe -r nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia`). `cudaup repair` tries the reload and says when only a reboot will do.")));

    /* Installed, but no module for the kernel that runs (a kernel update DKMS did not follow). */
    if (!loaded && installed && s->module_for_kernel == 0 && s->kernel_release) {
        const struct cu_drv_pkg *row = branch ? cu_drv_row_for(f, cat, branch, s->flavor) : NULL;
        CU_AUTOFREE char *signed_pkg = row && row->signed_modules[0] ? cu_drv_expand_row(row, row->signed_modules[0], branch, f) : NULL;
        cu_problems_add(out, "driver-module-missing", CU_SEV_ERROR,
                        cu_xasprintf(_("The NVIDIA driver is installed, but no nvidia module is built for the running kernel %s."),
                                     s->kernel_release),
                        signed_pkg ? cu_xasprintf(_("Install the signed module package for this kernel (`sudo apt-get install %s`), then `sudo modprobe nvidia`; `cudaup repair` does both."),
                                                  signed_pkg)
                                   : cu_xstrdup(_("Build it for this kernel with DKMS (`sudo dkms autoinstall`; the kernel headers must be installed), then `sudo modprobe nvidia`; `cudaup repair` does both.")));
    }

    /* A module built here but unsigned, on a machine whose firmware checks signatures. */
    if (!loaded && s->secure_boot == 1 && s->module_for_kernel == 1 && s->module_signed == 0) {
        const struct cu_drv_pkg *row = branch ? cu_drv_row_for(f, cat, branch, s->flavor) : NULL;
        CU_AUTOFREE char *signed_pkg = row && row->signed_modules[0] ? cu_drv_expand_row(row, row->signed_modules[0], branch, f) : NULL;
        const char *cert = row && row->mok_cert ? row->mok_cert : "/var/lib/dkms/mok.pub";
        cu_problems_add(out, "driver-unsigned-secure-boot", CU_SEV_ERROR,
                        cu_xasprintf(_("Secure Boot is on and the nvidia module %s is not signed, so the kernel refuses it (\"Key was rejected by service\")."),
                                     s->module_path),
                        signed_pkg ? cu_xasprintf(_("Install the module the distribution signed (`sudo apt-get install %s`); `cudaup repair` does it."), signed_pkg)
                                   : cu_xasprintf(_("Rebuild it with DKMS so that DKMS signs it (`sudo dkms autoinstall`), queue DKMS's key for enrolment (`sudo mokutil --import %s`, with a one-time password you choose), reboot and enrol it in the blue MokManager screen. `cudaup repair` runs the first two and asks for the password on the terminal."),
                                                  cert));
    }

    /* A flavor that does not drive a GPU here: the fix is the install cudaup would plan for it (another flavor, and
     * a branch that carries it for every GPU here), never one it would refuse. */
    if (loaded && s->flavor)
        for (size_t i = 0; i < f->n_gpus; i++) {
            const struct cu_gpu_info *g = &f->gpus[i];
            const struct cu_drv_gen *gen = cu_drv_gen_for_cc(cat->driver, &g->cc);
            bool open = strcmp(s->flavor, "open") == 0;
            if (!gen || (open ? gen->open : gen->proprietary))
                continue;
            const char *want = open ? "proprietary" : "open";
            char ask[48];
            snprintf(ask, sizeof(ask), "%d-%s", branch, want);
            struct cu_drv_wish w = {.driver = ask};
            struct cu_drv_in in = {f, cat, &w};
            struct cu_drv_plan *p = cu_drv_choose(&in);
            if (strcmp(p->action, "install") != 0) {
                cu_drv_plan_free(p);
                w.driver = NULL; /* that branch cannot: what auto plans */
                p = cu_drv_choose(&in);
            }
            char *fix = strcmp(p->action, "install") == 0
                            ? cu_xasprintf(_("Install the %s flavor: `cudaup install --driver %d-%s` (a driver change: cudaup shows it and asks before it changes anything), then reboot."),
                                           cu_drv_flavor_word(p->flavor), p->branch, p->flavor)
                            : cu_xasprintf(_("%s Install a driver of the %s flavor yourself, reboot, then run cudaup again."),
                                           p->refusal ? p->refusal : "", cu_drv_flavor_word(want));
            cu_drv_plan_free(p);
            cu_problems_add(out, "driver-flavor-unsupported", CU_SEV_ERROR,
                            cu_xasprintf(_("GPU %d (%s, %s) needs the %s kernel modules, but the %s ones are loaded, which do not drive it."),
                                         g->index, g->name, gen->generation, cu_drv_flavor_word(want),
                                         cu_drv_flavor_word(s->flavor)),
                            fix);
            cu_problems_source(out, gen->source);
            break;
        }

    /* NVSwitch bridges without the fabric manager: CUDA fails with error 802 until it runs. */
    const char *swname = NULL;
    int nvswitch = cu_drv_nvswitch_count(f, cat, &swname);
    if (nvswitch && !s->fabricmanager_enabled) {
        const struct cu_drv_pkg *row = branch ? cu_drv_row_for(f, cat, branch, s->flavor) : NULL;
        struct cu_buf pk;
        cu_buf_init(&pk);
        for (char **t = row ? row->fabricmanager : NULL; t && *t; t++) {
            CU_AUTOFREE char *x = cu_drv_expand(*t, branch, f);
            cu_buf_printf(&pk, "%s%s", pk.len ? " " : "", x);
        }
        const char *unit = row && row->fabricmanager_service ? row->fabricmanager_service : "nvidia-fabricmanager";
        cu_problems_add(out, "fabricmanager-missing", CU_SEV_ERROR,
                        cu_xasprintf(_("This machine has %d NVSwitch bridges (%s), and NVIDIA's fabric manager is not enabled: CUDA fails there with error 802 (\"system not yet initialized\")."),
                                     nvswitch, swname),
                        pk.len ? cu_xasprintf(_("Install the fabric manager of the driver's branch (`%s`) and enable it: `sudo systemctl enable --now %s`."),
                                              pk.data, unit)
                               : cu_xasprintf(_("Install nvidia-fabricmanager of the driver's branch from NVIDIA's instructions and enable it: `sudo systemctl enable --now %s`."),
                                              unit));
        cu_buf_fini(&pk);
    }

    /* A fourth-generation NVSwitch board: the fabric manager, and the NVLink Subnet Manager it starts first. */
    const struct cu_drv_nvswitch_vpd *vpd = NULL;
    int nvl5 = nvswitch ? 0 : cu_drv_nvlink5_count(f, cat, &vpd);
    if (nvl5 && vpd) {
        const struct cu_drv_pkg *row = branch ? cu_drv_row_for(f, cat, branch, s->flavor) : NULL;
        const struct cu_drv_nvlsm *lsm = row ? cu_drv_nvlsm_for(cat->driver, row, branch) : NULL;
        struct cu_strv fm, ls;
        cu_strv_init(&fm);
        cu_strv_init(&ls);
        for (char **t = row ? row->fabricmanager : NULL; t && *t; t++)
            cu_strv_push_owned(&fm, cu_drv_expand(*t, branch, f));
        for (char **t = lsm ? lsm->packages : NULL; t && *t; t++)
            cu_strv_push_owned(&ls, cu_drv_expand(*t, branch, f));
        CU_AUTOFREE char *fms = cu_strv_join(&fm, " ");
        CU_AUTOFREE char *lss = cu_strv_join(&ls, " ");
        const char *unit = row && row->fabricmanager_service ? row->fabricmanager_service : "nvidia-fabricmanager";
        bool has_lsm = cu_strv_contains(&s->files_present, vpd->needs_file);
        if (!s->fabricmanager_enabled) {
            cu_problems_add(out, "fabricmanager-missing", CU_SEV_ERROR,
                            cu_xasprintf(_("This is a fourth-generation NVSwitch board (%s, on %d InfiniBand ports), and NVIDIA's fabric manager is not enabled: CUDA fails there with CUDA_ERROR_SYSTEM_NOT_READY (error 802)."),
                                         vpd->name, nvl5),
                            fm.n && ls.n ? cu_xasprintf(_("Install the fabric manager of the driver's branch with the NVLink Subnet Manager (`%s %s`, NVIDIA's repository) and enable it: `sudo systemctl enable --now %s`."),
                                                        fms, lss, unit)
                                         : cu_xasprintf(_("Install the fabric manager and the NVLink Subnet Manager of the driver's branch from NVIDIA's instructions and enable it: `sudo systemctl enable --now %s`."),
                                                        unit));
            cu_problems_source(out, vpd->ref);
        }
        if (!has_lsm) {
            cu_problems_add(out, "nvlsm-missing", CU_SEV_ERROR,
                            cu_xasprintf(_("This is a fourth-generation NVSwitch board (%s), and NVIDIA's NVLink Subnet Manager is not installed (no %s): the fabric manager starts it first, and without it CUDA fails with CUDA_ERROR_SYSTEM_NOT_READY."),
                                         vpd->name, vpd->needs_file),
                            ls.n ? cu_xasprintf(_("Install `%s` from NVIDIA's repository and restart the fabric manager: `sudo systemctl restart %s`."),
                                                lss, unit)
                                 : cu_xasprintf(_("Install the NVLink Subnet Manager of the driver's branch from NVIDIA's instructions and restart the fabric manager: `sudo systemctl restart %s`."),
                                                unit));
            cu_problems_source(out, vpd->ref);
        }
        cu_strv_fini(&fm);
        cu_strv_fini(&ls);
    } else if (!nvswitch && s->infiniband_vpd_unread && cu_drv_nvlink5_possible(f, cat)) {
        cu_problems_add(out, "nvswitch-unknown", CU_SEV_WARNING,
                        cu_xasprintf(_("The VPD of %d InfiniBand devices here could not be read (only root may read it), so doctor cannot tell whether this is a fourth-generation NVSwitch board (HGX/DGX B200 or later), whose fabric manager and NVLink Subnet Manager it would check."),
                                     s->infiniband_vpd_unread),
                        cu_xstrdup(_("Run `sudo cudaup doctor` to check them.")));
    }

    /* A branch newer than the last that drives a GPU here, loaded or installed: the driver ignores that GPU ("The
     * 595.71.05 NVIDIA driver will ignore this GPU", driver_generations.csv), and so does every CUDA program. Then a
     * pin that holds such a branch: the next upgrade takes the driver there (issue 45). */
    bool beyond = false;
    for (size_t i = 0; branch && i < f->n_gpus && !beyond; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        const struct cu_drv_gen *gen = cu_drv_gen_for_cc(cat->driver, &g->cc);
        if (!gen || !gen->branch_last || branch <= gen->branch_last)
            continue;
        char *fix = last_branch_fix(f, cat, gen->branch_last);
        cu_problems_add(out, "driver-drops-gpu", CU_SEV_ERROR,
                        loaded ? cu_xasprintf(_("The NVIDIA driver %s does not drive GPU %d (%s, %s): branch %d ignores it, and branch %d is the last that drives it."),
                                              cu_driver_version_format(&d->version, b1, sizeof(b1)), g->index, g->name,
                                              gen->generation, branch, gen->branch_last)
                               : cu_xasprintf(_("The NVIDIA driver installed here is of branch %d, which does not drive GPU %d (%s, %s): branch %d is the last that drives it."),
                                              branch, g->index, g->name, gen->generation, gen->branch_last),
                        fix);
        cu_problems_source(out, gen->source);
        beyond = true;
    }
    for (size_t i = 0; s->pin_branch && i < f->n_gpus && !beyond; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        const struct cu_drv_gen *gen = cu_drv_gen_for_cc(cat->driver, &g->cc);
        if (!gen || !gen->branch_last || s->pin_branch <= gen->branch_last)
            continue;
        const struct cu_drv_pkg *row = cu_drv_row_for(f, cat, gen->branch_last, "proprietary");
        CU_AUTOFREE char *file = NULL;
        CU_AUTOFREE char *cmd = pin_command(f, row, gen->branch_last, &file);
        cu_problems_add(out, "driver-pin-drops-gpu", CU_SEV_WARNING,
                        cu_xasprintf(_("The driver's pin (%s) holds branch %d, which does not drive GPU %d (%s, %s): the next upgrade takes the driver there, and branch %d is the last that drives it."),
                                     s->pin_file ? s->pin_file : "?", s->pin_branch, g->index, g->name, gen->generation,
                                     gen->branch_last),
                        file ? cu_xasprintf(_("Hold branch %d instead: `%s` in %s."), gen->branch_last, cmd, file)
                             : cu_xasprintf(_("Hold branch %d instead: `%s`."), gen->branch_last, cmd));
        cu_problems_source(out, gen->source);
        beyond = true;
    }

    /* Not held, on a GPU whose last branch is this one or near: the next upgrade drops it. */
    if (loaded && !s->pinned)
        for (size_t i = 0; i < f->n_gpus; i++) {
            const struct cu_gpu_info *g = &f->gpus[i];
            const struct cu_drv_gen *gen = cu_drv_gen_for_cc(cat->driver, &g->cc);
            if (!gen || !gen->branch_last || branch > gen->branch_last)
                continue;
            const struct cu_drv_pkg *row = cu_drv_row_for(f, cat, branch, s->flavor ? s->flavor : "proprietary");
            CU_AUTOFREE char *file = NULL;
            CU_AUTOFREE char *cmd = pin_command(f, row, branch, &file);
            struct cu_strv pk; /* what a hold would name, where no command of the data's holds it */
            cu_strv_init(&pk);
            if (!cmd)
                pin_packages(f, row, branch, &pk);
            CU_AUTOFREE char *pkl = pk.n ? cu_strv_join(&pk, " ") : NULL;
            cu_strv_fini(&pk);
            cu_problems_add(out, "driver-unpinned", CU_SEV_WARNING,
                            cu_xasprintf(_("The driver's branch %d is not held: the next upgrade may bring a newer branch, and branch %d is the last that loads on GPU %d (%s, %s)."),
                                         branch, gen->branch_last, g->index, g->name, gen->generation),
                            !cmd && pkl ? cu_xasprintf(_("Hold the driver's packages of branch %d (%s) with this system's package manager; cudaup's data names no way to hold them on this distribution, so `cudaup repair` cannot."),
                                                       branch, pkl)
                            : !cmd ? cu_xasprintf(_("Hold the driver's packages of branch %d with this system's package manager; cudaup cannot name them here (none is installed with dpkg, and its data has no package of branch %d for this distribution), so `cudaup repair` cannot hold them."),
                                                  branch, branch)
                            : file ? cu_xasprintf(_("Hold the branch: `%s` in %s (`cudaup repair` does it)."), cmd, file)
                                   : cu_xasprintf(_("Hold the branch: `%s` (`cudaup repair` does it)."), cmd));
            cu_problems_source(out, gen->source);
            break;
        }
}

void
cu_drv_state_json(const struct cu_facts *f, json_t *drv)
{
    const struct cu_drv_state *s = f->drv;
    char b[32];
    if (!s)
        return;
    json_object_set_new(drv, "flavor", cu_json_str_or_null(s->flavor));
    json_object_set_new(drv, "secure_boot", s->secure_boot < 0 ? json_null() : json_string(s->secure_boot ? "on" : "off"));
    json_object_set_new(drv, "module_for_running_kernel", s->module_for_kernel < 0 ? json_null()
                                                                                    : json_boolean(s->module_for_kernel));
    json_object_set_new(drv, "library_version",
                        s->lib_version.n ? json_string(cu_driver_version_format(&s->lib_version, b, sizeof(b))) : json_null());
    json_object_set_new(drv, "kernel_release", cu_json_str_or_null(s->kernel_release));
    json_object_set_new(drv, "module_signed", s->module_signed < 0 ? json_null() : json_boolean(s->module_signed));
    json_object_set_new(drv, "pinned", json_boolean(s->pinned));
    json_object_set_new(drv, "pin_branch", s->pin_branch ? json_integer(s->pin_branch) : json_null());
    json_t *pk = json_array();
    for (size_t i = 0; i < s->installed.n; i++)
        json_array_append_new(pk, json_string(s->installed.v[i]));
    json_object_set_new(drv, "packages", pk);
    json_object_set_new(drv, "reboot_required", json_boolean(s->reboot_required));
}

void
cu_drv_doctor_fixes(const struct cu_facts *f, const struct cu_catalog *cat, struct cu_problems *pr)
{
    static const char *const codes[] = {"no-driver", "driver-too-old", "driver-too-old-for-gpu", "nouveau", "no-libcuda"};
    struct cu_drv_wish w = {.driver = NULL};
    struct cu_drv_in in = {f, cat, &w};
    struct cu_drv_plan *p = NULL;
    CU_AUTOFREE char *hint = cu_doctor_driver_hint(f, cat);
    /* Installed, but its module missing or refused: the module's own problem says what repair does; a new driver would not help. */
    const struct cu_drv_state *s = f->drv;
    bool installed = s && (s->installed.n || s->lib_version.n);
    bool module_trouble = false;
    for (size_t i = 0; i < pr->n; i++)
        module_trouble |= strcmp(pr->v[i].code, "driver-module-missing") == 0 || strcmp(pr->v[i].code, "driver-unsigned-secure-boot") == 0;
    /* Installed, its module built for this kernel, not loaded, and what keeps it out goes at the next boot
     * (nouveau blacklisted, or the system asks for a reboot): the reboot is what is left, not an install. */
    bool reboot_pending = installed && !module_trouble && f->driver.kind != CU_DRIVER_NVIDIA && s->module_for_kernel == 1 &&
                          (s->nouveau_blacklisted || s->reboot_required);
    for (size_t i = 0; i < pr->n; i++) {
        bool hit = false;
        for (size_t k = 0; k < CU_N_ELEMENTS(codes); k++)
            hit |= strcmp(pr->v[i].code, codes[k]) == 0;
        if (!hit)
            continue;
        if (installed && module_trouble && (strcmp(pr->v[i].code, "no-driver") == 0 || strcmp(pr->v[i].code, "no-libcuda") == 0)) {
            free(pr->v[i].fix);
            pr->v[i].fix = cu_xstrdup(_("The NVIDIA driver is installed, but its kernel module is not loaded (the module's problem below says why); `cudaup repair` builds or signs it. Installing a driver again would not help."));
            continue;
        }
        if (installed && module_trouble && s->nouveau_blacklisted && strcmp(pr->v[i].code, "nouveau") == 0) {
            free(pr->v[i].fix);
            pr->v[i].fix = cu_xstrdup(_("nouveau is blacklisted and gives way at the next boot, and the NVIDIA driver is installed: fix its kernel module (the module's problem below; `cudaup repair` does it), then reboot. Installing a driver again would not help."));
            continue;
        }
        if (reboot_pending && strcmp(pr->v[i].code, "driver-too-old") != 0 && strcmp(pr->v[i].code, "driver-too-old-for-gpu") != 0) {
            free(pr->v[i].fix);
            pr->v[i].fix = cu_xstrdup(s->nouveau_bound
                                          ? _("The NVIDIA driver is installed, its module is built for this kernel and nouveau is blacklisted: reboot so that the NVIDIA driver loads, then run cudaup again (the same command) to go on. Installing a driver again would not help.")
                                          : _("The NVIDIA driver is installed and its module is built for this kernel: reboot so that it loads, then run cudaup again (the same command) to go on. Installing a driver again would not help."));
            continue;
        }
        if (!p)
            p = cu_drv_choose(&in);
        char *fix = NULL;
        if (strcmp(p->action, "install") == 0) {
            struct cu_buf b;
            cu_buf_init(&b);
            for (size_t k = 0; k < p->packages.n; k++)
                cu_buf_printf(&b, "%s%s", k ? " " : "", p->packages.v[k]);
            char vb[32];
            fix = cu_xasprintf(_("Run `cudaup install`: it installs the NVIDIA driver branch %d (%s or newer, %s kernel modules) with %s (%s)%s%s, holds the branch, and says when to reboot. By hand: %s"),
                               p->branch, cu_driver_version_format(&p->version, vb, sizeof(vb)), cu_drv_flavor_word(p->flavor), p->manager,
                               b.data, strcmp(p->source, "nvidia") == 0 ? _(" from NVIDIA's repository") : "",
                               p->blacklist_nouveau ? _(", blacklists nouveau") : "",
                               strcmp(pr->v[i].code, "no-driver") == 0 ? hint : pr->v[i].fix);
            cu_buf_fini(&b);
        } else if (strcmp(p->action, "refuse") == 0) {
            fix = cu_xasprintf(_("%s By hand: %s"), p->refusal,
                               strcmp(pr->v[i].code, "no-driver") == 0 ? hint : pr->v[i].fix);
        }
        if (fix) {
            free(pr->v[i].fix);
            pr->v[i].fix = fix;
        }
    }
    cu_drv_plan_free(p);
}
