/* SPDX-License-Identifier: MIT */
/* Which of a few known words a typed one was most likely meant to be: "did you mean" for names and values. */
#ifndef CU_NEAR_H
#define CU_NEAR_H

#include <stddef.h>

/** Edit distance (Levenshtein) of @a and @b, each at most 32 bytes; 99 for longer ones. */
size_t cu_edit_distance(const char *a, const char *b);

/**
 * The word of @words (@n of them) @typed was most likely meant to be: the nearest within two edits (a typo; one
 * edit for a word of three characters or fewer), else the only one @typed is the start of (three characters or more);
 * NULL when none, or when @typed is one of them.  Borrowed from @words.
 */
const char *cu_nearest_word(const char *typed, const char *const *words, size_t n);

#endif /* CU_NEAR_H */
