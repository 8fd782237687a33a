/* SPDX-License-Identifier: MIT */
/*
 * Choosing the driver: the branch and flavor that serve every GPU (data/driver/driver_generations.csv),
 * from the packages this distribution or NVIDIA's repository carries (driver_packages.csv).
 */
#include "config.h"

#include "core/resolve/driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/resolve/driver_distro.h"

static int
branch_of(const struct cu_version *v)
{
    return v->n ? (int)v->part[0] : 0;
}

/* The least driver of branch @b in NVIDIA's CUDA table: what the plan may count on. */
static bool
branch_version(const struct cu_catalog *cat, int b, struct cu_version *out)
{
    bool found = false;
    for (size_t i = 0; i < cat->n_cuda; i++) {
        const struct cu_version *d = &cat->cuda[i].driver;
        if (d->n && (int)d->part[0] == b && (!found || cu_version_cmp(d, out) < 0)) {
            *out = *d;
            found = true;
        }
    }
    return found;
}

enum cu_status
cu_drv_wish_check(const struct cu_drv_wish *w, struct cu_error *err)
{
    const char *d = w->driver;
    if (d && *d && strcmp(d, "auto") != 0 && strcmp(d, "keep") != 0 && strcmp(d, "none") != 0) {
        char *end;
        long b = strtol(d, &end, 10);
        if (end == d || b < 100 || b > 9999 ||
            (*end && strcmp(end, "-open") != 0 && strcmp(end, "-proprietary") != 0))
            return cu_error_set(err, CU_E_USAGE, 0,
                                _("--driver: '%s' is not auto, keep, none or a branch such as 580, 580-open or 580-proprietary."),
                                d);
    }
    if (w->source && *w->source && strcmp(w->source, "distro") != 0 && strcmp(w->source, "nvidia") != 0)
        return cu_error_set(err, CU_E_USAGE, 0, _("--driver-source: '%s' is not distro or nvidia."), w->source);
    return CU_OK;
}

/* Is @source one cudaup installs from (the distribution's archive, NVIDIA's repository)?  The others are
 * third-party repositories (the AUR, ELRepo) that a refusal names and cudaup never installs from. */
static bool
source_installs(const char *source)
{
    return strcmp(source, "distro") == 0 || strcmp(source, "nvidia") == 0;
}

/* What a refusal calls the third-party repository of row @r: its `distro` column (data/driver/SOURCES.md), but
 * for the AUR, whose row names the distribution it serves. */
static const char *
third_party_name(const struct cu_drv_pkg *r)
{
    return strcmp(r->source, "aur") == 0 ? _("the AUR") : r->distro;
}

/* Does row @p serve this distribution and release (a derivative's through the release it is built on)? */
static bool
row_matches(const struct cu_drv_pkg *p, const struct cu_facts *f, const struct cu_catalog *cat)
{
    struct cu_drv_distro ds;
    cu_drv_distro_find(f, cat->driver, &ds);
    return cu_drv_distro_serves(&ds, cat->driver, p);
}

int
cu_drv_nvswitch_count(const struct cu_facts *f, const struct cu_catalog *cat, const char **name)
{
    int n = 0;
    if (name)
        *name = NULL;
    for (size_t i = 0; f->drv && i < f->drv->nvidia_functions.n; i++) {
        unsigned long dev = 0, cls = 0;
        char *end;
        const char *fn = f->drv->nvidia_functions.v[i];
        dev = strtoul(fn, &end, 16);
        cls = strtoul(end, NULL, 16);
        const struct cu_drv_nvswitch *sw = cu_drv_nvswitch_for(cat->driver, 0x10de, (unsigned)dev, (unsigned)cls);
        if (sw) {
            if (name && !*name)
                *name = sw->name;
            n++;
        }
    }
    return n;
}

bool
cu_drv_nvlink5_possible(const struct cu_facts *f, const struct cu_catalog *cat)
{
    char b[32];
    for (size_t k = 0; cat->driver && k < cat->driver->n_nvswitch_vpd; k++)
        for (size_t g = 0; g < f->n_gpus; g++)
            for (char **cc = cat->driver->nvswitch_vpd[k].gpu_cc; f->gpus[g].cc.n && cc && *cc; cc++)
                if (strcmp(*cc, cu_version_format(&f->gpus[g].cc, 2, b, sizeof(b))) == 0)
                    return true;
    return false;
}

int
cu_drv_nvlink5_count(const struct cu_facts *f, const struct cu_catalog *cat, const struct cu_drv_nvswitch_vpd **row)
{
    int n = 0;
    if (row)
        *row = NULL;
    for (size_t i = 0; f->drv && cat->driver && i < f->drv->infiniband_vpd.n; i++) {
        const char *text = strchr(f->drv->infiniband_vpd.v[i], ' ');
        for (size_t k = 0; text && k < cat->driver->n_nvswitch_vpd; k++) {
            const struct cu_drv_nvswitch_vpd *m = &cat->driver->nvswitch_vpd[k];
            if (strcmp(m->kind, "ib-vpd") == 0 && strstr(text, m->mark)) {
                if (row && !*row)
                    *row = m;
                n++;
                break;
            }
        }
    }
    return n;
}

/* Does @r carry the NVLink Subnet Manager at one of its branches (or @branch, when not 0)? */
static bool
row_has_nvlsm(const struct cu_catalog *cat, const struct cu_drv_pkg *r, int branch)
{
    for (size_t k = 0; k < r->n_branches; k++)
        if ((!branch || r->branches[k] == branch) && cu_drv_nvlsm_for(cat->driver, r, r->branches[k]))
            return true;
    return false;
}

/* Can @r serve this machine: its kernel meta, and the fabric manager where NVSwitch bridges need one (with
 * the NVLink Subnet Manager on a fourth-generation board, @nvlsm)? */
static const char *
row_fits(const struct cu_drv_pkg *r, const struct cu_facts *f, const struct cu_catalog *cat, int nvswitch, bool nvlsm,
         bool *fits)
{
    const char *km = cu_drv_row_kernel(r, cu_drv_kernel_meta(f));
    bool needs_km = false;
    const char *const *lists[] = {(const char *const *)r->packages, (const char *const *)r->signed_modules,
                                  (const char *const *)r->headers};
    for (size_t l = 0; l < CU_N_ELEMENTS(lists); l++)
        for (const char *const *t = lists[l]; t && *t; t++)
            needs_km |= strstr(*t, "{KM}") != NULL;
    *fits = (km || (!needs_km && strcmp(r->kernels[0], "*") == 0)) &&
            (nvswitch || nvlsm ? r->fabricmanager[0] != NULL : !r->variant) && (!nvlsm || row_has_nvlsm(cat, r, 0));
    return km;
}

