/* SPDX-License-Identifier: MIT */
/*
 * The driver and the plan decided together (installers/driver_resolve.h, issue 34): --driver auto keeps a
 * driver that works when the request can be met with it, and plans a newer branch only when it cannot; the
 * plan says what a newer driver would bring, and every refusal's advice names a command that plans, with
 * what it costs (a driver, a reboot).  The driver's choice is core/resolve/driver.c, the request's the
 * resolver's; this file only asks them in turn.
 */
#include "config.h"

#include "driver_resolve.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "driver.h"

/* Append @tr (and its English twin @en) to @err's advice. */
static void
advise_append(struct cu_error *err, const char *tr, const char *en)
{
    if (!err->advice_en[0])
        snprintf(err->advice_en, sizeof(err->advice_en), "%s", err->advice);
    size_t n = strlen(err->advice), m = strlen(err->advice_en);
    /* After a full-width stop (zh_CN's 。) the next sentence follows without a space. */
    bool cjk_stop = n >= 3 && memcmp(err->advice + n - 3, "\xe3\x80\x82", 3) == 0;
    snprintf(err->advice + n, sizeof(err->advice) - n, "%s%s", n && !cjk_stop ? " " : "", tr);
    snprintf(err->advice_en + m, sizeof(err->advice_en) - m, "%s%s", m ? " " : "", en);
}

/* Append a sentence to @err's advice (both its languages). */
static void CU_PRINTF(2, 3)
advise_more(struct cu_error *err, const char *fmt, ...)
{
    char tr[sizeof(err->advice)], en[sizeof(err->advice_en)];
    va_list ap;
    va_start(ap, fmt);
    cu_vformat_both(tr, en, sizeof(tr), fmt, ap);
    va_end(ap);
    advise_append(err, tr, en);
}

/* What installing driver plan @d costs, said after a command that brings it. */
static void
advise_driver_cost(struct cu_error *err, const struct cu_drv_plan *d)
{
    if (d->reboot)
        advise_more(err, _("It installs NVIDIA driver %d (%s kernel modules) first, and the machine must reboot before the rest."),
                    d->branch, cu_drv_flavor_word(d->flavor));
    else
        advise_more(err, _("It installs NVIDIA driver %d (%s kernel modules) first."), d->branch, cu_drv_flavor_word(d->flavor));
}

/* The --driver value that asks for plan @d's branch and flavor: "580", or "580-proprietary" where a bare
 * branch would choose the other flavor. */
static char *
driver_flag(const struct cu_prepare_in *in, const struct cu_drv_plan *d)
{
    char b[32];
    snprintf(b, sizeof(b), "%d", d->branch);
    struct cu_drv_wish w = {.driver = b, .source = in->cfg->driver_source, .cuda = in->cfg->cuda};
    struct cu_drv_in din = {in->facts, in->catalog, &w};
    struct cu_drv_plan *bare = cu_drv_choose(&din);
    bool same = bare && bare->flavor && d->flavor && strcmp(bare->flavor, d->flavor) == 0;
    cu_drv_plan_free(bare);
    return same ? cu_xasprintf("--driver %d", d->branch) : cu_xasprintf("--driver %d-%s", d->branch, cu_drv_flavor_word(d->flavor));
}

/* The driver auto would plan if the request needed a newer one than runs (NULL: none newer can be planned). */
static struct cu_drv_plan *
newer_driver(const struct cu_prepare_in *in, const char *why)
{
    const struct cu_driver_info *d = &in->facts->driver;
    struct cu_drv_wish w = {.driver = "auto", .source = in->cfg->driver_source, .cuda = in->cfg->cuda,
                            .upgrade = true, .upgrade_why = why};
    struct cu_drv_in din = {in->facts, in->catalog, &w};
    struct cu_drv_plan *p = cu_drv_choose(&din);
    if (strcmp(p->action, "install") != 0 || (d->kind == CU_DRIVER_NVIDIA && d->version.n && p->branch <= (int)d->version.part[0])) {
        cu_drv_plan_free(p);
        return NULL;
    }
    return p;
}

static bool
same_str(const char *x, const char *y)
{
    return x == y || (x && y && strcmp(x, y) == 0);
}

/* Do @a and @b install the same framework wheels?  A newer system CUDA beside them is no newer release to name (the
 * wheels with their own runtime ignore it; TensorFlow 2.17 built with 12.3 gains nothing from 12.9 over 12.4). */
static bool
same_wheels(const struct cu_plan *a, const struct cu_plan *b)
{
    size_t na, nb;
    struct cu_plan_framework *const *fa = cu_plan_frameworks(a, &na);
    struct cu_plan_framework *const *fb = cu_plan_frameworks(b, &nb);
    if (!na || na != nb)
        return false;
    for (size_t i = 0; i < na; i++) {
        if (!same_str(fa[i]->name, fb[i]->name) || !same_str(fa[i]->version, fb[i]->version) ||
            !same_str(fa[i]->cuda_tag, fb[i]->cuda_tag))
            return false;
        for (size_t k = 0; fa[i]->pip && fa[i]->pip[k]; k++)
            if (!fb[i]->pip || !same_str(fa[i]->pip[k], fb[i]->pip[k]))
                return false;
    }
    return true;
}

