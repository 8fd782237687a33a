/* SPDX-License-Identifier: MIT */
/*
 * The driver stage (installers/driver.h).  Every command and every file outside cudaup's prefix
 * goes through core/syscmd, which tests point at stand-ins and a scratch root.
 */
#include "config.h"

#include "driver_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/install/exec.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "installer.h"

#define BLACKLIST_FILE DRV_BLACKLIST_FILE
#define SOURCES_FILE DRV_SOURCES_FILE

/* ---- planning ------------------------------------------------------------------------------ */

enum cu_status
inst_driver_prepare(const struct cu_prepare_in *in, struct cu_drv_plan **out, struct cu_facts *planned,
                    struct cu_error *err)
{
    struct cu_drv_wish w = {.driver = in->cfg->driver, .source = in->cfg->driver_source, .cuda = in->cfg->cuda};
    enum cu_status st;
    *out = NULL;
    *planned = *in->facts;
    if ((st = cu_drv_wish_check(&w, err)) != CU_OK)
        return st;
    if (in->unconstrained || !in->catalog->driver)
        return CU_OK; /* `mirror` plans for other machines */
    struct cu_drv_in din = {in->facts, in->catalog, &w};
    struct cu_drv_plan *p = cu_drv_choose(&din);
    if (strcmp(p->action, "refuse") == 0) {
        cu_error_set(err, CU_E_UNSUPPORTED, 0, "%s", p->refusal);
        if (p->advice)
            cu_error_advise(err, "%s", p->advice);
        cu_drv_plan_free(p);
        return CU_E_UNSUPPORTED;
    }
    cu_drv_planned_facts(in->facts, in->catalog, p, planned);
    inst_driver_image(in, p);
    *out = p;
    return CU_OK;
}

void
inst_driver_image(const struct cu_prepare_in *in, struct cu_drv_plan *p)
{
    /* Into a machine image: the install ends with the module built for its kernels; its first boot goes on. */
    if (!p || p->image || !in->facts->drv || !in->facts->drv->image || strcmp(p->action, "install") != 0)
        return;
    p->image = true;
    cu_strv_push_owned(&p->reasons, cu_xstrdup(_("The machine root is an image (no running kernel): the package manager runs inside it (chroot), DKMS builds the module for the image's own kernels, and nothing is loaded or rebooted; the image's first boot finishes with `cudaup install` (it resumes) or `cudaup verify`.")));
}

enum cu_status
inst_driver_bind(const struct cu_prepare_in *in, struct cu_plan *plan, struct cu_error *err)
{
    static const char *const binding[] = {"no-gpu", "nouveau", "no-libcuda"};
    struct cu_problems pr;
    enum cu_status st = CU_OK;
    if (in->unconstrained)
        return CU_OK;
    bool cured = plan->driver && strcmp(plan->driver->action, "install") == 0;
    cu_problems_init(&pr);
    cu_doctor_check(in->facts, in->catalog, NULL, in->envp, &pr);
    for (size_t i = 0; i < pr.n && st == CU_OK; i++) {
        const struct cu_problem *p = &pr.v[i];
        bool binds = false;
        for (size_t k = 0; k < CU_N_ELEMENTS(binding); k++)
            binds |= strcmp(p->code, binding[k]) == 0;
        if (!binds || p->severity != CU_SEV_ERROR || (cured && strcmp(p->code, "no-gpu") != 0))
            continue;
        if (!plan->framework) {
            cu_plan_warn(plan, _("%s The toolkit installs for building; to run GPU programs: %s"), p->message, p->fix);
            continue;
        }
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0, _("%s No framework can use the GPU until that is fixed."), p->message);
        cu_error_advise(err, strcmp(p->code, "no-gpu") == 0 ? _("%s To install the toolkit only, for building with nvcc, add --framework none.")
                                                             : _("%s Or let cudaup install the driver: --driver auto."),
                        p->fix);
    }
    cu_problems_fini(&pr);
    return st;
}

