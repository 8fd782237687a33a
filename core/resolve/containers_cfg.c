/* SPDX-License-Identifier: MIT */
/*
 * The engines' configuration files as cudaup writes and judges them (core/resolve/containers.h): each made from the
 * file as it is, every byte of the user's kept (containerd's root config gets a marked block of new tables or one more
 * import; daemon.json keeps every key), by the rules the data vouches for (data/containers/engines.csv).
 */
#include "config.h"

#include "core/resolve/containers.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/toml.h"

#define RUNTIME_TYPE_DEFAULT "io.containerd.runc.v2"

/* ---- lines ------------------------------------------------------------------------------------------ */

/* @text with lines [@from, @to] (1-based, inclusive) replaced by @with (may be "", ends with \n); @to == @from - 1
 * inserts before line @from. */
static char *
replace_lines(const char *text, int from, int to, const char *with)
{
    struct cu_buf b;
    cu_buf_init(&b);
    int line = 1;
    const char *p = text;
    bool done = false;
    while (*p || !done) {
        if (line == from && !done) {
            cu_buf_puts(&b, with);
            done = true;
        }
        if (!*p)
            break;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (line < from || line > to) {
            cu_buf_append(&b, p, len);
            if (!nl)
                cu_buf_putc(&b, '\n');
        }
        p += len;
        line++;
    }
    if (!done)
        cu_buf_puts(&b, with);
    return b.data ? cu_buf_steal(&b) : cu_xstrdup("");
}

static bool
blank(const char *text)
{
    for (const char *p = text ? text : ""; *p; p++) {
        if (*p == '#') {
            while (*p && *p != '\n')
                p++;
            if (!*p)
                break;
        } else if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            return false;
        }
    }
    return true;
}

/* ---- containerd ------------------------------------------------------------------------------------- */

/* The CRI runtime plugin of config version @v, from the data ("1=cri 2=io.containerd.grpc.v1.cri ..."). */
static char *
cri_plugin(const struct cu_ctk_data *d, int v)
{
    const struct cu_ctk_fact *f = cu_ctk_fact_for(d, "containerd", "cri_plugin", NULL);
    struct cu_strv w;
    char *out = NULL;
    cu_strv_init(&w);
    cu_strv_split(&w, f ? f->value : "", " ");
    char want[16];
    snprintf(want, sizeof(want), "%d=", v);
    for (size_t i = 0; i < w.n && !out; i++)
        if (cu_str_has_prefix(w.v[i], want))
            out = cu_xstrdup(w.v[i] + strlen(want));
    cu_strv_fini(&w);
    return out;
}

/* The config versions containerd @version reads, from the data; false (and empty) when it is unknown. */
static bool
known_versions(const struct cu_ctk_data *d, const struct cu_version *version, int *vs, size_t max, size_t *n)
{
    *n = 0;
    const struct cu_ctk_fact *f = version && version->n ? cu_ctk_fact_for(d, "containerd", "config_versions", version) : NULL;
    if (!f)
        return false;
    struct cu_strv w;
    cu_strv_init(&w);
    cu_strv_split(&w, f->value, " ");
    for (size_t i = 0; i < w.n && *n < max; i++) {
        uint64_t v;
        if (cu_parse_u64(w.v[i], 99, &v))
            vs[(*n)++] = (int)v;
    }
    cu_strv_fini(&w);
    return true;
}

static const char *
runtime_type(const struct cu_ctk_data *d)
{
    const struct cu_ctk_fact *f = cu_ctk_fact_for(d, "containerd", "runtime_type", NULL);
    return f ? f->value : RUNTIME_TYPE_DEFAULT;
}

/* A file's config version: its `version`, else 1 where it has content (containerd's rule), else 0 (empty). */
static int
toml_version(const struct cu_toml *t)
{
    const struct cu_toml_entry *v = cu_toml_get(t, "version");
    if (v && v->type == CU_TOML_INT)
        return (int)v->ival;
    return t->n || t->n_tables ? 1 : 0;
}

