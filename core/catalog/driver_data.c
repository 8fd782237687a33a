/* SPDX-License-Identifier: MIT */
/* The catalog's "driver" tables (data/driver/ CSV files through scripts/gen-catalog), parsed strictly. */
#include "config.h"

#include "core/catalog/driver_data.h"

#include <stdlib.h>
#include <fnmatch.h>
#include <string.h>

#include "core/base/mem.h"
#include "core/base/str.h"

struct dconv {
    const char *what;
    struct cu_error *err;
};

static enum cu_status
bad(struct dconv *c, const char *table, size_t i, const char *field)
{
    return cu_error_set(c->err, CU_E_INPUT, 0, "%s: driver.%s[%zu].%s is missing or malformed", c->what, table, i,
                        field);
}

/* A required string; @nullable lets JSON null through as NULL. */
static bool
get_str(const json_t *o, const char *key, bool nullable, char **out)
{
    const json_t *v = json_object_get(o, key);
    *out = NULL;
    if (nullable && v && json_is_null(v))
        return true;
    if (!json_is_string(v) || !*json_string_value(v))
        return false;
    *out = cu_xstrdup(json_string_value(v));
    return true;
}

/* A required list of non-empty strings (may be empty). */
static bool
get_strv(const json_t *o, const char *key, char ***out)
{
    const json_t *a = json_object_get(o, key);
    *out = NULL;
    if (!json_is_array(a))
        return false;
    char **v = cu_xcalloc(json_array_size(a) + 1, sizeof(char *));
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *e = json_array_get(a, i);
        if (!json_is_string(e) || !*json_string_value(e)) {
            cu_strv_free(v);
            return false;
        }
        v[i] = cu_xstrdup(json_string_value(e));
    }
    *out = v;
    return true;
}

/* An optional list: absent gives an empty one (catalogs made before the field). */
static bool
get_strv_opt(const json_t *o, const char *key, char ***out)
{
    if (!json_object_get(o, key)) {
        *out = cu_xcalloc(1, sizeof(char *));
        return true;
    }
    return get_strv(o, key, out);
}

/* An optional branch number: null gives 0. */
static bool
get_branch(const json_t *o, const char *key, int *out)
{
    const json_t *v = json_object_get(o, key);
    *out = 0;
    if (v && json_is_null(v))
        return true;
    if (!json_is_integer(v) || json_integer_value(v) < 100 || json_integer_value(v) > 9999)
        return false;
    *out = (int)json_integer_value(v);
    return true;
}

static bool
get_version(const json_t *o, const char *key, struct cu_version *out)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) && cu_version_parse(json_string_value(v), out) && out->n == 2;
}

static bool
is_flavor(const char *s)
{
    return s && (strcmp(s, "open") == 0 || strcmp(s, "proprietary") == 0);
}

static enum cu_status
conv_gen(struct dconv *c, const json_t *o, size_t i, struct cu_drv_gen *g)
{
    char **fl = NULL;
    if (!json_is_object(o))
        return bad(c, "generations", i, "(entry)");
    if (!get_version(o, "cc_min", &g->cc_min))
        return bad(c, "generations", i, "cc_min");
    if (!get_version(o, "cc_max", &g->cc_max) || cu_version_cmp(&g->cc_max, &g->cc_min) < 0)
        return bad(c, "generations", i, "cc_max");
    if (!get_str(o, "generation", false, &g->generation))
        return bad(c, "generations", i, "generation");
    if (!get_strv(o, "flavors", &fl) || !fl[0]) {
        cu_strv_free(fl);
        return bad(c, "generations", i, "flavors");
    }
    for (char **f = fl; *f; f++) {
        if (!is_flavor(*f)) {
            cu_strv_free(fl);
            return bad(c, "generations", i, "flavors");
        }
        g->open |= strcmp(*f, "open") == 0;
        g->proprietary |= strcmp(*f, "proprietary") == 0;
    }
    cu_strv_free(fl);
    if (!get_str(o, "preferred", false, &g->preferred) || !is_flavor(g->preferred) ||
        (strcmp(g->preferred, "open") == 0 ? !g->open : !g->proprietary))
        return bad(c, "generations", i, "preferred");
    if (!get_branch(o, "branch_min", &g->branch_min))
        return bad(c, "generations", i, "branch_min");
    if (!get_branch(o, "branch_last", &g->branch_last) || (g->branch_last && g->branch_last < g->branch_min))
        return bad(c, "generations", i, "branch_last");
    if (!get_str(o, "source", false, &g->source))
        return bad(c, "generations", i, "source");
    if (!get_str(o, "confidence", false, &g->confidence))
        return bad(c, "generations", i, "confidence");
    return CU_OK;
}

