/* SPDX-License-Identifier: MIT */
/* The catalog's "containers" tables, parsed strictly (core/catalog/ctk_data.h). */
#include "config.h"

#include "core/catalog/ctk_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "core/base/str.h"

static enum cu_status
bad(struct cu_error *err, const char *what, const char *table, size_t i, const char *field)
{
    return cu_error_set(err, CU_E_INPUT, 0, "%s: containers.%s[%zu].%s is missing or malformed", what, table, i, field);
}

static bool
get_str(const json_t *o, const char *key, bool nullable, char **out)
{
    const json_t *v = json_object_get(o, key);
    *out = NULL;
    if (nullable && (!v || json_is_null(v)))
        return true;
    if (!json_is_string(v) || !*json_string_value(v))
        return false;
    *out = cu_xstrdup(json_string_value(v));
    return true;
}

static bool
get_strv(const json_t *o, const char *key, char ***out)
{
    const json_t *a = json_object_get(o, key);
    *out = NULL;
    if (!json_is_array(a))
        return false;
    char **v = cu_xcalloc(json_array_size(a) + 1, sizeof(char *));
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *s = json_array_get(a, i);
        if (!json_is_string(s) || !*json_string_value(s)) {
            cu_strv_free(v);
            return false;
        }
        v[i] = cu_xstrdup(json_string_value(s));
    }
    *out = v;
    return true;
}

static bool
get_ver(const json_t *o, const char *key, bool nullable, struct cu_version *out)
{
    const json_t *v = json_object_get(o, key);
    memset(out, 0, sizeof(*out));
    if (nullable && (!v || json_is_null(v)))
        return true;
    return json_is_string(v) && cu_version_parse(json_string_value(v), out);
}

static enum cu_status
conv_release(const json_t *o, const char *what, size_t i, struct cu_ctk_release *r, struct cu_error *err)
{
    if (!json_is_object(o))
        return bad(err, what, "toolkit", i, "(entry)");
    if (!get_str(o, "version", false, &r->version) || !cu_version_parse(r->version, &r->ver))
        return bad(err, what, "toolkit", i, "version");
    if (!get_str(o, "released", false, &r->released))
        return bad(err, what, "toolkit", i, "released");
    if (!get_strv(o, "packages", &r->packages) || !r->packages[0])
        return bad(err, what, "toolkit", i, "packages");
    const json_t *u = json_object_get(o, "refresh_units"), *w = json_object_get(o, "units_wsl");
    if (!json_is_boolean(u) || !json_is_boolean(w))
        return bad(err, what, "toolkit", i, "refresh_units");
    r->refresh_units = json_is_true(u);
    r->units_wsl = json_is_true(w);
    if (!get_ver(o, "driver_min", false, &r->driver_min))
        return bad(err, what, "toolkit", i, "driver_min");
    if (!get_str(o, "ref", false, &r->ref) || !get_str(o, "confidence", false, &r->confidence))
        return bad(err, what, "toolkit", i, "ref");
    return CU_OK;
}

static enum cu_status
conv_repo(const json_t *o, const char *what, size_t i, struct cu_ctk_repo *r, struct cu_error *err)
{
    if (!json_is_object(o))
        return bad(err, what, "repos", i, "(entry)");
    if (!get_strv(o, "ids", &r->ids) || !r->ids[0] || !get_strv(o, "versions", &r->versions) || !r->versions[0])
        return bad(err, what, "repos", i, "ids");
    if (!get_str(o, "manager", false, &r->manager))
        return bad(err, what, "repos", i, "manager");
    const json_t *c = json_object_get(o, "carries");
    if (!json_is_boolean(c))
        return bad(err, what, "repos", i, "carries");
    r->carries = json_is_true(c);
    if (!get_ver(o, "from", !r->carries, &r->from))
        return bad(err, what, "repos", i, "from");
    if (!get_str(o, "ref", false, &r->ref) || !get_str(o, "confidence", false, &r->confidence))
        return bad(err, what, "repos", i, "ref");
    return CU_OK;
}

