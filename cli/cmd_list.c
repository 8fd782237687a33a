/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "core/catalog/catalog_legacy.h"
#include "core/base/i18n.h"
#include "core/resolve/runs.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/fetch/mirror.h"
#include "core/resolve/plan.h"
#include "core/base/str.h"
#include "installers/pyenvrec.h"
#include "report.h"
#include "term.h"

/* 1 yes, 0 no, -1 unknown; *@compat: only by NVIDIA's minor-version compatibility (the rule plan and verify
 * judge by, core/resolve/runs.c). */
static int
runs_on_driver(const struct cu_app *app, const struct cu_facts *f, const struct cu_version *v, bool *compat)
{
    struct cu_runs_how how;
    *compat = false;
    if ((f->driver.kind != CU_DRIVER_NVIDIA && f->driver.kind != CU_DRIVER_WSL) || (!f->driver.version.n && !f->driver.cuda_max.n))
        return -1;
    switch (cu_driver_runs_cuda(app->catalog, &f->driver.version, &f->driver.cuda_max, v, &how)) {
    case CU_RUNS_NATIVE:
        return 1;
    case CU_RUNS_COMPAT:
        *compat = true;
        return 1;
    case CU_RUNS_NOT:
        return 0;
    case CU_RUNS_UNKNOWN:
    default:
        return -1;
    }
}

static int
fits_gpus(const struct cu_app *app, const struct cu_facts *f, const struct cu_version *v)
{
    int all = f->n_gpus ? 1 : -1;
    for (size_t i = 0; i < f->n_gpus; i++) {
        if (!f->gpus[i].cc.n)
            return -1;
        int s = cu_catalog_cuda_supports_cc(app->catalog, v, &f->gpus[i].cc);
        if (s <= 0)
            return s;
    }
    return all;
}

static json_t *
tri(int v)
{
    return v < 0 ? json_null() : json_boolean(v);
}

static const struct cu_cuda_install *
installed(const struct cu_facts *f, const struct cu_version *v)
{
    for (size_t i = 0; i < f->n_installs; i++)
        if (f->installs[i].version.n && cu_version_cmp(&f->installs[i].version, v) == 0)
            return &f->installs[i];
    return NULL;
}

static int
list_one(struct cu_app *app, struct cu_mirror *m, const struct cu_facts *f, const char *want)
{
    struct cu_error err;
    struct cu_version v;
    char *const *labels;
    size_t n;
    char b1[32];
    const char *platform = app->cfg.platform ? app->cfg.platform : cu_facts_platform(f);

    if (!cu_version_parse(want, &v) || v.n > 3) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'%s' is not a CUDA version such as 12.4 or 12.4.1."), want);
        return cu_report_error(app, &err);
    }
    if (cu_mirror_index(m, CU_PRODUCT_CUDA, &labels, &n, NULL, &err) != CU_OK)
        return cu_report_error(app, &err);
    const char *label = NULL;
    for (size_t i = 0; i < n && !label; i++) {
        struct cu_version lv;
        if (cu_version_parse(labels[i], &lv) && (cu_version_matches(&lv, &v) || cu_version_cmp(&lv, &v) == 0))
            label = labels[i];
    }
    if (!label) {
        cu_error_set(&err, CU_E_UNSUPPORTED, 0, _("CUDA %s is not on the mirror."), want);
        return cu_report_error(app, &err);
    }
    const struct cu_manifest *man;
    if (cu_mirror_manifest(m, CU_PRODUCT_CUDA, label, &man, &err) != CU_OK)
        return cu_report_error(app, &err);
    json_t *comps = json_array();
    if (!app->cfg.json)
        printf(_("CUDA %s (%s), components for %s:\n"), label, man->release_date ? man->release_date : "?",
               platform ? platform : "?");
    for (size_t i = 0; i < man->n_packages; i++) {
        const struct cu_package *p = &man->packages[i];
        const struct cu_artifact *a = platform ? cu_package_artifact(p, platform, NULL) : NULL;
        if (!a)
            continue;
        bool never = cu_catalog_component_never(app->catalog, p->key);
        bool def = false;
        for (char **c = app->catalog->components_default; c && *c; c++)
            def |= strcmp(*c, p->key) == 0;
        json_t *o = json_object();
        json_object_set_new(o, "component", json_string(p->key));
        json_object_set_new(o, "name", cu_json_str_or_null(p->name));
        json_object_set_new(o, "version", cu_json_str_or_null(p->version));
        json_object_set_new(o, "size", json_integer((json_int_t)a->size));
        json_object_set_new(o, "default", json_boolean(def));
        json_object_set_new(o, "installable", json_boolean(!never));
        json_array_append_new(comps, o);
        if (!app->cfg.json)
            printf("  %-28s %-18s %9s %s\n", p->key, p->version ? p->version : "",
                   cu_format_bytes(a->size, b1, sizeof(b1)),
                   never ? _("(never installed)") : def ? _("(default)") : "");
    }
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "version", json_string(label));
        json_object_set_new(doc, "release_date", cu_json_str_or_null(man->release_date));
        json_object_set_new(doc, "platform", cu_json_str_or_null(platform));
        json_object_set_new(doc, "components", comps);
        cu_report_json(app, doc);
    } else {
        json_decref(comps);
    }
    return 0;
}

