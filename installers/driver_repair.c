/* SPDX-License-Identifier: MIT */
/*
 * After the driver's install: the resume record and the run after the reboot (which knows whether a
 * reboot happened: the boot id), the end of an install into a machine image, and `repair`'s driver
 * part (installers/driver.h).  Repair fixes the driver that is there; it never swaps it for another
 * (a driver change is an install of its own, with its own consent).
 */
#include "config.h"

#define CU_LOG_TAG "driver"
#include "driver_int.h"
#include "driver_image.h"
#include "driver_repair_plan.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"

#define RESUME "resume.json"

/* ---- the resume record -------------------------------------------------------------------------------- */

enum cu_status
drv_resume_write(struct inst_driver_ctx *c, const struct cu_plan *plan, const struct cu_facts *facts, bool queued,
                 struct cu_error *err)
{
    const struct cu_drv_plan *d = plan->driver;
    json_t *r = json_object();
    json_t *steps = json_array();
    /* Where to go on from: the other installers' steps, in order. */
    for (size_t i = 0; i < plan->n_steps; i++)
        if (strcmp(plan->steps[i].installer, "driver") != 0)
            json_array_append_new(steps, json_string(plan->steps[i].detail));
    json_object_set_new(r, "after", json_string("driver"));
    json_object_set_new(r, "branch", json_integer(d->branch));
    json_object_set_new(r, "flavor", json_string(d->flavor));
    json_object_set_new(r, "secure_boot", json_string(d->secure_boot));
    json_object_set_new(r, "mok_cert", cu_json_str_or_null(d->mok_cert));
    json_object_set_new(r, "mok_queued", json_boolean(queued));
    json_object_set_new(r, "steps", steps);
    /* Which boot installed it: a run in the same boot has not rebooted yet. */
    json_object_set_new(r, "boot_id", cu_json_str_or_null(c->sys->image || !facts->drv ? NULL : facts->drv->boot_id));
    json_object_set_new(r, "image", json_boolean(c->sys->image));
    return drv_write_json(c->state_dir, RESUME, r, err);
}

