/* SPDX-License-Identifier: MIT */
/*
 * The driver stage (installers/driver.h).  Every command and every file outside cudaup's prefix
 * goes through core/syscmd, which tests point at stand-ins and a scratch root.
 */
#include "config.h"

#include "driver.h"

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

#define BLACKLIST_FILE "/etc/modprobe.d/cudaup-blacklist-nouveau.conf"
#define SOURCES_FILE "/etc/apt/sources.list.d/cudaup-nvidia-driver.sources"

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
    *out = p;
    return CU_OK;
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
    cu_plan_add_step(p, "driver", "install", _("install the NVIDIA driver %d (%s) with %s: %s"), d->branch, cu_drv_flavor_word(d->flavor),
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
    if (d->reboot)
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

static enum cu_status
run_step(struct inst_driver_ctx *c, const char *action, const char *const *argv, bool interactive,
         struct cu_error *err)
{
    CU_AUTOFREE char *line = cu_sys_argv_str(argv);
    struct cu_event ev = {.type = CU_EV_STEP_START, .installer = "driver", .message = line};
    cu_emit(c->run->events, &ev);
    enum cu_status st = cu_sys_run(c->sys, argv, interactive, NULL, err);
    cu_run_result(c->run, "driver", action, line, st, st == CU_OK);
    struct cu_event done = {.type = CU_EV_STEP_DONE, .installer = "driver", .message = line, .status = st,
                            .changed = st == CU_OK};
    cu_emit(c->run->events, &done);
    return st;
}

static enum cu_status
write_step(struct inst_driver_ctx *c, const char *action, const char *path, const char *text, struct cu_error *err)
{
    enum cu_status st = cu_sys_write(c->sys, path, text, err);
    cu_run_result(c->run, "driver", action, path, st, st == CU_OK);
    return st;
}

/* argv of @cmd words, then @extra strings. Caller frees the vector (the strings are borrowed or owned by @keep). */
static const char **
argv_of(const char *cmd, const struct cu_strv *extra, struct cu_strv *keep)
{
    cu_strv_split(keep, cmd, " ");
    size_t n = keep->n + (extra ? extra->n : 0);
    const char **v = cu_xcalloc(n + 1, sizeof(char *));
    size_t k = 0;
    for (size_t i = 0; i < keep->n; i++)
        v[k++] = keep->v[i];
    for (size_t i = 0; extra && i < extra->n; i++)
        v[k++] = extra->v[i];
    return v;
}

static enum cu_status
run_words(struct inst_driver_ctx *c, const char *action, const char *cmd, const struct cu_strv *extra,
          struct cu_error *err)
{
    struct cu_strv keep;
    cu_strv_init(&keep);
    const char **v = argv_of(cmd, extra, &keep);
    enum cu_status st = run_step(c, action, v, false, err);
    free(v);
    cu_strv_fini(&keep);
    return st;
}

/* Does any apt source of the system already name @component? */
static bool
apt_has_component(const struct cu_sys *s, const char *component, char **uri, char **suite)
{
    const char *files[] = {"/etc/apt/sources.list", "/etc/apt/sources.list.d/debian.sources"};
    bool has = false;
    for (size_t i = 0; i < CU_N_ELEMENTS(files); i++) {
        CU_AUTOFREE char *p = cu_sys_path(s, files[i]);
        char *text = NULL;
        size_t len;
        struct cu_error e;
        if (cu_read_file(p, 1 << 20, &text, &len, &e) != CU_OK)
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
    return write_step(c, "sources", SOURCES_FILE, text, err);
}

static enum cu_status
add_repository(struct inst_driver_ctx *c, const struct cu_drv_plan *d, struct cu_error *err)
{
    const char *base = strrchr(d->repo, '/') + 1;
    if (strcmp(d->manager, "zypper") == 0) {
        const char *argv[] = {"zypper", "--non-interactive", "addrepo", "--refresh", d->repo, "cuda-nvidia", NULL};
        return run_step(c, "repository", argv, false, err);
    }
    if (!c->net)
        return cu_error_set(err, CU_E_NETWORK, 0, _("NVIDIA's repository file %s cannot be fetched here."), d->repo);
    struct cu_buf b;
    cu_buf_init(&b);
    enum cu_status st = cu_net_fetch_small(c->net, d->repo, 1u << 20, &b, err);
    if (st == CU_OK && strcmp(d->manager, "dnf") == 0) {
        CU_AUTOFREE char *path = cu_xasprintf("/etc/yum.repos.d/%s", base);
        st = write_step(c, "repository", path, b.data, err);
    } else if (st == CU_OK) {
        /* apt: NVIDIA's cuda-keyring package installs the repository and its key. */
        CU_AUTOFREE char *deb = cu_xasprintf("%s/%s", c->cache_dir, base);
        if ((st = cu_mkdir_p(c->cache_dir, 0755, err)) == CU_OK &&
            (st = cu_write_file_atomic(deb, b.data, b.len, 0644, err)) == CU_OK) {
            const char *argv[] = {"apt-get", "install", "-y", deb, NULL};
            st = run_step(c, "repository", argv, false, err);
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
        return run_words(c, "pin", "apt-mark hold", &d->pin_packages, err);
    if (strcmp(d->pin_kind, "zypper addlock") == 0)
        return run_words(c, "pin", "zypper --non-interactive addlock", &d->pin_packages, err);
    if (strcmp(d->pin_kind, "dnf versionlock") == 0) {
        CU_AUTOFREE char *pat = cu_xasprintf("*nvidia*%d*", d->branch);
        const char *argv[] = {"dnf", "versionlock", "add", pat, NULL};
        return run_step(c, "pin", argv, false, err);
    }
    return CU_OK; /* "dnf module": the stream enabled before the install holds it; "none" */
}

static enum cu_status
blacklist_nouveau(struct inst_driver_ctx *c, const char *initramfs, struct cu_error *err)
{
    enum cu_status st = write_step(c, "blacklist", BLACKLIST_FILE,
                                   "# Written by cudaup: nouveau would hold the GPU the NVIDIA driver needs.\n"
                                   "blacklist nouveau\noptions nouveau modeset=0\n",
                                   err);
    if (st == CU_OK && initramfs)
        st = run_words(c, "initramfs", initramfs, NULL, err);
    return st;
}

/* mokutil asks for the one-time password on the terminal: cudaup never sees, stores or logs it. */
static enum cu_status
queue_key(struct inst_driver_ctx *c, const char *cert, bool *queued, struct cu_error *err)
{
    *queued = false;
    if (!cert)
        return CU_OK;
    CU_AUTOFREE char *host = cu_sys_path(c->sys, cert);
    if (!cu_path_exists(host)) {
        const char *gen[] = {"dkms", "generate_mok", NULL};
        enum cu_status st = run_step(c, "mok", gen, false, err);
        if (st != CU_OK)
            return st;
    }
    if (!c->sys->tty) {
        cu_run_result(c->run, "driver", "mok", _("not queued: no terminal to type the password on"), CU_OK, false);
        return CU_OK;
    }
    const char *argv[] = {"mokutil", "--import", cert, NULL};
    enum cu_status st = run_step(c, "mok", argv, true, err);
    *queued = st == CU_OK;
    return st;
}

static json_t *
strv_json(const struct cu_strv *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(a, json_string(v->v[i]));
    return a;
}

static enum cu_status
write_json(const char *state_dir, const char *name, json_t *doc, struct cu_error *err)
{
    CU_AUTOFREE char *path = cu_path_join(state_dir, name);
    CU_AUTOFREE char *text = cu_json_dump(doc, true);
    json_decref(doc);
    enum cu_status st = cu_mkdir_p(state_dir, 0755, err);
    return st == CU_OK ? cu_write_file_atomic(path, text, strlen(text), 0644, err) : st;
}

/* STATE/driver.json: what cudaup put on the system, for repair and uninstall. Written before the first change. */
static enum cu_status
write_record(const char *state_dir, const struct cu_drv_plan *d, struct cu_error *err)
{
    json_t *o = json_object();
    json_object_set_new(o, "branch", json_integer(d->branch));
    json_object_set_new(o, "flavor", json_string(d->flavor));
    json_object_set_new(o, "manager", json_string(d->manager));
    json_object_set_new(o, "source", json_string(d->source));
    json_object_set_new(o, "packages", strv_json(&d->packages));
    json_object_set_new(o, "pin", json_string(d->pin_kind));
    json_object_set_new(o, "pin_packages", strv_json(&d->pin_packages));
    json_object_set_new(o, "blacklist", d->blacklist_nouveau ? json_string(BLACKLIST_FILE) : json_null());
    json_object_set_new(o, "sources", d->components ? json_string(SOURCES_FILE) : json_null());
    return write_json(state_dir, "driver.json", o, err);
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
    if ((st = write_record(c->state_dir, d, err)) != CU_OK)
        return st;
    if (d->components && strcmp(d->manager, "apt") == 0 && (st = enable_components(c, d, facts, err)) != CU_OK)
        return st;
    if (d->repo && (st = add_repository(c, d, err)) != CU_OK)
        return st;
    if (strcmp(d->manager, "apt") == 0 && (st = run_words(c, "update", "apt-get update", NULL, err)) != CU_OK)
        return st;
    if (d->module_stream) {
        const char *argv[] = {"dnf", "-y", "module", "enable", d->module_stream, NULL};
        if ((st = run_step(c, "module", argv, false, err)) != CU_OK)
            return st;
    }
    if ((st = run_words(c, "install", install_cmd(d->manager), &d->packages, err)) != CU_OK)
        return st;
    if ((st = pin(c, d, err)) != CU_OK)
        return st;
    if (d->blacklist_nouveau && (st = blacklist_nouveau(c, d->initramfs, err)) != CU_OK)
        return st;
    bool queued = false;
    if (strcmp(d->secure_boot, "mok") == 0 && (st = queue_key(c, d->mok_cert, &queued, err)) != CU_OK)
        return st;
    bool reboot = d->reboot;
    if (!reboot) {
        const char *argv[] = {"modprobe", "nvidia", NULL};
        struct cu_error e;
        if (run_step(c, "load", argv, false, &e) != CU_OK)
            reboot = true; /* the module would not load now: a reboot starts clean */
    }
    if (!reboot)
        return CU_OK;
    /* Where to go on from: the other installers' steps, in order. */
    json_t *r = json_object();
    json_t *steps = json_array();
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
    if ((st = write_json(c->state_dir, "resume.json", r, err)) != CU_OK)
        return st;
    CU_AUTOFREE char *text = inst_driver_reboot_text(d, queued);
    cu_error_set(err, CU_E_REBOOT, 0, _("The NVIDIA driver %d is installed; a reboot is needed before CUDA can use it."),
                 d->branch);
    cu_error_advise(err, "%s", text);
    return CU_E_REBOOT;
}

/* ---- after the reboot ---------------------------------------------------------------------- */

json_t *
inst_driver_resume_record(const char *state_dir)
{
    CU_AUTOFREE char *path = cu_path_join(state_dir, "resume.json");
    char *text = NULL;
    size_t len;
    struct cu_error e;
    json_t *j = NULL;
    if (cu_read_file(path, 1 << 20, &text, &len, &e) != CU_OK)
        return NULL;
    if (cu_json_parse_object(text, len, path, &j, &e) != CU_OK)
        j = NULL;
    free(text);
    return j;
}

enum cu_status
inst_driver_resume(const char *state_dir, const struct cu_facts *f, bool *resumed, char **note, struct cu_error *err)
{
    *resumed = false;
    *note = NULL;
    json_t *r = inst_driver_resume_record(state_dir);
    if (!r)
        return CU_OK;
    int branch = (int)json_integer_value(json_object_get(r, "branch"));
    const char *flavor = cu_json_str(r, "flavor");
    const char *cert = cu_json_str(r, "mok_cert");
    const struct cu_drv_state *s = f->drv;
    const struct cu_driver_info *d = &f->driver;
    char b[32];
    enum cu_status st = CU_OK;
    if (d->kind == CU_DRIVER_NVIDIA && d->version.n && (int)d->version.part[0] == branch) {
        *note = cu_xasprintf(_("After the reboot: the NVIDIA driver %s (%s kernel modules%s) is loaded; going on."),
                             cu_driver_version_format(&d->version, b, sizeof(b)),
                             cu_drv_flavor_word(s && s->flavor ? s->flavor : (flavor ? flavor : "?")),
                             s && s->module_signed == 1 ? _(", signed") : "");
        CU_AUTOFREE char *path = cu_path_join(state_dir, "resume.json");
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

/* ---- repair and uninstall ------------------------------------------------------------------ */

static bool
has_code(const struct cu_problems *pr, const char *code)
{
    for (size_t i = 0; i < pr->n; i++)
        if (strcmp(pr->v[i].code, code) == 0)
            return true;
    return false;
}

static enum cu_status
modprobe_reload(struct inst_driver_ctx *c, bool *reboot, struct cu_error *err)
{
    const char *unload[] = {"modprobe", "-r", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia", NULL};
    const char *load[] = {"modprobe", "nvidia", NULL};
    struct cu_error e;
    (void)err;
    if (run_step(c, "reload", unload, false, &e) != CU_OK || run_step(c, "load", load, false, &e) != CU_OK)
        *reboot = true; /* something holds the GPU: only a reboot swaps the module */
    return CU_OK;
}

enum cu_status
inst_driver_repair(struct inst_driver_ctx *c, const struct cu_facts *f, const struct cu_catalog *cat,
                   const struct cu_problems *pr, bool *reboot, struct cu_error *err)
{
    const struct cu_drv_state *s = f->drv;
    enum cu_status st = CU_OK;
    int branch = f->driver.version.n ? (int)f->driver.version.part[0]
                 : s && s->lib_version.n ? (int)s->lib_version.part[0] : 0;
    const struct cu_drv_pkg *row = branch ? cu_drv_row_for(f, cat, branch, s ? s->flavor : NULL) : NULL;
    *reboot = false;
    if (has_code(pr, "nouveau")) {
        const struct cu_drv_pkg *any = row ? row : cu_drv_row_for(f, cat, 0, NULL);
        if ((st = blacklist_nouveau(c, any ? any->initramfs : NULL, err)) != CU_OK)
            return st;
        *reboot = true;
    }
    if (has_code(pr, "driver-module-missing") || has_code(pr, "driver-unsigned-secure-boot")) {
        CU_AUTOFREE char *signed_pkg = row && row->signed_modules[0] ? cu_drv_expand(row->signed_modules[0], branch, f) : NULL;
        if (signed_pkg) {
            const char *argv[] = {"apt-get", "install", "-y", signed_pkg, NULL};
            st = run_step(c, "install", argv, false, err);
        } else {
            const char *argv[] = {"dkms", "autoinstall", NULL};
            st = run_step(c, "rebuild", argv, false, err);
        }
        if (st != CU_OK)
            return st;
        if (has_code(pr, "driver-unsigned-secure-boot") && !signed_pkg) {
            bool queued;
            if ((st = queue_key(c, row && row->mok_cert ? row->mok_cert : "/var/lib/dkms/mok.pub", &queued, err)) != CU_OK)
                return st;
            *reboot = true;
        } else {
            bool rb = false;
            modprobe_reload(c, &rb, err);
            *reboot |= rb;
        }
    }
    if (has_code(pr, "driver-mismatch"))
        modprobe_reload(c, reboot, err);
    if (has_code(pr, "driver-unpinned") && s) {
        const char *kind = row ? row->pin : "apt-mark hold";
        struct cu_strv hold; /* the branch's packages; the kernel-module ones follow each kernel */
        cu_strv_init(&hold);
        for (size_t i = 0; i < s->installed.n; i++)
            if (!cu_str_has_prefix(s->installed.v[i], "linux-modules-nvidia-"))
                cu_strv_push(&hold, s->installed.v[i]);
        if (strcmp(kind, "apt-mark hold") == 0 && hold.n)
            st = run_words(c, "pin", "apt-mark hold", &hold, err);
        else if (strcmp(kind, "zypper addlock") == 0 && hold.n)
            st = run_words(c, "pin", "zypper --non-interactive addlock", &hold, err);
        else if (strcmp(kind, "dnf module") == 0 && row->module_stream) {
            CU_AUTOFREE char *stream = cu_drv_expand(row->module_stream, branch, f);
            const char *argv[] = {"dnf", "-y", "module", "enable", stream, NULL};
            st = run_step(c, "pin", argv, false, err);
        } else if (strcmp(kind, "dnf versionlock") == 0) {
            CU_AUTOFREE char *pat = cu_xasprintf("*nvidia*%d*", branch);
            const char *argv[] = {"dnf", "versionlock", "add", pat, NULL};
            st = run_step(c, "pin", argv, false, err);
        }
        cu_strv_fini(&hold);
        if (st != CU_OK)
            return st;
    }
    if (has_code(pr, "driver-flavor-unsupported")) {
        struct cu_drv_wish w = {.driver = NULL};
        struct cu_drv_in in = {f, cat, &w};
        struct cu_plan p = {0};
        p.driver = cu_drv_choose(&in);
        if (strcmp(p.driver->action, "install") == 0) {
            p.driver->reboot = true;
            st = inst_driver_install(c, &p, f, err);
            if (st == CU_E_REBOOT) {
                st = CU_OK;
                *reboot = true;
            }
        }
        cu_drv_plan_free(p.driver);
    }
    return st;
}

enum cu_status
inst_driver_uninstall(struct inst_driver_ctx *c, struct cu_error *err)
{
    CU_AUTOFREE char *path = cu_path_join(c->state_dir, "driver.json");
    char *text = NULL;
    size_t len;
    json_t *j = NULL;
    enum cu_status st;
    if (cu_read_file(path, 1 << 20, &text, &len, err) != CU_OK) {
        cu_error_clear(err);
        return cu_error_set(err, CU_E_NOT_FOUND, 0, _("cudaup has not installed a driver here (no %s)."), path);
    }
    st = cu_json_parse_object(text, len, path, &j, err);
    free(text);
    if (st != CU_OK)
        return st;
    const char *manager = cu_json_str(j, "manager"), *pin_kind = cu_json_str(j, "pin");
    struct cu_strv pkgs, held;
    cu_strv_init(&pkgs);
    cu_strv_init(&held);
    const json_t *a = json_object_get(j, "packages");
    for (size_t i = 0; i < json_array_size(a); i++)
        if (json_is_string(json_array_get(a, i)))
            cu_strv_push(&pkgs, json_string_value(json_array_get(a, i)));
    a = json_object_get(j, "pin_packages");
    for (size_t i = 0; i < json_array_size(a); i++)
        if (json_is_string(json_array_get(a, i)))
            cu_strv_push(&held, json_string_value(json_array_get(a, i)));
    int branch = (int)json_integer_value(json_object_get(j, "branch"));
    if (!manager || !pin_kind || pkgs.n == 0) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s does not say which packages cudaup installed."), path);
        goto out;
    }
    /* The pin first, so that the package manager may remove what it held. */
    if (strcmp(pin_kind, "apt-mark hold") == 0 && held.n)
        st = run_words(c, "unpin", "apt-mark unhold", &held, err);
    else if (strcmp(pin_kind, "zypper addlock") == 0 && held.n)
        st = run_words(c, "unpin", "zypper --non-interactive removelock", &held, err);
    else if (strcmp(pin_kind, "dnf versionlock") == 0) {
        CU_AUTOFREE char *pat = cu_xasprintf("*nvidia*%d*", branch);
        const char *argv[] = {"dnf", "versionlock", "delete", pat, NULL};
        st = run_step(c, "unpin", argv, false, err);
    }
    if (st != CU_OK)
        goto out;
    const char *rm = strcmp(manager, "apt") == 0      ? "apt-get remove -y"
                     : strcmp(manager, "dnf") == 0    ? "dnf remove -y"
                     : strcmp(manager, "zypper") == 0 ? "zypper --non-interactive remove"
                                                      : "pacman -R --noconfirm";
    if ((st = run_words(c, "remove", rm, &pkgs, err)) != CU_OK)
        goto out;
    const char *bl = cu_json_str(j, "blacklist"), *src = cu_json_str(j, "sources");
    if (bl && (st = cu_sys_remove(c->sys, bl, err)) != CU_OK)
        goto out;
    if (src && (st = cu_sys_remove(c->sys, src, err)) != CU_OK)
        goto out;
    cu_run_result(c->run, "driver", "record", path, CU_OK, true);
    if (unlink(path) != 0 && errno != ENOENT)
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot remove %s"), path);
out:
    cu_strv_fini(&pkgs);
    cu_strv_fini(&held);
    json_decref(j);
    return st;
}
