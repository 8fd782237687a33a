/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "maintain.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/install/envfile.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/fetch/cache.h"
#include "core/fetch/mirror.h"
#include "core/fetch/probe.h"
#include "core/resolve/driver.h"
#include "core/base/proc.h"
#include "core/install/record.h"
#include "core/base/str.h"
#include "core/install/toolkit.h"
#include "installer.h"
#include "pyenv.h"
#include "pyenvrec.h"
#include "pytoolkit.h"
#include "pyhold.h"

/*
 * Take PREFIX's lock for the whole command (see cu_run_ctx.prefix_locked): it is held until the
 * command's context is finished (cu_run_ctx_fini), after its result is reported, so that another
 * command that comes while this one still runs is refused, and says so, however late it comes
 * (issue 33 item 6: an uninstall between an install's last step and its report once left both
 * saying they had succeeded, and nothing installed).  @fd is kept for the callers' shape: -1.
 */
static enum cu_status
command_lock(struct cu_run_ctx *ctx, const char *prefix, int *fd, struct cu_error *err)
{
    *fd = -1;
    return cu_run_ctx_lock(ctx, prefix, err);
}

/* The lock stays with the command until cu_run_ctx_fini (see command_lock). */
static void
command_unlock(struct cu_run_ctx *ctx, int fd)
{
    (void)ctx;
    (void)fd;
}

enum cu_status
cu_install_run(struct cu_run_ctx *ctx, struct cu_error *err)
{
    int lockfd;
    struct cu_pyenv_mark mark;
    enum cu_status st = command_lock(ctx, ctx->plan->prefix, &lockfd, err);
    cu_pyenv_mark_read(ctx->plan->state_dir, &mark); /* under the lock: no other command changes it now */
    /* The Python first: an archive that fails its check stops the run before CUDA changes. */
    if (st == CU_OK)
        st = cu_toolkit_install_python(ctx, err);
    if (st == CU_OK && cu_plan_system_toolkit(ctx->plan)) /* --toolkit wheels or none: no CUDA folder */
        st = cu_toolkit_install(ctx, NULL, err);
    for (size_t i = 0; st == CU_OK && cu_installers[i]; i++) {
        if (!cu_installers[i]->run)
            continue; /* cuda and cudnn: done by the toolkit transaction */
        if (ctx->cancel && atomic_load(ctx->cancel)) {
            st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
            break;
        }
        st = cu_installers[i]->run(ctx, err);
    }
    /* Which CUDA the Python environment was made for, and whether cudaup made it: uninstall reads it. */
    if (st == CU_OK)
        cu_pyenv_mark_write(ctx->plan->state_dir, &mark, ctx,
                            cu_plan_system_toolkit(ctx->plan) ? ctx->plan->cuda_path : NULL);
    /* --framework given again: the other environments, beside the same CUDA (installers/envs.c). */
    const struct cu_plan *first = ctx->plan;
    char *first_python = ctx->python;
    for (size_t e = 0; st == CU_OK && e < first->n_envs; e++) {
        ctx->plan = first->envs[e];
        ctx->python = NULL;
        st = cu_toolkit_install_python(ctx, err);
        if (st == CU_OK)
            st = inst_pyenv_ops.run(ctx, err);
        if (st == CU_OK)
            st = inst_framework_ops.run(ctx, err);
        if (st == CU_OK) /* under --root: named as that machine sees it, after pip (installers/pyroot.h) */
            st = inst_pyroot_ops.run(ctx, err);
        cu_clear_ptr(&ctx->python, free);
    }
    ctx->plan = first;
    ctx->python = first_python;
    cu_pyenv_mark_fini(&mark);
    command_unlock(ctx, lockfd);
    return st;
}

/* Has the user pointed pip somewhere else than the plan's index (a wheel folder, no index)? */
static bool
pip_elsewhere(const char *const *envp)
{
    static const char *const vars[] = {"PIP_FIND_LINKS", "PIP_NO_INDEX"};
    for (size_t i = 0; i < CU_N_ELEMENTS(vars); i++) {
        const char *v = cu_env_get(envp, vars[i]);
        if (v && *v)
            return true;
    }
    return false;
}