/* Does @t define the nvidia runtime of plugin @plugin, with its binary and (versions 2 and later) its runtime_type? */
static bool
defines_runtime(const struct cu_toml *t, const char *plugin, int version)
{
    CU_AUTOFREE char *p = cu_toml_part(plugin);
    CU_AUTOFREE char *bin = cu_xasprintf("plugins.%s.containerd.runtimes.nvidia.options.BinaryName", p);
    CU_AUTOFREE char *rt = cu_xasprintf("plugins.%s.containerd.runtimes.nvidia.runtime_type", p);
    const struct cu_toml_entry *b = cu_toml_get(t, bin), *r = cu_toml_get(t, rt);
    return b && b->type == CU_TOML_STRING && *b->value && (version < 2 || (r && r->type == CU_TOML_STRING && *r->value));
}

char *
cu_ctd_refuses(const struct cu_ctk_data *d, const struct cu_version *version, int root_version, const char *dropin_text)
{
    struct cu_toml t;
    struct cu_error err;
    if (cu_toml_parse(dropin_text ? dropin_text : "", &t, &err) != CU_OK)
        return cu_tr_asprintf(_("it does not parse (%s)"), cu_error_text(&err));
    int dv = toml_version(&t);
    cu_toml_fini(&t);
    if (!version || !version->n)
        return NULL;
    char b[32];
    cu_version_format(version, 0, b, sizeof(b));
    int vs[8];
    size_t n;
    if (dv && known_versions(d, version, vs, CU_N_ELEMENTS(vs), &n)) {
        bool known = false;
        for (size_t i = 0; i < n; i++)
            known |= vs[i] == dv;
        if (!known)
            return cu_tr_asprintf(_("containerd %s does not read configuration version %d"), b, dv);
    }
    const struct cu_ctk_fact *f = cu_ctk_fact_for(d, "containerd", "dropin_newer", version);
    if (f && strcmp(f->value, "refuse") == 0 && dv > root_version)
        /* containerd's own words (aicr#1688): "drop-in config version 4 higher than root config version 2" */
        return cu_tr_asprintf(_("containerd %s refuses to start with it: \"drop-in config version %d higher than root config version %d\""),
                              b, dv, root_version);
    return NULL;
}

static char *
runtime_tables(const char *plugin, const char *type, int version)
{
    CU_AUTOFREE char *p = cu_toml_part(plugin);
    struct cu_buf b;
    cu_buf_init(&b);
    (void)version; /* every version takes runtime_type (version 1 since containerd 1.2) */
    cu_buf_printf(&b, "[plugins.%s.containerd.runtimes.nvidia]\n", p);
    cu_buf_printf(&b, "  runtime_type = \"%s\"\n", type);
    cu_buf_printf(&b, "\n[plugins.%s.containerd.runtimes.nvidia.options]\n  BinaryName = \"%s\"\n", p, CU_CTR_RUNTIME);
    return cu_buf_steal(&b);
}

/* Does one of @items (the root's imports) name @path, as containerd resolves them (relative: against its folder)? */
static bool
imports_name(char *const *items, const char *path)
{
    for (; items && *items; items++) {
        CU_AUTOFREE char *abs = **items == '/' ? cu_xstrdup(*items) : cu_path_join("/etc/containerd", *items);
        if (fnmatch(abs, path, FNM_PATHNAME) == 0)
            return true;
    }
    return false;
}

