/* SPDX-License-Identifier: MIT */
/* The plan's containers part, made from the machine and the wishes (installers/containers/containers.h). */
#include "config.h"

#define CU_LOG_TAG "containers"
#include "ctr_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/resolve/driver.h"
#include "installers/installer.h"

enum cu_status
inst_containers_check(const struct cu_config *cfg, struct cu_error *err)
{
    struct cu_ctr_wish w = {cfg->containers, cfg->restart_engines, cfg->yes};
    return cu_ctr_wish_check(&w, err);
}

void
inst_containers_probe(const struct cu_sys *sys, const char *const *envp, bool running, struct cu_engines *engines, struct cu_cdi *cdi)
{
    struct cu_engines_opts o = {sys, envp, true, running};
    cu_engines_probe(&o, engines);
    if (cdi) {
        memset(cdi, 0, sizeof(*cdi));
        if (sys->files_open)
            cu_cdi_probe(&sys->files, cdi);
    }
}

enum cu_status
inst_containers_prepare(const struct cu_prepare_in *in, struct cu_plan *plan, struct cu_error *err)
{
    struct cu_ctr_wish w = {in->cfg->containers, in->cfg->restart_engines, in->cfg->yes};
    enum cu_status st;
    if ((st = cu_ctr_wish_check(&w, err)) != CU_OK || !cu_ctr_wish_any(&w))
        return st;
    if (in->unconstrained) {
        cu_plan_reason(plan, _("--containers: the mirror holds nothing for containers yet; each machine gets the NVIDIA Container Toolkit from NVIDIA's repository when it runs `cudaup install --containers`."));
        return CU_OK;
    }
    struct cu_sys sys;
    struct cu_engines en;
    struct cu_cdi cdi;
    struct cu_strv installed;
    struct cu_error qerr;
    cu_sys_init(&sys, in->envp, in->root ? in->root : "/", false);
    inst_containers_probe(&sys, in->envp, true, &en, &cdi);
    cu_strv_init(&installed);
    bool known = ctr_installed(&sys, NULL, &installed, &qerr) == CU_OK;
    if (!known)
        cu_log_info("the installed packages cannot be read: %s", cu_error_text(&qerr));
    struct cu_ctr_in ci = {
        .facts = in->facts,
        .cat = in->catalog,
        .engines = &en,
        .wish = &w,
        .driver = plan->driver,
        .installed = known ? &installed : NULL,
        .cdi = &cdi,
        .nvidia_repo = ctr_nvidia_repo(&sys),
        .image = sys.image,
    };
    struct cu_ctr_plan *p = cu_ctr_choose(&ci);
    cu_strv_fini(&installed);
    cu_cdi_fini(&cdi);
    cu_engines_fini(&en);
    cu_sys_fini(&sys);
    if (!p)
        return CU_OK;
    if (strcmp(p->action, "refuse") == 0) {
        cu_error_set(err, CU_E_UNSUPPORTED, 0, "%s", p->refusal);
        if (p->advice)
            cu_error_advise(err, "%s", p->advice);
        cu_ctr_plan_free(p);
        return CU_E_UNSUPPORTED;
    }
    for (size_t i = 0; i < p->reasons.n; i++)
        cu_plan_reason_src(plan, i < p->reason_sources.n && *p->reason_sources.v[i] ? p->reason_sources.v[i] : NULL,
                           _("Containers: %s"), p->reasons.v[i]);
    plan->containers = p;
    return CU_OK;
}

/* The containers' steps in the plan, after the driver's: the plan's own steps, then what is the user's. */
static void
containers_plan_steps(struct cu_plan *plan)
{
    const struct cu_ctr_plan *p = plan->containers;
    if (!p || strcmp(p->action, "refuse") == 0)
        return;
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct cu_ctr_step *s = &p->steps[i];
        CU_AUTOFREE char *line = cu_ctr_step_line(s);
        CU_AUTOFREE char *aside = s->argv ? cu_xasprintf("`%s`", line) : cu_xstrdup(line);
        CU_AUTOFREE char *detail = strcmp(line, s->action) == 0 ? cu_xstrdup(s->why) : cu_str_aside(s->why, aside);
        cu_plan_add_step(plan, "containers", s->action, "%s", detail);
    }
    for (size_t i = 0; i < p->user_steps.n; i++)
        cu_plan_add_step(plan, "containers", "yours", "%s", p->user_steps.v[i]);
}

const struct cu_installer_ops inst_containers_ops = {
    .name = "containers",
    .plan = containers_plan_steps,
    .run = NULL, /* the install command runs it after the driver */
};