enum cu_status
cu_install_preflight(struct cu_run_ctx *ctx, struct cu_error *err)
{
    const struct cu_plan *p = ctx->plan;
    struct cu_probe_item *items = cu_xcalloc(p->n_downloads + 4, sizeof(*items));
    size_t n = 0;
    struct cu_strv keep;
    cu_strv_init(&keep);
    if (!ctx->net) {
        free(items);
        return CU_OK;
    }
    for (size_t i = 0; i < p->n_downloads + 1; i++) {
        const struct cu_plan_download *d = i < p->n_downloads ? &p->downloads[i]
                                           : p->python && p->python->dl.url ? &p->python->dl : NULL;
        if (!d || !d->url)
            continue;
        /* What the cache holds whole needs no asking (the cache's name for it: core/install/pipeline.c). */
        CU_AUTOFREE char *fin = cu_cache_archive_path(ctx->cache_dir, d);
        struct stat sb;
        if (stat(fin, &sb) == 0 && (d->size_unknown ? sb.st_size > 0 : (uint64_t)sb.st_size == d->size))
            continue;
        items[n++] = (struct cu_probe_item){.url = d->url, .name = d->component, .size = d->size, .size_is_limit = d->size_unknown};
    }
    /* The driver's repository file (dnf) or keyring package (apt) NVIDIA serves; zypper's is a folder, asked by zypper itself. */
    const struct cu_drv_plan *drv = p->driver;
    if (drv && drv->repo && strcmp(drv->action, "install") == 0 && strcmp(drv->manager, "zypper") != 0)
        items[n++] = (struct cu_probe_item){.url = drv->repo, .name = drv->repo, .size = UINT64_MAX, .size_is_limit = true};
    /* The wheels' index: the framework's project page there (PEP 503), unless pip reads from elsewhere. */
    const struct cu_plan_framework *fw = p->framework;
    if (fw && fw->pip && fw->pip[0] && !pip_elsewhere(ctx->envp)) {
        const char *idx = fw->index_url ? fw->index_url : cu_env_get(ctx->envp, "PIP_INDEX_URL");
        if (!idx || !*idx)
            idx = "https://pypi.org/simple";
        const char *req = fw->pip[0];
        CU_AUTOFREE char *project = cu_xstrndup(req, strcspn(req, "=<>~![; "));
        for (char *c = project; *c; c++)
            if (*c == '_' || *c == '.')
                *c = '-';
        size_t il = strlen(idx);
        cu_strv_push_owned(&keep, cu_xasprintf("%.*s/%s/", (int)(il && idx[il - 1] == '/' ? il - 1 : il), idx, project));
        items[n++] = (struct cu_probe_item){.url = keep.v[keep.n - 1], .name = project, .size = UINT64_MAX, .size_is_limit = true};
        cu_strv_push_owned(&keep, cu_steal_ptr(&project));
    }
    enum cu_status st = n ? cu_probe_run(ctx->net, items, n, ctx->jobs ? ctx->jobs : 1, ctx->cancel, err) : CU_OK;
    if (st != CU_OK && st != CU_E_CANCELLED)
        cu_error_advise(err, _("Nothing was changed: this is checked before the driver's packages, so that no reboot is asked for an install that cannot finish. Point --mirror (or --index-url) at a source that has them, then run the same command again."));
    free(items);
    cu_strv_fini(&keep);
    return st;
}

void
cu_pyenv_recorded(const char *state_dir, char **python, char **framework)
{
    json_t *j = cu_pyenv_json_load(state_dir);
    *python = j ? cu_xstrdup(cu_json_str(j, "python")) : NULL;
    *framework = j ? cu_xstrdup(cu_json_str(j, "framework")) : NULL;
    json_decref(j);
}

/* One recorded environment as verify reads it; false when it names no interpreter. */
/* @s kept in @own (NULL stays NULL); what it points at, for as long as @own lives. */
static const char *
keep(struct cu_strv *own, char *s)
{
    if (!s)
        return NULL;
    cu_strv_push_owned(own, s);
    return s;
}

