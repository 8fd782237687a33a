/* SPDX-License-Identifier: MIT */
/*
 * The NVIDIA driver: which branch and kernel-module flavor serve every GPU in
 * the box, from which of the distribution's packages, held how, and what
 * Secure Boot asks.  Decided from PCI ids (no NVML before a driver exists),
 * etc/os-release and the catalog's "driver" tables (data/driver/ CSV files); pure:
 * nothing here runs a command or writes a file.
 */
#ifndef CU_DRIVER_H
#define CU_DRIVER_H

#include <jansson.h>
#include <stdbool.h>

#include "catalog.h"
#include "error.h"
#include "parse.h"
#include "str.h"
#include "sysinfo.h"

/* One GPU generation (data/driver/driver_generations.csv). */
struct cu_drv_gen {
    struct cu_version cc_min, cc_max;
    char *generation;
    bool open, proprietary; /* the flavors that drive it */
    char *preferred;        /* "open" or "proprietary" */
    int branch_min;         /* 0: no floor of its own */
    int branch_last;        /* 0: current */
    char *source, *confidence;
};

/* One distribution x package source x flavor (data/driver/driver_packages.csv). */
struct cu_drv_pkg {
    char *distro;
    char **ids, **versions; /* os-release IDs; VERSION_IDs or "*" */
    char *manager;          /* apt, dnf, zypper, pacman, aur */
    char *source;           /* distro, nvidia, aur */
    int *branches;
    size_t n_branches;
    char *flavor;
    char **packages, **signed_modules, **headers; /* templates: {B} {K} {R} */
    char *pin;              /* "apt-mark hold", "dnf module", "dnf versionlock", "zypper addlock", "none" */
    char *module_stream, *repo, *components, *initramfs, *mok_key, *mok_cert; /* or NULL */
    struct cu_version version; /* the release this source carries (measured), n == 0: the branch's first */
    char *ref, *confidence;
};

struct cu_drv_data {
    struct cu_drv_gen *gens;
    size_t n_gens;
    struct cu_drv_pkg *pkgs;
    size_t n_pkgs;
};

/**
 * Parse the catalog's "driver" object.  Errors: CU_E_INPUT naming the field.
 * The caller owns *out (cu_drv_data_free).
 */
CU_NODISCARD enum cu_status cu_drv_data_parse(const json_t *obj, const char *what, struct cu_drv_data **out,
                                              struct cu_error *err);
void cu_drv_data_free(struct cu_drv_data *d);

/** The generation row of compute capability @cc, or NULL. */
const struct cu_drv_gen *cu_drv_gen_for_cc(const struct cu_drv_data *d, const struct cu_version *cc);

/* What the machine's driver looks like beyond sysinfo's facts (core/driver_state.c). */
struct cu_drv_state {
    char *kernel_release;     /* "6.8.0-45-generic", or NULL */
    char *version_codename;   /* os-release VERSION_CODENAME, or NULL */
    int secure_boot;          /* 1 on, 0 off, -1 unknown (no EFI variable) */
    char *flavor;             /* the loaded module's: "open", "proprietary", or NULL */
    int module_for_kernel;    /* an nvidia.ko* under lib/modules/RELEASE: 1, 0, -1 unknown */
    char *module_path;        /* that file (as the machine sees it), or NULL */
    int module_signed;        /* 1 signed, 0 not, -1 unknown (compressed, or no file) */
    bool nouveau_bound;       /* nouveau drives a GPU, or its module is loaded */
    bool nouveau_blacklisted; /* a modprobe.d file blacklists it */
    struct cu_version lib_version; /* the user-space libraries' (libnvidia-ml.so.X.Y.Z), n == 0 if none */
    struct cu_strv installed; /* the driver's packages installed (dpkg), e.g. nvidia-driver-580 */
    struct cu_strv held;      /* those held (apt-mark hold) */
    bool pinned;              /* a pin of any kind: held package, dnf versionlock or module stream, zypper lock */
    bool reboot_required;     /* var/run/reboot-required */
};

/** Read the driver's state through @root (never fails: unknowns stay unknown). Caller frees. */
struct cu_drv_state *cu_drv_state_probe(const struct cu_sysroot *root, const struct cu_facts *facts);
void cu_drv_state_free(struct cu_drv_state *s);

/* What the user asked: --driver, --driver-source, and --cuda (for the branch floor). */
struct cu_drv_wish {
    const char *driver; /* NULL/"auto", "keep", "none", "580", "580-open", "580-proprietary" */
    const char *source; /* NULL, "distro", "nvidia" */
    const char *cuda;   /* --cuda as given, or NULL */
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
    struct cu_version version; /* the least driver of the branch that NVIDIA's CUDA table names */
    struct cu_strv reasons;
    char *refusal, *advice; /* action refuse: the sentence and what to do */
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

struct cu_problems; /* core/doctor.h */

/**
 * Name the broken-driver states (core/driver_doctor.c), each with a fix that `cudaup repair`
 * carries out where a package manager can: driver-mismatch (when sysinfo's NVML check could not
 * tell), driver-module-missing, driver-unsigned-secure-boot, driver-unpinned,
 * driver-flavor-unsupported.  Appends to @out.
 */
void cu_drv_doctor(const struct cu_facts *facts, const struct cu_catalog *cat, const struct cu_problems *seen,
                   struct cu_problems *out);

/** Where cudaup would install a driver, the fix of no-driver, nouveau, no-libcuda and driver-too-old names it. */
void cu_drv_doctor_fixes(const struct cu_facts *facts, const struct cu_catalog *cat, struct cu_problems *pr);

/** Add doctor's driver keys (flavor, secure_boot, module_for_running_kernel, library_version, ...) to @drv. */
void cu_drv_state_json(const struct cu_facts *facts, json_t *drv);

/** The data row for this distribution that carries @branch (0: any) in @flavor (NULL: any; any source but the AUR), or NULL. */
const struct cu_drv_pkg *cu_drv_row_for(const struct cu_facts *facts, const struct cu_catalog *cat, int branch,
                                        const char *flavor);

#endif /* CU_DRIVER_H */
