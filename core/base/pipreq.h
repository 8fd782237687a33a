/* SPDX-License-Identifier: MIT */
/*
 * What a package index says of a distribution, as pip reads it: a wheel's file name (PEP 427, PEP 491), the
 * Requires-Dist and Requires-Python of its METADATA (core metadata, PEP 566), one requirement of PEP 508 and its
 * environment marker, evaluated for the Linux machine cudaup plans for, and a PEP 440 version split into its
 * release and pre-release.  Pure functions, any thread; knows nothing of NVIDIA.
 */
#ifndef CU_PIPREQ_H
#define CU_PIPREQ_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/macros.h"
#include "core/base/parse.h"
#include "core/base/str.h"

/** One requirement: "cuda-toolkit[cublas,cudart]==13.2.2; platform_system == \"Linux\"". */
struct cu_pipreq {
    char *name;   /* PEP 503 normalized: "cuda-toolkit" */
    char *extras; /* normalized, comma-separated as written ("cublas,cudart"), or "" */
    char *spec;   /* the specifier without spaces or parentheses ("<10,>=9.8"), or "" */
    char *marker; /* the environment marker as written, or "" */
};

/** Parse one Requires-Dist value; false when it is not a requirement (a URL one, a malformed name). */
CU_NODISCARD bool cu_pipreq_parse(const char *text, struct cu_pipreq *out);
void cu_pipreq_fini(struct cu_pipreq *r);

/**
 * The Requires-Dist values of METADATA @text (its headers: up to the first blank line), in order, into @out, and
 * its Requires-Python into *@requires_python (NULL when absent; caller frees).  False when @text is not core
 * metadata (no Metadata-Version or Name header).
 */
bool cu_metadata_read(const char *text, struct cu_strv *out, char **requires_python);

/**
 * Evaluate PEP 508 marker @marker ("" is true) for CPython on Linux @machine ("x86_64") with extra @extra asked
 * ("" for none; extras compare normalized, PEP 685).  A comparison of python_version or python_full_version is
 * true when @python is NULL (any Python the plan may take), else compared with it ("3.12").
 * @return 1 true, 0 false, -1 a marker cudaup does not understand.
 */
int cu_marker_eval(const char *marker, const char *machine, const char *extra, const char *python);

/** PEP 503's normalized form of the first @n bytes of @name ("Jax_CUDA13.Plugin" -> "jax-cuda13-plugin"). */
char *cu_pep503_name(const char *name, size_t n);

/** A wheel's file name taken apart. */
struct cu_wheel_name {
    char *name;     /* normalized */
    char *version;  /* as written: "2.16.0", "2.22.0rc0" */
    char *python;   /* "cp312", "cp311.cp312", "py3", "py2.py3" */
    char *abi;      /* "cp312", "abi3", "none" */
    char *platform; /* "manylinux_2_28_x86_64", "manylinux1_x86_64.manylinux2014_x86_64", "any" */
};

/** Take NAME-VER(-BUILD)?-PY-ABI-PLAT.whl apart; false when @file is not such a name. */
CU_NODISCARD bool cu_wheel_name_parse(const char *file, struct cu_wheel_name *out);
void cu_wheel_name_fini(struct cu_wheel_name *w);

/** Does the wheel install on Linux @machine ("x86_64") with glibc: a manylinux or linux tag of it, or "any"? */
bool cu_wheel_for_linux(const struct cu_wheel_name *w, const char *machine);

/**
 * Does the wheel install on CPython 3.@minor: cpXY of it, cpXY with abi3 for XY <= @minor, py3 or py2.py3?
 */
bool cu_wheel_for_python(const struct cu_wheel_name *w, unsigned minor);

/**
 * A PEP 440 version the frameworks publish: its release ("2.22.0") into *@release and its pre-release
 * ("rc0", "a1", "b2"; "" for a final release) into @pre.  False for anything else: a development or
 * post release, a local version, an epoch, more than four release parts.
 */
CU_NODISCARD bool cu_pep440_parse(const char *s, struct cu_version *release, char pre[16]);

/** Compare two versions cu_pep440_parse() reads, as PEP 440 orders them (2.22.0rc0 < 2.22.0). */
int cu_pep440_cmp(const char *a, const char *b);

#endif /* CU_PIPREQ_H */
