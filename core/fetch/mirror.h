/* SPDX-License-Identifier: MIT */
/*
 * Where manifests come from: a base URL laid out like NVIDIA's server,
 * and a cache of what was fetched from it.
 *
 * The index of a product (which releases exist) is read from the folder
 * listing (file://, or the HTML index NVIDIA's server returns); when that
 * fails it is the catalog's list.  Manifests are cached per mirror under
 * CACHE/manifests/; a manifest whose sha256 the catalog pins is checked
 * against the pin: a mismatch is refused from NVIDIA's server and warned
 * about from any other mirror (a site may carry its own builds).
 *
 * Not thread safe; one resolver uses it at a time.
 */
#ifndef CU_MIRROR_H
#define CU_MIRROR_H

#include <stdbool.h>

#include "core/catalog/catalog.h"
#include "core/base/error.h"
#include "core/catalog/manifest.h"
#include "core/fetch/net.h"

struct cu_mirror;

struct cu_mirror_opts {
    const char *base_url;   /* NULL: NVIDIA */
    const char *cache_dir;  /* NULL: no cache */
    const char *ca_cert;    /* CA bundle for TLS (CURLOPT_CAINFO), or NULL: the system's */
    const struct cu_catalog *catalog;
    unsigned retries;       /* tries after a failed one (cu_config.retries; 0: none) */
    long low_speed_time_s;  /* 0: the default (a stall is abandoned after this long) */
    long retry_base_ms;     /* 0: the default first back-off */
};

CU_NODISCARD enum cu_status cu_mirror_new(const struct cu_mirror_opts *opts, struct cu_mirror **out,
                                          struct cu_error *err);
void cu_mirror_free(struct cu_mirror *m);

const struct cu_net *cu_mirror_net(const struct cu_mirror *m);

/**
 * Ask NVIDIA's server nothing more this run (--offline, or no network: @why says which): its listing is the
 * catalog's, its manifests come from the cache alone.  A site mirror (--mirror) is the user's own and is still
 * read, as is a file:// folder: false then, and nothing changes.
 */
bool cu_mirror_set_offline(struct cu_mirror *m, const char *why);
/** Why NVIDIA's server is not asked this run, or NULL. Borrowed. */
const char *cu_mirror_offline(const struct cu_mirror *m);

/**
 * Release labels of @product on the mirror, newest first; borrowed until
 * cu_mirror_free.  @from_listing says whether they came from the mirror
 * itself rather than the catalog.
 */
CU_NODISCARD enum cu_status cu_mirror_index(struct cu_mirror *m, enum cu_product product,
                                            char *const **labels, size_t *n, bool *from_listing,
                                            struct cu_error *err);

/**
 * The manifest of @label, fetched once and kept.  Borrowed until
 * cu_mirror_free.  Errors: CU_E_NOT_FOUND (the mirror lacks it),
 * CU_E_NETWORK, CU_E_INPUT (malformed or failing its pin).
 */
CU_NODISCARD enum cu_status cu_mirror_manifest(struct cu_mirror *m, enum cu_product product,
                                               const char *label, const struct cu_manifest **out,
                                               struct cu_error *err);

struct cu_manifest_source;
/** Fill @src so that the resolver reads manifests from @m. */
void cu_mirror_source(struct cu_mirror *m, struct cu_manifest_source *src);

/** The raw bytes of a manifest already loaded (for `mirror` to copy). Borrowed. */
const char *cu_mirror_manifest_bytes(struct cu_mirror *m, enum cu_product product,
                                     const char *label, size_t *len);

#endif /* CU_MIRROR_H */
