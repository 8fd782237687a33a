/* SPDX-License-Identifier: MIT */
/*
 * What verify found, told beyond its own screen: the next step for each failed check, and every
 * check written to the log, so that a failed install can be read from the log alone (issue 26).
 */
#ifndef CU_VERIFY_REPORT_H
#define CU_VERIFY_REPORT_H

#include "core/verify/checks.h"

/** What puts a failed check right. */
enum cu_check_fix {
    CU_FIX_NONE,      /* a pass or a skip */
    CU_FIX_REPAIR,    /* the install's files: repair restores them from the record */
    CU_FIX_NVCC,      /* repair, or the host compiler nvcc needs */
    CU_FIX_DRIVER,    /* a driver that runs this CUDA */
    CU_FIX_GPU,       /* the driver and the GPU: doctor */
    CU_FIX_FRAMEWORK, /* the framework's build or environment */
    CU_FIX_OWN,       /* the check's own fix (struct cu_check.fix), from what it found */
};

/** The kind of fix for @c (by its name; CU_FIX_NONE unless it failed). */
enum cu_check_fix cu_check_fix_kind(const struct cu_check *c);

/** The next step for @c as one translated sentence naming the command; NULL unless it failed. Static or @c's. */
const char *cu_check_fix(const struct cu_check *c);

/**
 * Write each check of @c (its status, name, detail and, for a failure, its fix) and the counts to
 * the log at level info, under the tag "verify", for the install in @dir.  Any thread.
 */
void cu_checks_log(const struct cu_checks *c, const char *dir);

#endif /* CU_VERIFY_REPORT_H */
