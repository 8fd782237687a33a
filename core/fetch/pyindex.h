/* SPDX-License-Identifier: MIT */
/*
 * A package index as pip reads it (PyPI, a site mirror's PEP 503 folder, a devpi): a project's page, asked for as
 * PEP 691 JSON and read in either form (core/fetch/pypage.c), and a wheel's METADATA without its wheel: the PEP
 * 658/714 .metadata file where the index lists one, else the wheel's .dist-info/METADATA through HTTP Range
 * requests (core/unpack/wheelzip.c), as pip's lazy wheel does.  Measured from cudaup's build machines: PyPI's
 * index answers PEP 691 JSON but lists no core metadata, and its file host honours Range.
 *
 * Answers are cached in CACHE/index/<hash of the index URL>/: pages with their validators (ETag,
 * Last-Modified), fresh for a short time (CU_PYINDEX_TTL_S) and then asked for again with If-None-Match and
 * If-Modified-Since (a 304 keeps the copy); a wheel's METADATA for good (a file on an index does not change).
 *
 * Offline: every request of one client shares a deadline, counted from its first (@total_ms, 5 s by default;
 * each connection gets @connect_ms, 3 s, to be made).  A request that gets no answer in time (no name, no
 * connection, the deadline passed) makes the index offline for the rest of the run: what follows comes from the
 * cache alone, without trying again.  --offline asks for that from the start.
 *
 * Not thread safe; one planner uses it.
 */
#ifndef CU_PYINDEX_H
#define CU_PYINDEX_H

#include <stdbool.h>

#include "core/base/error.h"
#include "core/fetch/pypage.h"

#define CU_PYINDEX_PYPI "https://pypi.org/simple/"
#define CU_PYINDEX_CONNECT_MS 3000
#define CU_PYINDEX_TOTAL_MS 5000
#define CU_PYINDEX_TTL_S 600

struct cu_pyindex;

struct cu_pyindex_opts {
    const char *url;          /* the index ("https://pypi.org/simple/", "file:///srv/mirror/pypi/simple") */
    const char *cache_dir;    /* CACHE (its index/ folder holds the answers), or NULL: none kept */
    const char *ca_cert;      /* a CA bundle, or NULL: the system's */
    long connect_ms, total_ms; /* 0: the defaults above */
    long ttl_s;               /* 0: CU_PYINDEX_TTL_S */
    bool offline;             /* --offline: the cache alone, from the start */
    const char *const *envp;  /* the clock (CUDAUP_TEST_NOW) */
};

/** Errors: CU_E_USAGE (an index URL cudaup cannot use). The caller frees *out (cu_pyindex_free). */
CU_NODISCARD enum cu_status cu_pyindex_new(const struct cu_pyindex_opts *o, struct cu_pyindex **out,
                                           struct cu_error *err);
void cu_pyindex_free(struct cu_pyindex *ix);

/** The index's URL as shown (no credentials), ending in '/'.  Borrowed. */
const char *cu_pyindex_url(const struct cu_pyindex *ix);

/**
 * The page of project @name: from the cache while fresh (or offline), else from the index.  Errors:
 * CU_E_NOT_FOUND (the index has no such project), CU_E_NETWORK (offline or failing, and nothing cached: the
 * sentence says which), CU_E_INPUT (an answer that is not an index page, a wrong Content-Range).  The caller owns
 * *out (cu_pyproject_free).
 */
CU_NODISCARD enum cu_status cu_pyindex_project(struct cu_pyindex *ix, const char *name, struct cu_pyproject **out,
                                               struct cu_error *err);

/**
 * The METADATA text of wheel @f (a file of a page of this index), and *@how, a phrase saying how it was read
 * (static: "its PEP 658 .metadata file", "HTTP Range requests into the wheel", "cudaup's cache").  Errors as
 * cu_pyindex_project(), and CU_E_INPUT for a .metadata file whose sha256 is not the one listed.  The caller
 * frees *@text.
 */
CU_NODISCARD enum cu_status cu_pyindex_metadata(struct cu_pyindex *ix, const struct cu_pyfile *f, char **text,
                                                const char **how, struct cu_error *err);

/** Whether the index is offline for this run (--offline, or no answer in time); *@why the sentence (borrowed). */
bool cu_pyindex_offline(const struct cu_pyindex *ix, const char **why);

/** Whether the index answered at least once in this run (not only the cache). */
bool cu_pyindex_answered(const struct cu_pyindex *ix);

#endif /* CU_PYINDEX_H */