static enum cu_status
conv_pkg(struct dconv *c, const json_t *o, size_t i, struct cu_drv_pkg *p)
{
    static const char *const managers[] = {"apt", "dnf", "zypper", "pacman", "aur"};
    static const char *const sources[] = {"distro", "nvidia", "aur", "elrepo"};
    bool ok = false;
    if (!json_is_object(o))
        return bad(c, "packages", i, "(entry)");
    if (!get_str(o, "distro", false, &p->distro))
        return bad(c, "packages", i, "distro");
    if (!get_strv(o, "ids", &p->ids) || !p->ids[0])
        return bad(c, "packages", i, "ids");
    if (!get_strv(o, "versions", &p->versions) || !p->versions[0])
        return bad(c, "packages", i, "versions");
    if (!get_str(o, "manager", false, &p->manager))
        return bad(c, "packages", i, "manager");
    for (size_t k = 0; k < CU_N_ELEMENTS(managers); k++)
        ok |= strcmp(p->manager, managers[k]) == 0;
    if (!ok)
        return bad(c, "packages", i, "manager");
    ok = false;
    if (!get_str(o, "source", false, &p->source))
        return bad(c, "packages", i, "source");
    for (size_t k = 0; k < CU_N_ELEMENTS(sources); k++)
        ok |= strcmp(p->source, sources[k]) == 0;
    if (!ok)
        return bad(c, "packages", i, "source");
    const json_t *br = json_object_get(o, "branches");
    if (!json_is_array(br) || json_array_size(br) == 0)
        return bad(c, "packages", i, "branches");
    p->branches = cu_xcalloc(json_array_size(br), sizeof(int));
    for (size_t k = 0; k < json_array_size(br); k++) {
        const json_t *e = json_array_get(br, k);
        if (!json_is_integer(e) || json_integer_value(e) < 100 || json_integer_value(e) > 9999)
            return bad(c, "packages", i, "branches");
        p->branches[p->n_branches++] = (int)json_integer_value(e);
    }
    if (!get_str(o, "flavor", false, &p->flavor) || !is_flavor(p->flavor))
        return bad(c, "packages", i, "flavor");
    if (!get_strv(o, "packages", &p->packages) || !p->packages[0])
        return bad(c, "packages", i, "packages");
    if (!get_strv(o, "signed_modules", &p->signed_modules))
        return bad(c, "packages", i, "signed_modules");
    if (!get_strv(o, "headers", &p->headers))
        return bad(c, "packages", i, "headers");
    if (!get_strv_opt(o, "running_headers", &p->running_headers))
        return bad(c, "packages", i, "running_headers");
    if (!get_str(o, "pin", false, &p->pin))
        return bad(c, "packages", i, "pin");
    const struct {
        const char *key;
        char **dst;
    } opt[] = {{"module_stream", &p->module_stream}, {"repo", &p->repo},       {"components", &p->components}, {"suites", &p->suites},
               {"initramfs", &p->initramfs},         {"mok_key", &p->mok_key}, {"mok_cert", &p->mok_cert}};
    for (size_t k = 0; k < CU_N_ELEMENTS(opt); k++)
        if (!get_str(o, opt[k].key, true, opt[k].dst))
            return bad(c, "packages", i, opt[k].key);
    if (p->repo && !cu_str_has_prefix(p->repo, "https://"))
        return bad(c, "packages", i, "repo");
    const json_t *ver = json_object_get(o, "version");
    if (!ver || (!json_is_null(ver) && (!json_is_string(ver) || !cu_version_parse(json_string_value(ver), &p->version) ||
                                        p->version.n < 2)))
        return bad(c, "packages", i, "version");
    if (!get_str(o, "ref", false, &p->ref))
        return bad(c, "packages", i, "ref");
    if (!get_str(o, "confidence", false, &p->confidence))
        return bad(c, "packages", i, "confidence");
    if (!get_strv_opt(o, "pin_packages", &p->pin_packages))
        return bad(c, "packages", i, "pin_packages");
    if (!get_strv_opt(o, "kernels", &p->kernels))
        return bad(c, "packages", i, "kernels");
    if (!p->kernels[0]) {
        free(p->kernels);
        p->kernels = cu_xcalloc(2, sizeof(char *));
        p->kernels[0] = cu_xstrdup("*");
    }
    if (!get_strv_opt(o, "fabricmanager", &p->fabricmanager))
        return bad(c, "packages", i, "fabricmanager");
    if (!get_strv_opt(o, "match", &p->match))
        return bad(c, "packages", i, "match");
    if ((json_object_get(o, "variant") && !get_str(o, "variant", true, &p->variant)) ||
        (p->variant && strcmp(p->variant, "nvswitch") != 0))
        return bad(c, "packages", i, "variant");
    if (json_object_get(o, "fabricmanager_service") && !get_str(o, "fabricmanager_service", true, &p->fabricmanager_service))
        return bad(c, "packages", i, "fabricmanager_service");
    if (json_object_get(o, "pin_version") &&
        (!get_str(o, "pin_version", true, &p->pin_version) || (p->pin_version && !strstr(p->pin_version, "{B}"))))
        return bad(c, "packages", i, "pin_version");
    return CU_OK;
}

