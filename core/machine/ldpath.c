/* SPDX-License-Identifier: MIT */
/* What the dynamic loader would load: see ldpath.h. */
#include "config.h"

#include "core/machine/ldpath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"

/* ---- ELF --------------------------------------------------------------------------------- */

#define PT_LOAD_ 1
#define PT_DYNAMIC_ 2
#define DT_NEEDED_ 1
#define DT_STRTAB_ 5
#define DT_STRSZ_ 10
#define DT_SONAME_ 14
#define DT_RPATH_ 15
#define DT_RUNPATH_ 29
#define MAX_PHDRS 256
#define MAX_DYN (64 * 1024)
#define MAX_STRTAB (16u << 20)

static uint64_t
u64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v)); /* little-endian, as the machines cudaup serves */
    return v;
}

static uint32_t
u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint16_t
u16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static bool
read_at(int fd, void *buf, size_t len, uint64_t off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    return true;
}

/* The file offset of virtual address @a, from the PT_LOAD segments. */
static bool
vaddr_offset(const unsigned char *ph, size_t n, size_t entsize, uint64_t a, uint64_t *off)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = ph + i * entsize;
        uint64_t vaddr = u64(p + 16), filesz = u64(p + 32);
        if (u32(p) == PT_LOAD_ && a >= vaddr && a - vaddr < filesz) {
            *off = u64(p + 8) + (a - vaddr);
            return true;
        }
    }
    return false;
}

static char *
str_at(const char *strtab, size_t len, uint64_t at)
{
    if (at >= len)
        return NULL;
    size_t n = strnlen(strtab + at, len - at);
    return n < len - at ? cu_xstrndup(strtab + at, n) : NULL;
}

enum cu_status
cu_elf_dyn_read(const struct cu_sysroot *root, const char *path, struct cu_elf_dyn *out, struct cu_error *err)
{
    unsigned char eh[64];
    unsigned char *ph = NULL, *dyn = NULL;
    char *strtab = NULL;
    enum cu_status st = CU_E_INPUT;
    memset(out, 0, sizeof(*out));
    int fd = cu_sysroot_open(root, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cu_error_set(err, CU_E_IO, -fd, "Cannot read %s", path);
    if (!read_at(fd, eh, sizeof(eh), 0) || memcmp(eh, "\x7f" "ELF", 4) != 0 || eh[4] != 2 || eh[5] != 1)
        goto out;
    uint64_t phoff = u64(eh + 32);
    size_t entsize = u16(eh + 54), n = u16(eh + 56);
    if (entsize < 56 || n == 0 || n > MAX_PHDRS)
        goto out;
    ph = cu_xmalloc(entsize * n);
    if (!read_at(fd, ph, entsize * n, phoff))
        goto out;
    uint64_t dyn_off = 0, dyn_size = 0;
    for (size_t i = 0; i < n; i++)
        if (u32(ph + i * entsize) == PT_DYNAMIC_) {
            dyn_off = u64(ph + i * entsize + 8);
            dyn_size = u64(ph + i * entsize + 32);
        }
    if (!dyn_size || dyn_size > MAX_DYN) {
        st = dyn_size ? CU_E_INPUT : CU_OK; /* a static object asks for nothing */
        goto out;
    }
    dyn = cu_xmalloc(dyn_size);
    if (!read_at(fd, dyn, dyn_size, dyn_off))
        goto out;
    uint64_t str_addr = 0, str_size = 0, str_off;
    size_t n_dyn = dyn_size / 16;
    for (size_t i = 0; i < n_dyn && u64(dyn + i * 16) != 0; i++) {
        uint64_t tag = u64(dyn + i * 16), val = u64(dyn + i * 16 + 8);
        if (tag == DT_STRTAB_)
            str_addr = val;
        else if (tag == DT_STRSZ_)
            str_size = val;
    }
    if (!str_size || str_size > MAX_STRTAB || !vaddr_offset(ph, n, entsize, str_addr, &str_off))
        goto out;
    strtab = cu_xmalloc(str_size);
    if (!read_at(fd, strtab, str_size, str_off))
        goto out;
    struct cu_strv needed;
    cu_strv_init(&needed);
    st = CU_OK;
    for (size_t i = 0; i < n_dyn && u64(dyn + i * 16) != 0 && st == CU_OK; i++) {
        uint64_t tag = u64(dyn + i * 16), val = u64(dyn + i * 16 + 8);
        char **slot = tag == DT_SONAME_ ? &out->soname : tag == DT_RPATH_ ? &out->rpath
                      : tag == DT_RUNPATH_ ? &out->runpath : NULL;
        if (tag != DT_NEEDED_ && !slot)
            continue;
        char *s = str_at(strtab, str_size, val);
        if (!s) {
            st = CU_E_INPUT;
        } else if (slot) {
            free(*slot);
            *slot = s;
        } else {
            cu_strv_push_owned(&needed, s);
        }
    }
    out->n_needed = needed.n;
    out->needed = cu_steal_ptr(&needed.v);
    if (!out->needed)
        out->needed = cu_xcalloc(1, sizeof(char *));
out:
    close(fd);
    free(ph);
    free(dyn);
    free(strtab);
    if (st != CU_OK) {
        cu_elf_dyn_fini(out);
        return cu_error_set(err, st, 0, "%s is not an ELF shared object cudaup can read", path);
    }
    if (!out->needed)
        out->needed = cu_xcalloc(1, sizeof(char *));
    return CU_OK;
}

void
cu_elf_dyn_fini(struct cu_elf_dyn *d)
{
    free(d->soname);
    cu_strv_free(d->needed);
    free(d->rpath);
    free(d->runpath);
    memset(d, 0, sizeof(*d));
}

/* ---- ld.so.conf ---------------------------------------------------------------------------- */

static void
conf_add(struct cu_ldconf *c, const char *dir, const char *file)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    c->dirs = cu_xreallocarray(c->dirs, c->n + 1, sizeof(char *));
    c->files = cu_xreallocarray(c->files, c->n + 1, sizeof(char *));
    c->dirs[c->n] = cu_xstrndup(dir, len);
    c->files[c->n++] = cu_xstrdup(file);
}

