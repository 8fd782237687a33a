/* SPDX-License-Identifier: MIT */
/*
 * The containers stage undone (exactly its record) and repaired (a CDI spec missing or stale regenerated), through
 * the system runner (installers/containers/containers.h).
 */
#include "config.h"

#define CU_LOG_TAG "containers"
#include "ctr_int.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/toml.h"
#include "core/install/exec.h"
#include "installers/driver.h"

static void
say(struct cu_strv *lines, const char *fmt, ...) CU_PRINTF(2, 3);
static void
say(struct cu_strv *lines, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (lines)
        cu_i18n_push_noted(lines, fmt, ap);
    va_end(ap);
}

static enum cu_status
run(struct inst_ctr_ctx *c, const char *action, const char *const *argv, struct cu_error *err)
{
    CU_AUTOFREE char *line = cu_sys_argv_str(argv);
    enum cu_status st = cu_sys_run(c->sys, argv, false, NULL, err);
    if (c->run)
        cu_run_result(c->run, "containers", action, line, st, st == CU_OK);
    return st;
}

/* daemon.json changed since cudaup wrote it: cudaup's nvidia runtime (and the CDI feature it turned on) taken out. */
static char *
docker_unconfig(const char *text, bool cdi_added)
{
    json_error_t je;
    json_t *o = json_loads(text ? text : "", 0, &je);
    if (!json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    json_t *rts = json_object_get(o, "runtimes");
    if (json_is_object(rts)) {
        json_object_del(rts, "nvidia");
        if (!json_object_size(rts))
            json_object_del(o, "runtimes");
    }
    json_t *feat = json_object_get(o, "features");
    if (cdi_added && json_is_object(feat)) {
        json_object_del(feat, "cdi");
        if (!json_object_size(feat))
            json_object_del(o, "features");
    }
    char *s = json_dumps(o, JSON_INDENT(4));
    json_decref(o);
    char *out = cu_xasprintf("%s\n", s);
    free(s);
    return out;
}

/* config.toml changed since: cudaup's marked block taken out, and its drop-in taken out of the imports. */
static char *
containerd_unconfig(const char *text, bool import_added)
{
    CU_AUTOFREE char *t = cu_ctd_unblock(text);
    const char *cur = t ? t : text;
    struct cu_toml doc;
    struct cu_error err;
    if (!import_added || cu_toml_parse(cur, &doc, &err) != CU_OK)
        return t ? cu_xstrdup(t) : NULL;
    const struct cu_toml_entry *im = cu_toml_get(&doc, "imports");
    char *out = t ? cu_xstrdup(t) : NULL;
    if (im && im->type == CU_TOML_ARRAY && im->top) {
        struct cu_buf b, nb;
        cu_buf_init(&b);
        cu_buf_init(&nb);
        size_t kept = 0;
        cu_buf_puts(&b, "imports = [");
        for (char **x = im->items; x && *x; x++)
            if (strcmp(*x, CU_CTR_CONTAINERD_DROPIN) != 0) {
                CU_AUTOFREE char *q = cu_toml_quote(*x);
                cu_buf_printf(&b, "%s%s", kept++ ? ", " : "", q);
            }
        cu_buf_puts(&b, "]\n");
        int line = 1;
        for (const char *p = cur; *p; line++) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
            if (line == im->line && kept)
                cu_buf_puts(&nb, b.data);
            if (line < im->line || line > im->end_line)
                cu_buf_append(&nb, p, len);
            p += len;
        }
        free(out);
        out = nb.data ? cu_buf_steal(&nb) : cu_xstrdup("");
        cu_buf_fini(&b);
        cu_buf_fini(&nb);
    }
    cu_toml_fini(&doc);
    return out;
}

/* One recorded file back as it was: the old file where the current one is what cudaup wrote, else cudaup's part taken
 * out of it (said); set-aside files put back. */
