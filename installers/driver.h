/* SPDX-License-Identifier: MIT */
/*
 * The driver stage: planned with the rest (inst_driver_prepare), carried out with the
 * distribution's package manager through core/syscmd (never NVIDIA's .run, never a reboot
 * by itself), resumed after the reboot, repaired and uninstalled.
 */
#ifndef CU_INST_DRIVER_H
#define CU_INST_DRIVER_H

#include <jansson.h>
#include <stdbool.h>

#include "core/resolve/driver.h"
#include "core/doctor/doctor.h"
#include "core/fetch/net.h"
#include "core/resolve/plan.h"
#include "core/machine/syscmd.h"
#include "prepare.h"

/** Marks driver plan @p (action "install") as one into a machine image when the machine root is one
 *  (no running kernel): its reasons say so, and the plan's steps end with the image's. */
void inst_driver_image(const struct cu_prepare_in *in, struct cu_drv_plan *p);

/**
 * Decide the driver for a plan and fill @planned with the facts the resolver should see (the
 * planned branch in place of what runs now).  Errors: CU_E_USAGE (bad --driver), CU_E_UNSUPPORTED
 * (a driver is needed and none can be planned: the reason and its advice).  *out is the caller's.
 */
CU_NODISCARD enum cu_status inst_driver_prepare(const struct cu_prepare_in *in, struct cu_drv_plan **out,
                                                struct cu_facts *planned, struct cu_error *err);

/**
 * doctor's errors bind the plan (issue 23): no GPU, nouveau or a module without libcuda make it
 * unusable, so it is refused with doctor's fix, unless the planned driver cures it; without a
 * framework (nvcc on a build machine) they are warnings.  Errors: CU_E_UNSUPPORTED.
 */
CU_NODISCARD enum cu_status inst_driver_bind(const struct cu_prepare_in *in, struct cu_plan *plan,
                                             struct cu_error *err);

struct cu_run_ctx;

struct inst_driver_ctx {
    const struct cu_sys *sys;
    const struct cu_net *net;      /* for NVIDIA's repository files; may be NULL */
    const char *state_dir, *cache_dir;
    struct cu_run_ctx *run;        /* steps are recorded there (cu_run_result), events go to its events */
    const struct cu_catalog *cat;  /* the data the record is checked against (its initramfs commands); may be NULL */
    const struct cu_drv_plan *plan;/* the plan being carried out, or NULL (repair, uninstall) */
};

/**
 * Carry the plan's driver out: repository, packages, pin, nouveau, Secure Boot key, then load
 * the module or stop for a reboot: CU_E_REBOOT after writing STATE/resume.json (what to do at the
 * firmware's screen is in err's advice).  Other errors: CU_E_TOOL (a command failed: a rerun or
 * `repair` finishes), CU_E_IO, CU_E_NETWORK.
 */
CU_NODISCARD enum cu_status inst_driver_install(struct inst_driver_ctx *c, const struct cu_plan *plan,
                                                const struct cu_facts *facts, struct cu_error *err);

/**
 * NVIDIA's repository for another stage (the NVIDIA Container Toolkit comes from the same CUDA repository): the
 * checks before the first change, then @steps in order: the keyring package checked against its pinned sha256 (apt),
 * the repository file fetched (dnf), and the commands (zypper's addrepo, refresh); each recorded in c->state_dir's
 * driver.json as the driver's own are, so that inst_driver_uninstall with the same state folder undoes exactly them.
 * Errors: those of inst_driver_install's steps.
 */
CU_NODISCARD enum cu_status inst_driver_repository(struct inst_driver_ctx *c, const char *manager, const struct cu_drv_step *steps,
                                                   size_t n, struct cu_error *err);

