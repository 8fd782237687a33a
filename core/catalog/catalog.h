/* SPDX-License-Identifier: MIT */
/*
 * The compatibility catalog: data/catalog.json, embedded at build time and
 * turned into plain read-only structs when loaded.  Built by scripts/gen-catalog
 * from the tables in shared/data; see that script for where each field comes from.
 *
 * All pointers returned by the lookup functions are borrowed from the catalog
 * and live until cu_catalog_free().  The catalog is never modified after load,
 * so any thread may read it.
 */
#ifndef CU_CATALOG_H
#define CU_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/catalog/catalog_loads.h"
#include "core/catalog/catalog_pip.h"
#include "core/catalog/catalog_wheels.h"
#include "core/catalog/fwcheck.h"
#include "core/base/error.h"
#include "core/base/parse.h"

struct cu_drv_data;
struct cu_ctk_data;

struct cu_cat_gpu {
    uint16_t device; /* PCI device id, vendor 10de */
    char *name;      /* "GeForce RTX 4090" */
    char *chip;      /* "AD102" or NULL */
    struct cu_version cc; /* n == 0 when unknown */
};

struct cu_cat_product {
    char *name; /* as NVIDIA writes it: "NVIDIA H100", "GeForce RTX 4090" */
    char *arch;
    struct cu_version cc;
};

struct cu_cat_chip {
    char *chip;
    char *arch;
    struct cu_version cc;
};

struct cu_cat_cuda {
    struct cu_version version; /* 12.4.1 */
    char *label;               /* "CUDA 12.4 Update 1" */
    struct cu_version driver;  /* minimum Linux x86_64 driver; n == 0 when unknown */
    bool driver_unknown;       /* no source gives it (not inherited from a release of its minor either) */
    bool archives;             /* NVIDIA publishes redistributable archives for it */
    char *manifest_sha256;     /* pinned sha256 of redistrib_VER.json, or NULL */
    char *date;                /* or NULL */
};

struct cu_cat_cuda_major {
    int major;
    int branch_min;            /* minor-version compatibility: driver branch >= */
    int branch_max_exclusive;  /* 0 when open */
    struct cu_version min_driver;
};

struct cu_cat_cuda_sm {
    struct cu_version minor; /* 12.4 */
    int *sm;                 /* 50, 52, ... 90 */
    size_t n_sm;
    bool verified;
};

struct cu_cat_cudnn {
    struct cu_version version; /* 9.14.0 */
    char *full;                /* 9.14.0.64 or NULL */
    char *date;
    char *manifest_sha256;
    bool variants_known;
    /* CUDA majors with an archive, per platform, e.g. {"12","13"}; NULL-terminated */
    char **variants_x86_64, **variants_sbsa, **variants_aarch64;
};

struct cu_cat_cudnn_support {
    struct cu_version cudnn; /* the support-matrix row's cuDNN version */
    int cuda_major;
    struct cu_version driver; /* n == 0 when the row did not give one */
    struct cu_version *cc;    /* compute capabilities listed */
    size_t n_cc;
    /* CCs that need a newer CUDA minor than the variant's first (Blackwell rows) */
    struct cu_version *cc_needs_cc, *cc_needs_cuda;
    size_t n_cc_needs;
    struct cu_version *cuda; /* the CUDA X.Y releases the row lists (its toolkit column), or NULL */
    size_t n_cuda;
};

struct cu_cat_tf {
    struct cu_version version;
    char *package; /* "tensorflow" or "tensorflow_gpu" */
    struct cu_version py_min, py_max;
    struct cu_version cuda, cudnn; /* the tested build */
    struct cu_version cuda_max;    /* the newest CUDA X.Y its libraries load; n == 0: any of its major */
    char *cuda_max_why;            /* why, or NULL */
    struct cu_version *patches;    /* the minor's releases read on PyPI, newest first (framework_wheel_gpu_code.csv) */
    size_t n_patches;
};

/*
 * The GPU code inside one framework build (shared/data/compat/ *_wheel_arch.csv):
 * SASS targets as sm numbers (52 for sm_52) and the PTX it surely carries.
 */
struct cu_cat_code {
    struct cu_version from, to; /* the releases it covers (PyTorch: from == to, a minor or a release) */
    bool exact;                 /* PyTorch: @from is one release, not a minor */
    char *tag;                  /* PyTorch's cu128, or NULL */
    int cuda_majors[4];         /* JAX: the plugin's CUDA majors, 0-terminated */
    int *sass, *ptx;
    size_t n_sass, n_ptx;
    bool read;                  /* confidence "read"; false: "inferred" */
    char *source;
};

struct cu_cat_torch_build {
    struct cu_version cuda;
    char *cudnn; /* or NULL */
    char *tag;   /* cu126 */
    bool stable;
};

