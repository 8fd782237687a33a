/* SPDX-License-Identifier: MIT */
/* The distribution the driver is planned for: os-release's ID and VERSION_ID, then ID_LIKE (driver_distro.h). */
#include "config.h"

#include "core/resolve/driver_distro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/machine/driver_state.h"
#include "core/resolve/driver.h"

static bool
strv_has(char *const *v, const char *s)
{
    for (; v && s && *v; v++)
        if (strcmp(*v, s) == 0)
            return true;
    return false;
}

bool
cu_drv_release_matches(char *const *ids, char *const *versions, const char *id, const char *version_id)
{
    if (!id || !strv_has(ids, id))
        return false;
    if (strv_has(versions, "*"))
        return true;
    if (!version_id)
        return false;
    char major[32];
    snprintf(major, sizeof(major), "%.*s", (int)strcspn(version_id, "."), version_id);
    return strv_has(versions, version_id) || strv_has(versions, major);
}

/* The release row of @id whose codename os-release's @key names, trying @key over every row of @id. */
static const struct cu_drv_release *
named_release(const struct cu_drv_data *d, const struct cu_drv_state *s, const char *id, const char **key)
{
    /* The keys in the order the base's rows give them (UBUNTU_CODENAME before VERSION_CODENAME): a
     * derivative's own VERSION_CODENAME (Mint's "wilma") names no release of its base. */
    for (size_t k = 0; k < 4; k++) {
        for (size_t i = 0; i < d->n_releases; i++) {
            const struct cu_drv_release *r = &d->releases[i];
            size_t nk = 0;
            while (r->base_keys[nk])
                nk++;
            if (k >= nk || !strv_has(r->ids, id) || !r->codename)
                continue;
            const char *v = cu_drv_state_os_value(s, r->base_keys[k]);
            if (v && strcmp(v, r->codename) == 0) {
                *key = r->base_keys[k];
                return r;
            }
        }
    }
    return NULL;
}

void
cu_drv_distro_find(const struct cu_facts *f, const struct cu_drv_data *d, struct cu_drv_distro *out)
{
    *out = (struct cu_drv_distro){.id = f->os.id, .version_id = f->os.version_id};
    for (size_t i = 0; d && i < d->n_releases && !out->self; i++)
        if (cu_drv_release_matches(d->releases[i].ids, d->releases[i].versions, f->os.id, f->os.version_id))
            out->self = &d->releases[i];
    const char *like = cu_drv_state_os_value(f->drv, "ID_LIKE");
    struct cu_strv likes;
    cu_strv_init(&likes);
    if (like)
        cu_strv_split(&likes, like, " \t");
    for (size_t l = 0; d && l < likes.n && !out->base; l++) {
        const char *key = NULL;
        if (f->os.id && strcmp(likes.v[l], f->os.id) == 0)
            continue;
        const struct cu_drv_release *r = named_release(d, f->drv, likes.v[l], &key);
        if (!r)
            continue;
        out->base = r;
        out->base_key = key;
        for (char **x = r->ids; *x; x++)
            if (strcmp(*x, likes.v[l]) == 0)
                out->base_id = *x;
        out->base_version = r->versions[0];
    }
    cu_strv_fini(&likes);
}

/* Does the derivative have package rows of its own of @source (for any of its versions)? */
static bool
own_rows(const struct cu_drv_distro *ds, const struct cu_drv_data *d, const char *source)
{
    for (size_t i = 0; ds->id && i < d->n_pkgs; i++)
        if (strcmp(d->pkgs[i].source, source) == 0 && strv_has(d->pkgs[i].ids, ds->id))
            return true;
    return false;
}

bool
cu_drv_distro_serves(const struct cu_drv_distro *ds, const struct cu_drv_data *d, const struct cu_drv_pkg *r)
{
    if (cu_drv_release_matches(r->ids, r->versions, ds->id, ds->version_id))
        return true;
    return cu_drv_distro_via_base(ds, r) && !own_rows(ds, d, r->source);
}

bool
cu_drv_distro_via_base(const struct cu_drv_distro *ds, const struct cu_drv_pkg *r)
{
    return ds->base && !cu_drv_release_matches(r->ids, r->versions, ds->id, ds->version_id) &&
           cu_drv_release_matches(r->ids, r->versions, ds->base_id, ds->base_version);
}

char *
cu_drv_distro_name(const struct cu_drv_distro *ds, const struct cu_facts *f)
{
    const char *own = f->os.pretty_name ? f->os.pretty_name : f->os.id ? f->os.id : _("this system");
    if (!ds->base)
        return cu_xstrdup(own);
    return cu_xasprintf(_("%s (%s base)"), own, ds->base->name);
}

char *
cu_drv_distro_read(const struct cu_facts *f)
{
    static const char *const keys[] = {"ID", "VERSION_ID", "ID_LIKE", "VERSION_CODENAME", "UBUNTU_CODENAME",
                                       "DEBIAN_CODENAME"};
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < CU_N_ELEMENTS(keys); i++) {
        const char *v = i == 0 ? f->os.id : i == 1 ? f->os.version_id : cu_drv_state_os_value(f->drv, keys[i]);
        if (v)
            cu_buf_printf(&b, "%s%s=%s", b.len ? ", " : "", keys[i], v);
    }
    if (!b.len)
        cu_buf_puts(&b, _("no os-release"));
    return cu_buf_steal(&b);
}

const char *
cu_drv_distro_codename(const struct cu_drv_distro *ds, const struct cu_facts *f)
{
    if (ds->base)
        return ds->base->codename;
    if (f->drv && f->drv->version_codename)
        return f->drv->version_codename;
    return ds->self ? ds->self->codename : NULL;
}