/**
 * A run after the reboot: when STATE/resume.json exists, check that the module now loads (its
 * branch, flavor and signature) and remove the record (*resumed true).  Before the reboot (the same
 * boot id as the record's; an image not booted yet): CU_E_REBOOT, "not rebooted yet".  When it does
 * not load, say why (key not enrolled, nouveau still bound, no module for this kernel) with the fix:
 * CU_E_UNSUPPORTED.  A record another user could have written: CU_E_UNSAFE_PATH.
 */
CU_NODISCARD enum cu_status inst_driver_resume(const char *state_dir, const struct cu_facts *facts, bool *resumed,
                                               char **note, struct cu_error *err);

/** The resume record's JSON ({after, steps, ...}), or NULL when there is none (or it is not to be trusted). Caller owns. */
json_t *inst_driver_resume_record(const char *state_dir);

/** Is @code one of doctor's driver problems `repair` fixes (never another driver: that is an install of its own)? */
bool inst_driver_repairs(const char *code);

/** Is @code one of doctor's problems an install with a planned driver cures (no driver, too old, nouveau)? */
bool inst_driver_installs(const char *code);

/**
 * What inst_driver_repair will do for @pr, in order, one line each (what and its command), to be shown
 * before it runs: the running kernel's headers before a DKMS rebuild, the signed module packages, the
 * blacklist, the reload, the hold.  @image: @facts are a machine image's (no kernel runs there).
 */
void inst_driver_repair_plan(const struct cu_facts *facts, const struct cu_catalog *cat, const struct cu_problems *pr,
                             bool image, struct cu_strv *lines);

/**
 * Carry out the fixes of doctor's driver problems in @pr that a package manager or modprobe can.
 * *reboot says a reboot is needed to finish.  Errors: the first command's.
 */
CU_NODISCARD enum cu_status inst_driver_repair(struct inst_driver_ctx *c, const struct cu_facts *facts,
                                               const struct cu_catalog *cat, const struct cu_problems *pr,
                                               bool *reboot, struct cu_error *err);

/**
 * Undo what STATE/driver.json says cudaup did, and only that: its pins, the packages its steps newly
 * installed (after checking that removing them takes nothing else with it), the module streams and
 * repositories it added, the files it made, then the initramfs.  The record is input: checked first
 * (drv_rec_load), and nothing is run when it is not sound.  Errors: CU_E_NOT_FOUND (no record),
 * CU_E_INPUT, CU_E_UNSAFE_PATH, CU_E_UNSUPPORTED (the removal would take other packages: named),
 * CU_E_TOOL.
 */
CU_NODISCARD enum cu_status inst_driver_uninstall(struct inst_driver_ctx *c, struct cu_error *err);

/* What `uninstall driver` removes of the packages cudaup's steps installed, and what of them stays. */
struct drv_unplan {
    struct cu_strv remove;  /* removed */
    struct cu_strv kernels; /* kernels the install brought (images, modules, metas): kept, the machine boots them */
    struct cu_strv headers; /* kernel headers it brought that other DKMS modules (@dkms) build against: kept */
    struct cu_strv tools;   /* packages it brought whose removal could lock the administrator out (sudo): kept */
    struct cu_strv deps;    /* what those kept need: kept with them */
    struct cu_strv dkms;    /* the other DKMS modules registered under the root */
};
void drv_unplan_init(struct drv_unplan *u);
void drv_unplan_fini(struct drv_unplan *u);

/**
 * What inst_driver_uninstall will remove and keep (the data's kernel_packages decide what a kernel and its
 * headers are), asked before it runs (package queries only).  Empty when there is no record.  Errors: the
 * record's (drv_rec_load) and the queries'.
 */
CU_NODISCARD enum cu_status inst_driver_uninstall_plan(struct inst_driver_ctx *c, struct drv_unplan *u, struct cu_error *err);

/** The lines of the screen that says what to do for the reboot (and the key enrolment). Caller owns. */
char *inst_driver_reboot_text(const struct cu_drv_plan *p, bool mok_queued);

#endif /* CU_INST_DRIVER_H */
