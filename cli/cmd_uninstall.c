/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "core/envfile.h"
#include "core/exec.h"
#include "core/fsutil.h"
#include "core/i18n.h"
#include "core/jsonutil.h"
#include "core/mem.h"
#include "core/record.h"
#include "core/str.h"
#include "core/toolkit.h"
#include "report.h"

json_t *cu_steps_json(const struct cu_run_ctx *ctx);

/* The newest CUDA left in PREFIX that cudaup installed, as "cuda-X.Y", or NULL. */
static char *
newest_managed(const char *prefix)
{
    DIR *d = opendir(prefix);
    struct dirent *de;
    char *best = NULL;
    if (!d)
        return NULL;
    while ((de = readdir(d)) != NULL) {
        if (!cu_str_has_prefix(de->d_name, "cuda-"))
            continue;
        CU_AUTOFREE char *rec = cu_xasprintf("%s/%s/.cudaup/record.json", prefix, de->d_name);
        if (!cu_path_exists(rec))
            continue;
        if (!best || cu_version_strcmp(de->d_name + 5, best + 5) > 0) {
            free(best);
            best = cu_xstrdup(de->d_name);
        }
    }
    closedir(d);
    return best;
}

int
cu_cmd_uninstall(struct cu_app *app)
{
    struct cu_error err;
    struct cu_run_ctx ctx;
    struct cu_version v;
    char mm[32];
    int rc = 0;
    enum cu_status st;
    bool active = false;

    memset(&ctx, 0, sizeof(ctx));
    cu_error_clear(&err);
    if (app->cfg.n_args != 1) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'uninstall' needs the CUDA version to remove, such as 12.4."));
        return cu_report_error(app, &err);
    }
    if (!cu_version_parse(app->cfg.args[0], &v) || v.n < 2 || v.n > 3) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'%s' is not a CUDA version such as 12.4."), app->cfg.args[0]);
        return cu_report_error(app, &err);
    }
    cu_version_format(&v, 2, mm, sizeof(mm));
    if (!cu_app_confirm(app, _("Remove it?"), &rc))
        return rc;
    cu_app_open_log(app);
    st = cu_toolkit_uninstall(app->prefix, mm, app->state_dir, &active, &err);
    CU_AUTOFREE char *dir = cu_xasprintf("%s/cuda-%s", app->prefix, mm);
    cu_run_result(&ctx, "cuda", "remove", st == CU_OK ? dir : cu_error_text(&err), st, st == CU_OK);
    if (st == CU_OK && active) {
        CU_AUTOFREE char *next = newest_managed(app->prefix);
        CU_AUTOFREE char *link = cu_path_join(app->prefix, "cuda");
        if (next) {
            /* Another cudaup install stays: it becomes the active one. */
            st = cu_symlink_replace(next, link, &err);
            cu_run_result(&ctx, "cuda", "link", link, st, st == CU_OK);
        } else {
            /* The last one: its environment lines go too, the rc files as they were. */
            char **rcs = cu_rc_list(app->state_dir);
            for (char **r = rcs; st == CU_OK && r && *r; r++) {
                bool ch = false;
                st = cu_rc_uninstall(*r, app->state_dir, &ch, &err);
                cu_run_result(&ctx, "envvars", "remove", st == CU_OK ? *r : cu_error_text(&err), st, ch);
            }
            cu_strv_free(rcs);
            const char *pd = cu_env_get(app->envp, "CUDAUP_PROFILE_D");
            bool ch = false;
            if (st == CU_OK && (st = cu_profiled_uninstall(pd && *pd ? pd : "/etc/profile.d", &ch, &err)) == CU_OK &&
                ch)
                cu_run_result(&ctx, "envvars", "remove", pd && *pd ? pd : "/etc/profile.d", st, ch);
            if (st == CU_OK) {
                cu_env_remove_scripts(app->state_dir);
                /* A conda environment's activation hooks point at the install too. */
                CU_AUTOFREE char *pj = cu_path_join(app->state_dir, "pyenv.json");
                char *text = NULL;
                size_t len;
                json_t *j = NULL;
                struct cu_error e2;
                if (cu_read_file(pj, 1 << 20, &text, &len, &e2) == CU_OK &&
                    cu_json_parse_object(text, len, pj, &j, &e2) == CU_OK && cu_json_str(j, "path")) {
                    cu_conda_hooks_remove(cu_json_str(j, "path"));
                    cu_run_result(&ctx, "pyenv", "remove", cu_json_str(j, "path"), CU_OK, true);
                }
                json_decref(j);
                free(text);
            }
        }
    }
    bool changed = false;
    for (size_t i = 0; i < ctx.n_results; i++)
        changed |= ctx.results[i].changed;
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string(st == CU_OK ? "ok" : "error"));
        json_object_set_new(doc, "changed", json_boolean(changed));
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
        printf(_("CUDA %s was removed from %s.\n"), mm, app->prefix);
    }
    cu_run_ctx_fini(&ctx);
    return rc;
}
