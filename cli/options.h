/* SPDX-License-Identifier: MIT */
/*
 * The one sorted option table serving argv, the config file and CUDAUP_*
 * environment variables (STYLE 43).  Precedence: defaults < file < env < argv.
 */
#ifndef CU_OPTIONS_H
#define CU_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/base/cfg.h"
#include "core/base/error.h"

/**
 * Parse everything into @cfg.  @envp is the process environment.
 * Errors: CU_E_USAGE with one sentence naming the option and the value.
 */
CU_NODISCARD enum cu_status cu_options_parse(struct cu_config *cfg, int argc, char **argv,
                                             const char *const *envp, struct cu_error *err);

/**
 * Print the usage text for @cmd (CU_CMD_NONE: the overview): the options @cmd acts on, grouped,
 * and examples, wrapped at @width columns (0: not wrapped).
 */
void cu_options_usage(FILE *out, enum cu_command cmd, int width);

/** Whether --help of @cmd lists the long option @name (CU_CMD_NONE: the overview, DESIGN's options of every command). */
bool cu_options_listed(const char *name, enum cu_command cmd);

/** Whether @cmd accepts the long option @name on its command line (it may accept one it ignores). */
bool cu_options_accepted(const char *name, enum cu_command cmd);

/** The long name of the @i-th option, NULL past the last: to walk the table. */
const char *cu_options_name(size_t i);

/** Parse a command name; CU_CMD_COUNT when unknown. */
enum cu_command cu_command_parse(const char *name);

#endif /* CU_OPTIONS_H */
