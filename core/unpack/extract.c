/* SPDX-License-Identifier: MIT */
/*
 * cu_extract's tar side (extract.h): libarchive reads the tar that extract_xz.c decodes, and each
 * entry is checked (its name, its place under the single top folder, where a link leads) and
 * written here, relative to the staging folder's fd and never through a link, within the limits.
 */
#include "config.h"

#define CU_LOG_TAG "extract"
#include "core/unpack/extract.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/unpack/extract_int.h"

#define MAX_NAME 4096
#define MAX_COMPONENT 255
#define MAX_DEPTH 64
#define MAX_LINK 1024
#define CU_EXTRACT_RATIO 50ull

void
cu_extract_result_fini(struct cu_extract_result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->files[i].path);
        free(r->files[i].target);
    }
    free(r->files);
    r->files = NULL;
    r->n = 0;
}

/* ---- paths -------------------------------------------------------------------- */

bool
cu_extract_name_ok(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    if (len == 0 || len > MAX_NAME || name[0] == '/')
        return false;
    for (const char *p = name; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return false;
    const char *p = name;
    if (p[0] == '.' && p[1] == '/')
        p += 2;
    int depth = 0;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 0 || n > MAX_COMPONENT || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        if (++depth > MAX_DEPTH)
            return false;
        p += n;
        if (*p == '/')
            p++; /* a trailing '/' marks a folder */
    }
    return depth > 0;
}

/* Split a checked name into components (owned by @v). */
static void
split_name(const char *name, struct cu_strv *v)
{
    if (name[0] == '.' && name[1] == '/')
        name += 2;
    cu_strv_split(v, name, "/");
}

/* ---- the writer -------------------------------------------------------------------- */

struct map_slot {
    char *key;
    size_t idx;
};

struct ex {
    const struct cu_extract_opts *o;
    struct xzsrc *xs; /* the tar reader's; stopped (cu_xz_ahead_stop) before its errors are read */
    struct cu_error *err;
    struct cu_extract_result *res;
    size_t cap;
    struct map_slot *map; /* path -> index in res->files */
    size_t map_cap, map_n;
    char *cur_dir;   /* the folder cur_fd is open on, "" for the root */
    int cur_fd;
    uint64_t entries, written, last_report;
    char *buf;       /* scratch for sparse holes */
};

