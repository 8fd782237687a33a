/* SPDX-License-Identifier: MIT */
/*
 * One installer per thing the wizard installs (STYLE 3): cuda, cudnn,
 * envvars, pyenv, framework.  Each says what it will do (plan), does it (run)
 * and checks it (verify); installers/registry.c lists them in the order they
 * run.
 */
#ifndef CU_INSTALLER_H
#define CU_INSTALLER_H

#include "core/base/error.h"
#include "core/resolve/plan.h"

struct cu_run_ctx; /* core/install/exec.h: the executor's context for run() */

struct cu_installer_ops {
    const char *name;
    /** Append this installer's steps to @plan (no side effects). */
    void (*plan)(struct cu_plan *plan);
    /** Carry its steps out. NULL when the executor itself does the work. */
    enum cu_status (*run)(struct cu_run_ctx *ctx, struct cu_error *err);
};

/** The installers in the order they run; NULL-terminated. */
extern const struct cu_installer_ops *const cu_installers[];

/** Let every installer add its steps to @plan. */
void cu_installers_plan(struct cu_plan *plan);

extern const struct cu_installer_ops inst_driver_ops;
extern const struct cu_installer_ops inst_containers_ops;
extern const struct cu_installer_ops inst_cuda_ops;
extern const struct cu_installer_ops inst_cudnn_ops;
extern const struct cu_installer_ops inst_envvars_ops;
extern const struct cu_installer_ops inst_python_ops;
extern const struct cu_installer_ops inst_pyenv_ops;
extern const struct cu_installer_ops inst_framework_ops;
extern const struct cu_installer_ops inst_pyroot_ops; /* pyroot.c: last, after pip */

#endif /* CU_INSTALLER_H */