/* One walk of ld.so.conf and what it includes. */
struct conf_walk {
    const struct cu_sysroot *root;
    const atomic_int *cancel; /* may be NULL */
    struct cu_strv seen;      /* "DEV:INO" of each file read: one read each, whatever includes it again */
    struct cu_ldconf *out;
};

static void conf_file(struct conf_walk *w, const char *path, int depth);

/* The files of @dir whose names match @glob (none starting with '.'), sorted by name, appended to @out as paths. */
static void
sorted_matches(const struct cu_sysroot *root, const char *dir, const char *glob, struct cu_strv *out)
{
    DIR *d = cu_sysroot_opendir(root, dir);
    if (!d)
        return;
    struct cu_strv names;
    cu_strv_init(&names);
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.' && fnmatch(glob, de->d_name, 0) == 0)
            cu_strv_push(&names, de->d_name);
    closedir(d);
    cu_strv_sort(&names);
    for (size_t i = 0; i < names.n; i++)
        cu_strv_push_owned(out, cu_xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", names.v[i]));
    cu_strv_fini(&names);
}

/* `include PATTERN`: the files a glob of one folder names, sorted, as ldconfig reads them. */
static void
conf_include(struct conf_walk *w, const char *pattern, int depth)
{
    CU_AUTOFREE char *pat = pattern[0] == '/' ? cu_xstrdup(pattern) : cu_xasprintf("/etc/%s", pattern);
    char *slash = strrchr(pat, '/');
    *slash = '\0';
    struct cu_strv files;
    cu_strv_init(&files);
    sorted_matches(w->root, *pat ? pat : "/", slash + 1, &files);
    for (size_t i = 0; i < files.n; i++)
        conf_file(w, files.v[i], depth + 1);
    cu_strv_fini(&files);
}

/* At most @max bytes of the regular file behind @fd, NUL-terminated; NULL when it is larger or unreadable. */
static char *
read_fd(int fd, size_t max)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (;;) {
        char chunk[8192];
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || b.len + (size_t)(n > 0 ? n : 0) > max) {
            cu_buf_fini(&b);
            return NULL;
        }
        if (n == 0)
            break;
        cu_buf_append(&b, chunk, (size_t)n);
    }
    char *t = cu_buf_steal(&b);
    cu_buf_fini(&b);
    return t ? t : cu_xstrdup("");
}

