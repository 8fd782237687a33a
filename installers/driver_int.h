/* SPDX-License-Identifier: MIT */
/*
 * Inside the driver stage, bottom up: the record of what cudaup changed (driver_record.c); the steps
 * the install is made of, each recorded (driver_step.c); repair and resume (driver_repair.c) and the
 * record's undoing (driver_uninstall.c); the plan and the install's order (driver.c).  Not for other
 * folders.
 */
#ifndef CU_INST_DRIVER_INT_H
#define CU_INST_DRIVER_INT_H

#include <jansson.h>
#include <stdbool.h>

#include "core/install/exec.h"
#include "driver.h"

#define DRV_BLACKLIST_FILE CU_DRV_BLACKLIST_FILE
#define DRV_SOURCES_FILE CU_DRV_SOURCES_FILE
#define DRV_PREFS_FILE CU_DRV_PREFS_FILE

/** Run one system command as a step: events, the run's result, and the record of what it changed. */
CU_NODISCARD enum cu_status drv_run_step(struct inst_driver_ctx *c, const char *action, const char *const *argv,
                                         bool interactive, struct cu_error *err);

/** Write one system file as a step (recorded as cudaup's). */
CU_NODISCARD enum cu_status drv_write_step(struct inst_driver_ctx *c, const char *action, const char *path,
                                           const char *text, struct cu_error *err);

/** "@cmd" split into words, then @extra, run as a step. */
CU_NODISCARD enum cu_status drv_run_words(struct inst_driver_ctx *c, const char *action, const char *cmd,
                                          const struct cu_strv *extra, struct cu_error *err);

/** Nouveau's blacklist, then the initramfs (@initramfs a command line from the data, or NULL). */
CU_NODISCARD enum cu_status drv_blacklist_nouveau(struct inst_driver_ctx *c, const char *initramfs,
                                                  struct cu_error *err);

/** Queue DKMS's signing key @cert for enrolment (mokutil on the terminal). *queued says whether it was. */
CU_NODISCARD enum cu_status drv_queue_key(struct inst_driver_ctx *c, const char *cert, bool *queued,
                                          struct cu_error *err);

/** Write @doc (taken) as STATE/@name atomically. */
CU_NODISCARD enum cu_status drv_write_json(const char *state_dir, const char *name, json_t *doc, struct cu_error *err);

/* ---- the record: STATE/driver.json (driver_record.c) ---- */

struct drv_rec {
    char *manager;                 /* apt, dnf, zypper, pacman: whose names these are */
    int branch;                    /* informational */
    char *flavor, *source;         /* informational, or NULL */
    struct cu_strv packages;       /* what cudaup's steps newly installed, dependencies included */
    struct cu_strv kept_config;    /* of those, the ones whose configuration files were there before: removed, not purged */
    struct cu_strv held;           /* apt-mark hold / zypper addlock of cudaup's */
    struct cu_strv versionlock;    /* dnf versionlock patterns cudaup added */
    struct cu_strv streams;        /* dnf module streams cudaup enabled */
    struct cu_strv repos;          /* zypper repositories cudaup added (aliases) */
    struct cu_strv files;          /* system files cudaup made */
    char *initramfs;               /* the command that rebuilds the initramfs after the blacklist, or NULL */
};

void drv_rec_init(struct drv_rec *r);
void drv_rec_fini(struct drv_rec *r);
bool drv_rec_empty(const struct drv_rec *r);

/**
 * Read STATE/driver.json.  It is input: the folder and file must be no other user's (cu_read_record),
 * every package name the manager's own syntax, every file one cudaup makes where it makes it, the
 * initramfs command one of the data's.  *exists false (and CU_OK) when there is none.  Errors:
 * CU_E_INPUT (malformed: names what), CU_E_UNSAFE_PATH, CU_E_UNSUPPORTED (an older cudaup's record
 * of what it planned, not of what it installed), CU_E_IO.
 */
CU_NODISCARD enum cu_status drv_rec_load(const char *state_dir, const struct cu_catalog *cat, struct drv_rec *r,
                                         bool *exists, struct cu_error *err);

/** Write @r as STATE/driver.json, or remove that file when @r is empty. Errors: CU_E_IO. */
CU_NODISCARD enum cu_status drv_rec_save(const char *state_dir, const struct drv_rec *r, struct cu_error *err);

/** Is @name a package name of @manager's (apt: Debian's [a-z0-9][a-z0-9+.-]+; rpm; pacman)? */
bool drv_pkg_name_ok(const char *manager, const char *name);

/** The manager whose packages @prog changes: apt, dnf, zypper, pacman, or NULL. */
const char *drv_manager_of(const char *prog);

/**
 * The packages installed under the root, as @manager's database says (dpkg-query, rpm -qa, pacman -Q),
 * asked through the runner.  @config gets apt's packages of which only configuration files are left
 * (may be NULL); @held those on hold.  Errors: those of the query.
 */
CU_NODISCARD enum cu_status drv_installed(const struct cu_sys *s, const char *manager, struct cu_strv *installed,
                                          struct cu_strv *config, struct cu_strv *held, struct cu_error *err);

/* What a step changed, compared before and after it (drv_run_step). */
struct drv_snap {
    const char *manager;      /* packages are compared: their manager, else NULL */
    struct cu_strv before, config_before, held_before;
    bool ok;                  /* the "before" was read */
};

void drv_snap_before(struct inst_driver_ctx *c, const char *const *argv, struct drv_snap *sn);
/** Record what the step did (also a failed one: what it installed is cudaup's). Errors: the record's. */
CU_NODISCARD enum cu_status drv_snap_after(struct inst_driver_ctx *c, const char *const *argv, struct drv_snap *sn,
                                           enum cu_status step, struct cu_error *err);
