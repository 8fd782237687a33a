/* SPDX-License-Identifier: MIT */
/*
 * The line that shows a framework sees the GPU, per release (data/compat/framework_gpu_check.csv):
 * what an install's closing text and the wizard's Done screen give the user to try.  The call
 * changed over a framework's life (TensorFlow 1.x has no tf.config.list_physical_devices), so each
 * row holds from its release up to the next row's.
 */
#ifndef CU_FWCHECK_H
#define CU_FWCHECK_H

#include <jansson.h>

#include "core/base/error.h"
#include "core/base/parse.h"

struct cu_cat_gpu_check {
    char *framework;       /* "tensorflow" */
    struct cu_version from; /* the first release it holds for */
    char *python;          /* the Python statement: "import torch; print(torch.cuda.is_available())" */
    char *source;
};

struct cu_catalog_gpu_checks {
    struct cu_cat_gpu_check *v; /* newest first per framework */
    size_t n;
};

/** Read "gpu_check" of the catalog JSON (absent: none). Errors: CU_E_INPUT. */
CU_NODISCARD enum cu_status cu_catalog_gpu_checks_parse(const json_t *root, const char *what,
                                                        struct cu_catalog_gpu_checks *out, struct cu_error *err);
void cu_catalog_gpu_checks_fini(struct cu_catalog_gpu_checks *c);

/**
 * The row for @framework @version ("1.14.0"; NULL or unparsable: the newest release), or NULL when
 * the data is silent.  Borrowed from the catalog.
 */
const struct cu_cat_gpu_check *cu_catalog_gpu_check(const struct cu_catalog_gpu_checks *c, const char *framework,
                                                    const char *version);

#endif