enum cu_status
cu_ctd_config(const struct cu_ctk_data *d, const struct cu_version *version, const char *root_text,
              const struct cu_engine_file *files, size_t n, struct cu_ctd_write *out, struct cu_error *err)
{
    memset(out, 0, sizeof(*out));
    struct cu_toml t;
    enum cu_status st;
    char vb[32] = "";
    if (version && version->n)
        cu_version_format(version, 0, vb, sizeof(vb));
    out->root_exists = root_text != NULL;
    if ((st = cu_toml_parse(root_text ? root_text : "", &t, err)) != CU_OK) {
        CU_AUTOFREE char *why = cu_xstrdup(cu_error_text(err));
        cu_error_set(err, CU_E_INPUT, 0, _("containerd's /etc/containerd/config.toml does not parse (%s), so containerd would not start with it either; nothing was changed."),
                     why);
        cu_error_advise(err, _("Fix that file (`containerd config default` prints a sound one to start from), then run cudaup again."));
        return CU_E_INPUT;
    }
    int vs[8];
    size_t nv = 0;
    bool knows = known_versions(d, version, vs, CU_N_ELEMENTS(vs), &nv);
    int rv = toml_version(&t);
    if (!rv) {
        /* No root config (or an empty one): the newest version of the engine's whose layout cudaup knows. */
        rv = 2;
        for (size_t i = 0; knows && i < nv; i++)
            if (vs[i] <= 3 && vs[i] > rv)
                rv = vs[i];
    }
    out->root_version = rv;
    bool known = !knows;
    for (size_t i = 0; knows && i < nv; i++)
        known |= vs[i] == rv;
    CU_AUTOFREE char *list = NULL;
    if (knows) {
        struct cu_buf b;
        cu_buf_init(&b);
        for (size_t i = 0; i < nv; i++)
            cu_buf_printf(&b, "%s%d", i ? (i + 1 == nv ? _(" and ") : ", ") : "", vs[i]);
        list = cu_buf_steal(&b);
    }
    if (!known) {
        cu_toml_fini(&t);
        cu_error_set(err, CU_E_UNSUPPORTED, 0, _("containerd %s reads configuration versions %s, but its /etc/containerd/config.toml declares version %d; nothing was changed."),
                     vb, list, rv);
        cu_error_advise(err, _("Bring the file to a version this containerd reads (`containerd config migrate` on containerd 2, or `containerd config default` to start again), then run cudaup again."));
        return CU_E_UNSUPPORTED;
    }
    out->plugin = rv <= 3 ? cri_plugin(d, rv) : NULL;
    if (!out->plugin) {
        cu_toml_fini(&t);
        cu_error_set(err, CU_E_UNSUPPORTED, 0, _("containerd's /etc/containerd/config.toml declares configuration version %d, whose layout cudaup does not know (it knows versions 1 to 3); nothing was changed."),
                     rv);
        cu_error_advise(err, _("Add the NVIDIA runtime by hand as NVIDIA's container toolkit guide shows (`nvidia-ctk runtime configure --runtime=containerd --config-source=file`), then run `cudaup verify`."));
        return CU_E_UNSUPPORTED;
    }
    /* Configured already: the root, or an import containerd loads (not one it refuses). */
    if (defines_runtime(&t, out->plugin, rv)) {
        out->configured = true;
        out->configured_in = cu_xstrdup("/etc/containerd/config.toml");
    }
    for (size_t i = 0; i < n && !out->configured; i++) {
        struct cu_toml it;
        struct cu_error e2;
        if (!files[i].text || cu_toml_parse(files[i].text, &it, &e2) != CU_OK)
            continue;
        int iv = toml_version(&it);
        CU_AUTOFREE char *why = cu_ctd_refuses(d, version, rv, files[i].text);
        CU_AUTOFREE char *ip = iv ? cri_plugin(d, iv) : NULL;
        if (!why && ip && defines_runtime(&it, ip, iv)) {
            out->configured = true;
            out->configured_in = cu_xstrdup(files[i].path);
        }
        cu_toml_fini(&it);
    }
    const struct cu_ctk_fact *merge = knows ? cu_ctk_fact_for(d, "containerd", "dropin_merge", version) : NULL;
    out->mode = cu_xstrdup(merge && strcmp(merge->value, "deep") == 0 ? "drop-in" : "root-config");
    if (out->configured) {
        cu_toml_fini(&t);
        return CU_OK;
    }
    CU_AUTOFREE char *tables = runtime_tables(out->plugin, runtime_type(d), rv);
    CU_AUTOFREE char *p = cu_toml_part(out->plugin);
    CU_AUTOFREE char *rkey = cu_xasprintf("plugins.%s.containerd.runtimes.nvidia", p);
    if (strcmp(out->mode, "root-config") == 0) {
        /* New tables at the end are sound TOML unless one of them, or a table above them, is defined already as a value. */
        const char *parents[] = {"plugins", NULL, NULL, NULL};
        CU_AUTOFREE char *p1 = cu_xasprintf("plugins.%s", p);
        CU_AUTOFREE char *p2 = cu_xasprintf("plugins.%s.containerd", p);
        CU_AUTOFREE char *p3 = cu_xasprintf("plugins.%s.containerd.runtimes", p);
        parents[1] = p1;
        parents[2] = p2;
        parents[3] = p3;
        const char *clash = NULL;
        for (size_t i = 0; i < CU_N_ELEMENTS(parents) && !clash; i++)
            if (cu_toml_get(&t, parents[i]))
                clash = parents[i];
        if (!clash && cu_toml_has_prefix(&t, rkey))
            clash = rkey;
        if (clash) {
            cu_toml_fini(&t);
            cu_error_set(err, CU_E_UNSUPPORTED, 0, _("containerd's /etc/containerd/config.toml defines %s already in a form cudaup cannot add the NVIDIA runtime's tables to without breaking the file; nothing was changed."),
                         clash);
            cu_error_advise(err, _("Add the tables [%s] (runtime_type = \"%s\") and [%s.options] (BinaryName = \"%s\") to it by hand, then run `cudaup verify`."),
                            rkey, runtime_type(d), rkey, CU_CTR_RUNTIME);
            return CU_E_UNSUPPORTED;
        }
        struct cu_buf b;
        cu_buf_init(&b);
        if (root_text && !blank(root_text)) {
            cu_buf_puts(&b, root_text);
            if (root_text[strlen(root_text) - 1] != '\n')
                cu_buf_putc(&b, '\n');
            cu_buf_putc(&b, '\n');
        } else {
            cu_buf_printf(&b, "version = %d\n\n", rv);
        }
        cu_buf_printf(&b, "%s (`cudaup uninstall containers` removes this block)\n%s%s\n", CU_CTR_BLOCK_BEGIN, tables, CU_CTR_BLOCK_END);
        out->root_text = cu_buf_steal(&b);
        cu_toml_fini(&t);
        return CU_OK;
    }
    /* A drop-in of the root's own version (a newer one is refused from containerd 2.3: containerd#12891), imported. */
    out->dropin_text = cu_xasprintf("# Written by cudaup: the NVIDIA Container Runtime, in the version of /etc/containerd/config.toml\n"
                                    "# (containerd refuses a drop-in newer than its root config). `cudaup uninstall containers` removes it.\n"
                                    "version = %d\n\n%s",
                                    rv, tables);
    const struct cu_toml_entry *im = cu_toml_get(&t, "imports");
    if (!im || !imports_name(im->items, CU_CTR_CONTAINERD_DROPIN)) {
        CU_AUTOFREE char *q = cu_toml_quote(CU_CTR_CONTAINERD_DROPIN);
        if (im && (im->type != CU_TOML_ARRAY || !im->top)) {
            cu_toml_fini(&t);
            cu_error_set(err, CU_E_UNSUPPORTED, 0, _("containerd's /etc/containerd/config.toml has an `imports` cudaup cannot add its drop-in to; nothing was changed."));
            cu_error_advise(err, _("Add \"%s\" to its imports by hand, then run cudaup again."), CU_CTR_CONTAINERD_DROPIN);
            return CU_E_UNSUPPORTED;
        }
        if (im) {
            struct cu_buf b;
            cu_buf_init(&b);
            cu_buf_puts(&b, "imports = [");
            for (char **x = im->items; x && *x; x++) {
                CU_AUTOFREE char *qx = cu_toml_quote(*x);
                cu_buf_printf(&b, "%s, ", qx);
            }
            cu_buf_printf(&b, "%s]\n", q);
            out->root_text = replace_lines(root_text, im->line, im->end_line, b.data);
            cu_buf_fini(&b);
        } else if (root_text && !blank(root_text)) {
            const struct cu_toml_entry *ve = cu_toml_get(&t, "version");
            CU_AUTOFREE char *line = cu_xasprintf("imports = [%s]\n", q);
            int at = ve && ve->top ? ve->end_line + 1 : 1;
            out->root_text = replace_lines(root_text, at, at - 1, line);
        } else {
            out->root_text = cu_xasprintf("version = %d\nimports = [%s]\n", rv, q);
        }
    }
    cu_toml_fini(&t);
    return CU_OK;
}

