/* SPDX-License-Identifier: MIT */
/*
 * Folder-private (core/verify): the families of checks that cu_verify_run (verify.c) and
 * cu_check_child (verify_child.c) run, each in a file of its own, and what they share.  Every
 * check adds its outcome to @out (or fills it, on the child's side) and never fails otherwise.
 */
#ifndef CU_VERIFY_INT_H
#define CU_VERIFY_INT_H

#include <stdbool.h>

struct cu_check;
struct cu_checks;
struct cu_cuda_install;
struct cu_facts;
struct cu_verify_opts;

/* verify_find.c */
/** Read what the CUDA install in @dir is into @in (cu_cuda_install_fini frees it); false when it is none. */
bool cu_verify_read_install(const char *dir, struct cu_cuda_install *in);

/* verify_gpu.c: the child's GPU work (cu_check_child runs them by name) */
void cu_verify_check_device(const char *dir, const struct cu_cuda_install *in, struct cu_check *out);
void cu_verify_check_kernel(const char *dir, const struct cu_cuda_install *in, struct cu_check *out);
void cu_verify_check_bandwidth(const char *dir, const struct cu_cuda_install *in, struct cu_check *out);
void cu_verify_check_cudnn_conv(const char *dir, const struct cu_cuda_install *in, struct cu_check *out);

/* verify_files.c: the install's tree */
void cu_verify_check_files(const struct cu_verify_opts *o, const struct cu_cuda_install *in, struct cu_checks *out);
void cu_verify_check_nvcc(const struct cu_verify_opts *o, const struct cu_cuda_install *in, struct cu_checks *out);

/* verify_driver.c */
/** Is NVIDIA's driver loaded (natively or through WSL)?  False for no facts. */
bool cu_verify_has_driver(const struct cu_facts *f);
void cu_verify_check_driver(const struct cu_verify_opts *o, const struct cu_cuda_install *in, struct cu_checks *out);

/* verify_framework.c: the framework's environment */
/** The Python cudaup brought for the framework's venv: its recorded files, and that it runs. */
void cu_verify_check_python(const struct cu_verify_opts *o, struct cu_checks *out);
/** The framework probe, run in o->python, and the judge of what it saw. */
void cu_verify_check_framework(const struct cu_verify_opts *o, struct cu_checks *out);

/* verify_toolkit.c: the toolkit of an environment's compiler wheels (--toolkit wheels, issue 50) */
/** The toolkit checks of every recorded environment (o and o->more): "toolkit" and, on a GPU, "toolkit-kernel". */
void cu_verify_check_toolkits(const struct cu_verify_opts *o, struct cu_checks *out);
/** Child side of "toolkit-kernel": load the cubin @cubin with the driver API, run it on GPU 0, check every value. */
void cu_verify_check_toolkit_kernel(const char *cubin, struct cu_check *out);

#endif /* CU_VERIFY_INT_H */
