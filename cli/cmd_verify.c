/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "core/machine/syscmd.h"
#include "core/verify/verify_containers.h"
#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/doctor/fwenv.h"
#include "core/install/envfile.h"
#include "core/verify/verify.h"
#include "core/verify/verify_report.h"
#include "installers/maintain.h"
#include "installers/verifyrun.h"
#include "report.h"
#include "term.h"

/* PREFIX/cuda-X.Y when it is the only install cudaup made in PREFIX, else NULL. Caller frees. */
static char *
cu_only_install(const char *prefix)
{
    DIR *d = opendir(prefix);
    struct dirent *de;
    char *found = NULL;
    int n = 0;
    while (d && (de = readdir(d))) {
        if (!cu_str_has_prefix(de->d_name, "cuda-"))
            continue;
        CU_AUTOFREE char *rec = cu_xasprintf("%s/%s/.cudaup/record.json", prefix, de->d_name);
        if (!cu_path_exists(rec))
            continue;
        n++;
        free(found);
        found = cu_xasprintf("%s/%s", prefix, de->d_name);
    }
    if (d)
        closedir(d);
    if (n != 1) {
        free(found);
        return NULL;
    }
    return found;
}

/* The install a command works on: PREFIX/cuda-X.Y for VERSION, else what PREFIX/cuda points at. */
enum cu_status
cu_app_target(struct cu_app *app, char **dir, struct cu_error *err)
{
    struct cu_version v;
    *dir = NULL;
    if (app->cfg.n_args > 1)
        return cu_error_set(err, CU_E_USAGE, 0, _("'%s' takes at most one version."), cu_command_name(app->cfg.command));
    CU_AUTOFREE char *p = NULL;
    if (app->cfg.n_args == 1) {
        if (!cu_version_parse(app->cfg.args[0], &v) || v.n < 2 || v.n > 3)
            return cu_error_set(err, CU_E_USAGE, 0, _("'%s' is not a CUDA version such as 12.4."), app->cfg.args[0]);
        char mm[32];
        p = cu_xasprintf("%s/cuda-%s", app->prefix, cu_version_format(&v, 2, mm, sizeof(mm)));
    } else {
        p = cu_path_join(app->prefix, "cuda");
    }
    char real[PATH_MAX];
    if (app->cfg.n_args == 0 && (!realpath(p, real) || !cu_is_dir(real))) {
        /* No PREFIX/cuda link: with exactly one install of cudaup's there, that is the one meant. */
        char *only = cu_only_install(app->prefix);
        if (only) {
            free(p);
            p = only;
        }
    }
    if (!realpath(p, real) || !cu_is_dir(real)) {
        cu_error_set(err, CU_E_NOT_FOUND, 0, _("There is no CUDA install at %s"), p);
        /* The next step: the versions that are there, or where to look and how to put one there. */
        CU_AUTOFREE char *qp = cu_sh_quote(app->prefix);
        struct cu_strv have;
        cu_strv_init(&have);
        DIR *d = opendir(app->prefix);
        for (struct dirent *de; d && (de = readdir(d)) != NULL;) {
            CU_AUTOFREE char *cand = cu_path_join(app->prefix, de->d_name);
            if (cu_str_has_prefix(de->d_name, "cuda-") && cu_is_dir(cand))
                cu_strv_push(&have, de->d_name + 5);
        }
        if (d)
            closedir(d);
        cu_strv_sort(&have);
        struct cu_buf list;
        cu_buf_init(&list);
        for (size_t i = 0; i < have.n; i++)
            cu_buf_printf(&list, "%s%s", i ? ", " : "", have.v[i]);
        if (have.n)
            cu_error_advise(err, _("Name the version: cudaup %s --prefix %s %s (in %s: %s)."), cu_command_name(app->cfg.command),
                            qp, have.v[have.n - 1], app->prefix, list.data);
        else
            cu_error_advise(err, _("Nothing cudaup knows is installed under %s: cudaup list --prefix %s shows what is; cudaup install --prefix %s puts CUDA there."),
                            app->prefix, qp, qp);
        cu_buf_fini(&list);
        cu_strv_fini(&have);
        return err->code;
    }
    *dir = cu_xstrdup(real);
    return CU_OK;
}

