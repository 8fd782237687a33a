/* SPDX-License-Identifier: MIT */
/*
 * Inside the containers stage, bottom up: the record of what cudaup changed (ctr_record.c), the machine's facts and
 * the plan (ctr_prepare.c), the steps carried out (ctr_install.c), their undoing and repair (ctr_uninstall.c).  Not
 * for other folders.
 */
#ifndef CU_INST_CTR_INT_H
#define CU_INST_CTR_INT_H

#include <jansson.h>
#include <stdbool.h>

#include "containers.h"
#include "core/resolve/containers.h"

#define CTR_RECORD "containers.json"
#define CTR_REPO_DIR "containers" /* STATE/containers/: NVIDIA's repository, in the driver stage's record */
#define CTR_BACKUP ".cudaup-bak"
#define CTR_ASIDE ".cudaup-disabled"

/* One file cudaup wrote or set aside. */
struct ctr_file {
    char *path;      /* as the machine sees it */
    char *kind;      /* docker, containerd-root, containerd-dropin, crio-dropin, toolkit-config, unit, cdi, set-aside */
    char *engine;    /* or NULL */
    char *backup;    /* where the old file was kept (path + .cudaup-bak), or NULL when there was none */
    char *sha256;    /* of what cudaup wrote (NULL for set-aside, cdi) */
    bool cdi_added;  /* docker: features.cdi was cudaup's */
    bool import_added; /* containerd-root: the drop-in's import was cudaup's */
};

struct ctr_rec {
    char *manager;          /* apt, dnf, zypper */
    char *toolkit;          /* the release installed, or NULL */
    struct cu_strv packages;/* what its steps newly installed */
    struct cu_strv held;    /* what it held */
    struct ctr_file *files;
    size_t n_files;
    struct cu_strv units;   /* the units it enabled */
};

void ctr_rec_init(struct ctr_rec *r);
void ctr_rec_fini(struct ctr_rec *r);
bool ctr_rec_empty(const struct ctr_rec *r);

/**
 * Read STATE/containers.json: input like any other (cu_read_record), each path one cudaup writes (the engines'
 * files, the toolkit's, its unit, the CDI spec, a containerd or CRI-O drop-in it set aside, a user's daemon.json under
 * HOME), each package name the manager's syntax, each unit one it enables.  *exists false when there is none.
 * Errors: CU_E_INPUT (naming what), CU_E_UNSAFE_PATH, CU_E_IO.
 */
CU_NODISCARD enum cu_status ctr_rec_load(const char *state_dir, const char *const *envp, struct ctr_rec *r, bool *exists,
                                         struct cu_error *err);
/** Write it (removed when empty). Errors: CU_E_IO. */
CU_NODISCARD enum cu_status ctr_rec_save(const char *state_dir, const struct ctr_rec *r, struct cu_error *err);

/** The record's entry of @path, made when missing. */
struct ctr_file *ctr_rec_file(struct ctr_rec *r, const char *path, const char *kind);

/** Is @path one cudaup may write or set aside (the record's check)?  @home: HOME, for a rootless Docker's file. */
bool ctr_path_ok(const char *path, const char *kind, const char *home);

/**
 * The packages installed under the root as "name=version" (dpkg-query or rpm, through the runner); @manager NULL:
 * dpkg where the root has its database, else rpm.  Errors: the query's.
 */
CU_NODISCARD enum cu_status ctr_installed(const struct cu_sys *s, const char *manager, struct cu_strv *out, struct cu_error *err);

/** Does the root list NVIDIA's CUDA repository among its package sources already (apt, yum, zypp)? */
bool ctr_nvidia_repo(const struct cu_sys *s);

/** The sha256 of @text, hex. */
void ctr_sha256(const char *text, char out[65]);

#endif /* CU_INST_CTR_INT_H */
