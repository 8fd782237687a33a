/* SPDX-License-Identifier: MIT */
/*
 * The plan of a request, with an environment of its own for each time --framework was given
 * (--framework pytorch --framework jax, kept as "pytorch;jax"): the first environment's plan
 * (cu_prepare_one), and each of the others planned for the same CUDA release and kept in its envs[]:
 * their Python, environment and frameworks go in beside the first one's, the toolkit once.  Names
 * come from --env-name a,b, else cudaup-FRAMEWORK; two environments of one name are refused.
 */
#include "config.h"

#include "prepare.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"

/* Steps of an extra environment that the first plan shows: its Python, its environment, its frameworks. */
static bool
env_step(const char *installer)
{
    return strcmp(installer, "python") == 0 || strcmp(installer, "pyenv") == 0 || strcmp(installer, "framework") == 0;
}

static void
adopt(struct cu_plan *p, struct cu_plan *sub)
{
    char b1[32];
    sub->extra_env = true;
    sub->cuda_manifest = sub->cudnn_manifest = NULL; /* borrowed from a mirror that is gone */
    /* It goes beside the first plan's CUDA install: uninstalling that one removes it too. */
    free(sub->cuda_path);
    sub->cuda_path = cu_xstrdup(p->cuda_path);
    for (size_t i = 0; i < sub->n_steps; i++)
        if (env_step(sub->steps[i].installer))
            cu_plan_add_step(p, sub->steps[i].installer, sub->steps[i].action, "%s", sub->steps[i].detail);
    if (sub->python && sub->python->dl.url && !sub->python->dl.size_unknown &&
        !(p->python && p->python->dl.url && strcmp(p->python->dl.url, sub->python->dl.url) == 0))
        p->download_bytes += sub->python->dl.size;
    CU_AUTOFREE char *names = NULL;
    {
        size_t n;
        struct cu_plan_framework *const *fw = cu_plan_frameworks(sub, &n);
        struct cu_buf b;
        cu_buf_init(&b);
        for (size_t i = 0; i < n; i++)
            cu_buf_printf(&b, "%s%s %s", i ? ", " : "", cu_framework_title(fw[i]->name), fw[i]->version ? fw[i]->version : "");
        names = cu_buf_steal(&b);
    }
    cu_plan_reason(p, _("Another environment, %s: %s with Python %s, beside the same CUDA %s."), sub->env.name, names,
                   sub->framework ? sub->framework->python : "?", cu_version_format(&p->cuda, 0, b1, sizeof(b1)));
    for (size_t i = 0; i < sub->warnings.n; i++)
        cu_plan_warn(p, "%s", sub->warnings.v[i]);
    p->envs = cu_xreallocarray(p->envs, p->n_envs + 2, sizeof(*p->envs));
    p->envs[p->n_envs++] = sub;
    p->envs[p->n_envs] = NULL;
}

/* The name an environment of @group ("pytorch==2.8,jax[cuda12]") gets without --env-name: cudaup-pytorch-jax. */
static char *
default_name(const char *group)
{
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_printf(&b, "cudaup");
    for (const char *p = group; *p; p += strcspn(p, ","), p += *p == ',') {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, ",=[ ");
        CU_AUTOFREE char *name = cu_xstrndup(p, n);
        const char *canon = strcmp(name, "torch") == 0 ? "pytorch" : strcmp(name, "tf") == 0 || strcmp(name, "keras") == 0
                                                                          ? "tensorflow"
                                                                          : name;
        cu_buf_printf(&b, "-%s", canon);
    }
    return cu_buf_steal(&b);
}

