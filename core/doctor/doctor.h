/* SPDX-License-Identifier: MIT */
/*
 * Turn facts into problems, each with a stable code, a severity, one
 * sentence for the user and a fix.  Pure: facts + catalog in, list out.
 */
#ifndef CU_DOCTOR_H
#define CU_DOCTOR_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/advice.h"
#include "core/catalog/catalog.h"
#include "core/machine/sysinfo.h"

enum cu_severity {
    CU_SEV_INFO,
    CU_SEV_WARNING,
    CU_SEV_ERROR,
};

struct cu_problem {
    char *code;    /* "no-driver" */
    enum cu_severity severity;
    char *message; /* translated */
    char *fix;     /* translated */
    enum cu_advice adv; /* what the fix asks of cudaup, for the wizard to word (advice.h) */
    char *adv_arg;      /* its argument, or NULL */
    char *source;       /* the data the finding rests on, or NULL: JSON and -v only, never in the message */
};

struct cu_problems {
    struct cu_problem *v;
    size_t n;
};

void cu_problems_init(struct cu_problems *p);
void cu_problems_fini(struct cu_problems *p);
void cu_problems_add(struct cu_problems *p, const char *code, enum cu_severity sev, char *message,
                     char *fix);
/** The problem added last is fixed by @adv (with @arg, copied; or NULL): cudaup's own doing. */
void cu_problems_advise(struct cu_problems *p, enum cu_advice adv, const char *arg);
/** The problem added last rests on @source (copied): the data row and its citation. */
void cu_problems_source(struct cu_problems *p, const char *source);
bool cu_problems_has_error(const struct cu_problems *p);
const char *cu_severity_name(enum cu_severity s);

/**
 * Examine @facts and append every problem found to @out.  @root is where
 * folders named by environment variables are checked; NULL skips that.
 */
void cu_doctor_check(const struct cu_facts *facts, const struct cu_catalog *cat,
                     const struct cu_sysroot *root, const char *const *envp,
                     struct cu_problems *out);

/**
 * The newest CUDA X.Y that builds for every GPU in @facts and has archives,
 * and the driver it needs.  False when no GPU or none fits.
 */
bool cu_doctor_best_cuda(const struct cu_facts *facts, const struct cu_catalog *cat,
                         struct cu_version *cuda, struct cu_version *driver);

/** How to get a driver on this distribution by hand, one translated sentence from the distribution rows of the
 *  driver data (data/driver/distributions.csv), or a general one.  Caller owns. */
char *cu_doctor_driver_hint(const struct cu_facts *facts, const struct cu_catalog *cat);

/** The doctor document of DESIGN.md "JSON" (gpus, driver, cuda_installs, ...). */
json_t *cu_doctor_json(const struct cu_facts *facts, const struct cu_problems *problems);

#endif /* CU_DOCTOR_H */
