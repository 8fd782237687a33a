/* SPDX-License-Identifier: MIT */
/*
 * The install transaction itself (toolkit.h): the prefix lock and what an interrupted run left,
 * the CUDA folder's install (what to fetch, what to keep, the switch, the active link), the
 * relocatable Python's, the site mirror's copy, and uninstall.  Its steps: the downloads and
 * unpacking in pipeline.c, the new tree in place.c (toolkit_int.h).
 */
#include "config.h"

#define CU_LOG_TAG "toolkit"
#include "core/install/toolkit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/unpack/pyarchive.h"
#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/clock.h"
#include "core/install/toolkit_int.h"

/* ---- lock and leftovers ---------------------------------------------------------- */

void
cu_prefix_reconcile(const char *prefix)
{
    DIR *d = opendir(prefix);
    struct dirent *de;
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        CU_AUTOFREE char *p = cu_path_join(prefix, de->d_name);
        struct cu_error err;
        if (cu_str_has_prefix(de->d_name, ".cudaup-staging-")) {
            cu_log_info(_("Removing %s, left by an interrupted run"), p);
            if (cu_rm_rf(p, &err) != CU_OK)
                cu_log_error_of(CU_LOG_WARN, &err);
        } else if (strstr(de->d_name, ".cudaup-tmp-")) {
            unlink(p);
        }
    }
    closedir(d);
}

/* ---- the CUDA folder's transaction ------------------------------------------------------- */

static int
by_path(const void *a, const void *b)
{
    return strcmp(((const struct cu_record_file *)a)->path, ((const struct cu_record_file *)b)->path);
}

/* What is left of a run's staging folder goes; it failing to go is only worth a warning. */
static void
remove_staging(const char *staging)
{
    struct cu_error e;
    if (staging && cu_rm_rf(staging, &e) != CU_OK)
        cu_log_error_of(CU_LOG_WARN, &e);
}

static char *
now_iso(const char *const *envp)
{
    char buf[32];
    time_t t = cu_now(envp);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return cu_xstrdup(buf);
}

/* Point PREFIX/cuda at cuda-X.Y; a real folder there is left alone. */
static enum cu_status
link_active(const struct cu_run_ctx *ctx, bool *changed, struct cu_error *err)
{
    const struct cu_plan *p = ctx->plan;
    CU_AUTOFREE char *link = cu_path_join(p->prefix, "cuda");
    const char *name = strrchr(p->cuda_path, '/') + 1;
    char cur[4096];
    struct stat sb;
    *changed = false;
    if (lstat(link, &sb) == 0 && !S_ISLNK(sb.st_mode)) {
        cu_run_log(ctx, "cuda", _("%s is a folder, not a link; it was left as it is"), link);
        return CU_OK;
    }
    ssize_t n = readlink(link, cur, sizeof(cur) - 1);
    if (n >= 0) {
        cur[n] = '\0';
        if (strcmp(cur, name) == 0 || strcmp(cur, p->cuda_path) == 0)
            return CU_OK;
        /* What the user's link pointed at (another toolkit: NVIDIA's packages, a runfile): kept beside the record,
         * so that uninstalling this one puts it back instead of leaving no PREFIX/cuda at all. */
        CU_AUTOFREE char *before = cu_path_join(p->cuda_path, CU_LINK_BEFORE);
        CU_AUTOFREE char *text = cu_xasprintf("%s\n", cur);
        struct cu_error e;
        if (cu_write_file_atomic(before, text, strlen(text), 0644, &e) != CU_OK)
            cu_log_warn("%s", e.msg);
        cu_run_log(ctx, "cuda", _("%s pointed at %s; uninstalling CUDA %s points it back there"), link, cur, name + 5);
    }
    *changed = true;
    return cu_symlink_replace(name, link, err);
}

static bool
in_list(char *const *v, const char *s)
{
    for (; v && *v; v++)
        if (strcmp(*v, s) == 0)
            return true;
    return false;
}