static struct cu_drv_plan *
plan_new(const char *action)
{
    struct cu_drv_plan *p = cu_xcalloc(1, sizeof(*p));
    p->action = cu_xstrdup(action);
    cu_strv_init(&p->packages);
    cu_strv_init(&p->pin_packages);
    cu_strv_init(&p->reasons);
    cu_strv_init(&p->fabricmanager);
    cu_strv_init(&p->nvlsm);
    cu_strv_init(&p->reason_sources);
    return p;
}

void
cu_drv_plan_free(struct cu_drv_plan *p)
{
    if (!p)
        return;
    free(p->action);
    free(p->flavor);
    free(p->manager);
    free(p->source);
    free(p->distro);
    free(p->os);
    free(p->base);
    free(p->codename);
    cu_strv_fini(&p->packages);
    cu_strv_fini(&p->pin_packages);
    free(p->pin);
    free(p->pin_file);
    free(p->pin_kind);
    free(p->pin_version);
    free(p->module_stream);
    free(p->repo);
    free(p->components);
    free(p->suites);
    free(p->initramfs);
    free(p->secure_boot);
    free(p->mok_key);
    free(p->mok_cert);
    free(p->firstboot_command);
    free(p->firstboot_state);
    cu_strv_fini(&p->reasons);
    cu_strv_fini(&p->reason_sources);
    free(p->refusal);
    free(p->advice);
    free(p->kernel_meta);
    cu_strv_fini(&p->fabricmanager);
    cu_strv_fini(&p->nvlsm);
    free(p->fabricmanager_service);
    for (size_t i = 0; i < p->n_steps; i++)
        cu_drv_step_fini(&p->steps[i]);
    free(p->steps);
    free(p);
}

/* A reason, its English twin noted for the log, and the data it rests on (NULL: none): the source goes
 * beside the reason (-v, JSON provenance, the log), never into its sentence (issue 35, item 5). */
static void
reason_v(struct cu_drv_plan *p, const char *source, const char *fmt, va_list ap) CU_PRINTF(3, 0);
static void
reason_v(struct cu_drv_plan *p, const char *source, const char *fmt, va_list ap)
{
    cu_i18n_push_noted(&p->reasons, fmt, ap);
    cu_strv_push(&p->reason_sources, source ? source : "");
}

static void
reason(struct cu_drv_plan *p, const char *fmt, ...) CU_PRINTF(2, 3);
static void
reason(struct cu_drv_plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reason_v(p, NULL, fmt, ap);
    va_end(ap);
}

static void
reason_src(struct cu_drv_plan *p, const char *source, const char *fmt, ...) CU_PRINTF(3, 4);
static void
reason_src(struct cu_drv_plan *p, const char *source, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reason_v(p, source, fmt, ap);
    va_end(ap);
}

const char *
cu_drv_secure_boot_word(const char *sb)
{
    if (!sb)
        return "";
    return strcmp(sb, "signed") == 0 ? _("on, the distribution's signed modules")
           : strcmp(sb, "mok") == 0  ? _("on, DKMS's key to enrol after the reboot")
           : strcmp(sb, "off") == 0  ? _("off")
                                     : sb;
}

static struct cu_drv_plan *
refuse(struct cu_drv_plan *p, char *sentence, char *advice)
{
    free(p->action);
    p->action = cu_xstrdup("refuse");
    p->refusal = sentence;
    p->advice = advice;
    return p;
}

/* What every GPU here asks of the driver. */
struct needs {
    bool open_ok, prop_ok, prefer_open;
    bool nvlsm;             /* a fourth-generation NVSwitch board: the source must carry the NVLink Subnet Manager */
    int lo, hi;             /* branches lo..hi (hi 0: open) */
    char open_only[256], prop_only[256]; /* a GPU that needs one flavor */
    char lo_why[256], hi_why[256];
};

static const char *
vs(const struct cu_version *v, char *b, size_t n)
{
    return cu_version_format(v, 0, b, n);
}

/* Fill @n from the GPUs; NULL on success, else the refusal sentence (caller frees). */
static char *
gpu_needs(const struct cu_drv_in *in, struct cu_drv_plan *p, struct needs *n)
{
    const struct cu_facts *f = in->facts;
    char b1[32], b2[32];
    *n = (struct needs){.open_ok = true, .prop_ok = true, .prefer_open = true};
    for (size_t i = 0; i < f->n_gpus; i++) {
        const struct cu_gpu_info *g = &f->gpus[i];
        const struct cu_drv_gen *gen = g->cc.n ? cu_drv_gen_for_cc(in->cat->driver, &g->cc) : NULL;
        if (!gen)
            return g->cc.n ? cu_xasprintf(_("cudaup's driver data names no driver for GPU %d (%s, compute capability %s)."),
                                          g->index, g->name, vs(&g->cc, b1, sizeof(b1)))
                           : cu_xasprintf(_("cudaup does not know GPU %d (%s, PCI id %s), so it cannot choose a driver for it."),
                                          g->index, g->name, g->pci_id);
        int floor = gen->branch_min;
        struct cu_version first, drv;
        if (cu_catalog_cuda_first_for_cc(in->cat, &g->cc, &first) && cu_catalog_cuda_min_driver(in->cat, &first, &drv) &&
            branch_of(&drv) > floor)
            floor = branch_of(&drv);
        if (!gen->proprietary)
            snprintf(n->open_only, sizeof(n->open_only), "%s (%s)", g->name, gen->generation);
        if (!gen->open)
            snprintf(n->prop_only, sizeof(n->prop_only), "%s (%s)", g->name, gen->generation);
        n->open_ok &= gen->open;
        n->prop_ok &= gen->proprietary;
        n->prefer_open &= strcmp(gen->preferred, "open") == 0;
        if (floor > n->lo) {
            n->lo = floor;
            snprintf(n->lo_why, sizeof(n->lo_why), "%s (%s)", g->name, gen->generation);
        }
        if (gen->branch_last && (!n->hi || gen->branch_last < n->hi)) {
            n->hi = gen->branch_last;
            snprintf(n->hi_why, sizeof(n->hi_why), "%s (%s)", g->name, gen->generation);
        }
        struct cu_buf fl;
        cu_buf_init(&fl);
        cu_buf_puts(&fl, gen->open && gen->proprietary ? _("open (recommended) or proprietary kernel modules")
                         : gen->open                   ? _("open kernel modules only")
                                                       : _("proprietary kernel modules only"));
        if (floor)
            cu_buf_printf(&fl, _(", branch %d or newer"), floor);
        if (gen->branch_last)
            cu_buf_printf(&fl, _(", branch %d at the newest (its last)"), gen->branch_last);
        CU_AUTOFREE char *src = cu_xasprintf("%s (%s)", gen->source, gen->confidence);
        reason_src(p, src, _("GPU %d (%s, compute capability %s, %s): %s."), g->index, g->name,
                   vs(&g->cc, b2, sizeof(b2)), gen->generation, fl.data);
        cu_buf_fini(&fl);
    }
    if (!n->open_ok && !n->prop_ok)
        return cu_xasprintf(_("No driver serves every GPU here: %s runs only with the open kernel modules, %s only with the proprietary ones, and a machine loads one flavor."),
                            n->open_only, n->prop_only);
    if (n->hi && n->lo > n->hi)
        return cu_xasprintf(_("No driver branch serves every GPU here: %s needs branch %d or newer, and %s ends with branch %d."),
                            n->lo_why, n->lo, n->hi_why, n->hi);
    return NULL;
}

