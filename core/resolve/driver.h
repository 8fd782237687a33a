/* SPDX-License-Identifier: MIT */
/*
 * The NVIDIA driver: which branch and kernel-module flavor serve every GPU in
 * the box, from which of the distribution's packages, held how, and what
 * Secure Boot asks.  Decided from PCI ids (no NVML before a driver exists),
 * etc/os-release and the catalog's "driver" tables (driver_data.h); pure:
 * nothing here runs a command or writes a file.  The facts it decides from are
 * driver_data.h (the catalog) and driver_state.h (the machine); doctor's view of
 * a broken driver is driver_doctor.h.
 */
#ifndef CU_DRIVER_H
#define CU_DRIVER_H

#include <jansson.h>
#include <stdbool.h>

#include "core/catalog/catalog.h"
#include "core/catalog/driver_data.h"
#include "core/machine/driver_state.h"
#include "core/base/error.h"
#include "core/base/parse.h"
#include "core/base/str.h"
#include "core/machine/sysinfo.h"

/* What the user asked: --driver, --driver-source, and --cuda (for the branch floor). */
struct cu_drv_wish {
    const char *driver; /* NULL/"auto", "keep", "none", "580", "580-open", "580-proprietary" */
    const char *source; /* NULL, "distro", "nvidia" */
    const char *cuda;   /* --cuda as given, or NULL */
    /* auto only: the request cannot be met with the driver that runs, though it serves every GPU here
     * (@upgrade_why says why, for the reasons): plan the newest branch, keeping the flavor that runs. */
    bool upgrade;
    const char *upgrade_why;
};

/** Check --driver and --driver-source's syntax. Errors: CU_E_USAGE. */
CU_NODISCARD enum cu_status cu_drv_wish_check(const struct cu_drv_wish *w, struct cu_error *err);

/* The plan's driver object (DESIGN "plan ... driver"). */
struct cu_drv_plan {
    char *action;           /* keep, install, refuse */
    int branch;             /* 0 with keep */
    char *flavor, *manager, *source; /* or NULL */
    char *distro;           /* the data row's label */
    struct cu_strv packages;
    struct cu_strv pin_packages; /* what the pin holds (apt-mark hold, zypper addlock) */
    char *pin;              /* how the branch is held, as a command line for the user */
    char *pin_kind;         /* the data's pin column */
    char *module_stream, *repo, *components, *initramfs;
    char *secure_boot;      /* off, signed, mok */
    char *mok_key, *mok_cert;
    bool blacklist_nouveau;
    bool reboot;
    bool keep_may_do;       /* action refuse: leaving the driver as it is may serve (no branch serves every GPU) */
    struct cu_version version; /* the least driver of the branch that NVIDIA's CUDA table names */
    struct cu_strv reasons;
    char *refusal, *advice; /* action refuse: the sentence and what to do */
    bool image;             /* into a machine image (--root): no module load, no reboot; its first boot goes on */
};

struct cu_drv_in {
    const struct cu_facts *facts;
    const struct cu_catalog *cat;
    const struct cu_drv_wish *wish;
};

/**
 * Decide.  Never fails but on bad data: a machine that cannot get a driver gets a plan with
 * action "refuse" and its reason.  The caller owns *out (cu_drv_plan_free).
 */
struct cu_drv_plan *cu_drv_choose(const struct cu_drv_in *in);
void cu_drv_plan_free(struct cu_drv_plan *p);

/** The plan JSON's "driver" object. */
json_t *cu_drv_plan_json(const struct cu_drv_plan *p);

/**
 * The facts as they will be once the planned driver runs (for the resolver): a shallow copy
 * of @facts whose driver is the plan's branch.  @out must not be freed with cu_facts_free.
 */
void cu_drv_planned_facts(const struct cu_facts *facts, const struct cu_catalog *cat, const struct cu_drv_plan *p,
                          struct cu_facts *out);

/** Expand a package template ({B}, {K}, {R}, {V}, {VN}, {ARCH}, {SUSE}). Caller owns. */
char *cu_drv_expand(const char *tmpl, int branch, const struct cu_facts *facts);

/** The data row for this distribution that carries @branch (0: any) in @flavor (NULL: any; any source but the AUR), or NULL. */
const struct cu_drv_pkg *cu_drv_row_for(const struct cu_facts *facts, const struct cu_catalog *cat, int branch,
                                        const char *flavor);

#endif /* CU_DRIVER_H */
