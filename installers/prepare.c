/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "prepare.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/install/envfile.h"
#include "core/fetch/learn.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/fetch/probe.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/unpack/pyarchive.h"
#include "core/resolve/resolve.h"
#include "core/base/str.h"
#include "containers/containers.h"
#include "driver.h"
#include "driver_resolve.h"
#include "installer.h"
#include "diskroom.h"
#include "rootenv.h"
#include "pyhold.h"
#include "pyroot.h"

/* Room kept under --prefix for the deepest path cudaup makes there (see check_env_opts). */
#define PREFIX_ROOM 512

static const char *
base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p;
}

char *
cu_default_shell_rc(const char *const *envp)
{
    const char *home = cu_env_get(envp, "HOME");
    const char *shell = base_name(cu_env_get(envp, "SHELL"));
    if (!home || home[0] != '/')
        home = "/root";
    if (shell && strcmp(shell, "zsh") == 0) {
        const char *zd = cu_env_get(envp, "ZDOTDIR");
        return cu_path_join(zd && zd[0] == '/' ? zd : home, ".zshrc");
    }
    if (shell && strcmp(shell, "fish") == 0)
        return cu_path_join(home, ".config/fish/conf.d/cudaup.fish");
    if (shell && strcmp(shell, "bash") == 0)
        return cu_path_join(home, ".bashrc");
    return cu_path_join(home, ".profile");
}

static bool
one_of(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(s, *set) == 0)
            return true;
    return false;
}

static const char *const scopes[] = {"user", "system", "conda", "none", NULL};
static const char *const tools[] = {"conda", "mamba", "micromamba", "venv", "none", NULL};

/* cu_root_env_check with the rc file scope user would edit (--shell-rc, else the shell's own). */
static enum cu_status
root_env_check(const struct cu_prepare_in *in, struct cu_error *err)
{
    const char *given = in->cfg->shell_rc;
    CU_AUTOFREE char *rc = given && *given ? cu_xstrdup(given) : cu_default_shell_rc(in->envp);
    return cu_root_env_check(in, rc, err);
}

/* The environment options' syntax and combinations, checked before anything runs. */
static enum cu_status
check_env_opts(const struct cu_config *c, struct cu_error *err)
{
    bool no_fw = c->framework && strcmp(c->framework, "none") == 0;
    if (c->env_scope && *c->env_scope && !one_of(c->env_scope, scopes))
        return cu_error_set(err, CU_E_USAGE, 0, _("--env-scope: '%s' is not one of user, system, conda or none."),
                            c->env_scope);
    if (c->env_tool && *c->env_tool && !one_of(c->env_tool, tools))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--env-tool: '%s' is not one of conda, mamba, micromamba, venv or none."),
                            c->env_tool);
    bool tool_none = c->env_tool && strcmp(c->env_tool, "none") == 0;
    if (tool_none && !no_fw)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--env-tool none leaves nowhere to install the framework; add --framework none, or pick a tool."));
    if (c->env_scope && strcmp(c->env_scope, "conda") == 0 && (tool_none || no_fw))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--env-scope conda needs a Python environment, so it cannot go with --framework none or --env-tool none."));
    /* --env-name a,b: one name per environment (--framework given again). */
    size_t n_envs = 1, n_names = 1;
    for (const char *q = c->framework; q && *q; q++)
        n_envs += *q == ';';
    for (const char *q = c->env_name; q && *q; q++)
        n_names += *q == ',';
    for (const char *q = c->env_name; q && *q; q += strcspn(q, ","), q += *q == ',') {
        size_t len = strcspn(q, ",");
        if (len == 0 || strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") < len ||
            q[0] == '.' || q[0] == '-')
            return cu_error_set(err, CU_E_USAGE, 0,
                                _("--env-name: '%s' may hold only letters, digits, '.', '_' and '-'."),
                                c->env_name);
    }
    if (c->env_name && *c->env_name && n_names != n_envs)
        return cu_error_set(err, CU_E_USAGE, 0,
                            ngettext_("--env-name: '%s' names %zu environments, but --framework asks for %zu (one for each time it is given).",
                                      "--env-name: '%s' names %zu environments, but --framework asks for %zu (one for each time it is given).",
                                      n_envs),
                            c->env_name, n_names, n_envs);
    if (c->python_source && *c->python_source && strcmp(c->python_source, "auto") != 0 &&
        strcmp(c->python_source, "system") != 0 && strcmp(c->python_source, "cudaup") != 0)
        return cu_error_set(err, CU_E_USAGE, 0, _("--python-source: '%s' is not one of auto, system or cudaup."),
                            c->python_source);
    if (c->python_source && strcmp(c->python_source, "cudaup") == 0 && c->env_tool && *c->env_tool &&
        strcmp(c->env_tool, "venv") != 0)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--python-source cudaup makes a venv, so it cannot go with --env-tool %s."), c->env_tool);
    if (c->index_url && *c->index_url && !cu_str_has_prefix(c->index_url, "https://") &&
        !cu_str_has_prefix(c->index_url, "http://") && !cu_str_has_prefix(c->index_url, "file://")) {
        CU_AUTOFREE char *shown = cu_url_public(c->index_url); /* a password in it is shown nowhere */
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--index-url: '%s' is not an http://, https:// or file:// URL."), shown);
    }
    if (c->env_dir && *c->env_dir && c->env_dir[0] != '/')
        return cu_error_set(err, CU_E_USAGE, 0, _("--env-dir: '%s' is not an absolute path."), c->env_dir);
    if (c->shell_rc && *c->shell_rc && c->shell_rc[0] != '/')
        return cu_error_set(err, CU_E_USAGE, 0, _("--shell-rc: '%s' is not an absolute path."), c->shell_rc);
    /* PREFIX/cuda/bin and lib64 go into PATH and LD_LIBRARY_PATH, where ':' separates entries:
     * refused now, before anything is made, not after the install when env.sh is written. */
    if (c->prefix && strchr(c->prefix, ':'))
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--prefix: '%s' holds a ':', which cannot go into PATH or LD_LIBRARY_PATH; choose a folder without one."),
                            c->prefix);
    /*
     * The deepest paths cudaup makes lie under PREFIX: its staging folder, then each archive's own
     * folders, which the manifests do not list.  A prefix without PREFIX_ROOM of PATH_MAX left could
     * fail midway with ENAMETOOLONG: refused now.  The message shows the path's start only,
     * so that the reason is never cut off.
     */
    if (c->prefix && strlen(c->prefix) + PREFIX_ROOM >= PATH_MAX)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--prefix: the path (%.60s...) is %zu characters long; what cudaup puts under it would pass the system's limit of %d characters for a path. Choose a shorter one."),
                            c->prefix, strlen(c->prefix), (int)PATH_MAX);
    for (const char *q = c->prefix; q && *q; q += strcspn(q, "/"), q += *q == '/')
        if (strcspn(q, "/") > NAME_MAX)
            return cu_error_set(err, CU_E_USAGE, 0,
                                _("--prefix: a folder name in it (%.60s...) is longer than the system's limit of %d characters."),
                                q, (int)NAME_MAX);
    /* A newline or another control character in a path would end up in env.sh and rc files. */
    const struct {
        const char *opt, *val;
    } paths[] = {{"--prefix", c->prefix}, {"--state-dir", c->state_dir}, {"--cache-dir", c->cache_dir},
                 {"--shell-rc", c->shell_rc}, {"--env-dir", c->env_dir}};
    for (size_t i = 0; i < CU_N_ELEMENTS(paths); i++)
        for (const char *q = paths[i].val; q && *q; q++)
            if ((unsigned char)*q < 0x20 || *q == 0x7f)
                return cu_error_set(err, CU_E_USAGE, 0,
                                    _("%s: the path has a control character (such as a newline); give a plain path."),
                                    paths[i].opt);
    return CU_OK;
}

