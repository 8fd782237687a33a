/* SPDX-License-Identifier: MIT */
/*
 * One member of a wheel (a zip archive) read without reading the archive: its end record (in the last 64 KiB,
 * zip64 included), then its central directory, then that member's local header and bytes, inflated raw and
 * checked against the directory's CRC-32 and size.  What pip's lazy wheel does over HTTP Range requests, and
 * what `cudaup mirror` does on the wheels it holds to write their PEP 658 .metadata files.  The bytes come
 * through a reader, so that this knows the format and nothing of where the archive lies.  Any thread.
 */
#ifndef CU_WHEELZIP_H
#define CU_WHEELZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/base/str.h"

struct cu_zip_reader {
    void *ctx;
    /**
     * Put bytes [@off, @off + @len) of the archive into @out (replacing what it held); with @from_end, the last
     * @len bytes (the whole archive when it is shorter), and *@total gets the archive's size.  Fewer bytes than
     * asked for is an error of the reader's (CU_E_INPUT or CU_E_NETWORK, with its sentence).
     */
    enum cu_status (*read)(void *ctx, uint64_t off, size_t len, bool from_end, struct cu_buf *out, uint64_t *total,
                           struct cu_error *err);
};

/**
 * The text of the wheel's NAME-VER.dist-info/METADATA (the one .dist-info folder at its top), at most @max bytes
 * unpacked, into @out.  @what names the archive in messages.
 * Errors: CU_E_INPUT (not a zip, a damaged or ambiguous directory, no METADATA, an unknown compression, a CRC or
 * size that does not match, larger than @max), and the reader's own.
 */
CU_NODISCARD enum cu_status cu_wheel_metadata(const struct cu_zip_reader *rd, const char *what, size_t max,
                                              struct cu_buf *out, struct cu_error *err);

/** A reader of the local file @fd (pread), for cu_wheel_metadata: its ctx is a pointer to the int. */
enum cu_status cu_zip_read_fd(void *ctx, uint64_t off, size_t len, bool from_end, struct cu_buf *out,
                              uint64_t *total, struct cu_error *err);

#endif /* CU_WHEELZIP_H */
