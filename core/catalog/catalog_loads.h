/* SPDX-License-Identifier: MIT */
/*
 * What each framework asks the dynamic loader for, as recorded from its real wheels (issue 47;
 * data/compat/framework_loads.csv, cuda_lib_loads.csv and framework_runtime_checks.csv, built into the
 * catalog's "framework_loads", "cuda_lib_loads" and "framework_runtime_checks"): per framework release and
 * CUDA major, its dlopen() calls in order (by a path under site-packages, or by a name the loader searches),
 * each with the object that calls it and the stage it happens at (import; use: its first calls before GPU
 * work; gpu: GPU work); what NVIDIA's libraries dlopen by name on GPU work (cuDNN's sub-libraries, NVRTC's
 * builtins); and the versions each framework holds the libraries it loaded to, by its own rule.  Facts only:
 * doctor's walk (core/doctor/shadow.c) and verify's judge use them.
 */
#ifndef CU_CATALOG_LOADS_H
#define CU_CATALOG_LOADS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"
#include "core/base/parse.h"

enum cu_load_stage { CU_LOAD_IMPORT, CU_LOAD_USE, CU_LOAD_GPU };

/** One dlopen() a framework makes. */
struct cu_cat_load {
    enum cu_load_stage stage;
    char *caller;  /* "python" (Python's importer or ctypes), "soname:NAME" (the loaded library of that soname),
                    * or a path under site-packages ("jax_plugins/xla_cuda13/xla_cuda_plugin.so") */
    bool by_path;  /* dlopen of a file under site-packages (a glob: "torch/_C.cpython-*.so"); else of a name */
    char *target;
};

/** The dlopen() calls of one framework release. */
struct cu_cat_fw_loads {
    char *framework;            /* "pytorch", "tensorflow", "jax" */
    struct cu_version version;  /* the release traced */
    int cuda_major;             /* of its CUDA wheels; 0 when none */
    struct cu_cat_load *v;
    size_t n;
    bool read;                  /* every row read (traced, or read in the wheel), none inferred */
    char *source;
};

/** A name an NVIDIA library dlopens on GPU work. */
struct cu_cat_lib_load {
    char *caller;               /* its soname: "libcudnn_graph.so.9" */
    char *package;              /* the wheel it was read in: "nvidia-cudnn-cu12" */
    struct cu_version version;  /* of that wheel */
    char *target;               /* "libcudnn_engines_precompiled.so.9" */
};

/** A minimum a framework holds a library it loaded to. */
struct cu_cat_runtime_check {
    char *framework;
    struct cu_version from, to; /* the releases it was read in (to.n == 0: and on) */
    int cuda_major;             /* 0: any */
    char *component;            /* "cuBLAS", "cuDNN", "CUDA", ... as the framework names it */
    char *rule;                 /* "min" (loaded >= minimum), "build" (loaded >= build / scale, JAX's arithmetic),
                                 * "same-major", "same-major-minor-at-least" */
    long scale, minimum;
    bool read;
    char *source;
};

struct cu_catalog_loads {
    struct cu_cat_fw_loads *fw;   /* per framework, newest release first */
    size_t n_fw;
    struct cu_cat_lib_load *libs;
    size_t n_libs;
    struct cu_cat_runtime_check *checks;
    size_t n_checks;
};

/** Read the three tables (each optional) of the catalog JSON.  Errors: CU_E_INPUT. */
CU_NODISCARD enum cu_status cu_catalog_loads_parse(const json_t *root, const char *what, struct cu_catalog_loads *out,
                                                   struct cu_error *err);
void cu_catalog_loads_fini(struct cu_catalog_loads *l);

/**
 * The recorded dlopen() calls for @framework release @version with CUDA @cuda_major wheels: that release's, else
 * the newest recorded one older than it, else the oldest newer one (*@exact false then: the calls are inferred
 * from a neighbour).  NULL when none of that framework and CUDA major is recorded.
 */
const struct cu_cat_fw_loads *cu_catalog_fw_loads(const struct cu_catalog_loads *l, const char *framework,
                                                  const struct cu_version *version, int cuda_major, bool *exact);

/**
 * The rows of @caller's library read in wheel @package at exactly @version: never another wheel's (another
 * CUDA family: nvidia-cudnn-cu13's names libcublasLt.so.13 where -cu12's names .so.12) nor another release's, as
 * the data vouches for no stand-in.  0 where none is recorded (or @package or @version is not known): then
 * nothing is predicted for that library, and the caller says so.  Fills @out with up to @max borrowed pointers.
 */
size_t cu_catalog_lib_loads(const struct cu_catalog_loads *l, const char *caller, const char *package,
                            const struct cu_version *version, const struct cu_cat_lib_load **out, size_t max);

/**
 * The rules @framework @version (CUDA @cuda_major; 0: any) holds @component ("cuBLAS", "cuDNN") to: every row whose
 * releases hold @version, and where none read for its own releases does, the nearest such row of an older release
 * (a rule carries forward, never back to releases before the one it was read in).  Fills @out with up to @max borrowed pointers; returns how many.
 */
size_t cu_catalog_runtime_checks(const struct cu_catalog_loads *l, const char *framework, const struct cu_version *version,
                                 int cuda_major, const char *component, const struct cu_cat_runtime_check **out,
                                 size_t max);

#endif /* CU_CATALOG_LOADS_H */
