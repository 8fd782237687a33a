/* SPDX-License-Identifier: MIT */
/*
 * The catalog's "driver" tables (data/driver/ CSV files, see its SOURCES.md): which branch and
 * kernel-module flavors each GPU generation takes, and which packages each distribution carries,
 * from which source, held how.  Facts only: the choice is core/resolve/driver.h.
 */
#ifndef CU_DRIVER_DATA_H
#define CU_DRIVER_DATA_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/parse.h"

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

#endif /* CU_DRIVER_DATA_H */