static void
conf_file(struct conf_walk *w, const char *path, int depth)
{
    if (depth > 8 || (w->cancel && atomic_load(w->cancel)))
        return;
    /* Regular files only, each once: a FIFO (O_NONBLOCK: the open never waits for a writer), a device or a
     * folder is no configuration, and files that include each other are not read again and again. */
    int fd = cu_sysroot_open(w->root, path, O_RDONLY | O_NONBLOCK);
    struct stat sb;
    if (fd < 0)
        return;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return;
    }
    char key[64];
    snprintf(key, sizeof(key), "%llu:%llu", (unsigned long long)sb.st_dev, (unsigned long long)sb.st_ino);
    for (size_t i = 0; i < w->seen.n; i++) {
        if (strcmp(w->seen.v[i], key) == 0) {
            close(fd);
            return;
        }
    }
    cu_strv_push(&w->seen, key);
    char *text = read_fd(fd, 1 << 20);
    close(fd);
    if (!text)
        return;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = cu_str_strip(line);
        if (strncmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t'))
            conf_include(w, cu_str_strip(s + 8), depth);
        else if (s[0] == '/')
            conf_add(w->out, s, path);
    }
    free(text);
}

/* ---- ld.so.cache --------------------------------------------------------------------------- */

#define CACHE_OLD "ld.so-1.7.0"
#define CACHE_NEW "glibc-ld.so.cache1.1"
#define FLAG_ELF_LIBC6 0x0003
#define FLAG_X8664_LIB64 0x0300
#define FLAG_AARCH64_LIB64 0x0a00

/* A NUL-terminated string at @off of the cache's @len bytes, or NULL. */
static const char *
cache_str(const char *data, size_t len, uint32_t off)
{
    return off < len && memchr(data + off, '\0', len - off) ? data + off : NULL;
}

/*
 * glibc's cache (elf/cache.c, sysdeps/generic/dl-cache.h): an optional old part ("ld.so-1.7.0", nlibs, then
 * 12-byte entries), then the new header ("glibc-ld.so.cache" "1.1", nlibs, len_strings, flags, 3 pad,
 * extension offset, 3 unused: 48 bytes) and its 24-byte entries {flags, key, value, osversion, hwcap}; the
 * keys and values are offsets from the new header's start.  Entries of another word size are left out.
 */
static void
cache_read(const struct cu_sysroot *root, struct cu_ldconf *out)
{
    char *data = NULL;
    size_t len = 0, at = 0;
    struct cu_error e;
    if (cu_sysroot_read(root, "/etc/ld.so.cache", 64u << 20, &data, &len, &e) != CU_OK)
        return;
    if (len >= 16 && memcmp(data, CACHE_OLD, strlen(CACHE_OLD)) == 0) {
        uint32_t n_old = u32((const unsigned char *)data + 12);
        at = 16 + (size_t)n_old * 12;
        at = (at + 7) & ~(size_t)7; /* the new part is aligned as its struct */
    }
    if (at > len || len - at < 48 || memcmp(data + at, CACHE_NEW, strlen(CACHE_NEW)) != 0) {
        free(data);
        return;
    }
    const char *base = data + at;
    size_t blen = len - at;
    uint32_t n = u32((const unsigned char *)base + 20);
    if (n > (blen - 48) / 24) {
        free(data);
        return;
    }
    out->cache_names = cu_xcalloc((size_t)n + 1, sizeof(char *));
    out->cache_paths = cu_xcalloc((size_t)n + 1, sizeof(char *));
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *ent = (const unsigned char *)base + 48 + (size_t)i * 24;
        uint32_t flags = u32(ent);
        const char *key = cache_str(base, blen, u32(ent + 4)), *val = cache_str(base, blen, u32(ent + 8));
        if (!key || !val || (flags & 0xff) != FLAG_ELF_LIBC6 ||
            ((flags & 0xff00) != FLAG_X8664_LIB64 && (flags & 0xff00) != FLAG_AARCH64_LIB64))
            continue;
        out->cache_names[out->n_cache] = cu_xstrdup(key);
        out->cache_paths[out->n_cache++] = cu_xstrdup(val);
    }
    out->have_cache = true;
    free(data);
}

