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

/* One driver branch (data/driver/driver_branches.csv): NVIDIA's designation of it, its end of life, the kernel-module
 * flavors it is packaged in, and a release of it for branches NVIDIA's CUDA table names none of. */
struct cu_drv_branch {
    int branch;
    char *designation;      /* "Long Term Support Branch", "Production Branch", "New Feature Branch", ... */
    char *end_of_life;      /* "September 2029", or NULL: none read (New Feature Branches have none) */
    struct cu_version release; /* n == 0: none given */
    bool open, proprietary; /* the flavors it is packaged in */
    char *source, *confidence;
};

/* A distribution release (data/driver/distributions.csv): how a plan names it, the codename a derivative's
 * os-release names it by, and the distribution's own way to install the driver by hand (doctor's hint). */
struct cu_drv_release {
    char **ids, **versions;  /* os-release IDs; VERSION_IDs or "*" */
    char *name;              /* "Ubuntu 24.04" */
    char *codename;          /* "noble", or NULL */
    char **base_keys;        /* os-release keys by which a derivative names this release ("UBUNTU_CODENAME",
                              * "VERSION_CODENAME"), tried in order; empty: cudaup plans no derivative on it */
    char *by_hand;           /* the distribution's own command line for the driver ({V} {VN} {ARCH}), or NULL */
    char *by_hand_components;/* archive components to enable before it ("restricted"), or NULL */
    char *own_repository;    /* a derivative's own repository of driver packages, or NULL */
    char *ref, *confidence;
};

/* One distribution x package source x flavor (data/driver/driver_packages.csv). */
struct cu_drv_pkg {
    char *distro;
    char **ids, **versions; /* os-release IDs; VERSION_IDs or "*" */
    char *manager;          /* apt, dnf, zypper, pacman, aur */
    char *source;           /* distro, nvidia; third-party, only named: aur, elrepo */
    int *branches;
    size_t n_branches;
    char *flavor;
    char **packages, **signed_modules, **headers; /* templates: {B} {K} {R} */
    char **running_headers; /* what DKMS needs to build for the running kernel ({R}); empty: no DKMS build here */
    char *pin;              /* "apt-mark hold", "dnf module", "dnf versionlock", "zypper addlock", "none" */
    char *module_stream, *repo, *components, *suites, *initramfs, *mok_key, *mok_cert; /* or NULL */
    struct cu_version version; /* the release this source carries (measured), n == 0: the branch's first */
    char *ref, *confidence;
    char **pin_packages;    /* what the pin holds: apt preferences' package globs, the pinning package, the locked names */
    char **kernels;         /* the kernel metas ({KM}) the row serves, or "*" */
    char *variant;          /* NULL: any machine; "nvswitch": only machines with NVSwitch bridges */
    char **fabricmanager;   /* packages of the fabric manager an NVSwitch machine needs (empty: none known here) */
    char *fabricmanager_service; /* its systemd unit, or NULL */
    char **match;           /* installed at the version of packages[0] once that is installed (SUSE's KMP) */
    char *pin_version;      /* apt preferences: the pin's version glob ({B}); NULL: "{B}.*", every release of the branch */
};

/* A repository a row's packages need before they resolve (data/driver/driver_prereqs.csv). */
struct cu_drv_prereq {
    char **ids, **versions;
    char *when;             /* "dkms": the module is built here; "versionlock": the pin is a dnf versionlock */
    char *action;           /* crb, epel, versionlock */
    char **command;         /* argv templates */
    char *ref, *confidence;
};

/* The package that ships a command a plan runs after its install transaction (data/driver/driver_commands.csv). */
struct cu_drv_command {
    char **ids, **versions;
    char *command;          /* "mokutil" */
    char *package;          /* "mokutil" */
    char *ref, *confidence;
};

/* NVIDIA's repository keyring packages and their pinned hashes (data/driver/nvidia_keyrings.csv). */
struct cu_drv_keyring {
    char *url, *sha256, *ref, *confidence;
};

/* PCI functions that are NVSwitch bridges (data/driver/driver_nvswitch.csv). */
struct cu_drv_nvswitch {
    unsigned vendor, device, cls; /* device 0: any; cls 0: any (the upper 16 bits of the class, 0x0680) */
    char *name, *ref, *confidence;
};

