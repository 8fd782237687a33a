/* SPDX-License-Identifier: MIT */
/*
 * What a Python environment's wheels hold of the CUDA libraries (issue 36, 47): each soname and the file of the
 * environment that has it (nvidia/PKG/lib, and the copies a framework's own package carries), a soname held in two
 * folders, and the nvidia-* distribution whose RECORD lists each file.  Read through the machine's root; doctor's
 * walk (shadow.c) judges where the loader would take each from.
 */
#ifndef CU_ENVWHEELS_H
#define CU_ENVWHEELS_H

#include <stdbool.h>

#include "core/base/str.h"
#include "core/base/sysroot.h"

struct cu_envwheels {
    struct cu_strv sonames, paths;    /* soname -> the first file of the environment that has it */
    char *dup_soname, *dup_a, *dup_b; /* a soname found in two folders, or NULL */
    struct cu_strv owned, owner;      /* a file under site-packages -> "nvidia-cudnn-cu13 9.26.0.51" */
};

/** Read site-packages @sp (never fails: what cannot be read is left out).  cu_envwheels_fini() frees it. */
void cu_envwheels_scan(const struct cu_sysroot *root, const char *sp, struct cu_envwheels *w);
void cu_envwheels_fini(struct cu_envwheels *w);
/** The environment's file of @soname, or NULL.  Borrowed. */
const char *cu_envwheels_file(const struct cu_envwheels *w, const char *soname);
/** "nvidia-cudnn-cu12 9.10.2.21": the distribution whose RECORD lists @path, or NULL.  Borrowed. */
const char *cu_envwheels_owner(const struct cu_envwheels *w, const char *path);
/** The entries of folder @dir, sorted, leaving out those starting with a dot. */
void cu_envwheels_list_dir(const struct cu_sysroot *root, const char *dir, struct cu_strv *out);
/** Is @path inside folder @dir? */
bool cu_envwheels_under(const char *path, const char *dir);

#endif /* CU_ENVWHEELS_H */
