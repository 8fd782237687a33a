/* SPDX-License-Identifier: MIT */
/*
 * A reader of TOML (v1.0) as container engines write and read it (containerd's config.toml and its drop-ins, CRI-O's,
 * the NVIDIA Container Toolkit's): every key with its full path, its value and the lines it spans, and every table
 * header in order, so that a caller can judge a file and edit it by lines, leaving every other byte as it was.
 * Strict where the engines' own parsers are (an unterminated string or array, a malformed header, a key given twice
 * are errors with their line); values it does not need (dates, floats) are kept as written.
 */
#ifndef CU_TOML_H
#define CU_TOML_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"

enum cu_toml_type {
    CU_TOML_STRING,
    CU_TOML_INT,
    CU_TOML_BOOL,
    CU_TOML_ARRAY,  /* @items holds its strings (other items are skipped) */
    CU_TOML_TABLE,  /* an inline table: its keys are entries of their own under this path */
    CU_TOML_OTHER,  /* a float, a date: @value as written */
};

struct cu_toml_entry {
    char *key;              /* the full path, canonical: parts joined by '.', a part quoted ("...") unless it is bare
                             * ([A-Za-z0-9_-]+): plugins."io.containerd.grpc.v1.cri".containerd */
    enum cu_toml_type type;
    char *value;            /* a string decoded; an int or bool as written; an array's or table's text */
    long long ival;         /* CU_TOML_INT */
    char **items;           /* CU_TOML_ARRAY: its string items, decoded, NULL-terminated (never NULL for an array) */
    int line, end_line;     /* 1-based lines of the key = value (an inline table's entries: the table's) */
    bool top;               /* defined before the first table header (a top-level key of the file) */
};

struct cu_toml_table {
    char *key;              /* canonical path of the header */
    bool array;             /* [[...]] */
    int line;               /* the header's line */
    int end_line;           /* the last line before the next header (or the file's last line) */
};

struct cu_toml {
    struct cu_toml_entry *v;
    size_t n;
    struct cu_toml_table *tables;
    size_t n_tables;
    int first_table_line;   /* the first header's line, 0 when there is none */
    int n_lines;
};

/**
 * Parse @text.  Errors: CU_E_INPUT with the line and what is wrong ("line 3: unterminated string").  On success the
 * caller owns @out's contents (cu_toml_fini); on an error @out is empty.
 */
CU_NODISCARD enum cu_status cu_toml_parse(const char *text, struct cu_toml *out, struct cu_error *err);
void cu_toml_fini(struct cu_toml *t);

/** The entry of canonical key @key, or NULL. */
const struct cu_toml_entry *cu_toml_get(const struct cu_toml *t, const char *key);

/** The table header of canonical key @key, or NULL. */
const struct cu_toml_table *cu_toml_table(const struct cu_toml *t, const char *key);

/** Is anything (a header, a key, an inline table) defined at @key or below it? */
bool cu_toml_has_prefix(const struct cu_toml *t, const char *key);

/** A canonical key part: @part as is when bare, else quoted. Caller owns. */
char *cu_toml_part(const char *part);

/** A TOML basic string of @s ("..." with escapes). Caller owns. */
char *cu_toml_quote(const char *s);

#endif /* CU_TOML_H */
