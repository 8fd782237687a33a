/* SPDX-License-Identifier: MIT */
/*
 * What the NVIDIA driver's user-space libraries say: NVML (libnvidia-ml) and
 * the driver API (libcuda).  Both are dlopen'd from paths inside the machine
 * root, or from the override given (CUDAUP_NVML_LIB, CUDAUP_LIBCUDA_LIB).
 */
#ifndef CU_GPULIB_H
#define CU_GPULIB_H

#include <stdint.h>

#include "core/base/error.h"
#include "core/base/parse.h"
#include "core/base/sysroot.h"

struct cu_lib_gpu {
    char name[96];
    char bus[32]; /* "0000:01:00.0", lower case */
    uint16_t device_id; /* PCI device id, 0 when unknown */
    struct cu_version cc;
    uint64_t memory_mib;
};

struct cu_lib_info {
    char *lib_path;              /* the library that answered */
    struct cu_version driver;    /* NVML: the driver version */
    int cuda_driver_version;     /* 12040, 0 when unknown */
    int init_result;             /* nvmlInit / cuInit result code */
    char *init_error;            /* the library's name for a failed init, or NULL */
    struct cu_lib_gpu *gpus;
    size_t n_gpus;
};

void cu_lib_info_fini(struct cu_lib_info *info);

/**
 * Candidate paths for @soname ("libnvidia-ml.so.1") under @root: the
 * @override when set; else the usual library folders inside the root, and the
 * bare soname when the root is the host.  NULL-terminated; caller owns it
 * (cu_strv_free).
 */
char **cu_gpulib_candidates(const struct cu_sysroot *root, const char *soname,
                            const char *override);

/**
 * Query NVML.  CU_E_NOT_FOUND: no library; CU_E_DRIVER: it loaded but init
 * failed (info->init_result and init_error say why; info->lib_path is set).
 */
CU_NODISCARD enum cu_status cu_nvml_query(const char *const *candidates, struct cu_lib_info *info,
                                          struct cu_error *err);

/** Query the driver API the same way (cuInit, cuDriverGetVersion, devices). */
CU_NODISCARD enum cu_status cu_libcuda_query(const char *const *candidates,
                                             struct cu_lib_info *info, struct cu_error *err);

/** A CUresult name ("CUDA_ERROR_NO_DEVICE"), static. */
const char *cu_curesult_name(int r);

#endif /* CU_GPULIB_H */
