/* SPDX-License-Identifier: MIT */
/* The Python environment: conda, mamba, micromamba (found on PATH) or venv. */
#include "config.h"

#include "installer.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/install/envfile.h"
#include "core/install/exec.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/machine/sysinfo.h"
#include "pipauth.h"
#include "pyenv.h"
#include "pyroot.h"

static void
inst_pyenv_plan(struct cu_plan *p)
{
    if (!p->framework || !p->env.tool || strcmp(p->env.tool, "none") == 0)
        return;
    if (strcmp(p->env.tool, "venv") == 0)
        cu_plan_add_step(p, "pyenv", "create", _("create the venv %s with Python %s"),
                         p->env.path ? p->env.path : p->env.name, p->framework->python);
    else
        cu_plan_add_step(p, "pyenv", "create", _("create the %s environment %s with Python %s"),
                         p->env.tool, p->env.name, p->framework->python);
    if (p->toolkit && strcmp(p->toolkit->kind, "wheels") == 0)
        cu_plan_add_step(p, "pyenv", "write",
                         _("set CUDA_HOME and PATH in %s's activation to the toolkit of its compiler wheels (CUDA %s, %s), undone on deactivation"),
                         p->env.name, cu_version_format(&p->toolkit->release, 0, (char[32]){0}, 32), p->toolkit->home);
    else if (!cu_plan_system_toolkit(p))
        ; /* --toolkit none: no CUDA_HOME anywhere */
    else if (p->env.scope && strcmp(p->env.scope, "conda") == 0 && cu_plan_needs_ld_library_path(p))
        cu_plan_add_step(p, "pyenv", "write", _("set CUDA_HOME, PATH and LD_LIBRARY_PATH in %s's activation, undone on deactivation"),
                         p->env.name);
    else if (p->env.scope && strcmp(p->env.scope, "conda") == 0)
        cu_plan_add_step(p, "pyenv", "write", _("set CUDA_HOME and PATH in %s's activation, undone on deactivation"),
                         p->env.name);
    if (cu_plan_bundled(p))
        cu_plan_add_step(p, "pyenv", "write",
                         _("make %s's activation take CUDA folders out of LD_LIBRARY_PATH, so that nothing comes before its frameworks' own CUDA wheels; deactivation puts it back"),
                         p->env.name);
}

static const char *const pip_phases[] = {"pip-resolve", "pip-download", "pip-install", "pip-done"};

void
cu_env_stage(struct cu_run_ctx *ctx, const char *installer, const char *phase, const char *what)
{
    struct cu_event e = {.type = CU_EV_PROGRESS, .installer = installer, .item = "environment", .phase = phase,
                         .message = what};
    cu_emit(ctx->events, &e);
}

static void
pip_line(struct cu_pip_log *l, const char *line)
{
    bool log_it = true;
    if (cu_pip_progress_line(&l->pp, line, &log_it) && l->item) {
        const struct cu_pip_progress *pp = &l->pp;
        struct cu_event e = {.type = CU_EV_PROGRESS, .installer = l->installer, .item = l->item,
                             .phase = pip_phases[pp->phase], .done = pp->file_done, .total = pp->file_total,
                             .message = pp->package, .so_far = cu_pip_progress_bytes(pp),
                             .files = pp->phase == CU_PIP_INSTALL ? pp->n_installing : pp->n_files};
        cu_emit(l->ctx->events, &e);
    }
    if (log_it)
        cu_run_log(l->ctx, l->installer, "pip: %s", line);
}

void
cu_pip_output(void *ud, const char *data, size_t len)
{
    struct cu_pip_log *l = ud;
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\n' || data[i] == '\r') {
            if (l->line.len)
                pip_line(l, l->line.data);
            cu_buf_reset(&l->line);
        } else if (l->line.len < 1000) {
            cu_buf_putc(&l->line, data[i]);
        }
    }
}