/* The next step for a failed check; repair as the command for this install, whatever --prefix and --state-dir were. */
static char *
check_fix(struct cu_app *app, const struct cu_check *c, const char *version)
{
    enum cu_check_fix kind = cu_check_fix_kind(c);
    if (kind != CU_FIX_REPAIR)
        return kind == CU_FIX_NONE ? NULL : cu_xstrdup(cu_check_fix(c));
    CU_AUTOFREE char *qp = cu_sh_quote(app->prefix);
    CU_AUTOFREE char *qs = cu_sh_quote(app->state_dir);
    CU_AUTOFREE char *qv = version ? cu_sh_quote(version) : NULL;
    CU_AUTOFREE char *rootf = cu_app_root_flag(app);
    return cu_xasprintf(_("cudaup repair%s --prefix %s --state-dir %s%s%s restores the install from its record"), rootf, qp, qs,
                        qv ? " " : "", qv ? qv : "");
}

void
cu_app_verify_dir(struct cu_app *app, const char *dir, const struct cu_facts *facts, struct cu_checks *out)
{
    cu_app_open_log(app); /* verify writes each check there (core/verify/verify_report.c) */
    struct cu_verify_opts o = {
        .dir = dir,
        .facts = facts,
        .cat = app->catalog,
        .deep = app->cfg.deep,
        .require_gpu = app->cfg.require_gpu,
        .timeout_ms = (long)app->cfg.gpu_timeout * 1000,
        .self_exe = app->self_exe,
        .envp = app->envp,
        .cancel = app->cancel,
        .state_dir = app->state_dir,
        .root = &app->root,
    };
    /* The probe is a process of this host: what its loader reads (ld.so.conf, the start-up files) is the
     * host's, whatever --root names for the GPU facts. */
    struct cu_error err;
    struct cu_sysroot host;
    cu_error_clear(&err);
    bool have_host = cu_sysroot_init(&host, "/", &err) == CU_OK;
    o.ld_root = have_host ? &host : NULL;
    /* The install and the environments STATE records, or (no @dir) the environment that holds its own toolkit;
     * GPU containers where cudaup set them up: as the wizard's Validation checks them (installers/verifyrun.h). */
    cu_verify_installed(&o, out);
    if (have_host)
        cu_sysroot_fini(&host);
}

json_t *
cu_app_checks_json(struct cu_app *app, const struct cu_checks *checks, const char *version)
{
    json_t *arr = cu_checks_json(checks);
    for (size_t i = 0; i < checks->n && i < json_array_size(arr); i++) {
        CU_AUTOFREE char *fix = check_fix(app, &checks->v[i], version);
        if (fix)
            json_object_set_new(json_array_get(arr, i), "fix", json_string(fix));
    }
    return arr;
}

void
cu_app_print_checks(struct cu_app *app, const struct cu_checks *checks, bool failed_only, const char *version)
{
    for (size_t i = 0; i < checks->n; i++) {
        const struct cu_check *c = &checks->v[i];
        if (failed_only && c->status != CU_CHECK_FAIL)
            continue;
        enum cu_color col = c->status == CU_CHECK_PASS   ? CU_COLOR_GREEN
                            : c->status == CU_CHECK_FAIL ? CU_COLOR_RED
                                                         : CU_COLOR_DIM;
        const char *word = c->status == CU_CHECK_PASS ? _("pass") : c->status == CU_CHECK_FAIL ? _("fail") : _("skip");
        printf("  %s", cu_color(app, col, false));
        cu_print_padded(stdout, word, 5);
        printf("%s %-11s ", cu_color_reset(app, false), c->name);
        /* "  pass  cudart      ": 2 + 5 + 1 + 11 + 1 columns before the detail */
        size_t lead = 20 + (strlen(c->name) > 11 ? strlen(c->name) - 11 : 0);
        /* A detail that ends "…; repair restores it" is followed by the exact repair command:
         * the fact alone, then the Fix line, says it once. */
        bool repair_said = c->fact && c->adv == CU_ADV_REPAIR && cu_check_fix_kind(c) == CU_FIX_REPAIR;
        cu_print_wrapped_at(stdout, lead, 20, repair_said ? c->fact : c->detail, cu_term_width(STDOUT_FILENO));
        CU_AUTOFREE char *fix = check_fix(app, c, version);
        if (fix) {
            CU_AUTOFREE char *line = cu_xasprintf(_("Fix: %s"), fix);
            printf("%20s", "");
            cu_print_wrapped_at(stdout, 20, 20, line, cu_term_width(STDOUT_FILENO));
        }
    }
}

/*
 * The folder of `verify --env PATH|NAME`: PATH as given when it is a folder; else a conda environment of that
 * name (the conda base's envs/NAME, $CONDA_ENVS_PATH, ~/.conda/envs/NAME; or the base itself for "base").  With
 * its Python (ENV/bin/python).  Caller frees both.
 */
