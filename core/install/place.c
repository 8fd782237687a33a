/* SPDX-License-Identifier: MIT */
/*
 * The new tree of the install transaction (toolkit_int.h): each component's unpacked files moved
 * in from its staging folder as soon as it is checked (two components that install one path with
 * different contents are refused), the files of kept components hard-linked from the old tree,
 * and cudaup's own files (lib64, version.json); every file placed is added to the tree's record.
 */
#include "config.h"

#define CU_LOG_TAG "toolkit"
#include "core/install/toolkit_int.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/unpack/extract.h"
#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"

static struct cu_record_file *
tree_add(struct tree *t, const char *path)
{
    if (t->rec->n_files == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->rec->files = cu_xreallocarray(t->rec->files, t->cap, sizeof(*t->rec->files));
    }
    struct cu_record_file *f = &t->rec->files[t->rec->n_files++];
    memset(f, 0, sizeof(*f));
    f->path = cu_xstrdup(path);
    return f;
}

static const struct cu_record_file *
tree_find(const struct tree *t, const char *path)
{
    for (size_t i = t->rec->n_files; i-- > 0;)
        if (strcmp(t->rec->files[i].path, path) == 0)
            return &t->rec->files[i];
    return NULL;
}

static void
split(const char *path, char **dir, const char **base)
{
    const char *s = strrchr(path, '/');
    *dir = s ? cu_xstrndup(path, (size_t)(s - path)) : cu_xstrdup("");
    *base = s ? s + 1 : path;
}

static size_t
plan_index(const struct cu_plan *p, const char *component)
{
    for (size_t i = 0; i < p->n_downloads; i++)
        if (strcmp(p->downloads[i].component, component) == 0)
            return i;
    return (size_t)-1;
}

