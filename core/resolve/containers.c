/* SPDX-License-Identifier: MIT */
/*
 * The containers part of the plan (core/resolve/containers.h): which engines, which release of the toolkit from
 * which repository, held how, what each engine's configuration becomes and how the engine takes it, the CDI spec and
 * what keeps it fresh.  Pure: facts and data in, a plan out.
 */
#include "config.h"

#include "core/resolve/containers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/catalog/driver_data.h"
#include "core/resolve/driver.h"

/* ---- the wish ------------------------------------------------------------------------------------------- */

bool
cu_ctr_wish_any(const struct cu_ctr_wish *w)
{
    return w && w->containers && *w->containers && strcmp(w->containers, "none") != 0;
}

enum cu_status
cu_ctr_wish_check(const struct cu_ctr_wish *w, struct cu_error *err)
{
    if (!cu_ctr_wish_any(w) || strcmp(w->containers, "auto") == 0)
        return CU_OK;
    struct cu_strv v;
    enum cu_status st = CU_OK;
    cu_strv_init(&v);
    cu_strv_split(&v, w->containers, ",");
    for (size_t i = 0; i < v.n && st == CU_OK; i++) {
        enum cu_engine_kind k;
        if (!cu_engine_parse(v.v[i], &k))
            st = cu_error_set(err, CU_E_USAGE, 0, _("--containers: '%s' is not an engine cudaup configures (docker, containerd, crio, podman), nor auto or none."),
                              v.v[i]);
    }
    if (st == CU_OK && !v.n)
        st = cu_error_set(err, CU_E_USAGE, 0, _("--containers needs engines (docker, containerd, crio, podman), auto or none."));
    cu_strv_fini(&v);
    return st;
}

/* ---- building ----------------------------------------------------------------------------------------- */

static void
say(struct cu_ctr_plan *p, const char *source, const char *fmt, ...) CU_PRINTF(3, 4);
static void
say(struct cu_ctr_plan *p, const char *source, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cu_i18n_push_noted(&p->reasons, fmt, ap);
    va_end(ap);
    cu_strv_push(&p->reason_sources, source ? source : "");
}

static void
user_step(struct cu_ctr_plan *p, const char *fmt, ...) CU_PRINTF(2, 3);
static void
user_step(struct cu_ctr_plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cu_i18n_push_noted(&p->user_steps, fmt, ap);
    va_end(ap);
}

static void
refuse(struct cu_ctr_plan *p, char *refusal, char *advice)
{
    free(p->action);
    p->action = cu_xstrdup("refuse");
    free(p->refusal);
    free(p->advice);
    p->refusal = refusal;
    p->advice = advice;
}

static struct cu_ctr_step *
step(struct cu_ctr_plan *p, const char *action, const char *engine, const char *why)
{
    p->steps = cu_xreallocarray(p->steps, p->n_steps + 1, sizeof(*p->steps));
    struct cu_ctr_step *s = &p->steps[p->n_steps++];
    memset(s, 0, sizeof(*s));
    s->action = cu_xstrdup(action);
    s->engine = engine ? cu_xstrdup(engine) : NULL;
    s->why = cu_xstrdup(why);
    return s;
}

static char **
argv_v(const struct cu_strv *v)
{
    char **out = cu_xcalloc(v->n + 1, sizeof(char *));
    for (size_t i = 0; i < v->n; i++)
        out[i] = cu_xstrdup(v->v[i]);
    return out;
}

static char **
argv_of(const char *first, ...)
{
    struct cu_strv v;
    va_list ap;
    cu_strv_init(&v);
    va_start(ap, first);
    for (const char *w = first; w; w = va_arg(ap, const char *))
        cu_strv_push(&v, w);
    va_end(ap);
    char **out = argv_v(&v);
    cu_strv_fini(&v);
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

/* The driver data's row of NVIDIA's repository for this distribution (any branch, any flavor). */
static const struct cu_drv_pkg *
nvidia_row(const struct cu_facts *f, const struct cu_catalog *cat)
{
    const char *vid = f->os.version_id ? f->os.version_id : "";
    char major[32];
    snprintf(major, sizeof(major), "%.*s", (int)strcspn(vid, "."), vid);
    for (size_t i = 0; cat->driver && f->os.id && i < cat->driver->n_pkgs; i++) {
        const struct cu_drv_pkg *r = &cat->driver->pkgs[i];
        if (strcmp(r->source, "nvidia") == 0 && r->repo && strv_has(r->ids, f->os.id) &&
            (strv_has(r->versions, vid) || strv_has(r->versions, major)))
            return r;
    }
    return NULL;
}

/* Does the plan's driver add NVIDIA's repository already (its keyring or repository steps)? */
static bool
driver_adds_repo(const struct cu_drv_plan *d)
{
    for (size_t i = 0; d && strcmp(d->action, "install") == 0 && i < d->n_steps; i++)
        if (strcmp(d->steps[i].action, "keyring") == 0 || strcmp(d->steps[i].action, "repository") == 0)
            return true;
    return false;
}

static const char *
installed_version(const struct cu_strv *installed, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; installed && i < installed->n; i++)
        if (strncmp(installed->v[i], name, n) == 0 && installed->v[i][n] == '=')
            return installed->v[i] + n + 1;
    return NULL;
}