static enum cu_status
find_env(struct cu_app *app, const struct cu_facts *facts, char **env, char **python, struct cu_error *err)
{
    const char *want = app->cfg.env;
    struct cu_strv cands;
    cu_strv_init(&cands);
    if (strchr(want, '/') || cu_is_dir(want)) {
        cu_strv_push(&cands, want);
    } else {
        const char *home = cu_env_get(app->envp, "HOME"), *ep = cu_env_get(app->envp, "CONDA_ENVS_PATH");
        const char *cp = cu_env_get(app->envp, "CONDA_PREFIX");
        if (facts && facts->pyenv && facts->pyenv->path && strcmp(facts->pyenv->tool, "venv") != 0) {
            CU_AUTOFREE char *base = cu_xstrdup(facts->pyenv->path); /* BASE/bin/conda */
            for (int up = 0; up < 2 && strrchr(base, '/'); up++)
                *strrchr(base, '/') = '\0';
            cu_strv_push_owned(&cands, strcmp(want, "base") == 0 ? cu_xstrdup(base) : cu_xasprintf("%s/envs/%s", base, want));
        }
        if (cp && cp[0] == '/') {
            CU_AUTOFREE char *up = cu_xstrdup(cp); /* an active BASE/envs/OTHER: BASE/envs/NAME */
            if (strrchr(up, '/'))
                *strrchr(up, '/') = '\0';
            cu_strv_push_owned(&cands, cu_xasprintf("%s/%s", up, want));
            cu_strv_push_owned(&cands, cu_xasprintf("%s/envs/%s", cp, want));
        }
        struct cu_strv eps;
        cu_strv_init(&eps);
        cu_strv_split(&eps, ep ? ep : "", ":");
        for (size_t i = 0; i < eps.n; i++)
            cu_strv_push_owned(&cands, cu_xasprintf("%s/%s", eps.v[i], want));
        cu_strv_fini(&eps);
        if (home && home[0] == '/')
            cu_strv_push_owned(&cands, cu_xasprintf("%s/.conda/envs/%s", home, want));
    }
    enum cu_status st = CU_E_USAGE;
    for (size_t i = 0; i < cands.n && st != CU_OK; i++) {
        char real[PATH_MAX];
        if (!realpath(cands.v[i], real) || !cu_is_dir(real))
            continue;
        CU_AUTOFREE char *py = cu_xasprintf("%s/bin/python", real);
        if (access(py, X_OK) != 0) {
            free(py);
            py = cu_xasprintf("%s/bin/python3", real);
        }
        if (access(py, X_OK) != 0) {
            cu_error_set(err, CU_E_USAGE, 0, _("%s has no Python of its own (bin/python): it is not a conda environment or venv."), real);
            cu_strv_fini(&cands);
            return err->code;
        }
        *env = cu_xstrdup(real);
        *python = cu_steal_ptr(&py);
        st = CU_OK;
    }
    cu_strv_fini(&cands);
    if (st != CU_OK) {
        cu_error_set(err, CU_E_USAGE, 0, _("There is no conda environment or venv '%s'."), want);
        cu_error_advise(err, _("Give the environment's folder (cudaup verify --env /path/to/env) or a conda environment's name (conda env list shows them)."));
    }
    return st;
}

/* `verify --env`: the environment's own checks, its frameworks found in it as doctor finds them. */
/*
 * An environment's checks reported as verify reports them: with --json one document {path, [toolkit,] status, checks,
 * damaged, libraries, summary}, else a header naming the path (and the toolkit, where @toolkit: "wheels" or "none")
 * and the checks.  4 when one failed, else 0.
 */
static int
report_env_checks(struct cu_app *app, const struct cu_checks *checks, const char *path, const char *toolkit)
{
    bool failed = cu_checks_failed(checks);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "path", json_string(path));
        if (toolkit)
            json_object_set_new(doc, "toolkit", json_string(toolkit));
        json_object_set_new(doc, "status", json_string(failed ? "fail" : "pass"));
        json_object_set_new(doc, "checks", cu_app_checks_json(app, checks, NULL));
        json_object_set_new(doc, "damaged", cu_checks_damaged_json(checks));
        json_object_set_new(doc, "libraries", checks->libraries ? json_incref(checks->libraries) : json_array());
        CU_AUTOFREE char *sum = cu_checks_summary(checks);
        json_object_set_new(doc, "summary", json_string(sum));
        cu_report_json(app, doc);
    } else {
        if ((!app->cfg.quiet || failed) && !toolkit)
            printf(_("Checking %s\n"), path);
        else if (!app->cfg.quiet || failed)
            printf(strcmp(toolkit, "wheels") == 0 ? _("Checking %s and the CUDA toolkit of its compiler wheels (--toolkit wheels)\n")
                                                  : _("Checking %s (--toolkit none: no CUDA toolkit)\n"),
                   path);
        cu_app_print_checks(app, checks, app->cfg.quiet, NULL);
        if (!app->cfg.quiet) {
            CU_AUTOFREE char *sum = cu_checks_summary(checks);
            cu_say(stdout, "", "%s", sum);
        }
    }
    return failed ? 4 : 0;
}

