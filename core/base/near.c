/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "near.h"

#include <string.h>

size_t
cu_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[33];
    if (la > 32 || lb > 32)
        return 99;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (a[i - 1] != b[j - 1]);
            size_t best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            prev = cur;
        }
    }
    return row[lb];
}

const char *
cu_nearest_word(const char *typed, const char *const *words, size_t n)
{
    const char *best = NULL, *prefixed = NULL;
    size_t bd = 3, n_prefixed = 0, lt = strlen(typed);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(typed, words[i]) == 0)
            return NULL;
        size_t d = cu_edit_distance(typed, words[i]);
        if (d < bd && (strlen(words[i]) > 3 || d == 1))
            bd = d, best = words[i];
        if (lt >= 3 && strncmp(words[i], typed, lt) == 0)
            prefixed = words[i], n_prefixed++;
    }
    return best ? best : n_prefixed == 1 ? prefixed : NULL;
}