/* A path shown in advice as a command's argument: nothing a shell would read as more. */
static bool
plain_path(const char *p)
{
    if (!p || p[0] != '/' || strlen(p) > 200)
        return false;
    for (; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/._-", *p)))
            return false;
    return true;
}

/*
 * The record, checked: NULL when there is none; *err set (and NULL) when it is not to be trusted, with
 * *damaged when it is no JSON object at all (empty, or cut short: a disk that filled up, a copy that stopped).
 */
static json_t *
resume_load(const char *state_dir, bool *damaged, struct cu_error *err)
{
    CU_AUTOFREE char *path = cu_path_join(state_dir, RESUME);
    char *text = NULL;
    size_t len;
    json_t *j = NULL;
    *damaged = false;
    enum cu_status st = cu_read_record(state_dir, RESUME, 1 << 20, &text, &len, err);
    if (st == CU_E_NOT_FOUND) {
        cu_error_clear(err);
        return NULL;
    }
    if (st != CU_OK)
        return NULL;
    st = cu_json_parse_object(text, len, path, &j, err);
    free(text);
    if (st != CU_OK) {
        *damaged = true;
        return NULL;
    }
    const json_t *b = json_object_get(j, "branch");
    const char *cert = cu_json_str(j, "mok_cert"), *boot = cu_json_str(j, "boot_id");
    if (!json_is_integer(b) || json_integer_value(b) < 1 || json_integer_value(b) > 9999 ||
        (cert && !plain_path(cert)) || (boot && strlen(boot) > 64)) {
        cu_error_set(err, CU_E_INPUT, 0, _("%s is not a resume record cudaup wrote; it will not act on it. Remove it if it is not yours."), path);
        json_decref(j);
        return NULL;
    }
    return j;
}

json_t *
inst_driver_resume_record(const char *state_dir)
{
    struct cu_error e;
    bool damaged;
    return resume_load(state_dir, &damaged, &e);
}

enum cu_status
inst_driver_resume(const char *state_dir, const struct cu_facts *f, bool *resumed, char **note, struct cu_error *err)
{
    *resumed = false;
    *note = NULL;
    cu_error_clear(err);
    bool damaged = false;
    json_t *r = resume_load(state_dir, &damaged, err);
    if (!r && damaged) {
        /* Which install it waited for cannot be read; what it was for can be: a loaded NVIDIA driver ends it. */
        CU_AUTOFREE char *path = cu_path_join(state_dir, RESUME);
        CU_AUTOFREE char *why = cu_xstrdup(cu_error_text(err));
        char b[32];
        if (f->driver.kind == CU_DRIVER_NVIDIA && f->driver.version.n && unlink(path) == 0) {
            cu_error_clear(err);
            *note = cu_xasprintf(_("%s; the NVIDIA driver %s is loaded, so that record of a driver install waiting for a reboot has nothing left to resume: it was removed, going on."),
                                 why, cu_driver_version_format(&f->driver.version, b, sizeof(b)));
            return CU_OK;
        }
        cu_error_clear(err);
        cu_error_set(err, CU_E_INPUT, 0,
                     _("%s; it is the record of a driver install waiting for a reboot, and no NVIDIA driver is loaded, so cudaup cannot tell what it was waiting for."),
                     why);
        CU_AUTOFREE char *q = cu_sh_quote(path);
        cu_error_advise(err, _("See what the driver lacks with `cudaup doctor` (after a reboot, if the machine has not had one since the install); then remove the record (`rm %s`) and run cudaup again: it plans the driver anew."),
                        q);
        return CU_E_INPUT;
    }
    if (!r)
        return err->code;
    if (cu_json_str(r, "stopped")) {
        /* An install that stopped before its end (a failed step, Ctrl-C), not for a reboot: it goes on from there
         * (inst_driver_install, driver_stop.c). */
        json_decref(r);
        return CU_OK;
    }
    int branch = (int)json_integer_value(json_object_get(r, "branch"));
    const char *flavor = cu_json_str(r, "flavor");
    const char *cert = cu_json_str(r, "mok_cert");
    const char *boot = cu_json_str(r, "boot_id");
    bool was_image = json_is_true(json_object_get(r, "image"));
    bool mok = cu_json_str(r, "secure_boot") && strcmp(cu_json_str(r, "secure_boot"), "mok") == 0;
    const struct cu_drv_state *s = f->drv;
    const struct cu_driver_info *d = &f->driver;
    char b[32];
    enum cu_status st = CU_OK;
    if (was_image && s && s->image) {
        /* Still the image, seen from outside: its first boot has not happened. */
        st = cu_error_set(err, CU_E_REBOOT, 0, _("The NVIDIA driver %d is installed in this machine image, which has not booted yet."), branch);
        cu_error_advise(err, _("Boot the image, and there run `cudaup install` (the same options, without --root): it checks that the driver loads and goes on; or `cudaup verify`."));
    } else if (boot && s && s->boot_id && strcmp(boot, s->boot_id) == 0) {
        /* The same boot that installed it: not rebooted yet, whatever the module looks like now. */
        st = cu_error_set(err, CU_E_REBOOT, 0, _("The NVIDIA driver %d is installed, but this machine has not been rebooted yet."), branch);
        if (mok && json_is_true(json_object_get(r, "mok_queued")))
            cu_error_advise(err, _("Reboot now; at the blue MokManager screen: Enroll MOK, Continue, Yes, the one-time password you chose, Reboot. Then run cudaup again (the same command)."));
        else if (mok)
            cu_error_advise(err, _("Before the reboot, queue the signing key: `sudo mokutil --import %s` (choose a one-time password); reboot, and at the blue MokManager screen: Enroll MOK, Continue, Yes, the password, Reboot. Then run cudaup again (the same command)."),
                            cert ? cert : "/var/lib/dkms/mok.pub");
        else
            cu_error_advise(err, _("Reboot now (cudaup never reboots by itself), then run cudaup again (the same command): it checks that the driver loads and goes on."));
    } else if (d->kind == CU_DRIVER_NVIDIA && d->version.n && (int)d->version.part[0] == branch) {
        *note = cu_xasprintf(_("After the reboot: the NVIDIA driver %s (%s kernel modules%s) is loaded; going on."),
                             cu_driver_version_format(&d->version, b, sizeof(b)),
                             cu_drv_flavor_word(s && s->flavor ? s->flavor : (flavor ? flavor : "?")),
                             s && s->module_signed == 1 ? _(", signed") : "");
        CU_AUTOFREE char *path = cu_path_join(state_dir, RESUME);
        unlink(path);
        *resumed = true;
    } else if (s && s->nouveau_bound) {
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0, _("After the reboot, nouveau still holds the GPU, so the NVIDIA driver %d did not load."), branch);
        cu_error_advise(err, _("The initramfs still loads nouveau: run `sudo update-initramfs -u` (Debian, Ubuntu) or `sudo dracut -f`, reboot, and run cudaup again; `cudaup repair` does the first part."));
    } else if (s && s->module_for_kernel == 0) {
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0, _("After the reboot, no nvidia module exists for the running kernel %s, so the driver %d did not load."),
                          s->kernel_release ? s->kernel_release : "?", branch);
        cu_error_advise(err, _("Build it with `sudo dkms autoinstall` (or install the signed module package for this kernel), then `sudo modprobe nvidia` and run cudaup again; `cudaup repair` does it."));
    } else if (s && s->secure_boot == 1 && s->module_signed != 1) {
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0, _("After the reboot, Secure Boot refuses the nvidia module: its signing key is not enrolled."));
        cu_error_advise(err, _("Queue the key again with `sudo mokutil --import %s`, reboot, and at the blue MokManager screen choose Enroll MOK, Continue, Yes, type the password, Reboot; then run cudaup again."),
                        cert ? cert : "/var/lib/dkms/mok.pub");
    } else {
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0, _("After the reboot, the NVIDIA driver %d is not loaded."), branch);
        cu_error_advise(err, _("Run `sudo modprobe nvidia` and read its message (`sudo dmesg | grep -i nvidia`), or `cudaup doctor`; then run cudaup again."));
    }
    json_decref(r);
    return st;
}

