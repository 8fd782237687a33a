/* SPDX-License-Identifier: MIT */
/*
 * A process as glibc's dynamic loader would build it, walked without running anything (issue 47): the
 * objects it loads, in order, for a sequence of dlopen() calls by path or by name, each followed by its
 * DT_NEEDED breadth first, as elf/dl-load.c and elf/dl-deps.c do:
 *   - a name already loaded (an object's DT_SONAME, or a name it was loaded by) is that object;
 *   - a path is a file: the same file (device and inode) already loaded is that object, another file with
 *     the same soname is loaded beside it (mapped twice);
 *   - a name is searched in the DT_RPATH of the object that asks and of the objects that loaded it, up the
 *     chain (only when the one that asks has no DT_RUNPATH; an object with DT_RUNPATH has no DT_RPATH), then
 *     LD_LIBRARY_PATH, then the DT_RUNPATH of the one that asks (its own, never inherited), then
 *     /etc/ld.so.cache, then the default folders (core/machine/ldpath.h).
 * All through the machine's root.  What calls dlopen and in which order is the caller's (doctor reads it
 * from the recorded load sequences of each framework, data/compat/framework_loads.csv).
 */
#ifndef CU_LDWALK_H
#define CU_LDWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/base/str.h"
#include "core/base/sysroot.h"
#include "core/machine/ldpath.h"

/** One object of the walked process. */
struct cu_ldobj {
    char *path;           /* the file as found (the folder searched + the name), as the machine names it */
    char *real;           /* the file with its links followed, as the machine names it (what /proc/self/maps shows) */
    char *soname;         /* DT_SONAME, else the file's name */
    struct cu_strv names; /* the names and paths it was asked for by, and its soname */
    int by;               /* the object whose dlopen or DT_NEEDED loaded it; -1: the program (Python) */
    enum cu_ld_via via;   /* how the loader found it (CU_LD_NONE: asked for by its path) */
    const char *via_file; /* CU_LD_CACHE: the file responsible (borrowed) */
    int tag;              /* the walk's tag when it was loaded (cu_ldsim.tag) */
    struct cu_elf_dyn dyn;
    bool have_dyn;        /* its dynamic section was read (else it asks for nothing) */
    dev_t dev;
    ino_t ino;
};

/** A name the loader would find nowhere (issue 47 review): not loaded, not on any search path. */
struct cu_ldmiss {
    char *name;
    int by;  /* the object that asks (its dlopen or DT_NEEDED); -1: the program */
    int tag; /* the walk's tag at the time */
};

struct cu_ldsim {
    const struct cu_sysroot *root;
    const char *llp;              /* LD_LIBRARY_PATH, or NULL (borrowed) */
    const struct cu_ldconf *conf; /* ld.so.conf and ld.so.cache (borrowed) */
    struct cu_ldobj *v;
    size_t n, cap;
    int tag;                      /* set by the caller before each dlopen: copied into what it loads */
    bool note_misses;             /* set by the caller: the names its next dlopen calls find nowhere are noted */
    struct cu_ldmiss *miss;       /* those names, each (name, asker) once, in the order met */
    size_t n_miss;
};

/** Start an empty process (Python itself, which carries no search path of its own, is not walked). */
void cu_ldsim_init(struct cu_ldsim *s, const struct cu_sysroot *root, const char *llp, const struct cu_ldconf *conf);
void cu_ldsim_fini(struct cu_ldsim *s);

/**
 * dlopen(@what) called from object @caller (-1: Python's ctypes or its importer), and everything the loaded
 * object asks for.  @what with a '/' is a path, else a name.  Returns the object's index, or -1 when the
 * loader would find nothing (nothing changes then; with note_misses set, a name found nowhere, @what or one
 * of the DT_NEEDED of what it loads, is noted in miss[]).
 */
int cu_ldsim_dlopen(struct cu_ldsim *s, const char *what, int caller);

/** The object a request for the name @name would get now (its soname or a name it was loaded by), or -1. */
int cu_ldsim_loaded(const struct cu_ldsim *s, const char *name);

/** The object that is file @path (same device and inode), or -1. */
int cu_ldsim_file(const struct cu_ldsim *s, const char *path);

#endif /* CU_LDWALK_H */