static enum cu_status
conv_prereq(struct dconv *c, const json_t *o, size_t i, struct cu_drv_prereq *p)
{
    if (!json_is_object(o))
        return bad(c, "prereqs", i, "(entry)");
    if (!get_strv(o, "ids", &p->ids) || !p->ids[0])
        return bad(c, "prereqs", i, "ids");
    if (!get_strv(o, "versions", &p->versions) || !p->versions[0])
        return bad(c, "prereqs", i, "versions");
    if (!get_str(o, "when", false, &p->when) || (strcmp(p->when, "dkms") != 0 && strcmp(p->when, "versionlock") != 0))
        return bad(c, "prereqs", i, "when");
    if (!get_str(o, "action", false, &p->action))
        return bad(c, "prereqs", i, "action");
    if (!get_strv(o, "command", &p->command) || !p->command[0] || p->command[0][0] == '-')
        return bad(c, "prereqs", i, "command");
    if (!get_str(o, "ref", false, &p->ref))
        return bad(c, "prereqs", i, "ref");
    if (!get_str(o, "confidence", false, &p->confidence))
        return bad(c, "prereqs", i, "confidence");
    return CU_OK;
}

static enum cu_status
conv_command(struct dconv *c, const json_t *o, size_t i, struct cu_drv_command *p)
{
    if (!json_is_object(o))
        return bad(c, "commands", i, "(entry)");
    if (!get_strv(o, "ids", &p->ids) || !p->ids[0])
        return bad(c, "commands", i, "ids");
    if (!get_strv(o, "versions", &p->versions) || !p->versions[0])
        return bad(c, "commands", i, "versions");
    /* A command name and a package name: nothing a shell or the package manager would read as more. */
    if (!get_str(o, "command", false, &p->command) || strchr(p->command, '/') || p->command[0] == '-' ||
        strspn(p->command, "abcdefghijklmnopqrstuvwxyz0123456789._+-") != strlen(p->command))
        return bad(c, "commands", i, "command");
    if (!get_str(o, "package", false, &p->package) || p->package[0] == '-' ||
        strspn(p->package, "abcdefghijklmnopqrstuvwxyz0123456789.+-") != strlen(p->package))
        return bad(c, "commands", i, "package");
    if (!get_str(o, "ref", false, &p->ref))
        return bad(c, "commands", i, "ref");
    if (!get_str(o, "confidence", false, &p->confidence))
        return bad(c, "commands", i, "confidence");
    return CU_OK;
}

static enum cu_status
conv_keyring(struct dconv *c, const json_t *o, size_t i, struct cu_drv_keyring *k)
{
    if (!json_is_object(o))
        return bad(c, "keyrings", i, "(entry)");
    if (!get_str(o, "url", false, &k->url) || !cu_str_has_prefix(k->url, "https://"))
        return bad(c, "keyrings", i, "url");
    if (!get_str(o, "sha256", false, &k->sha256) || strlen(k->sha256) != 64 ||
        strspn(k->sha256, "0123456789abcdef") != 64)
        return bad(c, "keyrings", i, "sha256");
    if (!get_str(o, "ref", false, &k->ref))
        return bad(c, "keyrings", i, "ref");
    if (!get_str(o, "confidence", false, &k->confidence))
        return bad(c, "keyrings", i, "confidence");
    return CU_OK;
}

