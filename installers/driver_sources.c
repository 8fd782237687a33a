/* SPDX-License-Identifier: MIT */
/*
 * apt's sources as the machine has them (one-line .list and deb822 .sources files), and the stanzas
 * that add the driver's components to every suite of the system's archive that lacks them: the release,
 * -updates and -security alike, each at the URI the system already uses for it, and the suites the
 * distribution's row names that the system does not list at all (Debian's debootstrap writes only the release).
 */
#include "config.h"

#include "driver_sources.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fsutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"

struct entry {
    char *uri, *suite;
    struct cu_strv comps;
};

struct entries {
    struct entry *v;
    size_t n;
};

static void
add_entry(struct entries *es, const char *uri, const char *suite, const struct cu_strv *comps)
{
    es->v = cu_xrealloc(es->v, (es->n + 1) * sizeof(*es->v));
    struct entry *e = &es->v[es->n++];
    size_t ul = strlen(uri);
    while (ul > 1 && uri[ul - 1] == '/')
        ul--;
    e->uri = cu_xstrndup(uri, ul);
    e->suite = cu_xstrdup(suite);
    cu_strv_init(&e->comps);
    for (size_t i = 0; comps && i < comps->n; i++)
        cu_strv_push(&e->comps, comps->v[i]);
}

static void
one_line(struct entries *es, char *line)
{
    struct cu_strv w;
    cu_strv_init(&w);
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    /* drop "[ options ]" */
    char *lb = strchr(line, '['), *rb = lb ? strchr(lb, ']') : NULL;
    if (lb && rb)
        memset(lb, ' ', (size_t)(rb - lb + 1));
    cu_strv_split(&w, line, " \t");
    if (w.n >= 3 && strcmp(w.v[0], "deb") == 0) {
        struct cu_strv comps;
        cu_strv_init(&comps);
        for (size_t i = 3; i < w.n; i++)
            cu_strv_push(&comps, w.v[i]);
        add_entry(es, w.v[1], w.v[2], &comps);
        cu_strv_fini(&comps);
    }
    cu_strv_fini(&w);
}

/* deb822: stanzas of "Field: value" separated by empty lines. */
static void
deb822(struct entries *es, char *text)
{
    struct cu_strv types, uris, suites, comps;
    bool enabled = true, any = false;
    cu_strv_init(&types);
    cu_strv_init(&uris);
    cu_strv_init(&suites);
    cu_strv_init(&comps);
    for (char *line = text, *next;; line = next) {
        next = line ? strchr(line, '\n') : NULL;
        if (next)
            *next++ = '\0';
        char *l = line ? cu_str_strip(line) : NULL;
        if (!l || !*l) {
            if (any && enabled && cu_strv_contains(&types, "deb"))
                for (size_t u = 0; u < uris.n; u++)
                    for (size_t s = 0; s < suites.n; s++)
                        add_entry(es, uris.v[u], suites.v[s], &comps);
            cu_strv_fini(&types);
            cu_strv_fini(&uris);
            cu_strv_fini(&suites);
            cu_strv_fini(&comps);
            cu_strv_init(&types);
            cu_strv_init(&uris);
            cu_strv_init(&suites);
            cu_strv_init(&comps);
            enabled = true;
            any = false;
            if (!next)
                break;
            continue;
        }
        if (l[0] == '#')
            continue;
        char *colon = strchr(l, ':');
        if (!colon)
            continue;
        *colon = '\0';
        const char *v = colon + 1;
        any = true;
        if (strcasecmp(l, "Types") == 0)
            cu_strv_split(&types, v, " \t");
        else if (strcasecmp(l, "URIs") == 0)
            cu_strv_split(&uris, v, " \t");
        else if (strcasecmp(l, "Suites") == 0)
            cu_strv_split(&suites, v, " \t");
        else if (strcasecmp(l, "Components") == 0)
            cu_strv_split(&comps, v, " \t");
        else if (strcasecmp(l, "Enabled") == 0)
            enabled = strstr(v, "no") == NULL;
    }
}

static void
read_file(const struct cu_sys *sys, const char *abs, bool is822, struct entries *es)
{
    char *text = NULL;
    struct cu_error e;
    if (cu_sys_read(sys, abs, 1 << 20, &text, &e) != CU_OK) /* through the root: its links stay inside it */
        return;
    if (is822) {
        deb822(es, text);
    } else {
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            one_line(es, line);
    }
    free(text);
}

static bool
ours(const struct entry *e, const char *codename)
{
    /* The release's own suites: CODENAME, CODENAME-updates, CODENAME-security (not backports, not flat repositories). */
    size_t n = strlen(codename);
    if (strncmp(e->suite, codename, n) != 0)
        return false;
    const char *rest = e->suite + n;
    return !*rest || strcmp(rest, "-updates") == 0 || strcmp(rest, "-security") == 0;
}

/* Add a stanza for @suite at @uri with @comps to @b (its header first). */
static void
stanza(struct cu_buf *b, const char *uri, const char *suite, const struct cu_strv *comps)
{
    if (!b->len)
        cu_buf_puts(b, "# Written by cudaup: the components the NVIDIA driver's packages are in, for each suite of the system's archive.\n");
    cu_buf_printf(b, "\nTypes: deb\nURIs: %s\nSuites: %s\nComponents:", uri, suite);
    for (size_t m = 0; m < comps->n; m++)
        cu_buf_printf(b, " %s", comps->v[m]);
    cu_buf_puts(b, "\n");
}