/* Can @dir be used, or made, by this user?  Its nearest existing folder must take new entries; else the
 * refusal says so and names @opt, the option that chooses another. */
static enum cu_status
folder_usable(const char *what, const char *opt, const char *dir, struct cu_error *err)
{
    CU_AUTOFREE char *p = cu_xstrdup(dir);
    for (;;) {
        struct stat sb;
        if (stat(p, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode))
            {
                cu_error_set(err, CU_E_USAGE, 0, _("%s %s cannot be used: %s is not a folder."), what, dir, p);
                cu_error_advise(err, _("Choose another folder with %s."), opt);
                return CU_E_USAGE;
            }
            /* access() says yes to root where mkdir still fails (/proc, read-only binds): try it,
             * with a folder made and removed at once. */
            CU_AUTOFREE char *probe = cu_xasprintf("%s/.cudaup-probe-XXXXXX", p);
            if (!mkdtemp(probe)) {
                /* The errno says more only where it names a cause (permission, read-only); /proc's ENOENT would mislead. */
                int e = errno == EACCES || errno == EPERM || errno == EROFS || errno == ENOSPC ? errno : 0;
                cu_error_set(err, CU_E_USAGE, e, _("%s %s cannot be %s: %s takes no new entries"), what, dir,
                             strcmp(p, dir) == 0 ? _("written") : _("made"), p);
                cu_error_advise(err, _("It is not a place cudaup can write to; choose another folder with %s."), opt);
                return CU_E_USAGE;
            }
            rmdir(probe);
            return CU_OK;
        }
        char *slash = strrchr(p, '/');
        if (!slash || slash == p)
            return CU_OK;
        *slash = '\0';
    }
}

/* python-build-standalone's name for the machine of @platform. */
static const char *
py_arch(const char *platform)
{
    return platform && strcmp(platform, "linux-x86_64") != 0 ? "aarch64" : "x86_64";
}

/* The most a python-build-standalone archive may be where no size is pinned (uv publishes none). */
#define PYTHON_ARCHIVE_MAX (512ull << 20)

