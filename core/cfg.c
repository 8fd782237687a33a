/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include "str.h"

void
cu_config_init(struct cu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->gpu_timeout = 60;
    cfg->jobs = 4;
    cfg->retries = 4;
}

void
cu_config_fini(struct cu_config *cfg)
{
    cu_strv_free(cfg->args);
    char **strings[] = {&cfg->root,     &cfg->mirror,     &cfg->cache_dir, &cfg->state_dir,
                        &cfg->log_file, &cfg->cuda,       &cfg->cudnn,     &cfg->framework,
                        &cfg->components, &cfg->prefix,   &cfg->env_scope, &cfg->shell_rc,
                        &cfg->env_tool, &cfg->env_name,   &cfg->python,    &cfg->platform,
                        &cfg->keys_script, &cfg->config_file};
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        free(*strings[i]);
        *strings[i] = NULL;
    }
    cfg->args = NULL;
}

const char *
cu_command_name(enum cu_command cmd)
{
    static const char *const names[CU_CMD_COUNT] = {
        [CU_CMD_NONE] = "", [CU_CMD_DOCTOR] = "doctor", [CU_CMD_PLAN] = "plan",
        [CU_CMD_INSTALL] = "install", [CU_CMD_VERIFY] = "verify", [CU_CMD_REPAIR] = "repair",
        [CU_CMD_UNINSTALL] = "uninstall", [CU_CMD_LIST] = "list", [CU_CMD_MIRROR] = "mirror",
    };
    return (unsigned)cmd < CU_CMD_COUNT ? names[cmd] : "";
}