struct cu_cat_torch {
    struct cu_version minor;
    struct cu_version py_min, py_max;
    /* A Python the release matrix calls experimental that a wheel read on PyPI has (n == 0: none): the builds of
     * CUDA @py_exp_major have it, @py_exp_wheel is that wheel's file name. */
    struct cu_version py_exp;
    int py_exp_major;
    char *py_exp_wheel;
    struct cu_cat_torch_build *builds;
    size_t n_builds;
};

struct cu_cat_torch_version {
    struct cu_version version;
    char *torchvision, *torchaudio;
    char **tags;
};

struct cu_cat_jax_plugin {
    char *extra, *local_extra; /* cuda13, cuda13-local */
    int cuda_major;
    int driver_branch;
    struct cu_version min_sm, cuda_min, cudnn_min, cudnn_max_exclusive;
    char *first_version; /* or NULL */
};

struct cu_cat_python {
    struct cu_version version; /* 3.11.16 */
    char *arch;                /* "x86_64", "aarch64" */
    char *build;               /* the release tag: "20260814" */
    char *url, *file;          /* upstream URL; the file name, as a mirror holds it */
    char sha256[65];
    char *layout;              /* "install_only": the tree under python/; "full": under python/install/ */
    bool zstd;                 /* a .tar.zst (the full archives); else a .tar.gz */
    uint64_t size;             /* 0: not published, the sha256 alone decides */
};

struct cu_cat_component_group {
    char *name;
    char **members;
};

struct cu_cat_legacy;
struct cu_cat_learned;

struct cu_catalog {
    struct cu_cat_gpu *gpus; /* sorted by device */
    size_t n_gpus;
    struct cu_cat_product *products;
    size_t n_products;
    struct cu_cat_chip *chips;
    size_t n_chips;
    struct cu_cat_cuda *cuda; /* newest first */
    size_t n_cuda;
    struct cu_cat_cuda_major *cuda_majors;
    size_t n_cuda_majors;
    struct cu_cat_cuda_sm *cuda_sm;
    size_t n_cuda_sm;
    struct cu_version archives_from;
    struct cu_cat_cudnn *cudnn; /* newest first */
    size_t n_cudnn;
    struct cu_cat_cudnn_support *cudnn_support; /* newest first */
    size_t n_cudnn_support;
    struct cu_cat_tf *tf; /* newest first */
    size_t n_tf;
    struct cu_cat_torch *torch; /* newest first */
    size_t n_torch;
    struct cu_cat_torch_version *torch_versions;
    size_t n_torch_versions;
    /* The releases on PyPI (framework_pypi_releases.csv), newest first: a pin of another is no release. */
    struct cu_version *pypi_torch, *pypi_jax;
    size_t n_pypi_torch, n_pypi_jax;
    /* The day that record was read ("2026-12-06"; TensorFlow's: its wheels read), or NULL. */
    char *pypi_read_torch, *pypi_read_jax, *pypi_read_tf;
    struct cu_cat_jax_plugin *jax; /* newest CUDA major first */
    size_t n_jax;
    struct cu_cat_code *code_torch, *code_tf, *code_jax; /* newest first */
    size_t n_code_torch, n_code_tf, n_code_jax;
    struct cu_catalog_pip pip; /* what pip brings with a framework build (catalog_pip.h) */
    struct cu_catalog_wheels wheels; /* each framework release's pins on pip's CUDA wheels (catalog_wheels.h) */
    struct cu_catalog_gpu_checks gpu_checks; /* the line that shows a framework sees the GPU (fwcheck.h) */
    struct cu_catalog_loads loads; /* what each framework asks the loader for (catalog_loads.h) */
    struct cu_cat_python *pythons; /* relocatable CPythons cudaup can bring */
    size_t n_pythons;
    char **components_default, **components_never, **cudnn_components_default;
    struct cu_cat_component_group *groups;
    size_t n_groups;
    struct cu_drv_data *driver; /* the driver tables (core/catalog/driver_data.h) */
    struct cu_ctk_data *containers; /* the container tables (core/catalog/ctk_data.h); never NULL once loaded */
    struct cu_cat_legacy *legacy; /* CUDA 10.0-11.3 from runfiles (catalog_legacy.h); never NULL once loaded */
    /* Releases newer than the embedded catalog, learned this run from a package index or a mirror
     * (catalog_learned.h; none in the embedded catalog). */
    struct cu_cat_learned *learned;
    size_t n_learned;
    char *src;      /* the JSON text the catalog was read from (cu_catalog_learn reads it again), or NULL */
    size_t src_len;
};

/**
 * Load the catalog: the file at @path when not NULL, else the embedded copy.
 * Errors: CU_E_INPUT (malformed, with the offending field), CU_E_IO.
 * The caller owns *out (cu_catalog_free).
 */
CU_NODISCARD enum cu_status cu_catalog_load(const char *path, struct cu_catalog **out,
                                            struct cu_error *err);
