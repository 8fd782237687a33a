/* SPDX-License-Identifier: MIT */
#include "config.h"
#define CU_LOG_TAG "pyenv"

#include "pyenvrec.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/install/envfile.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "pyenv.h"

static json_t *
load(const char *state_dir, char **path_out)
{
    json_t *j = cu_pyenv_json_load(state_dir);
    if (path_out)
        *path_out = j ? cu_path_join(state_dir, "pyenv.json") : NULL;
    return j;
}

void
cu_pyenv_mark_read(const char *state_dir, struct cu_pyenv_mark *m)
{
    memset(m, 0, sizeof(*m));
    json_t *j = state_dir ? load(state_dir, NULL) : NULL;
    if (!j)
        return;
    m->path = cu_xstrdup(cu_json_str(j, "path"));
    m->made = json_is_true(json_object_get(j, "made"));
    json_decref(j);
}

void
cu_pyenv_mark_fini(struct cu_pyenv_mark *m)
{
    cu_clear_ptr(&m->path, free);
}

void
cu_pyenv_mark_write(const char *state_dir, const struct cu_pyenv_mark *before, const struct cu_run_ctx *ctx,
                    const char *cuda_path)
{
    CU_AUTOFREE char *p = NULL;
    json_t *j = state_dir ? load(state_dir, &p) : NULL;
    if (!j || !cu_json_str(j, "path"))
        goto out;
    const char *path = cu_json_str(j, "path");
    bool made = before->made && before->path && strcmp(before->path, path) == 0;
    for (size_t i = 0; i < ctx->n_results; i++) {
        const struct cu_step_result *r = &ctx->results[i];
        made |= strcmp(r->installer, "pyenv") == 0 && strcmp(r->action, "create") == 0 && r->status == CU_OK && r->changed;
    }
    if (cuda_path)
        json_object_set_new(j, "cuda", json_string(cuda_path));
    else /* --toolkit wheels or none: made for no CUDA folder (pyenv.json's "toolkit" says where its CUDA is) */
        json_object_del(j, "cuda");
    json_object_set_new(j, "made", json_boolean(made));
    char *text = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    struct cu_error e;
    if (cu_write_file_atomic(p, text, strlen(text), 0644, &e) != CU_OK)
        cu_log_error_of(CU_LOG_WARN, &e);
    free(text);
out:
    json_decref(j);
}

/* Remove the conda environment at @path with its own tool; its folder when the tool is not there. */
static enum cu_status
remove_conda(const struct cu_maint_in *in, const char *tool, const char *path, struct cu_error *err)
{
    CU_AUTOFREE char *exe = cu_which(tool, in->envp);
    if (exe) {
        bool micro = strcmp(tool, "micromamba") == 0;
        const char *argv_c[] = {exe, "remove", "-y", "-p", path, "--all", NULL};
        const char *argv_m[] = {exe, "env", "remove", "-y", "-p", path, NULL};
        struct cu_exec_opts eo = {.envp = in->envp, .timeout_ms = 600000};
        struct cu_exec_result res;
        struct cu_error e;
        cu_exec_result_init(&res);
        enum cu_status st = cu_exec(micro ? argv_m : argv_c, &eo, &res, &e);
        bool ok = st == CU_OK && res.exit_code == 0;
        if (!ok)
            cu_log_warn(_("%s could not remove %s (%s); removing the folder"), tool, path,
                   st != CU_OK ? cu_error_text(&e) : res.err.len ? cu_str_strip(res.err.data) : "?");
        cu_exec_result_fini(&res);
        if (ok && !cu_path_exists(path))
            return CU_OK;
    }
    return cu_rm_rf(path, err);
}

/*
 * Remove the environment record @j names when cudaup made it for @cuda_dir (or, recorded without its
 * CUDA, when @last).  *@gone: it was removed (or was gone already).  Records a "pyenv" step.
 */
/* Does the record @j hold its own toolkit (--toolkit wheels or none, issue 50): made for no CUDA install? */
static bool
own_toolkit(const json_t *j)
{
    const char *tk = cu_json_str(j, "toolkit");
    return tk && (strcmp(tk, "wheels") == 0 || strcmp(tk, "none") == 0);
}

