/* SPDX-License-Identifier: MIT */
/*
 * `uninstall driver`: undo what STATE/driver.json says cudaup did, exactly that (issue 32, class 1).
 * The packages it removes are those its steps newly installed; before any is removed, the package
 * manager is asked what the removal would take with it, and anything else is refused by name.  No
 * blanket autoremove (it would take orphans that were there before cudaup).  After each undone part
 * the record is rewritten without it, so that a rerun after a failure goes on where it stopped.
 */
#include "config.h"

#define CU_LOG_TAG "driver"
#include "driver_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"
#include "core/catalog/catalog.h"

/* ---- what a removal takes ------------------------------------------------------------------- */

/*
 * Ask the manager what removing @pkgs would remove: apt-get -s purge (its "Purg"/"Remv" lines), rpm -e
 * --test and pacman -R --print (which fail when another package needs one).  @others gets what is not
 * in @pkgs; @needs, for rpm and pacman, "OTHER\tWHAT" for each of those the manager says needs WHAT.  Errors:
 * the query's; CU_E_TOOL when the manager refuses the removal.
 */
static enum cu_status
removal_takes(struct inst_driver_ctx *c, const char *manager, const struct cu_strv *pkgs, struct cu_strv *others,
              struct cu_strv *needs, struct cu_error *err)
{
    struct cu_strv av;
    struct cu_buf out, errout;
    int code = 0;
    cu_strv_init(&av);
    cu_buf_init(&out);
    cu_buf_init(&errout);
    bool apt = strcmp(manager, "apt") == 0;
    if (apt) {
        cu_strv_push(&av, "apt-get");
        cu_strv_push(&av, "-s");
        cu_strv_push(&av, "--allow-change-held-packages"); /* cudaup's own holds go first, before the real removal */
        cu_strv_push(&av, "purge");
    } else if (strcmp(manager, "pacman") == 0) {
        cu_strv_push(&av, "pacman");
        cu_strv_push(&av, "-R");
        cu_strv_push(&av, "--print");
    } else {
        cu_strv_push(&av, "rpm");
        cu_strv_push(&av, "-e");
        cu_strv_push(&av, "--test");
    }
    for (size_t i = 0; i < pkgs->n; i++)
        cu_strv_push(&av, pkgs->v[i]);
    enum cu_status st = cu_sys_capture(c->sys, (const char *const *)av.v, &out, &errout, &code, err);
    CU_AUTOFREE char *line = cu_sys_argv_str((const char *const *)av.v);
    if (st == CU_OK && code != 0) {
        /* rpm: "X is needed by (installed) Y"; pacman: "removing X breaks dependency 'X' required by Y": the Ys. */
        for (char *l = errout.data, *next; l && *l; l = next) {
            next = strchr(l, '\n');
            if (next)
                *next++ = '\0';
            const char *by = strstr(l, "needed by (installed) ");
            by = by ? by + strlen("needed by (installed) ") : strstr(l, "required by ") ? strstr(l, "required by ") + strlen("required by ") : NULL;
            if (!by)
                continue;
            CU_AUTOFREE char *name = cu_xstrndup(by, strcspn(by, " \t"));
            if (*name && !cu_strv_contains(pkgs, name) && !cu_strv_contains(others, name))
                cu_strv_push(others, name);
            /* what it needs: rpm's "\tX is needed by", pacman's "removing X breaks" */
            const char *what = strstr(l, "removing ") ? strstr(l, "removing ") + strlen("removing ") : l + strspn(l, " \t:");
            if (*name)
                cu_strv_push_owned(needs, cu_xasprintf("%s\t%.*s", name, (int)strcspn(what, " \t"), what));
        }
        if (!others->n) {
            CU_AUTOFREE char *said = cu_xstrdup(errout.data ? errout.data : "");
            CU_AUTOFREE char *why = cu_str_sanitize(cu_str_strip(said));
            st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                              _("The package manager will not remove what cudaup installed (`%s` refused it: %.300s), so nothing was removed."),
                              line, why);
        }
    }
    for (char *l = st == CU_OK && apt ? out.data : NULL, *next; l && *l; l = next) {
        next = strchr(l, '\n');
        if (next)
            *next++ = '\0';
        if (!cu_str_has_prefix(l, "Purg ") && !cu_str_has_prefix(l, "Remv "))
            continue;
        CU_AUTOFREE char *name = cu_xstrndup(l + 5, strcspn(l + 5, " :"));
        if (!cu_strv_contains(pkgs, name) && !cu_strv_contains(others, name))
            cu_strv_push(others, name);
    }
    cu_buf_fini(&out);
    cu_buf_fini(&errout);
    cu_strv_fini(&av);
    return st;
}

