/* SPDX-License-Identifier: MIT */
/* doctor on a host of GPU containers (core/doctor/container_host.h). */
#include "config.h"

#include "core/doctor/container_host.h"

#include <string.h>

#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/toml.h"
#include "core/resolve/containers.h"

bool
cu_ctr_cdi_fresh(const struct cu_cdi_spec *s, const struct cu_version *drv)
{
    return s->driver.n && drv && drv->n && cu_version_cmp(&s->driver, drv) == 0;
}

/* Is @e configured for the GPU, by the rules the install writes by?  *@broken gets why its file cannot be read. */
static bool
configured(const struct cu_catalog *cat, const struct cu_engine_info *e, char **broken)
{
    *broken = NULL;
    switch (e->kind) {
    case CU_ENGINE_DOCKER: {
        const struct cu_engine_file *f = e->rootless ? &e->user_config : &e->config;
        CU_AUTOFREE char *text = NULL;
        bool changed, only;
        struct cu_error err;
        if (cu_docker_config(cat->containers, &e->version, f->text, &text, &changed, &only, &err) != CU_OK) {
            *broken = cu_xstrdup(err.msg);
            return false;
        }
        return !changed;
    }
    case CU_ENGINE_CONTAINERD: {
        struct cu_ctd_write w;
        struct cu_error err;
        if (cu_ctd_config(cat->containers, &e->version, e->config.text, e->imports, e->n_imports, &w, &err) != CU_OK) {
            if (err.code == CU_E_INPUT)
                *broken = cu_xstrdup(err.msg);
            return false;
        }
        bool ok = w.configured;
        cu_ctd_write_fini(&w);
        return ok;
    }
    case CU_ENGINE_CRIO:
        return cu_crio_configured(&e->config, 1) || cu_crio_configured(e->imports, e->n_imports);
    default:
        return true; /* Podman: CDI alone */
    }
}

static bool
gpus_here(const struct cu_facts *f)
{
    return f->n_gpus > 0 || f->driver.kind == CU_DRIVER_WSL;
}

