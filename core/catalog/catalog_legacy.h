/* SPDX-License-Identifier: MIT */
/*
 * The catalog's "legacy" section (data/legacy/, see its SOURCES.md): the CUDA
 * 10.0-11.3 runfiles and cuDNN 7.4-8.2 .tgz files pinned by URL and sha256,
 * the TensorFlow 1.13-2.4 stacks that need them, the pins that keep those
 * importable, and NVIDIA's own TF1 build for newer GPUs.
 */
#ifndef CU_CATALOG_LEGACY_H
#define CU_CATALOG_LEGACY_H

#include <jansson.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/base/parse.h"

struct cu_cat_legacy_cuda {
    struct cu_version version; /* 10.0.130 */
    char *url, *path, *file;   /* upstream; relative to compute/ (a mirror's layout); the file name */
    uint64_t size;             /* 0: not published, the sha256 alone decides */
    char sha256[65];
    struct cu_version driver;  /* the oldest driver it runs on */
    int *sm;                   /* compute capabilities it builds for (52 for 5.2) */
    size_t n_sm;
    char *layout;              /* "nested", "builds-toolkit", "builds-components" */
    char *sources;             /* the two that pin the sha256, "; "-joined */
};

struct cu_cat_legacy_cudnn {
    struct cu_version version;            /* 7.6.5 */
    char *full;                           /* 7.6.5.32 */
    char *variant;                        /* "10.0": the CUDA it was built for */
    struct cu_version cuda_min, cuda_max; /* the CUDA X.Y it serves */
    char *url, *path, *file;
    uint64_t size;
    char sha256[65];
    char *sources;
};

struct cu_cat_legacy_tf {
    struct cu_version from, to; /* the releases the row covers */
    struct cu_version version;  /* the one planned when a minor is asked for (the last) */
    char *pip;                  /* tensorflow-gpu, tensorflow */
    struct cu_version cuda, cudnn;      /* X.Y each */
    struct cu_version py_min, py_max, py_plan;
    int *sass, *ptx;
    size_t n_sass, n_ptx;
    char *keras;                /* "keras==2.2.4", or NULL */
    char **pins;                /* NULL-terminated pip specs */
    char *source, *confidence;
};

struct cu_cat_legacy_nvtf {
    char *pip, *version, *index_url; /* nvidia-tensorflow 1.15.5+nv23.03 */
    struct cu_version python, cc_min;
    char *source;
};

struct cu_cat_legacy {
    struct cu_cat_legacy_cuda *cuda; /* newest first */
    size_t n_cuda;
    struct cu_cat_legacy_cudnn *cudnn; /* newest first */
    size_t n_cudnn;
    struct cu_cat_legacy_tf *tf; /* newest first */
    size_t n_tf;
    struct cu_cat_legacy_nvtf *nvtf;
    size_t n_nvtf;
};

/** Read @section ("legacy" of catalog.json); CU_E_INPUT naming @what when malformed. Caller frees. */
CU_NODISCARD enum cu_status cu_cat_legacy_parse(const json_t *section, const char *what, struct cu_cat_legacy **out,
                                                struct cu_error *err);
void cu_cat_legacy_free(struct cu_cat_legacy *l);

/** The runfile of CUDA X.Y @mm (10.0), or NULL. */
const struct cu_cat_legacy_cuda *cu_cat_legacy_cuda(const struct cu_cat_legacy *l, const struct cu_version *mm);
/** The TensorFlow row covering @v (1.14, 1.15.2), or NULL. */
const struct cu_cat_legacy_tf *cu_cat_legacy_tf(const struct cu_cat_legacy *l, const struct cu_version *v);

#endif /* CU_CATALOG_LEGACY_H */
