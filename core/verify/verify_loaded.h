/* SPDX-License-Identifier: MIT */
/* The CUDA libraries the frameworks of an environment really mapped, judged (verify_loaded.c). */
#ifndef CU_VERIFY_LOADED_H
#define CU_VERIFY_LOADED_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct cu_checks;
struct cu_verify_opts;

/**
 * Judge what data/fwprobe.py saw in @n_runs runs (@runs: the order recorded, then the other) of the
 * environment @env_name: one check, "libraries", and every library into @out->libraries.  @bundled:
 * its frameworks bring their own CUDA wheels, so that a library of the plan's CUDA install (o->dir)
 * counts as outside; otherwise that install is where they load from.
 */
void cu_verify_judge_libraries(const struct cu_verify_opts *o, const char *env_name, bool bundled, const json_t *const *runs,
                               size_t n_runs, struct cu_checks *out);

#endif