/* Plan the relocatable CPython X.Y that cudaup brings, or NULL when the catalog has none for this machine. */
static struct cu_plan_python *
brought_python(const struct cu_prepare_in *in, const struct cu_plan *p, const char *minor)
{
    struct cu_version v;
    if (!cu_version_parse(minor, &v) || v.n != 2)
        return NULL;
    const struct cu_cat_python *cp = cu_catalog_python(in->catalog, &v, py_arch(p->platform));
    if (!cp)
        return NULL;
    char vb[32];
    struct cu_plan_python *py = cu_xcalloc(1, sizeof(*py));
    py->kind = cu_xstrdup("cudaup");
    py->version = cu_xstrdup(cu_version_format(&cp->version, 0, vb, sizeof(vb)));
    py->build = cu_xstrdup(cp->build);
    py->path = cu_xasprintf("%s/cudaup/python/%s", p->prefix, minor);
    py->exe = cu_xasprintf("%s/bin/python%s", py->path, minor);
    py->dl.product = CU_PRODUCT_PYTHON;
    py->dl.component = cu_xstrdup("python");
    py->dl.version = cu_xstrdup(py->version);
    py->dl.title = cu_xstrdup("CPython (python-build-standalone)");
    py->dl.relative_path = cu_xstrdup(cp->file);
    if (in->cfg->mirror && *in->cfg->mirror) {
        /* BASE/python/FILE; the '+' of the file name is written %2B, as upstream does. */
        struct cu_buf u;
        cu_buf_init(&u);
        CU_AUTOFREE char *base = cu_url_public(in->cfg->mirror); /* the credentials go to curl alone */
        size_t bl = strlen(base);
        while (bl > 0 && base[bl - 1] == '/')
            bl--;
        cu_buf_printf(&u, "%.*s/python/", (int)bl, base);
        for (const char *c = cp->file; *c; c++)
            if (*c == '+')
                cu_buf_puts(&u, "%2B");
            else
                cu_buf_putc(&u, *c);
        py->dl.url = cu_buf_steal(&u);
    } else {
        py->dl.url = cu_xstrdup(cp->url);
    }
    memcpy(py->dl.sha256, cp->sha256, sizeof(py->dl.sha256));
    py->dl.size = cp->size ? cp->size : PYTHON_ARCHIVE_MAX;
    py->dl.size_unknown = cp->size == 0;
    /* A "full" archive (3.7): only its python/install/ is placed (core/unpack/pyarchive.h). */
    py->dl.archive_layout = cu_pyarchive_is_full(cp->layout) ? cu_xstrdup(cp->layout) : NULL;
    return py;
}

static struct cu_plan_python *
system_python(const struct cu_prepare_in *in, const char *minor)
{
    struct cu_plan_python *py = cu_xcalloc(1, sizeof(*py));
    CU_AUTOFREE char *name = cu_xasprintf("python%s", minor);
    py->kind = cu_xstrdup("system");
    py->version = cu_xstrdup(minor);
    py->exe = cu_which(name, in->envp);
    return py;
}

/* Can @exe make a venv with pip in it?  NULL when it can, else why not.  Caller frees. */
static char *
venv_incapable(const struct cu_prepare_in *in, const char *exe)
{
    const char *argv[] = {exe, "-c", "import venv, ensurepip, ssl", NULL};
    struct cu_exec_opts o = {.envp = in->envp, .timeout_ms = 60000};
    struct cu_exec_result res;
    struct cu_error e;
    char *why = NULL;
    cu_exec_result_init(&res);
    if (cu_exec(argv, &o, &res, &e) != CU_OK)
        why = cu_xstrdup(cu_error_text(&e));
    else if (res.exit_code != 0 || res.timed_out) {
        /* The line that says what failed: pyenv's shim puts it first, a traceback last. */
        why = cu_str_failure_line(res.err.len ? res.err.data : "");
        if (!*why) {
            free(why);
            why = cu_xstrdup(_("it exited with an error"));
        }
    }
    cu_exec_result_fini(&res);
    return why;
}

/*
 * The venv's Python: one installed here that the framework supports, else (--python-source auto
 * or cudaup) a relocatable CPython that cudaup brings.  Refusals name a way that works here.
 */