void
cu_ctd_write_fini(struct cu_ctd_write *w)
{
    free(w->configured_in);
    free(w->mode);
    free(w->root_text);
    free(w->dropin_text);
    free(w->plugin);
    memset(w, 0, sizeof(*w));
}

char *
cu_ctd_unblock(const char *text)
{
    const char *b = text ? strstr(text, CU_CTR_BLOCK_BEGIN) : NULL;
    const char *e = b ? strstr(b, CU_CTR_BLOCK_END) : NULL;
    if (!b || !e)
        return NULL;
    e += strlen(CU_CTR_BLOCK_END);
    if (*e == '\n')
        e++;
    /* the blank line cudaup put before the block goes with it */
    const char *start = b;
    if (start - text >= 2 && start[-1] == '\n' && start[-2] == '\n')
        start--;
    struct cu_buf out;
    cu_buf_init(&out);
    cu_buf_append(&out, text, (size_t)(start - text));
    cu_buf_puts(&out, e);
    return out.data ? cu_buf_steal(&out) : cu_xstrdup("");
}

char *
cu_ctd_dump_check(const char *dump, const char *root_text)
{
    static const char *const plugins[] = {"io.containerd.cri.v1.runtime", "io.containerd.grpc.v1.cri", "cri"};
    struct cu_toml t, r;
    struct cu_error err;
    if (cu_toml_parse(dump ? dump : "", &t, &err) != CU_OK)
        return cu_tr_asprintf(_("its output cannot be read (%s)"), cu_error_text(&err));
    char *why = NULL;
    bool found = false;
    for (size_t i = 0; i < CU_N_ELEMENTS(plugins) && !found; i++) {
        CU_AUTOFREE char *p = cu_toml_part(plugins[i]);
        CU_AUTOFREE char *bk = cu_xasprintf("plugins.%s.containerd.runtimes.nvidia.options.BinaryName", p);
        CU_AUTOFREE char *tk = cu_xasprintf("plugins.%s.containerd.runtimes.nvidia.runtime_type", p);
        const struct cu_toml_entry *b = cu_toml_get(&t, bk), *ty = cu_toml_get(&t, tk);
        if (!b)
            continue;
        found = true;
        if (b->type != CU_TOML_STRING || strcmp(b->value, CU_CTR_RUNTIME) != 0)
            why = cu_tr_asprintf(_("the nvidia runtime's BinaryName is %s, not %s"), b->value, CU_CTR_RUNTIME);
        else if (!ty || ty->type != CU_TOML_STRING || !*ty->value)
            why = cu_tr_asprintf(_("the nvidia runtime has no runtime_type (containerd then fails each of its containers: \"container.Runtime.Name must be set\")"));
    }
    if (!found)
        why = cu_tr_asprintf(_("the merged configuration has no nvidia runtime"));
    /* Every key the root config set under its CRI plugin is in the merged configuration with its value. */
    if (!why && root_text && cu_toml_parse(root_text, &r, &err) == CU_OK) {
        int rv = toml_version(&r);
        const struct cu_toml_entry *dv = cu_toml_get(&t, "version");
        bool same = dv && dv->type == CU_TOML_INT && dv->ival == rv;
        for (size_t i = 0; same && i < r.n && !why; i++) {
            const struct cu_toml_entry *e = &r.v[i];
            if (!cu_str_has_prefix(e->key, "plugins.") || strstr(e->key, ".runtimes.nvidia") ||
                (e->type != CU_TOML_STRING && e->type != CU_TOML_INT && e->type != CU_TOML_BOOL))
                continue;
            const struct cu_toml_entry *m = cu_toml_get(&t, e->key);
            bool kept = m && m->type == e->type &&
                        (e->type == CU_TOML_INT ? m->ival == e->ival : strcmp(m->value, e->value) == 0);
            if (!kept)
                why = cu_tr_asprintf(_("the merged configuration lost %s = %s of config.toml (it has %s): a drop-in merged by plugin replaces the root's table"),
                                     e->key, e->value, m ? m->value : _("nothing"));
        }
        cu_toml_fini(&r);
    }
    cu_toml_fini(&t);
    return why;
}

