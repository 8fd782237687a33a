/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/verify/verify_libs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog/catalog.h"
#include "core/catalog/cudnn_matrix.h"
#include "core/base/i18n.h"
#include "core/machine/sysinfo.h"
#include "core/verify/checks.h"

bool
cu_verify_pip_libs(const struct cu_catalog *cat, const struct cu_facts *facts, const json_t *probe,
                   struct cu_checks *out)
{
    json_t *libs = json_object_get(probe, "pip_libs");
    const char *name;
    const json_t *val;
    char b1[32];
    bool ok = true;
    if (!cat || !facts || !json_is_object(libs))
        return true;
    json_object_foreach(libs, name, val) {
        struct cu_version v;
        const char *cu = strrchr(name, '-'); /* nvidia-cudnn-cu12: the last part names the CUDA major */
        cu = cu && strncmp(cu, "-cu", 3) == 0 ? cu : NULL;
        char *end = NULL;
        long major = cu ? strtol(cu + 3, &end, 10) : 0;
        if (strncmp(name, "nvidia-cudnn", 12) != 0 || major <= 0 || major > 100 || (end && *end) ||
            !json_is_string(val) || !cu_version_parse(json_string_value(val), &v))
            continue;
        for (size_t i = 0; i < facts->n_gpus; i++) {
            const struct cu_gpu_info *g = &facts->gpus[i];
            if (!g->cc.n || cu_catalog_cudnn_lists(cat, &v, (int)major, &g->cc, NULL) != 0)
                continue;
            cu_checks_add(out, "framework", CU_CHECK_FAIL,
                          _("pip installed %s %s beside the framework, and its support matrix does not list GPU %d (%s, compute capability %s): repair reinstalls the framework with the plan's constraints"),
                          name, json_string_value(val), g->index, g->name, cu_version_format(&g->cc, 0, b1, sizeof(b1)));
            ok = false; /* every GPU it leaves out, each said */
        }
    }
    return ok;
}
