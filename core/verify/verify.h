/* SPDX-License-Identifier: MIT */
/*
 * `verify`: is this CUDA install whole, do its libraries load with the
 * right versions, does nvcc compile, and does real GPU work give the right
 * answers?  Works on any CUDA folder; with a cudaup record it also checks
 * every recorded file.
 *
 * Library and GPU checks run in a child process each (cudaup __check NAME
 * DIR), with LD_LIBRARY_PATH set to the install and a time limit, so that a
 * broken library or a hung GPU cannot take cudaup down.  The child calls
 * cu_check_child() and prints one JSON line.
 */
#ifndef CU_VERIFY_H
#define CU_VERIFY_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core/base/advice.h"
#include "core/catalog/catalog.h"
#include "core/machine/sysinfo.h"

enum cu_check_status { CU_CHECK_PASS, CU_CHECK_FAIL, CU_CHECK_SKIP };

struct cu_check {
    char *name;
    enum cu_check_status status;
    char *detail;       /* the whole sentence, in the command line's words (the CLI's, the JSON's) */
    char *fact;         /* detail without its advice, when it has advice of cudaup's own; else NULL */
    enum cu_advice adv; /* what that advice asks for, for the wizard to word (advice.h) */
};

struct cu_checks {
    struct cu_check *v;
    size_t n;
    /* Every recorded file that is not as installed (DESIGN "damaged[]"). */
    struct cu_damaged {
        char *path;          /* relative to the install */
        const char *problem; /* "missing", "altered", "mode" (static) */
    } *damaged;
    size_t n_damaged;
};

void cu_checks_fini(struct cu_checks *c);
/**
 * Add a check whose @detail (the command line's words) is @fact followed by advice to do @adv
 * ("…; repair restores them").  Takes both strings.
 */
void cu_checks_add_advised(struct cu_checks *c, const char *name, enum cu_check_status st, enum cu_advice adv,
                           char *fact, char *detail);
/** Make @out a failure that repair mends: @fact (taken), and "@fact; repair restores it" as its detail. */
void cu_check_fail_repair(struct cu_check *out, char *fact);
/** The verify document's "damaged" array: every recorded file not as installed, with its problem. */
json_t *cu_checks_damaged_json(const struct cu_checks *c);
void cu_checks_add(struct cu_checks *c, const char *name, enum cu_check_status st, const char *fmt, ...)
    CU_PRINTF(4, 5);
bool cu_checks_failed(const struct cu_checks *c);
/** "6 passed, 0 failed, 5 skipped: no GPU work was done (why)." — what was and was not proven. Caller frees. */
char *cu_checks_summary(const struct cu_checks *c);
const char *cu_check_status_name(enum cu_check_status s);
json_t *cu_checks_json(const struct cu_checks *c);

struct cu_verify_opts {
    const char *dir;               /* the install folder */
    const struct cu_facts *facts;  /* the machine (for the driver) */
    const struct cu_catalog *cat;
    bool deep, require_gpu;
    long timeout_ms;               /* each child check */
    const char *self_exe;          /* this binary, for the child checks */
    const char *const *envp;
    const char *python;            /* the framework's Python, or NULL */
    const char *framework;         /* tensorflow, pytorch, jax, or NULL */
    const atomic_int *cancel;
};

/** Run every check; the outcome is in @out, never an error. */
void cu_verify_run(const struct cu_verify_opts *o, struct cu_checks *out);

/** Child side: run check @name against @dir and fill @out. */
void cu_check_child(const char *name, const char *dir, struct cu_check *out);

/** The library @stem ("libcudart.so") of the install, preferring .so.MAJOR; caller frees; NULL if none. */
char *cu_install_lib(const char *dir, const char *stem, unsigned major);

#endif /* CU_VERIFY_H */