enum cu_status
cu_pip_run(struct cu_run_ctx *ctx, const char *installer, const char *item, const struct cu_strv *argv,
           struct cu_exec_result *res, struct cu_error *err)
{
    struct cu_pip_log log = {.ctx = ctx, .installer = installer, .item = item};
    cu_buf_init(&log.line);
    struct cu_exec_opts o = {.envp = ctx->envp, .timeout_ms = 4 * 3600 * 1000L, .cancel = ctx->cancel,
                             .on_output = cu_pip_output, .userdata = &log};
    cu_exec_result_init(res);
    struct cu_pip_auth auth; /* the mirror's password in a netrc of this call's, never in argv */
    enum cu_status st = cu_pip_auth_begin(ctx, &auth, err);
    if (auth.envp)
        o.envp = (const char *const *)auth.envp;
    if (st == CU_OK)
        st = cu_exec((const char *const *)argv->v, &o, res, err);
    cu_pip_auth_end(&auth);
    if (st == CU_OK && res->cancelled)
        st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
    cu_buf_fini(&log.line);
    return st;
}

/* Has the user told pip where packages come from (environment, or @python's pip.conf)? */
static bool
pip_configured(struct cu_run_ctx *ctx, const char *python)
{
    static const char *const vars[] = {"PIP_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_EXTRA_INDEX_URL"};
    for (size_t i = 0; i < CU_N_ELEMENTS(vars); i++) {
        const char *v = cu_env_get(ctx->envp, vars[i]);
        if (v && *v)
            return true;
    }
    const char *argv[] = {python, "-m", "pip", "config", "list", NULL};
    struct cu_exec_opts o = {.envp = ctx->envp, .timeout_ms = 60000};
    struct cu_exec_result res;
    struct cu_error err;
    bool set = false;
    cu_exec_result_init(&res);
    if (cu_exec(argv, &o, &res, &err) == CU_OK && res.exit_code == 0)
        set = strstr(res.out.data, "index-url") || strstr(res.out.data, "find-links") ||
              strstr(res.out.data, "no-index");
    cu_exec_result_fini(&res);
    return set;
}

bool
cu_pip_push_sources(struct cu_strv *argv, struct cu_run_ctx *ctx, const char *python, const struct cu_plan_framework *fw)
{
    bool pushed = fw->index_url && (fw->index_explicit || !pip_configured(ctx, python));
    if (pushed) {
        cu_strv_push(argv, "--index-url");
        cu_strv_push(argv, fw->index_url);
    }
    if (fw->constraints_file && fw->constraints && fw->constraints[0]) {
        cu_strv_push(argv, "-c");
        cu_strv_push(argv, fw->constraints_file);
    }
    for (char **r = fw->pip; r && *r; r++)
        cu_strv_push(argv, *r);
    return pushed;
}

enum cu_status
cu_pip_constraints_write(const struct cu_plan_framework *fw, struct cu_error *err)
{
    if (!fw->constraints_file || !fw->constraints || !fw->constraints[0])
        return CU_OK;
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_printf(&b, "# Written by cudaup: the libraries pip brings with %s, held to releases that support this machine's GPUs.\n",
                  fw->name);
    for (char **r = fw->constraints; *r; r++)
        cu_buf_printf(&b, "%s\n", *r);
    enum cu_status st = cu_write_file_atomic(fw->constraints_file, b.data, b.len, 0644, err);
    cu_buf_fini(&b);
    return st;
}

const char *
cu_exec_last_line(struct cu_exec_result *res)
{
    char *txt = cu_str_strip(res->err.len ? res->err.data : res->out.len ? res->out.data : (char[]){""});
    char *last = strrchr(txt, '\n');
    return last ? last + 1 : *txt ? txt : "?";
}

/* Run a tool; on failure, the last line it wrote to stderr becomes the message. */
static enum cu_status
run_tool(struct cu_run_ctx *ctx, const char *const *argv, long timeout_ms, struct cu_exec_result *res,
         struct cu_error *err)
{
    struct cu_exec_opts o = {.envp = ctx->envp, .timeout_ms = timeout_ms, .cancel = ctx->cancel};
    cu_exec_result_init(res);
    enum cu_status st = cu_exec(argv, &o, res, err);
    if (st != CU_OK)
        return st;
    if (res->cancelled)
        return cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
    if (res->exit_code != 0 || res->timed_out)
        return cu_error_set(err, CU_E_TOOL, 0, _("%s failed%s: %s"), argv[0], res->timed_out ? _(" (timed out)") : "",
                            cu_exec_last_line(res));
    return CU_OK;
}