void
cu_ldconf_read(const struct cu_sysroot *root, const atomic_int *cancel, struct cu_ldconf *out)
{
    memset(out, 0, sizeof(*out));
    struct conf_walk w = {.root = root, .cancel = cancel, .out = out};
    cu_strv_init(&w.seen);
    conf_file(&w, "/etc/ld.so.conf", 0);
    cu_strv_fini(&w.seen);
    if (!cancel || !atomic_load(cancel))
        cache_read(root, out);
}

void
cu_ldconf_fini(struct cu_ldconf *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->dirs[i]);
        free(c->files[i]);
    }
    free(c->dirs);
    free(c->files);
    for (size_t i = 0; i < c->n_cache; i++) {
        free(c->cache_names[i]);
        free(c->cache_paths[i]);
    }
    free(c->cache_names);
    free(c->cache_paths);
    memset(c, 0, sizeof(*c));
}

/* @a and @b name the same folder, a trailing '/' or not. */
static bool
same_dir(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (lb > 1 && b[lb - 1] == '/')
        lb--;
    return la == lb && strncmp(a, b, la) == 0;
}

const char *
cu_ldconf_file(const struct cu_ldconf *c, const char *dir)
{
    for (size_t i = 0; i < c->n; i++)
        if (same_dir(c->dirs[i], dir))
            return c->files[i];
    return NULL;
}

static const char *const default_dirs[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                                           "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"};

bool
cu_ld_default_dir(const char *dir)
{
    for (size_t i = 0; i < CU_N_ELEMENTS(default_dirs); i++)
        if (same_dir(dir, default_dirs[i]))
            return true;
    return false;
}

const char *
cu_ld_via_name(enum cu_ld_via via)
{
    switch (via) {
    case CU_LD_RPATH: return "DT_RPATH";
    case CU_LD_ENV: return "LD_LIBRARY_PATH";
    case CU_LD_RUNPATH: return "DT_RUNPATH";
    case CU_LD_CACHE: return "ld.so.conf";
    case CU_LD_DEFAULT: return "default";
    case CU_LD_NONE:
    default: return "none";
    }
}

/* Is @name a CUDA library a framework loads (libcudnn.so.9, libcublasLt.so.12, libnvJitLink.so.12, ...)? */
bool
cu_ld_cuda_lib(const char *name)
{
    static const char *const libs[] = {"cudart", "cublas", "cublasLt", "cudnn", "nvJitLink", "nvrtc", "nvrtc-builtins",
                                       "cusparse", "cusparseLt", "cufft", "cufftw", "curand", "cusolver", "cusolverMg",
                                       "nccl", "cupti", "nvToolsExt", "cufile", "nvshmem_host"};
    const char *so = strstr(name, ".so");
    if (strncmp(name, "lib", 3) != 0 || !so || (so[3] && (so[3] != '.' || strspn(so + 4, "0123456789.") != strlen(so + 4))))
        return false;
    size_t n = (size_t)(so - name) - 3;
    for (size_t i = 0; i < CU_N_ELEMENTS(libs); i++)
        if (strlen(libs[i]) == n && strncmp(name + 3, libs[i], n) == 0)
            return true;
    return n > 6 && strncmp(name + 3, "cudnn_", 6) == 0;
}