/* A hold or prereq template's argv: {PKGS} the names, {SPECS} NAME-VERSION-1. */
static char **
hold_argv(char *const *tmpl, const struct cu_strv *names, const char *pkgver)
{
    struct cu_strv v;
    cu_strv_init(&v);
    for (char *const *w = tmpl; w && *w; w++) {
        if (strcmp(*w, "{PKGS}") == 0)
            for (size_t i = 0; i < names->n; i++)
                cu_strv_push(&v, names->v[i]);
        else if (strcmp(*w, "{SPECS}") == 0)
            for (size_t i = 0; i < names->n; i++)
                cu_strv_push_owned(&v, cu_xasprintf("%s-%s", names->v[i], pkgver));
        else
            cu_strv_push(&v, *w);
    }
    char **out = argv_v(&v);
    cu_strv_fini(&v);
    return out;
}

/* NVIDIA's repository, added as the driver stage adds it: apt's keyring package checked against its pinned sha256,
 * dnf's .repo file, zypper's addrepo. */
static void
repository_steps(struct cu_ctr_plan *p, const struct cu_ctr_in *in, const struct cu_drv_pkg *row)
{
    CU_AUTOFREE char *url = cu_drv_expand(row->repo, 0, in->facts);
    if (strcmp(row->manager, "apt") == 0) {
        struct cu_ctr_step *s = step(p, "keyring", NULL, _("Add NVIDIA's CUDA repository (it carries the toolkit) with its keyring package, checked against its pinned sha256 before apt sees it."));
        s->url = cu_xstrdup(url);
        const char *sha = cu_drv_keyring_sha256(in->cat->driver, url);
        s->sha256 = sha ? cu_xstrdup(sha) : NULL;
    } else if (strcmp(row->manager, "zypper") == 0) {
        struct cu_ctr_step *s = step(p, "repository", NULL, _("Add NVIDIA's CUDA repository (it carries the toolkit)."));
        s->argv = argv_of("zypper", "--non-interactive", "addrepo", "--refresh", url, "cudaup-nvidia-cuda", NULL);
        s = step(p, "refresh", NULL, _("Refresh it, importing its signing key without a question."));
        s->argv = argv_of("zypper", "--non-interactive", "--gpg-auto-import-keys", "refresh", NULL);
    } else {
        const char *base = strrchr(url, '/');
        struct cu_ctr_step *s = step(p, "repository", NULL, _("Add NVIDIA's CUDA repository (it carries the toolkit)."));
        s->url = cu_xstrdup(url);
        s->path = cu_xasprintf("/etc/yum.repos.d/%s", base ? base + 1 : "cuda.repo");
    }
}

static bool
engine_wanted(const struct cu_ctr_wish *w, enum cu_engine_kind k)
{
    if (strcmp(w->containers, "auto") == 0)
        return true;
    struct cu_strv v;
    bool hit = false;
    cu_strv_init(&v);
    cu_strv_split(&v, w->containers, ",");
    for (size_t i = 0; i < v.n; i++) {
        enum cu_engine_kind e;
        hit |= cu_engine_parse(v.v[i], &e) && e == k;
    }
    cu_strv_fini(&v);
    return hit;
}

static struct cu_ctr_engine *
add_engine(struct cu_ctr_plan *p, const struct cu_engine_info *e)
{
    p->engines = cu_xreallocarray(p->engines, p->n_engines + 1, sizeof(*p->engines));
    struct cu_ctr_engine *x = &p->engines[p->n_engines++];
    memset(x, 0, sizeof(*x));
    x->kind = e->kind;
    char b[32];
    x->version = e->version.n ? cu_xstrdup(cu_version_format(&e->version, 0, b, sizeof(b))) : NULL;
    cu_strv_init(&x->running);
    for (size_t i = 0; i < e->running.n; i++)
        cu_strv_push(&x->running, e->running.v[i]);
    x->running_known = e->running_known;
    return x;
}

