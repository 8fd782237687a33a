/* SPDX-License-Identifier: MIT */
/*
 * GPU containers on a host (issue 48 items 2 and 3), carried out: the plan's containers part made from the machine
 * (its engines asked through the system runner) and the wishes (inst_containers_prepare); the toolkit installed from
 * NVIDIA's repository (added by the driver stage's own code) and held; each engine's file checked by the engine's
 * own parser before it is put in place, the old one kept; the CDI spec generated and its refresh units enabled; each
 * engine restarted only as the plan allows (inst_containers_install).  What was done is recorded in
 * STATE/containers.json (the repository in STATE/containers/driver.json, the driver stage's record), so that repair
 * regenerates a stale spec and uninstall undoes exactly that.  Every change goes through core/machine/syscmd.
 */
#ifndef CU_INST_CONTAINERS_H
#define CU_INST_CONTAINERS_H

#include <stdbool.h>

#include "core/base/error.h"
#include "core/catalog/catalog.h"
#include "core/doctor/doctor.h"
#include "core/fetch/net.h"
#include "core/machine/cdi.h"
#include "core/machine/engines.h"
#include "core/machine/syscmd.h"
#include "core/resolve/plan.h"
#include "installers/prepare.h"

/** Is --containers well formed? (a check of cu_prepare_check's). Errors: CU_E_USAGE. */
CU_NODISCARD enum cu_status inst_containers_check(const struct cu_config *cfg, struct cu_error *err);

/**
 * Add the containers part to @plan (plan->containers and its reasons) where --containers asks for it.  `mirror`
 * (unconstrained) gets a reason that the mirror holds nothing for containers yet.  Errors: CU_E_UNSUPPORTED (what is
 * asked cannot be done here: the reason and what does work), CU_E_INPUT (an engine's file is malformed).
 */
CU_NODISCARD enum cu_status inst_containers_prepare(const struct cu_prepare_in *in, struct cu_plan *plan, struct cu_error *err);

struct cu_run_ctx;

struct inst_ctr_ctx {
    const struct cu_sys *sys;
    const struct cu_net *net;     /* NVIDIA's repository files; may be NULL */
    const char *state_dir, *cache_dir;
    struct cu_run_ctx *run;       /* steps are recorded there, events go to its events */
    const struct cu_catalog *cat;
    const char *const *envp;
    /* Asks the user @question (a terminal): true to go ahead.  NULL: nobody can be asked (the answer is no). */
    bool (*confirm)(void *userdata, const char *question);
    void *confirm_userdata;
    struct cu_strv *notes;        /* what is left to the user, said after the run (may be NULL) */
};

/**
 * Carry out the plan's containers part (after the driver, before CUDA).  Errors: CU_E_TOOL (a command failed: a rerun
 * goes on), CU_E_INPUT (an engine's own parser refused the file cudaup would write: nothing of it was put in place),
 * CU_E_IO, CU_E_NETWORK, CU_E_UNSUPPORTED (inside a container, or the runner cannot run the manager).
 */
CU_NODISCARD enum cu_status inst_containers_install(struct inst_ctr_ctx *c, const struct cu_plan *plan, const struct cu_facts *facts,
                                                   struct cu_error *err);

/** The engines and CDI specs of the machine @sys runs on, for doctor and repair (versions asked; running ones when @running). */
void inst_containers_probe(const struct cu_sys *sys, const char *const *envp, bool running, struct cu_engines *engines,
                           struct cu_cdi *cdi);

/** Is @code one of doctor's container problems `repair` fixes (a CDI spec missing or stale)? */
bool inst_containers_repairs(const char *code);

/** What inst_containers_repair will do for @pr, one line each, shown before it runs. */
void inst_containers_repair_plan(const struct cu_facts *facts, const struct cu_problems *pr, struct cu_strv *lines);

/** Regenerate the CDI spec where @pr says it is missing or stale.  Errors: the command's. */
CU_NODISCARD enum cu_status inst_containers_repair(struct inst_ctr_ctx *c, const struct cu_facts *facts, const struct cu_problems *pr,
                                                  struct cu_error *err);

/**
 * Undo what STATE/containers.json says cudaup did, and only that: each engine's file restored (cudaup's part taken out
 * of a file changed since), the files it set aside put back, its units disabled and its own removed, the CDI spec it
 * generated removed, the toolkit's hold released and the packages it installed removed, then NVIDIA's repository as
 * the driver stage undoes it.  The record is input: checked first.  @lines gets what was done and what is left to the
 * user (an engine to restart).  Errors: CU_E_NOT_FOUND (no record), CU_E_INPUT, CU_E_UNSAFE_PATH, CU_E_TOOL.
 */
CU_NODISCARD enum cu_status inst_containers_uninstall(struct inst_ctr_ctx *c, struct cu_strv *lines, struct cu_error *err);

/** What inst_containers_uninstall will do, one line each (nothing when there is no record). Errors: the record's. */
CU_NODISCARD enum cu_status inst_containers_uninstall_plan(const char *state_dir, struct cu_strv *lines, struct cu_error *err);

#endif /* CU_INST_CONTAINERS_H */