static enum cu_status
venv_python(const struct cu_prepare_in *in, struct cu_plan *p, struct cu_error *err)
{
    struct cu_plan_framework *fw = p->framework;
    char **have = in->facts->pythons;
    const char *src = in->cfg->python_source && *in->cfg->python_source ? in->cfg->python_source : "auto";
    bool asked = in->cfg->python && *in->cfg->python;
    if (!fw || strcmp(p->env.tool, "venv") != 0)
        return CU_OK;
    CU_AUTOFREE char *broken = NULL; /* a python3.X here that cannot make a venv, and why */
    if (strcmp(src, "cudaup") != 0) {
        const char *pick = NULL;
        for (char **h = have; h && *h && !pick; h++)
            if (strcmp(*h, fw->python) == 0)
                pick = *h;
        for (char **h = have; !asked && h && *h && !pick; h++)
            if (!fw->py_min || (cu_version_strcmp(*h, fw->py_min) >= 0 && cu_version_strcmp(*h, fw->py_max) <= 0))
                pick = *h;
        if (pick) {
            struct cu_plan_python *sys = system_python(in, pick);
            CU_AUTOFREE char *why = sys->exe ? venv_incapable(in, sys->exe) : NULL;
            /* Under --root the machine's venv is made here, with this host's python3.X of the same version. */
            if (!sys->exe && cu_root_env_image(in))
                why = cu_xasprintf(_("this host has none to make the venv of the machine under %s with"), in->root);
            if (!why) {
                if (strcmp(pick, fw->python) != 0) {
                    cu_plan_reason(p, _("Python %s for the venv: the newest installed here that %s supports (%s would be the first choice)."),
                                   pick, cu_framework_title(fw->name), fw->python);
                    free(fw->python);
                    fw->python = cu_xstrdup(pick);
                }
                p->python = sys;
                return CU_OK;
            }
            broken = sys->exe ? cu_xasprintf(_("%s cannot make a venv with pip (%s)"), sys->exe, why)
                              : cu_xasprintf(_("python%s is on the machine, but %s"), pick, why);
            if (strcmp(pick, fw->python) != 0 && !asked) {
                free(fw->python);
                fw->python = cu_xstrdup(pick);
            }
            cu_plan_python_free(sys);
        }
    }
    struct cu_plan_python *py = brought_python(in, p, fw->python);
    if (broken && py && strcmp(src, "system") != 0) {
        cu_plan_reason(p, _("Python %s for the venv: %s, so cudaup brings python-build-standalone %s (%s) into %s."),
                       fw->python, broken, py->version, py->build, py->path);
        p->python = py;
        p->download_bytes += py->dl.size_unknown ? 0 : py->dl.size; /* a size pinned in data/python */
        return CU_OK;
    }
    if (broken) {
        bool can_bring = py != NULL;
        cu_plan_python_free(py);
        cu_error_set(err, CU_E_UNSUPPORTED, 0, _("Python %s is installed, but %s."), fw->python, broken);
        if (can_bring)
            cu_error_advise(err, _("Install python%s-venv (Debian, Ubuntu), or run the same command with --python-source cudaup."),
                            fw->python);
        else
            cu_error_advise(err, _("Install python%s-venv (Debian, Ubuntu), or use --env-tool conda."), fw->python);
        return CU_E_UNSUPPORTED;
    }
    if (strcmp(src, "system") == 0 || !py) {
        bool can_bring = py != NULL;
        cu_plan_python_free(py);
        const char *range_min = fw->py_min ? fw->py_min : fw->python, *range_max = fw->py_max ? fw->py_max : fw->python;
        if (asked)
            cu_error_set(err, CU_E_UNSUPPORTED, 0, _("Python %s is not installed here, and a venv needs it."),
                         fw->python);
        else
            cu_error_set(err, CU_E_UNSUPPORTED, 0,
                         _("%s %s needs Python %s to %s, and no such python3 is installed here for a venv."),
                         cu_framework_title(fw->name), fw->version ? fw->version : "", range_min, range_max);
        if (can_bring)
            cu_error_advise(err, _("Run the same command with --python-source cudaup: cudaup brings Python %s."),
                            fw->python);
        else
            cu_error_advise(err, _("cudaup has no relocatable Python %s for %s; install python%s, or use --env-tool conda."),
                            fw->python, py_arch(p->platform), fw->python);
        return CU_E_UNSUPPORTED;
    }
    if (strcmp(src, "cudaup") == 0)
        cu_plan_reason(p, _("Python %s for the venv: cudaup brings python-build-standalone %s (%s) into %s, as asked."),
                       fw->python, py->version, py->build, py->path);
    else
        cu_plan_reason(p, _("Python %s for the venv: no python3 that %s supports is installed here, so cudaup brings python-build-standalone %s (%s) into %s."),
                       fw->python, cu_framework_title(fw->name), py->version, py->build, py->path);
    p->python = py;
    p->download_bytes += py->dl.size_unknown ? 0 : py->dl.size;
    return CU_OK;
}

/* Everything the plan will touch or run, checked before the first change (issue: no half installs). */
static enum cu_status
preflight(const struct cu_prepare_in *in, const struct cu_net *net, struct cu_plan *p, struct cu_error *err)
{
    enum cu_status st;
    cu_disk_learn_sizes(in, net, p);
    /* Whether the folders can be made at all comes first: "/proc/nope has 0 B free" would say the wrong thing. */
    if ((st = folder_usable(_("The install folder"), "--prefix", p->prefix, err)) != CU_OK ||
        (st = folder_usable(_("The state folder"), "--state-dir", in->state_dir, err)) != CU_OK)
        return st;
    if (!in->unconstrained && (st = cu_disk_check_space(in, p, err)) != CU_OK)
        return st;
    const char *tool = p->env.tool;
    /* `mirror` plans for other machines: whether conda is here does not matter. */
    if (!in->unconstrained && tool && (strcmp(tool, "conda") == 0 || strcmp(tool, "mamba") == 0 || strcmp(tool, "micromamba") == 0)) {
        CU_AUTOFREE char *exe = cu_which(tool, in->envp);
        if (!exe) {
            cu_error_set(err, CU_E_UNSUPPORTED, 0, _("--env-tool %s: %s is not on PATH here."), tool, tool);
            if (!p->framework) {
                cu_error_advise(err, _("Install %s, or use --env-tool venv."), tool);
                return CU_E_UNSUPPORTED;
            }
            bool here = false;
            for (char **h = in->facts->pythons; h && *h; h++)
                here |= strcmp(*h, p->framework->python) == 0;
            struct cu_plan_python *py = here ? NULL : brought_python(in, p, p->framework->python);
            if (here)
                cu_error_advise(err, _("Install %s, or use --env-tool venv (python%s is here)."), tool,
                                p->framework->python);
            else if (py)
                cu_error_advise(err, _("Install %s, or use --env-tool venv: cudaup then brings Python %s."), tool,
                                p->framework->python);
            else
                cu_error_advise(err, _("Install %s, or install python%s and use --env-tool venv."), tool,
                                p->framework->python);
            cu_plan_python_free(py);
            return CU_E_UNSUPPORTED;
        }
    }
    return CU_OK;
}