/* How a changed engine takes its new configuration: reload, restart (asked, or left to the user), or nothing. */
static void
apply(struct cu_ctr_plan *p, const struct cu_ctr_in *in, const struct cu_engine_info *e, struct cu_ctr_engine *x,
      bool runtimes_only)
{
    const char *name = cu_engine_name(e->kind), *title = cu_engine_title(e->kind);
    const char *unit = name;
    CU_AUTOFREE char *names = cu_strv_join(&x->running, ", ");
    if (in->image) {
        x->apply = cu_xstrdup("none");
        say(p, NULL, _("%s reads its new configuration when the image's machine starts it."), title);
        return;
    }
    if (e->rootless) {
        x->apply = cu_xstrdup("user");
        user_step(p, _("As the user who runs the rootless Docker (%s): `systemctl --user restart docker`, so that it reads %s."),
                  e->home, x->config);
        return;
    }
    if (!in->engines->systemd) {
        x->apply = cu_xstrdup("user");
        user_step(p, _("Restart %s yourself so that it reads its new configuration: this machine runs no systemd for cudaup to restart it with."),
                  title);
        return;
    }
    if (!e->state || strcmp(e->state, "active") != 0) {
        x->apply = cu_xstrdup("none");
        say(p, NULL, _("%s is not running (systemd says %s): it reads its new configuration when it starts."), title,
            e->state ? e->state : _("nothing"));
        return;
    }
    if (runtimes_only && e->kind == CU_ENGINE_DOCKER && cu_ctk_fact_for(in->cat->containers, "docker", "reload", NULL)) {
        /* Docker reloads its runtimes on SIGHUP: no container stops (moby daemon/reload.go). */
        x->apply = cu_xstrdup("reload");
        struct cu_ctr_step *s = step(p, "reload", name, _("Reload Docker: it takes a new runtime without a restart, so no container stops."));
        s->argv = argv_of("systemctl", "reload", unit, NULL);
        return;
    }
    bool busy = !x->running_known || x->running.n;
    CU_AUTOFREE char *cmd = cu_xasprintf("systemctl restart %s", unit);
    if (busy && in->wish->yes && !in->wish->restart_engines) {
        x->apply = cu_xstrdup("user");
        if (x->running_known)
            user_step(p, _("Restart %s when its running containers may stop (%s): `%s` (with --yes cudaup restarts no engine that runs containers; --restart-engines lets it)."),
                      title, names, cmd);
        else
            user_step(p, _("Restart %s when its containers may stop (cudaup could not ask it which it runs): `%s` (with --yes cudaup restarts no engine that may run containers; --restart-engines lets it)."),
                      title, cmd);
        return;
    }
    x->apply = cu_xstrdup("restart");
    CU_AUTOFREE char *why = x->running.n ? cu_tr_asprintf(_("Restart %s so that it reads its new configuration; its running containers stop: %s."), title, names)
                            : x->running_known ? cu_tr_asprintf(_("Restart %s so that it reads its new configuration (it runs no container now)."), title)
                                               : cu_tr_asprintf(_("Restart %s so that it reads its new configuration (cudaup could not ask it which containers it runs)."), title);
    struct cu_ctr_step *s = step(p, "restart", name, why);
    s->argv = argv_of("systemctl", "restart", unit, NULL);
    s->ask = !in->wish->yes && busy; /* asked first, naming the containers that stop (the plan's own question covers an idle one) */
}

