/* SPDX-License-Identifier: MIT */
/*
 * The one sorted option table serving argv, the config file and CUDAUP_*
 * environment variables (STYLE 43).  Precedence: defaults < file < env < argv.
 */
#ifndef CU_OPTIONS_H
#define CU_OPTIONS_H

#include <stdio.h>

#include "core/cfg.h"
#include "core/error.h"

/**
 * Parse everything into @cfg.  @envp is the process environment.
 * Errors: CU_E_USAGE with one sentence naming the option and the value.
 */
CU_NODISCARD enum cu_status cu_options_parse(struct cu_config *cfg, int argc, char **argv,
                                             const char *const *envp, struct cu_error *err);

/** Print the usage text for @cmd (CU_CMD_NONE: the overview). */
void cu_options_usage(FILE *out, enum cu_command cmd);

/** Parse a command name; CU_CMD_COUNT when unknown. */
enum cu_command cu_command_parse(const char *name);

#endif /* CU_OPTIONS_H */
