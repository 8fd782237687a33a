/* SPDX-License-Identifier: MIT */
/*
 * What pip is held to beside a framework's own wheel: the torchvision and torchaudio release built for
 * each torch release ("pytorch_companions", data/compat/pytorch_companions.csv, read by
 * scripts/pytorch-companions in the companions' own wheel METADATA on PyPI), and the nvidia-* wheels of
 * each CUDA release ("cuda_wheels": which manifest component each wheel carries, data/compat/
 * cuda_wheel_components.csv, joined with NVIDIA's manifests), which a plan holds together.  Facts only.
 */
#ifndef CU_CATALOG_PINS_H
#define CU_CATALOG_PINS_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/parse.h"
#include "core/base/pipspec.h"

struct cu_cat_companion {
    struct cu_version torch;  /* 2.14.1 */
    char *package;            /* "torchvision", "torchaudio" */
    char *version;            /* "0.29.2", or NULL: none is built for that torch */
    char *requires;           /* what its wheel asks of torch: "==2.14.0", ">=2.14.0", "" */
    char *basis;              /* "pin", "matrix", "range", "none" */
    bool read;                /* false: inferred (a range's lower bound, or none built for it) */
    char *source;
};

/* One wheel of a CUDA release: "nvidia-nvjitlink" at 13.0.88. */
struct cu_cat_cuda_wheel {
    char *package;
    struct cu_version version;
    char *component; /* the manifest component it carries ("cuda_nvcc"), or NULL where the catalog does not say */
    /* Which source vouches @version (the release's "vouched_by"): false, NVIDIA's manifest of the release; true,
     * NVIDIA's cuda-toolkit metapackage of the release alone, whose pin is a version no manifest has (CUDA 13.3.0's
     * nvidia-cuda-cccl==13.3.3.3.1.*: the manifest has no cuda_cccl from 13.3 on). */
    bool by_toolkit;
};

struct cu_cat_cuda_release {
    struct cu_version release;     /* 13.0.3 */
    char *runtime;                 /* the runtime's wheel: "nvidia-cuda-runtime" */
    struct cu_cat_cuda_wheel *wheels;
    size_t n;
    /* Wheels whose row disagreed with the manifests in too many releases to say which release a pin belongs
     * to, but whose version in this release is vouched, by the manifest (CUDA 13.0-13.2's nvidia-cuda-cccl) or
     * by cuda-toolkit's own pin (13.3 on, by_toolkit) ("toolkit_only"): a plan holds them with the family,
     * --toolkit wheels may name them. */
    struct cu_cat_cuda_wheel *toolkit_only;
    size_t n_toolkit_only;
    /* Wheels of the family that no source vouches a version of in this release: cuda-toolkit's pin is not the
     * manifest's, and is another release's version or a bound ("unheld"); package and component, version zero. */
    struct cu_cat_cuda_wheel *unheld;
    size_t n_unheld;
};

struct cu_catalog_pins {
    struct cu_cat_companion *companions; /* newest torch first */
    size_t n_companions;
    struct cu_cat_cuda_release *cuda; /* newest first */
    size_t n_cuda;
};

/** Read "pytorch_companions" and "cuda_wheels" (both optional) of the catalog JSON. Errors: CU_E_INPUT. */
CU_NODISCARD enum cu_status cu_catalog_pins_parse(const json_t *root, const char *what, struct cu_catalog_pins *out,
                                                  struct cu_error *err);
void cu_catalog_pins_fini(struct cu_catalog_pins *p);

/**
 * The row of companion @package for torch @torch: its exact release (2.14.1), or for a minor (2.14) the row
 * of the newest release of that minor the table has.  NULL when the table has no row for it (a torch
 * release it does not know).  A row whose version is NULL says that none is built for it.  Borrowed.
 */
const struct cu_cat_companion *cu_catalog_companion(const struct cu_catalog_pins *p, const char *package,
                                                    const struct cu_version *torch);

/** The row of the newest torch release that has a release of @package built for it (what a sentence names
 *  instead), or NULL when the table has none. Borrowed. */
const struct cu_cat_companion *cu_catalog_companion_newest(const struct cu_catalog_pins *p, const char *package);

/** Is @package a wheel of some CUDA release the catalog knows (the CUDA family)? */
bool cu_catalog_cuda_wheel_known(const struct cu_catalog_pins *p, const char *package);

/** The release @package has in CUDA release @c, or NULL when it has none there. Borrowed. */
const struct cu_version *cu_catalog_cuda_wheel_version(const struct cu_cat_cuda_release *c, const char *package);

/**
 * The CUDA release whose wheels are the ones held: the newest whose wheel of each @pkgs[i] satisfies
 * @specs[i] for every i (@n of them, each a wheel of the CUDA family), or, where none agrees with all of
 * them, the newest whose runtime wheel satisfies the runtime's spec among them.  NULL when none does
 * (or the runtime is not among them).  *@all (may be NULL) is set when the release agrees with every one.
 * Borrowed.
 */
const struct cu_cat_cuda_release *cu_catalog_cuda_release_held(const struct cu_catalog_pins *p, const char *const *pkgs,
                                                               const struct cu_pipspec *const *specs, size_t n,
                                                               bool *all);

#endif
