/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "installer.h"

#include <stddef.h>

const struct cu_installer_ops *const cu_installers[] = {
    &inst_driver_ops, &inst_containers_ops, &inst_python_ops, &inst_cuda_ops, &inst_cudnn_ops, &inst_envvars_ops, &inst_pyenv_ops, &inst_framework_ops, &inst_pyroot_ops, NULL,
};

void
cu_installers_plan(struct cu_plan *plan)
{
    for (size_t i = 0; cu_installers[i]; i++)
        if (cu_installers[i]->plan)
            cu_installers[i]->plan(plan);
}
