/* SPDX-License-Identifier: MIT */
/*
 * The download cache shared by several runs: two installs into different prefixes, or cudaup on
 * several machines with one --cache-dir on NFS.  Each archive of CACHE/archives is written by one
 * run at a time: the run holds CACHE/archives/SHA256.lock (flock, which Linux's NFS client carries to
 * the server as a lock on the whole file) from before it looks at the archive until it has renamed
 * the checked download into place, and removes the lock file as it lets go.  Another run that wants the same archive waits for it, and then
 * finds it whole in the cache (its bytes are hashed again as it reads them) or resumes what the
 * first left.
 */
#ifndef CU_CACHE_H
#define CU_CACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"
#include "core/base/macros.h"

/* How long a run waits for another that holds an archive and makes no progress with it: ten minutes
 * (the holder hashes and unpacks what it downloaded before it lets go; that is minutes at most). */
#define CU_CACHE_WAIT_MS (10 * 60 * 1000)

/**
 * Whether the cache folder @cache can be used: it, and its archives/ and manifests/, are this
 * user's or root's real folders (or this user's links to such), and nothing below is a link or a
 * folder another user controls, as for `mirror DIR` (a folder that does not exist yet is fine).
 * Errors: CU_E_UNSAFE_PATH with one sentence naming the path and its owner; CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_cache_trusted(const char *cache, struct cu_error *err);

/**
 * Hold the archives @sha256[0..@n) of the cache @cache (its archives/ folder) for this run.  The locks are taken in
 * the order of their checksums, so that two runs never wait for each other in a circle; an archive
 * named twice is held once (@fds -1 for the second).  While another run holds one, a warning names
 * it (@names[i]), the cache and the holder (its process and host, which the holder writes into the
 * lock file), and the run waits, checking @cancel every 0.1 s, for as long as the holder's download
 * moves; after CUDAUP_CACHE_WAIT_MS (default CU_CACHE_WAIT_MS) without progress it gives up.
 * @param fds  filled with the lock of each archive (-1: none); release each with cu_cache_release,
 *             also on failure (those not taken are -1)
 * @return CU_OK; CU_E_CANCELLED when @cancel was set while waiting; CU_E_BUSY when the holder made
 *         no progress for the bound (the message says who holds what); CU_E_IO when a lock file
 *         cannot be made; CU_E_UNSAFE_PATH when one is a symbolic link
 */
CU_NODISCARD enum cu_status cu_cache_hold(const char *cache, const char *const *sha256, const char *const *names,
                                          size_t n, const atomic_int *cancel, int *fds, struct cu_error *err);

/** Let the archive @sha256 of @cache go and remove its lock file (a no-op for -1); *@fd becomes -1. */
void cu_cache_release(const char *cache, const char *sha256, int *fd);

struct cu_plan_download;
/** Where cudaup's cache keeps download @d whole: CACHE_DIR/archives/SHA256.EXT (".tar.xz" unless its name says
 *  another .tar.* form), as core/install/pipeline.c stores it. Caller frees. */
char *cu_cache_archive_path(const char *cache_dir, const struct cu_plan_download *d);

#endif /* CU_CACHE_H */