/* "0x10de" -> 0x10de; NULL or "" -> 0. */
static bool
get_hex(const json_t *o, const char *key, unsigned *out)
{
    const json_t *v = json_object_get(o, key);
    *out = 0;
    if (!v || json_is_null(v))
        return true;
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    char *end;
    if (!s || !cu_str_has_prefix(s, "0x") || !s[2])
        return false;
    unsigned long x = strtoul(s + 2, &end, 16);
    if (*end || x > 0xffff)
        return false;
    *out = (unsigned)x;
    return true;
}

static enum cu_status
conv_nvswitch(struct dconv *c, const json_t *o, size_t i, struct cu_drv_nvswitch *n)
{
    if (!json_is_object(o))
        return bad(c, "nvswitch", i, "(entry)");
    if (!get_hex(o, "vendor", &n->vendor) || !n->vendor)
        return bad(c, "nvswitch", i, "vendor");
    if (!get_hex(o, "device", &n->device))
        return bad(c, "nvswitch", i, "device");
    if (!get_hex(o, "class", &n->cls) || (!n->device && !n->cls))
        return bad(c, "nvswitch", i, "class");
    if (!get_str(o, "name", false, &n->name))
        return bad(c, "nvswitch", i, "name");
    if (!get_str(o, "ref", false, &n->ref))
        return bad(c, "nvswitch", i, "ref");
    if (!get_str(o, "confidence", false, &n->confidence))
        return bad(c, "nvswitch", i, "confidence");
    return CU_OK;
}

static enum cu_status
conv_nvswitch_vpd(struct dconv *c, const json_t *o, size_t i, struct cu_drv_nvswitch_vpd *n)
{
    if (!json_is_object(o))
        return bad(c, "nvswitch_vpd", i, "(entry)");
    if (!get_str(o, "kind", false, &n->kind) || strcmp(n->kind, "ib-vpd") != 0)
        return bad(c, "nvswitch_vpd", i, "kind");
    if (!get_str(o, "mark", false, &n->mark))
        return bad(c, "nvswitch_vpd", i, "mark");
    if (!get_str(o, "name", false, &n->name))
        return bad(c, "nvswitch_vpd", i, "name");
    if (!get_str(o, "needs_file", false, &n->needs_file) || n->needs_file[0] != '/')
        return bad(c, "nvswitch_vpd", i, "needs_file");
    if (!get_strv(o, "gpu_cc", &n->gpu_cc) || !n->gpu_cc[0])
        return bad(c, "nvswitch_vpd", i, "gpu_cc");
    if (!get_str(o, "ref", false, &n->ref))
        return bad(c, "nvswitch_vpd", i, "ref");
    if (!get_str(o, "confidence", false, &n->confidence))
        return bad(c, "nvswitch_vpd", i, "confidence");
    return CU_OK;
}

static enum cu_status
conv_nvlsm(struct dconv *c, const json_t *o, size_t i, struct cu_drv_nvlsm *n)
{
    if (!json_is_object(o))
        return bad(c, "nvlsm", i, "(entry)");
    if (!get_str(o, "distro", false, &n->distro))
        return bad(c, "nvlsm", i, "distro");
    if (!get_str(o, "source", false, &n->source))
        return bad(c, "nvlsm", i, "source");
    const json_t *br = json_object_get(o, "branches");
    if (!json_is_array(br) || json_array_size(br) == 0)
        return bad(c, "nvlsm", i, "branches");
    n->branches = cu_xcalloc(json_array_size(br), sizeof(int));
    for (size_t k = 0; k < json_array_size(br); k++) {
        const json_t *e = json_array_get(br, k);
        if (!json_is_integer(e) || json_integer_value(e) < 100 || json_integer_value(e) > 9999)
            return bad(c, "nvlsm", i, "branches");
        n->branches[n->n_branches++] = (int)json_integer_value(e);
    }
    if (!get_strv(o, "packages", &n->packages) || !n->packages[0])
        return bad(c, "nvlsm", i, "packages");
    if (!get_str(o, "ref", false, &n->ref))
        return bad(c, "nvlsm", i, "ref");
    if (!get_str(o, "confidence", false, &n->confidence))
        return bad(c, "nvlsm", i, "confidence");
    return CU_OK;
}