/* Is the driver loaded now fit for every GPU?  NULL when it is, else why not (caller frees). */
static char *
current_unfit(const struct cu_drv_in *in, const struct needs *n)
{
    const struct cu_facts *f = in->facts;
    const struct cu_driver_info *d = &f->driver;
    char b[32];
    if (d->kind == CU_DRIVER_NOUVEAU || (f->drv && f->drv->nouveau_bound))
        return cu_xstrdup(_("nouveau holds the GPU"));
    if (d->kind != CU_DRIVER_NVIDIA || !d->version.n)
        return cu_xstrdup(d->nvml_path || d->libcuda_path ? _("the driver's libraries are installed, but no NVIDIA kernel module runs")
                                                          : _("no NVIDIA driver is installed"));
    int br = branch_of(&d->version);
    cu_driver_version_format(&d->version, b, sizeof(b));
    if (br < n->lo)
        return cu_xasprintf(_("driver %s is older than branch %d, which %s needs"), b, n->lo, n->lo_why);
    if (n->hi && br > n->hi)
        return cu_xasprintf(_("driver %s is newer than branch %d, the last that supports %s"), b, n->hi, n->hi_why);
    const char *fl = f->drv ? f->drv->flavor : NULL;
    if (fl && strcmp(fl, "open") == 0 && !n->open_ok)
        return cu_xasprintf(_("driver %s runs the open kernel modules, which do not support a GPU here"), b);
    if (fl && strcmp(fl, "proprietary") == 0 && !n->prop_ok)
        return cu_xasprintf(_("driver %s runs the proprietary kernel modules, which do not support a GPU here"), b);
    if (!d->libcuda_path)
        return cu_xasprintf(_("driver %s's kernel module runs, but its libcuda.so.1 is not installed"), b);
    return NULL;
}

struct pick {
    const struct cu_drv_pkg *row;
    int branch;
};

/* The best (row, branch) of @source (NULL: of any third-party source): the preferred flavor, then the newest branch. */
static struct pick
best_of(const struct cu_drv_in *in, const struct needs *n, const char *source, int want_branch, const char *want_flavor,
        const struct cu_version *cuda_need)
{
    const struct cu_drv_data *d = in->cat->driver;
    struct pick best = {NULL, 0};
    const char *pref = n->prefer_open && n->open_ok ? "open" : n->prop_ok ? "proprietary" : "open";
    int nvswitch = cu_drv_nvswitch_count(in->facts, in->cat, NULL);
    for (size_t i = 0; i < d->n_pkgs; i++) {
        const struct cu_drv_pkg *r = &d->pkgs[i];
        bool fits;
        if ((source ? strcmp(r->source, source) != 0 : source_installs(r->source)) || !row_matches(r, in->facts, in->cat))
            continue;
        row_fits(r, in->facts, in->cat, source_installs(r->source) ? nvswitch : 0, source_installs(r->source) && n->nvlsm,
                 &fits);
        if (!fits)
            continue;
        bool open = strcmp(r->flavor, "open") == 0;
        if ((open && !n->open_ok) || (!open && !n->prop_ok) || (want_flavor && strcmp(want_flavor, r->flavor) != 0))
            continue;
        for (size_t k = 0; k < r->n_branches; k++) {
            int b = r->branches[k];
            struct cu_version bv;
            const struct cu_drv_branch *bi = cu_drv_branch_for(d, b);
            if (b < n->lo || (n->hi && b > n->hi) || (want_branch && b != want_branch) ||
                (n->nvlsm && strcmp(source, "aur") != 0 && !cu_drv_nvlsm_for(d, r, b)) ||
                (bi && !(open ? bi->open : bi->proprietary))) /* 615 and later: open modules only */
                continue;
            if (cuda_need && cuda_need->n &&
                (!branch_version(in->cat, b, &bv) || cu_version_cmp(&bv, cuda_need) < 0))
                continue;
            bool better = !best.row;
            if (!better) {
                /* The preferred flavor, then the newest branch, then a row made for this kernel over one for any. */
                bool bp = strcmp(best.row->flavor, pref) == 0, rp = strcmp(r->flavor, pref) == 0;
                bool bk = strcmp(best.row->kernels[0], "*") != 0, rk = strcmp(r->kernels[0], "*") != 0;
                better = (rp && !bp) || (rp == bp && b > best.branch) || (rp == bp && b == best.branch && rk && !bk);
            }
            if (better)
                best = (struct pick){r, b};
        }
    }
    return best;
}

const struct cu_drv_pkg *
cu_drv_row_for(const struct cu_facts *f, const struct cu_catalog *cat, int branch, const char *flavor)
{
    const struct cu_drv_pkg *any = NULL, *distro = NULL;
    int nvswitch = cu_drv_nvswitch_count(f, cat, NULL);
    bool nvlsm = cu_drv_nvlink5_count(f, cat, NULL) > 0;
    for (size_t i = 0; cat->driver && i < cat->driver->n_pkgs; i++) {
        const struct cu_drv_pkg *r = &cat->driver->pkgs[i];
        bool fits;
        if (!source_installs(r->source) || !row_matches(r, f, cat) || (flavor && strcmp(r->flavor, flavor) != 0))
            continue;
        row_fits(r, f, cat, nvswitch, nvlsm, &fits);
        if (!fits)
            continue;
        bool specific = strcmp(r->kernels[0], "*") != 0; /* the row made for this kernel first */
        for (size_t k = 0; k < r->n_branches; k++) {
            if ((r->branches[k] != branch && branch) || (nvlsm && !cu_drv_nvlsm_for(cat->driver, r, r->branches[k])))
                continue;
            if (strcmp(r->source, "distro") == 0 && (!distro || (specific && strcmp(distro->kernels[0], "*") == 0)))
                distro = r;
            else if (!any)
                any = r;
        }
    }
    return distro ? distro : any;
}

