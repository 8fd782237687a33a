/* SPDX-License-Identifier: MIT */
/*
 * Frameworks already installed in the machine's Python environments, read
 * from what the packages install (no import, no Python run), and judged
 * against the GPUs and the driver by the rules the resolver plans by:
 * PyTorch's torch/version.py (its version with the +cuXYZ tag, its CUDA),
 * TensorFlow's tensorflow/python/platform/build_info.py (CUDA, cuDNN and the
 * GPU code it was built for), JAX's dist-info folders (jax, its CUDA plugin).
 * Where the package does not say which GPU code it holds, the catalog does.
 */
#ifndef CU_FWENV_H
#define CU_FWENV_H

#include <jansson.h>
#include <stdbool.h>

#include "core/catalog/catalog.h"
#include "core/doctor/doctor.h"
#include "core/machine/sysinfo.h"
#include "core/base/sysroot.h"

struct cu_fwenv {
    char *path;        /* the environment's folder, as the machine names it */
    char *framework;   /* "pytorch", "tensorflow", "jax" */
    char *version;     /* "2.8.0+cu128", "2.20.0" */
    char *cuda_build;  /* "12.8", or NULL (unknown, or a CPU-only build) */
    char *cudnn_build; /* "9" (TensorFlow), or NULL */
    char *tag;         /* cu128, cuda12, or NULL */
    bool cpu_only;     /* the build has no CUDA at all */
    bool bundled;      /* brings its own CUDA runtime (PyTorch, jax-cudaNN-plugin, nvidia-* pip packages) */
    bool code_read;    /* the GPU code below was read in the package itself or a `read` catalog row */
    char *code_source; /* "build_info.py", or the catalog row's source; NULL when unknown */
    int *sass, *ptx;   /* the GPU code (sm numbers); both empty when unknown */
    size_t n_sass, n_ptx;
    char *cudnn_wheel; /* the environment's nvidia-cudnn-cuNN release ("9.10.2.21"), or NULL */
    int cudnn_major;   /* its CUDA major (the NN) */
    bool held;         /* the environment holds pip on its build (ENV/cudaup-constraints.txt, installers/pyhold.h) */
};

struct cu_fwenvs {
    struct cu_fwenv *v;
    size_t n;
};

/**
 * Find the environments holding PyTorch, TensorFlow or JAX: the conda base and its
 * envs/ (from @f's conda), $CONDA_PREFIX and $VIRTUAL_ENV, read through @root.
 * @out must be zeroed (or hold earlier finds, which are kept).
 */
void cu_fwenvs_scan(const struct cu_sysroot *root, const struct cu_facts *f, const struct cu_catalog *cat,
                    const char *const *envp, struct cu_fwenvs *out);

/** Look in one more environment folder (the one cudaup recorded), unless it was seen already. */
void cu_fwenvs_add(const struct cu_sysroot *root, const struct cu_catalog *cat, const char *env,
                   struct cu_fwenvs *out);
void cu_fwenvs_fini(struct cu_fwenvs *e);

/**
 * Append what keeps each framework off the GPU here: framework-no-gpu-code (a
 * CPU-only build, or no code for a GPU's compute capability; the message names the
 * last release with code for it, core/catalog/cliff.h), framework-driver-too-old,
 * framework-cudnn-mismatch (TensorFlow against the cuDNN of the CUDA it would load),
 * and cudnn-drops-gpu: a cuDNN whose support matrix does not list a GPU here, the
 * environment's nvidia-cudnn-cuNN wheel (when its framework has code for the GPU) or
 * a CUDA install's, naming the last cuDNN that does.
 * Each fix is the `cudaup install ...` that gives a build which runs here.
 */
void cu_fwenvs_check(const struct cu_fwenvs *e, const struct cu_facts *f, const struct cu_catalog *cat,
                     const char *const *envp, struct cu_problems *out);

/** The doctor document's "framework_envs" array. */
json_t *cu_fwenvs_json(const struct cu_fwenvs *e, const struct cu_facts *f);

#endif /* CU_FWENV_H */