static int
verify_env(struct cu_app *app)
{
    struct cu_error err;
    struct cu_facts *facts = NULL;
    CU_AUTOFREE char *env = NULL, *python = NULL;
    struct cu_checks checks;
    struct cu_sysroot host;
    int rc;
    cu_error_clear(&err);
    if (app->cfg.n_args) {
        cu_error_set(&err, CU_E_USAGE, 0, _("verify --env checks an environment, not a CUDA version: leave out '%s'."),
                     app->cfg.args[0]);
        return cu_report_error(app, &err);
    }
    if (cu_app_probe(app, &facts, &err) != CU_OK || find_env(app, facts, &env, &python, &err) != CU_OK ||
        cu_sysroot_init(&host, "/", &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        cu_facts_free(facts);
        return rc;
    }
    struct cu_fwenvs fw = {0};
    cu_fwenvs_add(&host, app->catalog, env, &fw);
    struct cu_buf names;
    cu_buf_init(&names);
    bool bundled = false;
    for (size_t i = 0; i < fw.n; i++) {
        if (!strstr(names.data ? names.data : "", fw.v[i].framework))
            cu_buf_printf(&names, "%s%s", names.len ? "," : "", fw.v[i].framework);
        bundled |= fw.v[i].bundled;
    }
    cu_app_open_log(app);
    struct cu_verify_opts o = {
        .facts = facts,
        .cat = app->catalog,
        .require_gpu = app->cfg.require_gpu,
        .timeout_ms = (long)app->cfg.gpu_timeout * 1000,
        .self_exe = app->self_exe,
        .envp = app->envp,
        .cancel = app->cancel,
        .state_dir = app->state_dir,
        .root = &app->root,
        .ld_root = &host,
        .python = python,
        .framework = names.len ? names.data : NULL,
        .bundled = bundled,
        .env_name = env,
    };
    /* An environment cudaup made with its own toolkit (STATE/pyenv.json): that toolkit is checked too. */
    struct cu_pyenv_recs recs;
    cu_pyenv_recs_read(app->state_dir, &recs);
    const char *own = NULL;
    CU_AUTOFREE char *real = realpath(env, NULL);
    for (size_t k = 0; real && k < recs.n && !own; k++) {
        /* its folder as recorded: the venv's python may link out of it */
        CU_AUTOFREE char *rec_env = recs.v[k].python ? cu_venv_of(recs.v[k].python) : NULL;
        CU_AUTOFREE char *rec_real = rec_env ? realpath(rec_env, NULL) : NULL;
        const char *kind = recs.tk[k].kind;
        if (rec_real && strcmp(rec_real, real) == 0 && kind && (strcmp(kind, "wheels") == 0 || strcmp(kind, "none") == 0)) {
            o.toolkit = recs.tk[k];
            own = kind;
        }
    }
    if (o.framework && own) {
        cu_verify_run_toolkit_env(&o, &checks);
    } else if (o.framework) {
        cu_verify_run_env(&o, &checks);
    } else {
        memset(&checks, 0, sizeof(checks));
        cu_checks_add(&checks, "framework", CU_CHECK_SKIP, _("%s holds no PyTorch, TensorFlow or JAX"), env);
    }
    rc = report_env_checks(app, &checks, env, own);
    cu_pyenv_recs_fini(&recs);
    cu_checks_fini(&checks);
    cu_buf_fini(&names);
    cu_fwenvs_fini(&fw);
    cu_sysroot_fini(&host);
    cu_facts_free(facts);
    return rc;
}

/*
 * `verify` where no CUDA install is there but STATE/pyenv.json records an environment that holds its own toolkit
 * (--toolkit wheels or none, issue 50): that environment's checks, its toolkit's among them.  -1 when there is none
 * (the caller says there is no CUDA install).
 */
static int
verify_toolkit_env(struct cu_app *app)
{
    struct cu_toolkit_env te;
    if (!cu_toolkit_env_find(app->state_dir, app->cfg.n_args == 1 ? app->cfg.args[0] : NULL, &te))
        return -1;
    struct cu_error err;
    struct cu_facts *facts = NULL;
    cu_error_clear(&err);
    if (cu_app_probe(app, &facts, &err) != CU_OK) {
        cu_toolkit_env_fini(&te);
        return cu_report_error(app, &err);
    }
    struct cu_checks checks;
    cu_app_verify_dir(app, NULL, facts, &checks);
    int rc = report_env_checks(app, &checks, te.path, te.kind);
    cu_checks_fini(&checks);
    cu_facts_free(facts);
    cu_toolkit_env_fini(&te);
    return rc;
}

int
cu_cmd_verify(struct cu_app *app)
{
    struct cu_error err;
    struct cu_facts *facts = NULL;
    CU_AUTOFREE char *dir = NULL;
    struct cu_checks checks;
    int rc;

    if (app->cfg.env)
        return verify_env(app);
    cu_error_clear(&err);
    enum cu_status tst = cu_app_target(app, &dir, &err);
    if (tst == CU_E_NOT_FOUND && (rc = verify_toolkit_env(app)) >= 0)
        goto out; /* no CUDA install: the environment's own toolkit (--toolkit wheels or none) */
    if (tst != CU_OK || cu_app_probe(app, &facts, &err) != CU_OK) {
        rc = cu_report_error(app, &err);
        goto out;
    }
    const char *version = app->cfg.n_args ? app->cfg.args[0] : NULL;
    cu_app_verify_dir(app, dir, facts, &checks);
    bool failed = cu_checks_failed(&checks);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "path", json_string(dir));
        json_object_set_new(doc, "status", json_string(failed ? "fail" : "pass"));
        json_object_set_new(doc, "checks", cu_app_checks_json(app, &checks, version));
        json_object_set_new(doc, "damaged", cu_checks_damaged_json(&checks));
        /* The CUDA libraries the frameworks really mapped (DESIGN verify libraries[]). */
        json_object_set_new(doc, "libraries", checks.libraries ? json_incref(checks.libraries) : json_array());
        CU_AUTOFREE char *sum = cu_checks_summary(&checks);
        json_object_set_new(doc, "summary", json_string(sum));
        cu_report_json(app, doc);
    } else {
        if (!app->cfg.quiet || failed)
            printf(_("Checking %s\n"), dir);
        cu_app_print_checks(app, &checks, app->cfg.quiet, version);
        if (!app->cfg.quiet) {
            CU_AUTOFREE char *sum = cu_checks_summary(&checks);
            cu_say(stdout, "", "%s", sum);
        }
        if (checks.n_damaged) {
            /* The next step, as a command for this install, whatever --prefix and --state-dir were. */
            CU_AUTOFREE char *qp = cu_sh_quote(app->prefix);
            CU_AUTOFREE char *qs = cu_sh_quote(app->state_dir);
            CU_AUTOFREE char *qv = version ? cu_sh_quote(version) : NULL;
            CU_AUTOFREE char *rootf = cu_app_root_flag(app);
            cu_say(stdout, "", _("To restore the damaged files: cudaup repair%s --prefix %s --state-dir %s%s%s"), rootf, qp, qs,
                   qv ? " " : "", qv ? qv : "");
        }
    }
    rc = failed ? 4 : 0;
    cu_checks_fini(&checks);
out:
    cu_facts_free(facts);
    return rc;
}

int
cu_check_child_main(int argc, char **argv)
{
    struct cu_check c = {0};
    if (argc != 4)
        return 2;
    cu_check_child(argv[2], argv[3], &c);
    json_t *o = json_object();
    json_object_set_new(o, "status", json_string(cu_check_status_name(c.status)));
    json_object_set_new(o, "detail", json_string(c.detail ? c.detail : ""));
    if (c.fact) {
        json_object_set_new(o, "fact", json_string(c.fact));
        json_object_set_new(o, "advice", json_string(cu_advice_name(c.adv)));
    }
    if (c.fix)
        json_object_set_new(o, "fix", json_string(c.fix));
    char *s = json_dumps(o, JSON_COMPACT);
    printf("%s\n", s);
    fflush(stdout);
    free(s);
    json_decref(o);
    free(c.name);
    free(c.detail);
    free(c.fact);
    free(c.fix);
    return 0;
}
