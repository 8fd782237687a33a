/* SPDX-License-Identifier: MIT */
/*
 * The driver stage (installers/driver.h).  Every command and every file outside cudaup's prefix
 * goes through core/syscmd, which tests point at stand-ins and a scratch root.
 */
#include "config.h"

#define CU_LOG_TAG "driver"
#include "driver_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/install/exec.h"
#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "driver_sources.h"
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
    cu_strv_push(&p->reason_sources, ""); /* beside each reason: this one rests on the root itself */
    /* The plan's last step, the load or the reboot, becomes the image's end. */
    for (size_t i = 0; i < p->n_steps; i++) {
        struct cu_drv_step *s = &p->steps[i];
        if (strcmp(s->action, "service") == 0 && s->argv) {
            /* enabled, not started: nothing runs in an image; it starts at the image's first boot */
            size_t k = 0;
            for (size_t j = 0; s->argv[j]; j++) {
                if (strcmp(s->argv[j], "--now") == 0)
                    free(s->argv[j]);
                else
                    s->argv[k++] = s->argv[j];
            }
            s->argv[k] = NULL;
            continue;
        }
        if (strcmp(s->action, "load") != 0 && strcmp(s->action, "reboot") != 0)
            continue;
        cu_drv_step_fini(s);
        memset(s, 0, sizeof(*s));
        s->action = cu_xstrdup("image");
        s->why = cu_xstrdup(_("check the module is built for the image's kernels and the branch held, then stop (exit 5): the image's first boot finishes with `cudaup install` (it resumes) or `cudaup verify`"));
    }
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
        /* The command, file or URL in brackets after the step's sentence (inside a Chinese one: "…（x）。"). */
        if (s->argv) {
            CU_AUTOFREE char *line = cu_drv_step_line(s);
            CU_AUTOFREE char *cmd = cu_xasprintf("`%s`", line);
            CU_AUTOFREE char *detail = cu_str_aside(s->why, cmd);
            cu_plan_add_step(p, "driver", s->action, "%s", detail);
        } else if (s->path || s->url) {
            CU_AUTOFREE char *detail = cu_str_aside(s->why, s->path ? s->path : s->url);
            cu_plan_add_step(p, "driver", s->action, "%s", detail);
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
    if (!cu_sysroot_is_host(&c->sys->files)) {
        /* A machine root: apt runs inside it and reads the path it is given there, so the bytes go inside the
         * root, through the runner, into a folder made for them now (0700), and apt gets the path inside. */
        static unsigned n;
        CU_AUTOFREE char *in = cu_xasprintf("/var/cache/cudaup-keyring-%ld-%u/%s", (long)getpid(), n++, base);
        st = cu_sys_write_new(c->sys, in, b.data, b.len, err);
        cu_buf_fini(&b);
        if (st != CU_OK)
            return st;
        const char *argv[] = {"apt-get", "install", "-y", in, NULL};
        st = drv_run_step(c, "keyring", argv, false, err);
        struct cu_error rerr;
        if (cu_sys_remove_new(c->sys, in, &rerr) != CU_OK && st == CU_OK) {
            *err = rerr;
            st = rerr.code;
        }
        return st;
    }
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
        st = drv_run_step(c, "keyring", argv, false, err);
    }
    /* deb is NULL when mkdtemp failed: nothing of ours to remove then */
    if (deb) {
        (void)unlink(deb);
        (void)rmdir(dir);
    }
    return st;
}

/* NVIDIA's keyring package (apt) or repository file (dnf), fetched and checked. */
static enum cu_status
repo_step(struct inst_driver_ctx *c, const struct cu_drv_step *s, struct cu_error *err)
{
    if (strcmp(s->action, "keyring") == 0)
        return keyring_step(c, s, err);
    struct cu_buf b;
    cu_buf_init(&b);
    enum cu_status st = fetch(c, s->url, &b, err);
    if (st == CU_OK)
        st = drv_write_step(c, "repository", s->path, b.data, err);
    cu_buf_fini(&b);
    return st;
}