/* The driver's steps in the plan, first of all (its installer is first in the registry). */
static void
driver_plan_steps(struct cu_plan *p)
{
    const struct cu_drv_plan *d = p->driver;
    if (!d || strcmp(d->action, "install") != 0)
        return;
    if (d->components)
        cu_plan_add_step(p, "driver", "sources", _("enable the %s components of the distribution's archive"), d->components);
    if (d->repo)
        cu_plan_add_step(p, "driver", "repository", _("add NVIDIA's repository (%s)"), d->repo);
    if (d->module_stream)
        cu_plan_add_step(p, "driver", "module", _("enable the module stream %s"), d->module_stream);
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < d->packages.n; i++)
        cu_buf_printf(&b, "%s%s", i ? " " : "", d->packages.v[i]);
    cu_plan_add_step(p, "driver", "install", _("install the NVIDIA driver %d (%s) with %s: %s"), d->branch, d->flavor,
                     d->manager, b.data);
    cu_buf_fini(&b);
    if (strcmp(d->pin, "none") != 0)
        cu_plan_add_step(p, "driver", "pin", _("hold the branch: %s"), d->pin);
    if (d->blacklist_nouveau)
        cu_plan_add_step(p, "driver", "blacklist", _("blacklist nouveau (%s) and rebuild the initramfs (%s)"),
                         BLACKLIST_FILE, d->initramfs ? d->initramfs : "-");
    if (strcmp(d->secure_boot, "mok") == 0)
        cu_plan_add_step(p, "driver", "mok", _("queue DKMS's signing key %s for enrolment (mokutil --import; you type a one-time password)"),
                         d->mok_cert ? d->mok_cert : "");
    if (d->image)
        cu_plan_add_step(p, "driver", "image", _("check the module is built for the image's kernels and the branch held, then stop (exit 5): the image's first boot finishes with `cudaup install` (it resumes) or `cudaup verify`"));
    else if (d->reboot)
        cu_plan_add_step(p, "driver", "reboot", _("stop for a reboot (exit 5); run cudaup again afterwards to go on"));
    else
        cu_plan_add_step(p, "driver", "load", _("load the module (modprobe nvidia)"));
}

const struct cu_installer_ops inst_driver_ops = {
    .name = "driver",
    .plan = driver_plan_steps,
    .run = NULL, /* the install command runs it first, since it may stop for a reboot */
};

/* ---- carrying it out ----------------------------------------------------------------------- */

/* Does any apt source of the system already name @component? */
static bool
apt_has_component(const struct cu_sys *s, const char *component, char **uri, char **suite)
{
    const char *files[] = {"/etc/apt/sources.list", "/etc/apt/sources.list.d/debian.sources"};
    bool has = false;
    for (size_t i = 0; i < CU_N_ELEMENTS(files); i++) {
        char *text = NULL;
        struct cu_error e;
        if (cu_sys_read(s, files[i], 1 << 20, &text, &e) != CU_OK) /* through the root: its links stay inside it */
            continue;
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            line += strspn(line, " \t");
            if (line[0] == '#')
                continue;
            if (strstr(line, component))
                has = true;
            /* "deb URI SUITE main ..." or deb822 "URIs:" / "Suites:" */
            if (cu_str_has_prefix(line, "deb ") && !*uri) {
                struct cu_strv w;
                cu_strv_init(&w);
                cu_strv_split(&w, line, " \t");
                size_t at = w.n > 1 && w.v[1][0] == '[' ? 2 : 1;
                while (at < w.n && w.v[at][0] != 'h' && w.v[at][0] != 'f')
                    at++;
                if (at + 1 < w.n) {
                    *uri = cu_xstrdup(w.v[at]);
                    *suite = cu_xstrdup(w.v[at + 1]);
                }
                cu_strv_fini(&w);
            } else if (cu_str_has_prefix(line, "URIs:") && !*uri) {
                *uri = cu_xstrdup(cu_str_strip(line + 5));
            } else if (cu_str_has_prefix(line, "Suites:") && !*suite) {
                CU_AUTOFREE char *v = cu_xstrdup(cu_str_strip(line + 7));
                *suite = cu_xstrndup(v, strcspn(v, " \t"));
            }
        }
        free(text);
    }
    return has;
}

