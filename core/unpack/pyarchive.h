/* SPDX-License-Identifier: MIT */
/*
 * python-build-standalone's archives, as cudaup places them.  An install_only archive holds the
 * installed tree under python/ (bin/python3.X, lib/python3.X/, ...).  The older "full" archives
 * (.tar.zst, the only ones there are of 3.7) hold the whole build: python/PYTHON.json,
 * python/build/ (object files, static libraries), python/licenses/ and python/install/, the
 * installed tree.  Only python/install/ is placed, under the same names an install_only archive
 * gives, so both land as the same relocatable tree (data/python/SOURCES.md).
 */
#ifndef CU_PYARCHIVE_H
#define CU_PYARCHIVE_H

#include "core/base/error.h"
#include "core/unpack/extract.h"

/** A "full" archive's member names as cu_extract's rename hook sees them (cu_pyfull_rename). */
struct cu_pyfull {
    char *buf; /* the last name returned; freed by cu_pyfull_fini */
};

void cu_pyfull_fini(struct cu_pyfull *pf);

/**
 * The rename hook of struct cu_extract_opts for a "full" archive (@ud: a struct cu_pyfull):
 * python/install/X becomes python/X, python/install itself python/; the rest of python/ is skipped
 * (NULL).  Anything else -- an unsafe name, a name outside python/ -- is returned as it is, for
 * cu_extract to refuse (CU_E_UNSAFE_PATH), never skipped unseen.  The string is borrowed until the
 * next call.
 */
const char *cu_pyfull_rename(void *ud, const char *name);

/** Is @layout ("install_only", "full", NULL) the full one? */
bool cu_pyarchive_is_full(const char *layout);

/**
 * Check an unpacked Python tree before it is placed: it holds bin/pythonX.Y for the X.Y of
 * @version (3.7.9), as a file or a link.  Errors: CU_E_ARCHIVE naming @what (an archive of another
 * layout than the catalog says unpacks to an empty or foreign tree).
 */
CU_NODISCARD enum cu_status cu_pyarchive_check(const struct cu_extract_result *res, const char *version,
                                               const char *what, struct cu_error *err);

#endif /* CU_PYARCHIVE_H */