static bool
engine_plan(struct cu_ctr_plan *p, const struct cu_ctr_in *in, const struct cu_engine_info *e, struct cu_error *err)
{
    const struct cu_ctk_data *d = in->cat->containers;
    struct cu_ctr_engine *x = add_engine(p, e);
    const char *name = cu_engine_name(e->kind), *title = cu_engine_title(e->kind);
    char vb[32] = "";
    if (e->version.n)
        cu_version_format(&e->version, 0, vb, sizeof(vb));
    switch (e->kind) {
    case CU_ENGINE_PODMAN:
        x->mode = cu_xstrdup("cdi");
        x->configured = true;
        x->check = cu_xstrdup("none");
        x->apply = cu_xstrdup("none");
        say(p, NULL, _("Podman runs GPU containers through the CDI spec alone (`podman run --device nvidia.com/gpu=all ...`, rootless too): nothing of its own is configured."));
        if (e->version.n && !cu_ctk_fact_for(d, "podman", "cdi", &e->version))
            say(p, NULL, _("Podman %s predates the CDI support the data vouches for (4.1): upgrade it to run GPU containers."), vb);
        return true;
    case CU_ENGINE_DOCKER: {
        const struct cu_engine_file *f = e->rootless ? &e->user_config : &e->config;
        x->mode = cu_xstrdup(e->rootless ? "rootless" : "daemon.json");
        x->config = cu_xstrdup(f->path);
        CU_AUTOFREE char *text = NULL;
        bool changed, runtimes_only;
        if (cu_docker_config(d, &e->version, f->text, &text, &changed, &runtimes_only, err) != CU_OK)
            return false;
        x->configured = !changed;
        const struct cu_ctk_fact *v = e->version.n ? cu_ctk_fact_for(d, "docker", "validate", &e->version) : NULL;
        x->check = cu_xstrdup(v ? "dockerd --validate" : "keys");
        if (!changed) {
            say(p, NULL, _("%s is configured for the GPU already (%s has the nvidia runtime)."), title, f->path);
            x->apply = cu_xstrdup("none");
            return true;
        }
        CU_AUTOFREE char *why = f->text ? cu_tr_asprintf(_("Add the nvidia runtime to %s, every key of yours kept (the old file is kept beside it, .cudaup-bak)."), f->path)
                                        : cu_tr_asprintf(_("Write %s with the nvidia runtime."), f->path);
        struct cu_ctr_step *s = step(p, "configure", name, why);
        s->path = cu_xstrdup(f->path);
        s->text = cu_steal_ptr(&text);
        CU_AUTOFREE char *cwhy = v ? cu_tr_asprintf(_("Check it with Docker's own parser before it is put in place (`dockerd --validate`, Docker %s)."), vb)
                                   : cu_tr_asprintf(_("Check it before it is put in place: Docker %s has no `dockerd --validate` (from 23.0), so cudaup parses it and compares its keys with the old file's."),
                                                    *vb ? vb : "?");
        s = step(p, "check", name, cwhy);
        if (v)
            s->argv = argv_of("dockerd", "--validate", "--config-file", f->path, NULL);
        if (e->rootless) {
            s = step(p, "configure", name, _("Set no-cgroups = true in the toolkit's /etc/nvidia-container-runtime/config.toml: a rootless Docker cannot manage cgroups (NVIDIA's rootless mode)."));
            s->path = cu_xstrdup(CU_CTR_TOOLKIT_CONFIG);
            if ((in->engines->e[CU_ENGINE_CONTAINERD].installed && engine_wanted(in->wish, CU_ENGINE_CONTAINERD)) ||
                (in->engines->e[CU_ENGINE_CRIO].installed && engine_wanted(in->wish, CU_ENGINE_CRIO)))
                say(p, NULL, _("no-cgroups applies to every engine that runs the NVIDIA runtime hook on this machine."));
        }
        apply(p, in, e, x, runtimes_only);
        return true;
    }
    case CU_ENGINE_CONTAINERD: {
        struct cu_ctd_write w;
        if (cu_ctd_config(d, &e->version, e->config.text, e->imports, e->n_imports, &w, err) != CU_OK)
            return false;
        x->mode = cu_xstrdup(w.mode);
        x->check = cu_xstrdup("containerd config dump");
        x->configured = w.configured;
        /* A drop-in it refuses stops containerd whatever else is right: set aside, kept to be restored. */
        for (size_t i = 0; i < e->n_imports; i++) {
            CU_AUTOFREE char *why = e->imports[i].text ? cu_ctd_refuses(d, &e->version, w.root_version, e->imports[i].text) : NULL;
            if (!why)
                continue;
            CU_AUTOFREE char *sw = cu_tr_asprintf(_("Set aside %s: %s (it is kept as %s.cudaup-disabled)."), e->imports[i].path, why,
                                                  e->imports[i].path);
            struct cu_ctr_step *s = step(p, "set-aside", name, sw);
            s->path = cu_xstrdup(e->imports[i].path);
            x->configured = false;
        }
        if (w.configured) {
            say(p, NULL, _("containerd is configured for the GPU already (%s defines the nvidia runtime)."), w.configured_in);
            x->apply = cu_xstrdup("none");
            cu_ctd_write_fini(&w);
            return true;
        }
        const struct cu_ctk_fact *merge = cu_ctk_fact_for(d, "containerd", "dropin_merge", &e->version);
        CU_AUTOFREE char *src = merge ? cu_ctk_fact_source(merge) : NULL;
        if (strcmp(w.mode, "root-config") == 0) {
            x->config = cu_xstrdup("/etc/containerd/config.toml");
            say(p, src, _("containerd %s merges a drop-in's plugin table over its root config's whole table (before 2.1), so cudaup adds the NVIDIA runtime to /etc/containerd/config.toml itself, in its version %d, as a marked block; nothing else of it changes."),
                *vb ? vb : "?", w.root_version);
            struct cu_ctr_step *s = step(p, "configure", name, _("Add the nvidia runtime (runtime_type io.containerd.runc.v2) to /etc/containerd/config.toml as a marked block (the old file is kept beside it, .cudaup-bak)."));
            s->path = cu_xstrdup("/etc/containerd/config.toml");
            s->text = cu_steal_ptr(&w.root_text);
        } else {
            x->config = cu_xstrdup(CU_CTR_CONTAINERD_DROPIN);
            say(p, src, _("containerd %s merges drop-ins into its root config; cudaup's drop-in declares the root config's own version %d (containerd 2.3 refuses a newer one), with runtime_type set."),
                vb, w.root_version);
            struct cu_ctr_step *s = step(p, "configure", name, _("Write containerd's drop-in with the nvidia runtime, in the root config's version."));
            s->path = cu_xstrdup(CU_CTR_CONTAINERD_DROPIN);
            s->text = cu_steal_ptr(&w.dropin_text);
            if (w.root_text) {
                s = step(p, "configure", name, _("Add the drop-in to /etc/containerd/config.toml's imports (the old file is kept beside it, .cudaup-bak)."));
                s->path = cu_xstrdup("/etc/containerd/config.toml");
                s->text = cu_steal_ptr(&w.root_text);
            }
        }
        struct cu_ctr_step *s = step(p, "check", name, _("Check the result with containerd's own parser before it is put in place (`containerd config dump` of the new files): it must load, hold the nvidia runtime and keep every setting of config.toml."));
        s->argv = argv_of("containerd", "--config", "/etc/containerd/config.toml", "config", "dump", NULL);
        cu_ctd_write_fini(&w);
        apply(p, in, e, x, false);
        return true;
    }
    case CU_ENGINE_CRIO: {
        x->mode = cu_xstrdup("drop-in");
        x->check = cu_xstrdup("crio config");
        bool have = cu_crio_configured(&e->config, 1) || cu_crio_configured(e->imports, e->n_imports);
        x->configured = have;
        if (have) {
            say(p, NULL, _("CRI-O is configured for the GPU already (its configuration defines the nvidia runtime)."));
            x->apply = cu_xstrdup("none");
            return true;
        }
        x->config = cu_xstrdup(CU_CTR_CRIO_DROPIN);
        struct cu_ctr_step *s = step(p, "configure", name, _("Write CRI-O's drop-in with the nvidia runtime."));
        s->path = cu_xstrdup(CU_CTR_CRIO_DROPIN);
        s->text = cu_crio_dropin();
        s = step(p, "check", name, _("Check the result with CRI-O's own parser before it is put in place (`crio config` with the new drop-in)."));
        s->argv = argv_of("crio", "config", NULL);
        apply(p, in, e, x, false);
        return true;
    }
    default:
        return true;
    }
}

