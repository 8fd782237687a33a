/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA's CUDA runfiles (10.0-11.3), read and never run.
 *
 * A runfile is a makeself archive: a shell header whose lines name the
 * payload's offset (`head -n N "$0"` or `skip="N"`) and size (`filesizes=`),
 * then a gzip'd (or xz'd) tar.  CUDA 10.0's payload holds a second makeself
 * archive, run_files/cuda-linux.10.0.130-*.run, whose payload is the
 * toolkit's tree; 10.1 and 10.2 hold the tree under builds/cuda-toolkit/,
 * 11.x one folder per component under builds/.  Beside them lie the driver,
 * the samples and the installer's scripts, which are never placed.
 *
 * The file is opened once and read once, front to back: its header and payload
 * are hashed as they are read, and the whole file's sha256 is the verdict on
 * the very bytes that were unpacked (a file renamed over the path meanwhile is
 * never read); the header must describe the file exactly (offset + sizes == the file's size, the
 * payload starting with a gzip or xz magic); the payload goes through
 * cu_extract with its every check (names, links, sizes, entry counts), each
 * member renamed to its place in the install or skipped.  A nested runfile is
 * descended into once, never further.
 */
#ifndef CU_RUNFILE_H
#define CU_RUNFILE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/unpack/extract.h"

struct cu_runfile_payload {
    uint64_t offset; /* of the payload's first byte */
    uint64_t size;   /* its bytes, to the file's end */
    bool gzip;       /* else xz */
};

/**
 * Read the makeself header in the first bytes of @head (@head_len of them, at
 * most 1 MiB is looked at) of a file of @file_size bytes.  Errors:
 * CU_E_ARCHIVE when it is not a makeself header, or its offset or sizes do
 * not describe the file.  The payload's magic is checked by the caller, who
 * holds the bytes at the offset.
 */
CU_NODISCARD enum cu_status cu_runfile_header(const char *head, size_t head_len, uint64_t file_size,
                                              const char *what, struct cu_runfile_payload *p,
                                              struct cu_error *err);

/**
 * The cudaup component a path of the toolkit's tree belongs to
 * ("lib64/libcublas.so.10.0" -> "libcublas", "bin/nvcc" -> "cuda_nvcc"), or
 * NULL for what cudaup never places from a runfile (NPP, nvGRAPH, Nsight,
 * the visual profiler, documentation, samples, demo programs).
 */
const char *cu_runfile_component(const char *tree_path);

struct cu_runfile_opts {
    const char *path;               /* the runfile */
    const char *what;               /* for messages */
    const char *sha256;             /* the whole file's, checked on the bytes unpacked */
    const char *layout;             /* "nested", "builds-toolkit" or "builds-components" */
    int dirfd;                      /* the empty staging folder */
    const char *const *components;  /* NULL-terminated; NULL: every component cudaup places */
    uint64_t max_bytes;             /* as cu_extract_opts */
    uint64_t max_entries;           /* as cu_extract_opts */
    const atomic_int *cancel;
};

/**
 * Check and unpack the toolkit's files of a runfile into o->dirfd, laid out
 * as the install (bin/, include/, lib/, nvvm/, extras/CUPTI/...).  @res lists
 * what was written (see cu_extract); res_component[i] (borrowed, static) names
 * each file's component.  Errors: CU_E_CHECKSUM (the bytes read, all of them,
 * are not the catalog's: this verdict wins over any other but a cancel),
 * CU_E_ARCHIVE, CU_E_UNSAFE_PATH, CU_E_IO, CU_E_CANCELLED, CU_E_INPUT for an
 * unknown layout.  On failure the staging folder holds whatever was written
 * (it was unpacked while it was hashed, as every archive is); the caller
 * removes it, and nothing of it is placed.
 */
CU_NODISCARD enum cu_status cu_runfile_extract(const struct cu_runfile_opts *o, struct cu_extract_result *res,
                                               const char ***res_component, struct cu_error *err);

/**
 * cu_runfile_extract into the folder @staging (emptied first, created when missing), the way the
 * toolkit transaction stages any archive.  @components: NULL-terminated, or NULL for all.
 */
CU_NODISCARD enum cu_status cu_runfile_stage(const char *path, const char *what, const char *sha256, const char *layout,
                                             const char *staging, char *const *components,
                                             const atomic_int *cancel, struct cu_extract_result *res,
                                             struct cu_error *err);

#endif /* CU_RUNFILE_H */
