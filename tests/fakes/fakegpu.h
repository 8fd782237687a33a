/* SPDX-License-Identifier: MIT */
/*
 * Shared state of the GPU-library doubles (libnvidia-ml.so.1, libcuda.so.1,
 * libcudart, libcudnn).  They read FAKE_NVIDIA_CONFIG, a text file:
 *
 *   driver 550.54.14          # NVML's driver version
 *   cuda 12040                # what cuDriverGetVersion/NVML report
 *   nvml_init 0               # nvmlInit_v2 result (9: driver not loaded, 18: mismatch)
 *   cu_init 0                 # cuInit result (100: no device, 35: insufficient driver)
 *   gpu 0000:01:00.0 2684 8.9 24564 NVIDIA GeForce RTX 4090
 *   kernel_result wrong       # the test kernel computes wrong values
 *   hang kernel               # the test kernel never finishes
 *   fail cudaMalloc 2 1       # the library call fails with code 2, after 1 call that succeeds
 *   fail_log /tmp/x           # each failure made is appended there, one call name a line
 *
 * One "gpu" line per device.  Unknown lines are ignored.
 */
#ifndef FAKEGPU_H
#define FAKEGPU_H

#define FAKE_MAX_GPUS 8

struct fake_gpu {
    char bus[32];
    unsigned device_id;
    int cc_major, cc_minor;
    unsigned long long mem_mib;
    char name[96];
};

struct fake_config {
    char driver[64];
    int cuda;
    int nvml_init;
    int cu_init;
    int n_gpus;
    struct fake_gpu gpus[FAKE_MAX_GPUS];
    int wrong_results;
    int hang_kernel;
    char fail_call[64]; /* "fail NAME CODE": the library call NAME returns CODE */
    int fail_code;
    int fail_after;     /* calls of it that succeed first */
    char fail_log[256]; /* "fail_log PATH": each failure made is appended there */
};

/* Loaded once per process from FAKE_NVIDIA_CONFIG. */
const struct fake_config *fake_config(void);

/* The error code @call is told to fail with ("fail NAME CODE [AFTER]"), or 0 (each call counts). */
int fake_fail(const char *call);

/*
 * The version in the name of the file of the calling double ("libcudart.so.12.4.127", @stem "libcudart.so."), read
 * through its links, as a synthetic mirror names the double it ships: how many parts were read (0: none, as for
 * the double under its own build name).  Its own environment variable, where set, goes first.
 */
int fake_version_from_name(const char *stem, unsigned v[3]);

/* Return @T's failure from the calling function when the config says it fails now. */
#define FAKE_FAIL_RETURN(T)                                                                   \
    do {                                                                                      \
        int f_ = fake_fail(__func__);                                                         \
        if (f_)                                                                               \
            return (T)f_;                                                                     \
    } while (0)

#endif