static void
fill_env(const struct cu_prepare_in *in, struct cu_plan *p)
{
    const struct cu_config *c = in->cfg;
    const char *scope = cu_root_env_scope(in);
    const char *tool = c->env_tool && *c->env_tool ? c->env_tool : NULL;
    if (!tool) {
        if (!p->framework)
            tool = "none";
        else if (c->python_source && strcmp(c->python_source, "cudaup") == 0)
            tool = "venv";
        else if (in->facts->pyenv && strcmp(in->facts->pyenv->tool, "venv") != 0 && !cu_root_env_image(in))
            tool = in->facts->pyenv->tool;
        else
            tool = "venv";
    }
    p->env.scope = cu_xstrdup(scope);
    p->env.tool = cu_xstrdup(tool);
    p->env.root = in->root && !in->unconstrained ? cu_xstrdup(in->root) : NULL;
    p->env.profile_d = in->profile_d ? cu_xstrdup(in->profile_d) : NULL;
    if (!(c->env_scope && *c->env_scope) && strcmp(scope, "none") == 0 && cu_root_env_profile_d(in))
        cu_plan_reason(p, _("No environment is set up for the machine under %s: the state folder %s is outside it, so that machine's /etc/profile.d could not name it (--env-scope none). Give --state-dir inside %s to have it set up."),
                       in->root, in->state_dir, in->root);
    if (strcmp(scope, "user") == 0)
        p->env.shell_rc = c->shell_rc && *c->shell_rc ? cu_xstrdup(c->shell_rc) : cu_default_shell_rc(in->envp);
    else if (c->shell_rc && *c->shell_rc && !in->unconstrained)
        /* Read with the scope user only: said, not taken and ignored (issue 35). */
        cu_plan_warn(p, strcmp(scope, "system") == 0 ? _("--shell-rc %s is not used: with the scope system the variables go to /etc/profile.d (add --env-scope user to use it).")
                        : strcmp(scope, "conda") == 0 ? _("--shell-rc %s is not used: with the scope conda the variables go into the environment's activation scripts (add --env-scope user to use it).")
                                                      : _("--shell-rc %s is not used: with the scope none no variables are written (add --env-scope user to use it)."),
                     c->shell_rc);
    if (!p->framework)
        return;
    CU_AUTOFREE char *names = cu_plan_framework_names(p, "-"); /* cudaup-pytorch-jax for a shared one */
    p->env.name = c->env_name && *c->env_name ? cu_xstrdup(c->env_name) : cu_xasprintf("cudaup-%s", names);
    if (strcmp(tool, "venv") == 0) {
        const char *xdg = cu_env_get(in->envp, "XDG_DATA_HOME");
        const char *home = cu_env_get(in->envp, "HOME");
        /* --env-dir, then an explicit XDG_DATA_HOME (also for root: tests and unusual set-ups rely
         * on it), then the prefix the user chose, then the defaults; under --root, the machine's prefix. */
        char *mine = cu_root_env_dir(in, p->env.name);
        if (c->env_dir && *c->env_dir)
            p->env.path = cu_path_join(c->env_dir, p->env.name);
        else if (mine)
            p->env.path = cu_steal_ptr(&mine);
        else if (xdg && xdg[0] == '/')
            p->env.path = cu_xasprintf("%s/cudaup/envs/%s", xdg, p->env.name);
        else if (c->prefix && *c->prefix)
            p->env.path = cu_xasprintf("%s/cudaup/envs/%s", p->prefix, p->env.name);
        else if (in->is_root)
            p->env.path = cu_xasprintf("/opt/cudaup/envs/%s", p->env.name);
        else
            p->env.path = cu_xasprintf("%s/.local/share/cudaup/envs/%s", home ? home : "/root", p->env.name);
    }
}

/*
 * Where pip gets the framework: the site mirror's PEP 503 index when --mirror carries one
 * (BASE/pypi/simple/), else --index-url, else what the resolver chose (PyTorch's CUDA index) or
 * pip's own configuration (PIP_INDEX_URL, pip.conf, PyPI).
 */