static size_t
hash_str(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static struct map_slot *
map_find(struct ex *x, const char *key)
{
    if (!x->map_cap)
        return NULL;
    for (size_t i = hash_str(key) & (x->map_cap - 1);; i = (i + 1) & (x->map_cap - 1)) {
        if (!x->map[i].key)
            return &x->map[i];
        if (strcmp(x->map[i].key, key) == 0)
            return &x->map[i];
    }
}

static void
map_put(struct ex *x, const char *key, size_t idx)
{
    if ((x->map_n + 1) * 2 > x->map_cap) {
        size_t old = x->map_cap;
        struct map_slot *om = x->map;
        x->map_cap = old ? old * 2 : 256;
        x->map = cu_xcalloc(x->map_cap, sizeof(*x->map));
        x->map_n = 0;
        for (size_t i = 0; i < old; i++)
            if (om[i].key) {
                struct map_slot *s = map_find(x, om[i].key);
                *s = om[i];
                x->map_n++;
            }
        free(om);
    }
    struct map_slot *s = map_find(x, key);
    if (!s->key) {
        s->key = cu_xstrdup(key);
        x->map_n++;
    }
    s->idx = idx;
}

/* Add or replace (last wins, as tar does) the record of @path. */
static struct cu_extract_file *
record(struct ex *x, const char *path)
{
    struct map_slot *s = map_find(x, path);
    if (s && s->key) {
        struct cu_extract_file *f = &x->res->files[s->idx];
        free(f->target);
        f->target = NULL;
        return f;
    }
    if (x->res->n == x->cap) {
        x->cap = x->cap ? x->cap * 2 : 64;
        x->res->files = cu_xreallocarray(x->res->files, x->cap, sizeof(*x->res->files));
    }
    struct cu_extract_file *f = &x->res->files[x->res->n];
    memset(f, 0, sizeof(*f));
    f->path = cu_xstrdup(path);
    map_put(x, path, x->res->n);
    x->res->n++;
    return f;
}

static const struct cu_extract_file *
lookup(struct ex *x, const char *path)
{
    struct map_slot *s = map_find(x, path);
    return s && s->key ? &x->res->files[s->idx] : NULL;
}

static enum cu_status
unsafe(struct ex *x, const char *name, const char *why)
{
    CU_AUTOFREE char *shown = cu_str_sanitize(name);
    size_t n = strlen(shown);
    if (n > 120) {
        /* A long name is cut in the middle, so that the sentence keeps its reason; the cuts
         * fall between UTF-8 characters. */
        size_t head = 57, tail = n - 50;
        while (head > 0 && ((unsigned char)shown[head] & 0xC0) == 0x80)
            head--;
        while (tail < n && ((unsigned char)shown[tail] & 0xC0) == 0x80)
            tail++;
        memcpy(shown + head, "...", 3);
        memmove(shown + head + 3, shown + tail, n - tail + 1);
    }
    return cu_error_set(x->err, CU_E_UNSAFE_PATH, 0, _("%s: the entry '%s' %s; the archive was refused"),
                        x->o->what, shown, why);
}

/* Open (creating as needed) the folder @dir, one component at a time, never through a link. */
static enum cu_status
open_dir(struct ex *x, const char *dir, int *out)
{
    if (x->cur_dir && strcmp(x->cur_dir, dir) == 0) {
        *out = x->cur_fd;
        return CU_OK;
    }
    if (x->cur_fd >= 0 && x->cur_fd != x->o->dirfd)
        close(x->cur_fd);
    x->cur_fd = -1;
    cu_clear_ptr(&x->cur_dir, free);

    int fd = x->o->dirfd;
    struct cu_strv parts;
    cu_strv_init(&parts);
    cu_strv_split(&parts, dir, "/");
    for (size_t i = 0; i < parts.n; i++) {
        const char *c = parts.v[i];
        if (mkdirat(fd, c, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            if (fd != x->o->dirfd)
                close(fd);
            cu_strv_fini(&parts);
            return cu_error_set(x->err, CU_E_IO, e, _("%s: cannot create the folder %s"), x->o->what, dir);
        }
        int nfd = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        struct stat st;
        bool link = nfd < 0 && fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
        if (fd != x->o->dirfd)
            close(fd);
        if (nfd < 0) {
            cu_strv_fini(&parts);
            if (link)
                return unsafe(x, dir, _("would be written through a symbolic link"));
            return cu_error_set(x->err, CU_E_ARCHIVE, e, _("%s: %s is not a folder"), x->o->what, dir);
        }
        fd = nfd;
    }
    cu_strv_fini(&parts);
    x->cur_fd = fd;
    x->cur_dir = cu_xstrdup(dir);
    *out = fd;
    return CU_OK;
}

/* Make room for a new non-folder entry @name in @dfd; a folder there is never replaced. */
static enum cu_status
clear_slot(struct ex *x, int dfd, const char *name, const char *path)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return CU_OK;
    if (S_ISDIR(st.st_mode))
        return unsafe(x, path, _("would replace a folder"));
    if (unlinkat(dfd, name, 0) != 0)
        return cu_error_set(x->err, CU_E_IO, errno, _("%s: cannot replace %s"), x->o->what, path);
    return CU_OK;
}

static void
split_parent(const char *path, char **dir, const char **base)
{
    const char *s = strrchr(path, '/');
    *dir = s ? cu_xstrndup(path, (size_t)(s - path)) : cu_xstrdup("");
    *base = s ? s + 1 : path;
}

/* Whether a link at @path (inside the tree) pointing at @target stays inside it. */
static bool
link_stays_inside(const char *path, const char *target)
{
    if (!target[0] || target[0] == '/' || strlen(target) > MAX_LINK)
        return false;
    for (const char *p = target; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return false;
    int depth = 0;
    for (const char *p = path; *p; p++)
        depth += *p == '/';
    struct cu_strv parts;
    cu_strv_init(&parts);
    cu_strv_split(&parts, target, "/");
    bool ok = parts.n > 0;
    for (size_t i = 0; i < parts.n && ok; i++) {
        if (strcmp(parts.v[i], "..") == 0)
            ok = --depth >= 0;
        else if (strcmp(parts.v[i], ".") != 0)
            depth++;
    }
    cu_strv_fini(&parts);
    return ok;
}

static char *
join_parts(const struct cu_strv *v)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < v->n; i++)
        cu_buf_printf(&b, "%s%s", i ? "/" : "", v->v[i]);
    char *s = cu_buf_steal(&b);
    cu_buf_fini(&b);
    return s;
}