/* ---- the kernels and their modules, under the root -------------------------------------------------------------- */

/* The kernel module file of the driver itself (not -uvm, -drm ...): nvidia, Debian's nvidia-current, nvidia-tesla-470 ... */
static bool
driver_module(const char *n)
{
    const char *ko = strstr(n, ".ko");
    if (!ko || !(strcmp(ko, ".ko") == 0 || strcmp(ko, ".ko.xz") == 0 || strcmp(ko, ".ko.zst") == 0 || strcmp(ko, ".ko.gz") == 0))
        return false;
    size_t len = (size_t)(ko - n);
    if (len == 6 && strncmp(n, "nvidia", 6) == 0)
        return true;
    if (len == 14 && strncmp(n, "nvidia-current", 14) == 0)
        return true;
    for (const char *pre = "nvidia-tesla-"; cu_str_has_prefix(n, pre) && len > strlen(pre);) {
        for (size_t i = strlen(pre); i < len; i++)
            if (n[i] < '0' || n[i] > '9')
                return false;
        return true;
    }
    return false;
}

static bool
find_module(const struct cu_sysroot *root, const char *dir, int depth)
{
    DIR *d = cu_sysroot_opendir(root, dir);
    struct dirent *de;
    bool found = false;
    while (d && !found && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        CU_AUTOFREE char *p = cu_path_join(dir, de->d_name);
        bool is_dir = cu_sysroot_is_dir(root, p);
        if (!is_dir && driver_module(de->d_name))
            found = true;
        else if (is_dir && depth > 0 && strcmp(de->d_name, "build") != 0 && strcmp(de->d_name, "source") != 0)
            found = find_module(root, p, depth - 1);
    }
    if (d)
        closedir(d);
    return found;
}


/* The kernel the image boots: its newest installed kernel (one with modules or an image file, not headers
 * alone: a headers package makes /lib/modules/K/build only), or NULL.  Caller frees. */