static void
fill_install(const struct cu_drv_in *in0, struct cu_drv_plan *p, const struct pick *k)
{
    const struct cu_drv_pkg *r = k->row;
    /* A row that serves a derivative through its base is expanded as on the base ({V}, {VN}: NVIDIA's ubuntu2404
     * repository on Linux Mint 22, not "ubuntu22"); the derivative's own name stays for what the plan says. */
    struct cu_drv_distro ds0;
    cu_drv_distro_find(in0->facts, in0->cat->driver, &ds0);
    struct cu_facts base_facts = *in0->facts;
    struct cu_drv_in in_base = *in0;
    CU_AUTOFREE char *base_id = NULL, *base_version = NULL;
    if (cu_drv_distro_via_base(&ds0, r)) {
        base_facts.os.id = base_id = cu_xstrdup(ds0.base_id);
        base_facts.os.version_id = base_version = cu_xstrdup(ds0.base_version);
        in_base.facts = &base_facts;
    }
    const struct cu_drv_in *in = &in_base;
    const struct cu_facts *f = in->facts;
    const struct cu_drv_state *s = f->drv;
    const char *km = cu_drv_row_kernel(r, cu_drv_kernel_meta(f));
    const char *swname = NULL;
    char b1[32];
    p->branch = k->branch;
    p->flavor = cu_xstrdup(r->flavor);
    p->manager = cu_xstrdup(r->manager);
    p->source = cu_xstrdup(r->source);
    p->distro = cu_xstrdup(r->distro);
    const struct cu_drv_distro ds = ds0;
    const struct cu_facts *mf = in0->facts; /* the machine's own os-release, for what the plan says */
    p->os = cu_drv_distro_name(&ds, mf);
    p->base = ds.base ? cu_xstrdup(ds.base->name) : NULL;
    if (ds.base) { /* what the summary says the driver comes from: "Linux Mint 22 (Ubuntu 24.04 base)" */
        free(p->distro);
        p->distro = cu_xstrdup(p->os);
    }
    const char *code = cu_drv_distro_codename(&ds, mf);
    p->codename = code ? cu_xstrdup(code) : NULL;
    if (ds.base) {
        /* A derivative: say which os-release fields named the release it is built on, and whose packages these are. */
        const char *own = mf->os.pretty_name ? mf->os.pretty_name : mf->os.id;
        const char *like = cu_drv_state_os_value(mf->drv, "ID_LIKE"), *named = cu_drv_state_os_value(mf->drv, ds.base_key);
        CU_AUTOFREE char *bsrc = cu_xasprintf("%s (%s)", ds.base->ref, ds.base->confidence);
        if (cu_drv_distro_via_base(&ds, r))
            reason_src(p, bsrc, _("%s is built on %s (its os-release: ID_LIKE=%s, %s=%s), so the driver comes from %s's packages, as on %s itself."),
                       own, ds.base->name, like, ds.base_key, named, ds.base->name, ds.base->name);
        else
            reason_src(p, bsrc, _("%s is built on %s (its os-release: ID_LIKE=%s, %s=%s). The driver comes from %s's own packages (%s), which take precedence over %s's of the same names; the packages they depend on come from %s's archive."),
                       own, ds.base->name, like, ds.base_key, named, own,
                       ds.self && ds.self->own_repository ? ds.self->own_repository : r->distro, ds.base->name,
                       ds.base->name);
    }
    p->pin_kind = cu_xstrdup(r->pin);
    p->kernel_meta = km ? cu_xstrdup(km) : NULL;
    p->nvswitch = cu_drv_nvswitch_count(f, in->cat, &swname);
    const struct cu_drv_nvswitch_vpd *vpd = NULL;
    p->nvlink5 = cu_drv_nvlink5_count(f, in->cat, &vpd);
    const struct cu_drv_nvlsm *lsm = p->nvlink5 ? cu_drv_nvlsm_for(in->cat->driver, r, k->branch) : NULL;
    const struct cu_drv_branch *bi = cu_drv_branch_for(in->cat->driver, k->branch);
    bool from_table = false;
    if (r->version.n && (int)r->version.part[0] == k->branch)
        p->version = r->version;
    else if (branch_version(in->cat, k->branch, &p->version))
        from_table = true;
    else if (bi && bi->release.n)
        p->version = bi->release;
    else
        p->version = (struct cu_version){{(uint32_t)k->branch}, 1};
    /* What it installs: NVIDIA's pinning package first, the driver and its prebuilt modules, the headers DKMS
     * builds with, the fabric manager. */
    if (strcmp(r->pin, "nvidia pinning package") == 0)
        for (char **t = r->pin_packages; *t; t++)
            cu_strv_push_owned(&p->packages, cu_drv_expand_km(*t, k->branch, f, km));
    for (char **t = r->packages; *t; t++)
        cu_strv_push_owned(&p->packages, cu_drv_expand_km(*t, k->branch, f, km));
    for (char **t = r->signed_modules; *t; t++) {
        CU_AUTOFREE char *x = cu_drv_expand_km(*t, k->branch, f, km);
        if (!cu_strv_contains(&p->packages, x))
            cu_strv_push(&p->packages, x);
    }
    for (char **t = r->headers; *t; t++)
        cu_strv_push_owned(&p->packages, cu_drv_expand_km(*t, k->branch, f, km));
    if (p->nvswitch || p->nvlink5) {
        for (char **t = r->fabricmanager; *t; t++) {
            cu_strv_push_owned(&p->fabricmanager, cu_drv_expand_km(*t, k->branch, f, km));
            cu_strv_push(&p->packages, p->fabricmanager.v[p->fabricmanager.n - 1]);
        }
        p->fabricmanager_service = r->fabricmanager_service ? cu_xstrdup(r->fabricmanager_service) : NULL;
    }
    for (char **t = lsm ? lsm->packages : NULL; t && *t; t++) { /* the fabric manager starts the subnet manager first */
        cu_strv_push_owned(&p->nvlsm, cu_drv_expand_km(*t, k->branch, f, km));
        cu_strv_push(&p->packages, p->nvlsm.v[p->nvlsm.n - 1]);
    }
    for (char **t = r->pin_packages; *t; t++)
        cu_strv_push_owned(&p->pin_packages, cu_drv_expand_km(*t, k->branch, f, km));
    if (r->module_stream)
        p->module_stream = cu_drv_expand_km(r->module_stream, k->branch, f, km);
    if (r->repo)
        p->repo = cu_drv_expand_km(r->repo, k->branch, f, km);
    p->components = r->components ? cu_xstrdup(r->components) : NULL;
    p->suites = r->suites ? cu_xstrdup(r->suites) : NULL;
    p->initramfs = r->initramfs ? cu_xstrdup(r->initramfs) : NULL;
    CU_AUTOFREE char *src = cu_xasprintf("%s (%s)", r->ref, r->confidence);
    reason_src(p, src, _("Branch %d, %s kernel modules, from %s (%s): the newest branch there that serves every GPU here."),
               k->branch, cu_drv_flavor_word(r->flavor), strcmp(r->source, "distro") == 0 ? r->distro : _("NVIDIA's repository"),
               r->manager);
    if (r->version.n && !from_table && p->version.n > 1 && cu_version_cmp(&p->version, &r->version) == 0)
        reason(p, _("It is release %s there, and runs every CUDA whose driver floor is that or lower (NVIDIA's CUDA toolkit driver table)."),
               cu_driver_version_format(&p->version, b1, sizeof(b1)));
    else if (from_table)
        reason(p, _("The plan counts on %s, the branch's first release in NVIDIA's CUDA toolkit driver table, and the CUDA releases it runs."),
               cu_driver_version_format(&p->version, b1, sizeof(b1)));
    else if (p->version.n > 1)
        reason_src(p, bi ? bi->source : NULL,
                   _("No CUDA toolkit in cudaup's table names a driver of branch %d, so the plan counts on %s, the oldest release of it the branch table names, and the CUDA releases it runs."),
                   k->branch, cu_driver_version_format(&p->version, b1, sizeof(b1)));
    else
        reason(p, _("No source cudaup has names a release of branch %d: the plan counts on the branch, and the CUDA releases a driver of it runs."),
               k->branch);
    if (bi) {
        CU_AUTOFREE char *bsrc = cu_xasprintf("%s (%s)", bi->source, bi->confidence);
        if (bi->end_of_life)
            reason_src(p, bsrc, _("NVIDIA designates branch %d a %s, supported until %s."), k->branch, bi->designation,
                       bi->end_of_life);
        else
            reason_src(p, bsrc, _("NVIDIA designates branch %d a %s; cudaup's branch table has no end of life for it."),
                       k->branch, bi->designation);
    }
    if (km && strcmp(r->kernels[0], "*") != 0)
        reason(p, _("The kernel modules follow the kernel meta package %s: each kernel update brings their build for it."), km);
    else if (r->headers[0])
        reason(p, _("The module is built here with DKMS, for the kernel that the kernel meta packages bring (%s), so it is there for the kernel the next boot runs and for each kernel update."),
               km ? km : _("the running kernel's"));
    if (p->nvswitch)
        reason(p, _("%d NVSwitch bridges (%s) connect the GPUs: CUDA needs NVIDIA's fabric manager running there (else error 802, \"system not yet initialized\"), so the plan installs %s of the same branch and enables its service."),
               p->nvswitch, swname ? swname : "NVSwitch", p->fabricmanager.n ? p->fabricmanager.v[0] : "?");
    if (vpd && lsm) {
        CU_AUTOFREE char *fm = cu_strv_join(&p->fabricmanager, " ");
        CU_AUTOFREE char *lsms = cu_strv_join(&p->nvlsm, " ");
        CU_AUTOFREE char *lsrc = cu_xasprintf("%s (%s); %s (%s)", vpd->ref, vpd->confidence, lsm->ref, lsm->confidence);
        reason_src(p, lsrc, _("This is a fourth-generation NVSwitch board (HGX/DGX B200, B100 or later): %d InfiniBand ports of its ConnectX-7 carry the NVSwitch management mark %s in their VPD. CUDA needs NVIDIA's fabric manager running there, and the fabric manager needs NVIDIA's NVLink Subnet Manager running before it (else CUDA fails with CUDA_ERROR_SYSTEM_NOT_READY), so the plan installs %s with %s and enables %s; the kernel modules mlx5_core and ib_umad must be loaded for them."),
                   p->nvlink5, vpd->mark, fm, lsms, p->fabricmanager_service ? p->fabricmanager_service : "?");
        if (strcmp(r->pin, "nvidia pinning package") == 0)
            reason(p, _("The pinning package holds the packages of NVIDIA's repository that carry the driver's release to branch %d; the NVLink Subnet Manager has releases of its own."),
                   k->branch);
        else if (strcmp(r->pin, "dnf module") == 0)
            reason(p, _("The module stream holds the driver and the fabric manager to branch %d; the NVLink Subnet Manager's packages lie outside the stream."),
                   k->branch);
    }
    p->nvlink5_unread = f->drv ? f->drv->infiniband_vpd_unread : 0;
    if (!p->nvswitch && !p->nvlink5 && p->nvlink5_unread && cu_drv_nvlink5_possible(f, in->cat))
        reason(p, _("The VPD of %d InfiniBand devices here could not be read (only root may read it), so cudaup cannot tell whether this is a fourth-generation NVSwitch board (HGX/DGX B200 or later), which needs NVIDIA's fabric manager and NVLink Subnet Manager: this plan has neither. Run cudaup as root (sudo) to plan for such a board."),
               p->nvlink5_unread);
    /* How the branch is held, so that the next upgrade neither crosses a GPU's last branch nor changes flavor. */
    struct cu_drv_step *ps = cu_drv_pin_step(r, k->branch, f);
    if (ps && ps->text) {
        CU_AUTOFREE char *pinned = cu_strv_join(&p->pin_packages, " ");
        p->pin_version = cu_drv_pin_version(r, k->branch, f);
        p->pin = cu_xasprintf("Pin: version %s (%s)", p->pin_version, pinned);
        p->pin_file = cu_xstrdup(ps->path); /* apart, so that the sentence around them is the user's language */
    } else {
        p->pin = ps ? cu_drv_step_line(ps) : cu_xstrdup("none");
    }
    cu_drv_step_free(ps);
    if (strcmp(p->pin, "none") == 0)
        reason(p, _("%s has no branch lock in its package manager; the next upgrade may bring a newer branch, which serves these GPUs too (none has a last branch)."),
               r->distro);
    else if (p->pin_file)
        reason(p, _("Held with `%s` in %s: the next upgrade stays on branch %d and the %s flavor."), p->pin, p->pin_file,
               k->branch, cu_drv_flavor_word(r->flavor));
    else
        reason(p, _("Held with `%s`: the next upgrade stays on branch %d and the %s flavor."), p->pin, k->branch,
               cu_drv_flavor_word(r->flavor));
    /* Secure Boot. */
    if (s && s->image && s->secure_boot != 1) {
        /* An image: the machine it boots on may have Secure Boot on, which no unit can answer (MokManager needs the
         * console).  The distribution's signed modules load either way; DKMS's need its key enrolled there. */
        p->secure_boot = cu_xstrdup(r->signed_modules[0] ? "signed" : "off");
        if (r->signed_modules[0]) {
            reason(p, _("The machine the image boots on may have Secure Boot on: %s brings modules the distribution signed, so no key needs enrolling."), r->distro);
        } else {
            p->mok_key = r->mok_key ? cu_xstrdup(r->mok_key) : NULL;
            p->mok_cert = r->mok_cert ? cu_xstrdup(r->mok_cert) : NULL;
            reason(p, _("%s's modules are built by DKMS and signed with its key (%s): where the image boots with Secure Boot on, that key must be enrolled at the console first (a unit cannot); the image's first boot records \"key enrolment needed\" with what to do."),
                   r->distro, r->mok_cert ? r->mok_cert : "?");
        }
    } else if (s && s->secure_boot == 1 && r->signed_modules[0]) {
        p->secure_boot = cu_xstrdup("signed");
        reason(p, _("Secure Boot is on: %s brings modules the distribution signed, so no key needs enrolling."), r->distro);
    } else if (s && s->secure_boot == 1) {
        p->secure_boot = cu_xstrdup("mok");
        p->mok_key = r->mok_key ? cu_xstrdup(r->mok_key) : NULL;
        p->mok_cert = r->mok_cert ? cu_xstrdup(r->mok_cert) : NULL;
        reason(p, _("Secure Boot is on and %s's modules are built here by DKMS: they are signed with DKMS's key (%s), which `mokutil --import %s` queues for enrolment with a one-time password you type; after the reboot, the blue MokManager screen asks for it (Enroll MOK, Continue, Yes, the password, Reboot)."),
               r->distro, r->mok_key ? r->mok_key : "?", r->mok_cert ? r->mok_cert : "?");
    } else {
        p->secure_boot = cu_xstrdup("off");
        reason(p, s && s->secure_boot == 0 ? _("Secure Boot is off: any module loads.")
                                           : _("No Secure Boot variable (BIOS boot, or not visible): nothing to sign."));
    }
    p->blacklist_nouveau = s && s->nouveau_bound;
    if (p->blacklist_nouveau)
        reason(p, _("nouveau holds the GPU: cudaup blacklists it in /etc/modprobe.d and rebuilds the initramfs (%s)."),
               p->initramfs ? p->initramfs : "-");
    p->reboot = p->blacklist_nouveau || strcmp(p->secure_boot, "mok") == 0 || f->driver.kernel_module ||
                f->driver.kind == CU_DRIVER_NVIDIA;
    /* Whether the install brings a newer kernel than the running one is the archive's, known only when it runs:
     * kernel metas (the module packages that follow one, or the image and headers metas DKMS builds for) take
     * the archive's newest ABI, and a pacman upgrade is a full one.  The module is then for that kernel, modprobe
     * fails and the install stops for a reboot (exit 5): the plan says it may, not that it will not. */
    bool new_kernel = km || r->headers[0] || strcmp(r->manager, "pacman") == 0;
    p->reboot_may = !p->reboot && new_kernel;
    if (p->reboot)
        reason(p, _("A reboot will be needed: cudaup stops there (exit 5) and carries on when run again."));
    else if (new_kernel)
        reason(p, _("No other driver holds the GPU, so cudaup loads the module with modprobe after the install. A reboot may still be needed: when the packages bring a newer kernel than the running one (%s), the module is there for that kernel only, modprobe fails, and cudaup stops for a reboot (exit 5) and carries on when run again."),
               s && s->kernel_release ? s->kernel_release : "?");
    else
        reason(p, _("No reboot is needed: no other driver holds the GPU, so cudaup loads the module with modprobe."));
    cu_drv_steps_build(in, p, r, km);
    cu_drv_steps_tools(in, p); /* what the steps' own commands need (mokutil) joins the transaction */
}