static void
strv_pop(struct cu_strv *v)
{
    if (v->n > 0) {
        free(v->v[--v->n]);
        v->v[v->n] = NULL;
    }
}

/*
 * Follow the link at @path to its end through the links this archive placed: false when
 * the way leaves the tree.  The lexical check (link_stays_inside) cannot see that
 * `a/y -> ../..` turns `esc -> a/y/../../etc` into a way out; this walk does.  A loop
 * never resolves, so it leads nowhere and passes.
 */
static bool
resolves_inside(struct ex *x, const char *path, const char *target)
{
    struct cu_strv stack, queue;
    cu_strv_init(&stack);
    cu_strv_init(&queue);
    cu_strv_split(&stack, path, "/");
    strv_pop(&stack); /* the link's own name: its target is read from its folder */
    cu_strv_split(&queue, target, "/");
    size_t qi = 0;
    int hops = 0;
    bool ok = true;
    while (ok && qi < queue.n) {
        const char *c = queue.v[qi++];
        if (!c[0] || strcmp(c, ".") == 0)
            continue;
        if (strcmp(c, "..") == 0) {
            ok = stack.n > 0;
            strv_pop(&stack);
            continue;
        }
        cu_strv_push(&stack, c);
        CU_AUTOFREE char *here = join_parts(&stack);
        const struct cu_extract_file *f = lookup(x, here);
        if (!f || f->type != CU_FILE_LINK)
            continue;
        if (++hops > 40)
            break; /* a loop */
        if (!f->target || f->target[0] == '/') {
            ok = false;
            break;
        }
        /* Go on from the link's folder with its target, then what was left. */
        strv_pop(&stack);
        struct cu_strv next;
        cu_strv_init(&next);
        cu_strv_split(&next, f->target, "/");
        for (size_t k = qi; k < queue.n; k++)
            cu_strv_push(&next, queue.v[k]);
        cu_strv_fini(&queue);
        queue = next;
        qi = 0;
    }
    cu_strv_fini(&stack);
    cu_strv_fini(&queue);
    return ok;
}

static void
report(struct ex *x)
{
    if (x->o->progress && x->written - x->last_report >= (4u << 20)) {
        x->last_report = x->written;
        x->o->progress(x->o->userdata, x->written);
    }
}

/*
 * A decompression bomb is stopped early: what is written may not exceed a
 * fixed ratio of the compressed bytes read so far (NVIDIA's archives stay
 * far below it), nor the absolute cap.
 */
static bool
over_limit(const struct ex *x, uint64_t more)
{
    uint64_t w = x->written + more;
    uint64_t by_ratio = x->xs->in_taken * CU_EXTRACT_RATIO + (256ull << 20);
    return w > x->o->max_bytes || w > by_ratio;
}