/*
 * What is already at @path: nothing (*exists false), or a folder cudaup installed, with its record in
 * *old.  A link to, or a copy owned by, someone else is never adopted; a folder without a record is
 * refused with the sentence @not_ours.
 */
static enum cu_status
adopt_existing(const char *path, bool python, const char *not_ours, bool *exists, struct cu_record **old,
               struct cu_error *err)
{
    struct stat sb;
    enum cu_status st;
    *old = NULL;
    *exists = lstat(path, &sb) == 0;
    if (!*exists)
        return CU_OK;
    if ((st = cu_trusted_dir(path, err)) != CU_OK)
        return st;
    st = python ? cu_record_load_python(path, old, err) : cu_record_load(path, old, err);
    if (st == CU_E_NOT_FOUND)
        return cu_error_set(err, CU_E_UNSUPPORTED, 0, "%s", not_ours);
    if (st != CU_OK)
        cu_error_prefix(err, _("%s has a damaged record; run `cudaup repair` or remove the folder"), path);
    return st;
}

enum cu_status
cu_toolkit_install(struct cu_run_ctx *ctx, char *const *force, struct cu_error *err)
{
    const struct cu_plan *p = ctx->plan;
    struct cu_record *old = NULL;
    enum cu_status st;
    int lockfd = -1, oldfd = -1;
    CU_AUTOFREE char *staging = NULL;
    CU_AUTOFREE char *tree_path = NULL;
    CU_AUTOFREE char *not_ours = NULL;
    struct job *jobs = NULL;
    size_t n_need = 0;
    const struct cu_plan_download **need = cu_xcalloc(p->n_downloads + 1, sizeof(*need));
    bool *kept = cu_xcalloc(p->n_downloads + 1, sizeof(bool));
    struct tree t = {.fd = -1, .err = err};
    char mm[16], detail[512];
    bool link_changed = false;
    const char *culprit = NULL;

    cu_plan_cuda_mm(p, mm, sizeof(mm));
    /* What the step does, not the path the heading already names (a bare "cuda: PATH" said nothing). */
    char v1[32], v2[32];
    if (p->has_cudnn)
        snprintf(detail, sizeof(detail), ngettext_("CUDA %s and cuDNN %s, from %zu archive", "CUDA %s and cuDNN %s, from %zu archives", p->n_downloads), cu_version_format(&p->cuda, 0, v1, sizeof(v1)),
                 p->cudnn_full ? p->cudnn_full : cu_version_format(&p->cudnn, 0, v2, sizeof(v2)), p->n_downloads);
    else
        snprintf(detail, sizeof(detail), ngettext_("CUDA %s, from %zu archive", "CUDA %s, from %zu archives", p->n_downloads), cu_version_format(&p->cuda, 0, v1, sizeof(v1)),
                 p->n_downloads);
    struct cu_event se = {.type = CU_EV_STEP_START, .installer = "cuda", .message = detail};
    cu_emit(ctx->events, &se);

    if (!ctx->prefix_locked && (st = cu_prefix_lock(p->prefix, &lockfd, err)) != CU_OK)
        goto out;
    cu_prefix_reconcile(p->prefix);

    bool exists;
    not_ours = cu_xasprintf(_("%s already exists and cudaup did not install it; choose another --prefix, or move it away"),
                            p->cuda_path);
    if ((st = adopt_existing(p->cuda_path, false, not_ours, &exists, &old, err)) != CU_OK)
        goto out;

    /* Which archives must come: those not installed, or installed but damaged. */
    for (size_t i = 0; i < p->n_downloads; i++) {
        const struct cu_plan_download *d = &p->downloads[i];
        const struct cu_record_component *rc = cu_record_component(old, d->component);
        if (rc && strcmp(rc->sha256, d->sha256) == 0 && !in_list(force, d->component) &&
            cu_record_component_intact(old, p->cuda_path, d->component)) {
            kept[i] = true;
            struct cu_event ke = {.type = CU_EV_PROGRESS, .installer = cu_product_name(d->product),
                                  .item = d->component, .phase = "kept", .done = d->size, .total = d->size};
            cu_emit(ctx->events, &ke); /* in place already: the front ends count it as done */
            continue;
        }
        need[n_need++] = d;
    }
    bool own_ok = old && cu_record_component_intact(old, p->cuda_path, "cudaup");
    if (n_need == 0 && own_ok) {
        bool extra = false;
        for (size_t i = 0; i < old->n_components; i++) {
            bool planned = false;
            for (size_t k = 0; k < p->n_downloads; k++)
                planned |= strcmp(p->downloads[k].component, old->components[i].name) == 0;
            extra |= !planned;
        }
        /* Nothing to fetch and nothing damaged: only the active link may need a touch. */
        if ((st = link_active(ctx, &link_changed, err)) != CU_OK)
            goto out;
        if (extra)
            cu_run_log(ctx, "cuda", _("%s also holds components this plan does not list; they stay"), p->cuda_path);
        ctx->toolkit_changed = link_changed;
        cu_run_result(ctx, "cuda", "install", p->cuda_path, CU_OK, link_changed);
        if (p->has_cudnn)
            cu_run_result(ctx, "cudnn", "install", p->cuda_path, CU_OK, false);
        goto out;
    }

    staging = cu_xasprintf("%s/.cudaup-staging-%s-%d", p->prefix, mm, (int)getpid());
    tree_path = cu_path_join(staging, "tree");
    if ((st = cu_mkdir_p(tree_path, 0755, err)) != CU_OK)
        goto out;

    /* The new tree: kept components linked from the old one first, then each new one moved in by
     * its worker as soon as it is checked and unpacked (no serial tail after the downloads). */
    t.rec = cu_record_new();
    t.fd = open(tree_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (t.fd < 0) {
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot open %s"), tree_path);
        goto out;
    }
    t.rec->cuda_version = cu_xstrdup(cu_version_format(&p->cuda, 0, (char[32]){0}, 32));
    t.rec->platform = cu_xstrdup(p->platform);
    t.rec->mirror = cu_xstrdup(p->base_url);
    t.rec->created = now_iso(ctx->envp);
    if (p->has_cudnn) {
        t.rec->cudnn_version = cu_xstrdup(cu_version_format(&p->cudnn, 0, (char[32]){0}, 32));
        t.rec->cudnn_full = cu_xstrdup(p->cudnn_full);
        t.rec->cudnn_variant = cu_xstrdup(p->cudnn_variant);
    }
    t.rec->components = cu_xcalloc(p->n_downloads + (old ? old->n_components : 0) + 1,
                                   sizeof(*t.rec->components));
    if (old) {
        oldfd = open(p->cuda_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (oldfd < 0) {
            st = cu_error_set(err, CU_E_IO, errno, _("Cannot open %s"), p->cuda_path);
            goto out;
        }
    }
    for (size_t i = 0; i < p->n_downloads; i++) {
        const struct cu_plan_download *d = &p->downloads[i];
        t.rec->components[t.rec->n_components++] = (struct cu_record_component){
            .name = cu_xstrdup(d->component), .product = d->product, .version = cu_xstrdup(d->version),
            .title = cu_xstrdup(d->title), .size = d->size, .url = cu_xstrdup(d->url),
            .runfile_layout = cu_xstrdup(d->runfile_layout), .size_unknown = d->size_unknown, .from_base = d->from_base};
        memcpy(t.rec->components[t.rec->n_components - 1].sha256, d->sha256, 65);
        if (!kept[i])
            continue;
        for (size_t k = 0; k < old->n_files && st == CU_OK; k++)
            if (old->files[k].component && strcmp(old->files[k].component, d->component) == 0)
                st = cu_place_keep(&t, oldfd, &old->files[k]);
    }
    /* Components of the old install this plan does not list stay, when intact. */
    for (size_t i = 0; old && i < old->n_components && st == CU_OK; i++) {
        const struct cu_record_component *c = &old->components[i];
        bool planned = false;
        for (size_t k = 0; k < p->n_downloads; k++)
            planned |= strcmp(p->downloads[k].component, c->name) == 0;
        if (planned || (c->product == CU_PRODUCT_CUDNN && p->has_cudnn) || !cu_record_component_intact(old, p->cuda_path, c->name))
            continue;
        t.rec->components[t.rec->n_components++] = (struct cu_record_component){
            .name = cu_xstrdup(c->name), .product = c->product, .version = cu_xstrdup(c->version),
            .title = cu_xstrdup(c->title), .size = c->size, .url = cu_xstrdup(c->url),
            .runfile_layout = cu_xstrdup(c->runfile_layout), .size_unknown = c->size_unknown, .from_base = c->from_base};
        memcpy(t.rec->components[t.rec->n_components - 1].sha256, c->sha256, 65);
        for (size_t k = 0; k < old->n_files && st == CU_OK; k++)
            if (old->files[k].component && strcmp(old->files[k].component, c->name) == 0)
                st = cu_place_keep(&t, oldfd, &old->files[k]);
    }
    if (st != CU_OK)
        goto out;
    t.plan = p;
    pthread_mutex_init(&t.mu, NULL);
    t.placing = true;
    if ((st = cu_pipeline(ctx, need, n_need, staging, &t, &jobs, &culprit, err)) != CU_OK)
        goto out;
    for (size_t k = 0; k < n_need; k++)
        if (need[k]->product == CU_PRODUCT_CUDNN)
            ctx->cudnn_changed = true;
    /* The record lists files by path, whichever worker placed them first. */
    qsort(t.rec->files, t.rec->n_files, sizeof(*t.rec->files), by_path);
    if ((st = cu_place_write_own_files(&t, p, tree_path)) != CU_OK ||
        (st = cu_record_save(t.rec, tree_path, err)) != CU_OK)
        goto out;
    if (ctx->cancel && atomic_load(ctx->cancel)) {
        st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
        goto out;
    }

    /* The switch: one rename, or one exchange with the old tree. */
    if (exists) {
        if (renameat2(AT_FDCWD, tree_path, AT_FDCWD, p->cuda_path, RENAME_EXCHANGE) != 0) {
            st = cu_error_set(err, CU_E_IO, errno, _("Cannot put %s in place"), p->cuda_path);
            goto out;
        }
    } else if (rename(tree_path, p->cuda_path) != 0) {
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot put %s in place"), p->cuda_path);
        goto out;
    }
    ctx->toolkit_changed = true;
    int fe = cu_fsync_parent(p->cuda_path);
    if (fe) {
        /* The new tree is in place (the old one goes with the staging), but not surely on disk. */
        st = cu_error_set(err, CU_E_IO, fe, _("%s is in place, but the disk reported an error saving it"), p->cuda_path);
        goto out;
    }
    if ((st = link_active(ctx, &link_changed, err)) != CU_OK)
        goto out;
    cu_run_result(ctx, "cuda", "install", p->cuda_path, CU_OK, true);
    if (p->has_cudnn)
        cu_run_result(ctx, "cudnn", "install", p->cuda_path, CU_OK, ctx->cudnn_changed);
out:
    if (st != CU_OK) /* under the installer whose archive failed: a cuDNN archive's failure is cudnn's */
        cu_run_result(ctx, culprit ? culprit : "cuda", "install", cu_error_text(err), st, false);
    if (t.placing)
        pthread_mutex_destroy(&t.mu);
    if (t.fd >= 0)
        close(t.fd);
    if (oldfd >= 0)
        close(oldfd);
    cu_record_free(t.rec);
    if (jobs)
        cu_pipeline_jobs_fini(jobs, n_need);
    remove_staging(staging);
    cu_record_free(old);
    free(need);
    free(kept);
    cu_prefix_unlock(lockfd);
    return st;
}

/* ---- a relocatable CPython, recorded like a toolkit -------------------------------------- */

enum cu_status
cu_toolkit_install_python(struct cu_run_ctx *ctx, struct cu_error *err)
{
    const struct cu_plan *p = ctx->plan;
    const struct cu_plan_python *py = p->python;
    struct cu_record *old = NULL;
    struct tree t = {.fd = -1, .err = err};
    struct job *jobs = NULL;
    CU_AUTOFREE char *staging = NULL, *tree_path = NULL, *parent = NULL, *top = NULL, *not_ours = NULL;
    int lockfd = -1;
    enum cu_status st = CU_OK;
    struct stat sb;

    if (!py || strcmp(py->kind, "cudaup") != 0)
        return CU_OK;
    CU_AUTOFREE char *what = cu_xasprintf(_("Python %s, brought by cudaup"), py->version ? py->version : "");
    struct cu_event se = {.type = CU_EV_STEP_START, .installer = "python", .message = what};
    cu_emit(ctx->events, &se);
    if (!ctx->prefix_locked && (st = cu_prefix_lock(p->prefix, &lockfd, err)) != CU_OK)
        goto out;
    top = cu_path_join(p->prefix, "cudaup");
    parent = cu_xstrdup(py->path);
    *strrchr(parent, '/') = '\0';
    /* PREFIX/cudaup and PREFIX/cudaup/python: ours to write, not a link another user planted. */
    if ((st = cu_mkdir_p(top, 0755, err)) != CU_OK || (st = cu_trusted_dir(top, err)) != CU_OK ||
        (st = cu_mkdir_p(parent, 0755, err)) != CU_OK || (st = cu_trusted_dir(parent, err)) != CU_OK)
        goto out;
    cu_prefix_reconcile(parent);
    bool exists;
    not_ours = cu_xasprintf(_("%s already exists and cudaup did not install it; move it away, or use --python-source system"),
                            py->path);
    if ((st = adopt_existing(py->path, true, not_ours, &exists, &old, err)) != CU_OK)
        goto out;
    if (exists) {
        const struct cu_record_component *rc = cu_record_component(old, "python");
        if (rc && strcmp(rc->sha256, py->dl.sha256) == 0 && !py->force && cu_record_component_intact(old, py->path, "python")) {
            cu_run_result(ctx, "python", "install", py->path, CU_OK, false);
            goto out;
        }
    }
    staging = cu_xasprintf("%s/.cudaup-staging-py-%d", parent, (int)getpid());
    tree_path = cu_path_join(staging, "tree");
    if ((st = cu_mkdir_p(tree_path, 0755, err)) != CU_OK)
        goto out;
    const struct cu_plan_download *dl[] = {&py->dl};
    if ((st = cu_pipeline(ctx, dl, 1, staging, NULL, &jobs, NULL, err)) != CU_OK ||
        (st = cu_pyarchive_check(&jobs[0].res, py->version, py->dl.relative_path, err)) != CU_OK)
        goto out;
    t.rec = cu_record_new();
    t.fd = open(tree_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (t.fd < 0) {
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot open %s"), tree_path);
        goto out;
    }
    t.rec->python_version = cu_xstrdup(py->version);
    t.rec->platform = cu_xstrdup(p->platform);
    t.rec->mirror = cu_xstrdup(py->dl.url);
    t.rec->created = now_iso(ctx->envp);
    t.rec->components = cu_xcalloc(2, sizeof(*t.rec->components));
    t.rec->components[0] = (struct cu_record_component){
        .name = cu_xstrdup("python"), .product = CU_PRODUCT_PYTHON, .version = cu_xstrdup(py->version),
        .title = cu_xstrdup(py->dl.title), .size = stat(jobs[0].final, &sb) == 0 ? (uint64_t)sb.st_size : 0,
        .url = cu_xstrdup(py->dl.url), .archive_layout = cu_xstrdup(py->dl.archive_layout)};
    memcpy(t.rec->components[0].sha256, py->dl.sha256, 65);
    t.rec->n_components = 1;
    int sfd = open(jobs[0].staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sfd < 0) {
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot open %s"), jobs[0].staging);
        goto out;
    }
    for (size_t k = 0; k < jobs[0].res.n && st == CU_OK; k++)
        st = cu_place(&t, sfd, "python", &jobs[0].res.files[k]);
    close(sfd);
    if (st != CU_OK || (st = cu_record_save(t.rec, tree_path, err)) != CU_OK)
        goto out;
    if (ctx->cancel && atomic_load(ctx->cancel)) {
        st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
        goto out;
    }
    if (exists ? renameat2(AT_FDCWD, tree_path, AT_FDCWD, py->path, RENAME_EXCHANGE) != 0
               : rename(tree_path, py->path) != 0) {
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot put %s in place"), py->path);
        goto out;
    }
    int fe = cu_fsync_parent(py->path);
    if (fe) {
        st = cu_error_set(err, CU_E_IO, fe, _("%s is in place, but the disk reported an error saving it"), py->path);
        goto out;
    }
    cu_run_result(ctx, "python", "install", py->path, CU_OK, true);
out:
    if (st != CU_OK)
        cu_run_result(ctx, "python", "install", cu_error_text(err), st, false);
    if (t.fd >= 0)
        close(t.fd);
    cu_record_free(t.rec);
    if (jobs)
        cu_pipeline_jobs_fini(jobs, 1);
    remove_staging(staging);
    cu_record_free(old);
    cu_prefix_unlock(lockfd);
    return st;
}

/* ---- mirror ----------------------------------------------------------------------------- */

static enum cu_status
copy_into(const char *src, const char *dst, struct cu_error *err)
{
    cu_clean_stale_tmp(dst); /* what a kill during an earlier copy left */
    CU_AUTOFREE char *tmp = cu_xasprintf("%s.cudaup-tmp-%d", dst, (int)getpid());
    unlink(tmp);
    if (link(src, tmp) != 0) {
        /* another file system: copy */
        int in = open(src, O_RDONLY | O_CLOEXEC);
        int out = in < 0 ? -1 : open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (in < 0 || out < 0) {
            int e = errno;
            if (in >= 0)
                close(in);
            return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), dst);
        }
        char buf[1 << 16];
        ssize_t n;
        int e = 0;
        while ((n = read(in, buf, sizeof(buf))) > 0) {
            ssize_t w = write(out, buf, (size_t)n);
            if (w != n) {
                e = w < 0 ? errno : ENOSPC; /* a short write: the disk is full */
                break;
            }
        }
        if (n < 0)
            e = errno;
        close(in);
        if (!e && fsync(out) != 0)
            e = errno;
        if (close(out) != 0 && !e)
            e = errno;
        if (e) {
            unlink(tmp);
            return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), dst);
        }
    }
    if (rename(tmp, dst) != 0) {
        int e = errno;
        unlink(tmp);
        return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), dst);
    }
    int e = cu_fsync_parent(dst);
    if (e)
        return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), dst);
    return CU_OK;
}

