/* SPDX-License-Identifier: MIT */
/*
 * Learning the releases that shipped after the embedded catalog, as a plan starts: the frameworks asked for, from
 * the package index (core/fetch/pyindex.c): each release newer than the catalog's record of the index, and the
 * one pinned, with the Pythons of its wheels and the Requires-Dist of its METADATA (followed into torch's
 * cuda-toolkit extras and JAX's CUDA plugins); and the CUDA and cuDNN releases the mirror lists that the catalog
 * does not know.  What was learned becomes a catalog of the usual shapes (core/catalog/catalog_learned.c) that
 * the resolver plans with; what the plan then took, what it passed over and why, and that the index was offline,
 * are said once, on the plan (cu_learn_explain).
 */
#ifndef CU_LEARN_H
#define CU_LEARN_H

#include <stdbool.h>

#include "core/base/cfg.h"
#include "core/base/error.h"
#include "core/base/str.h"
#include "core/catalog/catalog.h"
#include "core/fetch/mirror.h"
#include "core/resolve/plan.h"

struct cu_learn_opts {
    const char *index_url;    /* the index to read (a site mirror's, --index-url's), or NULL: PyPI */
    const char *cache_dir;    /* CACHE, or NULL */
    const char *ca_cert;
    long connect_ms, total_ms; /* 0: the index's defaults (3 s, 5 s) */
    bool offline;             /* --offline, CUDAUP_OFFLINE=1 */
    bool allow_inferred;      /* --allow-inferred (for what the plan says) */
    const char *framework;    /* --framework as given (NULL: TensorFlow) */
    const char *const *envp;
};

struct cu_learn_result {
    struct cu_catalog *cat;   /* the catalog with what was learned; NULL when nothing was (plan with the base) */
    bool offline;             /* the index was not asked (--offline) or did not answer in time */
    char *offline_why;        /* why, or NULL */
    bool forced;              /* --offline */
    char *index;              /* the index, as shown */
    char *day;                /* when it answered (or its cached answer was read) */
    bool cached;              /* what was read came from cudaup's cache */
    struct cu_strv notes;     /* what could not be learned, for the plan's warnings */
    const struct cu_catalog *base;
    bool allow_inferred;
    bool mirror_offline;      /* NVIDIA's server is not asked either (its manifests and archives from the cache) */
    char *cache_dir;          /* CACHE, or NULL */
};

void cu_learn_result_init(struct cu_learn_result *r);
void cu_learn_result_fini(struct cu_learn_result *r);

/**
 * Learn what @o asks about, against catalog @base, into @res, and the CUDA and cuDNN releases mirror @m (NULL:
 * none) lists that @base does not know (from the mirror's listing; with --offline, none is asked for).  Never
 * fails the plan: what cannot be read is noted in res->notes, an index that does not answer makes res->offline.
 * Errors: CU_E_USAGE (an index URL cudaup cannot use).
 */
CU_NODISCARD enum cu_status cu_learn(const struct cu_learn_opts *o, const struct cu_catalog *base, struct cu_mirror *m,
                                     struct cu_learn_result *res, struct cu_error *err);

/**
 * cu_learn() for a plan of configuration @c (--framework, --offline, --index-timeout, --allow-inferred, --ca-cert):
 * from the index pip will use: mirror @m's pypi/simple/ where it carries one and @site_index allows (not for `mirror`,
 * which fills one), --index-url, PIP_INDEX_URL in @envp, else PyPI; its answers kept in @cache_dir.
 */
CU_NODISCARD enum cu_status cu_learn_for(const struct cu_config *c, bool site_index, const char *cache_dir,
                                         const char *const *envp, const struct cu_catalog *base, struct cu_mirror *m,
                                         struct cu_learn_result *res, struct cu_error *err);

/**
 * Say on plan @p (and every environment's) what was learned and how the plan used it: a learned release it took
 * (read where, what is inferred from what), a newer learned release it passed over and how to plan it, the notes,
 * and, once, that it was planned offline (p->offline).
 */
void cu_learn_explain(const struct cu_learn_result *r, struct cu_plan *p);

/**
 * Planned offline, may `install` carry plan @p out: does cudaup's cache hold every archive it would otherwise
 * download from NVIDIA's server or the Python's host (cu_learn_explain marked those it does not)?  Errors:
 * CU_E_UNSUPPORTED naming what is missing and what to do.
 */
CU_NODISCARD enum cu_status cu_learn_install_check(const struct cu_learn_result *r, const struct cu_plan *p,
                                                   struct cu_error *err);

#endif /* CU_LEARN_H */