/* ---- Docker ----------------------------------------------------------------------------------------- */

static bool
docker_cdi(const struct cu_ctk_data *d, const struct cu_version *version)
{
    return version && version->n && cu_ctk_fact_for(d, "docker", "cdi", version) != NULL;
}

static const char *
docker_path(const struct cu_ctk_data *d)
{
    const struct cu_ctk_fact *f = cu_ctk_fact_for(d, "docker", "runtime_path", NULL);
    return f ? f->value : "nvidia-container-runtime";
}

bool
cu_docker_configured(const struct cu_ctk_data *d, const struct cu_version *version, const char *text)
{
    json_error_t je;
    json_t *doc = text && !blank(text) ? json_loads(text, 0, &je) : NULL;
    const json_t *rt = doc ? json_object_get(json_object_get(doc, "runtimes"), "nvidia") : NULL;
    bool ok = json_is_object(rt) && json_is_string(json_object_get(rt, "path")) && *json_string_value(json_object_get(rt, "path"));
    if (ok && docker_cdi(d, version))
        ok = json_is_true(json_object_get(json_object_get(doc, "features"), "cdi"));
    json_decref(doc);
    return ok;
}

enum cu_status
cu_docker_config(const struct cu_ctk_data *d, const struct cu_version *version, const char *old_text, char **new_text,
                 bool *changed, bool *runtimes_only, struct cu_error *err)
{
    json_error_t je;
    *new_text = NULL;
    *changed = false;
    *runtimes_only = true;
    json_t *doc = old_text && !blank(old_text) ? json_loads(old_text, 0, &je) : json_object();
    if (!json_is_object(doc)) {
        json_decref(doc);
        cu_error_set(err, CU_E_INPUT, 0, _("Docker's daemon.json is not a JSON object (%s), so Docker would not start with it either; nothing was changed."),
                     doc ? _("another kind of value") : je.text);
        cu_error_advise(err, _("Fix that file (an empty one is `{}`), then run cudaup again."));
        return CU_E_INPUT;
    }
    json_t *rts = json_object_get(doc, "runtimes");
    if (rts && !json_is_object(rts)) {
        json_decref(doc);
        return cu_error_set(err, CU_E_INPUT, 0, _("Docker's daemon.json has a \"runtimes\" that is not an object; nothing was changed."));
    }
    if (!rts) {
        rts = json_object();
        json_object_set_new(doc, "runtimes", rts);
    }
    if (!json_is_object(json_object_get(rts, "nvidia"))) {
        json_t *r = json_object();
        json_object_set_new(r, "path", json_string(docker_path(d)));
        json_object_set_new(r, "args", json_array());
        json_object_set_new(rts, "nvidia", r);
        *changed = true;
    }
    if (docker_cdi(d, version)) {
        json_t *feat = json_object_get(doc, "features");
        if (feat && !json_is_object(feat)) {
            json_decref(doc);
            return cu_error_set(err, CU_E_INPUT, 0, _("Docker's daemon.json has a \"features\" that is not an object; nothing was changed."));
        }
        if (!feat) {
            feat = json_object();
            json_object_set_new(doc, "features", feat);
        }
        if (!json_is_true(json_object_get(feat, "cdi"))) {
            json_object_set_new(feat, "cdi", json_true());
            *changed = true;
            *runtimes_only = false;
        }
    }
    char *s = json_dumps(doc, JSON_INDENT(4));
    json_decref(doc);
    *new_text = cu_xasprintf("%s\n", s);
    free(s);
    return CU_OK;
}