/* The newest release of the data that the repository carries and that serves the driver, or NULL. */
static const struct cu_ctk_release *
pick_release(const struct cu_ctk_data *d, const struct cu_ctk_repo *repo, const struct cu_version *driver)
{
    for (size_t i = 0; i < d->n_releases; i++) {
        const struct cu_ctk_release *r = &d->releases[i];
        if (repo->from.n && cu_version_cmp(&r->ver, &repo->from) < 0)
            continue;
        if (driver && driver->n && cu_version_cmp(driver, &r->driver_min) < 0)
            continue;
        return r;
    }
    return NULL;
}

static void
toolkit_steps(struct cu_ctr_plan *p, const struct cu_ctr_in *in, const struct cu_drv_pkg *row, const struct cu_ctk_release *rel)
{
    const struct cu_facts *f = in->facts;
    const char *mgr = row->manager;
    CU_AUTOFREE char *pkgver = cu_xasprintf("%s-1", rel->version);
    bool ready = true;
    for (char **n = rel->packages; *n; n++) {
        cu_strv_push(&p->names, *n);
        cu_strv_push_owned(&p->packages, strcmp(mgr, "dnf") == 0 ? cu_xasprintf("%s-%s", *n, pkgver) : cu_xasprintf("%s=%s", *n, pkgver));
        const char *have = installed_version(in->installed, *n);
        ready &= have && (strcmp(have, pkgver) == 0 || cu_str_has_suffix(have, pkgver));
    }
    p->toolkit_ready = ready && in->installed;
    const struct cu_ctk_hold *h = cu_ctk_hold_for(in->cat->containers, f->os.id, f->os.version_id);
    if (h) {
        char **hv = hold_argv(h->hold, &p->names, pkgver);
        struct cu_ctr_step tmp = {.argv = hv};
        p->hold = cu_ctr_step_line(&tmp);
        cu_strv_free(hv);
    }
    if (p->toolkit_ready) {
        say(p, NULL, _("The NVIDIA Container Toolkit %s is installed already."), rel->version);
        return;
    }
    if (!in->nvidia_repo && !driver_adds_repo(in->driver))
        repository_steps(p, in, row);
    else if (driver_adds_repo(in->driver))
        say(p, NULL, _("NVIDIA's CUDA repository is added by the driver's steps before these."));
    if (strcmp(mgr, "apt") == 0) {
        struct cu_ctr_step *s = step(p, "update", NULL, _("Read the repositories' package lists."));
        s->argv = argv_of("apt-get", "update", NULL);
    }
    if (h && h->prereq[0]) {
        struct cu_ctr_step *s = step(p, "prereq", NULL, _("Install what holding the toolkit needs (dnf's versionlock plugin)."));
        s->argv = cu_strv_dup(h->prereq);
    }
    struct cu_strv av;
    cu_strv_init(&av);
    if (strcmp(mgr, "apt") == 0) {
        cu_strv_push(&av, "apt-get");
        cu_strv_push(&av, "install");
        cu_strv_push(&av, "-y");
    } else if (strcmp(mgr, "dnf") == 0) {
        cu_strv_push(&av, "dnf");
        cu_strv_push(&av, "install");
        cu_strv_push(&av, "-y");
    } else {
        cu_strv_push(&av, "zypper");
        cu_strv_push(&av, "--non-interactive");
        cu_strv_push(&av, "install");
    }
    for (size_t i = 0; i < p->packages.n; i++)
        cu_strv_push(&av, p->packages.v[i]);
    CU_AUTOFREE char *why = cu_tr_asprintf(_("Install the NVIDIA Container Toolkit %s (its four packages at one release, as NVIDIA's guide installs them)."),
                                           rel->version);
    struct cu_ctr_step *s = step(p, "install", NULL, why);
    s->argv = argv_v(&av);
    cu_strv_fini(&av);
    if (h) {
        s = step(p, "hold", NULL, _("Hold the toolkit at this release, as the driver's branch is held: an update of the system moves it no more."));
        s->argv = hold_argv(h->hold, &p->names, pkgver);
    }
}

