/* SPDX-License-Identifier: MIT */
/*
 * The driver stage (installers/driver.h).  Every command and every file outside cudaup's prefix
 * goes through core/syscmd, which tests point at stand-ins and a scratch root.
 */
#include "config.h"

#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/install/exec.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "installer.h"
#include "driver_sources.h"
#include "driver_lock.h"
#include "core/base/hash.h"

extern char **environ;

#define BLACKLIST_FILE CU_DRV_BLACKLIST_FILE
#define SOURCES_FILE CU_DRV_SOURCES_FILE

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

/* The driver's steps in the plan, first of all (its installer is first in the registry): the plan's own steps. */
static void
driver_plan_steps(struct cu_plan *p)
{
    const struct cu_drv_plan *d = p->driver;
    if (!d || strcmp(d->action, "install") != 0)
        return;
    for (size_t i = 0; i < d->n_steps; i++) {
        const struct cu_drv_step *s = &d->steps[i];
        if (s->argv) {
            CU_AUTOFREE char *line = cu_drv_step_line(s);
            cu_plan_add_step(p, "driver", s->action, "%s (`%s`)", s->why, line);
        } else if (s->path) {
            cu_plan_add_step(p, "driver", s->action, "%s (%s)", s->why, s->path);
        } else if (s->url) {
            cu_plan_add_step(p, "driver", s->action, "%s (%s)", s->why, s->url);
        } else {
            cu_plan_add_step(p, "driver", s->action, "%s", s->why);
        }
    }
}

const struct cu_installer_ops inst_driver_ops = {
    .name = "driver",
    .plan = driver_plan_steps,
    .run = NULL, /* the install command runs it first, since it may stop for a reboot */
};

/* ---- carrying it out ----------------------------------------------------------------------- */

/* How long a step waits for another process's package manager lock, and how often it looks. */
#define LOCK_WAIT_S (15 * 60)
#define LOCK_POLL_MS 500

/*
 * Wait while another process holds the lock @tool takes (a fresh cloud machine's unattended upgrades hold
 * dpkg's for minutes), saying once who holds it; CU_E_TOOL when it is still held after LOCK_WAIT_S.
 */
static enum cu_status
wait_for_lock(struct inst_driver_ctx *c, const char *tool, const char *line, struct cu_error *err)
{
    const char *what = NULL;
    int pid = inst_driver_lock_holder(c->sys, tool, &what);
    if (pid == 0)
        return CU_OK;
    char comm[64] = "";
    if (pid > 0) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/comm", pid);
        FILE *f = fopen(path, "re");
        if (f) {
            if (fgets(comm, sizeof(comm), f))
                comm[strcspn(comm, "\n")] = '\0';
            fclose(f);
        }
    }
    if (pid > 0)
        cu_run_log(c->run, "driver", _("Waiting for the package manager: %s is held by process %d (%s); cudaup goes on when it is released."),
                   what, pid, *comm ? comm : "?");
    else
        cu_run_log(c->run, "driver", _("Waiting for the package manager: %s is held by another process; cudaup goes on when it is released."),
                   what);
    cu_log_info("waiting for %s (process %d %s) before `%s`", what, pid, comm, line);
    for (long waited = 0; waited < LOCK_WAIT_S * 1000L; waited += LOCK_POLL_MS) {
        struct timespec ts = {0, LOCK_POLL_MS * 1000000L};
        nanosleep(&ts, NULL);
        if (inst_driver_lock_holder(c->sys, tool, &what) == 0)
            return CU_OK;
    }
    return cu_error_set(err, CU_E_TOOL, 0, _("The package manager's lock %s was still held after %d minutes, so `%s` was not run; run cudaup again when the other update is done."),
                        what, LOCK_WAIT_S / 60, line);
}

/* The package manager's output, line by line as it comes, to the screen (an event) and to the log. */
struct out_lines {
    struct inst_driver_ctx *c;
    const char *tool;
    struct cu_buf part;
};