static bool
rec_env(const json_t *e, struct cu_verify_env *out, struct cu_verify_toolkit *tk, struct cu_strv *own)
{
    /* A venv relocated for a machine image, read on that machine: the path it has there (installers/pyroot.h). */
    CU_AUTOFREE char *py = cu_venv_rec_here(e, "python");
    if (!py)
        return false;
    struct cu_buf b;
    cu_buf_init(&b);
    const json_t *a = json_object_get(e, "frameworks");
    bool bundled = true;
    for (size_t i = 0; i < json_array_size(a); i++)
        if (json_is_string(json_array_get(a, i)))
            cu_buf_printf(&b, "%s%s", b.len ? "," : "", json_string_value(json_array_get(a, i)));
    if (!b.len && cu_json_str(e, "framework"))
        cu_buf_printf(&b, "%s", cu_json_str(e, "framework"));
    /* Recorded before issue 36: PyTorch and JAX brought their CUDA wheels, TensorFlow loaded the install's. */
    for (const char *p = b.data; p && *p; p += strcspn(p, ","), p += *p == ',')
        bundled &= strncmp(p, "tensorflow", 10) != 0;
    const json_t *bj = json_object_get(e, "bundled");
    out->name = keep(own, cu_json_str(e, "name") ? cu_xstrdup(cu_json_str(e, "name")) : NULL);
    out->python = keep(own, cu_xstrdup(py));
    out->framework = keep(own, b.len ? cu_buf_steal(&b) : NULL);
    out->bundled = json_is_boolean(bj) ? json_is_true(bj) : bundled;
    /* Its toolkit (issue 50): verify checks the compiler wheels' nvcc against what the record holds. */
    tk->kind = keep(own, cu_json_str(e, "toolkit") ? cu_xstrdup(cu_json_str(e, "toolkit")) : NULL);
    tk->home = keep(own, cu_venv_rec_here(e, "cuda_home"));
    tk->release = keep(own, cu_json_str(e, "toolkit_release") ? cu_xstrdup(cu_json_str(e, "toolkit_release")) : NULL);
    tk->nvcc_version = NULL;
    const json_t *tw = json_object_get(e, "toolkit_wheels");
    for (size_t i = 0; i < json_array_size(tw); i++) {
        const char *w = json_string_value(json_array_get(tw, i));
        const char *eq = w ? strstr(w, "==") : NULL;
        if (eq && (strncmp(w, "nvidia-cuda-nvcc==", 18) == 0 || strncmp(w, "nvidia-cuda-nvcc-cu12==", 23) == 0))
            tk->nvcc_version = keep(own, cu_xstrdup(eq + 2));
    }
    cu_buf_fini(&b);
    return true;
}

void
cu_pyenv_recs_read(const char *state_dir, struct cu_pyenv_recs *out)
{
    memset(out, 0, sizeof(*out));
    cu_strv_init(&out->own);
    json_t *j = cu_pyenv_json_load(state_dir);
    if (!j)
        return;
    const json_t *envs = json_object_get(j, "envs");
    out->v = cu_xcalloc(json_array_size(envs) + 2, sizeof(*out->v));
    out->tk = cu_xcalloc(json_array_size(envs) + 2, sizeof(*out->tk));
    const json_t *e;
    for (size_t i = 0; (i == 0 || out->n) && (e = cu_pyenv_json_env(j, i)) != NULL; i++) /* none without the first */
        if (rec_env(e, &out->v[out->n], &out->tk[out->n], &out->own))
            out->n++;
    json_decref(j);
}

void
cu_pyenv_recs_fini(struct cu_pyenv_recs *r)
{
    cu_strv_fini(&r->own);
    free(r->v);
    free(r->tk);
    memset(r, 0, sizeof(*r));
}

void
cu_pyenv_recs_apply(const struct cu_pyenv_recs *r, struct cu_verify_opts *o)
{
    if (!r->n)
        return;
    o->python = r->v[0].python;
    o->framework = r->v[0].framework;
    o->bundled = r->v[0].bundled;
    o->env_name = r->v[0].name;
    o->toolkit = r->tk[0];
    o->more_toolkit = r->tk + 1;
    o->more = r->v + 1;
    o->n_more = r->n - 1;
}

