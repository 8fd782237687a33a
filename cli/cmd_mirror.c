/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "mirror_pkg.h"
#include "core/install/exec.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/fetch/mirror.h"
#include "core/base/str.h"
#include "core/install/toolkit.h"
#include "core/unpack/treecheck.h"
#include "installers/wheels.h"
#include "progress.h"
#include "report.h"

/* An index.html listing the manifests, for servers that give no folder listing. */
static enum cu_status
write_index(const char *redist, struct cu_error *err)
{
    DIR *d = opendir(redist);
    struct dirent *de;
    struct cu_strv names;
    cu_strv_init(&names);
    if (d) {
        while ((de = readdir(d)) != NULL)
            if (cu_str_has_prefix(de->d_name, "redistrib_") && cu_str_has_suffix(de->d_name, ".json"))
                cu_strv_push(&names, de->d_name);
        closedir(d);
    }
    cu_strv_sort(&names);
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_puts(&b, "<!DOCTYPE html>\n<html><head><title>redist</title></head><body><pre>\n");
    for (size_t i = 0; i < names.n; i++)
        cu_buf_printf(&b, "<a href=\"%s\">%s</a>\n", names.v[i], names.v[i]);
    cu_buf_puts(&b, "</pre></body></html>\n");
    CU_AUTOFREE char *p = cu_path_join(redist, "index.html");
    enum cu_status st = cu_write_file_atomic(p, b.data, b.len, 0644, err);
    cu_buf_fini(&b);
    cu_strv_fini(&names);
    return st;
}

static enum cu_status
write_manifest(struct cu_mirror *m, const char *dir, enum cu_product prod, const char *label, bool *changed,
               struct cu_error *err)
{
    size_t len = 0;
    const char *bytes = cu_mirror_manifest_bytes(m, prod, label, &len);
    if (!bytes)
        return CU_OK;
    CU_AUTOFREE char *redist = cu_xasprintf("%s/%s/redist", dir, cu_product_name(prod));
    CU_AUTOFREE char *path = cu_xasprintf("%s/redistrib_%s.json", redist, label);
    enum cu_status st = cu_mkdir_p(redist, 0755, err);
    if (st != CU_OK)
        return st;
    char *old = NULL;
    size_t olen = 0;
    struct cu_error e;
    if (cu_read_file(path, 64u << 20, &old, &olen, &e) == CU_OK && olen == len && memcmp(old, bytes, len) == 0) {
        free(old);
    } else {
        free(old);
        *changed = true;
        if ((st = cu_write_file_atomic(path, bytes, len, 0644, err)) != CU_OK)
            return st;
    }
    return write_index(redist, err);
}

/* A framework whose wheels the site carries, as mirror --json names it: {name, version, pip}. */
static json_t *
framework_json(const struct cu_plan_framework *f)
{
    json_t *fw = json_object(), *pip = json_array();
    for (char **q = f->pip; q && *q; q++)
        json_array_append_new(pip, json_string(*q));
    json_object_set_new(fw, "name", json_string(f->name));
    json_object_set_new(fw, "version", f->version ? json_string(f->version) : json_null());
    json_object_set_new(fw, "pip", pip);
    return fw;
}

