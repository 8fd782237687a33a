/* SPDX-License-Identifier: MIT */
/* Room on disk before the first byte: the sizes the plan learns (the mirror's, the archives' own indexes) and the
 * check of the cache's and the prefix's free space against them. */
#include "config.h"

#define CU_LOG_TAG "prepare"
#include "diskroom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/fetch/cache.h"
#include "core/base/str.h"
#include "core/fetch/probe.h"
#include "core/fetch/tail.h"
#include "core/unpack/xzsize.h"

/* Free bytes on the file system of @dir (or of its nearest existing folder); false when unknown. */
static bool
free_bytes(const char *dir, uint64_t *out, dev_t *dev)
{
    CU_AUTOFREE char *p = cu_xstrdup(dir);
    for (;;) {
        struct statvfs vs;
        struct stat sb;
        if (statvfs(p, &vs) == 0 && stat(p, &sb) == 0) {
            *out = (uint64_t)vs.f_bavail * vs.f_frsize;
            *dev = sb.st_dev;
            return true;
        }
        char *slash = strrchr(p, '/');
        if (!slash || slash == p)
            return false;
        *slash = '\0';
    }
}

/*
 * Room before the first byte: the cache must hold what is still to come, and the prefix what the archives take
 * unpacked -- read from each .tar.xz's own index where it could be (cu_disk_learn_sizes), else at least the
 * archive's size -- on one file system both.  Too little is a refusal; where an unpacked size could not be read, a
 * tight fit is a warning that says so.
 */
enum cu_status
cu_disk_check_space(const struct cu_prepare_in *in, struct cu_plan *p, struct cu_error *err)
{
    char b1[32], b2[32], b3[32];
    uint64_t to_fetch = 0, cache_free, prefix_free;
    dev_t cache_dev, prefix_dev;
    struct cu_buf unsized; /* the archives no one publishes a size for, by name */
    size_t n_unsized = 0, n_sized = 0;
    uint64_t unpacked = 0; /* what the archives take unpacked: read, or at least their size */
    size_t n_guess = 0;    /* archives whose unpacked size could not be read */
    cu_buf_init(&unsized);
    for (size_t i = 0; i < p->n_downloads + 1; i++) {
        const struct cu_plan_download *d = i < p->n_downloads ? &p->downloads[i]
                                           : p->python && p->python->dl.url ? &p->python->dl : NULL;
        /* A size nobody publishes (runfiles, cuDNN .tgz): its cap is a limit, not what will come; the size the
         * mirror reported, when it did, is what comes (learn_sizes). */
        if (d && d->size_unknown && !d->size_seen) {
            cu_buf_printf(&unsized, "%s%s", n_unsized++ ? _(", ") : "", d->component);
            continue;
        }
        if (!d)
            continue;
        n_sized++;
        uint64_t size = d->size_unknown ? d->size_seen : d->size;
        unpacked += d->unpacked ? d->unpacked : size;
        n_guess += !d->unpacked;
        CU_AUTOFREE char *fin = cu_cache_archive_path(in->cache_dir, d);
        CU_AUTOFREE char *part = cu_xasprintf("%s/archives/%s.partial", in->cache_dir, d->sha256);
        struct stat sb;
        if (stat(fin, &sb) == 0 && (uint64_t)sb.st_size == size)
            continue; /* in the cache already: nothing to fetch (its unpacked size is counted above) */
        uint64_t have = stat(part, &sb) == 0 && (uint64_t)sb.st_size <= size ? (uint64_t)sb.st_size : 0;
        to_fetch += size - have;
    }
    /* Said in the plan whatever the disks: nothing can be checked for these. */
    if (n_unsized)
        cu_plan_warn(p, ngettext_("%zu archive's size is not published (%s), so the room it needs could not be checked before the start; a full disk stops the install cleanly.",
                                  "%zu archives' sizes are not published (%s), so the room they need could not be checked before the start; a full disk stops the install cleanly.",
                                  n_unsized),
                     n_unsized, unsized.data);
    cu_buf_fini(&unsized);
    if (!free_bytes(in->cache_dir, &cache_free, &cache_dev) || !free_bytes(p->prefix, &prefix_free, &prefix_dev))
        return CU_OK;
    uint64_t unpack = unpacked;
    if (cache_dev == prefix_dev) {
        if (cache_free < to_fetch + unpack)
            return cu_error_set(err, CU_E_IO, ENOSPC,
                                _("%s and the cache have %s free, but this install needs at least %s (%s to download, %s unpacked)"),
                                p->prefix, cu_format_bytes(cache_free, b1, sizeof(b1)),
                                cu_format_bytes(to_fetch + unpack, b2, sizeof(b2)), cu_format_bytes(to_fetch, b3, sizeof(b3)),
                                cu_format_bytes(unpack, (char[32]){0}, 32));
    } else {
        if (cache_free < to_fetch)
            return cu_error_set(err, CU_E_IO, ENOSPC, _("The cache %s has %s free, but %s are still to download"),
                                in->cache_dir, cu_format_bytes(cache_free, b1, sizeof(b1)),
                                cu_format_bytes(to_fetch, b2, sizeof(b2)));
        if (prefix_free < unpack)
            return cu_error_set(err, CU_E_IO, ENOSPC, _("%s has %s free, but the install needs more than %s"), p->prefix,
                                cu_format_bytes(prefix_free, b1, sizeof(b1)), cu_format_bytes(unpack, b2, sizeof(b2)));
    }
    if (n_unsized && !n_sized) {
        /* No size at all: a "0 B to download" would be a figure no one gave (issue 35 walk, item 8). */
        cu_plan_reason(p, _("Disk: no archive's size is published, so how much is downloaded and unpacked is not known; the cache has %s free, %s has %s free."),
                       cu_format_bytes(cache_free, b1, sizeof(b1)), p->prefix, cu_format_bytes(prefix_free, b2, sizeof(b2)));
        return CU_OK;
    }
    cu_plan_reason(p, n_guess ? _("Disk: %s to download into the cache %s (%s free there); the install takes more than %s in %s (%s free).")
                              : _("Disk: %s to download into the cache %s (%s free there); the install takes %s in %s (%s free), as the archives' own indexes say."),
                   cu_format_bytes(to_fetch, b1, sizeof(b1)), in->cache_dir, cu_format_bytes(cache_free, b2, sizeof(b2)),
                   cu_format_bytes(unpack, b3, sizeof(b3)), p->prefix, cu_format_bytes(prefix_free, (char[32]){0}, 32));
    if (n_guess && prefix_free < unpack * 3)
        cu_plan_warn(p, ngettext_("%s has %s free; %zu archive's unpacked size could not be read from it (counted at its own size), and unpacked an archive can take two to three times its size, so it may not fit.",
                                  "%s has %s free; %zu archives' unpacked sizes could not be read from them (counted at their own size), and unpacked an archive can take two to three times its size, so it may not fit.",
                                  n_guess),
                     p->prefix, cu_format_bytes(prefix_free, b1, sizeof(b1)), n_guess);
    return CU_OK;
}

