/* SPDX-License-Identifier: MIT */
/* verify: the libraries pip installed beside the framework must support every GPU here. */
#ifndef CU_VERIFY_LIBS_H
#define CU_VERIFY_LIBS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct cu_catalog;
struct cu_checks;
struct cu_facts;

/**
 * Judge the probe's "pip_libs" ({"nvidia-cudnn-cu12": "9.17.1.4"}): each cuDNN pip installed must
 * be one whose support matrix lists every GPU of @facts.  False, with a failed "framework" check
 * added to @out, when one does not.
 */
bool cu_verify_pip_libs(const struct cu_catalog *cat, const struct cu_facts *facts, const json_t *probe,
                        struct cu_checks *out);

#endif