static enum cu_status
restore(struct inst_ctr_ctx *c, const struct ctr_file *f, struct cu_strv *lines, struct cu_error *err)
{
    enum cu_status st = CU_OK;
    char *cur = NULL, *old = NULL;
    struct cu_error e;
    if (cu_sys_exists(c->sys, f->path) && cu_sys_read(c->sys, f->path, 8u << 20, &cur, &e) != CU_OK)
        cur = NULL;
    if (f->backup && cu_sys_exists(c->sys, f->backup) && cu_sys_read(c->sys, f->backup, 8u << 20, &old, &e) != CU_OK)
        old = NULL;
    if (strcmp(f->kind, "set-aside") == 0) {
        if (old && !cur && (st = cu_sys_write(c->sys, f->path, old, err)) == CU_OK)
            st = cu_sys_remove(c->sys, f->backup, err);
        if (st == CU_OK && old)
            say(lines, _("%s put back as it was."), f->path);
        goto out;
    }
    if (strcmp(f->kind, "cdi") == 0) {
        if (cur && (st = cu_sys_remove(c->sys, f->path, err)) == CU_OK)
            say(lines, _("The CDI spec %s cudaup generated removed."), f->path);
        goto out;
    }
    if (!cur) {
        say(lines, _("%s is gone already."), f->path);
        goto out;
    }
    char sha[65];
    ctr_sha256(cur, sha);
    bool ours = f->sha256 && strcmp(sha, f->sha256) == 0;
    if (ours && old) {
        st = cu_sys_write(c->sys, f->path, old, err);
        if (st == CU_OK)
            st = cu_sys_remove(c->sys, f->backup, err);
        if (st == CU_OK)
            say(lines, _("%s restored as it was before cudaup (from %s)."), f->path, f->backup);
    } else if (ours) {
        st = cu_sys_remove(c->sys, f->path, err);
        if (st == CU_OK)
            say(lines, _("%s removed (cudaup made it)."), f->path);
    } else {
        /* changed since cudaup wrote it: only cudaup's part comes out */
        CU_AUTOFREE char *undone = strcmp(f->kind, "docker") == 0             ? docker_unconfig(cur, f->cdi_added)
                                   : strcmp(f->kind, "containerd-root") == 0 ? containerd_unconfig(cur, f->import_added)
                                                                             : NULL;
        if (undone) {
            st = cu_sys_write(c->sys, f->path, undone, err);
            if (st == CU_OK)
                say(lines, _("%s changed since cudaup wrote it: cudaup's part of it taken out, the rest kept (the file before cudaup is still in %s)."),
                    f->path, f->backup ? f->backup : _("no backup: there was none"));
        } else {
            say(lines, _("%s changed since cudaup wrote it, so it is left as it is; undo cudaup's change there by hand%s%s."), f->path,
                f->backup ? _(" (the file before cudaup is ") : "", f->backup ? f->backup : "");
        }
    }
out:
    free(cur);
    free(old);
    return st;
}

static const char *const *
remove_argv(const char *manager, const struct cu_strv *pkgs, struct cu_strv *keep)
{
    cu_strv_init(keep);
    if (strcmp(manager, "apt") == 0) {
        cu_strv_push(keep, "apt-get");
        cu_strv_push(keep, "remove");
        cu_strv_push(keep, "-y");
    } else if (strcmp(manager, "dnf") == 0) {
        cu_strv_push(keep, "dnf");
        cu_strv_push(keep, "remove");
        cu_strv_push(keep, "-y");
    } else {
        cu_strv_push(keep, "zypper");
        cu_strv_push(keep, "--non-interactive");
        cu_strv_push(keep, "remove");
    }
    for (size_t i = 0; i < pkgs->n; i++)
        cu_strv_push(keep, pkgs->v[i]);
    return (const char *const *)keep->v;
}

