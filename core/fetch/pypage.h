/* SPDX-License-Identifier: MIT */
/*
 * A project's page of a package index, as pip reads it: PEP 691's JSON ("application/vnd.pypi.simple.v1+json")
 * or PEP 503's HTML, with PEP 592's yanked files, PEP 658/714's core metadata and the sha256 of each file.
 * Parsing only (core/fetch/pyindex.c fetches); pure, any thread.
 */
#ifndef CU_PYPAGE_H
#define CU_PYPAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/base/error.h"

struct cu_pyfile {
    char *filename;
    char *url;                 /* absolute, its #fragment left out */
    char sha256[65];           /* "" when the index gives none */
    bool yanked;
    bool core_metadata;        /* the index serves URL.metadata (PEP 658, PEP 714) */
    char metadata_sha256[65];  /* the .metadata file's, or "" */
    char *requires_python;     /* or NULL */
};

struct cu_pyproject {
    char *name;     /* normalized */
    char *url;      /* the page's */
    struct cu_pyfile *files;
    size_t n_files;
    bool json;      /* PEP 691 JSON, else PEP 503 HTML */
    bool cached;    /* served from cudaup's cache, the index not asked again (fresh, or offline) */
    bool revalidated; /* the index answered 304 Not Modified */
    time_t read_at; /* when the index last answered for it */
};

/**
 * Parse the page @body (@len bytes) of project @name fetched from @page_url; relative links are resolved against
 * @page_url.  Errors: CU_E_INPUT (not JSON of API version 1 / not an HTML page with links, a file entry without
 * a name or URL), naming @page_url.  The caller owns *out (cu_pyproject_free).
 */
CU_NODISCARD enum cu_status cu_pyproject_parse(const char *body, size_t len, bool json, const char *page_url,
                                               const char *name, struct cu_pyproject **out, struct cu_error *err);
void cu_pyproject_free(struct cu_pyproject *p);

/** @href resolved against @base (RFC 3986's merge and dot segments), its #fragment kept.  Caller frees. */
char *cu_url_resolve(const char *base, const char *href);

#endif /* CU_PYPAGE_H */
