/* SPDX-License-Identifier: MIT */
/*
 * The resolver: facts + wishes + catalog + manifests in, a plan out.
 *
 * It decides and never does: no printing, no writing.  Manifests come
 * through a struct cu_manifest_source, which the CLI backs with the mirror
 * and tests back with files; given the same inputs the plan is the same.
 */
#ifndef CU_RESOLVE_H
#define CU_RESOLVE_H

#include <stdbool.h>

#include "core/catalog/catalog.h"
#include "core/base/error.h"
#include "core/catalog/manifest.h"
#include "core/resolve/plan.h"
#include "core/machine/sysinfo.h"

struct cu_manifest_source {
    void *ctx;
    const char *base_url; /* for download URLs: BASE/cuda/redist/REL */
    /** Release labels, newest first; borrowed. */
    enum cu_status (*index)(void *ctx, enum cu_product p, char *const **labels, size_t *n,
                            struct cu_error *err);
    /** One manifest; borrowed. CU_E_NOT_FOUND when the source lacks it. */
    enum cu_status (*get)(void *ctx, enum cu_product p, const char *label,
                          const struct cu_manifest **out, struct cu_error *err);
    /** Why NVIDIA's server is not asked this run (--offline, no network), or NULL: a manifest get() then lacks is
     *  one the cache lacks, not one NVIDIA lacks. */
    const char *offline;
};

struct cu_wishes {
    const char *cuda;       /* NULL or "auto", "12", "12.4", "12.4.1" */
    const char *cudnn;      /* NULL or "auto", "none", "9", "9.1", "9.1.0", "9.1.0.70" */
    const char *framework;  /* NULL (tensorflow), "none", "pytorch", "jax==0.6.2", ... */
    const char *components; /* NULL or "default", "all", "runtime,math,cuda_nvcc" */
    const char *python;     /* NULL or "3.11" */
    const char *toolkit;    /* NULL (the default), "system", "wheels", "none" (--toolkit, issue 50) */
    bool toolkit_shared;    /* other environments share this plan's toolkit (--framework A --framework B) */
    const char *platform;   /* NULL: the machine's */
    bool unconstrained;     /* ignore this machine's GPUs and driver (`mirror` for others) */
    bool allow_inferred;    /* --allow-inferred: a build whose GPU code is inferred is planned as one read, a release
                               learned from the package index unpinned too */
    const char *advice_flags; /* flags every command the advice names carries ("--driver keep"), or NULL */
};

/**
 * Check the wishes' syntax before anything else runs: malformed versions,
 * unknown framework names, impossible combinations.  Errors: CU_E_USAGE.
 */
CU_NODISCARD enum cu_status cu_wishes_check(const struct cu_wishes *w, struct cu_error *err);

struct cu_resolve_in {
    const struct cu_facts *facts;
    const struct cu_catalog *cat;
    const struct cu_wishes *wishes;
    const struct cu_manifest_source *src;
    const char *prefix; /* where cuda-X.Y goes */
};

/**
 * Resolve.  Errors: CU_E_UNSUPPORTED (exit 3: no version fits, with the
 * number the user needs), CU_E_USAGE (unknown component), CU_E_INPUT
 * (a malformed manifest), CU_E_NETWORK (a manifest could not be fetched).
 * The caller owns *out.
 */
CU_NODISCARD enum cu_status cu_resolve(const struct cu_resolve_in *in, struct cu_plan **out,
                                       struct cu_error *err);

/**
 * Advise @p, the plan of request @w as it stands, in @err: "@lead cudaup install FLAGS gives ..." (the
 * command with @w's flags and its advice_flags; @lead translated, NULL: "What runs here:").
 */
void cu_resolve_advise(const struct cu_wishes *w, const struct cu_plan *p, const char *lead, struct cu_error *err);

/** Does component @key need @other (directly or through another), so that @other always comes with it? */
bool cu_component_needs(const char *key, const char *other);

#endif /* CU_RESOLVE_H */