/*
 * An archive whose size no source publishes (a runfile, a cuDNN .tgz): the size the mirror reports when
 * asked (HEAD's Content-Length, or stat on a file:// mirror), so that the disk check and the totals count
 * a 2 GB runfile as 2 GB, not as "more than 28 MB" (issue 35).  The hash still decides; a mirror that does
 * not answer leaves the size unknown, and the download says what is wrong.
 */
static void
learn_sizes(const struct cu_net *net, struct cu_plan *p)
{
    for (size_t i = 0; net && i < p->n_downloads + 1; i++) {
        struct cu_plan_download *d = i < p->n_downloads ? &p->downloads[i] : p->python ? &p->python->dl : NULL;
        if (!d || !d->url || !d->size_unknown || d->size_seen)
            continue;
        struct cu_probe_item it = {.url = d->url, .name = d->component, .size = d->size, .size_is_limit = true};
        struct cu_error e;
        enum cu_status st = cu_probe_run(net, &it, 1, 1, NULL, &e);
        if (it.verdict == CU_PROBE_MISSING) /* the mirror said so: no size to learn, and a download that will fail */
            cu_plan_warn(p, _("The mirror has no %s: %s is not there, so the install would stop at that download."), d->component, d->url);
        if (st == CU_OK && it.verdict == CU_PROBE_OK && it.found_size) {
            d->size_seen = it.found_size;
            cu_log_debug("%s: %llu bytes, as the mirror reports (no source publishes its size)", d->component,
                         (unsigned long long)it.found_size);
        }
    }
}

/*
 * What each .tar.xz takes unpacked, from the index at its end (issue 49 item 3: the check had taken an install
 * of 438 MB for 186 MB): the cached archive's, a file:// mirror's, else its last 64 KiB from the mirror with one
 * range request (not offline). An archive whose index cannot be read keeps its own size as the least it takes.
 */
static void
learn_unpacked(const struct cu_prepare_in *in, const struct cu_net *net, struct cu_plan *p)
{
    for (size_t i = 0; i < p->n_downloads; i++) {
        struct cu_plan_download *d = &p->downloads[i];
        size_t len = d->relative_path ? strlen(d->relative_path) : 0;
        if (d->size_unknown || len < 7 || strcmp(d->relative_path + len - 7, ".tar.xz") != 0)
            continue;
        CU_AUTOFREE char *fin = in->cache_dir ? cu_cache_archive_path(in->cache_dir, d) : NULL;
        CU_AUTOFREE char *local = d->url ? cu_url_file_path(d->url) : NULL;
        struct stat sb;
        uint64_t u = 0;
        const char *how = NULL;
        if (fin && stat(fin, &sb) == 0 && (uint64_t)sb.st_size == d->size && cu_xz_file_size(fin, &u))
            how = "the cached archive";
        else if (local && stat(local, &sb) == 0 && (uint64_t)sb.st_size == d->size && cu_xz_file_size(local, &u))
            how = "the mirror's file";
        else if (net && !local && !p->offline && d->url) {
            struct cu_buf b;
            uint64_t total = 0;
            cu_buf_init(&b);
            /* the same file as the manifest's (its size), or no answer */
            if (cu_net_fetch_tail(net, d->url, CU_XZ_TAIL, &b, &total) && total == d->size &&
                cu_xz_tail_size((const unsigned char *)b.data, b.len, total, &u))
                how = "a range request";
            cu_buf_fini(&b);
        }
        if (how && u) {
            d->unpacked = u;
            cu_log_debug("%s: %llu bytes unpacked, from its xz index (%s)", d->component, (unsigned long long)u, how);
        }
    }
}

void
cu_disk_learn_sizes(const struct cu_prepare_in *in, const struct cu_net *net, struct cu_plan *p)
{
    learn_sizes(net, p);
    learn_unpacked(in, net, p);
}