enum cu_status
inst_driver_repository(struct inst_driver_ctx *c, const char *manager, const struct cu_drv_step *steps, size_t n,
                       struct cu_error *err)
{
    enum cu_status st = drv_preflight(c, manager, err);
    for (size_t i = 0; i < n && st == CU_OK; i++) {
        const struct cu_drv_step *s = &steps[i];
        if (strcmp(s->action, "keyring") == 0 || (strcmp(s->action, "repository") == 0 && !s->argv))
            st = repo_step(c, s, err);
        else if (s->argv)
            st = drv_run_step(c, s->action, (const char *const *)s->argv, false, err);
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
    st = drv_run_step(c, "match", (const char *const *)argv, false, err);
    free(argv);
    free(ver);
    return st;
}

char *
inst_driver_reboot_text(const struct cu_drv_plan *p, bool mok_queued)
{
    struct cu_buf b;
    cu_buf_init(&b);
    /* What to do only: the error's own sentence says what was installed (it was said twice, issue 49 item 11). */
    cu_buf_printf(&b, "%s", _("Reboot now; cudaup never reboots by itself."));
    /* Sentence after sentence: a space between English ones, none after zh_CN's 。 */
    if (p->secure_boot && strcmp(p->secure_boot, "mok") == 0) {
        if (mok_queued) {
            cu_buf_sentence(&b, _("At the blue MokManager screen after the reboot: Enroll MOK, Continue, Yes, type the one-time password you chose, then Reboot."));
        } else {
            CU_AUTOFREE char *key = cu_xasprintf(_(" Before the reboot, queue the signing key: `sudo mokutil --import %s` (choose a one-time password); at the blue MokManager screen: Enroll MOK, Continue, Yes, the password, Reboot."),
                                                 p->mok_cert ? p->mok_cert : "");
            cu_buf_sentence(&b, key);
        }
    }
    cu_buf_sentence(&b, _("Then run cudaup again (the same command): it checks that the driver loads and goes on with CUDA, cuDNN, the environment and verify."));
    return cu_buf_steal(&b);
}

/* Ctrl-C was pressed: the step that ran was let finish, and nothing after it is done. */
static bool
cancelled(const struct inst_driver_ctx *c)
{
    return c->run && c->run->cancel && atomic_load(c->run->cancel);
}

/* The fabric manager's service without --now: the module is not loaded by this run (a reboot, an image), and the
 * fabric manager started without its NVSwitch driver exits (NVIDIA/gpu-operator#610); it starts at the next boot. */
static enum cu_status
service_step(struct inst_driver_ctx *c, const struct cu_drv_step *s, bool later, struct cu_error *err)
{
    size_t n = 0;
    while (s->argv[n])
        n++;
    const char **argv = cu_xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0, k = 0; i < n; i++)
        if (!later || strcmp(s->argv[i], "--now") != 0)
            argv[k++] = s->argv[i];
    enum cu_status st = drv_run_step(c, s->action, argv, false, err);
    free(argv);
    return st;
}

/* Carry out step @s of plan @d. */
static enum cu_status
run_one(struct inst_driver_ctx *c, const struct cu_drv_plan *d, const struct cu_drv_step *s, bool *queued, bool *reboot,
        struct cu_error *err)
{
    enum cu_status st = CU_OK;
    if (strcmp(s->action, "sources") == 0) {
        const char *code = d->codename; /* the archive's: a derivative's base (Mint 22: noble, not wilma) */
        CU_AUTOFREE char *text = inst_driver_sources_text(c->sys, d->components, d->suites, code, SOURCES_FILE);
        if (text && !*text)
            st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                              _("The driver's packages are in the %s components, and cudaup cannot tell which archive this system uses to enable them; add them to its apt sources, then run cudaup again."),
                              d->components);
        else if (text)
            st = drv_write_step(c, "sources", SOURCES_FILE, text, err);
    } else if (strcmp(s->action, "keyring") == 0 || (strcmp(s->action, "repository") == 0 && !s->argv)) {
        st = repo_step(c, s, err);
    } else if (strcmp(s->action, "match") == 0) {
        st = match_step(c, s, err);
    } else if (strcmp(s->action, "mok") == 0) {
        st = drv_queue_key(c, d->mok_cert, queued, err);
    } else if (strcmp(s->action, "image") == 0) {
        /* the end of an install into a machine image: inst_driver_install's */
    } else if (strcmp(s->action, "reboot") == 0) {
        *reboot = true;
    } else if (strcmp(s->action, "load") == 0) {
        struct cu_error e;
        if (drv_run_step(c, "load", (const char *const *)s->argv, false, &e) != CU_OK)
            *reboot = true; /* the module would not load now (built for the kernel the next boot runs): a reboot */
    } else if (strcmp(s->action, "service") == 0 && s->argv) {
        st = service_step(c, s, *reboot || c->sys->image, err);
    } else if (s->argv) {
        st = drv_run_step(c, s->action, (const char *const *)s->argv, false, err);
    } else if (s->path && s->text) {
        st = drv_write_step(c, s->action, s->path, s->text, err);
    }
    return st;
}

