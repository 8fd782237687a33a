/* SPDX-License-Identifier: MIT */
/*
 * `verify`: is this CUDA install whole, do its libraries load with the
 * right versions, does nvcc compile, and does real GPU work give the right
 * answers?  Works on any CUDA folder; with a cudaup record it also checks
 * every recorded file.
 *
 * Library and GPU checks run in a child process each (cudaup __check NAME
 * DIR), with LD_LIBRARY_PATH set to the install and a time limit, so that a
 * broken library or a hung GPU cannot take cudaup down.  The child calls
 * cu_check_child() and prints one JSON line.
 */
#ifndef CU_VERIFY_H
#define CU_VERIFY_H

#include <stdatomic.h>
#include <stdbool.h>

#include "core/base/sysroot.h"
#include "core/catalog/catalog.h"
#include "core/machine/sysinfo.h"
#include "core/base/sysroot.h"
#include "core/verify/checks.h"

/* A Python environment of the install and its frameworks (verify_framework.c). */
struct cu_verify_env {
    const char *name;      /* as recorded ("cudaup-pytorch-jax"), or NULL */
    const char *python;    /* its interpreter */
    const char *framework; /* its frameworks, comma-separated, the first named first ("pytorch,jax") */
    bool bundled;          /* they bring their own CUDA wheels: nothing of the CUDA install goes before them */
};

/* Where an environment's CUDA toolkit is (--toolkit, issue 50), as STATE/pyenv.json records it; NULL where not. */
struct cu_verify_toolkit {
    const char *kind;         /* "system", "wheels", "none" */
    const char *home;         /* wheels: the toolkit folder inside the environment (CUDA_HOME of its activation) */
    const char *release;      /* wheels: the CUDA release of its compiler wheels ("13.0.2") */
    const char *nvcc_version; /* wheels: the held nvidia-cuda-nvcc wheel's version ("13.0.88") */
};

struct cu_verify_opts {
    const char *dir;               /* the install folder */
    const struct cu_facts *facts;  /* the machine (for the driver) */
    const struct cu_catalog *cat;
    bool deep, require_gpu;
    long timeout_ms;               /* each child check */
    const char *self_exe;          /* this binary, for the child checks */
    const char *const *envp;
    const char *python;            /* the framework's Python, or NULL */
    const char *framework;         /* tensorflow, pytorch, jax (or several, comma-separated), or NULL */
    bool bundled;                  /* those frameworks bring their own CUDA wheels (cu_verify_env) */
    const char *env_name;          /* that environment's name, or NULL */
    struct cu_verify_toolkit toolkit; /* that environment's toolkit */
    const struct cu_verify_env *more; /* the other environments (--framework given again) */
    size_t n_more;
    const struct cu_verify_toolkit *more_toolkit; /* the toolkit of each of them (n_more), or NULL */
    const struct cu_sysroot *ld_root; /* where the probe's loader looks (ld.so.conf): this host, whatever --root
                                       * says, for the probe is a process of this host; NULL: not read */
    const char *state_dir;         /* cudaup's state (its env.sh), or NULL */
    const atomic_int *cancel;
    const struct cu_sysroot *root; /* the machine (--root), or NULL for this one: under another root the GPU
                                    * checks load that root's libcuda, never this host's, or skip */
};

/** Run every check; the outcome is in @out, never an error. */
void cu_verify_run(const struct cu_verify_opts *o, struct cu_checks *out);

/**
 * `verify --env`: the checks of one Python environment alone, o->python's, with its frameworks o->framework
 * (the Python cudaup brought, if it did; the framework probe and what the frameworks mapped), no CUDA install
 * (o->dir NULL).  The outcome is in @out, never an error.
 */
void cu_verify_run_env(const struct cu_verify_opts *o, struct cu_checks *out);

/**
 * `verify` where the environment holds its own toolkit (--toolkit wheels or none) and there is no CUDA install: the
 * checks of the recorded environments (their Python, frameworks and toolkits).  The outcome is in @out, never an error.
 */
void cu_verify_run_toolkit_env(const struct cu_verify_opts *o, struct cu_checks *out);

/** Child side: run check @name against @dir and fill @out. */
void cu_check_child(const char *name, const char *dir, struct cu_check *out);

/** The library @stem ("libcudart.so") of the install, preferring .so.MAJOR; caller frees; NULL if none. */
char *cu_install_lib(const char *dir, const char *stem, unsigned major);

#endif /* CU_VERIFY_H */
