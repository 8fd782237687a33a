/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "core/envfile.h"
#include "core/exec.h"
#include "core/i18n.h"
#include "core/jsonutil.h"
#include "core/mem.h"
#include "core/mirror.h"
#include "core/record.h"
#include "core/str.h"
#include "core/toolkit.h"
#include "progress.h"
#include "report.h"

json_t *cu_steps_json(const struct cu_run_ctx *ctx);

/* The plan that re-creates what the record describes, downloading from @base. */
static struct cu_plan *
plan_from_record(const struct cu_record *r, const char *dir, const char *prefix, const char *state,
                 const char *base)
{
    struct cu_plan *p = cu_plan_new();
    p->prefix = cu_xstrdup(prefix);
    p->state_dir = cu_xstrdup(state);
    p->cuda_path = cu_xstrdup(dir);
    p->platform = cu_xstrdup(r->platform);
    p->base_url = cu_xstrdup(base ? base : r->mirror);
    if (!cu_version_parse(r->cuda_version, &p->cuda))
        memset(&p->cuda, 0, sizeof(p->cuda));
    if (r->cudnn_version) {
        p->has_cudnn = cu_version_parse(r->cudnn_version, &p->cudnn);
        p->cudnn_full = cu_xstrdup(r->cudnn_full);
        p->cudnn_variant = cu_xstrdup(r->cudnn_variant);
    }
    p->downloads = cu_xcalloc(r->n_components + 1, sizeof(*p->downloads));
    for (size_t i = 0; i < r->n_components; i++) {
        const struct cu_record_component *c = &r->components[i];
        struct cu_plan_download *d = &p->downloads[p->n_downloads++];
        d->product = c->product;
        d->component = cu_xstrdup(c->name);
        d->version = cu_xstrdup(c->version);
        d->title = cu_xstrdup(c->title);
        const char *url = c->url ? c->url : "";
        /* A new --mirror serves the same paths under another base. */
        if (base && r->mirror && cu_str_has_prefix(url, r->mirror))
            d->url = cu_xasprintf("%s%s", base, url + strlen(r->mirror));
        else
            d->url = cu_xstrdup(url);
        const char *rel = strstr(d->url, "/redist/");
        d->relative_path = cu_xstrdup(rel ? rel + 8 : d->url);
        memcpy(d->sha256, c->sha256, sizeof(d->sha256));
        d->size = c->size;
        p->download_bytes += c->size;
    }
    return p;
}