char *
cu_maint_newest_managed(const char *prefix, const char *except_mm)
{
    DIR *d = opendir(prefix);
    struct dirent *de;
    char *best = NULL;
    if (!d)
        return NULL;
    while ((de = readdir(d)) != NULL) {
        if (!cu_str_has_prefix(de->d_name, "cuda-") || (except_mm && strcmp(de->d_name + 5, except_mm) == 0))
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

static bool
newest_managed_exists(const char *prefix)
{
    char *n = cu_maint_newest_managed(prefix, NULL);
    free(n);
    return n != NULL;
}

/* The last install is gone: its environment lines go too, the rc files as they were. */
static enum cu_status
remove_environment(const struct cu_maint_in *in, struct cu_run_ctx *ctx, struct cu_error *err)
{
    enum cu_status st = CU_OK;
    char **rcs = cu_rc_list(in->state_dir);
    bool given_done = !in->shell_rc || !*in->shell_rc;
    for (char **r = rcs; st == CU_OK && r && *r; r++) {
        bool ch = false;
        given_done |= !given_done && strcmp(*r, in->shell_rc) == 0;
        st = cu_rc_uninstall(*r, in->state_dir, &ch, err);
        cu_run_result(ctx, "envvars", "remove", st == CU_OK ? *r : cu_error_text(err), st, ch);
    }
    cu_strv_free(rcs);
    if (st == CU_OK && !given_done && cu_path_exists(in->shell_rc)) {
        /* The file install was told of, where STATE's record of it is gone: its marked block goes, nothing else. */
        bool ch = false;
        st = cu_rc_uninstall(in->shell_rc, in->state_dir, &ch, err);
        cu_run_result(ctx, "envvars", "remove", st == CU_OK ? in->shell_rc : cu_error_text(err), st, ch);
    }
    bool ch = false;
    if (st == CU_OK && (st = cu_profiled_uninstall(in->root, in->profile_d, &ch, err)) == CU_OK && ch)
        cu_run_result(ctx, "envvars", "remove", in->profile_d, st, ch);
    if (st != CU_OK)
        return st;
    cu_env_remove_scripts(in->state_dir);
    /* A conda environment's activation hooks point at the install too. */
    CU_AUTOFREE char *pj = cu_path_join(in->state_dir, "pyenv.json");
    char *text = NULL;
    size_t len;
    json_t *j = NULL;
    struct cu_error e2;
    if (cu_read_file(pj, 1 << 20, &text, &len, &e2) == CU_OK && cu_json_parse_object(text, len, pj, &j, &e2) == CU_OK &&
        cu_json_str(j, "path")) {
        cu_conda_hooks_remove(cu_json_str(j, "path"));
        cu_run_result(ctx, "pyenv", "unhook", cu_json_str(j, "path"), CU_OK, true);
    }
    json_decref(j);
    free(text);
    return CU_OK;
}

enum cu_status
cu_uninstall_run(const struct cu_maint_in *in, const char *mm, struct cu_run_ctx *ctx, struct cu_error *err)
{
    bool active = false;
    int lockfd = -1;
    enum cu_status st = CU_OK;
    CU_AUTOFREE char *before = NULL; /* what PREFIX/cuda pointed at before this CUDA's install */
    /* The whole command under the prefix's lock, so it cannot run inside an install's steps. */
    if (cu_is_dir(in->prefix))
        st = command_lock(ctx, in->prefix, &lockfd, err);
    if (st == CU_OK)
        st = cu_toolkit_uninstall(in->prefix, mm, in->state_dir, ctx->prefix_locked, &active, &before, err);
    CU_AUTOFREE char *dir = cu_xasprintf("%s/cuda-%s", in->prefix, mm);
    if (st == CU_E_NOT_FOUND) {
        /* Already gone is what was asked for: success, nothing changed (automation reruns it). */
        cu_run_result(ctx, "cuda", "remove", cu_error_text(err), CU_OK, false);
        command_unlock(ctx, lockfd);
        cu_error_clear(err);
        return CU_OK;
    }
    cu_run_result(ctx, "cuda", "remove", st == CU_OK ? dir : cu_error_text(err), st, st == CU_OK);
    bool last = false;
    if (st == CU_OK && active) {
        CU_AUTOFREE char *next = cu_maint_newest_managed(in->prefix, NULL);
        last = !next;
        CU_AUTOFREE char *blink = cu_path_join(in->prefix, "cuda");
        /* The toolkit the user's link pointed at before (NVIDIA's packages, a runfile), where it is still there. */
        CU_AUTOFREE char *target = before ? (before[0] == '/' ? cu_xstrdup(before) : cu_path_join(in->prefix, before)) : NULL;
        if (!next && target && cu_is_dir(target) && !cu_path_exists(blink)) {
            st = cu_symlink_replace(before, blink, err);
            cu_run_result(ctx, "cuda", "link", st == CU_OK ? blink : cu_error_text(err), st, st == CU_OK);
        }
        if (!next) {
            if (st == CU_OK)
                st = remove_environment(in, ctx, err);
        } else {
            /* Another cudaup install stays: it becomes the active one. */
            CU_AUTOFREE char *link = cu_path_join(in->prefix, "cuda");
            st = cu_symlink_replace(next, link, err);
            cu_run_result(ctx, "cuda", "link", link, st, st == CU_OK);
        }
    }
    /* The Python environment made for this CUDA goes with it (--keep-env keeps it). */
    if (st == CU_OK)
        st = cu_pyenv_remove_for(in, dir, last || !newest_managed_exists(in->prefix), ctx, err);
    command_unlock(ctx, lockfd);
    return st;
}

enum cu_status
cu_env_uninstall_run(const struct cu_maint_in *in, struct cu_run_ctx *ctx, struct cu_error *err)
{
    int lockfd = -1;
    enum cu_status st = CU_OK;
    /* Under the prefix's lock, as uninstall of a CUDA: no install's steps change the record meanwhile. */
    if (cu_is_dir(in->prefix))
        st = command_lock(ctx, in->prefix, &lockfd, err);
    if (st == CU_OK)
        st = cu_pyenv_remove_for(in, NULL, true, ctx, err);
    command_unlock(ctx, lockfd);
    return st;
}

/* The plan that re-creates what the record describes, downloading from @base. */
static struct cu_plan *
plan_from_record(const struct cu_record *r, const char *dir, const struct cu_maint_in *in, const char *base)
{
    struct cu_plan *p = cu_plan_new();
    p->prefix = cu_xstrdup(in->prefix);
    p->state_dir = cu_xstrdup(in->state_dir);
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
        d->size_unknown = c->size_unknown;
        d->runfile_layout = cu_xstrdup(c->runfile_layout);
        d->from_base = c->from_base;
        p->download_bytes += c->size_unknown ? 0 : c->size;
    }
    return p;
}

/* The Python cudaup brought for the recorded venv: re-fetched from its recorded URL when damaged. */
static enum cu_status
repair_python(const struct cu_maint_in *in, bool deep, struct cu_repair_out *out, struct cu_run_ctx *ctx,
              struct cu_error *err)
{
    CU_AUTOFREE char *pj = cu_path_join(in->state_dir, "pyenv.json"), *dir = NULL;
    char *text = NULL;
    size_t len, bad = 0;
    json_t *j = NULL;
    struct cu_error e;
    struct cu_record *rec = NULL;
    struct cu_mirror *mirror = NULL;
    enum cu_status st = CU_OK;
    if (cu_read_file(pj, 1 << 20, &text, &len, &e) == CU_OK && cu_json_parse_object(text, len, pj, &j, &e) == CU_OK &&
        cu_json_str(j, "path")) {
        CU_AUTOFREE char *env = cu_venv_rec_here(j, "path");
        CU_AUTOFREE char *root = NULL;
        CU_AUTOFREE char *seen = NULL;
        dir = cu_venv_brought_python(env);
        /* A venv relocated for the machine under --root names its Python as that machine sees it: that one's here. */
        if (dir && cu_venv_for_image(env, &root, &seen)) {
            char *h = cu_xasprintf("%s%s", root, dir);
            free(dir);
            dir = h;
        }
    }
    json_decref(j);
    free(text);
    if (!dir || cu_record_load_python(dir, &rec, &e) != CU_OK || rec->n_components != 1)
        goto out;
    char **names = cu_record_damaged(rec, dir, deep, &bad);
    cu_strv_free(names);
    if (!bad)
        goto out;
    out->files += bad;
    struct cu_mirror_opts mo = {.base_url = in->mirror, .cache_dir = in->cache_dir, .ca_cert = in->ca_cert,
                                .catalog = in->catalog, .retries = in->retries};
    if ((st = cu_mirror_new(&mo, &mirror, err)) != CU_OK)
        goto out;
    const struct cu_record_component *c = &rec->components[0];
    struct cu_plan *p = cu_plan_new();
    p->prefix = cu_xstrdup(in->prefix);
    p->state_dir = cu_xstrdup(in->state_dir);
    p->platform = cu_xstrdup(rec->platform);
    p->python = cu_xcalloc(1, sizeof(*p->python));
    p->python->kind = cu_xstrdup("cudaup");
    p->python->version = cu_xstrdup(rec->python_version);
    p->python->path = cu_xstrdup(dir);
    p->python->dl = (struct cu_plan_download){.product = CU_PRODUCT_PYTHON, .component = cu_xstrdup("python"),
                                              .version = cu_xstrdup(c->version), .title = cu_xstrdup(c->title),
                                              .url = cu_xstrdup(c->url), .size = c->size, .size_unknown = false,
                                              .archive_layout = cu_xstrdup(c->archive_layout)};
    const char *slash = c->url ? strrchr(c->url, '/') : NULL;
    p->python->dl.relative_path = cu_xstrdup(slash ? slash + 1 : "python.tar.gz");
    memcpy(p->python->dl.sha256, c->sha256, sizeof(c->sha256));
    p->python->force = true; /* damaged: re-created even where sizes and modes still match */
    ctx->plan = p;
    ctx->net = cu_mirror_net(mirror);
    if (st == CU_OK)
        st = cu_toolkit_install_python(ctx, err);
    ctx->plan = NULL;
    ctx->net = NULL;
    cu_plan_free(p);
out:
    cu_mirror_free(mirror);
    cu_record_free(rec);
    return st;
}

static enum cu_status
repair_locked(const struct cu_maint_in *in, const char *dir, bool deep, struct cu_repair_out *out,
              struct cu_run_ctx *ctx, struct cu_error *err)
{
    struct cu_record *rec = NULL;
    struct cu_mirror *mirror = NULL;
    struct cu_plan *plan = NULL;
    CU_AUTOFREE char *envsh = cu_path_join(in->state_dir, "env.sh");
    enum cu_status st;

    memset(out, 0, sizeof(*out));
    st = cu_record_load(dir, &rec, err);
    if (st == CU_E_NOT_FOUND)
        return cu_error_set(err, CU_E_UNSUPPORTED, 0,
                            _("%s was not installed by cudaup, so there is no record to repair it from; `cudaup verify` can still check it"),
                            dir);
    if (st != CU_OK)
        return st;
    /* A changed mode is put back in place; anything else means re-unpacking its component. */
    for (size_t i = 0; i < rec->n_files; i++) {
        if (cu_record_check_file(dir, &rec->files[i], deep) != CU_FILE_MODE)
            continue;
        /* The file itself, opened beneath the install and never through a link. */
        const char *base;
        CU_AUTOCLOSE int pfd = cu_open_parent_beneath(dir, rec->files[i].path, &base);
        CU_AUTOCLOSE int fd = pfd < 0 ? -1 : openat(pfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct stat sb;
        if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && fchmod(fd, rec->files[i].mode) == 0)
            out->modes++;
    }
    if (out->modes)
        cu_run_result(ctx, "cuda", "chmod", _("modes put back"), CU_OK, true);
    out->components = cu_record_damaged(rec, dir, deep, &out->files);
    if (out->files) {
        struct cu_mirror_opts mo = {.base_url = in->mirror ? in->mirror : rec->mirror, .cache_dir = in->cache_dir,
                                    .ca_cert = in->ca_cert,
                                    .catalog = in->catalog, .retries = in->retries};
        if ((st = cu_mirror_new(&mo, &mirror, err)) != CU_OK)
            goto out;
        plan = plan_from_record(rec, dir, in, in->mirror ? cu_mirror_net(mirror)->base : NULL);
        ctx->plan = plan;
        ctx->net = cu_mirror_net(mirror);
        st = cu_toolkit_install(ctx, out->components, err);
        ctx->plan = NULL;
        ctx->net = NULL;
        if (st != CU_OK)
            goto out;
    }
    /* env.sh is cudaup's too: put it back when it went missing. */
    char **rcs = cu_rc_list(in->state_dir);
    if (rcs && rcs[0] && access(envsh, R_OK) != 0) {
        CU_AUTOFREE char *home = cu_path_join(in->prefix, "cuda");
        /* As the machine that reads it sees it (under --root, without DIR), as the install wrote it. */
        CU_AUTOFREE char *seen = in->root && !cu_sysroot_is_host(in->root) ? cu_root_seen_path(in->root->path, home) : NULL;
        bool ch = false;
        st = cu_env_write_scripts(in->state_dir, seen ? seen : home, cu_env_ld_library_path(in->state_dir), &ch, err);
        cu_run_result(ctx, "envvars", "write", in->state_dir, st, ch);
    }
    cu_strv_free(rcs);
    if (st == CU_OK)
        st = repair_python(in, deep, out, ctx, err);
    if (st == CU_OK) /* the environments' pip hold (issue 45) */
        st = cu_pyhold_repair(in->state_dir, ctx, err);
    if (st == CU_OK) /* an environment's own compiler wheels (--toolkit wheels, issue 50) */
        st = cu_pytoolkit_repair(in->state_dir, ctx, err);
    if (st == CU_OK) {
        /* What counts now is the record the repair wrote. */
        size_t left = 0;
        struct cu_record *now = NULL;
        struct cu_error e3;
        if (cu_record_load(dir, &now, &e3) == CU_OK)
            cu_strv_free(cu_record_damaged(now, dir, deep, &left));
        cu_record_free(now);
        if (left)
            st = cu_error_set(err, CU_E_PROBLEMS, 0, _("%zu files are still not as recorded"), left);
    }
out:
    cu_plan_free(plan);
    cu_mirror_free(mirror);
    cu_record_free(rec);
    return st;
}

enum cu_status
cu_repair_run(const struct cu_maint_in *in, const char *dir, bool deep, struct cu_repair_out *out,
              struct cu_run_ctx *ctx, struct cu_error *err)
{
    int lockfd;
    memset(out, 0, sizeof(*out));
    /* A folder cudaup did not make is refused before the lock, which would leave a .cudaup.lock in a prefix that
     * is not cudaup's (the host's /usr/local, for a toolkit NVIDIA's packages installed). */
    CU_AUTOFREE char *rp = cu_path_join(dir, ".cudaup/record.json");
    if (cu_path_exists(dir) && !cu_path_exists(rp))
        return cu_error_set(err, CU_E_UNSUPPORTED, 0,
                            _("%s was not installed by cudaup, so there is no record to repair it from; `cudaup verify` can still check it"),
                            dir);
    enum cu_status st = command_lock(ctx, in->prefix, &lockfd, err);
    if (st == CU_OK)
        st = repair_locked(in, dir, deep, out, ctx, err);
    command_unlock(ctx, lockfd);
    return st;
}

enum cu_status
cu_env_repair_run(const struct cu_maint_in *in, bool deep, struct cu_repair_out *out, struct cu_run_ctx *ctx,
                  struct cu_error *err)
{
    int lockfd = -1;
    memset(out, 0, sizeof(*out));
    enum cu_status st = cu_is_dir(in->prefix) ? command_lock(ctx, in->prefix, &lockfd, err) : CU_OK;
    if (st == CU_OK)
        st = repair_python(in, deep, out, ctx, err);
    if (st == CU_OK)
        st = cu_pyhold_repair(in->state_dir, ctx, err);
    if (st == CU_OK)
        st = cu_pytoolkit_repair(in->state_dir, ctx, err);
    command_unlock(ctx, lockfd);
    return st;
}

/* Does the venv at @env use the Python in @dir (its pyvenv.cfg's home lies inside it)? */
static bool
venv_uses(const char *env, const char *dir)
{
    CU_AUTOFREE char *home = cu_venv_home(env);
    size_t n = strlen(dir);
    return home && strncmp(home, dir, n) == 0 && (home[n] == '/' || home[n] == '\0');
}

/* The first venv that still uses @dir: the recorded environment and the venvs beside it. */
static char *
python_user(const struct cu_maint_in *in, const char *dir)
{
    CU_AUTOFREE char *pj = cu_path_join(in->state_dir, "pyenv.json");
    char *text = NULL, *found = NULL;
    size_t len;
    json_t *j = NULL;
    struct cu_error e;
    CU_AUTOFREE char *parent = NULL;
    if (cu_read_file(pj, 1 << 20, &text, &len, &e) != CU_OK || cu_json_parse_object(text, len, pj, &j, &e) != CU_OK ||
        !cu_json_str(j, "path"))
        goto out;
    const char *env = cu_json_str(j, "path");
    if (venv_uses(env, dir)) {
        found = cu_xstrdup(env);
        goto out;
    }
    parent = cu_xstrdup(env);
    char *slash = strrchr(parent, '/');
    if (!slash)
        goto out;
    *slash = '\0';
    DIR *d = opendir(parent);
    struct dirent *de;
    while (d && !found && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        CU_AUTOFREE char *sib = cu_path_join(parent, de->d_name);
        if (venv_uses(sib, dir))
            found = cu_xstrdup(sib);
    }
    if (d)
        closedir(d);
out:
    json_decref(j);
    free(text);
    return found;
}

enum cu_status
cu_python_uninstall_run(const struct cu_maint_in *in, const char *minor, struct cu_run_ctx *ctx, struct cu_error *err)
{
    CU_AUTOFREE char *dir = cu_xasprintf("%s/cudaup/python/%s", in->prefix, minor);
    CU_AUTOFREE char *trash = NULL, *user = NULL, *parent = NULL;
    struct cu_record *rec = NULL;
    int lockfd = -1;
    enum cu_status st = CU_OK;
    struct stat sb;

    if (lstat(dir, &sb) != 0) {
        cu_run_result(ctx, "python", "remove", dir, CU_OK, false);
        return CU_OK; /* already gone: what was asked for */
    }
    if ((st = command_lock(ctx, in->prefix, &lockfd, err)) != CU_OK)
        return st;
    if ((st = cu_trusted_dir(dir, err)) != CU_OK)
        goto out;
    st = cu_record_load_python(dir, &rec, err);
    if (st == CU_E_NOT_FOUND) {
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0, _("%s was not installed by cudaup, so cudaup leaves it alone"), dir);
        goto out;
    }
    if (st != CU_OK)
        goto out;
    if ((user = python_user(in, dir)) != NULL) {
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                          _("Python %s in %s is still used by the venv %s; it stays. Remove that venv first."), minor,
                          dir, user);
        goto out;
    }
    parent = cu_xstrdup(dir);
    *strrchr(parent, '/') = '\0';
    trash = cu_xasprintf("%s/.cudaup-staging-remove-%s-%d", parent, minor, (int)getpid());
    st = cu_rm_rf_atomic(dir, trash, err);
out:
    cu_run_result(ctx, "python", "remove", st == CU_OK ? dir : cu_error_text(err), st, st == CU_OK);
    cu_record_free(rec);
    command_unlock(ctx, lockfd);
    return st;
}