/* ---- what stays ------------------------------------------------------------------------------ */

/* DKMS modules other than the driver's registered under the root (/var/lib/dkms/NAME/), to @out. */
static void
other_dkms(const struct inst_driver_ctx *c, struct cu_strv *out)
{
    DIR *d = c->sys->files_open ? cu_sysroot_opendir(&c->sys->files, "/var/lib/dkms") : NULL;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        CU_AUTOFREE char *p = cu_path_join("/var/lib/dkms", de->d_name);
        if (de->d_name[0] != '.' && !cu_str_has_prefix(de->d_name, "nvidia") && cu_sysroot_is_dir(&c->sys->files, p) &&
            drv_pkg_name_ok("apt", de->d_name))
            cu_strv_push(out, de->d_name);
    }
    if (d)
        closedir(d);
    cu_strv_sort(out);
}

/* Move @name from @from to @to. */
static void
move(struct cu_strv *from, struct cu_strv *to, const char *name)
{
    for (size_t i = 0; i < from->n; i++)
        if (strcmp(from->v[i], name) == 0) {
            cu_strv_push_owned(to, from->v[i]);
            memmove(&from->v[i], &from->v[i + 1], (from->n - i) * sizeof(char *));
            from->n--;
            return;
        }
}

/* The package names a dpkg relation field names ("a (>= 1) | b:any, c"), to @out. */
static void
relation_names(const char *field, struct cu_strv *out)
{
    struct cu_strv alts;
    cu_strv_init(&alts);
    cu_strv_split(&alts, field, ",|");
    for (size_t i = 0; i < alts.n; i++) {
        const char *a = alts.v[i] + strspn(alts.v[i], " \t");
        CU_AUTOFREE char *n = cu_xstrndup(a, strcspn(a, " \t(:"));
        if (*n)
            cu_strv_push(out, n);
    }
    cu_strv_fini(&alts);
}

/* dpkg's view of the installed packages: each one's name, its Depends and Pre-Depends, its Provides, its Recommends. */
struct dpkg_rels {
    struct cu_strv names, rels, provs, recs, installed;
};

static void
dpkg_rels_fini(struct dpkg_rels *d)
{
    cu_strv_fini(&d->names);
    cu_strv_fini(&d->rels);
    cu_strv_fini(&d->provs);
    cu_strv_fini(&d->recs);
    cu_strv_fini(&d->installed);
}

