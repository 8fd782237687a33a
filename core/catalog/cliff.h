/* SPDX-License-Identifier: MIT */
/*
 * The cliff of a GPU generation: for one compute capability, the last release of each part of the stack that
 * still serves it -- the driver branch that drives it (driver_generations.csv), the CUDA release that builds for
 * it (the arch table), the cuDNN release whose support matrix lists it (with its CUDA variant), and the
 * framework builds with code for it (the GPU-code tables, read or inferred) -- each computed from the catalog,
 * never typed.  The seed's GTX 970 (5.2) stops at driver 580, CUDA 12.9, cuDNN 9.10.2 for CUDA 12, PyTorch 2.14
 * (cu126), TensorFlow 2.16.2 and JAX 0.12.0.1 (cuda12).  Facts only: pure functions of the catalog, any thread.
 */
#ifndef CU_CLIFF_H
#define CU_CLIFF_H

#include <stdbool.h>

#include "core/base/parse.h"

struct cu_catalog;

/* What the table rests on, for a reason's provenance. */
#define CU_CLIFF_SOURCE "core/catalog/cliff.c over data/driver/driver_generations.csv, cuda_arch_support.csv, " \
                        "cudnn_support_matrix.csv, pytorch_gpu_code.csv (with shared pytorch_wheel_arch.csv), " \
                        "tensorflow_gpu_code.csv and jax_gpu_code.csv"

/* The last release of one part that serves the compute capability. */
struct cu_cliff_part {
    bool known;              /* false: nothing the catalog knows of this part serves it (or the data is silent) */
    bool current;            /* the newest release the catalog knows serves it too: nothing has dropped it yet */
    struct cu_version version; /* the driver branch (580), CUDA X.Y, cuDNN X.Y.Z, the framework's release (a
                                * PyTorch minor: 2.14; TensorFlow and JAX: the newest release of the row) */
    struct cu_version release; /* the newest release of @version the catalog knows (CUDA 12.9.1, PyTorch 2.14.1),
                                * or n == 0 */
    struct cu_version newest;  /* the newest the catalog knows of this part (what dropped it, when !current) */
    int major;               /* cuDNN: its CUDA variant (12); JAX: the plugin's CUDA major; else 0 */
    char tag[16];            /* PyTorch's build ("cu126"), or "" */
    bool read;               /* what says so was read (false: inferred) */
    const char *source;      /* the data row's source (borrowed from the catalog), or NULL */
};

enum cu_cliff_fw { CU_CLIFF_PYTORCH, CU_CLIFF_TENSORFLOW, CU_CLIFF_JAX, CU_CLIFF_N_FW };

struct cu_cliff {
    struct cu_version cc;
    const char *generation;  /* "Maxwell/Pascal/Volta" (driver_generations.csv), or NULL */
    struct cu_cliff_part driver, cuda, cudnn;
    struct cu_cliff_part fw[CU_CLIFF_N_FW];
};

/** The cliff of compute capability @cc (n >= 2) from @cat.  Never fails: a part the data is silent on is !known. */
void cu_cliff_for(const struct cu_catalog *cat, const struct cu_version *cc, struct cu_cliff *out);

/** Has some part (driver, CUDA, cuDNN or a framework) left @c's GPUs behind: a known part that is not current? */
bool cu_cliff_dropped(const struct cu_cliff *c);

/** "pytorch", "tensorflow", "jax" of @fw. Static. */
const char *cu_cliff_fw_name(enum cu_cliff_fw fw);

/** The framework part of @c for framework @name ("pytorch", "tensorflow", "jax"), or NULL. Borrowed. */
const struct cu_cliff_part *cu_cliff_framework(const struct cu_cliff *c, const char *name);

/**
 * One translated phrase naming @part of framework @name: "PyTorch 2.14 (cu126, 2.14.1)", "TensorFlow 2.16.2",
 * "JAX 0.12.0.1 (cuda12)".  Caller frees.
 */
char *cu_cliff_fw_text(const char *name, const struct cu_cliff_part *part);

/**
 * The cliff in one translated sentence for GPU @who ("GPU 0 (GeForce GTX 1080, compute capability 6.1)"): what
 * left it behind and the last release of each part that serves it.  NULL when nothing has dropped it.  Caller
 * frees.
 */
char *cu_cliff_describe(const struct cu_cliff *c, const char *who);

#endif /* CU_CLIFF_H */