static enum cu_status
enable_components(struct inst_driver_ctx *c, const struct cu_drv_plan *d, const struct cu_facts *f,
                  struct cu_error *err)
{
    CU_AUTOFREE char *uri = NULL, *suite = NULL;
    struct cu_strv want;
    bool all = true;
    cu_strv_init(&want);
    cu_strv_split(&want, d->components, " ");
    for (size_t i = 0; i < want.n; i++)
        all &= apt_has_component(c->sys, want.v[i], &uri, &suite);
    cu_strv_fini(&want);
    if (all)
        return CU_OK;
    if (!uri || !suite) {
        if (f->drv && f->drv->version_codename && !suite)
            suite = cu_xstrdup(f->drv->version_codename);
        if (!uri || !suite)
            return cu_error_set(err, CU_E_UNSUPPORTED, 0,
                                _("The driver's packages are in the %s components, and cudaup cannot tell which archive this system uses to enable them; add them to its apt sources, then run cudaup again."),
                                d->components);
    }
    CU_AUTOFREE char *text = cu_xasprintf("# Written by cudaup: the components the NVIDIA driver's packages are in.\n"
                                          "Types: deb\nURIs: %s\nSuites: %s\nComponents: %s\n",
                                          uri, suite, d->components);
    return drv_write_step(c, "sources", SOURCES_FILE, text, err);
}

static enum cu_status
add_repository(struct inst_driver_ctx *c, const struct cu_drv_plan *d, struct cu_error *err)
{
    const char *base = strrchr(d->repo, '/') + 1;
    if (strcmp(d->manager, "zypper") == 0) {
        const char *argv[] = {"zypper", "--non-interactive", "addrepo", "--refresh", d->repo, "cuda-nvidia", NULL};
        return drv_run_step(c, "repository", argv, false, err);
    }
    if (!c->net)
        return cu_error_set(err, CU_E_NETWORK, 0, _("NVIDIA's repository file %s cannot be fetched here."), d->repo);
    struct cu_buf b;
    cu_buf_init(&b);
    enum cu_status st = cu_net_fetch_small(c->net, d->repo, 1u << 20, &b, err);
    if (st == CU_OK && strcmp(d->manager, "dnf") == 0) {
        CU_AUTOFREE char *path = cu_xasprintf("/etc/yum.repos.d/%s", base);
        st = drv_write_step(c, "repository", path, b.data, err);
    } else if (st == CU_OK) {
        /* apt: NVIDIA's cuda-keyring package installs the repository and its key. */
        CU_AUTOFREE char *deb = cu_xasprintf("%s/%s", c->cache_dir, base);
        if ((st = cu_mkdir_p(c->cache_dir, 0755, err)) == CU_OK &&
            (st = cu_write_file_atomic(deb, b.data, b.len, 0644, err)) == CU_OK) {
            const char *argv[] = {"apt-get", "install", "-y", deb, NULL};
            st = drv_run_step(c, "repository", argv, false, err);
        }
    }
    cu_buf_fini(&b);
    return st;
}

static const char *
install_cmd(const char *manager)
{
    if (strcmp(manager, "apt") == 0)
        return "apt-get install -y";
    if (strcmp(manager, "dnf") == 0)
        return "dnf install -y";
    if (strcmp(manager, "zypper") == 0)
        return "zypper --non-interactive install";
    return "pacman -S --noconfirm --needed";
}

static enum cu_status
pin(struct inst_driver_ctx *c, const struct cu_drv_plan *d, struct cu_error *err)
{
    if (strcmp(d->pin_kind, "apt-mark hold") == 0)
        return drv_run_words(c, "pin", "apt-mark hold", &d->pin_packages, err);
    if (strcmp(d->pin_kind, "zypper addlock") == 0)
        return drv_run_words(c, "pin", "zypper --non-interactive addlock", &d->pin_packages, err);
    if (strcmp(d->pin_kind, "dnf versionlock") == 0) {
        CU_AUTOFREE char *pat = cu_xasprintf("*nvidia*%d*", d->branch);
        const char *argv[] = {"dnf", "versionlock", "add", pat, NULL};
        return drv_run_step(c, "pin", argv, false, err);
    }
    return CU_OK; /* "dnf module": the stream enabled before the install holds it; "none" */
}

