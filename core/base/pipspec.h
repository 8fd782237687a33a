/* SPDX-License-Identifier: MIT */
/*
 * Version specifiers as pip reads them from a wheel's Requires-Dist (PEP 440): "==9.10.2.21",
 * "<10.0,>=9.3.0.75", "==13.1.0.3.*", "~=3.4", "" (any).  Enough to tell whether the specifiers of
 * several packages that ask for one distribution can be met by one release of it, which release of
 * a list meets them, and what a constraints file should hold; pre-releases, local versions and
 * arbitrary equality are not part of what the frameworks' wheels write, and are refused.
 */
#ifndef CU_PIPSPEC_H
#define CU_PIPSPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/macros.h"
#include "core/base/parse.h"

enum cu_pipspec_op { CU_PS_EQ, CU_PS_NE, CU_PS_GE, CU_PS_GT, CU_PS_LE, CU_PS_LT, CU_PS_COMPAT };

struct cu_pipspec_clause {
    enum cu_pipspec_op op;
    struct cu_version v;
    bool prefix; /* "==X.*" or "!=X.*" */
};

/* A conjunction of clauses; n == 0 accepts every release. */
struct cu_pipspec {
    struct cu_pipspec_clause c[8];
    size_t n;
};

/** Parse @s (NULL or "" for any); false when it is not a specifier cudaup understands. */
CU_NODISCARD bool cu_pipspec_parse(const char *s, struct cu_pipspec *out);

/** Compare versions as PEP 440 does for release segments: missing parts are zeros (9.0 == 9.0.0). */
int cu_pipver_cmp(const struct cu_version *a, const struct cu_version *b);

/** Does release @v satisfy @s? */
bool cu_pipspec_contains(const struct cu_pipspec *s, const struct cu_version *v);

/**
 * Can one release satisfy every one of the @n specifiers?  An interval test: the bounds must leave
 * room, and where one asks for an exact release every other must accept it.  Whether such a
 * release was published is for the caller to know.
 */
bool cu_pipspec_meet(const struct cu_pipspec *const *specs, size_t n);

/**
 * The one release an exact pin among the @n specifiers names ("9.10.2.21", or the prefix of
 * "==13.1.0.3.*" with *@prefix set); false when none pins one.
 */
bool cu_pipspec_pinned(const struct cu_pipspec *const *specs, size_t n, struct cu_version *out, bool *prefix);

/**
 * The lower bound of @s: the release its first ==, >= or ~= clause names ("==13.2.86.*" 13.2.86, ">=9.3.0.75,<10.0"
 * 9.3.0.75) in *@out, *@exact set where that clause is an exact == (no ".*"); false where it has none.
 */
bool cu_pipspec_floor(const struct cu_pipspec *s, struct cu_version *out, bool *exact);

/** The release @s keeps below (its < clause: ">=9.3,<10.0" 10.0) in *@out; false where it has none. */
bool cu_pipspec_below(const struct cu_pipspec *s, struct cu_version *out);

#endif /* CU_PIPSPEC_H */
