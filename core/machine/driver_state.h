/* SPDX-License-Identifier: MIT */
/*
 * What the machine's NVIDIA driver looks like beyond sysinfo's facts: the running kernel, Secure
 * Boot, the loaded module's flavor and signature, nouveau, the driver's packages and their pins.
 * Read through the machine root; nothing here runs a command.
 */
#ifndef CU_DRIVER_STATE_H
#define CU_DRIVER_STATE_H

#include <stdbool.h>

#include "core/base/parse.h"
#include "core/base/str.h"

struct cu_drv_data;
struct cu_facts;
struct cu_sysroot;

struct cu_drv_state {
    char *kernel_release;     /* "6.8.0-45-generic", or NULL */
    char *version_codename;   /* os-release VERSION_CODENAME, or NULL */
    struct cu_strv os_release; /* every os-release field as "KEY=value" (unquoted), in file order: ID_LIKE,
                                * UBUNTU_CODENAME, ... name the distribution a derivative is built on */
    int secure_boot;          /* 1 on, 0 off, -1 unknown (no EFI variable) */
    char *flavor;             /* the loaded module's: "open", "proprietary", or NULL */
    int module_for_kernel;    /* an nvidia.ko* under lib/modules/RELEASE: 1, 0, -1 unknown */
    char *module_path;        /* that file (as the machine sees it), or NULL */
    int module_signed;        /* 1 signed, 0 not, -1 unknown (unreadable, or no file); compressed ones are read decompressed */
    bool nouveau_bound;       /* nouveau drives a GPU, or its module is loaded */
    bool nouveau_blacklisted; /* a modprobe.d file blacklists it */
    struct cu_version lib_version; /* the user-space libraries' (libnvidia-ml.so.X.Y.Z), n == 0 if none */
    struct cu_strv installed; /* the driver's packages installed (dpkg), e.g. nvidia-driver-580 */
    struct cu_strv held;      /* those held (apt-mark hold) */
    struct cu_strv packages;  /* every package installed, as dpkg's database lists it (the plan checks the tools its
                               * steps run against it: mokutil), valid when @packages_read */
    bool packages_read;       /* dpkg's database was read; false: no dpkg here (rpm's and pacman's are not read) */
    bool pinned;              /* a pin of any kind: held package, apt preferences, dnf versionlock or module stream, zypper lock */
    int pin_branch;           /* the newest driver branch a pin names (apt preferences' "Pin: version 580.*", a held
                               * nvidia-driver-580, a versionlock's 3:580.95.05, a module stream 580-open); 0: none named */
    char *pin_file;           /* where that pin was read (a file, or "apt-mark hold"), or NULL */
    bool reboot_required;     /* var/run/reboot-required */
    char *boot_id;            /* /proc/sys/kernel/random/boot_id: which boot this is, or NULL (an image) */
    bool image;               /* a root other than / that shows no running kernel: a machine image */
    struct cu_strv kernels;   /* the kernels the root has modules or headers for (lib/modules/NAME), newest last */
    char *kernel_meta;        /* the package that brings this machine's kernels: the installed linux-image meta that
                               * depends on the newest installed kernel image (Ubuntu "generic-hwe-22.04", Debian
                               * "cloud-amd64"), or Arch's pkgbase ("linux-lts"); NULL when none is known */
    struct cu_strv nvidia_functions; /* NVIDIA PCI functions that are not GPUs: "DEVICE CLASS" ("0x22a3 0x068000") */
    struct cu_strv infiniband_vpd; /* "NAME TEXT" per /sys/class/infiniband/NAME/device/vpd readable here: its
                                    * printable bytes, the others as spaces */
    int infiniband_vpd_unread;     /* VPD files there that could not be read here (Linux makes them root's alone) */
    struct cu_strv files_present; /* the data's sign files found here (cu_drv_state_probe_files) */
    char *module_stream;      /* the enabled stream of dnf's nvidia-driver module ("580-open"), or NULL */
    bool fabricmanager_enabled; /* the nvidia-fabricmanager unit is enabled (systemd's wants link) */
};

/**
 * Read the driver's state through @root (never fails: unknowns stay unknown).  In a machine image the
 * running kernel is the image's newest (its lib/modules), not this host's.  The packages come from
 * dpkg-query (found on @envp's PATH) for this machine; for another machine root, and where dpkg-query is
 * not there, from dpkg's files read through the root (the status file and its journal of updates).
 * Caller frees.
 */
struct cu_drv_state *cu_drv_state_probe(const struct cu_sysroot *root, const struct cu_facts *facts,
                                        const char *const *envp);
/**
 * Note which of the files the driver data names as a component's sign (driver_nvswitch_vpd.csv's
 * needs_file: the NVLink Subnet Manager's configuration) exist through @root, in @s->files_present.
 * @d may be NULL (nothing noted).
 */
void cu_drv_state_probe_files(struct cu_drv_state *s, const struct cu_sysroot *root, const struct cu_drv_data *d);
void cu_drv_state_free(struct cu_drv_state *s);

/** os-release's value of @key ("ID_LIKE") as read into @s, or NULL (absent or empty; @s may be NULL). Borrowed. */
const char *cu_drv_state_os_value(const struct cu_drv_state *s, const char *key);

#endif /* CU_DRIVER_STATE_H */