static void
cdi_steps(struct cu_ctr_plan *p, const struct cu_ctr_in *in, const struct cu_ctk_release *rel)
{
    const struct cu_facts *f = in->facts;
    const struct cu_ctk_fact *out = cu_ctk_fact_for(in->cat->containers, "cdi", "refresh_output", NULL);
    p->cdi_path = cu_xstrdup(out ? out->value : "/var/run/cdi/nvidia.yaml");
    bool loaded = (f->driver.kind == CU_DRIVER_NVIDIA && f->driver.version.n && !f->driver.planned) || f->driver.kind == CU_DRIVER_WSL;
    bool drv_reboots = in->driver && strcmp(in->driver->action, "install") == 0;
    /* Fresh already: a spec of the driver that runs. */
    bool fresh = false;
    for (size_t i = 0; in->cdi && i < in->cdi->n && loaded; i++)
        fresh |= in->cdi->v[i].driver.n && cu_version_cmp(&in->cdi->v[i].driver, &f->driver.version) == 0;
    if (in->image) {
        say(p, NULL, _("The CDI spec is generated at the image's first boot (the refresh unit runs then)."));
    } else if (!loaded || drv_reboots) {
        say(p, NULL, _("No NVIDIA driver runs yet, so the CDI spec is generated when it does (the refresh unit runs after the driver is installed, and at each boot)."));
    } else if (!fresh || !p->toolkit_ready) {
        CU_AUTOFREE char *why = cu_tr_asprintf(_("Generate the CDI spec of this machine's GPUs for the driver that runs (%s)%s."), p->cdi_path,
                                               p->wsl ? _(", in WSL2's mode") : "");
        struct cu_ctr_step *s = step(p, "cdi", NULL, why);
        CU_AUTOFREE char *o = cu_xasprintf("--output=%s", p->cdi_path);
        s->argv = p->wsl ? argv_of("nvidia-ctk", "cdi", "generate", o, "--mode=wsl", NULL) : argv_of("nvidia-ctk", "cdi", "generate", o, NULL);
    }
    bool units = rel->refresh_units && (!p->wsl || rel->units_wsl);
    if (!in->engines->systemd && !in->image) {
        p->refresh = cu_xstrdup("none");
        user_step(p, _("This machine runs no systemd, so nothing regenerates the CDI spec for you: after each boot and each driver update, run `nvidia-ctk cdi generate --output=%s`%s."),
                  p->cdi_path, p->wsl ? " --mode=wsl" : "");
        return;
    }
    if (units) {
        p->refresh = cu_xstrdup("nvidia-cdi-refresh");
        CU_AUTOFREE char *why = cu_tr_asprintf(_("Enable the toolkit's own refresh units: they regenerate the CDI spec at each boot and after a driver update (NVIDIA Container Toolkit %s ships them)."),
                                               rel->version);
        struct cu_ctr_step *s = step(p, "units", NULL, why);
        s->argv = argv_of("systemctl", "enable", "nvidia-cdi-refresh.path", "nvidia-cdi-refresh.service", NULL);
        return;
    }
    p->refresh = cu_xstrdup("cudaup-cdi-refresh");
    CU_AUTOFREE char *why = p->wsl && rel->refresh_units
                                ? cu_tr_asprintf(_("Write a unit of cudaup's own that regenerates the CDI spec at each boot: the refresh units of toolkit %s do not run on WSL2 (fixed in 1.19.1)."), rel->version)
                                : cu_tr_asprintf(_("Write a unit of cudaup's own that regenerates the CDI spec at each boot: toolkit %s ships no refresh unit, and /var/run is emptied at every boot."), rel->version);
    struct cu_ctr_step *s = step(p, "configure", NULL, why);
    s->path = cu_xstrdup(CU_CTR_OWN_UNIT);
    s->text = cu_ctr_own_unit(p->cdi_path, p->wsl);
    s = step(p, "units", NULL, _("Enable it."));
    s->argv = argv_of("systemctl", "enable", "cudaup-cdi-refresh.service", NULL);
}

