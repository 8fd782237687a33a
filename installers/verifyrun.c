/* SPDX-License-Identifier: MIT */
/* What verify checks: the CUDA install, or the environment that holds its own toolkit (verifyrun.h). */
#include "config.h"

#include "verifyrun.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/install/envfile.h"
#include "core/machine/syscmd.h"
#include "core/verify/verify_containers.h"
#include "maintain.h"

bool
cu_toolkit_env_find(const char *state_dir, const char *version, struct cu_toolkit_env *out)
{
    struct cu_pyenv_recs recs;
    memset(out, 0, sizeof(*out));
    cu_pyenv_recs_read(state_dir, &recs);
    const char *tk = recs.n ? recs.tk[0].kind : NULL;
    bool own = tk && (strcmp(tk, "wheels") == 0 || strcmp(tk, "none") == 0) && recs.v[0].python;
    if (own && version) { /* verify X.Y: the release of the environment's compiler wheels */
        struct cu_version a, b;
        own = recs.tk[0].release && cu_version_parse(version, &a) && cu_version_parse(recs.tk[0].release, &b) &&
              a.part[0] == b.part[0] && a.part[1] == b.part[1];
    }
    if (own) {
        out->kind = strcmp(tk, "wheels") == 0 ? "wheels" : "none";
        out->path = cu_venv_of(recs.v[0].python);
        out->home = recs.tk[0].home ? cu_xstrdup(recs.tk[0].home) : NULL;
        out->release = recs.tk[0].release ? cu_xstrdup(recs.tk[0].release) : NULL;
    }
    cu_pyenv_recs_fini(&recs);
    return own;
}

void
cu_toolkit_env_fini(struct cu_toolkit_env *e)
{
    free(e->path);
    free(e->home);
    free(e->release);
    memset(e, 0, sizeof(*e));
}

void
cu_verify_installed(struct cu_verify_opts *o, struct cu_checks *out)
{
    struct cu_pyenv_recs recs;
    cu_pyenv_recs_read(o->state_dir, &recs);
    cu_pyenv_recs_apply(&recs, o);
    if (o->dir)
        cu_verify_run(o, out);
    else
        cu_verify_run_toolkit_env(o, out);
    /* GPU containers, where cudaup set them up (issue 48): the CDI spec, and a container started with the GPU. */
    CU_AUTOFREE char *crec = o->state_dir ? cu_path_join(o->state_dir, "containers.json") : NULL;
    if (crec && access(crec, F_OK) == 0 && o->facts) {
        struct cu_sys sys;
        cu_sys_init(&sys, o->envp, o->root ? o->root->path : "/", false);
        cu_verify_containers(o->facts, o->cat, &sys, o->envp, out);
        cu_sys_fini(&sys);
    }
    /* What @o pointed at in the records goes with them. */
    o->python = o->framework = o->env_name = NULL;
    o->bundled = false;
    memset(&o->toolkit, 0, sizeof(o->toolkit));
    o->more = NULL;
    o->more_toolkit = NULL;
    o->n_more = 0;
    cu_pyenv_recs_fini(&recs);
}
