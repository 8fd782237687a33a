/* SPDX-License-Identifier: MIT */
/*
 * Folder-private (core/verify): the harness the child checks stand on (verify_rt.c), for
 * verify_child.c and verify_gpu.c, and the test kernel, which nvcc's check (verify_files.c)
 * compiles too.  The function types mirror the CUDA runtime's and NVRTC's, loaded with dlsym.
 */
#ifndef CU_VERIFY_RT_H
#define CU_VERIFY_RT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/machine/nvtypes.h"

struct cu_check;
struct cu_cuda_install;

/** The test kernel, cudaup_saxpy (y = a*x + y), in CUDA C for NVRTC and nvcc. */
extern const char cu_verify_saxpy_src[];
/** The same kernel as PTX for sm_50, for when NVRTC gives none. */
extern const char cu_verify_saxpy_ptx[];

struct dim3 {
    unsigned x, y, z;
};

struct rt {
    void *h;
    char *path;
    cudaError_t (*runtime_version)(int *);
    cudaError_t (*device_count)(int *);
    cudaError_t (*set_device)(int);
    cudaError_t (*attr)(int *, int, int);
    cudaError_t (*props)(void *, int);
    cudaError_t (*mem_info)(size_t *, size_t *);
    cudaError_t (*malloc_)(void **, size_t);
    cudaError_t (*free_)(void *);
    cudaError_t (*malloc_host)(void **, size_t);
    cudaError_t (*free_host)(void *);
    cudaError_t (*memcpy_)(void *, const void *, size_t, int);
    cudaError_t (*sync)(void);
    const char *(*err_str)(cudaError_t);
    cudaError_t (*lib_load)(void **, const void *, void *, void **, unsigned, void *, void **, unsigned);
    cudaError_t (*lib_kernel)(void **, void *, const char *);
    cudaError_t (*launch)(const void *, struct dim3, struct dim3, void **, size_t, void *);
};

struct nvrtc {
    void *h;
    char *path;
    nvrtcResult (*version)(int *, int *);
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                          const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*ptx_size)(nvrtcProgram, size_t *);
    nvrtcResult (*ptx)(nvrtcProgram, char *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*destroy)(nvrtcProgram *);
};

/** dlsym @a (or, when @h lacks it, @b) from @h into the function pointer at @fnptr; NULL when neither. */
void cu_verify_dlfn(void *fnptr, void *h, const char *a, const char *b);

/**
 * Open the libcudart of @dir (its .so.@major first) into @r.  False, with @out failed, when it is
 * not there, does not load or lacks the functions every runtime has; r->path is the caller's to free.
 */
bool cu_verify_rt_open(const char *dir, unsigned major, struct rt *r, struct cu_check *out);
/** The runtime's words for @e (static). */
const char *cu_verify_rt_err(const struct rt *r, cudaError_t e);
/** The runtime of @dir, opened, with a GPU to work on; false (with @out filled, nothing held) when not. */
bool cu_verify_rt_open_device(const char *dir, const struct cu_cuda_install *in, struct rt *r, struct cu_check *out);

/** Make @out a pass (or a failure) with @detail, which it takes. */
void cu_verify_pass(struct cu_check *out, char *detail);
void cu_verify_fail(struct cu_check *out, char *detail);

/** Open the libnvrtc of @dir into @n; false with *why (caller frees) when it cannot.  n->path is the caller's to free. */
bool cu_verify_nvrtc_open(const char *dir, unsigned major, struct nvrtc *n, char **why);
/** Compile the test kernel (for @arch, an NVRTC option, or NVRTC's default); returns PTX the caller frees, or NULL with *why. */
char *cu_verify_nvrtc_compile(struct nvrtc *n, const char *arch, char **why);

#endif /* CU_VERIFY_RT_H */
