/* SPDX-License-Identifier: MIT */
/*
 * Folder-private (core/verify): the families of checks that cu_check_child (verify_child.c)
 * runs, each in a file of its own, and what they share.  Every check fills @out and never fails
 * otherwise.
 */
#ifndef CU_VERIFY_INT_H
#define CU_VERIFY_INT_H

#include <stdbool.h>

struct cu_check;
struct cu_cuda_install;

/* verify_find.c */
/** Read what the CUDA install in @dir is into @in (cu_cuda_install_fini frees it); false when it is none. */
bool cu_verify_read_install(const char *dir, struct cu_cuda_install *in);

/* verify_gpu.c: the child's GPU work (cu_check_child runs them by name) */
void cu_verify_check_device(const char *dir, const struct cu_cuda_install *in, struct cu_check *out);
void cu_verify_check_kernel(const char *dir, const struct cu_cuda_install *in, struct cu_check *out);
void cu_verify_check_bandwidth(const char *dir, const struct cu_cuda_install *in, struct cu_check *out);
void cu_verify_check_cudnn_conv(const char *dir, const struct cu_cuda_install *in, struct cu_check *out);

#endif /* CU_VERIFY_INT_H */