static void
choose_index(const struct cu_prepare_in *in, struct cu_mirror *m, struct cu_plan *p)
{
    size_t nfw;
    struct cu_plan_framework *const *fws = cu_plan_frameworks(p, &nfw);
    CU_AUTOFREE char *titles = NULL;
    {
        struct cu_buf t;
        cu_buf_init(&t);
        for (size_t i = 0; i < nfw; i++)
            cu_buf_printf(&t, "%s%s", i ? (i + 1 == nfw ? _(" and ") : ", ") : "", cu_framework_title(fws[i]->name));
        titles = cu_buf_steal(&t);
    }
    const char *url = NULL;
    /* Without user:password@: pip gets them from a netrc of its own (cu_pip_run). */
    CU_AUTOFREE char *mirror = in->cfg->mirror ? cu_url_public(in->cfg->mirror) : NULL;
    CU_AUTOFREE char *simple = NULL;
    if (mirror && *mirror && !in->unconstrained) {
        size_t bl = strlen(mirror);
        while (bl > 0 && mirror[bl - 1] == '/')
            bl--;
        simple = cu_xasprintf("%.*s/pypi/simple/", (int)bl, mirror);
        CU_AUTOFREE char *probe = cu_xasprintf("%sindex.html", simple);
        struct cu_buf b;
        struct cu_error e;
        cu_buf_init(&b);
        bool carries = cu_net_fetch_small(cu_mirror_net(m), probe, 4u << 20, &b, &e) == CU_OK;
        cu_buf_fini(&b);
        if (carries) {
            url = simple;
            cu_plan_reason(p, _("%s's packages come from the site mirror's index %s."), titles, simple);
        }
    }
    CU_AUTOFREE char *given = NULL;
    if (!url && in->cfg->index_url && *in->cfg->index_url) {
        /* user:password@ (--index-url, CUDAUP_INDEX_URL) reach pip through its private netrc alone
         * (installers/pipauth.c): never its command line, the plan, the log or a message. */
        given = cu_url_public(in->cfg->index_url);
        url = given;
        cu_plan_reason(p, _("%s's packages come from %s, as asked with --index-url."), titles, url);
    }
    for (size_t i = 0; url && i < nfw; i++) {
        free(fws[i]->index_url);
        fws[i]->index_url = cu_xstrdup(url);
        fws[i]->index_explicit = true;
        if (given) {
            free(fws[i]->index_userpwd);
            fws[i]->index_userpwd = cu_url_userinfo(in->cfg->index_url);
        }
    }
}

static void
wishes_from(const struct cu_prepare_in *in, struct cu_wishes *w)
{
    const struct cu_config *c = in->cfg;
    *w = (struct cu_wishes){
        .cuda = c->cuda,
        .cudnn = c->cudnn,
        .framework = c->framework,
        .components = c->components,
        .python = c->python,
        .toolkit = c->toolkit,
        .toolkit_shared = in->toolkit_shared,
        .platform = c->platform,
        /* `mirror` plans what `install` with the same flags plans on this machine (one resolver, one
         * answer); only on a machine without a GPU does it plan for any. */
        .unconstrained = in->unconstrained && in->facts->n_gpus == 0,
        .allow_inferred = c->allow_inferred,
    };
}

static void
mirror_opts_from(const struct cu_prepare_in *in, struct cu_mirror_opts *mo)
{
    *mo = (struct cu_mirror_opts){
        .base_url = in->cfg->mirror,
        .cache_dir = in->cache_dir,
        .ca_cert = in->cfg->ca_cert,
        .catalog = in->catalog,
        .retries = (unsigned)in->cfg->retries,
        .low_speed_time_s = in->low_speed_time_s,
        .retry_base_ms = in->retry_base_ms,
    };
}

/* What a plan brings along with the version in question, for the list. */
static char *
plan_note(const struct cu_plan *p, enum cu_product product)
{
    char b1[32];
    struct cu_buf b;
    cu_buf_init(&b);
    if (product == CU_PRODUCT_CUDNN)
        cu_buf_printf(&b, _("for CUDA %s"), cu_version_format(&p->cuda, 0, b1, sizeof(b1)));
    else if (p->has_cudnn)
        cu_buf_printf(&b, _("cuDNN %s"), cu_version_format(&p->cudnn, 0, b1, sizeof(b1)));
    else
        cu_buf_printf(&b, "%s", _("no cuDNN"));
    if (p->framework)
        cu_buf_printf(&b, _(", %s %s"), cu_framework_title(p->framework->name), p->framework->version ? p->framework->version : "");
    return cu_buf_steal(&b);
}

/* A version that does not fit for a reason the user can act on in the wizard's terms (advice.h). */
static void
choice_advice(struct cu_choice *c, const struct cu_error *e)
{
    c->adv = e->adv;
    c->adv_arg = e->adv != CU_ADV_NONE ? cu_xstrdup(e->adv_arg) : NULL;
}

enum cu_status
cu_prepare_choices(const struct cu_prepare_in *in, enum cu_product product, const atomic_int *cancel,
                   struct cu_choice **out, size_t *n, struct cu_error *err)
{
    struct cu_wishes w;
    struct cu_mirror_opts mo;
    struct cu_mirror *m = NULL;
    struct cu_manifest_source src;
    char *const *labels;
    size_t n_labels;
    enum cu_status st;