/** Parse a catalog from memory; see cu_catalog_load. */
CU_NODISCARD enum cu_status cu_catalog_parse(const char *data, size_t len, const char *what,
                                             struct cu_catalog **out, struct cu_error *err);
void cu_catalog_free(struct cu_catalog *cat);
/**
 * Make the catalog of the parsed document @root (cu_catalog_parse without the text): core/catalog/catalog_learned.c
 * makes one of the embedded catalog with what an index taught.  @root stays the caller's.  Errors as
 * cu_catalog_parse.
 */
CU_NODISCARD enum cu_status cu_catalog_from_json(const json_t *root, const char *what, struct cu_catalog **out,
                                                 struct cu_error *err);

const struct cu_cat_gpu *cu_catalog_gpu(const struct cu_catalog *cat, uint16_t device);
/** Match an NVML/driver product name ("NVIDIA GeForce RTX 4090") to a product. */
const struct cu_cat_product *cu_catalog_product(const struct cu_catalog *cat, const char *name);
/** The architecture name for a compute capability ("Hopper" for 9.0), or NULL. */
const char *cu_catalog_arch_name(const struct cu_catalog *cat, const struct cu_version *cc);

/** The newest relocatable CPython X.Y (@minor) for @arch ("x86_64"), or NULL. */
const struct cu_cat_python *cu_catalog_python(const struct cu_catalog *cat, const struct cu_version *minor,
                                              const char *arch);

/** The release entry for an exact version (12.4.1), or NULL. */
const struct cu_cat_cuda *cu_catalog_cuda(const struct cu_catalog *cat,
                                          const struct cu_version *version);
/**
 * True when the catalog knows release @v (or, for X.Y, a release of that minor) but no source gives the
 * driver it needs natively (CUDA 13.4): cudaup then plans it only by minor-version compatibility, and says
 * that rests on an inference.
 */
bool cu_catalog_cuda_floor_unknown(const struct cu_catalog *cat, const struct cu_version *v);
/** The minimum Linux driver of the first release of minor @v (12.4 -> 12.4.0's). */
bool cu_catalog_cuda_min_driver(const struct cu_catalog *cat, const struct cu_version *v,
                                struct cu_version *out);
/**
 * The newest CUDA X.Y a driver runs natively: the newest release whose minimum
 * driver is <= @driver.  False when the driver is older than every release.
 */
bool cu_catalog_cuda_max_for_driver(const struct cu_catalog *cat, const struct cu_version *driver,
                                    struct cu_version *out);
const struct cu_cat_cuda_major *cu_catalog_cuda_major(const struct cu_catalog *cat, int major);
/** The sm targets the CUDA minor of @v compiles for, or NULL when unknown. */
const struct cu_cat_cuda_sm *cu_catalog_cuda_sm(const struct cu_catalog *cat,
                                                const struct cu_version *v);
/**
 * Whether CUDA @v can build for compute capability @cc (sm_XY): the arch table's list, or for a toolkit
 * older than it the runfile's (data/legacy); -1 when unknown.
 */
int cu_catalog_cuda_supports_cc(const struct cu_catalog *cat, const struct cu_version *v,
                                const struct cu_version *cc);
/** The newest CUDA minor that still compiles for @cc (runfiles included), or false when none is known. */
bool cu_catalog_cuda_last_for_cc(const struct cu_catalog *cat, const struct cu_version *cc,
                                 struct cu_version *out);
/** The oldest CUDA minor that compiles for @cc (runfiles included). */
/** The oldest CUDA X.Y the catalog knows (its arch table and the runfiles before it). */
bool cu_catalog_cuda_oldest(const struct cu_catalog *cat, struct cu_version *out);
bool cu_catalog_cuda_first_for_cc(const struct cu_catalog *cat, const struct cu_version *cc,
                                  struct cu_version *out);

const struct cu_cat_cudnn *cu_catalog_cudnn(const struct cu_catalog *cat,
                                            const struct cu_version *version);
/** The GPU code of PyTorch @version (a minor such as 2.8, or a release) built as @tag; NULL when unknown. */
const struct cu_cat_code *cu_catalog_torch_code(const struct cu_catalog *cat, const struct cu_version *version,
                                                const char *tag);
/** The GPU code of TensorFlow @version; NULL when unknown. */
const struct cu_cat_code *cu_catalog_tf_code(const struct cu_catalog *cat, const struct cu_version *version);
/** The GPU code of JAX @version (n == 0: the newest known) with the CUDA @major plugin; NULL when unknown. */
const struct cu_cat_code *cu_catalog_jax_code(const struct cu_catalog *cat, const struct cu_version *version,
                                              int major);

/** The members of a component group ("math"), or NULL. */
char **cu_catalog_component_group(const struct cu_catalog *cat, const char *name);
bool cu_catalog_component_never(const struct cu_catalog *cat, const char *component);

#endif /* CU_CATALOG_H */
