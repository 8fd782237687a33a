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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"

/* ---- what a removal takes ------------------------------------------------------------------- */

/*
 * Ask the manager what removing @pkgs would remove: apt-get -s purge (its "Purg"/"Remv" lines), rpm -e
 * --test and pacman -R --print (which fail when another package needs one).  @others gets what is not
 * in @pkgs.  Errors: the query's; CU_E_TOOL when the manager refuses the removal.
 */
static enum cu_status
removal_takes(struct inst_driver_ctx *c, const char *manager, const struct cu_strv *pkgs, struct cu_strv *others,
              struct cu_error *err)
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

/* Remove @pkgs (those cudaup installed and still there); purge unless their configuration was there before. */
static enum cu_status
remove_packages(struct inst_driver_ctx *c, struct drv_rec *r, const struct cu_strv *pkgs, struct cu_error *err)
{
    struct cu_strv purge, keep;
    enum cu_status st = CU_OK;
    cu_strv_init(&purge);
    cu_strv_init(&keep);
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
    return st;
}

enum cu_status
inst_driver_uninstall(struct inst_driver_ctx *c, struct cu_error *err)
{
    struct drv_rec r;
    struct cu_strv now, held, still, others;
    bool exists;
    enum cu_status st;
    drv_rec_init(&r);
    cu_strv_init(&now);
    cu_strv_init(&held);
    cu_strv_init(&still);
    cu_strv_init(&others);
    CU_AUTOFREE char *path = cu_path_join(c->state_dir, "driver.json");
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
    if (still.n && (st = removal_takes(c, r.manager, &still, &others, err)) != CU_OK)
        goto out;
    if (others.n) {
        struct cu_buf b;
        cu_buf_init(&b);
        for (size_t i = 0; i < others.n; i++)
            cu_buf_printf(&b, "%s%s", i ? " " : "", others.v[i]);
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                          _("Removing the packages cudaup installed would also remove %s, which cudaup did not install; nothing was removed."),
                          b.data);
        cu_error_advise(err, _("Those depend on the driver. Remove them first if you no longer need them, then run `cudaup uninstall driver` again."));
        cu_buf_fini(&b);
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
    if (still.n && (st = remove_packages(c, &r, &still, err)) != CU_OK)
        goto out;
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
    cu_run_result(c->run, "driver", "record", path, CU_OK, true);
    st = drv_rec_save(c->state_dir, &r, err); /* empty: the record goes */
out:
    drv_rec_fini(&r);
    cu_strv_fini(&now);
    cu_strv_fini(&held);
    cu_strv_fini(&still);
    cu_strv_fini(&others);
    return st;
}