enum cu_status
inst_containers_uninstall_plan(const char *state_dir, struct cu_strv *lines, struct cu_error *err)
{
    struct ctr_rec r;
    bool exists;
    ctr_rec_init(&r);
    enum cu_status st = ctr_rec_load(state_dir, NULL, &r, &exists, err);
    for (size_t i = 0; st == CU_OK && i < r.n_files; i++) {
        const struct ctr_file *f = &r.files[i];
        if (strcmp(f->kind, "set-aside") == 0)
            say(lines, _("put back %s (from %s)"), f->path, f->backup ? f->backup : "?");
        else if (strcmp(f->kind, "cdi") == 0)
            say(lines, _("remove the CDI spec %s"), f->path);
        else
            say(lines, f->backup ? _("restore %s as it was (from %s)") : _("remove %s (cudaup made it)%s"), f->path, f->backup ? f->backup : "");
    }
    if (st == CU_OK && r.units.n) {
        CU_AUTOFREE char *u = cu_strv_join(&r.units, " ");
        say(lines, _("disable %s"), u);
    }
    if (st == CU_OK && r.held.n) {
        CU_AUTOFREE char *h = cu_strv_join(&r.held, " ");
        say(lines, _("release the hold on %s"), h);
    }
    if (st == CU_OK && r.packages.n) {
        CU_AUTOFREE char *pk = cu_strv_join(&r.packages, " ");
        say(lines, _("remove the packages %s (%s)"), pk, r.manager);
    }
    ctr_rec_fini(&r);
    return st;
}

enum cu_status
inst_containers_uninstall(struct inst_ctr_ctx *c, struct cu_strv *lines, struct cu_error *err)
{
    struct ctr_rec r;
    bool exists;
    enum cu_status st;
    CU_AUTOFREE char *repo_state = cu_path_join(c->state_dir, CTR_REPO_DIR);
    CU_AUTOFREE char *repo_rec = cu_path_join(repo_state, "driver.json");
    ctr_rec_init(&r);
    if ((st = ctr_rec_load(c->state_dir, c->envp, &r, &exists, err)) != CU_OK)
        goto out;
    bool repo = access(repo_rec, F_OK) == 0;
    if (!exists && !repo) {
        st = cu_error_set(err, CU_E_NOT_FOUND, 0, _("cudaup has no record of setting up GPU containers here (%s/%s): nothing to undo."), c->state_dir, CTR_RECORD);
        goto out;
    }
    /* Units first (they would regenerate what is removed), then the files, then the packages. */
    if (r.units.n) {
        struct cu_strv av;
        cu_strv_init(&av);
        cu_strv_push(&av, "systemctl");
        cu_strv_push(&av, "disable");
        for (size_t i = 0; i < r.units.n; i++)
            cu_strv_push(&av, r.units.v[i]);
        if ((st = run(c, "units", (const char *const *)av.v, err)) == CU_OK) {
            CU_AUTOFREE char *u = cu_strv_join(&r.units, " ");
            say(lines, _("%s disabled."), u);
            cu_strv_fini(&r.units);
            cu_strv_init(&r.units);
            st = ctr_rec_save(c->state_dir, &r, err);
        }
        cu_strv_fini(&av);
        if (st != CU_OK)
            goto out;
    }
    for (size_t i = r.n_files; i-- > 0 && st == CU_OK;) {
        if ((st = restore(c, &r.files[i], lines, err)) != CU_OK)
            break;
        struct ctr_file *f = &r.files[i];
        free(f->path);
        free(f->kind);
        free(f->engine);
        free(f->backup);
        free(f->sha256);
        r.n_files--;
        st = ctr_rec_save(c->state_dir, &r, err);
    }
    if (st == CU_OK && r.held.n) {
        struct cu_strv keep;
        cu_strv_init(&keep);
        if (strcmp(r.manager, "apt") == 0) {
            cu_strv_push(&keep, "apt-mark");
            cu_strv_push(&keep, "unhold");
        } else if (strcmp(r.manager, "dnf") == 0) {
            cu_strv_push(&keep, "dnf");
            cu_strv_push(&keep, "versionlock");
            cu_strv_push(&keep, "delete");
        } else {
            cu_strv_push(&keep, "zypper");
            cu_strv_push(&keep, "--non-interactive");
            cu_strv_push(&keep, "removelock");
        }
        for (size_t i = 0; i < r.held.n; i++)
            cu_strv_push(&keep, r.held.v[i]);
        if ((st = run(c, "hold", (const char *const *)keep.v, err)) == CU_OK) {
            cu_strv_fini(&r.held);
            cu_strv_init(&r.held);
            st = ctr_rec_save(c->state_dir, &r, err);
        }
        cu_strv_fini(&keep);
    }
    if (st == CU_OK && r.packages.n) {
        struct cu_strv still, names, keep;
        cu_strv_init(&still);
        cu_strv_init(&names);
        if ((st = ctr_installed(c->sys, r.manager, &still, err)) == CU_OK) {
            for (size_t i = 0; i < still.n; i++) {
                CU_AUTOFREE char *n = cu_xstrndup(still.v[i], strcspn(still.v[i], "="));
                if (cu_strv_contains(&r.packages, n))
                    cu_strv_push(&names, n);
            }
            if (names.n && (st = run(c, "remove", remove_argv(r.manager, &names, &keep), err)) == CU_OK) {
                CU_AUTOFREE char *pk = cu_strv_join(&names, " ");
                say(lines, _("The packages %s removed."), pk);
            }
            if (names.n)
                cu_strv_fini(&keep);
            if (st == CU_OK) {
                cu_strv_fini(&r.packages);
                cu_strv_init(&r.packages);
                st = ctr_rec_save(c->state_dir, &r, err);
            }
        }
        cu_strv_fini(&still);
        cu_strv_fini(&names);
    }
    if (st == CU_OK && repo) {
        /* NVIDIA's repository, as the driver stage undoes what it added (its keyring package, its repository files). */
        struct inst_driver_ctx dc = {c->sys, c->net, repo_state, c->cache_dir, c->run, c->cat, NULL};
        st = inst_driver_uninstall(&dc, err);
        if (st == CU_OK)
            say(lines, _("NVIDIA's repository cudaup added for the toolkit removed."));
        else if (st == CU_E_NOT_FOUND)
            st = CU_OK;
    }
    if (st == CU_OK)
        say(lines, _("Restart the container engines cudaup configured (`systemctl restart docker`, `systemctl restart containerd`, ...) so that they drop the NVIDIA runtime."));
out:
    ctr_rec_fini(&r);
    return st;
}

