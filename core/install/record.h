/* SPDX-License-Identifier: MIT */
/*
 * The install record, PREFIX/cuda-X.Y/.cudaup/record.json: the versions,
 * the components with their archive's sha256, and every file with its size,
 * mode and sha256.  repair, verify and uninstall work from it.
 */
#ifndef CU_RECORD_H
#define CU_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/error.h"
#include "core/catalog/manifest.h"
#include "core/base/parse.h"

struct cu_record_component {
    char *name;
    enum cu_product product;
    char *version;
    char *title;     /* the manifest's name for it, or NULL */
    char sha256[65]; /* of the archive */
    uint64_t size;
    char *url;
    char *runfile_layout; /* a CUDA runfile's (core/unpack/runfile.h), or NULL */
    char *archive_layout; /* a brought Python's "full" archive (core/unpack/pyarchive.h), or NULL */
    bool size_unknown;    /* @size is the most accepted: the source publishes none */
    bool from_base;       /* @url lies under the mirror's base as on NVIDIA's server, not BASE/PRODUCT/redist */
};

struct cu_record_file {
    char *path;      /* relative to the install folder */
    char type;       /* 'f', 'l', 'd' */
    mode_t mode;
    uint64_t size;
    char sha256[65];
    char *target;    /* links */
    char *component; /* which component brought it; "cudaup" for our own files */
};

struct cu_record {
    char *cuda_version;  /* 12.4.1; NULL in a Python's record */
    char *python_version; /* 3.11.16 in the record of a Python cudaup brought, else NULL */
    char *platform;
    char *cudnn_version; /* 9.14.0, or NULL */
    char *cudnn_full;
    char *cudnn_variant;
    char *mirror;
    char *created;
    struct cu_record_component *components;
    size_t n_components;
    struct cu_record_file *files;
    size_t n_files;
};

struct cu_record *cu_record_new(void);
void cu_record_free(struct cu_record *r);

/** Read DIR/.cudaup/record.json. Errors: CU_E_NOT_FOUND, CU_E_INPUT (malformed), CU_E_IO. */
CU_NODISCARD enum cu_status cu_record_load(const char *install_dir, struct cu_record **out,
                                           struct cu_error *err);
/** The same for the record of a Python cudaup brought (its "python" in place of "cuda"). */
CU_NODISCARD enum cu_status cu_record_load_python(const char *install_dir, struct cu_record **out,
                                                  struct cu_error *err);
/** Write it atomically into DIR/.cudaup/record.json. */
CU_NODISCARD enum cu_status cu_record_save(const struct cu_record *r, const char *install_dir,
                                           struct cu_error *err);

const struct cu_record_component *cu_record_component(const struct cu_record *r, const char *name);
/** Is every file of @component there in @dir as recorded (sizes and modes)? */
bool cu_record_component_intact(const struct cu_record *r, const char *dir, const char *component);
/**
 * Which of @n archives (@components with their @sha256s) the install in @dir already holds, intact:
 * sets @installed[i]; returns how many.  0 when @dir has no record.
 */
size_t cu_record_installed(const char *dir, const char *const *components, const char *const *sha256, size_t n,
                           bool *installed);

enum cu_file_state {
    CU_FILE_OK,
    CU_FILE_MISSING,
    CU_FILE_ALTERED, /* size, type, target or (deep) content differ */
    CU_FILE_MODE,    /* only the mode differs */
};

/**
 * Compare one recorded file with the disk.  @deep re-hashes file contents;
 * otherwise type, size, mode and link targets are compared (lstat only).
 */
enum cu_file_state cu_record_check_file(const char *install_dir, const struct cu_record_file *f, bool deep);

/** Component names (NULL-terminated, caller frees) that own a missing or altered file. */
char **cu_record_damaged(const struct cu_record *r, const char *install_dir, bool deep, size_t *n_bad);

#endif /* CU_RECORD_H */
