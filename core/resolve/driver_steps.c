/* SPDX-License-Identifier: MIT */
/*
 * The driver's install as steps in order (driver.h "cu_drv_step"): the repositories the packages need
 * (the distribution's components, NVIDIA's repository and keyring, CRB and EPEL for DKMS), the lock on
 * the branch before anything unversioned is installed, the packages in one transaction, the fabric
 * manager's service, nouveau, the signing key, then the module or the reboot.  Pure: the installer
 * carries the steps out.
 */
#include "config.h"

#include "core/resolve/driver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/proc.h"

void
cu_drv_step_fini(struct cu_drv_step *s)
{
    if (!s)
        return;
    free(s->action);
    cu_strv_free(s->argv);
    free(s->path);
    free(s->text);
    free(s->url);
    free(s->sha256);
    free(s->query);
    free(s->why);
}

void
cu_drv_step_free(struct cu_drv_step *s)
{
    cu_drv_step_fini(s);
    free(s);
}

char *
cu_drv_step_line(const struct cu_drv_step *s)
{
    if (!s->argv)
        return cu_xstrdup(s->path ? s->path : s->url ? s->url : s->action);
    /* As a shell would take it: words of plain characters bare, the others quoted. */
    struct cu_buf b;
    cu_buf_init(&b);
    for (char **w = s->argv; *w; w++) {
        bool plain = **w && strspn(*w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/:=+@%,-") == strlen(*w);
        CU_AUTOFREE char *q = plain ? cu_xstrdup(*w) : cu_sh_quote(*w);
        cu_buf_printf(&b, "%s%s", w == s->argv ? "" : " ", q);
    }
    return cu_buf_steal(&b);
}

static struct cu_drv_step *
step_new(const char *action)
{
    struct cu_drv_step *s = cu_xcalloc(1, sizeof(*s));
    s->action = cu_xstrdup(action);
    return s;
}

/* An argv from words and strv lists: "w1", "w2", ..., NULL; CU_DRV_LIST marks a cu_strv pointer next. */
static char **
argv_of(const char *first, ...)
{
    struct cu_strv v;
    va_list ap;
    cu_strv_init(&v);
    va_start(ap, first);
    for (const char *w = first; w; w = va_arg(ap, const char *)) {
        if (strcmp(w, "\001list") == 0) {
            const struct cu_strv *l = va_arg(ap, const struct cu_strv *);
            for (size_t i = 0; i < l->n; i++)
                cu_strv_push(&v, l->v[i]);
        } else {
            cu_strv_push(&v, w);
        }
    }
    va_end(ap);
    char **out = cu_xcalloc(v.n + 1, sizeof(char *));
    for (size_t i = 0; i < v.n; i++)
        out[i] = cu_xstrdup(v.v[i]);
    cu_strv_fini(&v);
    return out;
}
#define LIST "\001list"

/* Split a data command ("dnf -y module enable X") into an argv, each word expanded. */
static char **
argv_expand(char *const *words, int branch, const struct cu_facts *f)
{
    size_t n = 0;
    while (words[n])
        n++;
    char **out = cu_xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        out[i] = cu_drv_expand(words[i], branch, f);
    return out;
}

char *
cu_drv_pin_version(const struct cu_drv_pkg *r, int branch, const struct cu_facts *f)
{
    return r && r->pin_version ? cu_drv_expand(r->pin_version, branch, f) : cu_xasprintf("%d.*", branch);
}

struct cu_drv_step *
cu_drv_pin_step(const struct cu_drv_pkg *r, int branch, const struct cu_facts *f)
{
    struct cu_strv pins;
    struct cu_drv_step *s = NULL;
    cu_strv_init(&pins);
    for (char **t = r->pin_packages; t && *t; t++)
        cu_strv_push_owned(&pins, cu_drv_expand(*t, branch, f));
    if (strcmp(r->pin, "apt preferences") == 0 && pins.n) {
        /* A branch, not a release: every 580.* (its security updates too), nothing else of the NVIDIA names. */
        CU_AUTOFREE char *glob = cu_drv_pin_version(r, branch, f);
        struct cu_buf b;
        cu_buf_init(&b);
        cu_buf_printf(&b, "# Written by cudaup: the NVIDIA driver stays on branch %d (its %s releases).\nPackage:", branch,
                      glob);
        for (size_t i = 0; i < pins.n; i++)
            cu_buf_printf(&b, " %s", pins.v[i]);
        cu_buf_printf(&b, "\nPin: version %s\nPin-Priority: 990\n", glob);
        s = step_new("pin");
        s->path = cu_xstrdup(CU_DRV_PREFS_FILE);
        s->text = cu_buf_steal(&b);
    } else if (strcmp(r->pin, "nvidia pinning package") == 0 && pins.n) {
        s = step_new("pin");
        s->argv = argv_of("apt-get", "install", "-y", LIST, &pins, NULL);
    } else if (strcmp(r->pin, "apt-mark hold") == 0 && pins.n) {
        s = step_new("pin");
        s->argv = argv_of("apt-mark", "hold", LIST, &pins, NULL);
    } else if (strcmp(r->pin, "zypper addlock") == 0 && pins.n) {
        s = step_new("lock");
        s->argv = argv_of("zypper", "--non-interactive", "addlock", LIST, &pins, NULL);
    } else if (strcmp(r->pin, "dnf versionlock") == 0 && pins.n) {
        s = step_new("pin");
        s->argv = argv_of("dnf", "versionlock", "add", LIST, &pins, NULL);
    } else if (strcmp(r->pin, "dnf module") == 0 && r->module_stream) {
        CU_AUTOFREE char *stream = cu_drv_expand(r->module_stream, branch, f);
        s = step_new("module");
        s->argv = argv_of("dnf", "-y", "module", "enable", stream, NULL);
    }
    cu_strv_fini(&pins);
    return s;
}

static struct cu_drv_step *
push(struct cu_drv_plan *p, struct cu_drv_step *s, const char *why)
{
    p->steps = cu_xrealloc(p->steps, (p->n_steps + 1) * sizeof(*p->steps));
    p->steps[p->n_steps] = *s;
    free(s);
    struct cu_drv_step *out = &p->steps[p->n_steps++];
    out->why = cu_xstrdup(why);
    return out;
}

static bool
strv_has(char *const *v, const char *s)
{
    for (; v && *v; v++)
        if (strcmp(*v, s) == 0 || strcmp(*v, "*") == 0)
            return true;
    return false;
}

/* The repositories (CRB, EPEL) and plugins this distribution needs before the row's packages resolve. */
static void
prereqs(const struct cu_drv_in *in, struct cu_drv_plan *p, const char *when)
{
    const struct cu_facts *f = in->facts;
    const struct cu_drv_data *d = in->cat->driver;
    const char *vid = f->os.version_id ? f->os.version_id : "";
    char major[32];
    snprintf(major, sizeof(major), "%.*s", (int)strcspn(vid, "."), vid);
    for (size_t i = 0; i < d->n_prereqs; i++) {
        const struct cu_drv_prereq *q = &d->prereqs[i];
        if (strcmp(q->when, when) != 0 || !f->os.id || !strv_has(q->ids, f->os.id) ||
            (!strv_has(q->versions, vid) && !strv_has(q->versions, major)))
            continue;
        struct cu_drv_step *s = step_new(q->action);
        s->argv = argv_expand(q->command, p->branch, f);
        CU_AUTOFREE char *why = cu_xasprintf(strcmp(q->action, "crb") == 0 ? _("Enable CRB (PowerTools on 8): EPEL's packages need it. Source: %s (%s).")
                                             : strcmp(q->action, "epel") == 0 ? _("Enable EPEL: it carries dkms, which the DKMS kernel modules need. Source: %s (%s).")
                                                                              : _("Install what the branch lock needs. Source: %s (%s)."),
                                             q->ref, q->confidence);
        push(p, s, why);
    }
}

static struct cu_strv *
strv_new(void)
{
    struct cu_strv *v = cu_xcalloc(1, sizeof(*v));
    cu_strv_init(v);
    return v;
}

static void
strv_del(struct cu_strv *v)
{
    cu_strv_fini(v);
    free(v);
}

/*
 * A machine image may boot any of its kernels (issue 46 item 13: a debootstrap tree's own kernel got no module, its
 * headers never installed though the archive had them): each one's headers (the row's running_headers, {R} that
 * kernel, {KM} its own package where its modules folder names one) are installed before the transaction, each in a
 * step of its own, so that DKMS builds the module for every kernel and a kernel whose headers the archive lacks costs
 * that kernel only (the install says which).  The headers already installed (dpkg's list) or in the transaction are
 * not asked for again.  pacman's go into its one full upgrade (@transaction: a partial upgrade is unsupported, and
 * each of an Arch image's kernels is a package of its own, whose headers the repositories carry).  Without DKMS
 * (modules prebuilt for the kernel the metas bring), the older kernels get none: the plan says which.
 */
static void
image_headers(const struct cu_drv_in *in, struct cu_drv_plan *p, const struct cu_drv_pkg *r, const char *km,
              struct cu_strv *transaction)
{
    const struct cu_facts *f = in->facts;
    const struct cu_drv_state *st = f->drv;
    const char *mgr = r->manager;
    struct cu_strv asked, none;
    cu_strv_init(&asked);
    cu_strv_init(&none);
    bool dkms = r->running_headers && r->running_headers[0];
    for (size_t i = 0; i < st->boot_kernels.n; i++) {
        const char *k = st->boot_kernels.v[i];
        const char *base = i < st->boot_bases.n && *st->boot_bases.v[i] ? st->boot_bases.v[i] : km;
        if (!dkms) {
            if (i + 1 < st->boot_kernels.n) /* the newest is the one the module packages follow */
                cu_strv_push(&none, k);
            continue;
        }
        struct cu_strv pk;
        cu_strv_init(&pk);
        for (char **t = r->running_headers; *t; t++) {
            char *x = cu_drv_expand_kernel(*t, p->branch, f, base, k);
            bool have = cu_strv_contains(&p->packages, x) || cu_strv_contains(&asked, x) ||
                        (st->packages_read && cu_strv_contains(&st->packages, x)) || strchr(x, '{');
            if (have)
                free(x);
            else
                cu_strv_push_owned(&pk, x);
        }
        for (size_t j = 0; j < pk.n; j++) {
            cu_strv_push(&asked, pk.v[j]);
            if (strcmp(mgr, "pacman") == 0)
                cu_strv_push(transaction, pk.v[j]);
        }
        if (pk.n && strcmp(mgr, "pacman") != 0) {
            struct cu_drv_step *s = step_new("kernel-headers");
            if (strcmp(mgr, "apt") == 0)
                s->argv = argv_of("apt-get", "install", "-y", LIST, &pk, NULL);
            else if (strcmp(mgr, "dnf") == 0)
                s->argv = argv_of("dnf", "install", "-y", LIST, &pk, NULL);
            else
                s->argv = argv_of("zypper", "--non-interactive", "install", LIST, &pk, NULL);
            CU_AUTOFREE char *why = cu_xasprintf(_("The headers of the image's kernel %s, so that DKMS builds the module for it too (the image may boot it); where the archive has none, only that kernel goes without a module, and the install says so."),
                                                 k);
            push(p, s, why);
        }
        cu_strv_fini(&pk);
    }
    if (asked.n) {
        CU_AUTOFREE char *list = cu_strv_join(&asked, " ");
        cu_strv_push_owned(&p->reasons, cu_xasprintf(_("The image may boot any of its kernels, so the plan installs the headers of each (%s) before the driver, and DKMS builds the module for every one of them."),
                                                     list));
        cu_strv_push(&p->reason_sources, "");
    }
    if (none.n) {
        CU_AUTOFREE char *list = cu_strv_join(&none, ", ");
        cu_strv_push_owned(&p->reasons, cu_xasprintf(_("The image's older kernels (%s) will have no nvidia module: the module packages follow the kernel its metas bring, the one it boots."),
                                                     list));
        cu_strv_push(&p->reason_sources, "");
    }
    cu_strv_fini(&asked);
    cu_strv_fini(&none);
}

void
cu_drv_steps_build(const struct cu_drv_in *in, struct cu_drv_plan *p, const struct cu_drv_pkg *r, const char *km)
{
    const struct cu_facts *f = in->facts;
    const struct cu_drv_state *st = f->drv;
    const char *mgr = r->manager;
    bool apt = strcmp(mgr, "apt") == 0, dnf = strcmp(mgr, "dnf") == 0, zypper = strcmp(mgr, "zypper") == 0;
    bool dkms = !r->signed_modules[0];
    struct cu_strv *pkgs = strv_new(), *hdrs = strv_new();
    (void)km;
    /* The packages of the install transaction: all but the pinning package (installed first); dnf installs
     * the headers first, as NVIDIA's preparation step does. */
    size_t npin = 0;
    if (strcmp(r->pin, "nvidia pinning package") == 0)
        for (char **t = r->pin_packages; *t; t++)
            npin++;
    for (size_t i = npin; i < p->packages.n; i++) {
        bool hdr = false;
        for (char **t = r->headers; dnf && *t; t++) {
            CU_AUTOFREE char *x = cu_drv_expand(*t, p->branch, f);
            hdr |= strcmp(x, p->packages.v[i]) == 0;
        }
        cu_strv_push(hdr ? hdrs : pkgs, p->packages.v[i]);
    }
    struct cu_drv_step *s;
    if (apt && p->components) {
        s = step_new("sources");
        s->path = cu_xstrdup(CU_DRV_SOURCES_FILE);
        CU_AUTOFREE char *why = NULL;
        if (p->suites) {
            /* the suites the row names, with the codename: what the sources file will carry */
            const char *code = p->codename ? p->codename : "{C}"; /* a derivative's: its base's */
            struct cu_strv toks, names;
            cu_strv_init(&toks);
            cu_strv_init(&names);
            cu_strv_split(&toks, p->suites, " ");
            for (size_t i = 0; i < toks.n; i++) {
                const char *tok = toks.v[i], *brace = strstr(tok, "{C}");
                size_t n = strcspn(tok, "=");
                cu_strv_push_owned(&names, brace && (size_t)(brace - tok) < n
                                               ? cu_xasprintf("%.*s%s%.*s", (int)(brace - tok), tok, code, (int)(n - (size_t)(brace - tok) - 3), brace + 3)
                                               : cu_xstrndup(tok, n));
            }
            CU_AUTOFREE char *list = cu_strv_join(&names, " ");
            why = cu_xasprintf(_("Enable the %s components for the suites %s, where the system's sources do not carry them yet: a suite they lack gets its own entry (with the components the release has); the components that are there are not repeated."),
                               p->components, list);
            cu_strv_fini(&toks);
            cu_strv_fini(&names);
        } else {
            why = cu_xasprintf(_("Enable the %s components for each suite of the system's archive that its sources list (the release, -updates and -security where listed), where they are not yet."),
                               p->components);
        }
        push(p, s, why);
    }
    if (apt && p->repo) {
        s = step_new("keyring");
        s->url = cu_xstrdup(p->repo);
        const char *sha = cu_drv_keyring_sha256(in->cat->driver, p->repo);
        s->sha256 = sha ? cu_xstrdup(sha) : NULL;
        push(p, s, _("Add NVIDIA's repository with its keyring package, checked against its pinned sha256 before apt sees it."));
    }
    if (dnf && dkms)
        prereqs(in, p, "dkms");
    if (dnf && strcmp(r->pin, "dnf versionlock") == 0)
        prereqs(in, p, "versionlock");
    if (dnf && hdrs->n) {
        s = step_new("headers");
        s->argv = argv_of("dnf", "install", "-y", LIST, hdrs, NULL);
        push(p, s, _("The kernel headers DKMS builds with, matched to the kernel they bring (NVIDIA's preparation step)."));
    }
    if (p->repo && !apt) {
        s = step_new("repository");
        if (zypper) {
            s->argv = argv_of("zypper", "--non-interactive", "addrepo", "--refresh", p->repo, "cudaup-nvidia-cuda", NULL);
            push(p, s, _("Add NVIDIA's CUDA repository for this release."));
            s = step_new("refresh");
            s->argv = argv_of("zypper", "--non-interactive", "--gpg-auto-import-keys", "refresh", NULL);
            push(p, s, _("Refresh it, importing its signing key without a question."));
        } else {
            const char *base = strrchr(p->repo, '/');
            s->url = cu_xstrdup(p->repo);
            s->path = cu_xasprintf("/etc/yum.repos.d/%s", base ? base + 1 : "cuda.repo");
            push(p, s, _("Add NVIDIA's CUDA repository for this release."));
        }
    }
    if (apt) {
        s = step_new("update");
        s->argv = argv_of("apt-get", "update", NULL);
        push(p, s, _("Read the repositories' package lists."));
    }
    /* The lock on the branch comes before any package without the branch in its name (zypper's lock would
     * forbid the install: it comes after). */
    if (dnf && p->module_stream) {
        s = step_new("module");
        if (st && st->module_stream && !cu_str_has_suffix(p->module_stream, st->module_stream)) {
            CU_AUTOFREE char *cur = cu_xasprintf("nvidia-driver:%s", st->module_stream);
            if (strcmp(cur, p->module_stream) != 0) {
                s->argv = argv_of("dnf", "-y", "module", "switch-to", p->module_stream, "--allowerasing", NULL);
                push(p, s, _("Switch the nvidia-driver module to this stream: another is enabled, and dnf enables one at a time."));
                s = NULL;
            }
        }
        if (s && st && st->module_stream) {
            CU_AUTOFREE char *cur = cu_xasprintf("nvidia-driver:%s", st->module_stream);
            if (strcmp(cur, p->module_stream) == 0) {
                cu_drv_step_free(s);
                s = NULL;
            }
        }
        if (s) {
            s->argv = argv_of("dnf", "-y", "module", "enable", p->module_stream, NULL);
            push(p, s, _("Enable the module stream: it holds the branch and the flavor before anything is installed."));
        }
    }
    if (strcmp(r->pin, "dnf module") != 0 && strcmp(r->pin, "zypper addlock") != 0) {
        struct cu_drv_step *ps = cu_drv_pin_step(r, p->branch, f);
        if (ps)
            push(p, ps, _("Hold the branch before the driver is installed, so that the install itself takes this branch."));
    }
    if (st && st->image)
        image_headers(in, p, r, km, pkgs);
    s = step_new("install");
    if (apt)
        s->argv = argv_of("apt-get", "install", "-y", LIST, pkgs, NULL);
    else if (dnf)
        s->argv = argv_of("dnf", "install", "-y", LIST, pkgs, NULL);
    else if (zypper)
        s->argv = argv_of("zypper", "--non-interactive", "install", LIST, pkgs, NULL);
    else /* pacman: one full upgrade; a partial one is unsupported */
        s->argv = argv_of("pacman", "-Syu", "--noconfirm", "--needed", LIST, pkgs, NULL);
    CU_AUTOFREE char *iwhy = cu_xasprintf(_("Install the NVIDIA driver %d (%s) in one transaction."), p->branch, cu_drv_flavor_word(p->flavor));
    push(p, s, iwhy);
    if (r->match[0] && r->packages[0]) {
        struct cu_strv m;
        cu_strv_init(&m);
        for (char **t = r->match; *t; t++) {
            cu_strv_push_owned(&m, cu_drv_expand(*t, p->branch, f));
            cu_strv_push(&m, "==");
            cu_strv_push(&m, "{KV}");
        }
        s = step_new("match");
        s->argv = argv_of("zypper", "--non-interactive", "install", LIST, &m, NULL);
        s->query = cu_drv_expand(r->packages[0], p->branch, f);
        cu_strv_fini(&m);
        CU_AUTOFREE char *why = cu_xasprintf(_("Install the user space at the version of %s ({KV}), so that the libraries match the module."), s->query);
        push(p, s, why);
    }
    if (strcmp(r->pin, "zypper addlock") == 0) {
        struct cu_drv_step *ps = cu_drv_pin_step(r, p->branch, f);
        if (ps)
            push(p, ps, _("Lock the kernel module package and the user space together, so that an update moves neither alone."));
    }
    if (st && st->image && r->running_headers && r->running_headers[0]) {
        s = step_new("build");
        push(p, s, _("Build the module for each kernel of the image that has its headers and no module yet (dkms autoinstall -k KERNEL), the kernels the install brought included."));
    }
    /* The fabric manager asks the NVSwitch driver for its switches when it starts, and exits when no driver is
     * loaded (NV_WARN_NOTHING_TO_DO: NVIDIA/gpu-operator#610): it is started after the module loads, or enabled
     * to start at the next boot. */
    bool fm = p->fabricmanager.n && p->fabricmanager_service;
    if (p->blacklist_nouveau) {
        s = step_new("blacklist");
        s->path = cu_xstrdup(CU_DRV_BLACKLIST_FILE);
        s->text = cu_xstrdup("# Written by cudaup: nouveau would hold the GPU the NVIDIA driver needs.\n"
                             "blacklist nouveau\noptions nouveau modeset=0\n");
        push(p, s, _("Keep nouveau from taking the GPU at the next boot."));
        if (p->initramfs) {
            s = step_new("initramfs");
            struct cu_strv w;
            cu_strv_init(&w);
            cu_strv_split(&w, p->initramfs, " ");
            s->argv = argv_of(LIST, &w, NULL);
            cu_strv_fini(&w);
            push(p, s, _("Rebuild the initramfs without nouveau."));
        }
    }
    if (strcmp(p->secure_boot, "mok") == 0 && p->mok_cert) {
        s = step_new("mok");
        s->argv = argv_of("mokutil", "--import", p->mok_cert, NULL);
        push(p, s, _("Queue DKMS's signing key for enrolment (you type a one-time password; run on a terminal)."));
    }
    if (fm && p->reboot) {
        s = step_new("service");
        s->argv = argv_of("systemctl", "enable", p->fabricmanager_service, NULL);
        push(p, s, _("Enable the fabric manager's service, to start at the next boot: CUDA on NVSwitch systems waits for it, and started before the driver is loaded it exits (it finds no NVSwitch driver)."));
    }
    s = step_new(p->reboot ? "reboot" : "load");
    if (!p->reboot)
        s->argv = argv_of("modprobe", "nvidia", NULL);
    push(p, s, p->reboot ? _("Stop for a reboot (exit 5); run cudaup again afterwards to go on.")
                         : _("Load the module (a reboot when it does not load)."));
    if (fm && !p->reboot) {
        s = step_new("service");
        s->argv = argv_of("systemctl", "enable", "--now", p->fabricmanager_service, NULL);
        push(p, s, _("Enable and start the fabric manager's service once the module is loaded: CUDA on NVSwitch systems waits for it, and started before the driver it exits (it finds no NVSwitch driver). Where the module does not load before a reboot, the service is only enabled, to start at the next boot."));
    }
    strv_del(pkgs);
    strv_del(hdrs);
}

json_t *
cu_drv_steps_json(const struct cu_drv_plan *p)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct cu_drv_step *s = &p->steps[i];
        json_t *o = json_object();
        json_object_set_new(o, "action", json_string(s->action));
        if (s->argv) {
            json_t *v = json_array();
            for (char **w = s->argv; *w; w++)
                json_array_append_new(v, json_string(*w));
            json_object_set_new(o, "argv", v);
            CU_AUTOFREE char *line = cu_drv_step_line(s);
            json_object_set_new(o, "command", json_string(line));
        } else {
            json_object_set_new(o, "argv", json_null());
            json_object_set_new(o, "command", json_null());
        }
        json_object_set_new(o, "path", cu_json_str_or_null(s->path));
        json_object_set_new(o, "text", cu_json_str_or_null(s->text));
        json_object_set_new(o, "url", cu_json_str_or_null(s->url));
        json_object_set_new(o, "sha256", cu_json_str_or_null(s->sha256));
        if (s->query)
            json_object_set_new(o, "query", json_string(s->query));
        json_object_set_new(o, "why", cu_json_str_or_null(s->why));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *
cu_drv_repositories_json(const struct cu_drv_plan *p)
{
    static const char *const kinds[] = {"sources", "keyring", "repository", "crb", "epel"};
    json_t *a = json_array();
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct cu_drv_step *s = &p->steps[i];
        bool repo = false;
        for (size_t k = 0; k < CU_N_ELEMENTS(kinds); k++)
            repo |= strcmp(s->action, kinds[k]) == 0;
        if (!repo)
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "kind", json_string(s->action));
        json_object_set_new(o, "url", cu_json_str_or_null(s->url));
        json_object_set_new(o, "path", cu_json_str_or_null(s->path));
        CU_AUTOFREE char *line = s->argv ? cu_drv_step_line(s) : NULL;
        json_object_set_new(o, "command", cu_json_str_or_null(line));
        json_array_append_new(a, o);
    }
    return a;
}