char *
cu_pyenv_python_version(struct cu_run_ctx *ctx, const char *python)
{
    const char *argv[] = {python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])", NULL};
    struct cu_exec_result res;
    struct cu_error err;
    char *v = NULL;
    if (run_tool(ctx, argv, 60000, &res, &err) == CU_OK)
        v = cu_xstrdup(cu_str_strip(res.out.data));
    cu_exec_result_fini(&res);
    return v;
}

/* The folder of conda environment @name, from `TOOL env list --json`. */
static char *
conda_env_path(struct cu_run_ctx *ctx, const char *tool, const char *name)
{
    const char *argv[] = {tool, "env", "list", "--json", NULL};
    struct cu_exec_result res;
    struct cu_error err;
    json_t *j = NULL;
    char *found = NULL;
    if (run_tool(ctx, argv, 120000, &res, &err) == CU_OK &&
        cu_json_parse_object(res.out.data, res.out.len, "env list", &j, &err) == CU_OK) {
        json_t *envs = json_object_get(j, "envs");
        for (size_t i = 0; i < json_array_size(envs) && !found; i++) {
            const char *p = json_string_value(json_array_get(envs, i));
            const char *slash = p ? strrchr(p, '/') : NULL;
            if (slash && strcmp(slash + 1, name) == 0)
                found = cu_xstrdup(p);
        }
    }
    json_decref(j);
    cu_exec_result_fini(&res);
    return found;
}

json_t *
cu_pyenv_json_load(const char *state_dir)
{
    CU_AUTOFREE char *p = cu_path_join(state_dir, "pyenv.json");
    char *text = NULL;
    size_t len;
    struct cu_error e;
    json_t *j = NULL;
    if (cu_read_file(p, 1 << 20, &text, &len, &e) != CU_OK || cu_json_parse_object(text, len, p, &j, &e) != CU_OK)
        j = NULL;
    free(text);
    return j;
}

const json_t *
cu_pyenv_json_env(const json_t *j, size_t i)
{
    return !j ? NULL : i == 0 ? j : json_array_get(json_object_get(j, "envs"), i - 1);
}

unsigned
cu_pyenv_hooks(const struct cu_plan *p)
{
    /* Scope conda: the activation sets CUDA's variables.  Frameworks that bring their own CUDA wheels: it also
     * takes CUDA folders out of LD_LIBRARY_PATH, whatever the scope (issue 36).  A hold: PIP_CONSTRAINT (issue 45). */
    bool sys = cu_plan_system_toolkit(p), wheels = p->toolkit && strcmp(p->toolkit->kind, "wheels") == 0;
    return (sys && p->env.scope && strcmp(p->env.scope, "conda") == 0 ? CU_HOOK_ENV : 0) |
           (wheels ? CU_HOOK_TOOLKIT : 0) | (cu_plan_bundled(p) ? CU_HOOK_GUARD : 0) | (p->hold ? CU_HOOK_HOLD : 0);
}

/* The "hold" STATE/pyenv.json held for the environment at @path (the first, or one of "envs"), or NULL. */
static json_t *
old_hold(const json_t *old, const char *path)
{
    const json_t *e;
    for (size_t i = 0; (e = cu_pyenv_json_env(old, i)) != NULL; i++)
        if (cu_json_str(e, "path") && strcmp(cu_json_str(e, "path"), path) == 0)
            return json_object_get(e, "hold");
    return NULL;
}