/* Move one unpacked entry of @component from its staging folder into the tree. */
enum cu_status
cu_place(struct tree *t, int sfd, const char *component, const struct cu_extract_file *f)
{
    enum cu_status st;
    /* The archive's own top-level files (LICENSE, README) would collide across components. */
    CU_AUTOFREE char *dest = strchr(f->path, '/') || f->type == CU_FILE_DIR
                                 ? cu_xstrdup(f->path)
                                 : cu_xasprintf("licenses/%s/%s", component, f->path);
    CU_AUTOFREE char *ddir = NULL, *sdir = NULL;
    const char *dbase, *sbase;
    int dfd = -1, srcfd = -1;

    if (f->type == CU_FILE_DIR) {
        if ((st = cu_openat_dir(t->fd, dest, true, &dfd, t->err)) != CU_OK)
            return st;
        close(dfd);
        if (!tree_find(t, dest)) {
            struct cu_record_file *r = tree_add(t, dest);
            r->type = 'd';
            r->mode = 0755;
            r->component = cu_xstrdup(component);
        }
        return CU_OK;
    }
    split(dest, &ddir, &dbase);
    split(f->path, &sdir, &sbase);
    if ((st = cu_openat_dir(t->fd, ddir, true, &dfd, t->err)) != CU_OK)
        return st;
    struct stat sb;
    if (fstatat(dfd, dbase, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
        const struct cu_record_file *old = tree_find(t, dest);
        bool same = old && old->type == f->type && strcmp(old->sha256, f->sha256) == 0;
        close(dfd);
        if (same)
            return CU_OK; /* the same bytes from two components: keep one */
        /* Named in plan order, whichever was placed first (workers place as they finish).  A folder
         * made for another component's files belongs to that component. */
        const char *a = old && old->component ? old->component : NULL, *b = component;
        size_t dl = strlen(dest);
        for (size_t i = 0; !a && i < t->rec->n_files; i++)
            if (strncmp(t->rec->files[i].path, dest, dl) == 0 && t->rec->files[i].path[dl] == '/')
                a = t->rec->files[i].component;
        if (!a)
            a = "?";
        if (t->plan && plan_index(t->plan, b) < plan_index(t->plan, a)) {
            const char *x = a;
            a = b;
            b = x;
        }
        return cu_error_set(t->err, CU_E_ARCHIVE, 0,
                            _("The components %s and %s both install %s, with different contents"), a, b, dest);
    }
    if ((st = cu_openat_dir(sfd, sdir, false, &srcfd, t->err)) != CU_OK) {
        close(dfd);
        return st;
    }
    if (renameat(srcfd, sbase, dfd, dbase) != 0) {
        st = cu_error_set(t->err, CU_E_IO, errno, _("Cannot move %s into place"), dest);
        close(srcfd);
        close(dfd);
        return st;
    }
    close(srcfd);
    close(dfd);
    struct cu_record_file *r = tree_add(t, dest);
    r->type = f->type;
    r->mode = f->mode;
    r->size = f->size;
    memcpy(r->sha256, f->sha256, sizeof(r->sha256));
    r->target = cu_xstrdup(f->target);
    r->component = cu_xstrdup(component);
    return CU_OK;
}

/* A worker's finished component, into the new tree: one worker at a time. */
enum cu_status
cu_place_job(struct tree *t, const struct job *j, struct cu_error *err)
{
    enum cu_status st = CU_OK;
    pthread_mutex_lock(&t->mu);
    struct cu_error *saved = t->err;
    t->err = err;
    int sfd = open(j->staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sfd < 0) {
        st = cu_error_set(err, CU_E_IO, errno, _("Cannot open %s"), j->staging);
    } else {
        for (size_t k = 0; k < j->res.n && st == CU_OK; k++)
            st = cu_place(t, sfd, j->d->component, &j->res.files[k]);
        close(sfd);
    }
    t->err = saved;
    pthread_mutex_unlock(&t->mu);
    return st;
}

/* Bring a kept component's files over from the old tree: hard links, no copies. */
enum cu_status
cu_place_keep(struct tree *t, int oldfd, const struct cu_record_file *f)
{
    enum cu_status st;
    CU_AUTOFREE char *dir = NULL;
    const char *base;
    int dfd = -1, sfd = -1;

    split(f->path, &dir, &base);
    if (f->type == 'd') {
        if ((st = cu_openat_dir(t->fd, f->path, true, &dfd, t->err)) != CU_OK)
            return st;
        close(dfd);
    } else {
        if ((st = cu_openat_dir(t->fd, dir, true, &dfd, t->err)) != CU_OK)
            return st;
        if ((st = cu_openat_dir(oldfd, dir, false, &sfd, t->err)) != CU_OK) {
            close(dfd);
            return st;
        }
        int r = f->type == 'l' ? symlinkat(f->target, dfd, base) : linkat(sfd, base, dfd, base, 0);
        if (r != 0 && errno != EEXIST)
            st = cu_error_set(t->err, CU_E_IO, errno, _("Cannot carry %s over"), f->path);
        close(sfd);
        close(dfd);
        if (st != CU_OK)
            return st;
    }
    struct cu_record_file *n = tree_add(t, f->path);
    n->type = f->type;
    n->mode = f->mode;
    n->size = f->size;
    memcpy(n->sha256, f->sha256, sizeof(n->sha256));
    n->target = cu_xstrdup(f->target);
    n->component = cu_xstrdup(f->component);
    return CU_OK;
}

enum cu_status
cu_place_write_own_files(struct tree *t, const struct cu_plan *p, const char *tree_path)
{
    enum cu_status st;
    char buf[32];
    /* lib64 -> lib, as the runfile installs it. */
    struct stat sb;
    if (fstatat(t->fd, "lib", &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode) &&
        fstatat(t->fd, "lib64", &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        if (symlinkat("lib", t->fd, "lib64") != 0)
            return cu_error_set(t->err, CU_E_IO, errno, _("Cannot create lib64"));
        struct cu_record_file *f = tree_add(t, "lib64");
        f->type = 'l';
        f->mode = 0777;
        f->size = 3;
        f->target = cu_xstrdup("lib");
        cu_sha256_hex("lib", 3, f->sha256);
        f->component = cu_xstrdup("cudaup");
    }
    /* version.json in the runfile's shape, so other tools recognise the install. */
    json_t *v = json_object(), *cuda = json_object();
    json_object_set_new(cuda, "name", json_string("CUDA SDK"));
    json_object_set_new(cuda, "version", json_string(cu_version_format(&p->cuda, 0, buf, sizeof(buf))));
    json_object_set_new(v, "cuda", cuda);
    for (size_t i = 0; i < t->rec->n_components; i++) {
        const struct cu_record_component *c = &t->rec->components[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(c->title ? c->title : c->name));
        json_object_set_new(o, "version", cu_json_str_or_null(c->version));
        json_object_set_new(v, c->name, o);
    }
    char *text = json_dumps(v, JSON_INDENT(3) | JSON_PRESERVE_ORDER);
    json_decref(v);
    CU_AUTOFREE char *vp = cu_path_join(tree_path, "version.json");
    size_t len = strlen(text);
    st = cu_write_file_atomic(vp, text, len, 0644, t->err);
    if (st == CU_OK) {
        struct cu_record_file *f = tree_add(t, "version.json");
        f->type = 'f';
        f->mode = 0644;
        f->size = len;
        cu_sha256_hex(text, len, f->sha256);
        f->component = cu_xstrdup("cudaup");
    }
    free(text);
    return st;
}