/* The first CUDA that builds for @cc, in *@first, where that is not the oldest CUDA cudaup knows (a GPU older than
 * the catalog, a GTX 970 of CUDA 6.5, has no floor from it). */
static bool
newer_than_catalog(const struct cu_catalog *cat, const struct cu_version *cc, struct cu_version *first)
{
    struct cu_version oldest;
    return cu_catalog_cuda_first_for_cc(cat, cc, first) && cu_catalog_cuda_oldest(cat, &oldest) &&
           cu_version_cmp(&oldest, first) < 0;
}

struct cu_drv_plan *
cu_drv_choose(const struct cu_drv_in *in)
{
    const struct cu_facts *f = in->facts;
    const struct cu_drv_wish *w = in->wish;
    const char *mode = w->driver && *w->driver ? w->driver : "auto";
    struct cu_drv_plan *p;
    struct needs n;
    char b1[32];

    if (f->container.inside) { /* the host's driver serves it, whatever --driver says (driver_container.c) */
        p = plan_new("keep");
        p->container = true;
        if (f->driver.kind == CU_DRIVER_NVIDIA || f->driver.kind == CU_DRIVER_WSL)
            p->host = f->driver.version;
        p->host_libs = f->driver.libcuda_path != NULL;
        char *sentence = NULL, *advice = NULL;
        if (cu_drv_container(f, mode, &p->reasons, &sentence, &advice))
            refuse(p, sentence, advice);
        while (p->reason_sources.n < p->reasons.n)
            cu_strv_push(&p->reason_sources, "");
        return p;
    }
    if (strcmp(mode, "keep") == 0 && f->driver.kind == CU_DRIVER_NVIDIA && f->driver.version.n) {
        /* --driver keep with a driver of a branch that cannot drive a GPU here, by the generation's own first or
         * last branch (an RTX 5090 on R550, a K80 on R535): nothing would run on that GPU, so that is the answer,
         * not a plan.  Where no branch serves every GPU, keeping the driver is the way (it serves those it can). */
        struct cu_drv_plan *scratch = plan_new("keep");
        char *conflict = gpu_needs(in, scratch, &n);
        cu_drv_plan_free(scratch);
        int br = branch_of(&f->driver.version);
        char *why = NULL;
        cu_driver_version_format(&f->driver.version, b1, sizeof(b1));
        for (size_t i = 0; !why && i < f->n_gpus; i++) {
            const struct cu_gpu_info *g = &f->gpus[i];
            const struct cu_drv_gen *gen = g->cc.n ? cu_drv_gen_for_cc(in->cat->driver, &g->cc) : NULL;
            struct cu_version first, need;
            if (gen && gen->branch_min && br < gen->branch_min)
                why = cu_xasprintf(_("--driver keep: driver %s is older than branch %d, the first that supports GPU %d (%s, %s), so it cannot drive that GPU."),
                                   b1, gen->branch_min, g->index, g->name, gen->generation);
            else if (g->cc.n && newer_than_catalog(in->cat, &g->cc, &first) &&
                     cu_catalog_cuda_min_driver(in->cat, &first, &need) && cu_version_cmp(&f->driver.version, &need) < 0)
                /* The GPU came after the oldest CUDA cudaup knows: a driver older than the first CUDA that builds for
                 * it predates the GPU (an L4 on R470, an RTX 3060 on 450.80.02). */
                why = cu_xasprintf(_("--driver keep: driver %s is older than %s, the driver of CUDA %s, the first CUDA that builds for GPU %d (%s, compute capability %s): it predates that GPU, so it cannot drive it."),
                                   b1, cu_driver_version_format(&need, (char[32]){0}, 32),
                                   vs(&first, (char[32]){0}, 32), g->index, g->name, vs(&g->cc, (char[32]){0}, 32));
            else if (gen && gen->branch_last && br > gen->branch_last)
                why = cu_xasprintf(_("--driver keep: driver %s is newer than branch %d, the last that supports GPU %d (%s, %s), so it cannot drive that GPU."),
                                   b1, gen->branch_last, g->index, g->name, gen->generation);
        }
        if (why && conflict) {
            /* No branch serves every GPU either: say both, and what one driver can do. */
            char *both = cu_xasprintf("%s %s", why, conflict);
            free(why);
            free(conflict);
            return refuse(plan_new("install"), both,
                          cu_xstrdup(_("Use GPUs of generations one driver serves together (see `cudaup doctor`).")));
        }
        free(conflict);
        if (why)
            return refuse(plan_new("install"), why,
                          cu_xstrdup(_("Use --driver auto: it installs a branch that serves every GPU here, and the machine must reboot before the rest.")));
    }
    if (strcmp(mode, "keep") == 0 || strcmp(mode, "none") == 0) {
        p = plan_new("keep");
        reason(p, strcmp(mode, "keep") == 0 ? _("The driver is left as it is (--driver keep).")
                                            : _("No driver is planned (--driver none)."));
        return p;
    }
    if (f->os.wsl) {
        p = plan_new("keep");
        reason(p, _("WSL2: the driver is the Windows one; nothing to install inside Linux."));
        return p;
    }
    if (f->n_gpus == 0) {
        p = plan_new("keep");
        reason(p, _("No NVIDIA GPU was found, so no driver is planned."));
        return p;
    }
    p = plan_new("install");
    char *why = gpu_needs(in, p, &n);
    const struct cu_drv_nvswitch_vpd *vpd = NULL;
    n.nvlsm = cu_drv_nvlink5_count(f, in->cat, &vpd) > 0;
    if (why) {
        p->keep_may_do = true; /* installers/driver.c tries --driver keep before it advises it */
        bool unknown = false; /* a GPU cudaup's tables do not name: no conflict of generations to blame */
        for (size_t i = 0; i < f->n_gpus; i++)
            unknown |= !f->gpus[i].cc.n;
        return refuse(p, why, cu_xstrdup(unknown ? _("Install your distribution's newest NVIDIA driver by hand and run cudaup again: the loaded driver reports the GPU's compute capability, which cudaup then plans for.")
                                                 : _("Use GPUs of generations one driver serves together (see `cudaup doctor`).")));
    }
    int want_branch = 0;
    const char *want_flavor = NULL;
    if (strcmp(mode, "auto") != 0) {
        char *end;
        want_branch = (int)strtol(mode, &end, 10);
        want_flavor = *end ? end + 1 : NULL;
        if (want_flavor && strcmp(want_flavor, "open") == 0 && !n.open_ok)
            return refuse(p, cu_xasprintf(_("--driver %s: the open kernel modules do not support a GPU here."), mode),
                          cu_xasprintf(_("Use --driver %d-proprietary."), want_branch));
        if (want_flavor && strcmp(want_flavor, "proprietary") == 0 && !n.prop_ok)
            return refuse(p, cu_xasprintf(_("--driver %s: the proprietary kernel modules do not support a GPU here."), mode),
                          cu_xasprintf(_("Use --driver %d-open."), want_branch));
        if (want_branch < n.lo || (n.hi && want_branch > n.hi))
            return refuse(p, n.hi && want_branch > n.hi
                                 ? cu_xasprintf(_("--driver %s: branch %d is the last that supports %s."), mode, n.hi, n.hi_why)
                                 : cu_xasprintf(_("--driver %s: %s needs branch %d or newer."), mode, n.lo_why, n.lo),
                          cu_xstrdup(_("Use --driver auto: cudaup picks a branch that serves every GPU here.")));
        const struct cu_driver_info *d = &f->driver;
        if (d->kind == CU_DRIVER_NVIDIA && branch_of(&d->version) == want_branch && d->libcuda_path &&
            (!want_flavor || !f->drv || !f->drv->flavor || strcmp(want_flavor, f->drv->flavor) == 0)) {
            free(p->action);
            p->action = cu_xstrdup("keep");
            reason(p, _("Driver %s is of branch %d already, as asked."),
                   cu_driver_version_format(&d->version, b1, sizeof(b1)), want_branch);
            return p;
        }
    } else {
        CU_AUTOFREE char *unfit = current_unfit(in, &n);
        if (!unfit && !w->upgrade) {
            free(p->action);
            p->action = cu_xstrdup("keep");
            reason(p, _("Driver %s (%s) serves every GPU here, so cudaup leaves it as it is."),
                   cu_driver_version_format(&f->driver.version, b1, sizeof(b1)),
                   f->drv && f->drv->flavor ? cu_drv_flavor_word(f->drv->flavor) : _("flavor unknown"));
            return p;
        }
        if (!unfit) {
            /* The driver works, but the request needs a newer one: the same flavor, so that nothing
             * else about the machine changes. */
            const char *fl = f->drv ? f->drv->flavor : NULL;
            if (fl && ((strcmp(fl, "open") == 0 && n.open_ok) || (strcmp(fl, "proprietary") == 0 && n.prop_ok)))
                want_flavor = fl;
            reason(p, _("A newer driver is planned: driver %s serves every GPU here, but not this request: %s"),
                   cu_driver_version_format(&f->driver.version, b1, sizeof(b1)),
                   w->upgrade_why ? w->upgrade_why : "");
        } else {
            reason(p, _("A driver is planned: %s."), unfit);
        }
    }
    /* The CUDA the user named needs at least its driver floor. */
    struct cu_version cuda_need = {{0}, 0}, cv;
    if (w->cuda && *w->cuda && strcmp(w->cuda, "auto") != 0 && cu_version_parse(w->cuda, &cv) && cv.n >= 2)
        cu_catalog_cuda_min_driver(in->cat, &cv, &cuda_need);
    struct cu_drv_distro ds;
    cu_drv_distro_find(f, in->cat->driver, &ds);
    CU_AUTOFREE char *osn = cu_drv_distro_name(&ds, f);
    bool id_known = false;
    char *unknown = cu_drv_distro_refusal(f, in->cat->driver, &id_known);
    if (unknown)
        return refuse(p, unknown,
                      id_known ? cu_xstrdup(_("Install the NVIDIA driver yourself from your distribution's or NVIDIA's packages, reboot, then run cudaup again."))
                               : cu_xasprintf(_("Install the NVIDIA driver yourself from your distribution's packages (%s kernel modules, branch %d%s), reboot, then run cudaup again."),
                                              cu_drv_flavor_word(n.prefer_open && n.open_ok ? "open" : "proprietary"),
                                              n.hi ? n.hi : n.lo ? n.lo : 580, n.hi ? "" : _(" or newer")));
    bool nvidia_only = w->source && strcmp(w->source, "nvidia") == 0;
    bool distro_only = w->source && strcmp(w->source, "distro") == 0;
    struct pick k = {NULL, 0};
    if (!nvidia_only)
        k = best_of(in, &n, "distro", want_branch, want_flavor, &cuda_need);
    if (!k.row && !distro_only) {
        k = best_of(in, &n, "nvidia", want_branch, want_flavor, &cuda_need);
        struct needs plain = n;
        plain.nvlsm = false;
        if (k.row && !nvidia_only && n.nvlsm && best_of(in, &plain, "distro", want_branch, want_flavor, &cuda_need).row)
            reason(p, _("%s's own packages carry no NVLink Subnet Manager, which this board's fabric manager needs, so the driver comes from NVIDIA's repository (--driver-source nvidia)."),
                   osn);
        else if (k.row && !nvidia_only)
            reason(p, _("%s's own packages carry no branch that serves every GPU here%s, so the driver comes from NVIDIA's repository (--driver-source nvidia)."),
                   osn, cuda_need.n ? _(" and runs the CUDA asked for") : "");
    }
    if (!k.row && n.nvlsm) {
        struct pick nv = distro_only ? best_of(in, &n, "nvidia", want_branch, want_flavor, &cuda_need) : (struct pick){NULL, 0};
        const struct cu_drv_nvlsm *l = nv.row ? cu_drv_nvlsm_for(in->cat->driver, nv.row, nv.branch) : NULL;
        struct cu_strv nm;
        cu_strv_init(&nm);
        for (char **t = l ? l->packages : NULL; t && *t; t++)
            cu_strv_push_owned(&nm, cu_drv_expand(*t, nv.branch, f));
        CU_AUTOFREE char *names = cu_strv_join(&nm, " ");
        cu_strv_fini(&nm);
        return refuse(p, cu_xasprintf(distro_only ? _("This is a fourth-generation NVSwitch board (%s): CUDA runs there only with NVIDIA's fabric manager and NVIDIA's NVLink Subnet Manager of the driver's branch, and %s's own packages do not carry the NVLink Subnet Manager.")
                                                  : _("This is a fourth-generation NVSwitch board (%s): CUDA runs there only with NVIDIA's fabric manager and NVIDIA's NVLink Subnet Manager of the driver's branch, and no package source cudaup knows for %s carries them for a branch that serves every GPU here."),
                                      vpd->name, osn),
                      l ? cu_xasprintf(_("Use --driver-source nvidia: NVIDIA's repository carries the NVLink Subnet Manager (%s) for branch %d."),
                                       names, nv.branch)
                        : cu_xstrdup(_("Install the driver, its fabric manager and the NVLink Subnet Manager of one branch from NVIDIA's instructions, enable the fabric manager's service, load mlx5_core and ib_umad, reboot, then run cudaup again with --driver keep.")));
    }
    const char *swname = NULL;
    int nvswitch = cu_drv_nvswitch_count(f, in->cat, &swname);
    if (!k.row && nvswitch)
        return refuse(p, cu_xasprintf(_("This machine has %d NVSwitch bridges (%s): CUDA runs there only with NVIDIA's fabric manager of the driver's branch, and cudaup knows no package of it for %s."),
                                      nvswitch, swname, osn),
                      cu_xstrdup(_("Install the driver and nvidia-fabricmanager of the same branch from NVIDIA's instructions, enable the nvidia-fabricmanager service, reboot, then run cudaup again with --driver keep.")));
    if (!k.row) {
        /* A third-party repository that carries a fitting branch is named, where no source cudaup installs
         * from has one (else --driver-source or the CUDA asked for is what stands in the way). */
        struct pick any = best_of(in, &n, "distro", want_branch, want_flavor, NULL);
        struct pick tp = {NULL, 0};
        if (!any.row)
            any = best_of(in, &n, "nvidia", want_branch, want_flavor, NULL);
        if (!any.row)
            tp = best_of(in, &n, NULL, want_branch, want_flavor, NULL);
        if (tp.row) {
            struct cu_strv pkv;
            cu_strv_init(&pkv);
            for (char **t = tp.row->packages; *t; t++)
                cu_strv_push_owned(&pkv, cu_drv_expand(*t, tp.branch, f));
            CU_AUTOFREE char *pk = cu_strv_join(&pkv, " ");
            cu_strv_fini(&pkv);
            const char *where = third_party_name(tp.row);
            return refuse(p, cu_xasprintf(_("No package source cudaup installs from carries a branch for %s that serves every GPU here; branch %d (%s kernel modules) is only in %s (%s), a third-party repository cudaup does not install from."),
                                          osn, tp.branch, cu_drv_flavor_word(tp.row->flavor), where, pk),
                          cu_xasprintf(_("Install %s from %s yourself, reboot, then run cudaup again."), pk, where));
        }
        return refuse(p, cu_xasprintf(_("No package source cudaup knows for %s carries a driver branch that serves every GPU here (%s kernel modules, branch %d%s%s)."),
                                      osn, cu_drv_flavor_word(n.open_ok && (n.prefer_open || !n.prop_ok) ? "open" : "proprietary"),
                                      n.lo ? n.lo : 0, n.hi ? _(" to ") : _(" or newer"),
                                      n.hi ? cu_driver_version_format(&(struct cu_version){{(uint32_t)n.hi}, 1}, b1, sizeof(b1)) : ""),
                      cu_xstrdup(distro_only ? _("Try --driver-source nvidia, or install the driver yourself and run cudaup again.")
                                             : _("Install the driver yourself, reboot, then run cudaup again.")));
    }
    if (nvidia_only)
        reason(p, _("From NVIDIA's repository, as asked with --driver-source nvidia."));
    fill_install(in, p, &k);
    return p;
}

void
cu_drv_planned_facts(const struct cu_facts *facts, const struct cu_catalog *cat, const struct cu_drv_plan *p,
                     struct cu_facts *out)
{
    *out = *facts;
    if (!p || strcmp(p->action, "install") != 0)
        return;
    out->driver.running = facts->driver.kind == CU_DRIVER_NVIDIA ? facts->driver.version : (struct cu_version){{0}, 0};
    out->driver.kind = CU_DRIVER_NVIDIA;
    out->driver.planned = true;
    out->driver.version = p->version;
    out->driver.lib_version = p->version;
    out->driver.kernel_module = true;
    out->driver.nouveau_loaded = false;
    out->driver.libcuda_result = -1;
    memset(&out->driver.cuda_max, 0, sizeof(out->driver.cuda_max));
    out->driver.cuda_max_source = cu_catalog_cuda_max_for_driver(cat, &p->version, &out->driver.cuda_max) ? "table" : NULL;
}