/* Is the plan @b newer than @a: a newer release of the framework, else a newer CUDA? */
static bool
plan_newer(const struct cu_plan *a, const struct cu_plan *b)
{
    const char *va = a->framework ? a->framework->version : NULL, *vb = b->framework ? b->framework->version : NULL;
    struct cu_version x, y;
    if (va && vb && cu_version_parse(va, &x) && cu_version_parse(vb, &y) && cu_version_cmp(&x, &y) != 0)
        return cu_version_cmp(&y, &x) > 0;
    if (same_wheels(a, b))
        return false;
    return cu_version_cmp(&b->cuda, &a->cuda) > 0;
}

/* What a plan gives, for a sentence: "TensorFlow 2.20.0 with CUDA 12.9.1", "CUDA 12.9.1". */
static char *
plan_gives(const struct cu_plan *p)
{
    char b[32];
    const struct cu_plan_framework *f = p->framework;
    cu_version_format(&p->cuda, 0, b, sizeof(b));
    if (!f)
        return cu_xasprintf(_("CUDA %s"), b);
    return cu_xasprintf(_("%s %s with CUDA %s"), cu_framework_title(f->name),
                        f->version ? f->version : f->cuda_tag ? f->cuda_tag : "", b);
}

/* The request's own command line, as the user gave it (for a command to suggest). */
static char *
request_command(const struct cu_prepare_in *in, const char *extra)
{
    const struct cu_config *c = in->cfg;
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_puts(&b, "cudaup install");
    if (c->framework && *c->framework)
        cu_buf_printf(&b, " --framework %s", c->framework);
    if (c->cuda && *c->cuda)
        cu_buf_printf(&b, " --cuda %s", c->cuda);
    if (c->cudnn && *c->cudnn)
        cu_buf_printf(&b, " --cudnn %s", c->cudnn);
    if (c->python && *c->python)
        cu_buf_printf(&b, " --python %s", c->python);
    cu_buf_printf(&b, " %s", extra);
    return cu_buf_steal(&b);
}

/*
 * The plan kept the driver that runs: say which newer release a newer driver would bring, and the
 * command that asks for it (issue 34).
 */
static void
say_newer(const struct cu_prepare_in *in, const struct cu_resolve_in *ri, struct cu_plan *plan)
{
    struct cu_drv_plan *up = newer_driver(in, NULL);
    if (!up)
        return;
    struct cu_facts planned;
    cu_drv_planned_facts(in->facts, in->catalog, up, &planned);
    struct cu_resolve_in r2 = *ri;
    r2.facts = &planned;
    struct cu_plan *p2 = NULL;
    struct cu_error e2;
    cu_error_clear(&e2);
    if (cu_resolve(&r2, &p2, &e2) == CU_OK && plan_newer(plan, p2)) {
        CU_AUTOFREE char *flag = driver_flag(in, up);
        CU_AUTOFREE char *cmd = request_command(in, flag);
        CU_AUTOFREE char *gives = plan_gives(p2);
        if (up->reboot)
            cu_plan_reason(plan, _("A newer driver would bring %s: `%s` installs NVIDIA driver %d (%s kernel modules), and the machine must reboot before the rest."),
                           gives, cmd, up->branch, cu_drv_flavor_word(up->flavor));
        else
            cu_plan_reason(plan, _("A newer driver would bring %s: `%s` installs NVIDIA driver %d (%s kernel modules)."),
                           gives, cmd, up->branch, cu_drv_flavor_word(up->flavor));
    }
    cu_plan_free(p2);
    cu_drv_plan_free(up);
}

/*
 * No driver branch serves every GPU here: does leaving the driver as it is serve the request?  The advice
 * names --driver keep only with a command that plans with it (and that doctor's errors do not bind).
 */
static void
advise_keep(const struct cu_prepare_in *in, const struct cu_wishes *w, const struct cu_manifest_source *src,
            struct cu_error *err)
{
    /* Not where --driver keep is itself refused (a driver that cannot drive a GPU here). */
    struct cu_drv_wish kw = {.driver = "keep"};
    struct cu_drv_in kin = {in->facts, in->catalog, &kw};
    struct cu_drv_plan *kp = cu_drv_choose(&kin);
    bool refused = strcmp(kp->action, "refuse") == 0;
    cu_drv_plan_free(kp);
    if (refused)
        return;
    struct cu_wishes wk = *w;
    wk.advice_flags = "--driver keep";
    struct cu_resolve_in rk = {in->facts, in->catalog, &wk, src, in->prefix};
    struct cu_plan *pk = NULL;
    struct cu_error ek;
    cu_error_clear(&ek);
    enum cu_status st = cu_resolve(&rk, &pk, &ek);
    if (st == CU_OK)
        st = inst_driver_bind(in, pk, &ek);
    if (st == CU_OK) {
        char keep[sizeof(err->advice)], keep_en[sizeof(err->advice_en)];
        snprintf(keep, sizeof(keep), "%s", err->advice);
        snprintf(keep_en, sizeof(keep_en), "%s", err->advice_en[0] ? err->advice_en : err->advice);
        cu_resolve_advise(&wk, pk, _("Leaving the driver as it is: "), err);
        advise_append(err, keep, keep_en);
    } else if (strstr(ek.advice, "--driver keep")) {
        /* The request itself does not plan so, but what the advice names does. */
        memcpy(err->advice, ek.advice, sizeof(err->advice));
        memcpy(err->advice_en, ek.advice_en, sizeof(err->advice_en));
    }
    cu_plan_free(pk);
}

