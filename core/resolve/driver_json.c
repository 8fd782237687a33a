/* SPDX-License-Identifier: MIT */
/*
 * The plan's driver object in JSON (DESIGN "plan ... driver"), apart from the planning itself (driver.c).
 */
#include "config.h"

#include "core/resolve/driver.h"

#include <stdio.h>
#include <string.h>

#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"

static json_t *
jstrv(const struct cu_strv *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(a, json_string(v->v[i]));
    return a;
}

json_t *
cu_drv_plan_json(const struct cu_drv_plan *p)
{
    json_t *o = json_object();
    char b[32];
    json_object_set_new(o, "action", json_string(p->action));
    json_object_set_new(o, "reasons", jstrv(&p->reasons));
    /* The data behind a reason, as the plan's provenance[] has it (DESIGN: sources in JSON and behind -v). */
    json_t *prov = json_array();
    for (size_t i = 0; i < p->reasons.n && i < p->reason_sources.n; i++) {
        if (!*p->reason_sources.v[i])
            continue;
        json_t *e = json_object();
        json_object_set_new(e, "reason", json_string(p->reasons.v[i]));
        json_object_set_new(e, "source", json_string(p->reason_sources.v[i]));
        json_array_append_new(prov, e);
    }
    json_object_set_new(o, "provenance", prov);
    if (p->container) {
        json_object_set_new(o, "container", json_true());
        json_object_set_new(o, "host_version", p->host.n ? json_string(cu_driver_version_format(&p->host, b, sizeof(b))) : json_null());
    }
    if (strcmp(p->action, "refuse") == 0) {
        json_object_set_new(o, "error", cu_json_str_or_null(p->refusal));
        json_object_set_new(o, "advice", cu_json_str_or_null(p->advice));
        return o;
    }
    if (strcmp(p->action, "install") != 0)
        return o;
    snprintf(b, sizeof(b), "%d", p->branch);
    json_object_set_new(o, "branch", json_string(b));
    json_object_set_new(o, "flavor", cu_json_str_or_null(p->flavor));
    json_object_set_new(o, "manager", cu_json_str_or_null(p->manager));
    json_object_set_new(o, "source", cu_json_str_or_null(p->source));
    json_object_set_new(o, "distro", cu_json_str_or_null(p->distro));
    json_object_set_new(o, "os", cu_json_str_or_null(p->os));
    json_object_set_new(o, "base", cu_json_str_or_null(p->base));
    json_object_set_new(o, "packages", jstrv(&p->packages));
    json_object_set_new(o, "pin", cu_json_str_or_null(p->pin));
    json_object_set_new(o, "pin_file", cu_json_str_or_null(p->pin_file));
    json_object_set_new(o, "secure_boot", cu_json_str_or_null(p->secure_boot));
    json_object_set_new(o, "reboot", json_boolean(p->reboot));
    json_object_set_new(o, "image", json_boolean(p->image));
    if (p->firstboot_state) {
        /* The image's first-boot unit: its files (in the image), what it runs, where it records the result. */
        json_t *fb = json_object();
        CU_AUTOFREE char *rec = cu_path_join(p->firstboot_state, "firstboot.json");
        json_object_set_new(fb, "unit", json_string(CU_DRV_FIRSTBOOT_UNIT));
        json_object_set_new(fb, "enabled_by", json_string(CU_DRV_FIRSTBOOT_LINK));
        json_object_set_new(fb, "script", json_string(CU_DRV_FIRSTBOOT_SCRIPT));
        json_object_set_new(fb, "command", cu_json_str_or_null(p->firstboot_command));
        json_object_set_new(fb, "record", json_string(rec));
        json_object_set_new(o, "firstboot", fb);
    } else {
        json_object_set_new(o, "firstboot", json_null());
    }
    json_object_set_new(o, "version_min", json_string(cu_driver_version_format(&p->version, b, sizeof(b))));
    json_object_set_new(o, "module_stream", cu_json_str_or_null(p->module_stream));
    json_object_set_new(o, "repo", cu_json_str_or_null(p->repo));
    json_object_set_new(o, "components", cu_json_str_or_null(p->components));
    json_object_set_new(o, "blacklist_nouveau", json_boolean(p->blacklist_nouveau));
    json_object_set_new(o, "initramfs", cu_json_str_or_null(p->initramfs));
    json_object_set_new(o, "mok_cert", cu_json_str_or_null(p->mok_cert));
    json_object_set_new(o, "kernel_meta", cu_json_str_or_null(p->kernel_meta));
    json_object_set_new(o, "nvswitch", json_integer(p->nvswitch));
    json_object_set_new(o, "nvlink5", json_integer(p->nvlink5));
    json_object_set_new(o, "nvlink5_unread", json_integer(p->nvlink5_unread));
    json_object_set_new(o, "reboot_may", json_boolean(p->reboot_may));
    if (p->fabricmanager.n) {
        json_t *fm = json_object();
        json_object_set_new(fm, "packages", jstrv(&p->fabricmanager));
        json_object_set_new(fm, "nvlsm", jstrv(&p->nvlsm));
        json_object_set_new(fm, "service", cu_json_str_or_null(p->fabricmanager_service));
        json_object_set_new(o, "fabricmanager", fm);
    } else {
        json_object_set_new(o, "fabricmanager", json_null());
    }
    json_object_set_new(o, "repositories", cu_drv_repositories_json(p));
    json_object_set_new(o, "steps", cu_drv_steps_json(p));
    return o;
}