/* ---- the search ------------------------------------------------------------------------------- */

/* One search path's folders with $ORIGIN, $LIB and $PLATFORM put in. */
static void
expand_path(const char *list, const char *origin, struct cu_strv *out)
{
    struct cu_strv parts;
    cu_strv_init(&parts);
    cu_strv_split(&parts, list, ":;");
    for (size_t i = 0; i < parts.n; i++) {
        struct cu_buf b;
        cu_buf_init(&b);
        for (const char *p = parts.v[i]; *p;) {
            static const struct {
                const char *tok, *alt;
            } toks[] = {{"$ORIGIN", "${ORIGIN}"}, {"$LIB", "${LIB}"}, {"$PLATFORM", "${PLATFORM}"}};
            size_t k, used = 0;
            for (k = 0; k < CU_N_ELEMENTS(toks) && !used; k++) {
                if (strncmp(p, toks[k].alt, strlen(toks[k].alt)) == 0)
                    used = strlen(toks[k].alt);
                else if (strncmp(p, toks[k].tok, strlen(toks[k].tok)) == 0 &&
                         !(p[strlen(toks[k].tok)] >= 'A' && p[strlen(toks[k].tok)] <= 'Z'))
                    used = strlen(toks[k].tok);
            }
            if (used) {
                k--;
                cu_buf_printf(&b, "%s", k == 0 ? origin : k == 1 ? "lib64" : "x86_64");
                p += used;
            } else {
                cu_buf_putc(&b, *p++);
            }
        }
        if (b.len && b.data[0] == '/')
            cu_strv_push(out, b.data);
        cu_buf_fini(&b);
    }
    cu_strv_fini(&parts);
}

static bool
look_in(const struct cu_sysroot *root, const struct cu_strv *dirs, const char *soname, enum cu_ld_via via,
        struct cu_ld_hit *out)
{
    for (size_t i = 0; i < dirs->n; i++) {
        CU_AUTOFREE char *p = cu_xasprintf("%s/%s", dirs->v[i], soname);
        if (cu_sysroot_exists(root, p)) {
            out->path = cu_steal_ptr(&p);
            out->via = via;
            return true;
        }
    }
    return false;
}

static char *
origin_of(const char *obj_path)
{
    char *origin = cu_xstrdup(obj_path ? obj_path : "/");
    char *slash = strrchr(origin, '/');
    if (slash)
        *(slash == origin ? slash + 1 : slash) = '\0';
    return origin;
}

bool
cu_ld_find_in(const struct cu_sysroot *root, const char *soname, const char *list, const char *origin_path,
              enum cu_ld_via via, struct cu_ld_hit *out)
{
    memset(out, 0, sizeof(*out));
    if (!list || !*list)
        return false;
    CU_AUTOFREE char *origin = origin_of(origin_path);
    struct cu_strv dirs;
    cu_strv_init(&dirs);
    expand_path(list, origin, &dirs);
    bool found = look_in(root, &dirs, soname, via, out);
    cu_strv_fini(&dirs);
    return found;
}