char *
inst_driver_reboot_text(const struct cu_drv_plan *p, bool mok_queued)
{
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_printf(&b, _("The NVIDIA driver %d (%s) is installed. Reboot now; cudaup never reboots by itself."), p->branch,
                  p->flavor);
    if (p->secure_boot && strcmp(p->secure_boot, "mok") == 0) {
        if (mok_queued)
            cu_buf_printf(&b, " %s", _("At the blue MokManager screen after the reboot: Enroll MOK, Continue, Yes, type the one-time password you chose, then Reboot."));
        else
            cu_buf_printf(&b, _(" Before the reboot, queue the signing key: `sudo mokutil --import %s` (choose a one-time password); at the blue MokManager screen: Enroll MOK, Continue, Yes, the password, Reboot."),
                          p->mok_cert ? p->mok_cert : "");
    }
    cu_buf_printf(&b, " %s", _("Then run cudaup again (the same command): it checks that the driver loads and goes on with CUDA, cuDNN, the environment and verify."));
    return cu_buf_steal(&b);
}

enum cu_status
inst_driver_install(struct inst_driver_ctx *c, const struct cu_plan *plan, const struct cu_facts *facts,
                    struct cu_error *err)
{
    const struct cu_drv_plan *d = plan->driver;
    enum cu_status st;
    if (!d || strcmp(d->action, "install") != 0)
        return CU_OK;
    c->plan = d;
    /* Before anything is touched: the runner can run these where it runs them, the record is sound. */
    if ((st = drv_preflight(c, d->manager, err)) != CU_OK)
        return st;
    if (d->components && strcmp(d->manager, "apt") == 0 && (st = enable_components(c, d, facts, err)) != CU_OK)
        return st;
    if (d->repo && (st = add_repository(c, d, err)) != CU_OK)
        return st;
    if (strcmp(d->manager, "apt") == 0 && (st = drv_run_words(c, "update", "apt-get update", NULL, err)) != CU_OK)
        return st;
    if (d->module_stream) {
        const char *argv[] = {"dnf", "-y", "module", "enable", d->module_stream, NULL};
        if ((st = drv_run_step(c, "module", argv, false, err)) != CU_OK)
            return st;
    }
    if ((st = drv_run_words(c, "install", install_cmd(d->manager), &d->packages, err)) != CU_OK)
        return st;
    if ((st = pin(c, d, err)) != CU_OK)
        return st;
    if (d->blacklist_nouveau && (st = drv_blacklist_nouveau(c, d->initramfs, err)) != CU_OK)
        return st;
    bool queued = false;
    if (strcmp(d->secure_boot, "mok") == 0 && (st = drv_queue_key(c, d->mok_cert, &queued, err)) != CU_OK)
        return st;
    if (c->sys->image)
        return drv_image_done(c, plan, err); /* no module to load, no reboot: the image's first boot goes on */
    bool reboot = d->reboot;
    if (!reboot) {
        const char *argv[] = {"modprobe", "nvidia", NULL};
        struct cu_error e;
        if (drv_run_step(c, "load", argv, false, &e) != CU_OK)
            reboot = true; /* the module would not load now: a reboot starts clean */
    }
    if (!reboot)
        return CU_OK;
    if ((st = drv_resume_write(c, plan, facts, queued, err)) != CU_OK)
        return st;
    CU_AUTOFREE char *text = inst_driver_reboot_text(d, queued);
    cu_error_set(err, CU_E_REBOOT, 0, _("The NVIDIA driver %d is installed; a reboot is needed before CUDA can use it."),
                 d->branch);
    cu_error_advise(err, "%s", text);
    return CU_E_REBOOT;
}