static enum cu_status
conv_fact(const json_t *o, const char *what, size_t i, struct cu_ctk_fact *f, struct cu_error *err)
{
    if (!json_is_object(o))
        return bad(err, what, "engines", i, "(entry)");
    if (!get_str(o, "engine", false, &f->engine) || !get_str(o, "fact", false, &f->fact))
        return bad(err, what, "engines", i, "engine");
    if (!get_ver(o, "from", true, &f->from) || !get_ver(o, "to", true, &f->to))
        return bad(err, what, "engines", i, "from");
    if (!get_str(o, "value", false, &f->value))
        return bad(err, what, "engines", i, "value");
    if (!get_str(o, "ref", false, &f->ref) || !get_str(o, "confidence", false, &f->confidence))
        return bad(err, what, "engines", i, "ref");
    return CU_OK;
}

static enum cu_status
conv_hold(const json_t *o, const char *what, size_t i, struct cu_ctk_hold *h, struct cu_error *err)
{
    if (!json_is_object(o))
        return bad(err, what, "hold", i, "(entry)");
    if (!get_strv(o, "ids", &h->ids) || !h->ids[0] || !get_strv(o, "versions", &h->versions) || !h->versions[0])
        return bad(err, what, "hold", i, "ids");
    if (!get_str(o, "manager", false, &h->manager))
        return bad(err, what, "hold", i, "manager");
    if (!get_strv(o, "prereq", &h->prereq) || !get_strv(o, "hold", &h->hold) || !h->hold[0])
        return bad(err, what, "hold", i, "hold");
    if (!get_str(o, "ref", false, &h->ref) || !get_str(o, "confidence", false, &h->confidence))
        return bad(err, what, "hold", i, "ref");
    return CU_OK;
}

enum cu_status
cu_ctk_data_parse(const json_t *obj, const char *what, struct cu_ctk_data **out, struct cu_error *err)
{
    enum cu_status st = CU_OK;
    *out = NULL;
    struct cu_ctk_data *d = cu_xcalloc(1, sizeof(*d));
    if (!obj || json_is_null(obj)) {
        *out = d; /* an older catalog: nothing is known of containers */
        return CU_OK;
    }
    const json_t *tk = json_object_get(obj, "toolkit"), *rp = json_object_get(obj, "repos"),
                 *en = json_object_get(obj, "engines");
    if (!json_is_object(obj) || !json_is_array(tk) || !json_is_array(rp) || !json_is_array(en)) {
        free(d);
        return cu_error_set(err, CU_E_INPUT, 0, "%s: \"containers\" must hold the lists toolkit, repos and engines", what);
    }
    d->releases = cu_xcalloc(json_array_size(tk) + 1, sizeof(*d->releases));
    d->repos = cu_xcalloc(json_array_size(rp) + 1, sizeof(*d->repos));
    d->facts = cu_xcalloc(json_array_size(en) + 1, sizeof(*d->facts));
    for (size_t i = 0; st == CU_OK && i < json_array_size(tk); i++, d->n_releases++)
        st = conv_release(json_array_get(tk, i), what, i, &d->releases[i], err);
    for (size_t i = 0; st == CU_OK && i < json_array_size(rp); i++, d->n_repos++)
        st = conv_repo(json_array_get(rp, i), what, i, &d->repos[i], err);
    for (size_t i = 0; st == CU_OK && i < json_array_size(en); i++, d->n_facts++)
        st = conv_fact(json_array_get(en, i), what, i, &d->facts[i], err);
    const json_t *ho = json_object_get(obj, "hold");
    if (st == CU_OK && ho && !json_is_array(ho))
        st = cu_error_set(err, CU_E_INPUT, 0, "%s: containers.hold must be a list", what);
    d->holds = cu_xcalloc(json_array_size(ho) + 1, sizeof(*d->holds));
    for (size_t i = 0; st == CU_OK && i < json_array_size(ho); i++, d->n_holds++)
        st = conv_hold(json_array_get(ho, i), what, i, &d->holds[i], err);
    /* Newest first, whatever order the file had: the choice takes the first that fits. */
    for (size_t i = 1; st == CU_OK && i < d->n_releases; i++)
        if (cu_version_cmp(&d->releases[i - 1].ver, &d->releases[i].ver) <= 0)
            st = bad(err, what, "toolkit", i, "version (the list must be newest first, without repeats)");
    if (st != CU_OK) {
        cu_ctk_data_free(d);
        return st;
    }
    *out = d;
    return CU_OK;
}