enum cu_status
cu_pyenv_state_write(const struct cu_plan *p, const char *path, const char *python, bool with_framework, bool made,
                     const json_t *hold, struct cu_error *err)
{
    CU_AUTOFREE char *file = cu_path_join(p->state_dir, "pyenv.json");
    json_t *old = cu_pyenv_json_load(p->state_dir);
    if (!old)
        old = json_object();
    json_t *o = json_object(), *a = json_array();
    json_object_set_new(o, "tool", json_string(p->env.tool));
    json_object_set_new(o, "name", cu_json_str_or_null(p->env.name));
    json_object_set_new(o, "path", json_string(path));
    json_object_set_new(o, "python", json_string(python));
    size_t n = 0;
    struct cu_plan_framework *const *fw = with_framework ? cu_plan_frameworks(p, &n) : NULL;
    json_object_set_new(o, "framework", n ? json_string(fw[0]->name) : json_null());
    json_object_set_new(o, "framework_version", n ? cu_json_str_or_null(fw[0]->version) : json_null());
    /* Every framework of the environment (verify imports them all); "framework" stays the first. */
    json_t *names = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(names, json_string(fw[i]->name));
        for (char **r = fw[i]->pip; r && *r; r++)
            json_array_append_new(a, json_string(*r));
    }
    json_object_set_new(o, "frameworks", names);
    if (n) /* whether they bring their own CUDA wheels: verify then puts no CUDA folder before them */
        json_object_set_new(o, "bundled", json_boolean(cu_plan_bundled(p)));
    json_object_set_new(o, "pip", a);
    /* What its activation does, and the pip hold (issue 45), for repair to put back. */
    CU_AUTOFREE char *home = cu_plan_cuda_home(p, path); /* NULL: --toolkit none */
    json_object_set_new(o, "activation", json_integer((json_int_t)cu_pyenv_hooks(p)));
    json_object_set_new(o, "cuda_home", cu_json_str_or_null(home));
    json_object_set_new(o, "toolkit", json_string(p->toolkit ? p->toolkit->kind : "system"));
    if (p->toolkit && strcmp(p->toolkit->kind, "wheels") == 0) {
        /* The compiler wheels' release and pins: verify compares nvcc with them, repair puts them back. */
        char rel[32];
        json_t *tw = json_array();
        for (char **w = p->toolkit->wheels; w && *w; w++)
            json_array_append_new(tw, json_string(*w));
        json_object_set_new(o, "toolkit_release", json_string(cu_version_format(&p->toolkit->release, 0, rel, sizeof(rel))));
        json_object_set_new(o, "toolkit_wheels", tw);
    }
    json_t *keep = hold ? NULL : old_hold(old, path);
    if (hold)
        json_object_set_new(o, "hold", json_deep_copy(hold));
    else if (keep)
        json_object_set_new(o, "hold", json_deep_copy(keep));
    /* The environments of --framework given again ("envs"): each is kept while its folder is there. */
    json_t *envs = json_array(), *prev = json_object_get(old, "envs");
    for (size_t i = 0; i < json_array_size(prev); i++) {
        json_t *e = json_array_get(prev, i);
        const char *ep = cu_json_str(e, "path");
        if (!ep || strcmp(ep, path) == 0 || !cu_path_exists(ep))
            continue;
        json_array_append(envs, e);
    }
    json_t *doc;
    if (p->extra_env) {
        for (size_t i = 0; i < json_array_size(prev); i++) {
            json_t *e = json_array_get(prev, i);
            if (cu_json_str(e, "path") && strcmp(cu_json_str(e, "path"), path) == 0)
                made |= json_is_true(json_object_get(e, "made"));
        }
        json_object_set_new(o, "cuda", cu_json_str_or_null(p->cuda_path));
        json_object_set_new(o, "made", json_boolean(made));
        json_array_append_new(envs, o);
        doc = json_incref(old);
    } else {
        doc = o;
    }
    json_object_set_new(doc, "envs", envs);
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    json_decref(old);
    enum cu_status st = cu_mkdir_p(p->state_dir, 0755, err);
    if (st == CU_OK)
        st = cu_write_file_atomic(file, text, strlen(text), 0644, err);
    free(text);
    return st;
}