/* Read @d with dpkg-query; @d->installed gets the names whose status is installed (not config-files only). */
static enum cu_status
dpkg_rels_read(struct inst_driver_ctx *c, struct dpkg_rels *d, struct cu_error *err)
{
    const char *argv[] = {"dpkg-query", "-W", "-f=${Package}\t${Depends}, ${Pre-Depends}\t${Provides}\t${Status}\t${Recommends}\n", NULL};
    struct cu_buf out;
    int code = 0;
    cu_buf_init(&out);
    cu_strv_init(&d->names);
    cu_strv_init(&d->rels);
    cu_strv_init(&d->provs);
    cu_strv_init(&d->recs);
    cu_strv_init(&d->installed);
    enum cu_status st = cu_sys_capture(c->sys, argv, &out, NULL, &code, err);
    for (char *l = st == CU_OK ? out.data : NULL, *next; l && *l; l = next) {
        next = strchr(l, '\n');
        if (next)
            *next++ = '\0';
        char *t1 = strchr(l, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL, *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
        char *t4 = t3 ? strchr(t3 + 1, '\t') : NULL;
        if (!t1 || !t2)
            continue;
        *t1++ = '\0';
        *t2++ = '\0';
        if (t3)
            *t3++ = '\0';
        if (t4)
            *t4++ = '\0';
        cu_strv_push(&d->names, l);
        cu_strv_push(&d->rels, t1);
        cu_strv_push(&d->provs, t2);
        cu_strv_push(&d->recs, t4 ? t4 : "");
        if (t3 && cu_str_has_suffix(cu_str_strip(t3), " installed"))
            cu_strv_push(&d->installed, l);
    }
    cu_buf_fini(&out);
    return st;
}

/* Which of @among package @name depends on directly (by name, or through what one provides), to @out; with
 * @recommends, what it recommends too. */
static void
dpkg_needs(const struct dpkg_rels *d, const char *name, bool recommends, const struct cu_strv *among, struct cu_strv *out)
{
    struct cu_strv want;
    cu_strv_init(&want);
    for (size_t i = 0; i < d->names.n; i++)
        if (strcmp(d->names.v[i], name) == 0) {
            relation_names(d->rels.v[i], &want);
            if (recommends)
                relation_names(d->recs.v[i], &want);
        }
    for (size_t w = 0; w < want.n; w++)
        for (size_t i = 0; i < d->names.n; i++) {
            if (!cu_strv_contains(among, d->names.v[i]) || cu_strv_contains(out, d->names.v[i]))
                continue;
            struct cu_strv pv;
            cu_strv_init(&pv);
            relation_names(d->provs.v[i], &pv);
            if (strcmp(d->names.v[i], want.v[w]) == 0 || cu_strv_contains(&pv, want.v[w]))
                cu_strv_push(out, d->names.v[i]);
            cu_strv_fini(&pv);
        }
    cu_strv_fini(&want);
}

/*
 * apt: what the packages kept need stays with them: each of @remove that a kept package depends on (or
 * pre-depends on, or recommends: apt's own autoremove counts recommends as needed, and Ubuntu's kernel images
 * only recommend initramfs-tools, which builds their initramfs), directly or through another, or that provides
 * what it depends on, goes to @deps.  The
 * packages kept are @kept and every installed kernel, headers or keep package (driver_kernel_packages.csv)
 * not in @remove: a kernel meta that was there before and that the install upgraded (linux-image-generic
 * then depends on the microcode and firmware the install brought) keeps what it now needs.
 */
static enum cu_status
keep_closure(struct inst_driver_ctx *c, const struct cu_drv_data *dd, const struct cu_strv *kept, struct cu_strv *remove,
             struct cu_strv *deps, struct cu_error *err)
{
    struct dpkg_rels d;
    struct cu_strv queue;
    cu_strv_init(&queue);
    enum cu_status st = dpkg_rels_read(c, &d, err);
    for (size_t i = 0; i < kept->n; i++)
        cu_strv_push(&queue, kept->v[i]);
    for (size_t i = 0; i < d.installed.n; i++) {
        const char *kind = cu_drv_kernel_kind(dd, "apt", d.installed.v[i]);
        if (kind && strcmp(kind, "driver") != 0 && !cu_strv_contains(remove, d.installed.v[i]) &&
            !cu_strv_contains(&queue, d.installed.v[i]))
            cu_strv_push(&queue, d.installed.v[i]);
    }
    for (size_t q = 0; q < queue.n; q++) {
        struct cu_strv need;
        cu_strv_init(&need);
        dpkg_needs(&d, queue.v[q], true, remove, &need);
        for (size_t i = 0; i < need.n; i++) {
            cu_strv_push(&queue, need.v[i]);
            move(remove, deps, need.v[i]);
        }
        cu_strv_fini(&need);
    }
    dpkg_rels_fini(&d);
    cu_strv_fini(&queue);
    return st;
}

void
drv_unplan_init(struct drv_unplan *u)
{
    cu_strv_init(&u->remove);
    cu_strv_init(&u->kernels);
    cu_strv_init(&u->headers);
    cu_strv_init(&u->tools);
    cu_strv_init(&u->deps);
    cu_strv_init(&u->dkms);
}

void
drv_unplan_fini(struct drv_unplan *u)
{
    cu_strv_fini(&u->remove);
    cu_strv_fini(&u->kernels);
    cu_strv_fini(&u->headers);
    cu_strv_fini(&u->tools);
    cu_strv_fini(&u->deps);
    cu_strv_fini(&u->dkms);
}

enum cu_status
drv_uninstall_split(struct inst_driver_ctx *c, const struct drv_rec *r, const struct cu_strv *still, struct drv_unplan *u,
                    struct cu_error *err)
{
    const struct cu_drv_data *dd = c->cat ? c->cat->driver : NULL;
    struct cu_strv hdr;
    cu_strv_init(&hdr);
    other_dkms(c, &u->dkms);
    for (size_t i = 0; i < still->n; i++) {
        const char *kind = cu_drv_kernel_kind(dd, r->manager, still->v[i]);
        /* In a machine image nobody has logged in through what the install brought (sudo): it goes with the rest. */
        if (kind && strcmp(kind, "keep") == 0 && c->sys->image)
            kind = NULL;
        cu_strv_push(!kind                          ? &u->remove
                     : strcmp(kind, "kernel") == 0 ? &u->kernels
                     : strcmp(kind, "keep") == 0   ? &u->tools
                                                   : &hdr,
                     still->v[i]);
    }
    /* Headers cudaup brought go with the driver, unless another DKMS module builds against them. */
    for (size_t i = 0; i < hdr.n; i++)
        cu_strv_push(u->dkms.n ? &u->headers : &u->remove, hdr.v[i]);
    cu_strv_fini(&hdr);
    enum cu_status st = CU_OK;
    if (strcmp(r->manager, "apt") == 0 && u->remove.n) {
        struct cu_strv kept;
        cu_strv_init(&kept);
        for (size_t i = 0; i < u->tools.n; i++)
            cu_strv_push(&kept, u->tools.v[i]);
        for (size_t i = 0; i < u->kernels.n; i++)
            cu_strv_push(&kept, u->kernels.v[i]);
        for (size_t i = 0; i < u->headers.n; i++)
            cu_strv_push(&kept, u->headers.v[i]);
        st = keep_closure(c, dd, &kept, &u->remove, &u->deps, err);
        cu_strv_fini(&kept);
    }
    return st;
}

enum cu_status
inst_driver_uninstall_plan(struct inst_driver_ctx *c, struct drv_unplan *u, struct cu_error *err)
{
    struct drv_rec r;
    struct cu_strv now;
    bool exists;
    enum cu_status st = drv_refuse_in_container(c, err); /* before it says what it would remove */
    if (st != CU_OK)
        return st;
    drv_rec_init(&r);
    cu_strv_init(&now);
    st = drv_rec_load(c->state_dir, c->cat, &r, &exists, err);
    if (st == CU_OK && exists && r.packages.n && (st = drv_preflight(c, r.manager, err)) == CU_OK &&
        (st = drv_installed(c->sys, r.manager, &now, NULL, NULL, err)) == CU_OK) {
        struct cu_strv still;
        cu_strv_init(&still);
        for (size_t i = 0; i < r.packages.n; i++)
            if (cu_strv_contains(&now, r.packages.v[i]))
                cu_strv_push(&still, r.packages.v[i]);
        st = drv_uninstall_split(c, &r, &still, u, err);
        cu_strv_fini(&still);
    }
    drv_rec_fini(&r);
    cu_strv_fini(&now);
    return st;
}

/* ---- undoing -------------------------------------------------------------------------------- */

static void
drop(struct cu_strv *v, const char *name)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->v[i], name) == 0) {
            free(v->v[i]);
            memmove(&v->v[i], &v->v[i + 1], (v->n - i) * sizeof(char *));
            v->n--;
            return;
        }
}