bool
cu_ld_find_system(const struct cu_sysroot *root, const char *soname, const struct cu_ldconf *conf,
                  struct cu_ld_hit *out)
{
    memset(out, 0, sizeof(*out));
    /* 4. ld.so.cache: its entries where it was read (what ldconfig last put there), else the folders
     * ld.so.conf names, as ldconfig would build it. */
    if (conf && conf->have_cache) {
        for (size_t i = 0; i < conf->n_cache; i++) {
            if (strcmp(conf->cache_names[i], soname) != 0 || !cu_sysroot_exists(root, conf->cache_paths[i]))
                continue;
            out->path = cu_xstrdup(conf->cache_paths[i]);
            out->via = CU_LD_CACHE;
            CU_AUTOFREE char *dir = cu_xstrdup(out->path);
            char *slash = strrchr(dir, '/');
            if (slash)
                *(slash == dir ? slash + 1 : slash) = '\0';
            out->file = cu_ldconf_file(conf, dir);
            if (!out->file)
                out->file = "/etc/ld.so.cache";
            return true;
        }
    } else {
        for (size_t i = 0; conf && i < conf->n; i++) {
            CU_AUTOFREE char *p = cu_xasprintf("%s/%s", conf->dirs[i], soname);
            if (cu_sysroot_exists(root, p)) {
                out->path = cu_steal_ptr(&p);
                out->via = CU_LD_CACHE;
                out->file = conf->files[i];
                return true;
            }
        }
    }
    /* 5. The default folders. */
    for (size_t i = 0; i < CU_N_ELEMENTS(default_dirs); i++) {
        CU_AUTOFREE char *p = cu_xasprintf("%s/%s", default_dirs[i], soname);
        if (cu_sysroot_exists(root, p)) {
            out->path = cu_steal_ptr(&p);
            out->via = CU_LD_DEFAULT;
            return true;
        }
    }
    return false;
}

bool
cu_ld_find(const struct cu_sysroot *root, const char *soname, const char *obj_path, const struct cu_elf_dyn *obj,
           const char *llp, const struct cu_ldconf *conf, struct cu_ld_hit *out)
{
    memset(out, 0, sizeof(*out));
    if (strchr(soname, '/')) {
        if (!cu_sysroot_exists(root, soname))
            return false;
        out->path = cu_xstrdup(soname);
        out->via = CU_LD_NONE;
        return true;
    }
    /* 1. DT_RPATH, only when the object has no DT_RUNPATH; 2. LD_LIBRARY_PATH; 3. DT_RUNPATH; 4. the cache;
     * 5. the default folders. */
    return (obj && obj->rpath && !obj->runpath && cu_ld_find_in(root, soname, obj->rpath, obj_path, CU_LD_RPATH, out)) ||
           cu_ld_find_in(root, soname, llp, obj_path, CU_LD_ENV, out) ||
           (obj && obj->runpath && cu_ld_find_in(root, soname, obj->runpath, obj_path, CU_LD_RUNPATH, out)) ||
           cu_ld_find_system(root, soname, conf, out);
}

/* ---- who sets LD_LIBRARY_PATH ------------------------------------------------------------------ */

/* @text with $NAME and ${NAME} of the variables a start-up file names folders by put in. Caller frees. */
static char *
expand_vars(const char *text, const char *const *envp)
{
    static const char *const names[] = {"CONDA_PREFIX", "VIRTUAL_ENV", "HOME", "CUDA_HOME", "CUDA_PATH"};
    struct cu_buf b;
    cu_buf_init(&b);
    for (const char *p = text; *p;) {
        bool done = false;
        for (size_t i = 0; *p == '$' && i < CU_N_ELEMENTS(names) && !done; i++) {
            size_t n = strlen(names[i]);
            const char *v = cu_env_get(envp, names[i]);
            if (!v)
                continue;
            if (strncmp(p + 1, names[i], n) == 0 && !(p[1 + n] == '_' || (p[1 + n] >= 'A' && p[1 + n] <= 'Z'))) {
                cu_buf_printf(&b, "%s", v);
                p += 1 + n;
                done = true;
            } else if (p[1] == '{' && strncmp(p + 2, names[i], n) == 0 && p[2 + n] == '}') {
                cu_buf_printf(&b, "%s", v);
                p += 3 + n;
                done = true;
            }
        }
        if (!done)
            cu_buf_putc(&b, *p++);
    }
    return cu_buf_steal(&b);
}