static enum cu_status
conv_branch(struct dconv *c, const json_t *o, size_t i, struct cu_drv_branch *b)
{
    char **fl = NULL;
    if (!json_is_object(o))
        return bad(c, "branches", i, "(entry)");
    if (!get_branch(o, "branch", &b->branch) || !b->branch)
        return bad(c, "branches", i, "branch");
    if (!get_str(o, "designation", false, &b->designation))
        return bad(c, "branches", i, "designation");
    if (!get_str(o, "end_of_life", true, &b->end_of_life))
        return bad(c, "branches", i, "end_of_life");
    const json_t *rel = json_object_get(o, "release");
    if (rel && !json_is_null(rel) &&
        (!json_is_string(rel) || !cu_version_parse(json_string_value(rel), &b->release) || b->release.n < 2 ||
         (int)b->release.part[0] != b->branch))
        return bad(c, "branches", i, "release");
    if (!get_strv(o, "flavors", &fl) || !fl[0]) {
        cu_strv_free(fl);
        return bad(c, "branches", i, "flavors");
    }
    for (char **f = fl; *f; f++) {
        if (!is_flavor(*f)) {
            cu_strv_free(fl);
            return bad(c, "branches", i, "flavors");
        }
        b->open |= strcmp(*f, "open") == 0;
        b->proprietary |= strcmp(*f, "proprietary") == 0;
    }
    cu_strv_free(fl);
    if (!get_str(o, "source", false, &b->source))
        return bad(c, "branches", i, "source");
    if (!get_str(o, "confidence", false, &b->confidence))
        return bad(c, "branches", i, "confidence");
    return CU_OK;
}

static enum cu_status
conv_release(struct dconv *c, const json_t *o, size_t i, struct cu_drv_release *r)
{
    if (!json_is_object(o))
        return bad(c, "distributions", i, "(entry)");
    if (!get_strv(o, "ids", &r->ids) || !r->ids[0])
        return bad(c, "distributions", i, "ids");
    if (!get_strv(o, "versions", &r->versions) || !r->versions[0])
        return bad(c, "distributions", i, "versions");
    if (!get_str(o, "name", false, &r->name))
        return bad(c, "distributions", i, "name");
    if (!get_strv_opt(o, "base_keys", &r->base_keys))
        return bad(c, "distributions", i, "base_keys");
    const struct {
        const char *key;
        char **dst;
    } opt[] = {{"codename", &r->codename}, {"by_hand", &r->by_hand}, {"by_hand_components", &r->by_hand_components},
               {"own_repository", &r->own_repository}};
    for (size_t k = 0; k < CU_N_ELEMENTS(opt); k++)
        if (json_object_get(o, opt[k].key) && !get_str(o, opt[k].key, true, opt[k].dst))
            return bad(c, "distributions", i, opt[k].key);
    if (r->base_keys[0] && !r->codename) /* a derivative names a release by its codename */
        return bad(c, "distributions", i, "codename");
    if (!get_str(o, "ref", false, &r->ref))
        return bad(c, "distributions", i, "ref");
    if (!get_str(o, "confidence", false, &r->confidence))
        return bad(c, "distributions", i, "confidence");
    return CU_OK;
}

static enum cu_status
conv_kpkg(struct dconv *c, const json_t *o, size_t i, struct cu_drv_kpkg *k)
{
    if (!json_is_object(o))
        return bad(c, "kernel_packages", i, "(entry)");
    if (!get_str(o, "manager", false, &k->manager))
        return bad(c, "kernel_packages", i, "manager");
    if (!get_str(o, "pattern", false, &k->pattern))
        return bad(c, "kernel_packages", i, "pattern");
    if (!get_str(o, "kind", false, &k->kind) ||
        (strcmp(k->kind, "kernel") != 0 && strcmp(k->kind, "headers") != 0 && strcmp(k->kind, "driver") != 0 &&
         strcmp(k->kind, "keep") != 0))
        return bad(c, "kernel_packages", i, "kind");
    if (json_object_get(o, "remove_env") &&
        (!get_str(o, "remove_env", true, &k->remove_env) || (k->remove_env && !strchr(k->remove_env, '='))))
        return bad(c, "kernel_packages", i, "remove_env");
    if (!get_str(o, "ref", false, &k->ref))
        return bad(c, "kernel_packages", i, "ref");
    if (!get_str(o, "confidence", false, &k->confidence))
        return bad(c, "kernel_packages", i, "confidence");
    return CU_OK;
}

