/* SPDX-License-Identifier: MIT */
/*
 * Releases newer than the embedded catalog, learned the day they ship: what a package index says of a framework
 * release (its wheels' Pythons and the Requires-Dist of its METADATA, read by core/fetch/learn.c) and the CUDA and
 * cuDNN releases a mirror lists that the catalog does not know, turned into entries of the catalog's own shapes
 * (a PyTorch minor and its build, a TensorFlow release, a JAX release's Pythons and cuDNN range, each wheel's
 * nvidia-* pins, a CUDA release and the GPUs its X.Y builds for), so that the resolver plans them by the rules it
 * plans every release with.  What no source read is inferred and says from what: a build's GPU code from the
 * newest earlier release's build for the same CUDA, a CUDA release's driver floor and GPU architectures from the
 * previous release of its major.  Where no inference is sound (a build for a CUDA no earlier release was built
 * for), the entry says why, and the resolver refuses to plan it.  Pure: no I/O.
 */
#ifndef CU_CATALOG_LEARNED_H
#define CU_CATALOG_LEARNED_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"
#include "core/base/parse.h"
#include "core/base/str.h"

struct cu_catalog;

/* ---- what was read (filled by core/fetch/learn.c) ------------------------------------------- */

/** One wheel's METADATA as the index served it. */
struct cu_learn_wheel {
    char *project;   /* normalized: "torch", "cuda-toolkit", "jax-cuda13-plugin" */
    char *version;   /* "2.16.0" */
    char *file;      /* the wheel read: "torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl" */
    char *how;       /* how its METADATA was read: "HTTP Range requests into the wheel" */
    char **requires; /* its Requires-Dist values, NULL-terminated */
    char *requires_python; /* or NULL */
};

/** One framework release the catalog does not know, as the index has it. */
struct cu_learn_release {
    char *framework;       /* "pytorch", "tensorflow", "jax" */
    char *version;         /* as published: "2.16.0", "2.22.0rc0" */
    unsigned py_min, py_max; /* CPython 3.x minors of its Linux x86_64 wheels (JAX: jaxlib's); 0: none seen */
    struct cu_learn_wheel main;   /* the framework's own wheel */
    struct cu_learn_wheel *deps;  /* what its requirements pin and cudaup followed (cuda-toolkit, jax-cudaNN-plugin) */
    size_t n_deps;
};

struct cu_learned {
    char *index;  /* the index read, as shown */
    char *day;    /* "2026-12-07": when it answered (or when its cached answer was read) */
    struct cu_learn_release *rel;
    size_t n_rel;
    char **cuda, **cudnn; /* release labels a mirror lists that the catalog does not know (NULL-terminated, or NULL) */
};

void cu_learned_init(struct cu_learned *l);
void cu_learned_fini(struct cu_learned *l);
/** A new release of @l (zeroed; its strings are the caller's to fill with owned copies). */
struct cu_learn_release *cu_learned_add(struct cu_learned *l);
/** A new followed wheel of @r (zeroed). */
struct cu_learn_wheel *cu_learn_release_dep(struct cu_learn_release *r);

/* ---- what the catalog holds of it (the catalog's "learned" list) -------------------------------- */

struct cu_cat_learned {
    char *framework;      /* "pytorch", "tensorflow", "jax", "cuda", "cudnn" */
    char *text;           /* the release as published: "2.16.0", "2.22.0rc0" */
    struct cu_version version; /* its release part: 2.22.0 */
    char *pre;            /* "rc0", or "" for a final release */
    char *tag;            /* the build learned: "cu132", "cuda13", "and-cuda", or NULL */
    char *inferred_from;  /* the release whose build the inferred facts come from ("2.15"), or NULL */
    char *no_inference;   /* why nothing could be inferred (the resolver refuses it), or NULL */
    char *index;          /* where it was learned (an index URL, or the mirror's) */
    char *day;            /* when */
};

/** Read the catalog's "learned" list (absent: none). Errors: CU_E_INPUT. */
CU_NODISCARD enum cu_status cu_cat_learned_parse(const json_t *root, const char *what, struct cu_cat_learned **out,
                                                 size_t *n, struct cu_error *err);
void cu_cat_learned_free(struct cu_cat_learned *v, size_t n);

/**
 * The learned entry of @framework release @version (its release part; NULL @tag: any build), or NULL when the
 * release comes from the embedded catalog.  Borrowed.
 */
const struct cu_cat_learned *cu_catalog_learned(const struct cu_catalog *cat, const char *framework,
                                                const struct cu_version *version, const char *tag);

/**
 * The catalog @base with what @l taught added, in @base's own shapes: *@out, owned by the caller
 * (cu_catalog_free).  A release whose facts cannot be made into an entry (its wheel pins no CUDA cudaup knows, a
 * requirement it cannot read) is left out with a sentence in @notes (may be NULL).
 * Errors: CU_E_INPUT when @base cannot be read again (it keeps its source text: cu_catalog_load/parse).
 */
CU_NODISCARD enum cu_status cu_catalog_learn(const struct cu_catalog *base, const struct cu_learned *l,
                                             struct cu_catalog **out, struct cu_strv *notes, struct cu_error *err);

#endif /* CU_CATALOG_LEARNED_H */