static enum cu_status
bomb(struct ex *x)
{
    return cu_error_set(x->err, CU_E_ARCHIVE, 0,
                        _("%s unpacks to far more than its size (over %llu bytes so far); it was stopped as a decompression bomb"),
                        x->o->what, (unsigned long long)x->written);
}

static enum cu_status
write_file(struct ex *x, struct archive *a, struct archive_entry *e, const char *path, int dfd,
           const char *base)
{
    enum cu_status st;
    mode_t mode = (archive_entry_perm(e) & 0111) ? 0755 : 0644;
    struct cu_sha256 h;

    if ((st = clear_slot(x, dfd, base, path)) != CU_OK)
        return st;
    int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return cu_error_set(x->err, CU_E_IO, errno, _("%s: cannot create %s"), x->o->what, path);
    if ((st = cu_sha256_init(&h, x->err)) != CU_OK) {
        close(fd);
        return st;
    }
    uint64_t pos = 0;
    for (;;) {
        const void *buf;
        size_t size;
        la_int64_t off;
        int r = archive_read_data_block(a, &buf, &size, &off);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            cu_xz_ahead_stop(x->xs); /* what the decoding thread met is read once it has stopped */
            if (x->xs->read_err == -ECANCELED || cu_extract_cancelled(x->o->cancel))
                st = cu_error_set(x->err, CU_E_CANCELLED, 0, _("Interrupted"));
            else if (x->xs->read_err) /* the download broke, not the archive */
                st = cu_error_set(x->err, CU_E_NETWORK, (int)-x->xs->read_err, _("%s could not be read to its end"),
                                  x->o->what);
            else
                st = cu_error_set(x->err, CU_E_ARCHIVE, 0, _("%s: %s is cut short or corrupt (%s)"), x->o->what,
                                  path, archive_error_string(a) ? archive_error_string(a) : "?");
            goto fail;
        }
        if (off < 0 || (uint64_t)off < pos) {
            st = cu_error_set(x->err, CU_E_ARCHIVE, 0, _("%s: %s has overlapping data"), x->o->what, path);
            goto fail;
        }
        uint64_t end = (uint64_t)off + size;
        if (over_limit(x, end - pos)) {
            st = bomb(x);
            goto fail;
        }
        /* A hole in a sparse entry reads as zeros, so it hashes as zeros. */
        while (pos < (uint64_t)off) {
            size_t n = (uint64_t)off - pos > 65536 ? 65536 : (size_t)((uint64_t)off - pos);
            cu_sha256_update(&h, x->buf, n);
            pos += n;
            x->written += n;
        }
        const char *p = buf;
        size_t left = size;
        uint64_t at = (uint64_t)off;
        while (left > 0) {
            ssize_t w = pwrite(fd, p, left, (off_t)at);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                st = cu_error_set(x->err, CU_E_IO, errno, _("%s: cannot write %s"), x->o->what, path);
                goto fail;
            }
            p += w;
            at += (uint64_t)w;
            left -= (size_t)w;
        }
        cu_sha256_update(&h, buf, size);
        pos = end;
        x->written += size;
        report(x);
        if (cu_extract_cancelled(x->o->cancel)) {
            st = cu_error_set(x->err, CU_E_CANCELLED, 0, _("Interrupted"));
            goto fail;
        }
    }
    if (pos < (uint64_t)archive_entry_size(e) && archive_entry_size_is_set(e)) {
        /* a trailing hole */
        uint64_t want = (uint64_t)archive_entry_size(e);
        if (over_limit(x, want - pos)) {
            st = bomb(x);
            goto fail;
        }
        for (; pos < want;) {
            size_t n = want - pos > 65536 ? 65536 : (size_t)(want - pos);
            cu_sha256_update(&h, x->buf, n);
            pos += n;
        }
        if (ftruncate(fd, (off_t)want) != 0) {
            st = cu_error_set(x->err, CU_E_IO, errno, _("%s: cannot write %s"), x->o->what, path);
            goto fail;
        }
    }
    if (close(fd) != 0) {
        fd = -1;
        st = cu_error_set(x->err, CU_E_IO, errno, _("%s: cannot write %s"), x->o->what, path);
        goto fail;
    }
    struct cu_extract_file *f = record(x, path);
    f->type = CU_FILE_REG;
    f->mode = mode;
    f->size = pos;
    cu_sha256_final(&h, f->sha256);
    cu_sha256_fini(&h);
    return CU_OK;