int
cu_cmd_list(struct cu_app *app)
{
    struct cu_error err;
    struct cu_facts *facts = NULL;
    struct cu_mirror *m = NULL;
    int rc = 0;
    char b1[32], b2[32];

    cu_error_clear(&err);
    if (app->cfg.n_args > 1) {
        cu_error_set(&err, CU_E_USAGE, 0, _("'list' takes at most one version."));
        return cu_report_error(app, &err);
    }
    struct cu_mirror_opts mo = {.base_url = app->cfg.mirror, .cache_dir = app->cache_dir, .ca_cert = app->cfg.ca_cert,
                                .catalog = app->catalog,
                                .retries = (unsigned)app->cfg.retries};
    if (cu_mirror_new(&mo, &m, &err) != CU_OK || cu_app_probe(app, &facts, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    if (app->cfg.n_args == 1) {
        rc = list_one(app, m, facts, app->cfg.args[0]);
        goto out;
    }
    char *const *labels;
    size_t n;
    bool listed;
    if (cu_mirror_index(m, CU_PRODUCT_CUDA, &labels, &n, &listed, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    json_t *doc = json_object(), *cuda = json_array(), *cudnn = json_array(), *inst = json_array();
    json_object_set_new(doc, "mirror", json_string(cu_mirror_net(m)->base));
    json_object_set_new(doc, "from_mirror_listing", json_boolean(listed));
    if (!app->cfg.json)
        printf("%s%s%s\n", cu_color(app, CU_COLOR_BOLD, false),
               listed ? _("CUDA releases on the mirror") : _("CUDA releases cudaup knows (the mirror gives no listing)"),
               cu_color_reset(app, false));
    for (size_t i = 0; i < n; i++) {
        struct cu_version v, need;
        if (!cu_version_parse(labels[i], &v))
            continue;
        bool known = cu_catalog_cuda_min_driver(app->catalog, &v, &need), compat;
        int runs = runs_on_driver(app, facts, &v, &compat), fits = fits_gpus(app, facts, &v);
        const struct cu_cuda_install *in = installed(facts, &v);
        json_t *o = json_object();
        json_object_set_new(o, "version", json_string(labels[i]));
        json_object_set_new(o, "driver_min",
                            known ? json_string(cu_driver_version_format(&need, b1, sizeof(b1))) : json_null());
        json_object_set_new(o, "runs_on_driver", tri(runs));
        json_object_set_new(o, "minor_version_compat", json_boolean(compat));
        json_object_set_new(o, "supports_gpus", tri(fits));
        json_object_set_new(o, "installed", in ? json_string(in->path) : json_null());
        json_array_append_new(cuda, o);
        if (!app->cfg.json) {
            /* A release whose own driver no source names (CUDA 13.4) is said so, not "?". */
            printf("  %-9s %s ", labels[i], _("driver"));
            cu_print_padded(stdout, known ? cu_driver_version_format(&need, b1, sizeof(b1)) : _("not named"), 11);
            if (runs == 0)
                printf("  %s", _("[driver too old]"));
            if (runs == 1 && compat)
                printf("  %s", _("[runs by minor-version compatibility]"));
            if (fits == 0)
                printf("  %s", _("[does not build for this GPU]"));
            if (runs == 1 && fits == 1)
                printf("  %s", _("[fits]"));
            if (in)
                printf("  [%s %s]", _("installed in"), in->path);
            printf("\n");
        }
    }
    if (cu_mirror_index(m, CU_PRODUCT_CUDNN, &labels, &n, &listed, &err) != CU_OK) {
        json_decref(doc);
        json_decref(cuda);
        json_decref(cudnn);
        json_decref(inst);
        rc = cu_report_error(app, &err);
        goto out;
    }
    if (!app->cfg.json)
        printf("\n%s%s%s\n", cu_color(app, CU_COLOR_BOLD, false), _("cuDNN releases"), cu_color_reset(app, false));
    for (size_t i = 0; i < n; i++) {
        struct cu_version v;
        if (!cu_version_parse(labels[i], &v))
            continue;
        const struct cu_cat_cudnn *c = cu_catalog_cudnn(app->catalog, &v);
        json_t *o = json_object(), *vars = json_array();
        json_object_set_new(o, "version", json_string(labels[i]));
        struct cu_buf vb;
        cu_buf_init(&vb);
        if (c && c->variants_known)
            for (char **x = c->variants_x86_64; x && *x; x++) {
                json_array_append_new(vars, json_string(*x));
                cu_buf_printf(&vb, "%sCUDA %s", vb.len ? ", " : "", *x);
            }
        json_object_set_new(o, "cuda_variants", c && c->variants_known ? vars : (json_decref(vars), json_null()));
        json_array_append_new(cudnn, o);
        if (!app->cfg.json)
            printf("  %-9s %s\n", labels[i], vb.len ? vb.data : _("builds for CUDA: not known until a plan reads its manifest"));
        cu_buf_fini(&vb);
    }
    /* Before NVIDIA's manifests: the runfiles of the catalog (data/legacy), for TensorFlow 1.13-2.4. */
    json_t *legacy = json_array();
    if (!app->cfg.json)
        printf("\n%s%s%s\n", cu_color(app, CU_COLOR_BOLD, false),
               _("CUDA from NVIDIA's runfiles (planned for --framework tensorflow==1.13 to 2.4)"), cu_color_reset(app, false));
    for (size_t i = 0; app->catalog->legacy && i < app->catalog->legacy->n_cuda; i++) {
        const struct cu_cat_legacy_cuda *c = &app->catalog->legacy->cuda[i];
        int runs = -1;
        if ((facts->driver.kind == CU_DRIVER_NVIDIA || facts->driver.kind == CU_DRIVER_WSL) && facts->driver.version.n)
            runs = cu_version_cmp(&facts->driver.version, &c->driver) >= 0;
        json_t *o = json_object();
        json_object_set_new(o, "version", json_string(cu_version_format(&c->version, 0, b1, sizeof(b1))));
        json_object_set_new(o, "driver_min", json_string(cu_driver_version_format(&c->driver, b2, sizeof(b2))));
        json_object_set_new(o, "runs_on_driver", tri(runs));
        json_object_set_new(o, "file", json_string(c->file));
        json_object_set_new(o, "sha256", json_string(c->sha256));
        json_array_append_new(legacy, o);
        if (!app->cfg.json)
            printf("  %-9s %s %-11s  %s%s\n", b1, _("driver"), b2, c->file, runs == 0 ? _("  [driver too old]") : "");
    }
    if (!app->cfg.json)
        printf("\n%s%s%s\n", cu_color(app, CU_COLOR_BOLD, false), _("Installed"), cu_color_reset(app, false));
    for (size_t i = 0; i < facts->n_installs; i++) {
        const struct cu_cuda_install *in = &facts->installs[i];
        json_t *o = json_object();
        json_object_set_new(o, "path", json_string(in->path));
        json_object_set_new(o, "version", in->version.n ? json_string(cu_version_format(&in->version, 0, b1, sizeof(b1)))
                                                        : json_null());
        json_object_set_new(o, "cudnn", in->cudnn.n ? json_string(cu_version_format(&in->cudnn, 0, b2, sizeof(b2)))
                                                    : json_null());
        json_object_set_new(o, "managed", json_boolean(in->managed));
        json_array_append_new(inst, o);
        if (!app->cfg.json)
            printf("  %-9s %s%s%s%s\n", in->version.n ? cu_version_format(&in->version, 0, b1, sizeof(b1)) : "?",
                   in->path, in->cudnn.n ? ", cuDNN " : "",
                   in->cudnn.n ? cu_version_format(&in->cudnn, 0, b2, sizeof(b2)) : "",
                   in->managed ? _(" [cudaup]") : "");
    }
    if (!app->cfg.json && facts->n_installs == 0)
        printf("  %s\n", _("none"));
    /* The Python environment cudaup recorded, and the CUDA it was made for. */
    json_t *envs = json_array(), *pe = cu_pyenv_list_json(app->state_dir);
    if (!app->cfg.json)
        printf("\n%s%s%s\n", cu_color(app, CU_COLOR_BOLD, false), _("Python environments"), cu_color_reset(app, false));
    if (pe && !app->cfg.json) {
        const char *fw = cu_json_str(pe, "framework"), *fv = cu_json_str(pe, "framework_version");
        const char *cuda_for = cu_json_str(pe, "cuda");
        CU_AUTOFREE char *what = cu_xasprintf("%s%s%s", fw ? fw : _("no framework"), fv ? " " : "", fv ? fv : "");
        CU_AUTOFREE char *line = cu_xasprintf(_("%s (%s, %s)%s%s%s"), cu_json_str(pe, "path"), cu_json_str(pe, "tool"), what,
                                              cuda_for ? _(", for ") : "", cuda_for ? cuda_for : "",
                                              json_is_true(json_object_get(pe, "made")) ? _(" [cudaup]") : "");
        cu_say(stdout, "  ", "%s", line);
        json_t *hold = json_object_get(pe, "hold"), *pk = json_object_get(hold, "packages");
        const char *name;
        json_t *v;
        struct cu_buf held;
        cu_buf_init(&held);
        json_object_foreach (pk, name, v) /* issue 45: what pip is held at there */
            if (strncmp(name, "nvidia-", 7) != 0 && json_is_string(v))
                cu_buf_printf(&held, "%s%s %s", held.len ? _(", ") : "", name, json_string_value(v));
        if (held.len)
            cu_say(stdout, "    ", _("pip held at %s (%s)"), held.data, cu_json_str(hold, "file"));
        cu_buf_fini(&held);
    } else if (!app->cfg.json) {
        printf("  %s\n", _("none"));
    }
    if (pe)
        json_array_append_new(envs, pe);
    json_object_set_new(doc, "environments", envs);
    json_object_set_new(doc, "cuda", cuda);
    json_object_set_new(doc, "cudnn", cudnn);
    json_object_set_new(doc, "legacy_cuda", legacy);
    json_object_set_new(doc, "installed", inst);
    if (app->cfg.json)
        cu_report_json(app, doc);
    else
        json_decref(doc);
out:
    cu_mirror_free(m);
    cu_facts_free(facts);
    return rc;
}
