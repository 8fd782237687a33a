/* SPDX-License-Identifier: MIT */
/*
 * Facts about the machine: GPUs, the driver, CUDA installs and their cuDNN,
 * the environment and Python environment tools.  Everything is read through
 * a struct cu_sysroot; nothing here prints (STYLE 54: plain structs out).
 */
#ifndef CU_SYSINFO_H
#define CU_SYSINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "core/catalog/catalog.h"
#include "core/base/error.h"
#include "core/base/parse.h"
#include "core/base/sysroot.h"
#include "core/machine/container.h"

struct cu_gpu_info {
    int index;
    char *name;          /* "GeForce RTX 4090" */
    char pci_id[10];     /* "10de:2684" */
    char bus[32];        /* "0000:01:00.0" or "" */
    struct cu_version cc; /* n == 0 when unknown */
    const char *arch;    /* borrowed from the catalog, or NULL */
    uint64_t memory_mib; /* 0 when unknown */
    char *source;        /* "pci", "nvml", "pci+nvml", "libcuda" */
    char *kernel_driver; /* the driver bound in sysfs: "nvidia", "nouveau", "vfio-pci" or NULL */
};

enum cu_driver_kind {
    CU_DRIVER_NONE,
    CU_DRIVER_NVIDIA,
    CU_DRIVER_NOUVEAU,
    CU_DRIVER_WSL,
};

struct cu_driver_info {
    enum cu_driver_kind kind;
    struct cu_version version;      /* the kernel module's (or NVML's on WSL); n == 0 if none */
    struct cu_version cuda_max;     /* newest CUDA X.Y it runs; n == 0 when unknown */
    const char *cuda_max_source;    /* "libcuda", "nvml", "table" or NULL */
    struct cu_version lib_version;  /* NVML's driver version (user space) */
    char *nvml_path, *libcuda_path; /* libraries that loaded, or NULL */
    char *nvml_error, *libcuda_error; /* why they did not start, or NULL */
    int libcuda_result;             /* cuInit's result, -1 when not tried */
    bool kernel_module;             /* /proc/driver/nvidia or /sys/module/nvidia present */
    bool nouveau_loaded;
    bool planned;                   /* the version is the driver the plan installs, not one running */
    struct cu_version running;      /* planned: the module's version that runs now; n == 0 when none */
};

struct cu_cuda_install {
    char *path;           /* the real folder, as the machine sees it */
    char **links;         /* symlinks found pointing at it ("/usr/local/cuda"); NULL-terminated */
    struct cu_version version;
    const char *version_source; /* "version.json", "version.txt", "cuda.h", "dist-info" */
    bool has_nvcc;
    bool has_cudart;
    struct cu_version cudnn; /* n == 0 when there is none */
    bool managed;         /* has .cudaup/record.json */
};

struct cu_env_info {
    char *cuda_home, *cuda_path; /* as set, or NULL */
    char **path_cuda;            /* PATH entries that bear on CUDA */
    char **ld_cuda;              /* LD_LIBRARY_PATH entries that bear on CUDA */
    bool ld_empty_entry;         /* LD_LIBRARY_PATH has an empty element (means ".") */
};

struct cu_pyenv_info {
    char *tool;    /* "conda", "mamba", "micromamba", "venv" */
    char *path;    /* the tool or its base environment */
    char *version; /* or NULL */
    char *active_env; /* CONDA_PREFIX / VIRTUAL_ENV, or NULL */
};

struct cu_os_info {
    char *id, *version_id, *pretty_name; /* from etc/os-release; may be NULL */
    bool wsl;
    char machine[32]; /* x86_64, aarch64 */
};

struct cu_drv_state; /* core/machine/driver_state.h */

struct cu_facts {
    struct cu_gpu_info *gpus;
    size_t n_gpus;
    struct cu_driver_info driver;
    struct cu_cuda_install *installs;
    size_t n_installs;
    struct cu_env_info env;
    struct cu_pyenv_info *pyenv; /* NULL when none was found */
    char **pythons;              /* Python versions on PATH ("3.11", "3.12"), newest first */
    struct cu_os_info os;
    struct cu_drv_state *drv;    /* the driver's state beyond the above (core/machine/driver_state.c) */
    struct cu_container_info container; /* cudaup runs inside a container (core/machine/container.c) */
};

struct cu_probe_opts {
    const struct cu_sysroot *root;
    const struct cu_catalog *catalog;
    const char *const *envp;   /* the environment to read (usually environ) */
    const char *const *extra_prefixes; /* more folders holding cuda-X.Y installs (cudaup's PREFIX) */
    const char *nvml_override, *libcuda_override; /* CUDAUP_NVML_LIB, CUDAUP_LIBCUDA_LIB */
    bool no_libs;              /* skip dlopen (tests of the sysfs path alone) */
    bool managed_only;         /* internal: add only installs with a cudaup record */
};

/**
 * Gather the facts.  Missing pieces are facts too (no GPU, no driver), so
 * this fails only on exhaustion or when the root itself cannot be read.
 * The caller owns *out (cu_facts_free).
 */
CU_NODISCARD enum cu_status cu_facts_probe(const struct cu_probe_opts *opts,
                                           struct cu_facts **out, struct cu_error *err);
void cu_facts_free(struct cu_facts *facts);

/** Read one CUDA folder (PATH as the machine sees it); false when it is not one. */
bool cu_cuda_install_read(const struct cu_sysroot *root, const char *path,
                          struct cu_cuda_install *out);
void cu_cuda_install_fini(struct cu_cuda_install *inst);

const char *cu_driver_kind_name(enum cu_driver_kind kind);

/** The platform name of the machine: "linux-x86_64", "linux-sbsa" or NULL. */
const char *cu_facts_platform(const struct cu_facts *facts);

#endif /* CU_SYSINFO_H */
