/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/jsonutil.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "core/base/str.h"

enum cu_status
cu_json_parse_object(const char *data, size_t len, const char *what, json_t **out,
                     struct cu_error *err)
{
    json_error_t jerr;
    json_t *j;

    *out = NULL;
    if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
        return cu_error_set(err, CU_E_INPUT, 0, "%s starts with a byte-order mark; it is not plain JSON",
                            what);
    j = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j)
        return cu_error_set(err, CU_E_INPUT, 0, "%s is not valid JSON (line %d: %s)", what,
                            jerr.line, jerr.text);
    if (!json_is_object(j)) {
        json_decref(j);
        return cu_error_set(err, CU_E_INPUT, 0, "%s is not a JSON object", what);
    }
    *out = j;
    return CU_OK;
}

const char *
cu_json_str(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

bool
cu_json_version(const json_t *obj, const char *key, struct cu_version *out)
{
    const char *s = cu_json_str(obj, key);
    if (!s) {
        memset(out, 0, sizeof(*out));
        return false;
    }
    return cu_version_parse(s, out);
}

bool
cu_json_opt_version(const json_t *obj, const char *key, struct cu_version *out)
{
    const json_t *v = json_object_get(obj, key);
    memset(out, 0, sizeof(*out));
    if (!v || json_is_null(v))
        return true;
    return json_is_string(v) && cu_version_parse(json_string_value(v), out);
}

char **
cu_json_strv(const json_t *obj, const char *key, size_t *n)
{
    const json_t *a = json_object_get(obj, key);
    size_t cnt = json_is_array(a) ? json_array_size(a) : 0, k = 0;
    char **v = cu_xcalloc(cnt + 1, sizeof(char *));
    for (size_t i = 0; i < cnt; i++) {
        const json_t *e = json_array_get(a, i);
        if (json_is_string(e))
            v[k++] = cu_xstrdup(json_string_value(e));
    }
    if (n)
        *n = k;
    return v;
}

char *
cu_json_dump(const json_t *j, bool pretty)
{
    char *s = json_dumps(j, (pretty ? JSON_INDENT(2) : JSON_COMPACT) | JSON_PRESERVE_ORDER);
    if (!s)
        return cu_xstrdup("null");
    return s;
}

json_t *
cu_json_str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}