/* A mark that shows a fourth-generation NVSwitch board (HGX/DGX B200 and later), whose switches are no
 * NVIDIA PCI function (data/driver/driver_nvswitch_vpd.csv).  kind "ib-vpd": @mark is in the VPD of an
 * InfiniBand device (/sys/class/infiniband/NAME/device/vpd), the baseboard's ConnectX-7 management PF. */
struct cu_drv_nvswitch_vpd {
    char *kind, *mark, *name;
    char *needs_file;       /* a file the NVLink Subnet Manager's package installs: its absence says nvlsm is missing */
    char **gpu_cc;          /* the compute capabilities of the GPUs such boards carry ("10.0"), NULL-terminated */
    char *ref, *confidence;
};

/* What such a board's fabric manager needs besides itself, per package source and branch: NVIDIA's NVLink
 * Subnet Manager and libnvsdm (data/driver/driver_nvlsm.csv).  @distro and @source name driver_packages rows. */
struct cu_drv_nvlsm {
    char *distro, *source;
    int *branches;
    size_t n_branches;
    char **packages;        /* templates: {B} */
    char *ref, *confidence;
};

/* Which packages are a kernel or a kernel's headers (data/driver/driver_kernel_packages.csv). */
struct cu_drv_kpkg {
    char *manager, *pattern; /* fnmatch pattern of package names; the first matching row decides */
    char *kind;              /* kernel, headers, keep (never removed: sudo), driver (the driver's own module packages) */
    char *remove_env;        /* KEY=value its removal script needs to go ahead ("SUDO_FORCE_REMOVE=yes"), or NULL */
    char *ref, *confidence;
};

struct cu_drv_data {
    struct cu_drv_gen *gens;
    size_t n_gens;
    struct cu_drv_pkg *pkgs;
    size_t n_pkgs;
    struct cu_drv_prereq *prereqs;
    size_t n_prereqs;
    struct cu_drv_command *commands;
    size_t n_commands;
    struct cu_drv_keyring *keyrings;
    size_t n_keyrings;
    struct cu_drv_nvswitch *nvswitch;
    size_t n_nvswitch;
    struct cu_drv_kpkg *kpkgs;
    size_t n_kpkgs;
    struct cu_drv_nvswitch_vpd *nvswitch_vpd;
    size_t n_nvswitch_vpd;
    struct cu_drv_nvlsm *nvlsm;
    size_t n_nvlsm;
    struct cu_drv_branch *branches;
    size_t n_branches;
    struct cu_drv_release *releases;
    size_t n_releases;
};

/**
 * Parse the catalog's "driver" object.  Errors: CU_E_INPUT naming the field.
 * The caller owns *out (cu_drv_data_free).
 */
CU_NODISCARD enum cu_status cu_drv_data_parse(const json_t *obj, const char *what, struct cu_drv_data **out,
                                              struct cu_error *err);
void cu_drv_data_free(struct cu_drv_data *d);

/** The pinned sha256 of NVIDIA's file @url, or NULL. */
const char *cu_drv_keyring_sha256(const struct cu_drv_data *d, const char *url);

/** The NVSwitch row matching PCI vendor @vendor, device @device and class @cls (0x068000), or NULL. */
const struct cu_drv_nvswitch *cu_drv_nvswitch_for(const struct cu_drv_data *d, unsigned vendor, unsigned device,
                                                  unsigned cls);

/** The NVLink Subnet Manager row for driver_packages row @row at branch @branch, or NULL (the source has none). */
const struct cu_drv_nvlsm *cu_drv_nvlsm_for(const struct cu_drv_data *d, const struct cu_drv_pkg *row, int branch);

/** "kernel", "headers" or "keep" when package @name of @manager is a kernel, a kernel's headers or a package
 *  uninstall never removes (sudo), else NULL. */
const char *cu_drv_kernel_kind(const struct cu_drv_data *d, const char *manager, const char *name);

/** The KEY=value the removal of @manager's package @name needs in its environment (its row's remove_env), or NULL. */
const char *cu_drv_kernel_remove_env(const struct cu_drv_data *d, const char *manager, const char *name);

/** The row of driver branch @branch (driver_branches.csv), or NULL: the table does not know it. */
const struct cu_drv_branch *cu_drv_branch_for(const struct cu_drv_data *d, int branch);

/** The generation row of compute capability @cc, or NULL. */
const struct cu_drv_gen *cu_drv_gen_for_cc(const struct cu_drv_data *d, const struct cu_version *cc);

#endif /* CU_DRIVER_DATA_H */