/*
 * The suites of @suites ("{C} {C}-updates {C}-security=URI", {C} the codename) that no entry lists: a stanza
 * each, at its URI (else the release entry's), with the release entry's components and @want.
 */
static void
absent_suites(struct cu_buf *b, const struct entries *es, const char *suites, const char *code, const struct cu_strv *want)
{
    const struct entry *rel = NULL;
    for (size_t i = 0; i < es->n && !rel; i++)
        if (strcmp(es->v[i].suite, code) == 0)
            rel = &es->v[i];
    struct cu_strv toks;
    cu_strv_init(&toks);
    cu_strv_split(&toks, suites, " ");
    for (size_t t = 0; t < toks.n; t++) {
        char *eq = strchr(toks.v[t], '=');
        if (eq)
            *eq++ = '\0';
        const char *brace = strstr(toks.v[t], "{C}");
        CU_AUTOFREE char *suite = brace ? cu_xasprintf("%.*s%s%s", (int)(brace - toks.v[t]), toks.v[t], code, brace + 3)
                                        : cu_xstrdup(toks.v[t]);
        bool listed = false;
        for (size_t i = 0; i < es->n; i++)
            listed |= strcmp(es->v[i].suite, suite) == 0;
        const char *uri = eq && *eq ? eq : rel ? rel->uri : NULL;
        if (listed || !uri)
            continue;
        struct cu_strv comps;
        cu_strv_init(&comps);
        for (size_t c = 0; rel && c < rel->comps.n; c++)
            if (!cu_strv_contains(&comps, rel->comps.v[c]))
                cu_strv_push(&comps, rel->comps.v[c]);
        for (size_t w = 0; w < want->n; w++)
            if (!cu_strv_contains(&comps, want->v[w]))
                cu_strv_push(&comps, want->v[w]);
        stanza(b, uri, suite, &comps);
        cu_strv_fini(&comps);
    }
    cu_strv_fini(&toks);
}

char *
inst_driver_sources_text(const struct cu_sys *sys, const char *components, const char *suites, const char *codename,
                         const char *own_file)
{
    struct entries es = {NULL, 0};
    read_file(sys, "/etc/apt/sources.list", false, &es);
    CU_AUTOFREE char *dir = cu_sys_path(sys, "/etc/apt/sources.list.d");
    DIR *d = opendir(dir);
    struct dirent *de;
    struct cu_strv names;
    cu_strv_init(&names);
    while (d && (de = readdir(d)))
        if (cu_str_has_suffix(de->d_name, ".list") || cu_str_has_suffix(de->d_name, ".sources"))
            cu_strv_push(&names, de->d_name);
    if (d)
        closedir(d);
    cu_strv_sort(&names);
    for (size_t i = 0; i < names.n; i++) {
        CU_AUTOFREE char *abs = cu_path_join("/etc/apt/sources.list.d", names.v[i]);
        if (own_file && strcmp(abs, own_file) == 0)
            continue;
        read_file(sys, abs, cu_str_has_suffix(names.v[i], ".sources"), &es);
    }
    cu_strv_fini(&names);
    /* The codename: os-release's, else the first suite of a plain release entry. */
    CU_AUTOFREE char *code = codename ? cu_xstrdup(codename) : NULL;
    for (size_t i = 0; !code && i < es.n; i++)
        if (!strchr(es.v[i].suite, '-') && !strchr(es.v[i].suite, '/'))
            code = cu_xstrdup(es.v[i].suite);
    struct cu_strv want;
    cu_strv_init(&want);
    cu_strv_split(&want, components, " ");
    struct cu_buf b;
    cu_buf_init(&b);
    struct cu_strv done;
    cu_strv_init(&done);
    for (size_t i = 0; code && i < es.n; i++) {
        const struct entry *e = &es.v[i];
        CU_AUTOFREE char *key = cu_xasprintf("%s %s", e->uri, e->suite);
        if (!ours(e, code) || cu_strv_contains(&done, key))
            continue;
        cu_strv_push(&done, key);
        struct cu_strv missing;
        cu_strv_init(&missing);
        for (size_t w = 0; w < want.n; w++) {
            bool has = false;
            for (size_t j = 0; j < es.n; j++)
                has |= strcmp(es.v[j].uri, e->uri) == 0 && strcmp(es.v[j].suite, e->suite) == 0 &&
                       cu_strv_contains(&es.v[j].comps, want.v[w]);
            if (!has)
                cu_strv_push(&missing, want.v[w]);
        }
        if (missing.n)
            stanza(&b, e->uri, e->suite, &missing);
        cu_strv_fini(&missing);
    }
    bool found = done.n > 0;
    if (found && suites)
        absent_suites(&b, &es, suites, code, &want);
    cu_strv_fini(&done);
    cu_strv_fini(&want);
    for (size_t i = 0; i < es.n; i++) {
        free(es.v[i].uri);
        free(es.v[i].suite);
        cu_strv_fini(&es.v[i].comps);
    }
    free(es.v);
    if (!found) {
        cu_buf_fini(&b);
        return cu_xstrdup(""); /* no entry of the release's archive: the caller says so */
    }
    if (!b.len) {
        cu_buf_fini(&b);
        return NULL;
    }
    return cu_buf_steal(&b);
}