    *out = NULL;
    *n = 0;
    wishes_from(in, &w);
    mirror_opts_from(in, &mo);
    if ((st = cu_wishes_check(&w, err)) != CU_OK || (st = cu_mirror_new(&mo, &m, err)) != CU_OK)
        return st;
    if ((st = cu_mirror_index(m, product, &labels, &n_labels, NULL, err)) != CU_OK)
        goto out;
    cu_mirror_source(m, &src);
    /* The versions that fit with the driver the plan would run, resolved as cu_prepare_plan resolves. */
    *out = cu_xcalloc(n_labels + 1, sizeof(**out));
    {
        struct cu_wishes wa = w;
        struct cu_plan *p = NULL;
        struct cu_drv_plan *drv = NULL;
        struct cu_error e;
        char b[32];
        if (product == CU_PRODUCT_CUDA)
            wa.cuda = NULL;
        else
            wa.cudnn = NULL;
        cu_error_clear(&e);
        struct cu_choice *a = &(*out)[(*n)++];
        a->automatic = true;
        enum cu_status rs = inst_driver_resolve(in, &wa, &src, &drv, &p, &e);
        cu_drv_plan_free(drv);
        if (rs == CU_OK) {
            a->fits = true;
            a->label = cu_xstrdup(product == CU_PRODUCT_CUDA ? cu_version_format(&p->cuda, 0, b, sizeof(b))
                                  : p->has_cudnn                ? cu_version_format(&p->cudnn, 0, b, sizeof(b))
                                                                : _("none"));
            a->note = plan_note(p, product);
        } else {
            a->note = cu_xstrdup(cu_error_text(&e));
            choice_advice(a, &e);
        }
        cu_plan_free(p);
    }
    /* Newest first; within an X.Y the newest patch that fits stands for it, else the newest's reason. */
    char group[32] = "";
    struct cu_choice *c = NULL;
    for (size_t i = 0; i < n_labels; i++) {
        struct cu_version v;
        char mmb[32];
        if (!cu_version_parse(labels[i], &v) || v.n < 2)
            continue;
        if (cancel && atomic_load(cancel)) {
            st = cu_error_set(err, CU_E_CANCELLED, 0, _("Interrupted"));
            goto out;
        }
        cu_version_format(&v, 2, mmb, sizeof(mmb));
        if (strcmp(group, mmb) != 0) {
            snprintf(group, sizeof(group), "%s", mmb);
            c = &(*out)[(*n)++];
        } else if (c->fits) {
            continue;
        }
        struct cu_wishes wv = w;
        if (product == CU_PRODUCT_CUDA)
            wv.cuda = labels[i];
        else
            wv.cudnn = labels[i];
        struct cu_plan *p = NULL;
        struct cu_drv_plan *drv = NULL;
        struct cu_error e;
        cu_error_clear(&e);
        enum cu_status rs = inst_driver_resolve(in, &wv, &src, &drv, &p, &e);
        cu_drv_plan_free(drv);
        if (rs == CU_OK) {
            free(c->label);
            free(c->note);
            cu_clear_ptr(&c->adv_arg, free);
            c->adv = CU_ADV_NONE;
            c->label = cu_xstrdup(labels[i]);
            c->fits = true;
            c->note = plan_note(p, product);
        } else if (!c->label) {
            c->label = cu_xstrdup(labels[i]);
            c->note = cu_xstrdup(cu_error_text(&e));
            choice_advice(c, &e);
        }
        cu_plan_free(p);
    }
    st = CU_OK;
out:
    if (st != CU_OK) {
        cu_choices_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    cu_mirror_free(m);
    return st;
}

void
cu_choices_free(struct cu_choice *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].label);
        free(v[i].note);
        free(v[i].adv_arg);
    }
    free(v);
}

enum cu_status
cu_prepare_check(const struct cu_prepare_in *in, struct cu_error *err)
{
    struct cu_wishes w;
    struct cu_drv_wish dw = {.driver = in->cfg->driver, .source = in->cfg->driver_source, .cuda = in->cfg->cuda};
    enum cu_status st;
    wishes_from(in, &w);
    if ((st = cu_wishes_check(&w, err)) != CU_OK || (st = check_env_opts(in->cfg, err)) != CU_OK ||
        (st = inst_containers_check(in->cfg, err)) != CU_OK || (st = root_env_check(in, err)) != CU_OK)
        return st;
    return cu_drv_wish_check(&dw, err);
}

/*
 * What shipped after the embedded catalog (core/fetch/learn.h): the frameworks asked for, from the package index
 * pip will use (the site mirror's, --index-url's, PIP_INDEX_URL, else PyPI), and the CUDA and cuDNN releases the
 * mirror lists.  @in, or @own with the catalog that knows them (it lives in @lr until the plan is made).
 */
static const struct cu_prepare_in *
learn_releases(const struct cu_prepare_in *in, struct cu_mirror *m, struct cu_prepare_in *own, struct cu_learn_result *lr)
{
    struct cu_error e;
    if (cu_learn_for(in->cfg, !in->unconstrained, in->cache_dir, in->envp, in->catalog, m, lr, &e) != CU_OK)
        cu_log_warn("%s", e.msg);
    if (!lr->cat)
        return in;
    *own = *in;
    own->catalog = lr->cat;
    return own;
}

static enum cu_status prepare_one(const struct cu_prepare_in *in, struct cu_learn_result *lr, struct cu_mirror **mirror,
                                  struct cu_plan **plan, struct cu_error *err);