enum cu_status
inst_driver_resolve(const struct cu_prepare_in *in, const struct cu_wishes *w, const struct cu_manifest_source *src,
                    struct cu_drv_plan **drv, struct cu_plan **plan, struct cu_error *err)
{
    struct cu_drv_wish dw = {.driver = in->cfg->driver, .source = in->cfg->driver_source, .cuda = in->cfg->cuda};
    struct cu_resolve_in ri = {in->facts, in->catalog, w, src, in->prefix};
    enum cu_status st;
    *drv = NULL;
    *plan = NULL;
    if ((st = cu_drv_wish_check(&dw, err)) != CU_OK)
        return st;
    if (w->unconstrained || !in->catalog->driver)
        return cu_resolve(&ri, plan, err); /* for other machines: no driver of this one's matters */
    struct cu_drv_in din = {in->facts, in->catalog, &dw};
    struct cu_drv_plan *p = cu_drv_choose(&din);
    const char *mode = dw.driver && *dw.driver ? dw.driver : "auto";
    bool asked_keep = strcmp(mode, "keep") == 0;

    if (strcmp(p->action, "refuse") == 0) {
        cu_error_set(err, CU_E_UNSUPPORTED, 0, "%s", p->refusal);
        cu_error_advise(err, "%s", p->advice ? p->advice : "");
        if (p->keep_may_do)
            advise_keep(in, w, src, err);
        cu_drv_plan_free(p);
        return CU_E_UNSUPPORTED;
    }
    if (strcmp(p->action, "install") == 0) {
        struct cu_facts planned;
        cu_drv_planned_facts(in->facts, in->catalog, p, &planned);
        ri.facts = &planned;
        if ((st = cu_resolve(&ri, plan, err)) != CU_OK) {
            if (st == CU_E_UNSUPPORTED && strstr(err->advice, "cudaup install"))
                advise_driver_cost(err, p); /* the alternative plans with the driver this plan installs */
            cu_drv_plan_free(p);
            return st;
        }
        *drv = p;
        return CU_OK;
    }
    /* keep: the driver that runs. */
    st = cu_resolve(&ri, plan, err);
    if (st == CU_OK) {
        if (p->container) /* the host's driver: the plan says so, with what it sees (a keep's reasons are otherwise left out) */
            for (size_t i = 0; i < p->reasons.n; i++)
                cu_plan_reason(*plan, _("Driver: %s"), p->reasons.v[i]);
        else if (strcmp(mode, "auto") == 0 || asked_keep)
            say_newer(in, &ri, *plan);
        *drv = p;
        return CU_OK;
    }
    if (st != CU_E_UNSUPPORTED || (strcmp(mode, "auto") != 0 && !asked_keep)) {
        cu_drv_plan_free(p);
        return st;
    }
    /* The request cannot be met with the driver that runs: would a newer one meet it? */
    struct cu_drv_plan *up = newer_driver(in, err->msg);
    struct cu_plan *p2 = NULL;
    struct cu_error e2;
    cu_error_clear(&e2);
    if (up) {
        struct cu_facts planned;
        cu_drv_planned_facts(in->facts, in->catalog, up, &planned);
        struct cu_resolve_in r2 = ri;
        r2.facts = &planned;
        if (cu_resolve(&r2, &p2, &e2) != CU_OK) {
            cu_plan_free(p2);
            p2 = NULL;
        }
    }
    if (p2 && !asked_keep) {
        /* auto: a newer driver is what the request needs; plan it, and say why. */
        cu_drv_plan_free(p);
        *drv = up;
        *plan = p2;
        cu_error_clear(err);
        return CU_OK;
    }
    if (p2) {
        /* --driver keep: the request itself plans with a newer driver; that is the advice, with its cost. */
        CU_AUTOFREE char *flag = driver_flag(in, up);
        struct cu_wishes wd = *w;
        wd.advice_flags = flag;
        /* What runs on the driver as it is (one environment each, an older release) comes first; the newer
         * driver, with its cost, after it. */
        struct cu_error ed;
        cu_error_clear(&ed);
        cu_resolve_advise(&wd, p2, _("With a newer driver: "), &ed);
        advise_driver_cost(&ed, up);
        advise_append(err, ed.advice, ed.advice_en[0] ? ed.advice_en : ed.advice);
    }
    cu_plan_free(p2);
    cu_drv_plan_free(up);
    cu_drv_plan_free(p);
    return CU_E_UNSUPPORTED;
}
