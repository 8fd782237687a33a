/* SPDX-License-Identifier: MIT */
/*
 * The state of one cudaup run (STYLE 8): the parsed config, the machine root,
 * the catalog and the output settings, passed to every command.
 */
#ifndef CU_APP_H
#define CU_APP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "core/catalog/catalog.h"
#include "core/base/cfg.h"
#include "core/base/error.h"
#include "core/machine/sysinfo.h"
#include "core/base/sysroot.h"

struct cu_app {
    struct cu_config cfg;
    const char *const *envp;
    struct cu_sysroot root;
    bool root_open;
    struct cu_catalog *catalog;
    FILE *log;          /* the log file, when one is open */
    char *log_path; /* the open log's path */
    bool color;         /* colour on stdout */
    bool color_err;     /* colour on stderr */
    char *self_exe;     /* this binary, for helper child processes */
    char *prefix, *state_dir, *cache_dir; /* resolved defaults */
    bool prefix_in_root;  /* the prefix is --root DIR's own default (DIR/usr/local), not one the user named */
    bool root_writable;   /* under --root DIR: this user may make DIR's changes (root, or DIR is theirs) */
    bool is_root;
    /* Test seams read once from the environment (README "Settings"). */
    const char *profile_d;  /* where scope system writes: CUDAUP_PROFILE_D, else the machine root's /etc/profile.d */
    char *profile_d_owned;  /* that, when it was made here */
    long low_speed_time_s;  /* CUDAUP_LOW_SPEED_TIME, 0 for the default */
    long retry_base_ms;     /* CUDAUP_RETRY_BASE_MS, 0 for the default */
    atomic_int *cancel;  /* set by SIGINT/SIGTERM (main.c) */
};

/**
 * Open the root, load the catalog (CUDAUP_CATALOG overrides the built-in one) and settle the folders.  Before
 * a command that changes the machine (or plans to: plan, install, repair, uninstall, the wizard) reads or
 * touches anything: --root DIR, as given, and every folder and link on the way to it must be root's or this
 * user's (cu_path_trusted, CU_E_UNSAFE_PATH); a user who may not write into DIR must name --prefix
 * (CU_E_USAGE); the prefix, state and cache folders and every folder on the way to them must be root's or
 * this user's (cu_path_trusted).
 * Errors: CU_E_USAGE, CU_E_UNSAFE_PATH, one sentence each; CU_E_UNSAFE_PATH or CU_E_IO when a default folder
 * of --root DIR (DIR/usr/local, DIR/var/lib/cudaup) leads out of DIR or through a file.
 */
CU_NODISCARD enum cu_status cu_app_setup(struct cu_app *app, struct cu_error *err);

/** Probe the machine. The caller owns *out. */
CU_NODISCARD enum cu_status cu_app_probe(struct cu_app *app, struct cu_facts **out,
                                         struct cu_error *err);

/** Open STATE/cudaup.log (or --log) for appending; failures only warn. */
void cu_app_open_log(struct cu_app *app);

/** " --root 'DIR'" where the machine is read from another root, else "": for the commands cudaup tells the user to
 *  run next, so that they act on the same machine. Caller frees. */
char *cu_app_root_flag(const struct cu_app *app);

struct cu_mirror;
struct cu_plan;

/** Probe, open the mirror, resolve and plan (installers/prepare.h). The caller frees all three. */
/** Is the request well formed (cu_prepare_check)?  Before the machine or a resume record is read. */
CU_NODISCARD enum cu_status cu_app_check_request(struct cu_app *app, struct cu_error *err);
CU_NODISCARD enum cu_status cu_app_prepare(struct cu_app *app, bool unconstrained,
                                           struct cu_facts **facts, struct cu_mirror **mirror,
                                           struct cu_plan **plan, struct cu_error *err);
/** The plan as text on stdout. */
void cu_print_plan(struct cu_app *app, const struct cu_plan *plan);
/**
 * The plan as `install` shows it before its question: the versions, the downloads and each group of steps in a
 * line, the notes; one screen (the reasons and every step in full are `cudaup plan`'s; -v prints those here).
 */
void cu_print_plan_confirm(struct cu_app *app, const struct cu_plan *plan);

/** Whether the user agreed to change the system (--yes, or y at the prompt). Exit code in *rc when not. */
bool cu_app_confirm(struct cu_app *app, const char *question, int *rc);

/** The install a command names: PREFIX/cuda-X.Y for its VERSION, else PREFIX/cuda. Caller frees. */
CU_NODISCARD enum cu_status cu_app_target(struct cu_app *app, char **dir, struct cu_error *err);

struct cu_checks;
/** Run verify's checks on @dir, with the Python environments the state records, or with @dir NULL (no CUDA install) on the
 *  environment that holds its own toolkit (cu_verify_installed); the log gets each check. */
void cu_app_verify_dir(struct cu_app *app, const char *dir, const struct cu_facts *facts, struct cu_checks *out);
/** verify's checks[] for JSON, each failure with its "fix" (repair named for @version, or NULL). */
json_t *cu_app_checks_json(struct cu_app *app, const struct cu_checks *checks, const char *version);
/** verify's rows on stdout, each failure with its fix (@failed_only: the failures alone). */
void cu_app_print_checks(struct cu_app *app, const struct cu_checks *checks, bool failed_only, const char *version);

int cu_cmd_doctor(struct cu_app *app);
/** The wizard (cudaup with no command, on a terminal). */
int cu_cmd_wizard(struct cu_app *app);
int cu_cmd_install(struct cu_app *app);
int cu_cmd_verify(struct cu_app *app);
int cu_cmd_repair(struct cu_app *app);
/* repair's driver part (cli/cmd_driver.c). */
struct cu_run_ctx;
struct cu_problems;
/**
 * Repair what of the driver `repair` can (nouveau, a module missing, unsigned or of another release than
 * its libraries, an unheld branch), after the user's consent; never another driver.  Its problems go to
 * @seen (all of them; @fixable counts those acted on), what it does to @plan (one line each, shown before it
 * runs), its steps to @ctx; *reboot when only a reboot finishes it.  Nothing to do: CU_OK.  Errors: the
 * steps'; CU_E_USAGE when not confirmed (*rc set).
 */
CU_NODISCARD enum cu_status cu_repair_driver(struct cu_app *app, struct cu_run_ctx *ctx, struct cu_problems *seen,
                                             struct cu_strv *plan, size_t *fixable, bool *reboot, int *rc,
                                             struct cu_error *err);
/** `uninstall driver`. */
int cu_uninstall_driver(struct cu_app *app);

struct cu_removal;
/** What an uninstall removes and what stays, under @head, before its question (cmd_uninstall.c). */
void cu_removal_print(struct cu_app *app, const char *head, const struct cu_removal *rm);
/** The same as `uninstall --json`'s "removal": {removes[], stays[], bytes}. */
json_t *cu_removal_json(const struct cu_removal *rm);
/** The hidden child of verify: cudaup __check NAME DIR. */
int cu_check_child_main(int argc, char **argv);
int cu_cmd_uninstall(struct cu_app *app);
int cu_cmd_mirror(struct cu_app *app);
int cu_cmd_plan(struct cu_app *app);
int cu_cmd_list(struct cu_app *app);

#endif /* CU_APP_H */