enum cu_status
cu_prepare_one(const struct cu_prepare_in *in, struct cu_mirror **mirror, struct cu_plan **plan,
               struct cu_error *err)
{
    struct cu_learn_result lr;
    cu_learn_result_init(&lr);
    enum cu_status st = prepare_one(in, &lr, mirror, plan, err);
    if (st == CU_OK)
        cu_learn_explain(&lr, *plan);
    /* Offline, `install` starts only with what it downloads in the cache. */
    if (st == CU_OK && in->cfg->command == CU_CMD_INSTALL && (st = cu_learn_install_check(&lr, *plan, err)) != CU_OK) {
        cu_plan_free(*plan);
        *plan = NULL;
    }
    cu_learn_result_fini(&lr);
    return st;
}

static enum cu_status
prepare_one(const struct cu_prepare_in *in, struct cu_learn_result *lr, struct cu_mirror **mirror, struct cu_plan **plan,
            struct cu_error *err)
{
    struct cu_prepare_in learned_in;
    const struct cu_config *c = in->cfg;
    struct cu_wishes w;
    struct cu_mirror_opts mo;
    struct cu_manifest_source src;
    enum cu_status st;

    *mirror = NULL;
    *plan = NULL;
    wishes_from(in, &w);
    mirror_opts_from(in, &mo);
    if ((st = cu_wishes_check(&w, err)) != CU_OK || (st = check_env_opts(c, err)) != CU_OK ||
        (st = root_env_check(in, err)) != CU_OK)
        return st;
    if ((st = cu_mirror_new(&mo, mirror, err)) != CU_OK)
        return st;
    in = learn_releases(in, *mirror, &learned_in, lr);
    cu_mirror_source(*mirror, &src);
    /* The driver with the plan: the resolver plans for the driver that will run (installers/driver.c). */
    struct cu_drv_plan *drv = NULL;
    if ((st = inst_driver_resolve(in, &w, &src, &drv, plan, err)) != CU_OK)
        return st;
    if (in->unconstrained && drv) {
        /* `mirror` plans what `install` with the same flags plans here, but carries no driver. */
        if (strcmp(drv->action, "install") == 0)
            cu_plan_reason(*plan, _("The nodes need NVIDIA driver %d or newer for this plan; the mirror does not carry it."),
                           drv->branch);
        cu_drv_plan_free(drv);
        drv = NULL;
    }
    inst_driver_image(in, drv);
    (*plan)->driver = drv;
    for (size_t i = 0; drv && strcmp(drv->action, "keep") != 0 && i < drv->reasons.n; i++)
        cu_plan_reason_src(*plan, i < drv->reason_sources.n && *drv->reason_sources.v[i] ? drv->reason_sources.v[i] : NULL,
                           _("Driver: %s"), drv->reasons.v[i]);
    if ((st = inst_driver_bind(in, *plan, err)) != CU_OK || (st = inst_containers_prepare(in, *plan, err)) != CU_OK) {
        cu_plan_free(*plan);
        *plan = NULL;
        return st;
    }
    (*plan)->state_dir = cu_xstrdup(in->state_dir);
    (*plan)->cache_dir = in->cache_dir ? cu_xstrdup(in->cache_dir) : NULL;
    fill_env(in, *plan);
    /* The rc file is checked now, before anything is changed, not after CUDA is in place. */
    if ((*plan)->env.shell_rc && (st = cu_rc_check((*plan)->env.shell_rc, err)) != CU_OK) {
        cu_plan_free(*plan);
        *plan = NULL;
        return st;
    }
    if ((*plan)->framework)
        choose_index(in, *mirror, *plan);
    /* `mirror` plans for other machines: this one's Pythons do not matter. */
    if ((!in->unconstrained && (st = venv_python(in, *plan, err)) != CU_OK) || (st = cu_root_env_links(in, *plan, err)) != CU_OK ||
        (st = preflight(in, cu_mirror_net(*mirror), *plan, err)) != CU_OK) {
        cu_plan_free(*plan);
        *plan = NULL;
        return st;
    }
    /*
     * A site mirror carries the Python the nodes may need, whatever this machine has; not when
     * they are told to use their own (--python-source system) or conda's (--env-tool), or make no
     * environment.
     */
    struct cu_plan *pl = *plan;
    const char *ps = c->python_source, *tool = c->env_tool;
    bool nodes_bring = !(ps && strcmp(ps, "system") == 0) && !(tool && *tool && strcmp(tool, "venv") != 0);
    if (in->unconstrained && pl->framework && !nodes_bring) {
        cu_plan_python_free(pl->python);
        pl->python = NULL;
    } else if (in->unconstrained && pl->framework && (!pl->python || strcmp(pl->python->kind, "cudaup") != 0)) {
        struct cu_plan_python *py = brought_python(in, pl, pl->framework->python);
        if (py) {
            cu_plan_python_free(pl->python);
            pl->python = py;
        } else {
            cu_plan_warn(pl, _("cudaup has no relocatable Python %s for %s, so the site mirror will not carry one; machines need python%s or conda."),
                         pl->framework->python, py_arch(pl->platform), pl->framework->python);
        }
    }
    cu_installers_plan(*plan);
    if (!in->unconstrained) /* `mirror` makes no environment: nothing to hold */
        cu_pyhold_plan(*plan, in->catalog, in->facts);
    cu_pyroot_plan(*plan);
    return CU_OK;
}
