/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/cfg.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "core/base/str.h"

void
cu_config_init(struct cu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->gpu_timeout = 60;
    cfg->jobs = 4;
    cfg->retries = CU_NET_RETRIES_DEFAULT;
    cfg->index_timeout = 5;
}

/* Every owned string, so that fini and copy cannot drift apart. */
static size_t
string_fields(struct cu_config *cfg, char ***out, size_t max)
{
    char **strings[] = {&cfg->root,     &cfg->mirror,     &cfg->cache_dir, &cfg->state_dir,
                        &cfg->log_file, &cfg->cuda,       &cfg->cudnn,     &cfg->framework,
                        &cfg->components, &cfg->prefix,   &cfg->env_scope, &cfg->shell_rc,
                        &cfg->env_tool, &cfg->env_name,   &cfg->python,    &cfg->platform,
                        &cfg->keys_script, &cfg->config_file, &cfg->ca_cert,
                        &cfg->python_source, &cfg->index_url, &cfg->package, &cfg->env_dir,
                         &cfg->driver, &cfg->driver_source, &cfg->containers, &cfg->toolkit, &cfg->env};
    size_t n = sizeof(strings) / sizeof(strings[0]);
    for (size_t i = 0; i < n && i < max; i++)
        out[i] = strings[i];
    return n < max ? n : max;
}

void
cu_config_fini(struct cu_config *cfg)
{
    char **fields[32];
    size_t n = string_fields(cfg, fields, 32);
    cu_strv_free(cfg->args);
    cu_strv_free(cfg->given);
    cfg->given = NULL;
    for (size_t i = 0; i < n; i++) {
        free(*fields[i]);
        *fields[i] = NULL;
    }
    cfg->args = NULL;
}

void
cu_config_copy(struct cu_config *dst, const struct cu_config *src)
{
    char **fields[32];
    *dst = *src;
    size_t n = string_fields(dst, fields, 32);
    for (size_t i = 0; i < n; i++)
        *fields[i] = *fields[i] ? cu_xstrdup(*fields[i]) : NULL;
    dst->args = cu_strv_dup(src->args);
    dst->given = src->given ? cu_strv_dup(src->given) : NULL;
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
