/* SPDX-License-Identifier: MIT */
/* Archive member names: whatever cu_extract_name_ok accepts has no way out of the tree. */
#include "config.h"

#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "core/unpack/extract.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    if (cu_extract_name_ok(s)) {
        if (s[0] == '/' || strcmp(s, "..") == 0 || strncmp(s, "../", 3) == 0 || strstr(s, "/../") ||
            (strlen(s) >= 3 && strcmp(s + strlen(s) - 3, "/..") == 0))
            abort();
        for (const char *p = s; *p; p++)
            if ((unsigned char)*p < 32)
                abort();
    }
    free(s);
    return 0;
}