struct cu_ctr_plan *
cu_ctr_choose(const struct cu_ctr_in *in)
{
    const struct cu_ctr_wish *w = in->wish;
    const struct cu_facts *f = in->facts;
    const struct cu_ctk_data *d = in->cat->containers;
    if (!cu_ctr_wish_any(w))
        return NULL;
    struct cu_ctr_plan *p = cu_xcalloc(1, sizeof(*p));
    p->action = cu_xstrdup("install");
    cu_strv_init(&p->packages);
    cu_strv_init(&p->names);
    cu_strv_init(&p->reasons);
    cu_strv_init(&p->reason_sources);
    cu_strv_init(&p->user_steps);
    p->wsl = f->os.wsl || f->driver.kind == CU_DRIVER_WSL;
    p->image = in->image;
    if (f->container.inside) {
        CU_AUTOFREE char *where = cu_drv_container_where(&f->container);
        refuse(p, cu_tr_asprintf(_("--containers %s: cudaup runs inside a container (%s); GPU containers are set up on the host, whose engines start them."),
                                 w->containers, where),
               cu_xstrdup(_("Run cudaup on the host with --containers (the toolkit, the engines' configuration and the CDI spec are the host's), and start this container there with the GPU.")));
        return p;
    }
    /* The engines: those asked for, each installed on this Linux. */
    const struct cu_engines *en = in->engines;
    bool any = false;
    for (int k = 0; k < CU_N_ENGINES; k++) {
        const struct cu_engine_info *e = &en->e[k];
        bool want = engine_wanted(w, (enum cu_engine_kind)k), automatic = strcmp(w->containers, "auto") == 0;
        if (!want)
            continue;
        if (e->desktop) {
            if (!automatic) {
                refuse(p, cu_tr_asprintf(_("--containers docker: this machine's docker is Docker Desktop's (%s), which runs on Windows, not on this Linux: cudaup cannot configure it from here."),
                                         e->desktop_link),
                       cu_xstrdup(_("Turn on Docker Desktop's WSL integration and its GPU support in Docker Desktop's settings (on Windows); or install Docker Engine in this Linux and run cudaup again.")));
                return p;
            }
            say(p, NULL, _("Docker here is Docker Desktop's (%s), which runs on Windows: --containers auto leaves it to Docker Desktop's own settings."),
                e->desktop_link);
            continue;
        }
        if (!e->installed) {
            if (!automatic) {
                refuse(p, cu_tr_asprintf(_("--containers %s: %s is not installed here (no %s on this machine's PATH)."), cu_engine_name((enum cu_engine_kind)k),
                                         cu_engine_title((enum cu_engine_kind)k), k == CU_ENGINE_DOCKER ? "dockerd" : cu_engine_name((enum cu_engine_kind)k)),
                       cu_xstrdup(_("Install the engine first, or name only the engines this machine has (--containers auto takes every one).")));
                return p;
            }
            continue;
        }
        any = true;
    }
    if (!any) {
        free(p->action);
        p->action = cu_xstrdup("keep");
        say(p, NULL, _("--containers auto: no container engine is installed on this Linux (dockerd, containerd, crio, podman), so none is configured."));
        return p;
    }
    /* Where the toolkit comes from, at which release. */
    const struct cu_ctk_repo *repo = cu_ctk_repo_for(d, f->os.id, f->os.version_id);
    const struct cu_drv_pkg *row = nvidia_row(f, in->cat);
    const char *os = f->os.pretty_name ? f->os.pretty_name : f->os.id ? f->os.id : _("this distribution");
    if (!repo || !repo->carries || !row) {
        CU_AUTOFREE char *src = repo ? cu_xasprintf("data/containers/toolkit_repos.csv: %s (%s)", repo->ref, repo->confidence) : NULL;
        refuse(p, repo && !repo->carries ? cu_tr_asprintf(_("NVIDIA's CUDA repository for %s does not carry the NVIDIA Container Toolkit (%s), so cudaup cannot install it from there."), os, repo->ref)
                                         : cu_tr_asprintf(_("cudaup has no record of an NVIDIA repository that carries the NVIDIA Container Toolkit for %s."), os),
               cu_xstrdup(_("Install the toolkit as NVIDIA's guide shows for this distribution (its own repository, nvidia.github.io/libnvidia-container), then run cudaup again: it configures the engines and the CDI spec around it.")));
        if (src)
            cu_strv_push(&p->reason_sources, src);
        return p;
    }
    p->manager = cu_xstrdup(row->manager);
    struct cu_version drv = {0};
    if (in->driver && strcmp(in->driver->action, "install") == 0)
        drv = in->driver->version;
    else if (f->driver.version.n)
        drv = f->driver.version;
    const struct cu_ctk_release *rel = pick_release(d, repo, &drv);
    if (!rel) {
        char b[32];
        refuse(p, cu_tr_asprintf(_("No release of the NVIDIA Container Toolkit cudaup knows serves the NVIDIA driver %s."), cu_driver_version_format(&drv, b, sizeof(b))),
               cu_xstrdup(_("Update the driver (--driver auto plans one), then run cudaup again.")));
        return p;
    }
    p->toolkit = cu_xstrdup(rel->version);
    CU_AUTOFREE char *rsrc = cu_xasprintf("data/containers/toolkit_versions.csv %s: %s (%s); toolkit_repos.csv: %s (%s)", rel->version, rel->ref,
                                          rel->confidence, repo->ref, repo->confidence);
    char db[32];
    say(p, rsrc, _("The NVIDIA Container Toolkit %s (released %s), the newest release cudaup's data vouches for, from NVIDIA's CUDA repository for %s; it serves every driver from %s."),
        rel->version, rel->released, os, cu_driver_version_format(&rel->driver_min, db, sizeof(db)));
    toolkit_steps(p, in, row, rel);
    /* The engines' configuration, each checked by its own parser before it is in place. */
    for (int k = 0; k < CU_N_ENGINES; k++) {
        const struct cu_engine_info *e = &en->e[k];
        struct cu_error err;
        if (!engine_wanted(w, (enum cu_engine_kind)k) || !e->installed)
            continue;
        if (!engine_plan(p, in, e, &err)) {
            refuse(p, cu_xstrdup(err.msg), err.advice[0] ? cu_xstrdup(err.advice) : NULL);
            return p;
        }
    }
    cdi_steps(p, in, rel);
    bool work = p->n_steps > 0;
    if (!work) {
        free(p->action);
        p->action = cu_xstrdup("keep");
    }
    return p;
}

/* ---- the plan's life ------------------------------------------------------------------------------------- */

void
cu_ctr_step_fini(struct cu_ctr_step *s)
{
    free(s->action);
    free(s->engine);
    cu_strv_free(s->argv);
    free(s->path);
    free(s->text);
    free(s->url);
    free(s->sha256);
    free(s->why);
    memset(s, 0, sizeof(*s));
}