enum cu_status
cu_prepare_plan(const struct cu_prepare_in *in, struct cu_mirror **mirror, struct cu_plan **plan, struct cu_error *err)
{
    const char *fw = in->cfg->framework;
    enum cu_status st;
    if (!fw || !strchr(fw, ';'))
        return cu_prepare_one(in, mirror, plan, err);
    *mirror = NULL;
    *plan = NULL;
    if ((st = cu_prepare_check(in, err)) != CU_OK)
        return st;
    struct cu_strv groups, names;
    cu_strv_init(&groups);
    cu_strv_init(&names);
    cu_strv_split(&groups, fw, ";");
    if (in->cfg->env_name && *in->cfg->env_name)
        cu_strv_split(&names, in->cfg->env_name, ",");
    char b1[32];
    /* The names first: two environments of one name are bad input, before anything is resolved. */
    struct cu_strv want;
    cu_strv_init(&want);
    for (size_t g = 0; g < groups.n; g++)
        cu_strv_push_owned(&want, g < names.n ? cu_xstrdup(names.v[g]) : default_name(groups.v[g]));
    st = CU_OK;
    for (size_t g = 0; g < want.n && st == CU_OK; g++)
        for (size_t k = 0; k < g && st == CU_OK; k++)
            if (strcmp(want.v[g], want.v[k]) == 0)
                st = cu_error_set(err, CU_E_USAGE, 0,
                                  _("Two of the environments would be named %s; name each with --env-name, comma-separated in the order of --framework."),
                                  want.v[g]);
    cu_strv_fini(&want);
    for (size_t g = 0; g < groups.n && st == CU_OK; g++) {
        struct cu_config c;
        cu_config_copy(&c, in->cfg);
        free(c.framework);
        c.framework = cu_xstrdup(cu_str_strip(groups.v[g]));
        free(c.env_name);
        c.env_name = g < names.n ? cu_xstrdup(names.v[g]) : NULL;
        if (g > 0) {
            /* The others go beside the first one's CUDA: one toolkit serves them all. */
            free(c.cuda);
            c.cuda = cu_xstrdup(cu_version_format(&(*plan)->cuda, 0, b1, sizeof(b1)));
            free(c.containers); /* the host's containers are the first environment's plan's */
            c.containers = NULL;
            if (!c.toolkit || !*c.toolkit) { /* the first environment's toolkit, the default's included */
                free(c.toolkit);
                c.toolkit = cu_xstrdup((*plan)->toolkit ? (*plan)->toolkit->kind : "system");
            }
        }
        struct cu_prepare_in one = *in;
        one.cfg = &c;
        one.toolkit_shared = g == 0 && groups.n > 1;
        struct cu_mirror *m = NULL;
        struct cu_plan *p = NULL;
        st = cu_prepare_one(&one, g == 0 ? mirror : &m, g == 0 ? plan : &p, err);
        if (g > 0 && st == CU_E_UNSUPPORTED) {
            /* Frameworks that bring their own CUDA wheels do not need the first one's CUDA release: that
             * install serves tools and extensions, theirs come from pip. */
            struct cu_error e2;
            cu_error_clear(&e2);
            free(c.cuda);
            c.cuda = in->cfg->cuda ? cu_xstrdup(in->cfg->cuda) : NULL;
            cu_mirror_free(m);
            m = NULL;
            if (cu_prepare_one(&one, &m, &p, &e2) == CU_OK && cu_plan_bundled(p)) {
                st = CU_OK;
                cu_plan_reason(*plan, _("The environment %s brings its own CUDA %u wheels; the CUDA %s install serves the others."),
                               p->env.name, p->cuda.part[0], cu_version_format(&(*plan)->cuda, 0, b1, sizeof(b1)));
            } else {
                cu_plan_free(p);
                p = NULL;
            }
        }
        cu_config_fini(&c);
        if (st == CU_OK && g > 0) {
            adopt(*plan, p);
            p = NULL;
        }
        cu_plan_free(p);
        cu_mirror_free(m);
        if (st != CU_OK)
            break;
    }
    cu_strv_fini(&groups);
    cu_strv_fini(&names);
    if (st != CU_OK) {
        cu_plan_free(*plan);
        *plan = NULL;
    }
    return st;
}