enum cu_status
cu_drv_data_parse(const json_t *obj, const char *what, struct cu_drv_data **out, struct cu_error *err)
{
    struct dconv c = {what, err};
    enum cu_status st = CU_OK;
    *out = NULL;
    const json_t *gens = json_object_get(obj, "generations"), *pkgs = json_object_get(obj, "packages");
    if (!json_is_object(obj) || !json_is_array(gens) || !json_is_array(pkgs))
        return cu_error_set(err, CU_E_INPUT, 0, "%s: \"driver\" is missing or lacks its generations and packages",
                            what);
    struct cu_drv_data *d = cu_xcalloc(1, sizeof(*d));
    d->gens = cu_xcalloc(json_array_size(gens) + 1, sizeof(*d->gens));
    d->pkgs = cu_xcalloc(json_array_size(pkgs) + 1, sizeof(*d->pkgs));
    for (size_t i = 0; st == CU_OK && i < json_array_size(gens); i++, d->n_gens++)
        st = conv_gen(&c, json_array_get(gens, i), i, &d->gens[i]);
    for (size_t i = 0; st == CU_OK && i < json_array_size(pkgs); i++, d->n_pkgs++)
        st = conv_pkg(&c, json_array_get(pkgs, i), i, &d->pkgs[i]);
    /* Tables added later: absent in an older catalog means none. */
    const json_t *pre = json_object_get(obj, "prereqs"), *keys = json_object_get(obj, "keyrings"),
                 *nvs = json_object_get(obj, "nvswitch"), *kp = json_object_get(obj, "kernel_packages");
    if (st == CU_OK && ((pre && !json_is_array(pre)) || (keys && !json_is_array(keys)) || (nvs && !json_is_array(nvs)) ||
                        (kp && !json_is_array(kp))))
        st = cu_error_set(err, CU_E_INPUT, 0, "%s: driver.prereqs, keyrings, nvswitch and kernel_packages must be lists", what);
    d->prereqs = cu_xcalloc(json_array_size(pre) + 1, sizeof(*d->prereqs));
    d->keyrings = cu_xcalloc(json_array_size(keys) + 1, sizeof(*d->keyrings));
    d->nvswitch = cu_xcalloc(json_array_size(nvs) + 1, sizeof(*d->nvswitch));
    d->kpkgs = cu_xcalloc(json_array_size(kp) + 1, sizeof(*d->kpkgs));
    for (size_t i = 0; st == CU_OK && i < json_array_size(pre); i++, d->n_prereqs++)
        st = conv_prereq(&c, json_array_get(pre, i), i, &d->prereqs[i]);
    for (size_t i = 0; st == CU_OK && i < json_array_size(keys); i++, d->n_keyrings++)
        st = conv_keyring(&c, json_array_get(keys, i), i, &d->keyrings[i]);
    for (size_t i = 0; st == CU_OK && i < json_array_size(nvs); i++, d->n_nvswitch++)
        st = conv_nvswitch(&c, json_array_get(nvs, i), i, &d->nvswitch[i]);
    for (size_t i = 0; st == CU_OK && i < json_array_size(kp); i++, d->n_kpkgs++)
        st = conv_kpkg(&c, json_array_get(kp, i), i, &d->kpkgs[i]);
    const json_t *cmds = json_object_get(obj, "commands");
    if (st == CU_OK && cmds && !json_is_array(cmds))
        st = cu_error_set(err, CU_E_INPUT, 0, "%s: driver.commands must be a list", what);
    d->commands = cu_xcalloc(json_array_size(cmds) + 1, sizeof(*d->commands));
    for (size_t i = 0; st == CU_OK && i < json_array_size(cmds); i++, d->n_commands++)
        st = conv_command(&c, json_array_get(cmds, i), i, &d->commands[i]);
    const json_t *vpd = json_object_get(obj, "nvswitch_vpd"), *lsm = json_object_get(obj, "nvlsm");
    if (st == CU_OK && ((vpd && !json_is_array(vpd)) || (lsm && !json_is_array(lsm))))
        st = cu_error_set(err, CU_E_INPUT, 0, "%s: driver.nvswitch_vpd and nvlsm must be lists", what);
    d->nvswitch_vpd = cu_xcalloc(json_array_size(vpd) + 1, sizeof(*d->nvswitch_vpd));
    d->nvlsm = cu_xcalloc(json_array_size(lsm) + 1, sizeof(*d->nvlsm));
    for (size_t i = 0; st == CU_OK && i < json_array_size(vpd); i++, d->n_nvswitch_vpd++)
        st = conv_nvswitch_vpd(&c, json_array_get(vpd, i), i, &d->nvswitch_vpd[i]);
    for (size_t i = 0; st == CU_OK && i < json_array_size(lsm); i++, d->n_nvlsm++)
        st = conv_nvlsm(&c, json_array_get(lsm, i), i, &d->nvlsm[i]);
    const json_t *brs = json_object_get(obj, "branches");
    if (st == CU_OK && brs && !json_is_array(brs))
        st = cu_error_set(err, CU_E_INPUT, 0, "%s: driver.branches must be a list", what);
    d->branches = cu_xcalloc(json_array_size(brs) + 1, sizeof(*d->branches));
    for (size_t i = 0; st == CU_OK && i < json_array_size(brs); i++, d->n_branches++)
        st = conv_branch(&c, json_array_get(brs, i), i, &d->branches[i]);
    const json_t *rels = json_object_get(obj, "distributions");
    if (st == CU_OK && rels && !json_is_array(rels))
        st = cu_error_set(err, CU_E_INPUT, 0, "%s: driver.distributions must be a list", what);
    d->releases = cu_xcalloc(json_array_size(rels) + 1, sizeof(*d->releases));
    for (size_t i = 0; st == CU_OK && i < json_array_size(rels); i++, d->n_releases++)
        st = conv_release(&c, json_array_get(rels, i), i, &d->releases[i]);
    if (st != CU_OK) {
        cu_drv_data_free(d);
        return st;
    }
    *out = d;
    return CU_OK;
}

