/* SPDX-License-Identifier: MIT */
/* The environment under --root DIR: see rootenv.h. */
#include "config.h"

#include "rootenv.h"

#include <string.h>

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
    return CU_OK;
}
