/* SPDX-License-Identifier: MIT */
/*
 * What the dynamic loader (glibc's ld.so) would load, read without running anything: an ELF shared
 * object's DT_SONAME, DT_NEEDED, DT_RPATH and DT_RUNPATH; the folders /etc/ld.so.conf names and the
 * files it includes (what ldconfig puts in ld.so.cache), each with the file that names it; the
 * default folders; the search for a soname in the loader's order (DT_RPATH of an object without
 * DT_RUNPATH, LD_LIBRARY_PATH, DT_RUNPATH, the cache's folders, the defaults); and which of the
 * shell's start-up files puts a folder into LD_LIBRARY_PATH.  All through the machine's root.
 * verify names what made a library load from where it did; doctor resolves a framework's CUDA
 * libraries without importing it.
 */
#ifndef CU_LDPATH_H
#define CU_LDPATH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"
#include "core/base/sysroot.h"

/** The dynamic section of an ELF object: what it is called and what it asks the loader for. */
struct cu_elf_dyn {
    char *soname;  /* DT_SONAME, or NULL */
    char **needed; /* DT_NEEDED in order, NULL-terminated */
    size_t n_needed;
    char *rpath;   /* DT_RPATH (searched before LD_LIBRARY_PATH, and only when there is no DT_RUNPATH), or NULL */
    char *runpath; /* DT_RUNPATH, or NULL */
};

/**
 * Read @path's dynamic section (ELF64 little-endian, through its program headers).  Errors: CU_E_IO
 * (unreadable), CU_E_INPUT (not such an ELF object, or a malformed one).  cu_elf_dyn_fini() frees it.
 */
CU_NODISCARD enum cu_status cu_elf_dyn_read(const struct cu_sysroot *root, const char *path, struct cu_elf_dyn *out,
                                            struct cu_error *err);
void cu_elf_dyn_fini(struct cu_elf_dyn *d);

/**
 * The folders of /etc/ld.so.conf and what it includes, in order, each with the file that names it; and
 * what /etc/ld.so.cache holds (ldconfig's last run: the loader reads the cache, not the files, so a
 * folder named since, or a library put there since, is not in it until ldconfig runs again).
 */
struct cu_ldconf {
    char **dirs;
    char **files;
    size_t n;
    char **cache_names; /* sonames in the cache (this machine's word size), in the cache's order */
    char **cache_paths; /* the file each names */
    size_t n_cache;
    bool have_cache;    /* /etc/ld.so.cache was read: the loader's step 4 is its entries, not the folders */
};

/**
 * Read /etc/ld.so.conf and its `include` globs (one level of files under a folder), and /etc/ld.so.cache
 * (glibc's format "glibc-ld.so.cache1.1", alone or after the old "ld.so-1.7.0" one); never fails.  Regular
 * files only (a FIFO or a device there is passed over, never waited on), each read once however often it is
 * included, at most 8 includes deep; once *@cancel is set (may be NULL), what was read so far.
 */
void cu_ldconf_read(const struct cu_sysroot *root, const atomic_int *cancel, struct cu_ldconf *out);
void cu_ldconf_fini(struct cu_ldconf *c);
/** The file of @c that names folder @dir, or NULL.  Borrowed. */
const char *cu_ldconf_file(const struct cu_ldconf *c, const char *dir);

/** Is @name the file or soname of a CUDA library a framework loads (libcudnn.so.9, libcublasLt.so.12, ...)? */
bool cu_ld_cuda_lib(const char *name);

/** Is @dir one of the loader's default folders (/lib, /usr/lib, /lib64, /usr/lib64, x86_64-linux-gnu)? */
bool cu_ld_default_dir(const char *dir);

/** How the loader came to a file. */
enum cu_ld_via {
    CU_LD_NONE,
    CU_LD_RPATH,   /* the object's DT_RPATH */
    CU_LD_ENV,     /* LD_LIBRARY_PATH */
    CU_LD_RUNPATH, /* the object's DT_RUNPATH */
    CU_LD_CACHE,   /* a folder of ld.so.conf (the cache) */
    CU_LD_DEFAULT, /* a default folder */
};

struct cu_ld_hit {
    char *path;       /* the file found, caller frees */
    enum cu_ld_via via;
    const char *file; /* CU_LD_CACHE: the ld.so.conf file that names its folder, or "/etc/ld.so.cache" when
                       * none does (borrowed: the cu_ldconf's, or static) */
};

/**
 * Where the loader finds @soname when object @obj (the file @obj_path, for $ORIGIN) asks for it, with
 * LD_LIBRARY_PATH @llp (NULL: unset).  False when nothing has it.  Only @obj's own DT_RPATH is searched
 * (the walk in ldwalk.h adds the DT_RPATH of the objects that loaded it, as the loader does).
 */
bool cu_ld_find(const struct cu_sysroot *root, const char *soname, const char *obj_path, const struct cu_elf_dyn *obj,
                const char *llp, const struct cu_ldconf *conf, struct cu_ld_hit *out);

/**
 * The loader's steps one by one, for a walk that searches the DT_RPATH of several objects: look for
 * @soname in the folders of @list (a DT_RPATH, DT_RUNPATH or LD_LIBRARY_PATH, with $ORIGIN the folder of
 * @origin_path), or in the cache and the default folders (cu_ld_find_system).  True with @out filled.
 */
bool cu_ld_find_in(const struct cu_sysroot *root, const char *soname, const char *list, const char *origin_path,
                   enum cu_ld_via via, struct cu_ld_hit *out);
bool cu_ld_find_system(const struct cu_sysroot *root, const char *soname, const struct cu_ldconf *conf,
                       struct cu_ld_hit *out);

/** "LD_LIBRARY_PATH", "ld.so.conf", ... as the loader's step is named in a sentence (static, untranslated names). */
const char *cu_ld_via_name(enum cu_ld_via via);

/**
 * The start-up or activation file that puts folder @dir into LD_LIBRARY_PATH: the first of cudaup's
 * own STATE/env.sh (@state_dir, may be NULL), the user's shell files under $HOME, /etc/environment,
 * /etc/profile, /etc/bash.bashrc, /etc/profile.d/ *.sh, the active conda environment's activate.d
 * scripts and the active venv's activate, that names both LD_LIBRARY_PATH and @dir.  NULL when none
 * does.  Caller frees.
 */
char *cu_ld_env_file(const struct cu_sysroot *root, const char *const *envp, const char *state_dir, const char *dir);

/**
 * What made the loader take a library from folder @dir, in a sentence (*@why), and what to change
 * (*@fix), both for the caller to free: @via as cu_ld_find() found it, or CU_LD_NONE to infer it from
 * LD_LIBRARY_PATH @llp, @conf and the default folders; the file that sets LD_LIBRARY_PATH (cudaup's
 * STATE/env.sh in @state_dir, or the user's) is named where one is found.  @env_name: the environment
 * the fix may tell to activate, or NULL.
 */
void cu_ld_blame(const struct cu_sysroot *root, const char *const *envp, const char *state_dir, const struct cu_ldconf *conf,
                 enum cu_ld_via via, const char *llp, const char *dir, const char *env_name, char **why, char **fix);

#endif /* CU_LDPATH_H */
