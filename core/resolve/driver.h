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

/* An image's first-boot unit (issue 46 item 12), paths inside the image. */
#define CU_DRV_FIRSTBOOT_UNIT "/etc/systemd/system/cudaup-firstboot.service"
#define CU_DRV_FIRSTBOOT_LINK "/etc/systemd/system/multi-user.target.wants/cudaup-firstboot.service"
#define CU_DRV_FIRSTBOOT_SCRIPT "/usr/local/sbin/cudaup-firstboot"

/* The files cudaup writes outside its prefix for the driver (each also a step of the plan). */
#define CU_DRV_BLACKLIST_FILE "/etc/modprobe.d/cudaup-blacklist-nouveau.conf"
#define CU_DRV_SOURCES_FILE "/etc/apt/sources.list.d/cudaup-nvidia-driver.sources"
#define CU_DRV_PREFS_FILE "/etc/apt/preferences.d/cudaup-nvidia-driver"

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

/*
 * One thing the driver's install does, in the order it does them (the plan's driver.steps[]): a command
 * (@argv), a file cudaup writes (@path with @text; @text NULL: made on the machine from its own
 * configuration, the apt sources), or a file fetched first (@url, checked against @sha256 when set).
 * The installer carries them out in order; "keyring", "sources", "match", "mok", "load" and "reboot"
 * need what only the run knows (the cache, the machine's sources, an installed version, a terminal).
 */
struct cu_drv_step {
    char *action; /* sources keyring repository update crb epel versionlock headers module pin install match lock
                   * fabricmanager service blacklist initramfs mok load reboot */
    char **argv;  /* NULL-terminated, or NULL */
    char *path, *text;
    char *url, *sha256;
    char *query;  /* "match": the package whose installed version replaces {KV} in @argv */
    char *why;
};

/* The plan's driver object (DESIGN "plan ... driver"). */
struct cu_drv_plan {
    char *action;           /* keep, install, refuse */
    int branch;             /* 0 with keep */
    char *flavor, *manager, *source; /* or NULL */
    char *distro;           /* the data row's label */
    char *os;               /* the machine's distribution as the plan names it ("Linux Mint 22 (Ubuntu 24.04 base)") */
    char *base;             /* a derivative's base release ("Ubuntu 24.04"), or NULL */
    char *codename;         /* the codename of the archive the packages come from (the base's), or NULL */
    struct cu_strv packages;
    struct cu_strv pin_packages; /* what the pin holds (apt-mark hold, zypper addlock) */
    char *pin;              /* how the branch is held, as a command line for the user */
    char *pin_file;         /* the file that holds it (apt preferences), or NULL: said apart from the pin */
    char *pin_kind;         /* the data's pin column */
    char *pin_version;      /* apt preferences: the version glob the pin holds ("580.*"), or NULL */
    char *module_stream, *repo, *components, *suites, *initramfs;
    char *secure_boot;      /* off, signed, mok */
    char *mok_key, *mok_cert;
    bool blacklist_nouveau;
    bool reboot;
    bool reboot_may;        /* no reboot planned, but the packages may bring a newer kernel than the running one */
    bool keep_may_do;       /* action refuse: leaving the driver as it is may serve (no branch serves every GPU) */
    struct cu_version version; /* the least driver of the branch that NVIDIA's CUDA table names */
    struct cu_strv reasons;
    struct cu_strv reason_sources; /* beside each reason, the data it rests on ("" for none): shown with -v,
                                    * in the JSON's provenance and in the log, never in the reason */
    char *refusal, *advice; /* action refuse: the sentence and what to do */
    bool image;             /* into a machine image (--root): no module load, no reboot; its first boot goes on */
    /* The image's first-boot unit (installers/driver_firstboot.c), or NULLs where none is written: the command it runs
     * there (the install as given, without --root, its paths as the image sees them) and the state folder as the image
     * sees it (its resume.json, and where the unit records its result: firstboot.json). */
    char *firstboot_command, *firstboot_state;
    bool container;         /* cudaup runs inside a container: the host's driver serves it, never a driver step */
    struct cu_version host; /* with @container: the host's driver it sees (n == 0: none) */
    bool host_libs;         /* with @container: the driver's libcuda.so.1 is in the container */
    char *kernel_meta;      /* the kernel meta the packages follow ({KM}: "generic-hwe-22.04", "amd64", "linux-lts") */
    int nvswitch;           /* NVSwitch bridges found on PCI */
    int nvlink5;            /* fourth-generation NVSwitch management ports found (driver_nvswitch_vpd.csv) */
    int nvlink5_unread;     /* InfiniBand VPD files that could not be read (not root): such ports may be unseen */
    struct cu_strv fabricmanager; /* its packages (also in @packages), empty without NVSwitch */
    struct cu_strv nvlsm;   /* with @nvlink5: the NVLink Subnet Manager's packages (also in @packages) */
    char *fabricmanager_service;
    struct cu_drv_step *steps;
    size_t n_steps;
};

/** A driver flavor ("open", "proprietary") in the user's words; any other value as it is. Static. */
const char *cu_drv_flavor_word(const char *flavor);
/** The plan's secure_boot ("off", "signed", "mok") in the user's words. Static. */
const char *cu_drv_secure_boot_word(const char *secure_boot);

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

