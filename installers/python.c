/* SPDX-License-Identifier: MIT */
/*
 * The Python a venv is made with, when cudaup brings it: a relocatable CPython
 * (python-build-standalone) in PREFIX/cudaup/python/X.Y, installed by the same
 * checked, staged and recorded transaction as the toolkit (core/install/toolkit.c).
 */
#include "config.h"

#include "installer.h"

#include <string.h>

#include "core/base/i18n.h"

static void
inst_python_plan(struct cu_plan *p)
{
    const struct cu_plan_python *py = p->python;
    if (!py || strcmp(py->kind, "cudaup") != 0)
        return;
    cu_plan_add_step(p, "python", "install",
                     _("download Python %s (python-build-standalone %s) from %s, check its sha256 and unpack it into %s"),
                     py->version, py->build ? py->build : "?", py->dl.url, py->path);
}

const struct cu_installer_ops inst_python_ops = {
    .name = "python",
    .plan = inst_python_plan,
};