static enum cu_status
inst_pyenv_run(struct cu_run_ctx *ctx, struct cu_error *err)
{
    const struct cu_plan *p = ctx->plan;
    const char *tool = p->env.tool;
    const char *want = p->framework ? p->framework->python : NULL;
    struct cu_exec_result res;
    enum cu_status st = CU_OK;
    bool changed = false;
    CU_AUTOFREE char *path = NULL;

    if (!p->framework || !tool || strcmp(tool, "none") == 0)
        return CU_OK;
    struct cu_event e = {.type = CU_EV_STEP_START, .installer = "pyenv", .message = p->env.name};
    cu_emit(ctx->events, &e);
    cu_env_stage(ctx, "pyenv", "create", p->env.name);
    if (strcmp(tool, "venv") == 0) {
        path = cu_xstrdup(p->env.path);
        CU_AUTOFREE char *py = cu_path_join(path, "bin/python");
        CU_AUTOFREE char *cfg = cu_path_join(path, "pyvenv.cfg");
        /* A venv relocated for its machine image runs here again as it was made (installers/pyroot.h). */
        if ((st = cu_pyroot_host_view(p, err)) != CU_OK)
            goto out;
        if (cu_path_exists(cfg) && cu_path_exists(py)) {
            CU_AUTOFREE char *have = cu_pyenv_python_version(ctx, py);
            if (!have || strcmp(have, want) != 0) {
                st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                                  _("A venv with Python %s already exists at %s; remove it, or choose another --env-name"),
                                  have ? have : "?", path);
                goto out;
            }
        } else if (cu_path_exists(path)) {
            st = cu_error_set(err, CU_E_UNSUPPORTED, 0, _("%s exists and is not a venv; choose another --env-name"), path);
            goto out;
        } else {
            CU_AUTOFREE char *exe_name = cu_xasprintf("python%s", want);
            CU_AUTOFREE char *exe = p->python && p->python->exe && strcmp(p->python->kind, "cudaup") == 0
                                        ? cu_xstrdup(p->python->exe)
                                        : cu_which(exe_name, ctx->envp);
            if (!exe) {
                st = cu_error_set(err, CU_E_UNSUPPORTED, 0, _("%s is not on PATH, so the venv cannot be made"), exe_name);
                goto out;
            }
            CU_AUTOFREE char *parent = cu_xstrdup(path);
            *strrchr(parent, '/') = '\0';
            if ((st = cu_mkdir_p(parent, 0755, err)) != CU_OK)
                goto out;
            const char *argv[] = {exe, "-m", "venv", path, NULL};
            st = run_tool(ctx, argv, 600000, &res, err);
            cu_exec_result_fini(&res);
            if (st != CU_OK)
                goto out;
            changed = true;
        }
    } else {
        CU_AUTOFREE char *exe = cu_which(tool, ctx->envp);
        if (!exe) {
            st = cu_error_set(err, CU_E_UNSUPPORTED, 0, _("%s is not on PATH; install it, or use --env-tool venv"), tool);
            goto out;
        }
        path = conda_env_path(ctx, exe, p->env.name);
        if (!path) {
            CU_AUTOFREE char *spec = cu_xasprintf("python=%s", want);
            const char *argv_c[] = {exe, "create", "-y", "-n", p->env.name, spec, NULL};
            const char *argv_m[] = {exe, "create", "-y", "-n", p->env.name, spec, "-c", "conda-forge", NULL};
            st = run_tool(ctx, strcmp(tool, "micromamba") == 0 ? argv_m : argv_c, 1800000, &res, err);
            cu_exec_result_fini(&res);
            if (st != CU_OK)
                goto out;
            changed = true;
            path = conda_env_path(ctx, exe, p->env.name);
            if (!path) {
                st = cu_error_set(err, CU_E_TOOL, 0, _("%s made the environment %s but does not list it"), tool,
                                  p->env.name);
                goto out;
            }
        }
        CU_AUTOFREE char *py = cu_path_join(path, "bin/python");
        CU_AUTOFREE char *have = cu_pyenv_python_version(ctx, py);
        if (!have || strcmp(have, want) != 0) {
            st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                              _("The %s environment %s has Python %s, not %s; remove it, or choose another --env-name"), tool,
                              p->env.name, have ? have : "?", want);
            goto out;
        }
    }
    ctx->python = cu_path_join(path, "bin/python");
    unsigned what = cu_pyenv_hooks(p);
    if (what) {
        CU_AUTOFREE char *home = cu_plan_cuda_home(p, path);
        if (!home)
            home = cu_xstrdup(""); /* --toolkit none: the hooks name no CUDA folder */
        bool c2 = false;
        st = strcmp(tool, "venv") == 0 ? cu_venv_hook_install(path, p->state_dir, home, what, &c2, err)
                                       : cu_conda_hooks_install(path, p->state_dir, home, what, &c2, err);
        changed |= c2;
        if (st != CU_OK)
            goto out;
    }
    st = cu_pyenv_state_write(p, path, ctx->python, false, changed, NULL, err);
out:
    cu_run_result(ctx, "pyenv", "create", st == CU_OK ? path : cu_error_text(err), st, changed);
    return st;
}

const struct cu_installer_ops inst_pyenv_ops = {
    .name = "pyenv",
    .plan = inst_pyenv_plan,
    .run = inst_pyenv_run,
};