int
cu_cmd_repair(struct cu_app *app)
{
    struct cu_error err;
    CU_AUTOFREE char *dir = NULL;
    struct cu_record *rec = NULL;
    struct cu_plan *plan = NULL;
    struct cu_mirror *mirror = NULL;
    struct cu_progress *prog = NULL;
    struct cu_run_ctx ctx;
    char **bad = NULL;
    CU_AUTOFREE char *envsh = NULL;
    enum cu_status st = CU_OK;
    int rc = 0;

    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    if (cu_app_target(app, &dir, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    st = cu_record_load(dir, &rec, &err);
    if (st == CU_E_NOT_FOUND) {
        cu_error_set(&err, CU_E_UNSUPPORTED, 0,
                     _("%s was not installed by cudaup, so there is no record to repair it from; `cudaup verify` can still check it"),
                     dir);
        rc = cu_report_error(app, &err);
        goto out;
    }
    if (st != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    if (!cu_app_confirm(app, _("Repair it?"), &rc))
        goto out;
    cu_app_open_log(app);
    /* A changed mode is put back in place; anything else means re-unpacking its component. */
    size_t modes = 0, n_bad = 0;
    for (size_t i = 0; i < rec->n_files; i++) {
        if (cu_record_check_file(dir, &rec->files[i], app->cfg.deep) != CU_FILE_MODE)
            continue;
        CU_AUTOFREE char *p = cu_path_join(dir, rec->files[i].path);
        if (chmod(p, rec->files[i].mode) == 0)
            modes++;
    }
    if (modes)
        cu_run_result(&ctx, "cuda", "chmod", _("modes put back"), CU_OK, true);
    bad = cu_record_damaged(rec, dir, app->cfg.deep, &n_bad);
    if (n_bad) {
        struct cu_mirror_opts mo = {.base_url = app->cfg.mirror ? app->cfg.mirror : rec->mirror,
                                    .cache_dir = app->cache_dir, .catalog = app->catalog,
                                    .retries = (unsigned)app->cfg.retries};
        if ((st = cu_mirror_new(&mo, &mirror, &err)) != CU_OK)
            goto report;
        plan = plan_from_record(rec, dir, app->prefix, app->state_dir, app->cfg.mirror ? cu_mirror_net(mirror)->base : NULL);
        prog = cu_progress_new(app);
        struct cu_events evs = cu_progress_events(prog);
        ctx.plan = plan;
        ctx.net = cu_mirror_net(mirror);
        ctx.cache_dir = app->cache_dir;
        ctx.jobs = (unsigned)app->cfg.jobs;
        ctx.cancel = app->cancel;
        ctx.events = &evs;
        ctx.envp = app->envp;
        ctx.is_root = app->is_root;
        st = cu_toolkit_install(&ctx, bad, &err);
        cu_progress_flush(prog);
    }
    /* env.sh is cudaup's too: put it back when it went missing. */
    envsh = cu_path_join(app->state_dir, "env.sh");
    char **rcs = cu_rc_list(app->state_dir);
    if (st == CU_OK && rcs && rcs[0] && access(envsh, R_OK) != 0) {
        CU_AUTOFREE char *home = cu_path_join(app->prefix, "cuda");
        bool ch = false;
        st = cu_env_write_scripts(app->state_dir, home, &ch, &err);
        cu_run_result(&ctx, "envvars", "write", app->state_dir, st, ch);
    }
    cu_strv_free(rcs);
report:;
    /* What counts now is the record the repair wrote. */
    size_t left = 0;
    struct cu_record *now = NULL;
    struct cu_error e3;
    if (cu_record_load(dir, &now, &e3) == CU_OK)
        cu_strv_free(cu_record_damaged(now, dir, app->cfg.deep, &left));
    cu_record_free(now);
    if (st == CU_OK && left)
        st = cu_error_set(&err, CU_E_PROBLEMS, 0, _("%zu files are still not as recorded"), left);
    bool changed = false;
    for (size_t i = 0; i < ctx.n_results; i++)
        changed |= ctx.results[i].changed;
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : "error"));
        json_object_set_new(doc, "changed", json_boolean(changed));
        json_object_set_new(doc, "path", json_string(dir));
        json_t *comps = json_array();
        for (char **b = bad; b && *b; b++)
            json_array_append_new(comps, json_string(*b));
        json_object_set_new(doc, "repaired_components", comps);
        json_object_set_new(doc, "modes_fixed", json_integer((json_int_t)modes));
        json_object_set_new(doc, "steps", cu_steps_json(&ctx));
        if (st != CU_OK) {
            json_object_set_new(doc, "exit_code", json_integer(cu_status_exit_code(st)));
            json_object_set_new(doc, "error", json_string(cu_error_text(&err)));
        }
        cu_report_json(app, doc);
        if (st != CU_OK)
            cu_report_error_line(app, &err);
        rc = cu_status_exit_code(st);
    } else if (st != CU_OK) {
        rc = cu_report_error(app, &err);
    } else if (!app->cfg.quiet) {
        if (!changed)
            printf(_("%s is intact; nothing to repair.\n"), dir);
        else
            printf(_("%s is repaired (%zu files re-created, %zu modes put back).\n"), dir, n_bad, modes);
    }
out:
    cu_progress_free(prog);
    cu_run_ctx_fini(&ctx);
    cu_strv_free(bad);
    cu_plan_free(plan);
    cu_mirror_free(mirror);
    cu_record_free(rec);
    return rc;
}
