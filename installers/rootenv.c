/* SPDX-License-Identifier: MIT */
/* The environment under --root DIR: see rootenv.h. */
#include "config.h"

#include "rootenv.h"

#include <string.h>
#include <sys/stat.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"

/* Does host path @path lie inside the machine root @in->root? */
static bool
in_root(const struct cu_prepare_in *in, const char *path)
{
    CU_AUTOFREE char *seen = path ? cu_root_seen_path(in->root, path) : NULL;
    return seen != NULL;
}

bool
cu_root_env_profile_d(const struct cu_prepare_in *in)
{
    return in->root && !in->unconstrained && in->profile_d && in_root(in, in->profile_d);
}

const char *
cu_root_env_scope(const struct cu_prepare_in *in)
{
    const char *s = in->cfg->env_scope;
    if (s && *s)
        return s;
    if (cu_root_env_profile_d(in))
        return in_root(in, in->state_dir) ? "system" : "none";
    return in->is_root ? "system" : "user";
}

bool
cu_root_env_image(const struct cu_prepare_in *in)
{
    return in->root && !in->unconstrained && in_root(in, in->prefix);
}

char *
cu_root_env_dir(const struct cu_prepare_in *in, const char *name)
{
    if (!cu_root_env_image(in) || (in->cfg->env_dir && *in->cfg->env_dir))
        return NULL;
    /* Where cudaup run on that machine puts it, so that a later install there (or the image's first boot, which
     * runs the same command without --root) finds this one: as root with no --prefix, /opt/cudaup/envs; else
     * PREFIX/cudaup/envs. */
    if (in->is_root && !(in->cfg->prefix && *in->cfg->prefix))
        return cu_xasprintf("%s/opt/cudaup/envs/%s", strcmp(in->root, "/") == 0 ? "" : in->root, name);
    return cu_xasprintf("%s/cudaup/envs/%s", in->prefix, name);
}

/* The framework's environment under --root DIR: inside DIR with a prefix inside it, made by no conda of this host's. */
static enum cu_status
env_dir_check(const struct cu_prepare_in *in, struct cu_error *err)
{
    const struct cu_config *c = in->cfg;
    const char *r = in->root, *dir = c->env_dir && *c->env_dir ? c->env_dir : NULL;
    bool no_fw = c->framework && strcmp(c->framework, "none") == 0;
    const char *tool = c->env_tool && *c->env_tool ? c->env_tool : "venv";
    if (no_fw)
        return CU_OK;
    if (cu_root_env_image(in) && dir && !in_root(in, dir))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--env-dir %s lies outside --root %s: the framework's environment of the machine under it goes inside it (by default %s/cudaup/envs); choose a folder inside %s."),
                            dir, r, in->prefix, r);
    if (!cu_root_env_image(in) && dir && in_root(in, dir))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--env-dir %s lies inside --root %s, but --prefix %s, whose CUDA it would use, is outside it: choose a prefix inside %s, or an --env-dir outside it."),
                            dir, r, in->prefix, r);
    if (cu_root_env_image(in) && strcmp(tool, "venv") != 0 && strcmp(tool, "none") != 0)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--env-tool %s under --root %s would make the environment with this host's %s, in this host's own conda folders: use --env-tool venv, which cudaup makes inside %s for that machine."),
                            tool, r, tool, r);
    return CU_OK;
}

enum cu_status
cu_root_env_links(const struct cu_prepare_in *in, const struct cu_plan *p, struct cu_error *err)
{
    if (!cu_root_env_image(in) || !p->env.path || !p->framework || strcmp(p->env.tool, "venv") != 0)
        return CU_OK;
    size_t rl = strlen(in->root);
    if (strncmp(p->env.path, in->root, rl) != 0 || p->env.path[rl] != '/')
        return CU_OK; /* not inside DIR as given (a link to DIR): env_dir_check judged it */
    CU_AUTOFREE char *walk = cu_xstrdup(p->env.path);
    for (char *q = walk + rl + 1;; q++) {
        bool end = *q == '\0';
        if (*q != '/' && !end)
            continue;
        *q = '\0';
        struct stat sb;
        if (lstat(walk, &sb) == 0 && S_ISLNK(sb.st_mode))
            return cu_error_set(err, CU_E_USAGE, 0,
                                _("%s is a link: the environment of the machine under --root %s is made in real folders inside it only, so that nothing is written outside it; remove the link, or give --env-dir another folder inside %s."),
                                walk, in->root, in->root);
        if (end)
            return CU_OK;
        *q = '/';
    }
}

enum cu_status
cu_root_env_check(const struct cu_prepare_in *in, const char *rc, struct cu_error *err)
{
    if (!in->root || in->unconstrained)
        return CU_OK;
    const char *scope = cu_root_env_scope(in);
    const char *r = in->root;
    if (strcmp(scope, "user") == 0) {
        if (in_root(in, rc))
            return cu_error_set(err, CU_E_USAGE, 0,
                                _("--shell-rc %s lies inside --root %s; cudaup does not edit that machine's shell start-up files from here: use --env-scope system (its /etc/profile.d) or none."),
                                rc, r);
    }
    /* env.sh in DIR's state folder names paths as DIR sees them (/usr/local/cuda): of no use to this host's shells. */
    if ((strcmp(scope, "user") == 0 || strcmp(scope, "conda") == 0) && in_root(in, in->state_dir))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--env-scope %s would set this machine's shells from the state folder %s, which is the machine's under --root %s: its env.sh names paths as that machine sees them. Give a --state-dir outside %s, or use --env-scope system."),
                            scope, in->state_dir, r, r);
    if (in_root(in, in->state_dir) && !in_root(in, in->prefix))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--prefix %s lies outside --root %s, but the env.sh that the state folder %s (inside it) holds would have to name it: choose a prefix inside %s, or a --state-dir outside it."),
                            in->prefix, r, in->state_dir, r);
    if (strcmp(scope, "system") == 0 && cu_root_env_profile_d(in) && !in_root(in, in->state_dir))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--state-dir %s lies outside --root %s, so that machine's /etc/profile.d/cudaup.sh could not source the env.sh kept there: choose a state folder inside %s, or --env-scope none."),
                            in->state_dir, r, r);
    return env_dir_check(in, err);
}