char *
cu_docker_keys_check(const char *old_text, const char *new_text)
{
    json_error_t je;
    json_t *o = old_text && !blank(old_text) ? json_loads(old_text, 0, &je) : json_object();
    json_t *n = json_loads(new_text ? new_text : "", 0, &je);
    char *why = NULL;
    if (!json_is_object(n)) {
        why = cu_tr_asprintf(_("it is not a JSON object (%s)"), je.text);
    } else if (!json_is_object(json_object_get(json_object_get(n, "runtimes"), "nvidia"))) {
        why = cu_tr_asprintf(_("it has no nvidia runtime"));
    } else {
        const char *k;
        json_t *v;
        json_object_foreach(o, k, v) {
            const json_t *nv = json_object_get(n, k);
            bool kept = nv != NULL;
            if (kept && (strcmp(k, "runtimes") == 0 || strcmp(k, "features") == 0) && json_is_object(v)) {
                const char *k2;
                json_t *v2;
                json_object_foreach(v, k2, v2) kept &= json_equal(v2, json_object_get(nv, k2));
            } else if (kept) {
                kept = json_equal(v, nv);
            }
            if (!kept && !why)
                why = cu_tr_asprintf(_("the key \"%s\" of the old file is not kept as it was"), k);
        }
    }
    json_decref(o);
    json_decref(n);
    return why;
}

