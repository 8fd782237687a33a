/* SPDX-License-Identifier: MIT */
/* A process as glibc's loader would build it, walked without running anything: see ldwalk.h. */
#include "config.h"

#include "core/machine/ldwalk.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/mem.h"
#include "core/base/str.h"

#define MAX_OBJECTS 4096

void
cu_ldsim_init(struct cu_ldsim *s, const struct cu_sysroot *root, const char *llp, const struct cu_ldconf *conf)
{
    memset(s, 0, sizeof(*s));
    s->root = root;
    s->llp = llp && *llp ? llp : NULL;
    s->conf = conf;
}

void
cu_ldsim_fini(struct cu_ldsim *s)
{
    for (size_t i = 0; i < s->n; i++) {
        struct cu_ldobj *o = &s->v[i];
        free(o->path);
        free(o->real);
        free(o->soname);
        cu_strv_fini(&o->names);
        if (o->have_dyn)
            cu_elf_dyn_fini(&o->dyn);
    }
    free(s->v);
    for (size_t i = 0; i < s->n_miss; i++)
        free(s->miss[i].name);
    free(s->miss);
    memset(s, 0, sizeof(*s));
}

/* Note that @name, asked for by @by, is found nowhere (once per name and asker). */
static void
note_miss(struct cu_ldsim *s, const char *name, int by)
{
    if (!s->note_misses)
        return;
    for (size_t i = 0; i < s->n_miss; i++)
        if (s->miss[i].by == by && strcmp(s->miss[i].name, name) == 0)
            return;
    s->miss = cu_xreallocarray(s->miss, s->n_miss + 1, sizeof(*s->miss));
    s->miss[s->n_miss].name = cu_xstrdup(name);
    s->miss[s->n_miss].by = by;
    s->miss[s->n_miss++].tag = s->tag;
}

int
cu_ldsim_loaded(const struct cu_ldsim *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (cu_strv_contains(&s->v[i].names, name))
            return (int)i;
    return -1;
}

/* The file @path inside the root with its links followed, as the machine names it; NULL when it cannot be
 * opened.  @st gets its identity. */
static char *
real_path(const struct cu_ldsim *s, const char *path, struct stat *st)
{
    int fd = cu_sysroot_open(s->root, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char buf[4096];
    CU_AUTOFREE char *self = cu_xasprintf("/proc/self/fd/%d", fd);
    ssize_t n = readlink(self, buf, sizeof(buf) - 1);
    bool ok = fstat(fd, st) == 0 && S_ISREG(st->st_mode);
    close(fd);
    if (!ok)
        return NULL;
    if (n <= 0)
        return cu_xstrdup(path);
    buf[n] = '\0';
    size_t rl = strlen(s->root->path);
    if (cu_sysroot_is_host(s->root))
        return cu_xstrdup(buf);
    if (strncmp(buf, s->root->path, rl) == 0 && buf[rl] == '/')
        return cu_xstrdup(buf + rl);
    return cu_xstrdup(path);
}

int
cu_ldsim_file(const struct cu_ldsim *s, const char *path)
{
    struct stat st;
    CU_AUTOFREE char *real = real_path(s, path, &st);
    if (!real)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].dev == st.st_dev && s->v[i].ino == st.st_ino)
            return (int)i;
    return -1;
}

/* Load the file @path asked for as @asked by @by; an object already loaded from that file is returned
 * with @asked added to its names.  *@fresh says whether it is new.  -1 when it cannot be opened. */
static int
load_file(struct cu_ldsim *s, const char *path, const char *asked, int by, enum cu_ld_via via, const char *via_file,
          bool *fresh)
{
    struct stat st;
    *fresh = false;
    char *real = real_path(s, path, &st);
    if (!real)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].dev == st.st_dev && s->v[i].ino == st.st_ino) {
            free(real);
            if (!cu_strv_contains(&s->v[i].names, asked))
                cu_strv_push(&s->v[i].names, asked);
            return (int)i;
        }
    if (s->n >= MAX_OBJECTS) {
        free(real);
        return -1;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->v = cu_xreallocarray(s->v, s->cap, sizeof(*s->v));
    }
    struct cu_ldobj *o = &s->v[s->n];
    memset(o, 0, sizeof(*o));
    struct cu_error e;
    o->have_dyn = cu_elf_dyn_read(s->root, path, &o->dyn, &e) == CU_OK;
    o->path = cu_xstrdup(path);
    o->real = real;
    const char *base = strrchr(path, '/');
    o->soname = cu_xstrdup(o->have_dyn && o->dyn.soname ? o->dyn.soname : base ? base + 1 : path);
    cu_strv_init(&o->names);
    cu_strv_push(&o->names, asked);
    if (!cu_strv_contains(&o->names, o->soname))
        cu_strv_push(&o->names, o->soname);
    o->by = by;
    o->via = via;
    o->via_file = via_file;
    o->tag = s->tag;
    o->dev = st.st_dev;
    o->ino = st.st_ino;
    *fresh = true;
    return (int)s->n++;
}