void
cu_ctr_doctor(const struct cu_facts *f, const struct cu_catalog *cat, const struct cu_engines *en, const struct cu_cdi *cdi,
              bool recorded, struct cu_problems *out)
{
    bool engines = false;
    for (int k = 0; k < CU_N_ENGINES; k++)
        engines |= en->e[k].installed;
    if (f->container.inside || !gpus_here(f) || (!engines && !en->nvidia_ctk && !recorded && !cdi->n))
        return;
    char b1[32], b2[32];
    /* A drop-in containerd refuses stops containerd, whatever else is right. */
    const struct cu_engine_info *ctd = &en->e[CU_ENGINE_CONTAINERD];
    if (ctd->installed) {
        struct cu_toml t;
        struct cu_error err;
        int rv = 2;
        if (ctd->config.text && cu_toml_parse(ctd->config.text, &t, &err) == CU_OK) {
            const struct cu_toml_entry *v = cu_toml_get(&t, "version");
            rv = v && v->type == CU_TOML_INT ? (int)v->ival : (t.n || t.n_tables ? 1 : 2);
            cu_toml_fini(&t);
        }
        for (size_t i = 0; i < ctd->n_imports; i++) {
            CU_AUTOFREE char *why = ctd->imports[i].text ? cu_ctd_refuses(cat->containers, &ctd->version, rv, ctd->imports[i].text) : NULL;
            if (!why)
                continue;
            cu_problems_add(out, "container-dropin-refused", CU_SEV_ERROR,
                            cu_tr_asprintf(_("containerd's drop-in %s will stop containerd: %s."), ctd->imports[i].path, why),
                            cu_tr_asprintf(_("Set it aside (or give it version %d, the root config's) and restart containerd; `cudaup install --containers containerd` sets it aside, keeping it as %s.cudaup-disabled, and writes a drop-in of version %d."),
                                           rv, ctd->imports[i].path, rv));
            const struct cu_ctk_fact *fact = cu_ctk_fact_for(cat->containers, "containerd", "dropin_newer", &ctd->version);
            if (fact) {
                CU_AUTOFREE char *src = cu_ctk_fact_source(fact);
                cu_problems_source(out, src);
            }
        }
    }
    /* Each engine: configured for the GPU where the toolkit is there to run its containers. */
    for (int k = 0; k < CU_N_ENGINES; k++) {
        const struct cu_engine_info *e = &en->e[k];
        if (!e->installed || k == CU_ENGINE_PODMAN)
            continue;
        CU_AUTOFREE char *broken = NULL;
        bool ok = configured(cat, e, &broken);
        const char *title = cu_engine_title(e->kind), *name = cu_engine_name(e->kind);
        if (broken) {
            cu_problems_add(out, "container-config-broken", CU_SEV_ERROR, cu_xstrdup(broken),
                            cu_tr_asprintf(_("Fix %s's configuration so that it parses, then restart it (cudaup changes nothing of a file it cannot read)."), title));
        } else if (!ok && (en->nvidia_ctk || recorded)) {
            cu_problems_add(out, "container-engine-not-configured", CU_SEV_WARNING,
                            cu_tr_asprintf(_("%s is installed, but its configuration has no NVIDIA runtime, so its containers do not get the GPU through it."), title),
                            cu_tr_asprintf(_("`cudaup install --containers %s` adds it (every setting of yours kept, the file checked by %s's own parser first)."),
                                           name, title));
        }
    }
    if (!en->nvidia_ctk) {
        if (engines && !recorded)
            cu_problems_add(out, "container-toolkit-missing", CU_SEV_INFO,
                            cu_xstrdup(_("Container engines are installed here, but the NVIDIA Container Toolkit is not: no container can use the GPU.")),
                            cu_xstrdup(_("`cudaup install --containers auto` installs it from NVIDIA's repository, configures each engine and generates the CDI spec.")));
        else if (recorded)
            cu_problems_add(out, "container-toolkit-missing", CU_SEV_ERROR,
                            cu_xstrdup(_("cudaup set this machine up for GPU containers, but the NVIDIA Container Toolkit (nvidia-ctk) is gone.")),
                            cu_xstrdup(_("`cudaup install --containers auto` installs it again.")));
        return;
    }
    /* The CDI spec: there, of the driver that is loaded, naming every GPU. */
    const struct cu_driver_info *d = &f->driver;
    bool loaded = (d->kind == CU_DRIVER_NVIDIA && d->version.n) || d->kind == CU_DRIVER_WSL;
    if (!loaded)
        return;
    bool wsl = d->kind == CU_DRIVER_WSL || f->os.wsl;
    CU_AUTOFREE char *regen = cu_xasprintf("nvidia-ctk cdi generate --output=/var/run/cdi/nvidia.yaml%s", wsl ? " --mode=wsl" : "");
    if (!cdi->n) {
        cu_problems_add(out, "container-cdi-missing", CU_SEV_WARNING,
                        cu_xstrdup(_("No CDI spec of the GPUs is in /etc/cdi or /var/run/cdi, so `--device nvidia.com/gpu=all` finds no device (Podman; Docker and containerd with CDI); /var/run is emptied at each boot, and nothing regenerated it.")),
                        cu_tr_asprintf(_("`cudaup repair` generates it (`%s`); the toolkit's refresh units keep it so: `systemctl enable nvidia-cdi-refresh.path nvidia-cdi-refresh.service`."),
                                       regen));
        return;
    }
    for (size_t i = 0; i < cdi->n; i++) {
        const struct cu_cdi_spec *s = &cdi->v[i];
        if (!wsl && s->driver.n && !cu_ctr_cdi_fresh(s, &d->version)) {
            cu_problems_add(out, "container-cdi-stale", CU_SEV_ERROR,
                            cu_tr_asprintf(_("The CDI spec %s was generated for the NVIDIA driver %s, but driver %s is loaded: a container started with it gets the old driver's libraries, which are gone."),
                                           s->path, cu_driver_version_format(&s->driver, b1, sizeof(b1)),
                                           cu_driver_version_format(&d->version, b2, sizeof(b2))),
                            cu_tr_asprintf(_("`cudaup repair` regenerates it (`%s`); the toolkit's refresh units do that after each driver update."), regen));
            continue;
        }
        size_t named = 0;
        for (size_t g = 0; g < f->n_gpus; g++) {
            char idx[16];
            snprintf(idx, sizeof(idx), "%d", f->gpus[g].index);
            named += cu_strv_contains(&s->devices, idx);
        }
        if (!wsl && named < f->n_gpus)
            cu_problems_add(out, "container-cdi-gpus", CU_SEV_WARNING,
                            cu_tr_asprintf(_("The CDI spec %s names %zu of this machine's %zu GPUs."), s->path, named, f->n_gpus),
                            cu_tr_asprintf(_("`cudaup repair` regenerates it (`%s`)."), regen));
    }
}

