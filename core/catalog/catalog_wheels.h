/* SPDX-License-Identifier: MIT */
/*
 * What each framework release's wheel asks pip for (data/compat/framework_wheel_requires.csv, built
 * into the catalog's "framework_wheels"): the nvidia-* distributions and their specifiers, as pip
 * installs them, per release; and the cuDNN wheels PyPI holds ("cudnn_wheels",
 * data/compat/nvidia_cudnn_wheels.csv).  What a multi-framework plan checks one framework's pins
 * against another's with.
 */
#ifndef CU_CATALOG_WHEELS_H
#define CU_CATALOG_WHEELS_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/parse.h"
#include "core/base/pipspec.h"
#include "core/catalog/catalog_pins.h"

struct cu_cat_wheel_req {
    char *package;        /* "nvidia-cudnn-cu12", normalized */
    char *text;           /* "<10.0,>=9.3.0.75", "" for any */
    struct cu_pipspec spec;
};

struct cu_cat_fw_wheel {
    char *framework;      /* "pytorch", "tensorflow", "jax" */
    struct cu_version version;
    char *extra;          /* "", "and-cuda", "cuda12" */
    char *pip;            /* the requirement that installs it: "torch==2.10.0", "jax[cuda12]==0.12.0.1" */
    int cuda_major;
    struct cu_version build_cuda; /* the CUDA X.Y of its runtime pin (torch), n == 0 when it gives a range */
    char *tag;            /* "cu128" (torch: the build on PyTorch's index), "cuda12" (jax), or NULL */
    struct cu_cat_wheel_req *req;
    size_t n_req;
    bool read;
    char *source;
};

struct cu_cat_cudnn_wheels {
    char *package;              /* "nvidia-cudnn-cu12" */
    struct cu_version *versions; /* newest first */
    size_t n;
    char *source;
};

struct cu_catalog_wheels {
    struct cu_cat_fw_wheel *fw; /* per framework newest first */
    size_t n_fw;
    struct cu_cat_cudnn_wheels *cudnn;
    size_t n_cudnn;
    struct cu_catalog_pins pins; /* the companions of each torch release, the wheels of each CUDA release */
};

/** Read "framework_wheels" and "cudnn_wheels" (both optional) of the catalog JSON, and what catalog_pins.h
 *  reads. Errors: CU_E_INPUT. */
CU_NODISCARD enum cu_status cu_catalog_wheels_parse(const json_t *root, const char *what, struct cu_catalog_wheels *out,
                                                    struct cu_error *err);
void cu_catalog_wheels_fini(struct cu_catalog_wheels *w);

/** The requirement of @w on @package, or NULL when it asks nothing of it. Borrowed. */
const struct cu_cat_wheel_req *cu_fw_wheel_req(const struct cu_cat_fw_wheel *w, const char *package);

/** The releases of cuDNN wheel @package ("nvidia-cudnn-cu12") PyPI holds, or NULL. Borrowed. */
const struct cu_cat_cudnn_wheels *cu_catalog_cudnn_wheels(const struct cu_catalog_wheels *w, const char *package);

/** The newest release of @package that some wheel read pins exactly (==X), so PyPI held it when that
 *  wheel was read, among those @within admits (NULL: any).  False when no wheel pins one; @by (may be
 *  NULL) gets the wheel that pins it. */
bool cu_catalog_wheels_known(const struct cu_catalog_wheels *w, const char *package, const struct cu_pipspec *within,
                             struct cu_version *out, const struct cu_cat_fw_wheel **by);

/** The wheel of @framework release @version with tag @tag ("cuda12"), or, @version NULL or empty, the
 *  newest of that framework and tag.  NULL when none was read. Borrowed. */
const struct cu_cat_fw_wheel *cu_catalog_fw_wheel(const struct cu_catalog_wheels *w, const char *framework,
                                                  const char *tag, const struct cu_version *version);

#endif