char *
cu_drv_distro_known_bases(const struct cu_drv_data *d, const char *id)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; d && id && i < d->n_releases; i++) {
        const struct cu_drv_release *r = &d->releases[i];
        if (strv_has(r->ids, id) && r->base_keys[0])
            cu_buf_printf(&b, "%s%s (%s)", b.len ? ", " : "", r->name, r->codename);
    }
    if (!b.len) {
        cu_buf_fini(&b);
        return NULL;
    }
    return cu_buf_steal(&b);
}

const char *
cu_drv_distro_like_known(const struct cu_facts *f, const struct cu_drv_data *d)
{
    const char *like = cu_drv_state_os_value(f->drv, "ID_LIKE");
    struct cu_strv likes;
    cu_strv_init(&likes);
    if (like)
        cu_strv_split(&likes, like, " \t");
    const char *found = NULL;
    for (size_t l = 0; d && l < likes.n && !found; l++)
        for (size_t i = 0; i < d->n_releases && !found; i++)
            if (d->releases[i].base_keys[0] && strv_has(d->releases[i].ids, likes.v[l]))
                for (char **x = d->releases[i].ids; *x && !found; x++)
                    if (strcmp(*x, likes.v[l]) == 0)
                        found = *x;
    cu_strv_fini(&likes);
    return found;
}

char *
cu_drv_distro_hint(const struct cu_facts *f, const struct cu_catalog *cat)
{
    struct cu_drv_distro ds;
    cu_drv_distro_find(f, cat ? cat->driver : NULL, &ds);
    const struct cu_drv_release *r = ds.self && ds.self->by_hand ? ds.self : ds.base;
    /* A release the data does not know of a distribution it knows: the distribution's own way is the same. */
    for (size_t i = 0; !r && cat && cat->driver && f->os.id && i < cat->driver->n_releases; i++)
        if (strv_has(cat->driver->releases[i].ids, f->os.id) && cat->driver->releases[i].by_hand)
            r = &cat->driver->releases[i];
    if (!r || !r->by_hand)
        return NULL;
    CU_AUTOFREE char *name = cu_drv_distro_name(&ds, f);
    CU_AUTOFREE char *cmd = cu_drv_expand(r->by_hand, 0, f);
    if (r->by_hand_components)
        return cu_xasprintf(_("On %s: enable the %s components of its archive, then `%s`, then reboot."), name,
                            r->by_hand_components, cmd);
    return cu_xasprintf(_("On %s: `%s`, then reboot."), name, cmd);
}

/* Is @source one cudaup installs from (the distribution's, NVIDIA's), not a third-party one it only names? */
static bool
source_installs(const char *source)
{
    return strcmp(source, "distro") == 0 || strcmp(source, "nvidia") == 0;
}

/* "12, 13": the versions the installable rows of @id name.  Caller owns. */
static char *
id_versions(const struct cu_drv_data *d, const char *id)
{
    struct cu_strv v;
    cu_strv_init(&v);
    for (size_t i = 0; i < d->n_pkgs; i++) {
        const struct cu_drv_pkg *r = &d->pkgs[i];
        if (!strv_has(r->ids, id) || !source_installs(r->source))
            continue;
        for (char **x = r->versions; *x; x++)
            if (!cu_strv_contains(&v, *x))
                cu_strv_push(&v, *x);
    }
    cu_strv_sort(&v);
    char *list = v.n ? cu_strv_join(&v, ", ") : NULL;
    cu_strv_fini(&v);
    return list;
}

char *
cu_drv_distro_refusal(const struct cu_facts *f, const struct cu_drv_data *d, bool *id_known)
{
    struct cu_drv_distro ds;
    *id_known = false;
    cu_drv_distro_find(f, d, &ds);
    for (size_t i = 0; d && i < d->n_pkgs; i++)
        if (cu_drv_distro_serves(&ds, d, &d->pkgs[i]))
            return NULL;
    CU_AUTOFREE char *name = cu_drv_distro_name(&ds, f);
    CU_AUTOFREE char *versions = d && f->os.id ? id_versions(d, f->os.id) : NULL;
    if (versions) {
        *id_known = true;
        return cu_xasprintf(_("cudaup's driver data has no packages for %s (for %s it knows release %s)."), name,
                            f->os.id, versions);
    }
    /* What os-release said, so that a derivative's user sees which of its fields decided. */
    CU_AUTOFREE char *read = cu_drv_distro_read(f);
    const char *like = cu_drv_distro_like_known(f, d);
    CU_AUTOFREE char *bases = like ? cu_drv_distro_known_bases(d, like) : NULL;
    if (bases)
        return cu_xasprintf(_("%s is built on %s, but its os-release names no release of it that cudaup's driver data knows (it read %s; it knows %s)."),
                            name, like, read, bases);
    struct cu_strv all;
    cu_strv_init(&all);
    for (size_t i = 0; d && i < d->n_releases; i++)
        if (!cu_strv_contains(&all, d->releases[i].name))
            cu_strv_push(&all, d->releases[i].name);
    CU_AUTOFREE char *known = cu_strv_join(&all, ", ");
    cu_strv_fini(&all);
    return cu_xasprintf(_("cudaup installs the driver with the package managers of the distributions its driver data knows (%s) and of the distributions built on them, not on %s (it read %s)."),
                        known, name, read);
}

const char *
cu_drv_distro_initramfs(const struct cu_facts *f, const struct cu_drv_data *d)
{
    struct cu_drv_distro ds;
    cu_drv_distro_find(f, d, &ds);
    for (size_t i = 0; d && i < d->n_pkgs; i++)
        if (d->pkgs[i].initramfs && source_installs(d->pkgs[i].source) && cu_drv_distro_serves(&ds, d, &d->pkgs[i]))
            return d->pkgs[i].initramfs;
    return NULL;
}