static char *
boot_kernel(const struct cu_sysroot *root)
{
    DIR *d = cu_sysroot_opendir(root, "/lib/modules");
    struct dirent *de;
    struct cu_strv ks;
    cu_strv_init(&ks);
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        CU_AUTOFREE char *mods = cu_xasprintf("/lib/modules/%s/kernel", de->d_name);
        CU_AUTOFREE char *vm = cu_xasprintf("/boot/vmlinuz-%s", de->d_name);
        CU_AUTOFREE char *vm2 = cu_xasprintf("/lib/modules/%s/vmlinuz", de->d_name);
        if (cu_sysroot_is_dir(root, mods) || cu_sysroot_exists(root, vm) || cu_sysroot_exists(root, vm2))
            cu_strv_push(&ks, de->d_name);
    }
    if (d)
        closedir(d);
    char *newest = NULL;
    if (ks.n) {
        drv_sort_kernels(&ks);
        newest = cu_xstrdup(ks.v[ks.n - 1]);
    }
    cu_strv_fini(&ks);
    return newest;
}

enum cu_status
drv_image_done(struct inst_driver_ctx *c, const struct cu_plan *plan, struct cu_error *err)
{
    const struct cu_drv_plan *d = plan->driver;
    struct cu_strv kernels, missing, inst, held;
    CU_AUTOFREE char *built = NULL;
    CU_AUTOFREE char *boot = boot_kernel(&c->sys->files);
    enum cu_status st = CU_OK;
    cu_strv_init(&kernels);
    cu_strv_init(&missing);
    cu_strv_init(&inst);
    cu_strv_init(&held);
    drv_build_kernels(c->sys, &kernels);
    for (size_t i = 0; i < kernels.n; i++) {
        CU_AUTOFREE char *dir = cu_xasprintf("/lib/modules/%s", kernels.v[i]);
        if (!find_module(&c->sys->files, dir, 5))
            cu_strv_push(&missing, kernels.v[i]);
    }
    if (!kernels.n && !boot) {
        st = cu_error_set(err, CU_E_TOOL, 0, _("The driver's packages are installed in %s, but the image has no kernel with headers (lib/modules/*/build), so no module was built for it."),
                          c->sys->root);
        cu_error_advise(err, _("Install the image's kernel and its headers (on Debian: linux-image-amd64 linux-headers-amd64) into it, then run the same command again."));
        goto out;
    }
    /* The kernel the image will boot (its newest) must have the module, whatever else has one. */
    if (boot && !cu_strv_contains(&kernels, boot)) {
        CU_AUTOFREE char *dir = cu_xasprintf("/lib/modules/%s", boot);
        if (!find_module(&c->sys->files, dir, 5)) {
            st = cu_error_set(err, CU_E_TOOL, 0, _("The driver's packages are installed in %s, but the kernel the image boots (%s, its newest) has no nvidia module: its headers are not installed, so DKMS could not build one."),
                              c->sys->root, boot);
            cu_error_advise(err, _("Install that kernel's headers into the image (on Debian and Ubuntu: linux-headers-%s), or remove that kernel from it, then run the same command again."),
                            boot);
            goto out;
        }
    }
    if (missing.n) {
        CU_AUTOFREE char *list = cu_xstrdup(missing.v[0]);
        st = cu_error_set(err, CU_E_TOOL, 0, _("The driver's packages are installed in %s, but no nvidia module was built for its kernel %s."), c->sys->root, list);
        cu_error_advise(err, _("The package manager's output above (and the log) says why DKMS did not build it; fix that, then run the same command again."));
        goto out;
    }
    if (boot && !cu_strv_contains(&kernels, boot))
        cu_strv_push(&kernels, boot); /* its module prebuilt (no headers needed), or built above */
    /* The branch is held as the distribution holds it: read back from the image's own files and database. */
    if (strcmp(d->manager ? d->manager : "", "apt") == 0) {
        CU_AUTOFREE char *prefs = NULL;
        struct cu_error e;
        if (cu_sys_read(c->sys, DRV_PREFS_FILE, 1 << 16, &prefs, &e) != CU_OK)
            prefs = NULL;
        if ((st = drv_installed(c->sys, d->manager, &inst, NULL, &held, err)) != CU_OK)
            goto out;
        CU_AUTOFREE char *why = drv_image_hold_missing(d, c->sys->root, prefs, &inst, &held);
        if (why) {
            st = cu_error_set(err, CU_E_TOOL, 0, "%s", why);
            goto out;
        }
    }
    cu_error_clear(err);
    if ((st = drv_resume_write(c, plan, &(struct cu_facts){0}, false, err)) != CU_OK)
        goto out;
    struct cu_buf kl;
    cu_buf_init(&kl);
    for (size_t i = 0; i < kernels.n; i++)
        cu_buf_printf(&kl, "%s%s", i ? ", " : "", kernels.v[i]);
    built = cu_xasprintf(_("the module is built for the image's kernel %s, the branch held"), kl.data);
    cu_run_result(c->run, "driver", "image", built, CU_OK, true);
    st = cu_error_set(err, CU_E_REBOOT, 0,
                      _("The NVIDIA driver %d (%s) is installed in the image %s: its module is built for the image's kernel %s and the branch is held."),
                      d->branch, cu_drv_flavor_word(d->flavor), c->sys->root, kl.data);
    cu_error_advise(err, _("Nothing is loaded or rebooted from outside. At the image's first boot, run `cudaup install` there (the same options, without --root): it checks that the driver loads and goes on; or `cudaup verify`."));
    cu_buf_fini(&kl);
out:
    cu_strv_fini(&kernels);
    cu_strv_fini(&missing);
    cu_strv_fini(&inst);
    cu_strv_fini(&held);
    return st;
}