enum cu_status
inst_driver_install(struct inst_driver_ctx *c, const struct cu_plan *plan, const struct cu_facts *facts,
                    struct cu_error *err)
{
    const struct cu_drv_plan *d = plan->driver;
    enum cu_status st = CU_OK;
    if (!d || strcmp(d->action, "install") != 0) {
        drv_stop_clear(c->state_dir); /* no driver to finish: a stop record of another plan is moot */
        return CU_OK;
    }
    c->plan = d;
    /* Before anything is touched: the runner can run these where it runs them, the record is sound. */
    if ((st = drv_preflight(c, d->manager, err)) != CU_OK)
        return st;
    bool queued = false, reboot = d->reboot;
    /* A run that stopped before its end (a failed step, Ctrl-C) goes on from there, and says so. */
    CU_AUTOFREE char *said = NULL;
    size_t start = drv_stop_resume(c, d, &queued, &said), i = start;
    if (said) {
        cu_log_msg(CU_LOG_INFO, CU_LOG_TAG_RECORD, "%s", said); /* the screen says it (the event) */
        struct cu_event ev = {.type = CU_EV_LOG, .installer = "driver", .message = said};
        cu_emit(c->run->events, &ev);
    }
    for (; i < d->n_steps && !cancelled(c); i++)
        if ((st = run_one(c, d, &d->steps[i], &queued, &reboot, err)) != CU_OK)
            break;
    if (i < d->n_steps) {
        /* Stopped before the end: the next run goes on from step i (the record says so). */
        bool intr = cancelled(c);
        struct cu_error werr;
        if (i > 0 && drv_stop_write(c, plan, facts, i, intr ? "interrupted" : "failed", queued, &werr) != CU_OK)
            cu_log_warn("%s", werr.msg);
        if (!intr) {
            if (i > 0 && !err->advice[0]) /* mokutil on the terminal: its own words are above */
                cu_error_advise(err, _("Fix what it says, then run the same command again: it goes on from this step."));
            return st;
        }
        CU_AUTOFREE char *left = drv_steps_left(d, i);
        CU_AUTOFREE char *last = i > start && d->steps[i - 1].argv ? cu_drv_step_line(&d->steps[i - 1]) : NULL;
        if (last)
            cu_error_set(err, CU_E_CANCELLED, 0,
                         _("Interrupted: `%s` was let finish, and nothing after it was changed. Still to do, first thing when the same command runs again: %s."),
                         last, left);
        else
            cu_error_set(err, CU_E_CANCELLED, 0,
                         _("Interrupted before the driver's next step, which was not begun. Still to do, first thing when the same command runs again: %s."),
                         left);
        return CU_E_CANCELLED;
    }
    if (c->sys->image)
        return drv_image_done(c, plan, err); /* no module to load, no reboot: the image's first boot goes on */
    if (!reboot) {
        drv_stop_clear(c->state_dir);
        return CU_OK;
    }
    if ((st = drv_resume_write(c, plan, facts, queued, err)) != CU_OK)
        return st;
    CU_AUTOFREE char *text = inst_driver_reboot_text(d, queued);
    cu_error_set(err, CU_E_REBOOT, 0, _("The NVIDIA driver %d (%s) is installed; a reboot is needed before CUDA can use it."),
                 d->branch, cu_drv_flavor_word(d->flavor));
    cu_error_advise(err, "%s", text);
    return CU_E_REBOOT;
}
