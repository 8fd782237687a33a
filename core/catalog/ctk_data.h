/* SPDX-License-Identifier: MIT */
/*
 * The catalog's "containers" tables (data/containers/ through scripts/gen-catalog, see its SOURCES.md): the NVIDIA
 * Container Toolkit's releases and packages, which NVIDIA repository carries them, and what each container engine
 * accepts, by version.  Facts only: the choice is core/resolve/containers.h.
 */
#ifndef CU_CTK_DATA_H
#define CU_CTK_DATA_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/parse.h"

/* One release of the toolkit (toolkit_versions.csv). */
struct cu_ctk_release {
    char *version;           /* "1.20.0": its packages are installed at VERSION-1 */
    struct cu_version ver;
    char *released;          /* "2026-08-12" */
    char **packages;         /* NULL-terminated */
    bool refresh_units;      /* ships nvidia-cdi-refresh.path and .service */
    bool units_wsl;          /* their conditions work on WSL2 */
    struct cu_version driver_min;
    char *ref, *confidence;
};

/* Whether NVIDIA's CUDA repository of a distribution carries the toolkit (toolkit_repos.csv). */
struct cu_ctk_repo {
    char **ids, **versions;  /* os-release IDs; VERSION_IDs, their majors, or "*" */
    char *manager;           /* apt, dnf, zypper */
    bool carries;
    struct cu_version from;  /* the first release it carries (n == 0 when it carries none) */
    char *ref, *confidence;
};

/* One fact about an engine over a range of its versions (engines.csv). */
struct cu_ctk_fact {
    char *engine;            /* docker, containerd, crio, podman, cdi */
    char *fact;              /* config_versions, cri_plugin, dropin_merge, dropin_newer, validate, cdi, ... */
    struct cu_version from, to; /* from inclusive, to exclusive; n == 0: open */
    char *value, *ref, *confidence;
};

/* How the toolkit is held on a distribution (toolkit_hold.csv). */
struct cu_ctk_hold {
    char **ids, **versions;
    char *manager;
    char **prereq;           /* argv installed first (the versionlock plugin), or empty */
    char **hold;             /* argv template: {PKGS} the names, {SPECS} NAME-VERSION-1 */
    char *ref, *confidence;
};

struct cu_ctk_data {
    struct cu_ctk_release *releases; /* newest first */
    size_t n_releases;
    struct cu_ctk_repo *repos;
    size_t n_repos;
    struct cu_ctk_fact *facts;
    size_t n_facts;
    struct cu_ctk_hold *holds;
    size_t n_holds;
};

/**
 * Parse the catalog's "containers" object; absent (an older catalog) gives empty tables.  Errors: CU_E_INPUT naming
 * the field.  The caller owns *out (cu_ctk_data_free).
 */
CU_NODISCARD enum cu_status cu_ctk_data_parse(const json_t *obj, const char *what, struct cu_ctk_data **out,
                                              struct cu_error *err);
void cu_ctk_data_free(struct cu_ctk_data *d);

/** The repository row of os-release @id and @version_id, or NULL (no row: nothing is known of it). */
const struct cu_ctk_repo *cu_ctk_repo_for(const struct cu_ctk_data *d, const char *id, const char *version_id);

/**
 * The row of @engine's @fact that covers @version (NULL or n == 0: a row whose range is open on both ends, else the
 * first row), or NULL when the data says nothing.
 */
const struct cu_ctk_fact *cu_ctk_fact_for(const struct cu_ctk_data *d, const char *engine, const char *fact,
                                          const struct cu_version *version);

/** The hold row of os-release @id and @version_id, or NULL. */
const struct cu_ctk_hold *cu_ctk_hold_for(const struct cu_ctk_data *d, const char *id, const char *version_id);

/** "1.20.0" release row, or NULL. */
const struct cu_ctk_release *cu_ctk_release_for(const struct cu_ctk_data *d, const char *version);

/** "ref (confidence)" of a row, for provenance. Caller owns. */
char *cu_ctk_fact_source(const struct cu_ctk_fact *f);

#endif /* CU_CTK_DATA_H */