/* ---- repair ------------------------------------------------------------------------------------------------ */

bool
inst_containers_repairs(const char *code)
{
    return strcmp(code, "container-cdi-missing") == 0 || strcmp(code, "container-cdi-stale") == 0 ||
           strcmp(code, "container-cdi-gpus") == 0;
}

static bool
wanted(const struct cu_problems *pr)
{
    for (size_t i = 0; pr && i < pr->n; i++)
        if (inst_containers_repairs(pr->v[i].code))
            return true;
    return false;
}

static const char *
spec_path(const struct cu_catalog *cat)
{
    const struct cu_ctk_fact *f = cat ? cu_ctk_fact_for(cat->containers, "cdi", "refresh_output", NULL) : NULL;
    return f ? f->value : "/var/run/cdi/nvidia.yaml";
}

void
inst_containers_repair_plan(const struct cu_facts *facts, const struct cu_problems *pr, struct cu_strv *lines)
{
    if (!wanted(pr))
        return;
    bool wsl = facts->os.wsl || facts->driver.kind == CU_DRIVER_WSL;
    CU_AUTOFREE char *cmd = cu_xasprintf("nvidia-ctk cdi generate --output=/var/run/cdi/nvidia.yaml%s", wsl ? " --mode=wsl" : "");
    say(lines, _("regenerate the CDI spec for the driver that runs: %s"), cmd);
}

enum cu_status
inst_containers_repair(struct inst_ctr_ctx *c, const struct cu_facts *facts, const struct cu_problems *pr, struct cu_error *err)
{
    if (!wanted(pr))
        return CU_OK;
    bool wsl = facts->os.wsl || facts->driver.kind == CU_DRIVER_WSL;
    CU_AUTOFREE char *o = cu_xasprintf("--output=%s", spec_path(c->cat));
    const char *plain[] = {"nvidia-ctk", "cdi", "generate", o, NULL};
    const char *wslv[] = {"nvidia-ctk", "cdi", "generate", o, "--mode=wsl", NULL};
    return run(c, "cdi", wsl ? wslv : plain, err);
}