enum cu_status
cu_toolkit_mirror(struct cu_run_ctx *ctx, const char *dir, struct cu_error *err)
{
    const struct cu_plan *p = ctx->plan;
    const struct cu_plan_download **dl = cu_xcalloc(p->n_downloads + 2, sizeof(*dl));
    struct job *jobs = NULL;
    enum cu_status st;
    size_t n = 0;

    /* What DIR already holds with the right size is checked, not fetched again. */
    for (size_t i = 0; i < p->n_downloads; i++)
        dl[n++] = &p->downloads[i];
    if (p->python && p->python->dl.url)
        dl[n++] = &p->python->dl; /* the nodes' Python: DIR/python/FILE */
    if ((st = cu_pipeline(ctx, dl, n, NULL, NULL, &jobs, NULL, err)) != CU_OK) {
        /* Filling a site mirror: the source is the upstream given with --mirror. */
        if (st == CU_E_NETWORK && !ctx->net->official)
            cu_error_advise(err, _("The upstream %s (--mirror) lacks this file: point --mirror at one that holds it, or leave --mirror out to fetch from NVIDIA%s."),
                            ctx->net->base, p->python ? _(" (with --python-source system or --env-tool conda, the site mirror needs no Python)") : "");
        goto out;
    }
    bool changed = false;
    for (size_t i = 0; i < n && st == CU_OK; i++) {
        const struct job *j = &jobs[i];
        CU_AUTOFREE char *dst = j->d->product == CU_PRODUCT_PYTHON
                                    ? cu_xasprintf("%s/python/%s", dir, j->d->relative_path)
                                    : j->d->from_base ? cu_path_join(dir, j->d->relative_path)
                                    : cu_xasprintf("%s/%s/redist/%s", dir, cu_product_name(j->d->product),
                                                   j->d->relative_path);
        char *slash = strrchr(dst, '/');
        *slash = '\0';
        if ((st = cu_mkdir_p(dst, 0755, err)) != CU_OK)
            break;
        *slash = '/';
        struct stat a, b;
        if (stat(dst, &a) == 0 && stat(j->final, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
            continue;
        char have[65];
        if (stat(dst, &a) == 0 && (j->d->size_unknown || (uint64_t)a.st_size == j->d->size) &&
            cu_sha256_file(dst, have, NULL, err) == CU_OK && strcmp(have, j->d->sha256) == 0)
            continue;
        st = copy_into(j->final, dst, err);
        changed = true;
    }
    ctx->toolkit_changed = changed;
out:
    if (jobs)
        cu_pipeline_jobs_fini(jobs, n);
    free(dl);
    return st;
}

/* ---- uninstall -------------------------------------------------------------------------- */

enum cu_status
cu_toolkit_uninstall(const char *prefix, const char *mm, const char *state_dir, bool locked, bool *was_active,
                     char **before, struct cu_error *err)
{
    (void)state_dir;
    CU_AUTOFREE char *dir = cu_xasprintf("%s/cuda-%s", prefix, mm);
    CU_AUTOFREE char *link = cu_path_join(prefix, "cuda");
    struct cu_record *rec = NULL;
    int lockfd = -1;
    char cur[4096];
    CU_AUTOFREE char *trash = NULL;
    enum cu_status st;

    *was_active = false;
    if (!cu_path_exists(dir))
        return cu_error_set(err, CU_E_NOT_FOUND, 0, _("CUDA %s is not installed in %s"), mm, prefix);
    if (!locked && (st = cu_prefix_lock(prefix, &lockfd, err)) != CU_OK)
        return st;
    cu_prefix_reconcile(prefix);
    st = cu_record_load(dir, &rec, err);
    if (st == CU_E_NOT_FOUND) {
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                          _("%s was not installed by cudaup, so cudaup leaves it alone"), dir);
        goto out;
    }
    if (st != CU_OK)
        goto out;
    ssize_t n = readlink(link, cur, sizeof(cur) - 1);
    if (n >= 0) {
        cur[n] = '\0';
        const char *name = strrchr(dir, '/') + 1;
        if (strcmp(cur, name) == 0 || strcmp(cur, dir) == 0) {
            *was_active = true;
            unlink(link);
            CU_AUTOFREE char *bp = cu_path_join(dir, CU_LINK_BEFORE);
            char *text = NULL;
            struct cu_error e;
            if (before && cu_read_file(bp, 4096, &text, NULL, &e) == CU_OK) {
                text[strcspn(text, "\r\n")] = '\0';
                if (*text)
                    *before = cu_steal_ptr(&text);
            }
            free(text);
        }
    }
    /* Out of the way in one rename, then removed: a kill midway leaves no half folder in place. */
    trash = cu_xasprintf("%s/.cudaup-staging-remove-%s-%d", prefix, mm, (int)getpid());
    st = cu_rm_rf_atomic(dir, trash, err);
out:
    cu_record_free(rec);
    cu_prefix_unlock(lockfd);
    return st;
}