static enum cu_status
run_list(struct inst_driver_ctx *c, const char *action, const char *cmd, const struct cu_strv *names, struct cu_error *err)
{
    return names->n ? drv_run_words(c, action, cmd, names, err) : CU_OK;
}

/* Remove @pkgs (those cudaup installed and still there); purge unless their configuration was there before.  What a
 * package's removal script asks for in its environment (the data's remove_env: sudo's SUDO_FORCE_REMOVE=yes, only
 * in an image) goes with the removal. */
static enum cu_status
remove_packages(struct inst_driver_ctx *c0, struct drv_rec *r, const struct cu_strv *pkgs, struct cu_error *err)
{
    struct cu_strv purge, keep, env;
    enum cu_status st = CU_OK;
    cu_strv_init(&purge);
    cu_strv_init(&keep);
    cu_strv_init(&env);
    const struct cu_drv_data *dd = c0->cat ? c0->cat->driver : NULL;
    for (size_t i = 0; i < pkgs->n; i++) {
        const char *e = cu_drv_kernel_remove_env(dd, r->manager, pkgs->v[i]);
        if (e && !cu_strv_contains(&env, e))
            cu_strv_push(&env, e);
    }
    struct cu_sys sys = *c0->sys;
    sys.env_add = env.n ? (const char *const *)env.v : NULL;
    struct inst_driver_ctx cc = *c0, *c = &cc;
    cc.sys = &sys;
    for (size_t i = 0; i < pkgs->n; i++)
        cu_strv_push(cu_strv_contains(&r->kept_config, pkgs->v[i]) ? &keep : &purge, pkgs->v[i]);
    if (strcmp(r->manager, "apt") == 0) {
        if ((st = run_list(c, "remove", "apt-get purge -y", &purge, err)) == CU_OK)
            st = run_list(c, "remove", "apt-get remove -y", &keep, err);
    } else if (strcmp(r->manager, "dnf") == 0) {
        /* Only these: dnf would otherwise also take what it deems unneeded (an autoremove). */
        st = run_list(c, "remove", "dnf remove -y --setopt=clean_requirements_on_remove=False", pkgs, err);
    } else if (strcmp(r->manager, "zypper") == 0) {
        st = run_list(c, "remove", "zypper --non-interactive remove", pkgs, err);
    } else {
        st = run_list(c, "remove", "pacman -R --noconfirm", pkgs, err);
    }
    cu_strv_fini(&purge);
    cu_strv_fini(&keep);
    cu_strv_fini(&env);
    return st;
}