json_t *
cu_ctr_doctor_json(const struct cu_catalog *cat, const struct cu_engines *en, const struct cu_cdi *cdi)
{
    json_t *o = json_object();
    json_object_set_new(o, "toolkit", cu_json_str_or_null(en->nvidia_ctk));
    json_t *a = json_array();
    for (int k = 0; k < CU_N_ENGINES; k++) {
        const struct cu_engine_info *e = &en->e[k];
        if (!e->installed && !e->desktop)
            continue;
        json_t *j = json_object();
        char b[32];
        CU_AUTOFREE char *broken = NULL;
        json_object_set_new(j, "name", json_string(cu_engine_name(e->kind)));
        json_object_set_new(j, "version", e->version.n ? json_string(cu_version_format(&e->version, 0, b, sizeof(b))) : json_null());
        json_object_set_new(j, "desktop", json_boolean(e->desktop));
        json_object_set_new(j, "rootless", json_boolean(e->rootless));
        json_object_set_new(j, "configured", e->installed ? json_boolean(configured(cat, e, &broken)) : json_null());
        json_array_append_new(a, j);
    }
    json_object_set_new(o, "engines", a);
    json_t *c = json_array();
    for (size_t i = 0; i < cdi->n; i++) {
        const struct cu_cdi_spec *s = &cdi->v[i];
        json_t *j = json_object();
        char b[32];
        json_object_set_new(j, "path", json_string(s->path));
        json_object_set_new(j, "driver", s->driver.n ? json_string(cu_driver_version_format(&s->driver, b, sizeof(b))) : json_null());
        json_t *dv = json_array();
        for (size_t k = 0; k < s->devices.n; k++)
            json_array_append_new(dv, json_string(s->devices.v[k]));
        json_object_set_new(j, "devices", dv);
        json_array_append_new(c, j);
    }
    json_object_set_new(o, "cdi", c);
    return o;
}

char *
cu_ctr_doctor_line(const struct cu_catalog *cat, const struct cu_engines *en, const struct cu_cdi *cdi)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (int k = 0; k < CU_N_ENGINES; k++) {
        const struct cu_engine_info *e = &en->e[k];
        if (!e->installed && !e->desktop)
            continue;
        char v[32];
        CU_AUTOFREE char *broken = NULL;
        const char *how = e->desktop                  ? _("Docker Desktop's, set up in its own settings")
                          : k == CU_ENGINE_PODMAN     ? _("GPU through the CDI spec")
                          : configured(cat, e, &broken) ? _("runtime nvidia")
                          : broken                    ? _("its configuration does not parse")
                                                      : _("not set up for the GPU");
        if (b.len)
            cu_buf_puts(&b, _(", "));
        cu_buf_printf(&b, "%s%s%s (%s)", cu_engine_title(e->kind), e->version.n ? " " : "",
                      e->version.n ? cu_version_format(&e->version, 0, v, sizeof(v)) : "", how);
    }
    if (en->nvidia_ctk)
        cu_buf_printf(&b, "%s%s", b.len ? _("; ") : "", _("NVIDIA Container Toolkit installed"));
    for (size_t i = 0; i < cdi->n; i++) {
        char v[32];
        const struct cu_cdi_spec *s = &cdi->v[i];
        if (b.len)
            cu_buf_puts(&b, _("; "));
        if (s->driver.n)
            cu_buf_printf(&b, _("CDI spec %s (driver %s)"), s->path, cu_driver_version_format(&s->driver, v, sizeof(v)));
        else
            cu_buf_printf(&b, _("CDI spec %s"), s->path);
    }
    if (!b.len) {
        cu_buf_fini(&b);
        return NULL;
    }
    return cu_buf_steal(&b);
}
