/* SPDX-License-Identifier: MIT */
/*
 * Small helpers over jansson for reading untrusted JSON with clear errors.
 */
#ifndef CU_JSONUTIL_H
#define CU_JSONUTIL_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/parse.h"

/**
 * Parse @len bytes as one JSON object.  Duplicate keys, NUL bytes and a
 * non-object top level are refused.  @what names the input in messages
 * ("the manifest redistrib_12.4.1.json").  Errors: CU_E_INPUT.
 */
CU_NODISCARD enum cu_status cu_json_parse_object(const char *data, size_t len, const char *what,
                                                 json_t **out, struct cu_error *err);

/** The string at @key, or NULL when missing or not a string. Borrowed from @obj. */
const char *cu_json_str(const json_t *obj, const char *key);

/** Parse the string at @key as a version; false when missing or malformed. */
bool cu_json_version(const json_t *obj, const char *key, struct cu_version *out);
/** An optional version: missing or null gives n == 0 and true; anything else must parse. */
bool cu_json_opt_version(const json_t *obj, const char *key, struct cu_version *out);

/** Copy the strings of array @key into a new NULL-terminated vector (empty when missing; cu_strv_free). */
char **cu_json_strv(const json_t *obj, const char *key, size_t *n);

/** Dump @j compactly (sorted keys) or indented. Caller owns the string. */
char *cu_json_dump(const json_t *j, bool pretty);

/** New JSON string, or JSON null when @s is NULL. */
json_t *cu_json_str_or_null(const char *s);

#endif /* CU_JSONUTIL_H */