int
cu_cmd_mirror(struct cu_app *app)
{
    struct cu_error err;
    struct cu_facts *facts = NULL;
    struct cu_mirror *mirror = NULL;
    struct cu_plan *plan = NULL;
    struct cu_progress *prog = NULL;
    struct cu_run_ctx ctx;
    enum cu_status st;
    int rc = 0;
    char b1[32], b2[32];
    CU_AUTOFREE char *pip_python = NULL;
    CU_AUTOCLOSE int pkg_fd = -1;

    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    if (app->cfg.n_args != 1) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'mirror' needs the folder to fill, as in: cudaup mirror /srv/cuda-mirror"));
        return cu_report_error(app, &err);
    }
    CU_AUTOFREE char *dir = app->cfg.args[0][0] == '/' ? cu_xstrdup(app->cfg.args[0])
                                                      : cu_xasprintf("%s/%s", getenv("PWD") ? getenv("PWD") : ".",
                                                                     app->cfg.args[0]);
    if (cu_path_exists(dir) && !cu_is_dir(dir)) {
        cu_error_set(&err, CU_E_USAGE, 0, _("%s exists and is not a folder."), dir);
        return cu_report_error(app, &err);
    }
    /* Another user's link or folder in DIR would choose where the archives go (root fills it). */
    if (cu_tree_trusted(dir, &err) != CU_OK)
        return cu_report_error(app, &err);
    const char *pkg = app->cfg.package && *app->cfg.package ? app->cfg.package : NULL;
    if (pkg && cu_mirror_pkg_open(pkg, app->envp, &pkg_fd, &err) != CU_OK)
        return cu_report_error(app, &err);
    if (cu_app_prepare(app, true, &facts, &mirror, &plan, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    /* The wheels need pip here: known before anything is downloaded. */
    pip_python = plan->framework ? cu_wheels_pip_python(app->envp) : NULL;
    if (plan->framework && !pip_python) {
        cu_error_set(&err, CU_E_UNSUPPORTED, 0,
                     _("The site mirror would carry %s's wheels, but there is no python3 with pip here to download them."),
                     cu_framework_title(plan->framework->name));
        cu_error_advise(&err, _("Install pip (Debian and Ubuntu: apt-get install python3-pip), or run the same command with --framework none to mirror CUDA and cuDNN alone."));
        rc = cu_report_error(app, &err);
        goto out;
    }
    cu_app_open_log(app);
    prog = cu_progress_new(app);
    cu_progress_set_plan(prog, plan);
    struct cu_events evs = cu_progress_events(prog);
    ctx = (struct cu_run_ctx){.plan = plan, .net = cu_mirror_net(mirror), .cache_dir = app->cache_dir,
                              .jobs = (unsigned)app->cfg.jobs, .cancel = app->cancel, .events = &evs,
                              .envp = app->envp, .is_root = app->is_root};
    st = cu_toolkit_mirror(&ctx, dir, &err);
    bool changed = ctx.toolkit_changed;
    if (st == CU_OK)
        st = write_manifest(mirror, dir, CU_PRODUCT_CUDA, cu_version_format(&plan->cuda, 0, b1, sizeof(b1)), &changed,
                            &err);
    /* --toolkit wheels or none: no archive, but a node's plan resolves cuDNN as the system toolkit's before it drops
     * it, so the manifest it resolved from is on the site too (issue 50: else an install from it stops there). */
    if (st == CU_OK && (plan->has_cudnn || (!cu_plan_system_toolkit(plan) && plan->cudnn.n)))
        st = write_manifest(mirror, dir, CU_PRODUCT_CUDNN, cu_version_format(&plan->cudnn, 0, b2, sizeof(b2)),
                            &changed, &err);
    size_t n_wheels = 0;
    if (st == CU_OK && plan->framework) {
        st = cu_wheels_mirror(&ctx, dir, pip_python, &n_wheels, &err);
        changed |= st == CU_OK;
    }
    if (st == CU_OK && pkg)
        st = cu_mirror_pkg_place(pkg_fd, pkg, dir, &changed, &err);
    cu_progress_end(prog, st != CU_OK ? &err : NULL); /* a failed step is said once, by the error line */
    const char *py_file = plan->python && plan->python->dl.url ? plan->python->dl.relative_path : NULL;
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : "error"));
        json_object_set_new(doc, "changed", json_boolean(changed));
        json_object_set_new(doc, "dir", json_string(dir));
        json_object_set_new(doc, "cuda", json_string(cu_version_format(&plan->cuda, 0, b1, sizeof(b1))));
        json_object_set_new(doc, "cudnn", plan->has_cudnn ? json_string(cu_version_format(&plan->cudnn, 0, b2, sizeof(b2)))
                                                          : json_null());
        json_object_set_new(doc, "downloads", json_integer((json_int_t)plan->n_downloads));
        json_object_set_new(doc, "download_bytes", json_integer((json_int_t)plan->download_bytes));
        json_object_set_new(doc, "python", py_file ? json_string(py_file) : json_null());
        json_object_set_new(doc, "wheels", json_integer((json_int_t)n_wheels));
        json_object_set_new(doc, "index", plan->framework ? json_string("pypi/simple/") : json_null());
        /* The frameworks whose wheels the site carries: what `plan` with the same flags plans (issue 34), every
         * framework of every environment (cu_wheels_mirror downloads them all); "framework" is the first. */
        json_t *fws = json_array();
        for (size_t e = 0; plan->framework && e <= plan->n_envs; e++) {
            size_t n;
            struct cu_plan_framework *const *f = cu_plan_frameworks(e ? plan->envs[e - 1] : plan, &n);
            for (size_t i = 0; i < n; i++)
                json_array_append_new(fws, framework_json(f[i]));
        }
        json_object_set_new(doc, "framework", json_array_size(fws) ? json_incref(json_array_get(fws, 0)) : json_null());
        json_object_set_new(doc, "frameworks", fws);
        json_object_set_new(doc, "package", pkg ? json_string(strrchr(pkg, '/') ? strrchr(pkg, '/') + 1 : pkg) : json_null());
        json_object_set_new(doc, "steps", json_array());
        rc = cu_report_json_result(app, doc, st, &err);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        printf(_("%s now mirrors CUDA %s%s%s (%zu archives). Serve it and point machines at it with --mirror.\n"), dir,
               b1, plan->has_cudnn ? _(" and cuDNN ") : "", plan->has_cudnn ? b2 : "", plan->n_downloads);
        if (py_file)
            printf(_("It also holds Python %s (python/%s) for machines without a fitting Python.\n"),
                   plan->python->version, py_file);
        /* Every framework whose wheels the site carries, as --json's "frameworks" lists them. */
        struct cu_strv names;
        cu_strv_init(&names);
        for (size_t e = 0; plan->framework && e <= plan->n_envs; e++) {
            size_t n;
            struct cu_plan_framework *const *f = cu_plan_frameworks(e ? plan->envs[e - 1] : plan, &n);
            for (size_t i = 0; i < n; i++)
                cu_strv_push(&names, cu_framework_title(f[i]->name));
        }
        CU_AUTOFREE char *list = cu_strv_join(&names, _(", "));
        if (names.n == 1)
            printf(_("%s and its dependencies for Python %s: %zu wheels in the package index pypi/simple/.\n"), list,
                   plan->framework->python, n_wheels);
        else if (names.n > 1)
            printf(_("%s and their dependencies for Python %s: %zu wheels in the package index pypi/simple/.\n"), list,
                   plan->framework->python, n_wheels);
        cu_strv_fini(&names);
    }
out:
    cu_progress_free(prog);
    cu_run_ctx_fini(&ctx);
    cu_plan_free(plan);
    cu_mirror_free(mirror);
    cu_facts_free(facts);
    return rc;
}