fail:
    if (fd >= 0)
        close(fd);
    cu_sha256_fini(&h);
    return st;
}

/* Check and strip an entry name; @out is "" for the top folder itself. */
static enum cu_status
entry_path(struct ex *x, const char *name, char **out)
{
    struct cu_strv parts;
    *out = NULL;
    if (!name || !cu_extract_name_ok(name))
        return unsafe(x, name ? name : "(no name)",
                      _("has an unsafe name (absolute, '..', empty or '.' parts, control characters, or too long)"));
    cu_strv_init(&parts);
    split_name(name, &parts);
    if (!x->res->top[0]) {
        snprintf(x->res->top, sizeof(x->res->top), "%s", parts.v[0]);
    } else if (strcmp(parts.v[0], x->res->top) != 0) {
        cu_strv_fini(&parts);
        return unsafe(x, name, _("lies outside the archive's top folder"));
    }
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 1; i < parts.n; i++) {
        const char *c = parts.v[i];
        /* Components ship lib64/ or lib/; the install has lib/ and lib64 -> lib. */
        if (i == 1 && strcmp(c, "lib64") == 0)
            c = "lib";
        cu_buf_printf(&b, "%s%s", i > 1 ? "/" : "", c);
    }
    cu_strv_fini(&parts);
    *out = cu_buf_steal(&b);
    cu_buf_fini(&b);
    return CU_OK;
}