void
cu_drv_data_free(struct cu_drv_data *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_gens; i++) {
        struct cu_drv_gen *g = &d->gens[i];
        free(g->generation);
        free(g->preferred);
        free(g->source);
        free(g->confidence);
    }
    for (size_t i = 0; i < d->n_pkgs; i++) {
        struct cu_drv_pkg *p = &d->pkgs[i];
        free(p->distro);
        cu_strv_free(p->ids);
        cu_strv_free(p->versions);
        free(p->manager);
        free(p->source);
        free(p->branches);
        free(p->flavor);
        cu_strv_free(p->packages);
        cu_strv_free(p->signed_modules);
        cu_strv_free(p->headers);
        cu_strv_free(p->running_headers);
        free(p->pin);
        free(p->module_stream);
        free(p->repo);
        free(p->components);
        free(p->suites);
        free(p->initramfs);
        free(p->mok_key);
        free(p->mok_cert);
        free(p->ref);
        free(p->confidence);
        cu_strv_free(p->pin_packages);
        cu_strv_free(p->kernels);
        free(p->variant);
        cu_strv_free(p->fabricmanager);
        free(p->fabricmanager_service);
        cu_strv_free(p->match);
        free(p->pin_version);
    }
    for (size_t i = 0; i < d->n_prereqs; i++) {
        struct cu_drv_prereq *p = &d->prereqs[i];
        cu_strv_free(p->ids);
        cu_strv_free(p->versions);
        free(p->when);
        free(p->action);
        cu_strv_free(p->command);
        free(p->ref);
        free(p->confidence);
    }
    for (size_t i = 0; i < d->n_keyrings; i++) {
        free(d->keyrings[i].url);
        free(d->keyrings[i].sha256);
        free(d->keyrings[i].ref);
        free(d->keyrings[i].confidence);
    }
    for (size_t i = 0; i < d->n_nvswitch; i++) {
        free(d->nvswitch[i].name);
        free(d->nvswitch[i].ref);
        free(d->nvswitch[i].confidence);
    }
    for (size_t i = 0; i < d->n_kpkgs; i++) {
        free(d->kpkgs[i].manager);
        free(d->kpkgs[i].pattern);
        free(d->kpkgs[i].kind);
        free(d->kpkgs[i].remove_env);
        free(d->kpkgs[i].ref);
        free(d->kpkgs[i].confidence);
    }
    for (size_t i = 0; i < d->n_nvswitch_vpd; i++) {
        struct cu_drv_nvswitch_vpd *n = &d->nvswitch_vpd[i];
        free(n->kind);
        free(n->mark);
        free(n->name);
        free(n->needs_file);
        cu_strv_free(n->gpu_cc);
        free(n->ref);
        free(n->confidence);
    }
    for (size_t i = 0; i < d->n_nvlsm; i++) {
        struct cu_drv_nvlsm *n = &d->nvlsm[i];
        free(n->distro);
        free(n->source);
        free(n->branches);
        cu_strv_free(n->packages);
        free(n->ref);
        free(n->confidence);
    }
    for (size_t i = 0; i < d->n_branches; i++) {
        free(d->branches[i].designation);
        free(d->branches[i].end_of_life);
        free(d->branches[i].source);
        free(d->branches[i].confidence);
    }
    free(d->branches);
    for (size_t i = 0; i < d->n_releases; i++) {
        struct cu_drv_release *r = &d->releases[i];
        cu_strv_free(r->ids);
        cu_strv_free(r->versions);
        free(r->name);
        free(r->codename);
        cu_strv_free(r->base_keys);
        free(r->by_hand);
        free(r->by_hand_components);
        free(r->own_repository);
        free(r->ref);
        free(r->confidence);
    }
    free(d->releases);
    for (size_t i = 0; i < d->n_commands; i++) {
        struct cu_drv_command *x = &d->commands[i];
        cu_strv_free(x->ids);
        cu_strv_free(x->versions);
        free(x->command);
        free(x->package);
        free(x->ref);
        free(x->confidence);
    }
    free(d->commands);
    free(d->nvswitch_vpd);
    free(d->nvlsm);
    free(d->kpkgs);
    free(d->gens);
    free(d->pkgs);
    free(d->prereqs);
    free(d->keyrings);
    free(d->nvswitch);
    free(d);
}

