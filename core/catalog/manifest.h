/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA redistrib manifests (redistrib_VER.json), parsed and checked.
 *
 * Everything that later becomes a URL or a file name is validated here:
 * package keys, relative paths, sizes and sha256 values.  A manifest with one
 * malformed artifact is refused whole (CU_E_INPUT), naming the package and
 * the field: a bad path, hash or size is damage, not a new shape.  A shape
 * cudaup does not know (a package or platform entry that is not an object, a
 * level that is neither an artifact nor a cudaNN[.M] variant, an empty entry)
 * is left out with a note (the log's info level, and the package's skipped[]),
 * so that NVIDIA's next shape never refuses a plan that does not need it, and
 * a plan that does names why it is missing.
 */
#ifndef CU_MANIFEST_H
#define CU_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/base/parse.h"

enum cu_product {
    CU_PRODUCT_CUDA,
    CU_PRODUCT_CUDNN,
    CU_PRODUCT_PYTHON, /* a relocatable CPython cudaup brings; not in NVIDIA's manifests */
};

struct cu_artifact {
    char *platform;      /* "linux-x86_64" */
    char *variant;       /* "12" for cuDNN's cuda12 level, "13.2" for cuda_compat's cuda13.2, NULL when flat */
    char *relative_path; /* checked: relative, no "..", no scheme, ends in .tar.xz */
    char sha256[65];     /* lower-case hex */
    uint64_t size;
};

struct cu_package {
    char *key;     /* "cuda_cudart"; checked: [A-Za-z0-9_.+-], not "." or ".." */
    char *name;    /* "CUDA Runtime (cudart)" or NULL */
    char *version; /* "12.4.127" or NULL */
    struct cu_artifact *artifacts;
    size_t n_artifacts;
    struct cu_skipped {
        char *platform; /* NULL: the whole package */
        char *note;     /* one sentence, for the log and a refusal */
    } *skipped;         /* entries of a shape cudaup does not know, left out */
    size_t n_skipped;
};

struct cu_manifest {
    enum cu_product product;
    char *label;        /* the version of the file name: 12.4.1 */
    char *release_date; /* or NULL */
    struct cu_package *packages;
    size_t n_packages;
    char sha256[65];    /* of the manifest bytes */
};

/**
 * Parse @len bytes of the manifest for @label of @product.  The top-level
 * release_label, when present, must equal @label (an older manifest served
 * under a newer name is refused).  Caller owns *out (cu_manifest_free).
 */
CU_NODISCARD enum cu_status cu_manifest_parse(enum cu_product product, const char *label,
                                              const char *data, size_t len,
                                              struct cu_manifest **out, struct cu_error *err);
void cu_manifest_free(struct cu_manifest *m);

const struct cu_package *cu_manifest_package(const struct cu_manifest *m, const char *key);
/** The artifact of @pkg for @platform and @variant (NULL for CUDA packages). */
const struct cu_artifact *cu_package_artifact(const struct cu_package *pkg, const char *platform,
                                              const char *variant);

/** Why @pkg's entry for @platform was left out (a shape cudaup does not know), or NULL. Borrowed. */
const char *cu_package_skip_note(const struct cu_package *pkg, const char *platform);

/** "cuda" or "cudnn": the folder under the base URL. */
const char *cu_product_name(enum cu_product p);

/** True when @path is safe to append to a base URL and to use as a cache name. */
bool cu_manifest_path_ok(const char *path);
/** True when @s is 64 hex digits (either case). */
bool cu_sha256_hex_ok(const char *s);

#endif /* CU_MANIFEST_H */