static enum cu_status
one_entry(struct ex *x, struct archive *a, struct archive_entry *e)
{
    enum cu_status st;
    CU_AUTOFREE char *path = NULL;
    CU_AUTOFREE char *dir = NULL;
    const char *base;
    int dfd;
    const char *name = archive_entry_pathname(e);
    mode_t type = archive_entry_filetype(e);
    const char *hl = archive_entry_hardlink(e);

    if (++x->entries > x->o->max_entries)
        return cu_error_set(x->err, CU_E_ARCHIVE, 0, _("%s has more than %llu entries; it was refused"),
                            x->o->what, (unsigned long long)x->o->max_entries);
    CU_AUTOFREE char *renamed = NULL, *renamed_hl = NULL;
    if (x->o->rename && name) {
        const char *r = x->o->rename(x->o->rename_ud, name);
        if (!r)
            return CU_OK; /* libarchive skips the data at the next header */
        renamed = cu_xstrdup(r);
        name = renamed;
        if (hl && (r = x->o->rename(x->o->rename_ud, hl)))
            hl = renamed_hl = cu_xstrdup(r);
        else if (hl)
            return unsafe(x, name, _("is a hard link to something that is not a file unpacked before it"));
    }
    if ((st = entry_path(x, name, &path)) != CU_OK)
        return st;
    if (!path[0]) {
        if (type != AE_IFDIR || hl)
            return unsafe(x, name, _("lies outside the archive's top folder"));
        return CU_OK;
    }
    split_parent(path, &dir, &base);
    if (hl) {
        CU_AUTOFREE char *tpath = NULL;
        if ((st = entry_path(x, hl, &tpath)) != CU_OK)
            return st;
        const struct cu_extract_file *t = lookup(x, tpath);
        if (!t || t->type != CU_FILE_REG)
            return unsafe(x, name, _("is a hard link to something that is not a file unpacked before it"));
        if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0)
            return unsafe(x, name, _("is a hard link that carries data"));
        struct cu_extract_file copy = *t;
        CU_AUTOFREE char *tdir = NULL;
        const char *tbase;
        split_parent(tpath, &tdir, &tbase);
        int tfd;
        if ((st = open_dir(x, tdir, &tfd)) != CU_OK)
            return st;
        int tdup = fcntl(tfd, F_DUPFD_CLOEXEC, 0);
        if ((st = open_dir(x, dir, &dfd)) != CU_OK || (st = clear_slot(x, dfd, base, path)) != CU_OK) {
            close(tdup);
            return st;
        }
        int r = linkat(tdup, tbase, dfd, base, 0);
        int e2 = errno;
        close(tdup);
        if (r != 0)
            return cu_error_set(x->err, CU_E_IO, e2, _("%s: cannot link %s"), x->o->what, path);
        struct cu_extract_file *f = record(x, path);
        f->type = CU_FILE_REG;
        f->mode = copy.mode;
        f->size = copy.size;
        memcpy(f->sha256, copy.sha256, sizeof(f->sha256));
        return CU_OK;
    }
    if ((st = open_dir(x, dir, &dfd)) != CU_OK)
        return st;
    switch (type) {
    case AE_IFDIR: {
        if (mkdirat(dfd, base, 0755) != 0 && errno != EEXIST)
            return cu_error_set(x->err, CU_E_IO, errno, _("%s: cannot create the folder %s"), x->o->what, path);
        struct stat sb;
        if (fstatat(dfd, base, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(sb.st_mode))
            return unsafe(x, name, _("is a folder where a link or file already is"));
        struct cu_extract_file *f = record(x, path);
        f->type = CU_FILE_DIR;
        f->mode = 0755;
        return CU_OK;
    }
    case AE_IFREG:
        return write_file(x, a, e, path, dfd, base);
    case AE_IFLNK: {
        const char *target = archive_entry_symlink(e);
        if (!target || !link_stays_inside(path, target))
            return unsafe(x, name, _("is a symbolic link that points outside the install"));
        if ((st = clear_slot(x, dfd, base, path)) != CU_OK)
            return st;
        if (symlinkat(target, dfd, base) != 0)
            return cu_error_set(x->err, CU_E_IO, errno, _("%s: cannot create the link %s"), x->o->what, path);
        struct cu_extract_file *f = record(x, path);
        f->type = CU_FILE_LINK;
        f->mode = 0777;
        f->size = strlen(target);
        f->target = cu_xstrdup(target);
        cu_sha256_hex(target, strlen(target), f->sha256);
        return CU_OK;
    }
    default:
        return unsafe(x, name, _("is a device, FIFO or socket"));
    }
}

/* Read the rest of the input so the caller's hash covers every byte. */
static void
drain(cu_read_fn rd, void *ud, const atomic_int *cancel)
{
    unsigned char buf[65536];
    while (!cu_extract_cancelled(cancel) && rd(ud, buf, sizeof(buf)) > 0)
        ;
}

enum cu_status
cu_extract(const struct cu_extract_opts *o0, cu_read_fn rd, void *rd_ud, struct cu_extract_result *res,
           struct cu_error *err)
{
    struct cu_extract_opts o = *o0;
    struct xzsrc xs;
    struct ex x;
    struct archive *a = NULL;
    enum cu_status st = CU_OK;

    if (!o.max_bytes)
        o.max_bytes = 64ull << 30;
    if (!o.max_entries)
        o.max_entries = 500000;
    if (!o.memlimit)
        o.memlimit = 512ull << 20;
    memset(res, 0, sizeof(*res));
    cu_xz_init(&xs, &o, rd, rd_ud);
    memset(&x, 0, sizeof(x));
    x.o = &o;
    x.xs = &xs;
    x.err = err;
    x.res = res;
    x.cur_fd = -1;
    x.buf = cu_xcalloc(1, 65536);