const char *
cu_drv_keyring_sha256(const struct cu_drv_data *d, const char *url)
{
    for (size_t i = 0; d && url && i < d->n_keyrings; i++)
        if (strcmp(d->keyrings[i].url, url) == 0)
            return d->keyrings[i].sha256;
    return NULL;
}

const struct cu_drv_nvswitch *
cu_drv_nvswitch_for(const struct cu_drv_data *d, unsigned vendor, unsigned device, unsigned cls)
{
    for (size_t i = 0; d && i < d->n_nvswitch; i++) {
        const struct cu_drv_nvswitch *n = &d->nvswitch[i];
        if (n->vendor == vendor && (!n->device || n->device == device) && (!n->cls || n->cls == (cls >> 8)))
            return n;
    }
    return NULL;
}

const struct cu_drv_nvlsm *
cu_drv_nvlsm_for(const struct cu_drv_data *d, const struct cu_drv_pkg *row, int branch)
{
    for (size_t i = 0; d && row && i < d->n_nvlsm; i++) {
        const struct cu_drv_nvlsm *n = &d->nvlsm[i];
        if (strcmp(n->distro, row->distro) != 0 || strcmp(n->source, row->source) != 0)
            continue;
        for (size_t k = 0; k < n->n_branches; k++)
            if (n->branches[k] == branch)
                return n;
    }
    return NULL;
}

const char *
cu_drv_kernel_kind(const struct cu_drv_data *d, const char *manager, const char *name)
{
    for (size_t i = 0; d && manager && name && i < d->n_kpkgs; i++)
        if (strcmp(d->kpkgs[i].manager, manager) == 0 && fnmatch(d->kpkgs[i].pattern, name, 0) == 0)
            return strcmp(d->kpkgs[i].kind, "driver") == 0 ? NULL : d->kpkgs[i].kind;
    return NULL;
}

const char *
cu_drv_kernel_remove_env(const struct cu_drv_data *d, const char *manager, const char *name)
{
    for (size_t i = 0; d && manager && name && i < d->n_kpkgs; i++)
        if (strcmp(d->kpkgs[i].manager, manager) == 0 && fnmatch(d->kpkgs[i].pattern, name, 0) == 0)
            return d->kpkgs[i].remove_env;
    return NULL;
}

const struct cu_drv_branch *
cu_drv_branch_for(const struct cu_drv_data *d, int branch)
{
    for (size_t i = 0; d && i < d->n_branches; i++)
        if (d->branches[i].branch == branch)
            return &d->branches[i];
    return NULL;
}

const struct cu_drv_gen *
cu_drv_gen_for_cc(const struct cu_drv_data *d, const struct cu_version *cc)
{
    for (size_t i = 0; d && cc->n && i < d->n_gens; i++)
        if (cu_version_cmp(cc, &d->gens[i].cc_min) >= 0 && cu_version_cmp(cc, &d->gens[i].cc_max) <= 0)
            return &d->gens[i];
    return NULL;
}
