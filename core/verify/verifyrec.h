/* SPDX-License-Identifier: MIT */
/*
 * verify's checks measured against the install's record, and the cause of a runtime that cannot
 * reach the GPU (issue 26).  One rule for every check: what the record lists is what the install
 * must have, at the version it records; a recorded file that is gone is damage ("repair restores
 * it"), never a component the user chose not to install.
 */
#ifndef CU_VERIFYREC_H
#define CU_VERIFYREC_H

#include <stdbool.h>

#include "core/base/parse.h"

/**
 * When the record of the install in @dir lists a file named @stem (or @stem followed by a dot and
 * more: "libnvrtc.so" matches "lib/libnvrtc.so.12.6.127") that is not in the tree: the sentence
 * that says so, for a failed check that repair mends (cu_check_fail_repair).  NULL when there is no record, or it lists none, or all of
 * them are there.  Caller frees.
 */
char *cu_verify_recorded_gone(const char *dir, const char *stem);

/** The cuDNN version the record of @dir gives (9.14.0); false when there is no record or no cuDNN in it. */
bool cu_verify_record_cudnn(const char *dir, struct cu_version *out);

/**
 * The detail of a check whose runtime could not reach the GPU although the driver is loaded (the
 * parent runs GPU checks only then): the call, its error and what to do.  @rt_path is the
 * install's libcudart, @call the function ("cudaGetDeviceCount"), @code its return, @code_text
 * the runtime's words for it (or NULL).  Looks for the libcuda.so.1 the runtime loaded.  What to do goes
 * to *fix, apart from the cause, so that it is said once.  Caller frees both.
 */
char *cu_verify_unreachable(const char *rt_path, const char *call, int code, const char *code_text, char **fix);

#endif /* CU_VERIFYREC_H */