/* ---- repair ------------------------------------------------------------------------------------------------------------ */

bool
inst_driver_repairs(const char *code)
{
    static const char *const codes[] = {"nouveau", "driver-mismatch", "driver-module-missing", "driver-unsigned-secure-boot",
                                        "driver-unpinned"};
    for (size_t i = 0; i < CU_N_ELEMENTS(codes); i++)
        if (strcmp(code, codes[i]) == 0)
            return true;
    return false;
}

bool
inst_driver_installs(const char *code)
{
    static const char *const codes[] = {"no-driver", "driver-too-old", "driver-too-old-for-gpu", "nouveau", "no-libcuda"};
    for (size_t i = 0; i < CU_N_ELEMENTS(codes); i++)
        if (strcmp(code, codes[i]) == 0)
            return true;
    return false;
}

/* Is there a driver module for kernel @release under the root now? */
static bool
module_for(const struct inst_driver_ctx *c, const char *release)
{
    CU_AUTOFREE char *dir = cu_xasprintf("/lib/modules/%s", release);
    return c->sys->files_open && find_module(&c->sys->files, dir, 5);
}


static void
modprobe_reload(struct inst_driver_ctx *c, bool *reboot)
{
    const char *unload[] = {"modprobe", "-r", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia", NULL};
    const char *load[] = {"modprobe", "nvidia", NULL};
    struct cu_error e;
    if (c->sys->image)
        return; /* nothing runs in an image */
    if (drv_run_step(c, "reload", unload, false, &e) != CU_OK || drv_run_step(c, "load", load, false, &e) != CU_OK)
        *reboot = true; /* something holds the GPU: only a reboot swaps the module */
}

enum cu_status
inst_driver_repair(struct inst_driver_ctx *c, const struct cu_facts *f, const struct cu_catalog *cat,
                   const struct cu_problems *pr, bool *reboot, struct cu_error *err)
{
    const struct cu_drv_state *s = f->drv;
    enum cu_status st = CU_OK;
    int branch = drv_repair_branch(f);
    const struct cu_drv_pkg *row = branch ? cu_drv_row_for(f, cat, branch, s ? s->flavor : NULL) : NULL;
    const struct cu_drv_pkg *any = row ? row : cu_drv_row_for(f, cat, 0, NULL);
    *reboot = false;
    if (!c->cat)
        c->cat = cat;
    if ((st = drv_preflight(c, any ? any->manager : "apt", err)) != CU_OK)
        return st;
    if (drv_has_code(pr, "nouveau")) {
        if ((st = drv_blacklist_nouveau(c, any ? any->initramfs : NULL, err)) != CU_OK)
            return st;
        *reboot = true;
    }
    bool missing = drv_has_code(pr, "driver-module-missing"), unsigned_sb = drv_has_code(pr, "driver-unsigned-secure-boot");
    if (missing || unsigned_sb) {
        CU_AUTOFREE char *signed_pkg = NULL, *own = NULL;
        drv_signed_packages(row, f, branch, c->sys->image, &signed_pkg, &own);
        if (signed_pkg) {
            const char *both[] = {"apt-get", "install", "-y", signed_pkg, own, NULL};
            const char *meta[] = {"apt-get", "install", "-y", signed_pkg, NULL};
            struct cu_error e1;
            if (!own || drv_run_step(c, "install", both, false, &e1) != CU_OK)
                st = drv_run_step(c, "install", meta, false, err);
        } else {
            /* DKMS builds against the running kernel's headers: those first (the metas may not have followed the kernel). */
            struct cu_strv h;
            cu_strv_init(&h);
            drv_running_headers(row, f, branch, c->sys->image, &h);
            if (h.n && (st = drv_run_words(c, "headers", drv_install_words(row->manager), &h, err)) != CU_OK) {
                CU_AUTOFREE char *list = cu_strv_join(&h, " ");
                cu_error_advise(err, _("The package manager has no %s (the headers of the running kernel %s: archives drop them once a newer kernel replaces it), so DKMS cannot build the module for it. Boot the newest installed kernel and run `cudaup repair` there."),
                                list, s->kernel_release);
            }
            cu_strv_fini(&h);
            /* Forced: an unsigned module already built stays unsigned under `dkms autoinstall`. */
            if (st == CU_OK)
                st = drv_dkms_rebuild(c, err);
        }
        /* Said done only when it is: a module for the running kernel is there now. */
        if (st == CU_OK && missing && s && s->kernel_release && !c->sys->image && !module_for(c, s->kernel_release)) {
            st = cu_error_set(err, CU_E_TOOL, 0, _("After the repair there is still no nvidia module for the running kernel %s, so a reboot would not help."),
                              s->kernel_release);
            cu_error_advise(err, _("Its package manager has no module package for that kernel, or DKMS could not build one (its output is above and in the log). Boot a kernel the driver has a module for, or install that kernel's headers and run `cudaup repair` again."));
        }
        if (st != CU_OK)
            return st;
        if (unsigned_sb && !signed_pkg) {
            bool queued;
            if ((st = drv_queue_key(c, row && row->mok_cert ? row->mok_cert : "/var/lib/dkms/mok.pub", &queued, err)) != CU_OK)
                return st;
            *reboot = true;
        } else {
            bool rb = false;
            modprobe_reload(c, &rb);
            *reboot |= rb;
        }
    }
    if (drv_has_code(pr, "driver-mismatch"))
        modprobe_reload(c, reboot);
    if (drv_has_code(pr, "driver-unpinned") && s) {
        const char *kind = row ? row->pin : "apt-mark hold";
        struct cu_strv hold; /* the branch's packages; the kernel-module ones follow each kernel */
        cu_strv_init(&hold);
        for (size_t i = 0; i < s->installed.n; i++)
            if (!cu_str_has_prefix(s->installed.v[i], "linux-modules-nvidia-"))
                cu_strv_push(&hold, s->installed.v[i]);
        struct cu_drv_step *ps = row && (strcmp(kind, "apt preferences") == 0 || strcmp(kind, "nvidia pinning package") == 0)
                                     ? cu_drv_pin_step(row, branch, f)
                                     : NULL;
        if (ps && ps->text)
            st = drv_write_step(c, "pin", ps->path, ps->text, err);
        else if (ps && ps->argv)
            st = drv_run_step(c, "pin", (const char *const *)ps->argv, false, err);
        else if (strcmp(kind, "apt-mark hold") == 0 && hold.n)
            st = drv_run_words(c, "pin", "apt-mark hold", &hold, err);
        else if (strcmp(kind, "zypper addlock") == 0 && hold.n)
            st = drv_run_words(c, "pin", "zypper --non-interactive addlock", &hold, err);
        else if (strcmp(kind, "dnf module") == 0 && row && row->module_stream) {
            CU_AUTOFREE char *stream = cu_drv_expand(row->module_stream, branch, f);
            const char *argv[] = {"dnf", "-y", "module", "enable", stream, NULL};
            st = drv_run_step(c, "pin", argv, false, err);
        } else if (strcmp(kind, "dnf versionlock") == 0) {
            CU_AUTOFREE char *pat = cu_xasprintf("*nvidia*%d*", branch);
            const char *argv[] = {"dnf", "versionlock", "add", pat, NULL};
            st = drv_run_step(c, "pin", argv, false, err);
        }
        cu_strv_fini(&hold);
        cu_drv_step_free(ps);
    }
    return st;
}