void
cu_ctk_data_free(struct cu_ctk_data *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_releases; i++) {
        struct cu_ctk_release *r = &d->releases[i];
        free(r->version);
        free(r->released);
        cu_strv_free(r->packages);
        free(r->ref);
        free(r->confidence);
    }
    for (size_t i = 0; i < d->n_repos; i++) {
        struct cu_ctk_repo *r = &d->repos[i];
        cu_strv_free(r->ids);
        cu_strv_free(r->versions);
        free(r->manager);
        free(r->ref);
        free(r->confidence);
    }
    for (size_t i = 0; i < d->n_facts; i++) {
        struct cu_ctk_fact *f = &d->facts[i];
        free(f->engine);
        free(f->fact);
        free(f->value);
        free(f->ref);
        free(f->confidence);
    }
    for (size_t i = 0; i < d->n_holds; i++) {
        struct cu_ctk_hold *h = &d->holds[i];
        cu_strv_free(h->ids);
        cu_strv_free(h->versions);
        free(h->manager);
        cu_strv_free(h->prereq);
        cu_strv_free(h->hold);
        free(h->ref);
        free(h->confidence);
    }
    free(d->releases);
    free(d->repos);
    free(d->facts);
    free(d->holds);
    free(d);
}

static bool
in(char *const *v, const char *s)
{
    for (; v && *v; v++)
        if (strcmp(*v, s) == 0 || strcmp(*v, "*") == 0)
            return true;
    return false;
}

const struct cu_ctk_repo *
cu_ctk_repo_for(const struct cu_ctk_data *d, const char *id, const char *version_id)
{
    if (!d || !id)
        return NULL;
    const char *vid = version_id ? version_id : "";
    char major[32];
    snprintf(major, sizeof(major), "%.*s", (int)strcspn(vid, "."), vid);
    for (size_t i = 0; i < d->n_repos; i++)
        if (in(d->repos[i].ids, id) && (in(d->repos[i].versions, vid) || in(d->repos[i].versions, major)))
            return &d->repos[i];
    return NULL;
}

const struct cu_ctk_hold *
cu_ctk_hold_for(const struct cu_ctk_data *d, const char *id, const char *version_id)
{
    if (!d || !id)
        return NULL;
    const char *vid = version_id ? version_id : "";
    char major[32];
    snprintf(major, sizeof(major), "%.*s", (int)strcspn(vid, "."), vid);
    for (size_t i = 0; i < d->n_holds; i++)
        if (in(d->holds[i].ids, id) && (in(d->holds[i].versions, vid) || in(d->holds[i].versions, major)))
            return &d->holds[i];
    return NULL;
}

const struct cu_ctk_fact *
cu_ctk_fact_for(const struct cu_ctk_data *d, const char *engine, const char *fact, const struct cu_version *version)
{
    for (size_t i = 0; d && i < d->n_facts; i++) {
        const struct cu_ctk_fact *f = &d->facts[i];
        if (strcmp(f->engine, engine) != 0 || strcmp(f->fact, fact) != 0)
            continue;
        if (!version || !version->n) {
            if (!f->from.n && !f->to.n)
                return f;
            continue;
        }
        if ((!f->from.n || cu_version_cmp(version, &f->from) >= 0) && (!f->to.n || cu_version_cmp(version, &f->to) < 0))
            return f;
    }
    if (!version || !version->n) /* no open row: the first, for a version nobody knows */
        for (size_t i = 0; d && i < d->n_facts; i++)
            if (strcmp(d->facts[i].engine, engine) == 0 && strcmp(d->facts[i].fact, fact) == 0)
                return &d->facts[i];
    return NULL;
}

const struct cu_ctk_release *
cu_ctk_release_for(const struct cu_ctk_data *d, const char *version)
{
    for (size_t i = 0; d && version && i < d->n_releases; i++)
        if (strcmp(d->releases[i].version, version) == 0)
            return &d->releases[i];
    return NULL;
}

char *
cu_ctk_fact_source(const struct cu_ctk_fact *f)
{
    return cu_xasprintf("data/containers/engines.csv %s %s: %s (%s)", f->engine, f->fact, f->ref, f->confidence);
}