/*
 * What each of @others (not cudaup's) needs among what the removal would take (@pkgs and @others): "user-tool
 * needs nvidia-utils-580", joined; apt's from dpkg's relations, rpm's and pacman's from @needs (removal_takes).
 * Returns an owned string.
 */
static char *
needs_text(struct inst_driver_ctx *c, const char *manager, const struct cu_strv *pkgs, const struct cu_strv *others,
           const struct cu_strv *needs)
{
    struct cu_strv items, among;
    struct dpkg_rels d;
    struct cu_error e = {0};
    bool apt = strcmp(manager, "apt") == 0;
    cu_strv_init(&items);
    cu_strv_init(&among);
    for (size_t i = 0; i < pkgs->n; i++)
        cu_strv_push(&among, pkgs->v[i]);
    for (size_t i = 0; i < others->n; i++)
        cu_strv_push(&among, others->v[i]);
    if (apt && dpkg_rels_read(c, &d, &e) != CU_OK)
        cu_log_debug("%s", e.msg); /* the advice then says less; the refusal stands */
    for (size_t i = 0; i < others->n; i++) {
        struct cu_strv what;
        cu_strv_init(&what);
        if (apt) {
            dpkg_needs(&d, others->v[i], false, &among, &what);
        } else {
            size_t n = strlen(others->v[i]);
            for (size_t k = 0; k < needs->n; k++)
                if (strncmp(needs->v[k], others->v[i], n) == 0 && needs->v[k][n] == '\t' &&
                    !cu_strv_contains(&what, needs->v[k] + n + 1))
                    cu_strv_push(&what, needs->v[k] + n + 1);
        }
        if (what.n) {
            CU_AUTOFREE char *w = cu_strv_join(&what, " ");
            cu_strv_push_owned(&items, cu_xasprintf(_("%s needs %s"), others->v[i], w));
        }
        cu_strv_fini(&what);
    }
    if (apt)
        dpkg_rels_fini(&d);
    char *out = items.n ? cu_strv_join(&items, _("; ")) : cu_xstrdup(_("through other packages"));
    cu_strv_fini(&items);
    cu_strv_fini(&among);
    return out;
}