/* ---- CRI-O, the toolkit's own configuration, the unit -------------------------------------------------------- */

char *
cu_crio_dropin(void)
{
    return cu_xasprintf("# Written by cudaup: the NVIDIA Container Runtime for CRI-O. `cudaup uninstall containers` removes it.\n"
                        "[crio.runtime.runtimes.nvidia]\n"
                        "runtime_path = \"%s\"\n"
                        "runtime_type = \"oci\"\n",
                        CU_CTR_RUNTIME);
}

bool
cu_crio_configured(const struct cu_engine_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct cu_toml t;
        struct cu_error err;
        if (!files[i].text || cu_toml_parse(files[i].text, &t, &err) != CU_OK)
            continue;
        const struct cu_toml_entry *e = cu_toml_get(&t, "crio.runtime.runtimes.nvidia.runtime_path");
        bool ok = e && e->type == CU_TOML_STRING && *e->value;
        cu_toml_fini(&t);
        if (ok)
            return true;
    }
    return false;
}

char *
cu_ctk_no_cgroups(const char *text)
{
    struct cu_toml t;
    struct cu_error err;
    const char *src = text ? text : "";
    if (cu_toml_parse(src, &t, &err) != CU_OK)
        return NULL;
    const struct cu_toml_entry *e = cu_toml_get(&t, "nvidia-container-cli.no-cgroups");
    const struct cu_toml_table *h = cu_toml_table(&t, "nvidia-container-cli");
    char *out;
    if (e && e->type == CU_TOML_BOOL && strcmp(e->value, "true") == 0)
        out = NULL;
    else if (e)
        out = replace_lines(src, e->line, e->end_line, "no-cgroups = true\n");
    else if (h)
        out = replace_lines(src, h->line + 1, h->line, "no-cgroups = true\n");
    else
        out = cu_xasprintf("%s%s\n[nvidia-container-cli]\nno-cgroups = true\n", src,
                           *src && src[strlen(src) - 1] != '\n' ? "\n" : "");
    cu_toml_fini(&t);
    return out;
}

char *
cu_ctr_own_unit(const char *cdi_path, bool wsl)
{
    return cu_xasprintf("# Written by cudaup: the NVIDIA Container Toolkit installed here ships no refresh unit, and /var/run is\n"
                        "# emptied at every boot; this regenerates the CDI specification at each boot.\n"
                        "# `cudaup uninstall containers` removes it.\n"
                        "[Unit]\n"
                        "Description=Regenerate the NVIDIA CDI specification (cudaup)\n"
                        "ConditionPathExists=/usr/bin/nvidia-ctk\n"
                        "After=systemd-modules-load.service\n\n"
                        "[Service]\n"
                        "Type=oneshot\n"
                        "ExecStart=/usr/bin/nvidia-ctk cdi generate --output=%s%s\n\n"
                        "[Install]\n"
                        "WantedBy=multi-user.target\n",
                        cdi_path, wsl ? " --mode=wsl" : "");
}