/* Does the file at @path name LD_LIBRARY_PATH and folder @dir (a whole path, not part of a longer one)? */
static bool
names_dir(const struct cu_sysroot *root, const char *path, const char *dir, const char *const *envp)
{
    char *raw = NULL;
    size_t len;
    struct cu_error e;
    bool yes = false;
    /* cudaup's own state is on this host (root NULL), whatever machine root the rest is read through */
    if (root ? cu_sysroot_read(root, path, 1 << 20, &raw, &len, &e) != CU_OK
             : cu_read_file(path, 1 << 20, &raw, &len, &e) != CU_OK)
        return false;
    char *text = expand_vars(raw, envp);
    free(raw);
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    CU_AUTOFREE char *d = cu_xstrndup(dir, dl);
    if (strstr(text, "LD_LIBRARY_PATH"))
        for (const char *p = strstr(text, d); p && !yes; p = strstr(p + 1, d)) {
            char next = p[dl];
            if (next == '/')
                next = p[dl + 1];
            yes = !(next >= 'a' && next <= 'z') && !(next >= 'A' && next <= 'Z') && !(next >= '0' && next <= '9') &&
                  next != '_' && next != '-' && next != '.';
        }
    free(text);
    return yes;
}

char *
cu_ld_env_file(const struct cu_sysroot *root, const char *const *envp, const char *state_dir, const char *dir)
{
    if (state_dir) {
        CU_AUTOFREE char *envsh = cu_xasprintf("%s/env.sh", state_dir);
        if (names_dir(NULL, envsh, dir, envp))
            return cu_steal_ptr(&envsh);
    }
    struct cu_strv files;
    cu_strv_init(&files);
    const char *home = cu_env_get(envp, "HOME");
    static const char *const rc[] = {".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".zshenv",
                                     ".config/fish/config.fish"};
    for (size_t i = 0; home && home[0] == '/' && i < CU_N_ELEMENTS(rc); i++)
        cu_strv_push_owned(&files, cu_xasprintf("%s/%s", home, rc[i]));
    cu_strv_push(&files, "/etc/environment");
    cu_strv_push(&files, "/etc/profile");
    cu_strv_push(&files, "/etc/bash.bashrc");
    sorted_matches(root, "/etc/profile.d", "*.sh", &files);
    const char *conda = cu_env_get(envp, "CONDA_PREFIX"), *venv = cu_env_get(envp, "VIRTUAL_ENV");
    if (conda && conda[0] == '/') {
        CU_AUTOFREE char *ad = cu_xasprintf("%s/etc/conda/activate.d", conda);
        sorted_matches(root, ad, "*.sh", &files);
    }
    if (venv && venv[0] == '/')
        cu_strv_push_owned(&files, cu_xasprintf("%s/bin/activate", venv));
    char *found = NULL;
    for (size_t i = 0; i < files.n && !found; i++)
        if (names_dir(root, files.v[i], dir, envp))
            found = cu_xstrdup(files.v[i]);
    cu_strv_fini(&files);
    return found;
}

/* ---- what to blame ---------------------------------------------------------------------------- */

static bool
in_list(const char *list, const char *dir)
{
    CU_AUTOFREE char *copy = cu_xstrdup(list ? list : "");
    char *save = NULL;
    for (char *e = strtok_r(copy, ":", &save); e; e = strtok_r(NULL, ":", &save))
        if (same_dir(e, dir))
            return true;
    return false;
}

/* The entry of LD_LIBRARY_PATH @list that is folder @dir through links (/usr/local/cuda-13.0/lib64, a link to lib,
 * for the lib a mapped file's real path names), as the user wrote it; NULL when none.  Caller frees. */
static char *
list_entry_of(const struct cu_sysroot *root, const char *list, const char *dir)
{
    if (!root || !list)
        return NULL;
    CU_AUTOFREE char *want = cu_sysroot_real_path(root, dir);
    CU_AUTOFREE char *copy = cu_xstrdup(list);
    char *save = NULL;
    for (char *e = strtok_r(copy, ":", &save); want && e; e = strtok_r(NULL, ":", &save)) {
        CU_AUTOFREE char *real = e[0] == '/' ? cu_sysroot_real_path(root, e) : NULL;
        if (real && strcmp(real, want) == 0)
            return cu_xstrdup(e);
    }
    return NULL;
}