void drv_snap_fini(struct drv_snap *sn);

/** Record system file @path as made by cudaup. Errors: the record's. */
CU_NODISCARD enum cu_status drv_rec_add_file(struct inst_driver_ctx *c, const char *path, struct cu_error *err);

/* ---- around the steps (driver_uninstall.c, driver_repair.c) ---- */

/**
 * Before the first change: not inside a container (drv_refuse_in_container), the record (if any) is sound, and
 * the runner can run @manager's commands where it runs them (inside a machine root: the tree's own, chrooted; a tree
 * without them is refused by name).  Errors: CU_E_UNSUPPORTED, and drv_rec_load's.
 */
CU_NODISCARD enum cu_status drv_preflight(struct inst_driver_ctx *c, const char *manager, struct cu_error *err);

/**
 * The runner's root is a container (core/machine/container.h): its driver is the host's, and nothing of a driver
 * is installed, changed or removed there (issue 48).  Errors: CU_E_UNSUPPORTED with the sentence and its advice.
 */
CU_NODISCARD enum cu_status drv_refuse_in_container(const struct inst_driver_ctx *c, struct cu_error *err);

/**
 * Rebuild the DKMS modules for the kernels that matter (the running one; in an image, each of its
 * kernels with headers), forcing it where a module is built already, so that DKMS signs it with its key
 * (and makes the key at this first signed build).  Errors: the commands'.
 */
CU_NODISCARD enum cu_status drv_dkms_rebuild(struct inst_driver_ctx *c, struct cu_error *err);

/** The kernels a DKMS build is for: in a machine image each with headers (lib/modules/K/build), newest last; else the running one. */
void drv_build_kernels(const struct cu_sys *s, struct cu_strv *out);

/** Sort kernel releases oldest first (6.1.0-9 before 6.1.0-10). */
void drv_sort_kernels(struct cu_strv *v);

/** Write STATE/resume.json: where to go on after the reboot, and which boot this was. */
CU_NODISCARD enum cu_status drv_resume_write(struct inst_driver_ctx *c, const struct cu_plan *plan,
                                             const struct cu_facts *facts, bool queued, struct cu_error *err);

/**
 * In a machine image, after the driver's transaction: `dkms autoinstall -k K` for each kernel the image can boot that
 * has its headers and no module yet (the plan's "build" step).  Errors: the command's.
 */
struct cu_prepare_in;

/**
 * In a machine image's plan (p->image, --root): the first-boot unit's step before the image's end, and
 * p->firstboot_command and p->firstboot_state; where none can be written (no systemd in the image, the state folder
 * outside it), a reason saying so instead (driver_firstboot.c).
 */
void drv_firstboot_plan(const struct cu_prepare_in *in, struct cu_drv_plan *p);

/**
 * The plan's "firstboot" step: the script and the unit written into the image through the runner, the image's
 * `systemctl enable`, each recorded as cudaup's.  Errors: those of the writes and the command.
 */
CU_NODISCARD enum cu_status drv_firstboot_write(struct inst_driver_ctx *c, const struct cu_drv_plan *d,
                                                const struct cu_drv_step *s, struct cu_error *err);

CU_NODISCARD enum cu_status drv_image_build(struct inst_driver_ctx *c, struct cu_error *err);

/**
 * The end of an install into a machine image: the module is there for the image's kernels and the
 * branch is held (else CU_E_TOOL naming what is missing), the resume record says the image's first boot
 * goes on: CU_E_REBOOT with what to do there.
 */
CU_NODISCARD enum cu_status drv_image_done(struct inst_driver_ctx *c, const struct cu_plan *plan, struct cu_error *err);

/* ---- where an install stopped before its end: a failed step, Ctrl-C (driver_stop.c) ---- */

/**
 * Write STATE/resume.json for a driver install that stopped before step @at of @plan's driver (the steps before
 * it finished; @at may be n_steps): @why "failed" or "interrupted"; @queued: DKMS's key was queued.  The keys of
 * a reboot's record, and "stopped", "stopped_at", "driver_done".  Errors: CU_E_IO.
 */
CU_NODISCARD enum cu_status drv_stop_write(struct inst_driver_ctx *c, const struct cu_plan *plan,
                                           const struct cu_facts *facts, size_t at, const char *why, bool queued,
                                           struct cu_error *err);

/**
 * How many of @d's first steps the last run finished, by its stop record, that need not run again: the same
 * steps of the same branch and flavor, what they made still there, a module load never.  0 when none.  *queued
 * is set when one of them queued DKMS's key; *said (caller owns) is the sentence that says so, NULL with 0.
 */
size_t drv_stop_resume(struct inst_driver_ctx *c, const struct cu_drv_plan *d, bool *queued, char **said);

/** Remove a stop record (a reboot's record stays). */
void drv_stop_clear(const char *state_dir);

/** Steps @at.. of @d for a sentence ("/etc/modprobe.d/x.conf; `update-initramfs -u`; the reboot"). Caller owns. */
char *drv_steps_left(const struct cu_drv_plan *d, size_t at);

/** Split @still (cudaup's packages still installed, of record @r) into what uninstall removes and keeps. */
CU_NODISCARD enum cu_status drv_uninstall_split(struct inst_driver_ctx *c, const struct drv_rec *r, const struct cu_strv *still,
                                                struct drv_unplan *u, struct cu_error *err);

#endif /* CU_INST_DRIVER_INT_H */