    if ((st = cu_xz_start(&xs, &o, err)) != CU_OK)
        goto out;
    a = archive_read_new();
    archive_read_support_format_tar(a);
    if (o.gzip && archive_read_support_filter_gzip(a) != ARCHIVE_OK) {
        st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s cannot be unpacked: this libarchive has no gzip support"), o.what);
        goto out;
    }
    /* ARCHIVE_WARN would mean an external zstd program: processes run only through cu_exec. */
    if (o.zstd && !o.gzip && archive_read_support_filter_zstd(a) != ARCHIVE_OK) {
        st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s cannot be unpacked: this libarchive has no zstd support"), o.what);
        goto out;
    }
    if (archive_read_open(a, &xs, NULL, cu_xz_la_read, NULL) != ARCHIVE_OK)
        goto la_fail;
    /* With no filter matching, libarchive reads on as a bare tar: not what the name promised. */
    if (xs.raw && archive_filter_code(a, 0) != (o.gzip ? ARCHIVE_FILTER_GZIP : ARCHIVE_FILTER_ZSTD)) {
        st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s is not compressed with %s"), o.what, o.gzip ? "gzip" : "zstd");
        goto out;
    }
    for (;;) {
        struct archive_entry *e;
        if (cu_extract_cancelled(o.cancel)) {
            st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
            goto out;
        }
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r == ARCHIVE_WARN)
            cu_log_debug("%s: %s", o.what, archive_error_string(a) ? archive_error_string(a) : "warning");
        else if (r != ARCHIVE_OK)
            goto la_fail;
        if ((st = one_entry(&x, a, e)) != CU_OK)
            goto out;
    }
    if (res->n == 0 && !res->top[0]) {
        st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s is empty"), o.what);
        goto out;
    }
    /* Every link, now that all of them are placed (a later one can open a way for an earlier). */
    for (size_t i = 0; i < res->n; i++) {
        const struct cu_extract_file *f = &res->files[i];
        if (f->type == CU_FILE_LINK && !resolves_inside(&x, f->path, f->target)) {
            st = unsafe(&x, f->path, _("is a symbolic link that leads outside the install through another link"));
            goto out;
        }
    }
    /* Past the tar's end: the rest of the xz data must still decode cleanly. */
    for (;;) {
        const unsigned char *b;
        ssize_t n = cu_xz_next(&xs, &b);
        if (n < 0)
            goto la_fail;
        if (n == 0)
            break;
    }
    res->bytes_out = x.written;
    goto out;

la_fail:
    cu_xz_ahead_stop(&xs); /* what the decoding thread met is read once it has stopped */
    if (xs.read_err == -ECANCELED || cu_extract_cancelled(o.cancel))
        st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
    else if (xs.read_err)
        st = cu_error_set(err, CU_E_NETWORK, (int)-xs.read_err, _("%s could not be read to its end"), o.what);
    else if (xs.lz_err != LZMA_OK)
        st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s cannot be unpacked: %s"), o.what,
                          cu_xz_error_text(xs.lz_err));
    else
        st = cu_error_set(err, CU_E_ARCHIVE, 0, _("%s is not a valid tar archive (%s)"), o.what,
                          archive_error_string(a) ? archive_error_string(a) : "?");
out:
    cu_xz_ahead_stop(&xs);
    if (st != CU_OK && st != CU_E_CANCELLED && !xs.read_err)
        drain(rd, rd_ud, o.cancel);
    if (a)
        archive_read_free(a);
    cu_xz_fini(&xs);
    if (x.cur_fd >= 0 && x.cur_fd != o.dirfd)
        close(x.cur_fd);
    free(x.cur_dir);
    for (size_t i = 0; i < x.map_cap; i++)
        free(x.map[i].key);
    free(x.map);
    free(x.buf);
    if (st != CU_OK)
        cu_extract_result_fini(res);
    return st;
}