static void
out_line(struct out_lines *o)
{
    if (o->part.len) {
        cu_run_log(o->c->run, "driver", "%s: %s", o->tool, o->part.data);
        cu_log_info("%s: %s", o->tool, o->part.data);
    }
    cu_buf_reset(&o->part);
}

static void
on_output(void *userdata, const char *data, size_t len)
{
    struct out_lines *o = userdata;
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\n' || data[i] == '\r')
            out_line(o);
        else if (o->part.len < 2000)
            cu_buf_putc(&o->part, data[i]);
    }
}

static enum cu_status
run_step(struct inst_driver_ctx *c, const char *action, const char *const *argv, bool interactive,
         struct cu_error *err)
{
    CU_AUTOFREE char *line = cu_sys_argv_str(argv);
    struct cu_event ev = {.type = CU_EV_STEP_START, .installer = "driver", .message = line};
    cu_emit(c->run->events, &ev);
    enum cu_status st = wait_for_lock(c, argv[0], line, err);
    /* apt and dpkg with DEBIAN_FRONTEND=noninteractive: a debconf question would otherwise wait on a
     * terminal whose screen is cudaup's. */
    struct cu_sys sys = *c->sys;
    CU_AUTOFREE const char **envp = NULL;
    const char *const *from = c->sys->envp ? c->sys->envp : (const char *const *)environ;
    if (st == CU_OK && inst_driver_tool_noninteractive(argv[0]) && !cu_env_get(from, "DEBIAN_FRONTEND")) {
        size_t n = 0;
        while (from[n])
            n++;
        envp = cu_xcalloc(n + 2, sizeof(char *));
        memcpy(envp, from, n * sizeof(char *));
        envp[n] = "DEBIAN_FRONTEND=noninteractive";
        sys.envp = envp;
    }
    struct out_lines lines = {.c = c, .tool = argv[0]};
    cu_buf_init(&lines.part);
    sys.on_output = on_output;
    sys.output_userdata = &lines;
    if (st == CU_OK) {
        st = cu_sys_run(&sys, argv, interactive, NULL, err);
        out_line(&lines);
        /* The package manager's failure is answered with the package manager's advice, not pip's. */
        if (st == CU_E_TOOL && !err->advice[0])
            cu_error_advise(err, _("The package manager (%s) refused or failed; its message is above. Fix what it names (a repository it cannot reach, a held or broken package, disk space), then run cudaup again."),
                            argv[0]);
    }
    cu_buf_fini(&lines.part);
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
    json_object_set_new(o, "pin_file", strcmp(d->pin_kind, "apt preferences") == 0 ? json_string(CU_DRV_PREFS_FILE) : json_null());
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

/* NVIDIA's files come from the site mirror where there is one (laid out like NVIDIA's server). */
static char *
fetch_url(const struct cu_net *net, const char *url)
{
    const char *root = CU_NVIDIA_BASE_URL "/";
    if (net && !net->official && net->base && cu_str_has_prefix(url, root))
        return cu_xasprintf("%s/%s", net->base, url + strlen(root));
    return cu_xstrdup(url);
}

static enum cu_status
fetch(struct inst_driver_ctx *c, const char *url, struct cu_buf *out, struct cu_error *err)
{
    if (!c->net)
        return cu_error_set(err, CU_E_NETWORK, 0, _("NVIDIA's repository file %s cannot be fetched here."), url);
    CU_AUTOFREE char *u = fetch_url(c->net, url);
    return cu_net_fetch_small(c->net, u, 1u << 20, out, err);
}

/*
 * NVIDIA's keyring package, handed to apt as the bytes checked against its pinned sha256: they are written
 * into a folder of this run that only this user can write (mkdtemp, 0700), as a file created there (O_EXCL,
 * O_NOFOLLOW), so that nobody else can put other bytes under the name apt is given between the check and
 * apt's read (a cache folder may be shared); the file is hashed again there, and removed after apt.
 */
static enum cu_status
keyring_write_private(char *dir, const char *base, char **debp, const struct cu_buf *b, struct cu_error *err)
{
    if (!mkdtemp(dir))
        return cu_error_set(err, CU_E_IO, errno, _("Cannot create the folder %s"), dir);
    const char *deb = *debp = cu_path_join(dir, base);
    int fd = open(deb, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot write %s"), deb);
    size_t off = 0;
    while (off < b->len) {
        ssize_t n = write(fd, b->data + off, b->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), deb);
        }
        off += (size_t)n;
    }
    if (fsync(fd) != 0 || close(fd) != 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot write %s"), deb);
    return CU_OK;
}

static enum cu_status
keyring_step(struct inst_driver_ctx *c, const struct cu_drv_step *s, struct cu_error *err)
{
    struct cu_buf b;
    char got[65];
    enum cu_status st;
    if (!s->sha256)
        return cu_error_set(err, CU_E_UNSUPPORTED, 0, _("cudaup has no pinned sha256 for NVIDIA's keyring package %s, so it does not install it."),
                            s->url);
    cu_buf_init(&b);
    if ((st = fetch(c, s->url, &b, err)) != CU_OK) {
        cu_buf_fini(&b);
        return st;
    }
    cu_sha256_hex(b.data, b.len, got);
    if (strcmp(got, s->sha256) != 0) {
        cu_buf_fini(&b);
        return cu_error_set(err, CU_E_INPUT, 0, _("NVIDIA's keyring package %s has sha256 %s, not the %s cudaup's data pins; it was not installed."),
                            s->url, got, s->sha256);
    }
    const char *base = strrchr(s->url, '/');
    base = base ? base + 1 : s->url;
    if (!cu_str_has_suffix(base, ".deb") || strlen(base) > 200)
        base = "cuda-keyring.deb";
    CU_AUTOFREE char *dir = cu_path_join(c->cache_dir, "keyring-XXXXXX");
    CU_AUTOFREE char *deb = NULL;
    if ((st = cu_mkdir_p(c->cache_dir, 0755, err)) != CU_OK) {
        cu_buf_fini(&b);
        return st;
    }
    st = keyring_write_private(dir, base, &deb, &b, err);
    cu_buf_fini(&b);
    unsigned long long size;
    if (st == CU_OK)
        st = cu_sha256_file(deb, got, &size, err);
    if (st == CU_OK && strcmp(got, s->sha256) != 0)
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s changed after it was checked; it was not installed."), deb);
    if (st == CU_OK) {
        const char *argv[] = {"apt-get", "install", "-y", deb, NULL};
        st = run_step(c, "keyring", argv, false, err);
    }
    /* deb is NULL when mkdtemp failed: nothing of ours to remove then */
    if (deb) {
        (void)unlink(deb);
        (void)rmdir(dir);
    }
    return st;
}

/* SUSE's user space at the KMP's version: {KV} in the argv is the installed version of s->query, up to its "_". */
static enum cu_status
match_step(struct inst_driver_ctx *c, const struct cu_drv_step *s, struct cu_error *err)
{
    const char *q[] = {"rpm", "-q", "--qf", "%{VERSION}\\n", s->query, NULL};
    struct cu_buf out;
    cu_buf_init(&out);
    enum cu_status st = cu_sys_run(c->sys, q, false, &out, err);
    char *ver = NULL;
    if (st == CU_OK) {
        /* the log holds "$ rpm ...\n" then the output */
        char *nl = strchr(out.data, '\n');
        char *v = nl ? nl + 1 : out.data;
        ver = cu_xstrndup(v, strcspn(v, "_\n"));
    }
    cu_buf_fini(&out);
    if (st != CU_OK)
        return st;
    if (!*ver || strspn(ver, "0123456789.") != strlen(ver)) {
        st = cu_error_set(err, CU_E_TOOL, 0, _("The version of %s cannot be read (`rpm -q` said '%s')."), s->query, ver);
        free(ver);
        return st;
    }
    size_t n = 0;
    while (s->argv[n])
        n++;
    char **argv = cu_xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        argv[i] = strcmp(s->argv[i], "{KV}") == 0 ? ver : s->argv[i];
    st = run_step(c, "match", (const char *const *)argv, false, err);
    free(argv);
    free(ver);
    return st;
}

enum cu_status
inst_driver_install(struct inst_driver_ctx *c, const struct cu_plan *plan, const struct cu_facts *facts,
                    struct cu_error *err)
{
    const struct cu_drv_plan *d = plan->driver;
    enum cu_status st = CU_OK;
    if (!d || strcmp(d->action, "install") != 0)
        return CU_OK;
    if ((st = write_record(c->state_dir, d, err)) != CU_OK)
        return st;
    bool queued = false, reboot = d->reboot;
    for (size_t i = 0; i < d->n_steps && st == CU_OK; i++) {
        const struct cu_drv_step *s = &d->steps[i];
        if (strcmp(s->action, "sources") == 0) {
            const char *code = facts->drv ? facts->drv->version_codename : NULL;
            CU_AUTOFREE char *text = inst_driver_sources_text(c->sys, d->components, code, SOURCES_FILE);
            if (text && !*text)
                st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                                  _("The driver's packages are in the %s components, and cudaup cannot tell which archive this system uses to enable them; add them to its apt sources, then run cudaup again."),
                                  d->components);
            else if (text)
                st = write_step(c, "sources", SOURCES_FILE, text, err);
        } else if (strcmp(s->action, "keyring") == 0) {
            st = keyring_step(c, s, err);
        } else if (strcmp(s->action, "repository") == 0 && !s->argv) {
            struct cu_buf b;
            cu_buf_init(&b);
            if ((st = fetch(c, s->url, &b, err)) == CU_OK)
                st = write_step(c, "repository", s->path, b.data, err);
            cu_buf_fini(&b);
        } else if (strcmp(s->action, "match") == 0) {
            st = match_step(c, s, err);
        } else if (strcmp(s->action, "mok") == 0) {
            st = queue_key(c, d->mok_cert, &queued, err);
        } else if (strcmp(s->action, "reboot") == 0) {
            reboot = true;
        } else if (strcmp(s->action, "load") == 0) {
            struct cu_error e;
            if (run_step(c, "load", (const char *const *)s->argv, false, &e) != CU_OK)
                reboot = true; /* the module would not load now (built for the kernel the next boot runs): a reboot */
        } else if (s->argv) {
            st = run_step(c, s->action, (const char *const *)s->argv, false, err);
        } else if (s->path && s->text) {
            st = write_step(c, s->action, s->path, s->text, err);
        }
    }
    if (st != CU_OK || !reboot)
        return st;
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
        CU_AUTOFREE char *signed_pkg = row && row->signed_modules[0] ? cu_drv_expand_row(row, row->signed_modules[0], branch, f) : NULL;
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
        struct cu_drv_step *ps = row && (strcmp(kind, "apt preferences") == 0 || strcmp(kind, "nvidia pinning package") == 0)
                                     ? cu_drv_pin_step(row, branch, f)
                                     : NULL;
        if (ps && ps->text)
            st = write_step(c, "pin", ps->path, ps->text, err);
        else if (ps && ps->argv)
            st = run_step(c, "pin", (const char *const *)ps->argv, false, err);
        else if (strcmp(kind, "apt-mark hold") == 0 && hold.n)
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
        cu_drv_step_free(ps);
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
    const char *bl = cu_json_str(j, "blacklist"), *src = cu_json_str(j, "sources"), *pf = cu_json_str(j, "pin_file");
    if (bl && (st = cu_sys_remove(c->sys, bl, err)) != CU_OK)
        goto out;
    if (pf && strcmp(pf, CU_DRV_PREFS_FILE) == 0 && (st = cu_sys_remove(c->sys, pf, err)) != CU_OK)
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