/* Where the loader finds name @name asked for by object @asker (-1: the program), in glibc's order. */
static bool
search(const struct cu_ldsim *s, const char *name, int asker, struct cu_ld_hit *hit)
{
    const struct cu_ldobj *a = asker >= 0 ? &s->v[asker] : NULL;
    /* DT_RPATH of the asker and up the chain of the objects that loaded it, unless the asker has DT_RUNPATH
     * (an object that has both has no DT_RPATH: elf/get-dynamic-info.h). */
    if (!a || !a->have_dyn || !a->dyn.runpath)
        for (int l = asker, hops = 0; l >= 0 && hops < MAX_OBJECTS; l = s->v[l].by, hops++) {
            const struct cu_ldobj *o = &s->v[l];
            if (o->have_dyn && o->dyn.rpath && !o->dyn.runpath &&
                cu_ld_find_in(s->root, name, o->dyn.rpath, o->path, CU_LD_RPATH, hit))
                return true;
        }
    if (s->llp && cu_ld_find_in(s->root, name, s->llp, a ? a->path : "/", CU_LD_ENV, hit))
        return true;
    if (a && a->have_dyn && a->dyn.runpath && cu_ld_find_in(s->root, name, a->dyn.runpath, a->path, CU_LD_RUNPATH, hit))
        return true;
    return cu_ld_find_system(s->root, name, s->conf, hit);
}

/* Is the object at @i one whose DT_NEEDED the walk follows: not one of the system's own (libc and the like, found
 * in a default folder or the cache), unless it is a CUDA library? */
static bool
followed(const struct cu_ldsim *s, int i)
{
    const struct cu_ldobj *o = &s->v[i];
    return o->have_dyn && ((o->via != CU_LD_DEFAULT && o->via != CU_LD_CACHE) || cu_ld_cuda_lib(o->soname));
}

/* Load what the objects from @first on ask for (DT_NEEDED), breadth first. */
static void
needed(struct cu_ldsim *s, size_t first)
{
    for (size_t q = first; q < s->n; q++) {
        if (!followed(s, (int)q))
            continue;
        for (size_t k = 0; k < s->v[q].dyn.n_needed; k++) {
            CU_AUTOFREE char *name = cu_xstrdup(s->v[q].dyn.needed[k]); /* s->v moves as objects are added */
            if (cu_ldsim_loaded(s, name) >= 0)
                continue;
            struct cu_ld_hit hit;
            if (!search(s, name, (int)q, &hit)) {
                note_miss(s, name, (int)q);
                continue;
            }
            bool fresh;
            load_file(s, hit.path, name, (int)q, hit.via, hit.file, &fresh);
            free(hit.path);
        }
    }
}

int
cu_ldsim_dlopen(struct cu_ldsim *s, const char *what, int caller)
{
    int idx;
    bool fresh = false;
    size_t before = s->n;
    if (strchr(what, '/')) {
        if (!cu_sysroot_exists(s->root, what))
            return -1;
        idx = load_file(s, what, what, caller, CU_LD_NONE, NULL, &fresh);
    } else {
        idx = cu_ldsim_loaded(s, what);
        if (idx >= 0)
            return idx;
        struct cu_ld_hit hit;
        if (!search(s, what, caller, &hit)) {
            note_miss(s, what, caller);
            return -1;
        }
        idx = load_file(s, hit.path, what, caller, hit.via, hit.file, &fresh);
        free(hit.path);
    }
    if (fresh)
        needed(s, before);
    return idx;
}
