/* SPDX-License-Identifier: MIT */
/*
 * The CUDA libraries pip brings with a framework build (data/compat/framework_pip_libraries.csv),
 * and the CUDA that built each JAX release (its changelog): the part of the catalog that says what
 * a wheel with its own CUDA really loads.
 */
#ifndef CU_CATALOG_PIP_H
#define CU_CATALOG_PIP_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/parse.h"

/* One library a framework's wheel pulls from pip, over a range of the framework's releases. */
struct cu_cat_pip_lib {
    char *framework;                 /* "jax" */
    char *wheel;                     /* "jax-cuda12-plugin[with-cuda]" */
    int cuda_major;
    struct cu_version from, to;      /* the framework releases the row covers */
    char *package;                   /* "nvidia-cudnn-cu12" */
    char *library;                   /* "cudnn" */
    struct cu_version min, max_excl; /* the specifier; max_excl.n == 0: no upper bound */
    bool read;
    char *source;
};

/* A JAX release whose changelog names the CUDA it was built with. */
struct cu_cat_jax_built {
    struct cu_version version; /* from this release on */
    struct cu_version cuda;    /* 12.9 */
};

/* The Pythons a range of JAX releases has wheels for (jaxlib's cp tags on PyPI). */
struct cu_cat_jax_python {
    struct cu_version from, to; /* the JAX releases */
    struct cu_version min, max; /* 3.12, 3.15 */
};

struct cu_catalog_pip {
    struct cu_cat_pip_lib *libs; /* newest first per framework and major */
    size_t n_libs;
    struct cu_cat_jax_built *jax_built; /* newest first */
    size_t n_jax_built;
    struct cu_cat_jax_python *jax_python; /* newest first */
    size_t n_jax_python;
};

/** Read "pip_libraries", jax.history's "built_with" and jax.python of the catalog JSON. Errors: CU_E_INPUT. */
CU_NODISCARD enum cu_status cu_catalog_pip_parse(const json_t *root, const char *what, struct cu_catalog_pip *out,
                                                 struct cu_error *err);
void cu_catalog_pip_fini(struct cu_catalog_pip *p);

/**
 * The library row of @framework's CUDA @major wheel for @version (n == 0: the newest release known),
 * naming @library ("cudnn"), in @pip (the catalog's: &cat->pip); NULL when the data is silent.
 * Borrowed from the catalog.
 */
const struct cu_cat_pip_lib *cu_catalog_pip_lib(const struct cu_catalog_pip *pip, const char *framework, int major,
                                                const struct cu_version *version, const char *library);

/**
 * The CUDA X.Y that built JAX @version (n == 0: the newest), in @pip (the catalog's: &cat->pip); false
 * when the changelog does not say.
 */
bool cu_catalog_jax_built_with(const struct cu_catalog_pip *pip, const struct cu_version *version,
                               struct cu_version *out);

/**
 * The Pythons JAX @version has wheels for, in @pip (the catalog's: &cat->pip): *@min to *@max; false when
 * the data is silent about that release.
 */
bool cu_catalog_jax_python(const struct cu_catalog_pip *pip, const struct cu_version *version, struct cu_version *min,
                           struct cu_version *max);

#endif
