/* SPDX-License-Identifier: MIT */
/*
 * Unpack one .tar.xz into an empty staging folder, safely.
 *
 * The xz layer is decoded here with liblzma (a memory limit, concatenated
 * streams, every check verified) and the raw tar goes to libarchive with only
 * the tar formats registered, so gzip, zstd, zip, 7z, cpio or a bare tar
 * under a .tar.xz name is refused.  Entries are written by this module, not
 * by archive_write_disk: its SECURE_* flags work relative to the process's
 * working folder, which worker threads share, while here every path
 * component is opened with O_NOFOLLOW relative to the staging folder's fd.
 *
 * Refused with CU_E_UNSAFE_PATH: absolute names, "..", empty or "."
 * components, control characters, entries outside the archive's single top
 * folder, symlinks whose target is absolute or leaves the tree, writing
 * through a symlink, hard links to anything but a regular file unpacked
 * before in the same archive or carrying data, device nodes, FIFOs and
 * sockets.  Set-id and sticky bits are dropped: files become 0644 or 0755.
 * Limits stop decompression bombs, entry floods and deep trees.
 */
#ifndef CU_EXTRACT_H
#define CU_EXTRACT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/error.h"

enum cu_file_type {
    CU_FILE_REG = 'f',
    CU_FILE_LINK = 'l',
    CU_FILE_DIR = 'd',
};

struct cu_extract_file {
    char *path;      /* relative to the archive's top folder, lib64/ written as lib/ */
    char type;       /* enum cu_file_type */
    mode_t mode;     /* 0644, 0755 for files; 0755 for folders; 0777 for links */
    uint64_t size;
    char sha256[65]; /* of the content; of the target text for links; "" for folders */
    char *target;    /* links only */
};

struct cu_extract_result {
    struct cu_extract_file *files;
    size_t n;
    uint64_t bytes_out; /* what was written */
    char top[256];      /* the archive's top folder name */
};

void cu_extract_result_fini(struct cu_extract_result *r);

/** Read up to @len compressed bytes: > 0 bytes, 0 at the end, -errno (or -ECANCELED) on failure. */
typedef ssize_t (*cu_read_fn)(void *userdata, void *buf, size_t len);

struct cu_extract_opts {
    int dirfd;                /* the empty staging folder */
    const char *what;         /* the archive, for messages */
    uint64_t max_bytes;       /* at most this many bytes written (0: 64 GiB); and never
                                 more than 50 times the compressed bytes read + 256 MiB */
    uint64_t max_entries;     /* 0: 500 000 */
    uint64_t memlimit;        /* xz decoder memory, 0: 512 MiB */
    bool gzip;                /* a .tar.gz (python-build-standalone), not NVIDIA's .tar.xz */
    bool zstd;                /* a .tar.zst (python-build-standalone's full archives); needs a
                                 libarchive built with libzstd, never an external zstd program */
    unsigned threads;         /* xz: decoder threads for a stream of several blocks (0, 1: one) */
    bool ahead;               /* read, hash and decode on a thread of their own, ahead of the
                                 tar reader and the writes (the reader is then called there) */
    const atomic_int *cancel; /* non-zero stops between blocks: CU_E_CANCELLED */
    /** Optional: the name each member is checked and placed under (it must begin with the
        archive's top folder), or NULL to skip the member unwritten.  The returned string is
        borrowed until the next call.  Lets a runfile's payload be read in place (core/unpack/runfile.c). */
    const char *(*rename)(void *rename_ud, const char *name);
    void *rename_ud;
    /** Called now and then with the bytes written so far; any thread. */
    void (*progress)(void *userdata, uint64_t bytes_out);
    void *userdata;
};

/**
 * Unpack what @rd yields into o->dirfd.  The whole input is read, to its last
 * byte, also after the tar's end, so that the caller's hash covers it and
 * trailing garbage is found.  Errors: CU_E_UNSAFE_PATH, CU_E_ARCHIVE (not
 * xz, corrupt, not tar, over a limit), CU_E_IO, CU_E_CANCELLED, and the
 * reader's own failures as CU_E_NETWORK.  On failure the staging folder
 * holds whatever was written; the caller removes it.
 */
CU_NODISCARD enum cu_status cu_extract(const struct cu_extract_opts *o, cu_read_fn rd, void *rd_ud,
                                       struct cu_extract_result *res, struct cu_error *err);

/** Check an archive member name; false when it is unsafe. Exposed for the fuzzer and tests. */
bool cu_extract_name_ok(const char *name);

#endif /* CU_EXTRACT_H */
