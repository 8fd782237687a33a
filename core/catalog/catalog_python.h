/* SPDX-License-Identifier: MIT */
/*
 * The catalog's "pythons" table: the relocatable CPythons (python-build-standalone) cudaup brings
 * when a machine has none that fits.  Most are install_only .tar.gz archives (shared/data/python);
 * older ones, 3.7, exist only as the "full" .tar.zst, whose installed tree lies under python/install/
 * (data/python/SOURCES.md).
 */
#ifndef CU_CATALOG_PYTHON_H
#define CU_CATALOG_PYTHON_H

#include <jansson.h>
#include <stddef.h>

#include "core/catalog/catalog.h"
#include "core/base/error.h"

/**
 * Read @a, the catalog's "pythons" list (NULL: none).  Each entry needs version (X.Y.Z), arch,
 * file (a bare file name), url and sha256; layout ("install_only", the default, or "full"),
 * compression ("gzip", the default, or "zstd", which must match the file's .tar.gz or .tar.zst) and
 * size (bytes, or null) are optional.  Errors: CU_E_INPUT naming @what and the entry.
 * The caller frees *out with cu_cat_pythons_free, also on failure.
 */
CU_NODISCARD enum cu_status cu_cat_pythons_parse(const json_t *a, const char *what, struct cu_cat_python **out,
                                                 size_t *n, struct cu_error *err);
void cu_cat_pythons_free(struct cu_cat_python *p, size_t n);

#endif /* CU_CATALOG_PYTHON_H */