enum cu_status
inst_driver_uninstall(struct inst_driver_ctx *c, struct cu_error *err)
{
    struct drv_rec r;
    struct cu_strv now, held, still, others, needs;
    struct drv_unplan up;
    bool exists;
    enum cu_status st;
    drv_unplan_init(&up);
    drv_rec_init(&r);
    cu_strv_init(&now);
    cu_strv_init(&held);
    cu_strv_init(&still);
    cu_strv_init(&others);
    cu_strv_init(&needs);
    CU_AUTOFREE char *path = cu_path_join(c->state_dir, "driver.json");
    CU_AUTOFREE char *resume = NULL;
    if ((st = drv_rec_load(c->state_dir, c->cat, &r, &exists, err)) != CU_OK)
        goto out;
    if (!exists) {
        st = cu_error_set(err, CU_E_NOT_FOUND, 0, _("cudaup has not installed a driver here (no %s); nothing was removed."), path);
        goto out;
    }
    if ((st = drv_preflight(c, r.manager, err)) != CU_OK)
        goto out;
    /* What of it is still installed, and what its removal would take besides: asked before anything changes. */
    if (r.packages.n || r.held.n) {
        if ((st = drv_installed(c->sys, r.manager, &now, NULL, &held, err)) != CU_OK)
            goto out;
        for (size_t i = 0; i < r.packages.n; i++)
            if (cu_strv_contains(&now, r.packages.v[i]))
                cu_strv_push(&still, r.packages.v[i]);
    }
    /* The kernels (and headers other DKMS modules need) the install brought stay, with what they need. */
    if (still.n && (st = drv_uninstall_split(c, &r, &still, &up, err)) != CU_OK)
        goto out;
    cu_strv_fini(&still);
    cu_strv_init(&still);
    for (size_t i = 0; i < up.remove.n; i++)
        cu_strv_push(&still, up.remove.v[i]);
    if (still.n && (st = removal_takes(c, r.manager, &still, &others, &needs, err)) != CU_OK)
        goto out;
    if (others.n) {
        CU_AUTOFREE char *taken = cu_strv_join(&others, " ");
        CU_AUTOFREE char *why = needs_text(c, r.manager, &still, &others, &needs);
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                          _("Removing the packages cudaup installed would also remove %s, which cudaup did not install; nothing was removed."),
                          taken);
        cu_error_advise(err, _("They need what the removal takes (%s). Remove them first if you no longer need them, then run `cudaup uninstall driver` again."),
                        why);
        goto out;
    }
    /* The pins first, so that the package manager may remove what they held. */
    if (strcmp(r.manager, "apt") == 0) {
        struct cu_strv un;
        cu_strv_init(&un);
        for (size_t i = 0; i < r.held.n; i++)
            if (cu_strv_contains(&held, r.held.v[i]))
                cu_strv_push(&un, r.held.v[i]);
        st = run_list(c, "unpin", "apt-mark unhold", &un, err);
        cu_strv_fini(&un);
    } else if (strcmp(r.manager, "zypper") == 0) {
        st = run_list(c, "unpin", "zypper --non-interactive removelock", &r.held, err);
    }
    for (size_t i = 0; st == CU_OK && i < r.versionlock.n; i++) {
        const char *argv[] = {"dnf", "versionlock", "delete", r.versionlock.v[i], NULL};
        st = drv_run_step(c, "unpin", argv, false, err);
    }
    if (st != CU_OK)
        goto out;
    cu_strv_fini(&r.held);
    cu_strv_init(&r.held);
    cu_strv_fini(&r.versionlock);
    cu_strv_init(&r.versionlock);
    if ((st = drv_rec_save(c->state_dir, &r, err)) != CU_OK)
        goto out;
    if (still.n && (st = remove_packages(c, &r, &still, err)) != CU_OK) {
        /* A package's own removal script refused, and the manager stopped part-way: what it removed is gone;
         * the rest is still cudaup's, and a rerun removes only what is still installed. */
        if (st == CU_E_TOOL)
            cu_error_advise(err, _("The package manager stopped part-way through the removal: a package's own removal script refused (its output is above and in the log). What it removed is gone. Do what its message asks, or remove that package yourself, then run `cudaup uninstall driver` again: it removes only what is still installed."));
        goto out;
    }
    cu_strv_fini(&r.packages);
    cu_strv_init(&r.packages);
    cu_strv_fini(&r.kept_config);
    cu_strv_init(&r.kept_config);
    if ((st = drv_rec_save(c->state_dir, &r, err)) != CU_OK)
        goto out;
    /* What cudaup added besides packages: the module stream, the repositories, its files. */
    while (r.streams.n && st == CU_OK) {
        CU_AUTOFREE char *mod = cu_xstrndup(r.streams.v[0], strcspn(r.streams.v[0], ":"));
        const char *argv[] = {"dnf", "-y", "module", "reset", mod, NULL};
        if ((st = drv_run_step(c, "module", argv, false, err)) == CU_OK) {
            drop(&r.streams, r.streams.v[0]);
            st = drv_rec_save(c->state_dir, &r, err);
        }
    }
    while (r.repos.n && st == CU_OK) {
        const char *argv[] = {"zypper", "--non-interactive", "removerepo", r.repos.v[0], NULL};
        if ((st = drv_run_step(c, "repository", argv, false, err)) == CU_OK) {
            drop(&r.repos, r.repos.v[0]);
            st = drv_rec_save(c->state_dir, &r, err);
        }
    }
    bool blacklist = cu_strv_contains(&r.files, DRV_BLACKLIST_FILE);
    while (r.files.n && st == CU_OK) {
        if ((st = cu_sys_remove(c->sys, r.files.v[0], err)) == CU_OK) {
            cu_run_result(c->run, "driver", "remove", r.files.v[0], CU_OK, true);
            drop(&r.files, r.files.v[0]);
            st = drv_rec_save(c->state_dir, &r, err);
        }
    }
    if (st != CU_OK)
        goto out;
    /* Then the initramfs, which held the blacklist. */
    if (r.initramfs && blacklist && (st = drv_run_words(c, "initramfs", r.initramfs, NULL, err)) != CU_OK)
        goto out;
    free(r.initramfs);
    r.initramfs = NULL;
    /* The record of where the install stopped (a reboot, an image's first boot, a failed step) has nothing left to
     * resume: it goes with the driver (issue 46 item 13: the image test found it left behind). */
    resume = cu_path_join(c->state_dir, "resume.json");
    if (unlink(resume) == 0)
        cu_run_result(c->run, "driver", "remove", resume, CU_OK, true);
    else if (errno != ENOENT)
        cu_log_warn(_("Cannot remove %s"), resume);
    cu_run_result(c->run, "driver", "record", path, CU_OK, true);
    st = drv_rec_save(c->state_dir, &r, err); /* empty: the record goes */
out:
    drv_unplan_fini(&up);
    drv_rec_fini(&r);
    cu_strv_fini(&now);
    cu_strv_fini(&held);
    cu_strv_fini(&still);
    cu_strv_fini(&others);
    cu_strv_fini(&needs);
    return st;
}