static enum cu_status
remove_one(const struct cu_maint_in *in, const json_t *j, const char *cuda_dir, bool last, struct cu_run_ctx *ctx,
           bool *gone, struct cu_error *err)
{
    /* As this machine sees them: an image's venv, uninstalled on that machine, is named without the root. */
    CU_AUTOFREE char *path = cu_venv_rec_here(j, "path");
    CU_AUTOFREE char *cuda = cu_venv_rec_here(j, "cuda");
    const char *tool = cu_json_str(j, "tool");
    bool made = json_is_true(json_object_get(j, "made"));
    enum cu_status st = CU_OK;
    *gone = false;
    /* An environment that holds its own toolkit goes with `uninstall env` (@cuda_dir NULL) alone, never with a CUDA. */
    if (!path || !tool || !made || (cuda_dir ? own_toolkit(j) || !(cuda ? strcmp(cuda, cuda_dir) == 0 : last) : !own_toolkit(j)))
        return CU_OK; /* not cudaup's, or made for another CUDA */
    if (in->keep_env) {
        cu_run_result(ctx, "pyenv", "keep", path, CU_OK, false);
        return CU_OK;
    }
    CU_AUTOFREE char *cfg = cu_path_join(path, "pyvenv.cfg");
    CU_AUTOFREE char *meta = cu_path_join(path, "conda-meta");
    bool conda = strcmp(tool, "venv") != 0;
    if (!cu_path_exists(path)) {
        /* gone already: only the note of it is left */
    } else if (conda ? !cu_is_dir(meta) : !cu_path_exists(cfg)) {
        /* Not the environment the record names any more: not ours to remove. */
        cu_run_result(ctx, "pyenv", "keep", path, CU_OK, false);
        cu_log_warn(_("%s is no longer the %s environment cudaup made; it stays"), path, tool);
        return CU_OK;
    } else if ((st = conda ? remove_conda(in, tool, path, err) : cu_rm_rf(path, err)) != CU_OK) {
        cu_run_result(ctx, "pyenv", "remove", cu_error_text(err), st, false);
        return st;
    }
    cu_run_result(ctx, "pyenv", "remove", path, CU_OK, true);
    *gone = true;
    return CU_OK;
}

enum cu_status
cu_pyenv_remove_for(const struct cu_maint_in *in, const char *cuda_dir, bool last, struct cu_run_ctx *ctx,
                    struct cu_error *err)
{
    CU_AUTOFREE char *pj = NULL;
    json_t *j = load(in->state_dir, &pj);
    enum cu_status st = CU_OK;
    bool gone = false;
    if (!j)
        return CU_OK;
    /* The environments of --framework given again first (issue 36), then the first one. */
    json_t *kept = json_array(), *envs = json_object_get(j, "envs");
    for (size_t i = 0; st == CU_OK && i < json_array_size(envs); i++) {
        json_t *e = json_array_get(envs, i);
        st = remove_one(in, e, cuda_dir, last, ctx, &gone, err);
        if (!gone)
            json_array_append(kept, e);
    }
    if (st == CU_OK)
        st = remove_one(in, j, cuda_dir, last, ctx, &gone, err);
    if (st == CU_OK && (gone || json_array_size(kept) != json_array_size(envs))) {
        json_t *doc = NULL;
        if (!gone) {
            doc = json_incref(j);
        } else if (json_array_size(kept)) {
            doc = json_deep_copy(json_array_get(kept, 0)); /* the next environment becomes the first */
            json_array_remove(kept, 0);
        }
        if (doc) {
            json_object_set(doc, "envs", kept);
            char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
            struct cu_error e;
            if (cu_write_file_atomic(pj, text, strlen(text), 0644, &e) != CU_OK)
                cu_log_error_of(CU_LOG_WARN, &e);
            free(text);
            json_decref(doc);
        } else if (unlink(pj) != 0) {
            cu_log_debug("cannot remove %s", pj);
        }
    }
    json_decref(kept);
    json_decref(j);
    return st;
}

char *
cu_pyenv_toolkit_env(const char *state_dir, const char *mm)
{
    json_t *j = load(state_dir, NULL);
    char *found = NULL;
    if (!j)
        return NULL;
    const json_t *envs = json_object_get(j, "envs");
    for (size_t i = 0; !found && i <= json_array_size(envs); i++) {
        const json_t *e = i ? json_array_get(envs, i - 1) : j;
        const char *rel = cu_json_str(e, "toolkit_release"), *tk = cu_json_str(e, "toolkit");
        size_t n = strlen(mm);
        /* "13.0" names "13.0.2", never "13.01" */
        if (tk && strcmp(tk, "wheels") == 0 && rel && strncmp(rel, mm, n) == 0 && (rel[n] == '\0' || rel[n] == '.'))
            found = cu_venv_rec_here(e, "path");
    }
    json_decref(j);
    return found;
}

json_t *
cu_pyenv_list_json(const char *state_dir)
{
    json_t *j = load(state_dir, NULL);
    if (!j || !cu_json_str(j, "path")) {
        json_decref(j);
        return NULL;
    }
    json_t *o = json_object();
    static const char *const keys[] = {"tool", "name", "path", "framework", "framework_version", "cuda", "toolkit"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        json_object_set_new(o, keys[i], cu_json_str_or_null(cu_json_str(j, keys[i])));
    json_object_set_new(o, "made", json_boolean(json_is_true(json_object_get(j, "made"))));
    /* The pip hold (issue 45): its file and the releases it holds. */
    json_t *h = json_object_get(j, "hold"), *pk = json_object_get(h, "packages");
    if (cu_json_str(h, "file") && json_is_object(pk)) {
        json_t *ho = json_object();
        json_object_set_new(ho, "file", json_string(cu_json_str(h, "file")));
        json_object_set_new(ho, "packages", json_deep_copy(pk));
        json_object_set_new(o, "hold", ho);
    } else {
        json_object_set_new(o, "hold", json_null());
    }
    json_decref(j);
    return o;
}