/*
 * Inside a container (driver_container.c): the keep plan's reasons onto @reasons (the host's driver it sees, or
 * how to start the container with the GPU), or, for an explicit branch in @mode, true with the refusal and its
 * advice (*@refusal, *@advice: caller owns).
 */
bool cu_drv_container(const struct cu_facts *f, const char *mode, struct cu_strv *reasons, char **refusal, char **advice);
/** "Docker, seen in /.dockerenv" (or "seen in /run/.containerenv" where no engine is named), translated. Caller owns. */
char *cu_drv_container_where(const struct cu_container_info *c);

/* The steps (driver_steps.c). */
void cu_drv_steps_build(const struct cu_drv_in *in, struct cu_drv_plan *p, const struct cu_drv_pkg *row, const char *km);

/**
 * The packages the steps' own commands need (driver_tools.c): each command a step runs after the install
 * transaction whose package (data/driver/driver_commands.csv) dpkg's database does not list, or that cannot be
 * read here, joins the transaction (@p's packages and its install step), with a reason.
 */
void cu_drv_steps_tools(const struct cu_drv_in *in, struct cu_drv_plan *p);

/** The driver_commands.csv row of @command on @f's distribution (its ID and VERSION_ID), or NULL. */
const struct cu_drv_command *cu_drv_command_for(const struct cu_drv_data *d, const struct cu_facts *f,
                                                const char *command);
void cu_drv_step_fini(struct cu_drv_step *s);
json_t *cu_drv_steps_json(const struct cu_drv_plan *p);
json_t *cu_drv_repositories_json(const struct cu_drv_plan *p);

/**
 * The facts as they will be once the planned driver runs (for the resolver): a shallow copy
 * of @facts whose driver is the plan's branch.  @out must not be freed with cu_facts_free.
 */
void cu_drv_planned_facts(const struct cu_facts *facts, const struct cu_catalog *cat, const struct cu_drv_plan *p,
                          struct cu_facts *out);

/**
 * Expand a package template: {B} branch, {K} the kernel release's flavour ("generic" of 6.8.0-45-generic),
 * {KM} the kernel meta (cu_drv_kernel_meta), {R} the release, {V} VERSION_ID's major, {VN} VERSION_ID
 * without dots, {ARCH} x86_64 or sbsa (NVIDIA's repositories), {ARCHR} x86_64 or aarch64 (RHEL's).
 * Caller owns.
 */
char *cu_drv_expand(const char *tmpl, int branch, const struct cu_facts *facts);

/** cu_drv_expand with {KM} given (a row's alias of the machine's kernel meta). Caller owns. */
char *cu_drv_expand_km(const char *tmpl, int branch, const struct cu_facts *facts, const char *km);

/** cu_drv_expand_km for kernel release @krel ({R}, and {K} its flavour) instead of the machine's. Caller owns. */
char *cu_drv_expand_kernel(const char *tmpl, int branch, const struct cu_facts *facts, const char *km, const char *krel);

/** cu_drv_expand with @row's alias of the kernel meta ("virtual=generic"). Caller owns. */
char *cu_drv_expand_row(const struct cu_drv_pkg *row, const char *tmpl, int branch, const struct cu_facts *facts);

/** {KM}: the machine's kernel meta (driver_state), else the release's flavour when it names one; NULL: unknown. */
const char *cu_drv_kernel_meta(const struct cu_facts *facts);

/** How @row serves kernel meta @km: the meta its templates use (an alias "virtual=generic" maps), or NULL. */
const char *cu_drv_row_kernel(const struct cu_drv_pkg *row, const char *km);

/**
 * Fourth-generation NVSwitch management ports (HGX/DGX B200 and later): InfiniBand devices whose VPD holds a
 * driver_nvswitch_vpd.csv mark.  @row (may be NULL) gets the first matching row.
 */
/** Could this machine be a fourth-generation NVSwitch board: a GPU here of a compute capability such boards carry? */
bool cu_drv_nvlink5_possible(const struct cu_facts *facts, const struct cu_catalog *cat);
int cu_drv_nvlink5_count(const struct cu_facts *facts, const struct cu_catalog *cat,
                         const struct cu_drv_nvswitch_vpd **row);

/** NVSwitch bridges among the machine's NVIDIA PCI functions (driver_nvswitch.csv); @name gets the first's. */
int cu_drv_nvswitch_count(const struct cu_facts *facts, const struct cu_catalog *cat, const char **name);

/** The step that holds @row's branch (a command or an apt preferences file), or NULL for "none". Caller frees. */
struct cu_drv_step *cu_drv_pin_step(const struct cu_drv_pkg *row, int branch, const struct cu_facts *facts);

/** The version glob an apt preferences pin of @row holds branch @branch to ("580.*"; a derivative's own build,
 *  "580.*pop*"). Caller owns. */
char *cu_drv_pin_version(const struct cu_drv_pkg *row, int branch, const struct cu_facts *facts);
void cu_drv_step_free(struct cu_drv_step *s);
/** "apt-get install -y x" of a step's argv, or its path. Caller owns. */
char *cu_drv_step_line(const struct cu_drv_step *s);

/** The data row for this distribution that carries @branch (0: any) in @flavor (NULL: any; a source cudaup installs from, never a third-party one), or NULL. */
const struct cu_drv_pkg *cu_drv_row_for(const struct cu_facts *facts, const struct cu_catalog *cat, int branch,
                                        const char *flavor);

#endif /* CU_DRIVER_H */
