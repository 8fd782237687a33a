/* SPDX-License-Identifier: MIT */
/*
 * verify's list of checks: each check's name, outcome and sentence, the recorded files found
 * damaged, and what is said of the whole (its summary, its JSON).  Both sides of verify fill it:
 * the checks in verify*.c and the judge of pip's libraries (verify_libs.c); the CLI and the
 * wizard read it.
 */
#ifndef CU_CHECKS_H
#define CU_CHECKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/advice.h"
#include "core/base/macros.h"

enum cu_check_status { CU_CHECK_PASS, CU_CHECK_FAIL, CU_CHECK_SKIP };

struct cu_check {
    char *name;
    enum cu_check_status status;
    char *detail;       /* the whole sentence, in the command line's words (the CLI's, the JSON's) */
    char *fact;         /* detail without its advice, when it has advice of cudaup's own; else NULL */
    enum cu_advice adv; /* what that advice asks for, for the wizard to word (advice.h) */
    char *fix;          /* a failure's own next step, when it knows a better one than its kind's; else NULL */
    char *framework;    /* the framework a check is about ("pytorch"), or NULL (DESIGN: checks[].framework) */
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
    /* The CUDA libraries the frameworks really mapped (DESIGN verify "libraries[]"), or NULL: owned. */
    json_t *libraries;
};

void cu_checks_fini(struct cu_checks *c);
/**
 * Add a check whose @detail (the command line's words) is @fact followed by advice to do @adv
 * ("…; repair restores them").  Takes both strings.
 */
void cu_checks_add_advised(struct cu_checks *c, const char *name, enum cu_check_status st, enum cu_advice adv,
                           char *fact, char *detail);
/** Add a check with @detail and, for a failure, @fix: what to change, naming the file or variable (both taken). */
void cu_checks_add_fix(struct cu_checks *c, const char *name, enum cu_check_status st, char *detail, char *fix);
/** The check added last is about @framework ("pytorch", "tensorflow", "jax"; copied): its JSON says so. */
void cu_checks_about(struct cu_checks *c, const char *framework);
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

#endif /* CU_CHECKS_H */