void
cu_ctr_plan_free(struct cu_ctr_plan *p)
{
    if (!p)
        return;
    free(p->action);
    for (size_t i = 0; i < p->n_engines; i++) {
        struct cu_ctr_engine *x = &p->engines[i];
        free(x->version);
        free(x->mode);
        free(x->config);
        free(x->check);
        free(x->apply);
        cu_strv_fini(&x->running);
    }
    free(p->engines);
    free(p->manager);
    free(p->toolkit);
    cu_strv_fini(&p->packages);
    cu_strv_fini(&p->names);
    free(p->hold);
    free(p->cdi_path);
    free(p->refresh);
    cu_strv_fini(&p->reasons);
    cu_strv_fini(&p->reason_sources);
    cu_strv_fini(&p->user_steps);
    free(p->refusal);
    free(p->advice);
    for (size_t i = 0; i < p->n_steps; i++)
        cu_ctr_step_fini(&p->steps[i]);
    free(p->steps);
    free(p);
}

char *
cu_ctr_step_line(const struct cu_ctr_step *s)
{
    if (!s->argv)
        return cu_xstrdup(s->path ? s->path : s->url ? s->url : s->action);
    struct cu_buf b;
    cu_buf_init(&b);
    for (char **w = s->argv; *w; w++) {
        bool plain = **w && strspn(*w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/:=+@%,-") == strlen(*w);
        CU_AUTOFREE char *q = plain ? cu_xstrdup(*w) : cu_sh_quote(*w);
        cu_buf_printf(&b, "%s%s", w == s->argv ? "" : " ", q);
    }
    return cu_buf_steal(&b);
}

static json_t *
strv_json(const struct cu_strv *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(a, json_string(v->v[i]));
    return a;
}

json_t *
cu_ctr_plan_json(const struct cu_ctr_plan *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "action", json_string(p->action));
    json_t *en = json_array();
    for (size_t i = 0; i < p->n_engines; i++) {
        const struct cu_ctr_engine *x = &p->engines[i];
        json_t *e = json_object();
        json_object_set_new(e, "name", json_string(cu_engine_name(x->kind)));
        json_object_set_new(e, "version", cu_json_str_or_null(x->version));
        json_object_set_new(e, "mode", cu_json_str_or_null(x->mode));
        json_object_set_new(e, "config", cu_json_str_or_null(x->config));
        json_object_set_new(e, "configured", json_boolean(x->configured));
        json_object_set_new(e, "check", cu_json_str_or_null(x->check));
        json_object_set_new(e, "apply", cu_json_str_or_null(x->apply));
        json_object_set_new(e, "running", x->running_known ? strv_json(&x->running) : json_null());
        json_array_append_new(en, e);
    }
    json_object_set_new(o, "engines", en);
    if (p->toolkit) {
        json_t *t = json_object();
        json_object_set_new(t, "version", json_string(p->toolkit));
        json_object_set_new(t, "packages", strv_json(&p->packages));
        json_object_set_new(t, "installed", json_boolean(p->toolkit_ready));
        json_object_set_new(t, "manager", cu_json_str_or_null(p->manager));
        json_object_set_new(t, "hold", cu_json_str_or_null(p->hold));
        json_object_set_new(o, "toolkit", t);
    } else {
        json_object_set_new(o, "toolkit", json_null());
    }
    if (p->cdi_path) {
        json_t *c = json_object();
        json_object_set_new(c, "path", json_string(p->cdi_path));
        json_object_set_new(c, "refresh", cu_json_str_or_null(p->refresh));
        json_object_set_new(c, "wsl", json_boolean(p->wsl));
        json_object_set_new(o, "cdi", c);
    } else {
        json_object_set_new(o, "cdi", json_null());
    }
    json_t *st = json_array();
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct cu_ctr_step *s = &p->steps[i];
        json_t *j = json_object();
        json_object_set_new(j, "action", json_string(s->action));
        json_object_set_new(j, "engine", cu_json_str_or_null(s->engine));
        if (s->argv) {
            json_t *a = json_array();
            for (char **w = s->argv; *w; w++)
                json_array_append_new(a, json_string(*w));
            json_object_set_new(j, "argv", a);
        }
        if (s->path)
            json_object_set_new(j, "path", json_string(s->path));
        if (s->text)
            json_object_set_new(j, "text", json_string(s->text));
        if (s->url)
            json_object_set_new(j, "url", json_string(s->url));
        if (s->sha256)
            json_object_set_new(j, "sha256", json_string(s->sha256));
        if (s->ask)
            json_object_set_new(j, "ask", json_true());
        json_object_set_new(j, "why", json_string(s->why));
        json_array_append_new(st, j);
    }
    json_object_set_new(o, "steps", st);
    json_object_set_new(o, "user_steps", strv_json(&p->user_steps));
    json_object_set_new(o, "reasons", strv_json(&p->reasons));
    if (p->refusal) {
        json_object_set_new(o, "refusal", json_string(p->refusal));
        json_object_set_new(o, "advice", cu_json_str_or_null(p->advice));
    }
    return o;
}