void
cu_ld_blame(const struct cu_sysroot *root, const char *const *envp, const char *state_dir, const struct cu_ldconf *conf,
            enum cu_ld_via via, const char *llp, const char *dir, const char *env_name, char **why, char **fix)
{
    CU_AUTOFREE char *spelled = NULL;
    if (via == CU_LD_NONE && !in_list(llp, dir) && (spelled = list_entry_of(root, llp, dir)))
        dir = spelled; /* LD_LIBRARY_PATH names it through a link: said as the user wrote it */
    const char *cfile = conf ? cu_ldconf_file(conf, dir) : NULL;
    if (via == CU_LD_NONE)
        via = in_list(llp, dir) ? CU_LD_ENV : cfile ? CU_LD_CACHE : cu_ld_default_dir(dir) ? CU_LD_DEFAULT : CU_LD_NONE;
    if (via == CU_LD_ENV) {
        CU_AUTOFREE char *file = root ? cu_ld_env_file(root, envp, state_dir, dir) : NULL;
        CU_AUTOFREE char *envsh = state_dir ? cu_path_join(state_dir, "env.sh") : NULL;
        if (file && envsh && strcmp(file, envsh) == 0) {
            *why = cu_xasprintf(_("LD_LIBRARY_PATH holds %s, put there by cudaup's own %s"), dir, file);
            *fix = cu_xasprintf(_("activate %s (its activation takes CUDA folders out of LD_LIBRARY_PATH), or run cudaup install again with a framework: env.sh then leaves LD_LIBRARY_PATH alone"),
                                env_name ? env_name : _("the environment"));
        } else if (file) {
            *why = cu_xasprintf(_("LD_LIBRARY_PATH holds %s, set in %s"), dir, file);
            *fix = cu_xasprintf(_("take %s out of LD_LIBRARY_PATH in %s (or run the environment with LD_LIBRARY_PATH unset)"),
                                dir, file);
        } else {
            *why = cu_xasprintf(_("LD_LIBRARY_PATH holds %s"), dir);
            *fix = cu_xasprintf(_("take %s out of LD_LIBRARY_PATH where your shell sets it (or run the environment with LD_LIBRARY_PATH unset)"),
                                dir);
        }
    } else if (via == CU_LD_CACHE && !cfile) {
        *why = cu_xasprintf(_("the loader's cache /etc/ld.so.cache holds %s, though no file of ld.so.conf names it now (ldconfig last ran before it was taken out)"),
                            dir);
        *fix = cu_xstrdup(_("as root, run ldconfig to rebuild the loader's cache from ld.so.conf"));
    } else if (via == CU_LD_CACHE && cfile) {
        *why = cu_xasprintf(_("%s puts %s in the loader's cache for the whole system"), cfile, dir);
        *fix = cu_xasprintf(_("as root, take %s out of %s and run ldconfig (cudaup never writes ld.so.conf.d)"),
                            dir, cfile);
    } else if (via == CU_LD_DEFAULT) {
        *why = cu_xasprintf(_("%s is one of the loader's default folders, where a package of the distribution put it"), dir);
        *fix = cu_xstrdup(_("remove the distribution's package that holds it (dpkg -S or rpm -qf on the file names it), or make the environment's own library load first"));
    } else if (via == CU_LD_RPATH) {
        *why = cu_xasprintf(_("the DT_RPATH of the object that loads it names %s, and DT_RPATH comes before everything else"), dir);
        *fix = cu_xstrdup(_("install a build of that package without the DT_RPATH, or give the framework an environment of its own"));
    } else {
        *why = cu_xasprintf(_("neither LD_LIBRARY_PATH, ld.so.conf nor the default folders name %s: an object's DT_RPATH or a dlopen by full path loaded it"),
                            dir);
        *fix = cu_xstrdup(_("find what loads it by its full path (LD_DEBUG=libs shows it) and make it use the environment's own wheel"));
    }
}
