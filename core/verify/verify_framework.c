/* SPDX-License-Identifier: MIT */
/*
 * The framework's environment: the Python cudaup brought for its venv (its recorded files, and
 * that it runs) and the framework probe (data/fwprobe.py) run in that venv, with the judge of what
 * the probe saw: code for every GPU, the cuDNN pip put beside it (verify_libs.c), the GPUs the
 * framework sees, and GPU work that agrees with the CPU.
 */
#include "config.h"

#include "core/verify/verify_int.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/advice.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/macros.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/catalog/gpucode.h"
#include "core/install/envfile.h"
#include "core/install/record.h"
#include "core/machine/sysinfo.h"
#include "core/resolve/plan.h"
#include "core/verify/checks.h"
#include "core/verify/verify.h"
#include "core/verify/verify_libs.h"
#include "core/verify/verify_loaded.h"
#include "core/verify/verify_report.h"

extern const unsigned char cu_fwprobe_py[];
extern const size_t cu_fwprobe_py_len;

/* A build's GPU code from its own arch list ("sm_50", "compute_90", "sm_90a"). False when none parses. */
static bool
arch_code(const json_t *arch, struct cu_cat_code *c)
{
    size_t n = json_array_size(arch);
    memset(c, 0, sizeof(*c));
    c->sass = cu_xcalloc(n + 1, sizeof(int));
    c->ptx = cu_xcalloc(n + 1, sizeof(int));
    for (size_t i = 0; i < n; i++)
        cu_code_add_arch(c, json_string_value(json_array_get(arch, i)));
    return c->n_sass + c->n_ptx > 0;
}

/* "9.1.0" against "9.3.0": the loaded cuDNN must be the build's major, at its minor or newer. */
static bool
cudnn_too_old(const char *loaded, const char *build, struct cu_version *l, struct cu_version *b)
{
    if (!loaded || !build || !cu_version_parse(loaded, l) || !cu_version_parse(build, b))
        return false;
    if (l->part[0] != b->part[0])
        return true;
    struct cu_version lm = {{l->part[0], l->n > 1 ? l->part[1] : 0}, 2};
    struct cu_version bm = {{b->part[0], b->n > 1 ? b->part[1] : 0}, 2};
    return b->n > 1 && cu_version_cmp(&lm, &bm) < 0;
}

/* Judge what the probe saw of one framework: every cause of a failure is a check of its own (issue 47); a pass
 * when none is found. */
static void
judge_framework(const struct cu_verify_opts *o, const json_t *j, struct cu_checks *out)
{
    char b1[32], b2[32];
    const char *name = cu_framework_title(cu_json_str(j, "framework") ? cu_json_str(j, "framework") : o->framework);
    const char *ver = cu_json_str(j, "version") ? cu_json_str(j, "version") : "?";
    const char *cuda = cu_json_str(j, "cuda_build");
    const char *dnn_b = cu_json_str(j, "cudnn_build"), *dnn_l = cu_json_str(j, "cudnn_loaded");
    const json_t *devs = json_object_get(j, "devices");
    size_t seen = json_array_size(devs), ngpu = o->facts ? o->facts->n_gpus : 0, before = out->n;
    CU_AUTOFREE char *built = cu_xasprintf("%s%s", cuda ? _(", built for CUDA ") : "", cuda ? cuda : "");

    if (!cu_verify_has_driver(o->facts)) {
        cu_checks_add(out, "framework", o->require_gpu ? CU_CHECK_FAIL : CU_CHECK_SKIP,
                      _("%s %s imports%s; no GPU work was done: no NVIDIA driver is loaded"), name, ver, built);
        return;
    }
    /* The build's own code against every GPU the driver sees. */
    struct cu_cat_code code;
    const json_t *arch = json_object_get(j, "arch");
    bool have_code = json_is_array(arch) && arch_code(arch, &code);
    bool no_code = false;
    for (size_t i = 0; have_code && i < ngpu; i++) {
        const struct cu_gpu_info *g = &o->facts->gpus[i];
        int target;
        if (!g->cc.n || cu_code_fit(&code, &g->cc, &target) != CU_CODE_NONE)
            continue;
        CU_AUTOFREE char *has = cu_code_describe(&code);
        cu_checks_add(out, "framework", CU_CHECK_FAIL,
                      _("%s %s has no code for compute capability %s (GPU %d, %s): it was built for %s"), name, ver,
                      cu_version_format(&g->cc, 0, b1, sizeof(b1)), g->index, g->name, has);
        no_code = true;
    }
    if (have_code) {
        free(code.sass);
        free(code.ptx);
    }
    cu_verify_pip_libs(o->cat, o->facts, j, out);
    struct cu_version l, b;
    if (cudnn_too_old(dnn_l, dnn_b, &l, &b))
        cu_checks_add(out, "framework", CU_CHECK_FAIL,
                      _("cuDNN %s was loaded but %s %s needs %s or newer in %u.x"),
                      cu_version_format(&l, 2, b1, sizeof(b1)), name, ver, cu_version_format(&b, 2, b2, sizeof(b2)),
                      b.part[0]);
    if (seen == 0 && ngpu > 0 && !no_code)
        cu_checks_add(out, "framework", CU_CHECK_FAIL, ngettext_("the driver sees %zu GPU and %s %s none%s", "the driver sees %zu GPUs and %s %s none%s", ngpu), ngpu, name, ver,
                      cu_json_str(j, "backend_error") ? cu_json_str(j, "backend_error") : "");
    for (size_t i = 0; i < seen; i++) {
        const json_t *d = json_array_get(devs, i);
        json_int_t idx = json_integer_value(json_object_get(d, "index"));
        const char *err = cu_json_str(d, "error");
        if (err)
            cu_checks_add(out, "framework", CU_CHECK_FAIL, _("%s %s on GPU %lld: %s"), name, ver, (long long)idx, err);
        else if (!json_is_true(json_object_get(d, "on_gpu")))
            cu_checks_add(out, "framework", CU_CHECK_FAIL,
                          _("%s %s ran the work for GPU %lld on the CPU: it cannot use that GPU"), name, ver,
                          (long long)idx);
        else {
            if (!json_is_true(json_object_get(d, "matmul")))
                cu_checks_add(out, "framework", CU_CHECK_FAIL,
                              _("a matrix multiply by %s on GPU %lld differs from the same work on the CPU"), name,
                              (long long)idx);
            if (!json_is_true(json_object_get(d, "conv")))
                cu_checks_add(out, "framework", CU_CHECK_FAIL,
                              _("a 2-D convolution (cuDNN) by %s on GPU %lld differs from the same work on the CPU"), name,
                              (long long)idx);
        }
    }
    if (out->n > before)
        return;
    cu_checks_add(out, "framework", CU_CHECK_PASS,
                  ngettext_("%s %s%s%s%s: a matrix multiply and a 2-D convolution on %zu GPU agree with the CPU",
                            "%s %s%s%s%s: a matrix multiply and a 2-D convolution on %zu GPUs agree with the CPU", seen), name, ver,
                  built, dnn_l || dnn_b ? _(", cuDNN ") : "", dnn_l ? dnn_l : dnn_b ? dnn_b : "", seen);
}

/* The framework at work when the probe ended (its last "cudaup-fwprobe: start NAME" line without a "done" after it),
 * or NULL: caller frees.  *@last gets the last line of stderr that is not one of the probe's own (borrowed, into
 * @err, which is changed), or NULL. */
static char *
probe_at_work(char *err, const char **last)
{
    static const char start[] = "cudaup-fwprobe: start ", done[] = "cudaup-fwprobe: done ";
    char *at = NULL, *save = NULL;
    *last = NULL;
    for (char *line = strtok_r(err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (cu_str_has_prefix(line, start)) {
            free(at);
            at = cu_xstrdup(line + strlen(start));
        } else if (cu_str_has_prefix(line, done)) {
            free(at);
            at = NULL;
        } else if (*cu_str_strip(line)) {
            *last = line;
        }
    }
    return at;
}

/* "SIGSEGV" for 11: the usual signals a crashed process ends by, else NULL. */
static const char *
signal_name(int sig)
{
    static const struct {
        int n;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"}, {SIGILL, "SIGILL"}, {SIGFPE, "SIGFPE"},
                 {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"}, {SIGINT, "SIGINT"},
                 {SIGHUP, "SIGHUP"}, {SIGQUIT, "SIGQUIT"}, {SIGPIPE, "SIGPIPE"}, {SIGXCPU, "SIGXCPU"}};
    for (size_t i = 0; i < CU_N_ELEMENTS(names); i++)
        if (names[i].n == sig)
            return names[i].name;
    return NULL;
}

/* The titles of the frameworks of @csv ("pytorch,jax"), all but the last @drop, joined: "PyTorch, JAX".  Caller frees. */
static char *
titles_of(const char *csv, size_t drop)
{
    struct cu_strv items;
    struct cu_buf b;
    cu_strv_init(&items);
    cu_buf_init(&b);
    cu_strv_split(&items, csv, ",");
    for (size_t i = 0; i + drop < items.n; i++)
        cu_buf_printf(&b, "%s%s", i ? _(", ") : "", cu_framework_title(items.v[i]));
    cu_strv_fini(&items);
    return cu_buf_steal(&b);
}

/* The failed check of a probe that ended before it printed its document, about the framework at work (@fw, or the
 * whole @order when none had started), saying how it ended; @ctx: " (imported after PyTorch)" or "". */
static void
probe_died(const struct cu_exec_result *res, const char *fw, const char *order, const char *last, const char *ctx,
           struct cu_checks *out)
{
    CU_AUTOFREE char *who = NULL;
    if (fw) {
        who = cu_xstrdup(cu_framework_title(fw));
    } else {
        CU_AUTOFREE char *all = titles_of(order, 0);
        who = cu_xasprintf(_("the probe of %s"), all);
    }
    char how[64];
    const char *sig = res->signo ? signal_name(res->signo) : NULL;
    if (res->signo && sig)
        snprintf(how, sizeof(how), _("signal %d (%s)"), res->signo, sig);
    else if (res->signo)
        snprintf(how, sizeof(how), _("signal %d"), res->signo);
    if (res->signo && last)
        cu_checks_add(out, "framework", CU_CHECK_FAIL, _("%s%s does not import: its process was killed by %s: %s"), who,
                      ctx, how, last);
    else if (res->signo)
        cu_checks_add(out, "framework", CU_CHECK_FAIL,
                      _("%s%s does not import: its process was killed by %s, with nothing on its standard error"), who, ctx,
                      how);
    else if (last)
        cu_checks_add(out, "framework", CU_CHECK_FAIL, _("%s%s does not import: its process ended with exit code %d: %s"),
                      who, ctx, res->exit_code, last);
    else
        cu_checks_add(out, "framework", CU_CHECK_FAIL,
                      _("%s%s does not import: its process ended with exit code %d, with nothing on its standard error"),
                      who, ctx, res->exit_code);
    if (fw)
        cu_checks_about(out, fw);
}

/*
 * Run the probe in @env's interpreter, importing its frameworks in @order ("pytorch,jax").  LD_LIBRARY_PATH
 * is the user's as it is: what loads is what they would get; frameworks without CUDA wheels of their own
 * find the install's lib64 ahead of it, as the environment's activation or env.sh gives them.  The
 * probe's document, or NULL with a failed check saying why; *@died then names the framework whose work ended the
 * probe's process (caller frees), when one did.
 */
static json_t *
run_probe(const struct cu_verify_opts *o, const struct cu_verify_env *env, const char *order, struct cu_checks *out,
          char **died)
{
    CU_AUTOFREE char *code = cu_xstrndup((const char *)cu_fwprobe_py, cu_fwprobe_py_len);
    CU_AUTOFREE char *first = cu_xstrndup(order, strcspn(order, ","));
    const char *title = cu_framework_title(first);
    *died = NULL;
    const char *llp = cu_env_get(o->envp, "LD_LIBRARY_PATH");
    CU_AUTOFREE char *libs = env->bundled || !o->dir ? NULL
                                                     : cu_xasprintf("LD_LIBRARY_PATH=%s/lib64%s%s", o->dir, llp && *llp ? ":" : "",
                                                                    llp && *llp ? llp : "");
    struct cu_strv envv;
    cu_strv_init(&envv);
    for (const char *const *e = o->envp; e && *e; e++)
        if ((!libs || !cu_str_has_prefix(*e, "LD_LIBRARY_PATH=")) && !cu_str_has_prefix(*e, "CUDAUP_PROBE_NO_DRIVER="))
            cu_strv_push(&envv, *e);
    if (libs)
        cu_strv_push(&envv, libs);
    /* Without a driver the probe leaves out what would crash it there (JAX's own check of the libraries, made by
     * the probe one call at a time). */
    if (!cu_verify_has_driver(o->facts))
        cu_strv_push(&envv, "CUDAUP_PROBE_NO_DRIVER=1");
    const char *argv[] = {env->python, "-c", code, order, NULL};
    struct cu_exec_opts eo = {.envp = (const char *const *)envv.v, .timeout_ms = o->timeout_ms * 3, .cancel = o->cancel};
    struct cu_exec_result res;
    struct cu_error err;
    json_t *j = NULL;
    cu_exec_result_init(&res);
    if (cu_exec(argv, &eo, &res, &err) != CU_OK) {
        cu_checks_add(out, "framework", CU_CHECK_FAIL, _("cannot run %s: %s"), env->python, cu_error_text(&err));
    } else if (res.timed_out) {
        const char *last;
        CU_AUTOFREE char *at = res.err.len ? probe_at_work(res.err.data, &last) : NULL;
        cu_checks_add(out, "framework", CU_CHECK_FAIL, _("%s did not finish its GPU work within %ld s (a hung driver or GPU?)"),
                      cu_framework_title(at ? at : first), o->timeout_ms * 3 / 1000);
        cu_checks_about(out, at ? at : first);
    } else if (res.exit_code != 0) {
        /* Named for the framework at work when it ended (a crashed import names no one on stderr), and how it ended. */
        const char *last = NULL;
        char *at = res.err.len ? probe_at_work(res.err.data, &last) : NULL;
        CU_AUTOFREE char *before = NULL;
        if (at) {
            const char *p = strstr(order, at);
            if (p && p != order) {
                CU_AUTOFREE char *prev = cu_xstrndup(order, (size_t)(p - order - 1));
                CU_AUTOFREE char *titles = titles_of(prev, 0);
                before = cu_xasprintf(_(" (imported after %s)"), titles);
            }
        }
        probe_died(&res, at, order, last, before ? before : "", out);
        *died = at;
    } else {
        const char *line = strrchr(cu_str_strip(res.out.data), '\n');
        line = line ? line + 1 : res.out.data;
        if (cu_json_parse_object(line, strlen(line), "framework", &j, &err) != CU_OK || !json_is_array(json_object_get(j, "frameworks"))) {
            cu_checks_add(out, "framework", CU_CHECK_FAIL, _("%s printed something unexpected"), title);
            json_decref(j);
            j = NULL;
        }
    }
    cu_exec_result_fini(&res);
    cu_strv_fini(&envv);
    return j;
}

/* @items without those in @dead, joined by @sep (framework names, or their titles with @titled). */
static char *
order_without(const struct cu_strv *items, const struct cu_strv *dead, const char *sep, bool titled, bool reverse)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t k = 0; k < items->n; k++) {
        const char *it = items->v[reverse ? items->n - 1 - k : k];
        if (!cu_strv_contains(dead, it))
            cu_buf_printf(&b, "%s%s", b.len ? sep : "", titled ? cu_framework_title(it) : it);
    }
    return cu_buf_steal(&b);
}

/* The probe in the order @items (@reverse: backwards), leaving out the frameworks in @dead; a framework whose work
 * ends the probe's process is added to @dead, and the probe runs again without it, so that every other framework is
 * still judged.  The document, or NULL. */
static json_t *
probe_survivors(const struct cu_verify_opts *o, const struct cu_verify_env *env, const struct cu_strv *items, bool reverse,
                struct cu_strv *dead, struct cu_checks *out)
{
    for (size_t tries = 0; tries <= items->n; tries++) {
        CU_AUTOFREE char *order = order_without(items, dead, ",", false, reverse);
        if (!*order)
            return NULL;
        char *died = NULL;
        json_t *j = run_probe(o, env, order, out, &died);
        if (j || !died || cu_strv_contains(dead, died)) {
            free(died);
            return j;
        }
        cu_strv_push_owned(dead, died);
    }
    return NULL;
}

/* Each framework of one probe run: its own check; @after, when set, says which were imported before it. */
static void
judge_run(const struct cu_verify_opts *o, const json_t *run, const char *after, struct cu_checks *out)
{
    const json_t *fws = json_object_get(run, "frameworks");
    for (size_t i = 0; i < json_array_size(fws); i++) {
        const json_t *f = json_array_get(fws, i);
        const char *title = cu_framework_title(cu_json_str(f, "framework") ? cu_json_str(f, "framework") : "");
        struct cu_checks one;
        memset(&one, 0, sizeof(one));
        if (cu_json_str(f, "import_error"))
            cu_checks_add(&one, "framework", CU_CHECK_FAIL, _("%s does not import: %s"), title, cu_json_str(f, "import_error"));
        else
            judge_framework(o, f, &one);
        for (size_t k = 0; k < one.n; k++) {
            struct cu_check *c = &one.v[k];
            /* The other order adds only what fails there: the same pass twice says nothing new. */
            if (after && c->status != CU_CHECK_FAIL)
                continue;
            if (after) {
                char *d = cu_xasprintf(_("with %s imported first: %s"), after, c->detail);
                free(c->detail);
                c->detail = d;
            }
            cu_checks_add_advised(out, c->name, c->status, c->adv, c->fact, c->detail);
            c->fact = c->detail = NULL;
            out->v[out->n - 1].fix = cu_steal_ptr(&c->fix);
            cu_checks_about(out, cu_json_str(f, "framework"));
        }
        cu_checks_fini(&one);
    }
}

/* One environment: its frameworks in the order recorded, then in the other; then what they mapped. */
/* A venv relocated for a machine image (installers/pyroot.h): its checks are that machine's.  True when skipped. */
static bool
skip_image_env(const char *python, const char *check, struct cu_checks *out)
{
    CU_AUTOFREE char *env = cu_venv_of(python);
    CU_AUTOFREE char *root = NULL;
    CU_AUTOFREE char *seen = NULL;
    if (!cu_venv_for_image(env, &root, &seen))
        return false;
    cu_checks_add(out, check, CU_CHECK_SKIP,
                  _("%s is the environment of the machine under %s, named as that machine sees it (%s), so its Python does not run here: its checks run on that machine (`cudaup verify` there, or its first boot)"),
                  env, root, seen);
    return true;
}

static void
check_env(const struct cu_verify_opts *o, const struct cu_verify_env *env, struct cu_checks *out)
{
    json_t *runs[2] = {NULL, NULL};
    size_t n = 0;
    if (skip_image_env(env->python, "framework", out))
        return;
    struct cu_strv items, dead;
    cu_strv_init(&items);
    cu_strv_init(&dead);
    cu_strv_split(&items, env->framework, ",");
    if ((runs[0] = probe_survivors(o, env, &items, false, &dead, out)) != NULL) {
        n = 1;
        judge_run(o, runs[0], NULL, out);
    }
    /* The other order, when two or more frameworks are left to import. */
    if (runs[0] && items.n - dead.n >= 2) {
        if ((runs[1] = probe_survivors(o, env, &items, true, &dead, out)) != NULL) {
            /* Imported before the last one, in this order: said beside each of its failures. */
            CU_AUTOFREE char *ord = order_without(&items, &dead, ",", false, true);
            CU_AUTOFREE char *before = titles_of(ord, 1);
            n = 2;
            judge_run(o, runs[1], *before ? before : NULL, out);
        }
    }
    if (n)
        cu_verify_judge_libraries(o, env->name, env->bundled, (const json_t *const *)runs, n, out);
    json_decref(runs[0]);
    json_decref(runs[1]);
    cu_strv_fini(&items);
    cu_strv_fini(&dead);
}

void
cu_verify_check_framework(const struct cu_verify_opts *o, struct cu_checks *out)
{
    if (!o->python || !o->framework) {
        cu_checks_add(out, "framework", CU_CHECK_SKIP, _("no framework environment is recorded for this install"));
        return;
    }
    struct cu_verify_env first = {o->env_name, o->python, o->framework, o->bundled};
    check_env(o, &first, out);
    for (size_t i = 0; i < o->n_more; i++)
        check_env(o, &o->more[i], out);
}

void
cu_verify_run_env(const struct cu_verify_opts *o, struct cu_checks *out)
{
    memset(out, 0, sizeof(*out));
    cu_verify_check_python(o, out);
    cu_verify_check_framework(o, out);
    cu_checks_log(out, o->env_name ? o->env_name : o->python);
}

/* The Python cudaup brought for the framework's venv: its recorded files, and that it runs. */
void
cu_verify_check_python(const struct cu_verify_opts *o, struct cu_checks *out)
{
    if (!o->python || skip_image_env(o->python, "python", out))
        return;
    CU_AUTOFREE char *env = cu_venv_of(o->python); /* ENV/bin/python -> ENV */
    CU_AUTOFREE char *dir = cu_venv_brought_python(env);
    if (!dir)
        return; /* made with a Python of the machine or of conda: not cudaup's to check */
    struct cu_record *rec = NULL;
    struct cu_error err;
    if (cu_record_load_python(dir, &rec, &err) != CU_OK) {
        char *fact = cu_xasprintf(_("%s: %s"), dir, cu_error_text(&err));
        cu_checks_add_advised(out, "python", CU_CHECK_FAIL, CU_ADV_REINSTALL, fact,
                              cu_xasprintf(_("%s; `cudaup install` with the same options brings it back"), fact));
        return;
    }
    size_t bad = 0;
    const char *first = NULL;
    for (size_t i = 0; i < rec->n_files; i++)
        if (cu_record_check_file(dir, &rec->files[i], o->deep) != CU_FILE_OK) {
            first = first ? first : rec->files[i].path;
            bad++;
        }
    CU_AUTOFREE char *exe = cu_xasprintf("%s/bin/python3", dir);
    const char *argv[] = {exe, "-c", "import ssl, venv, sys; print('%d.%d.%d' % sys.version_info[:3])", NULL};
    struct cu_exec_opts eo = {.envp = o->envp, .timeout_ms = o->timeout_ms, .cancel = o->cancel};
    struct cu_exec_result res;
    cu_exec_result_init(&res);
    bool runs = cu_exec(argv, &eo, &res, &err) == CU_OK && res.exit_code == 0 && !res.timed_out;
    if (bad) {
        char *fact = cu_xasprintf(_("%zu of the %zu files of Python %s in %s are missing or altered (first: %s)"), bad,
                                  rec->n_files, rec->python_version, dir, first);
        cu_checks_add_advised(out, "python", CU_CHECK_FAIL, CU_ADV_REPAIR, fact,
                              cu_xasprintf(_("%s; repair restores them"), fact));
    } else if (!runs)
        cu_checks_add(out, "python", CU_CHECK_FAIL, _("Python %s in %s does not run: %s"), rec->python_version, dir,
                      res.err.len ? cu_str_strip(res.err.data) : cu_error_text(&err));
    else
        cu_checks_add(out, "python", CU_CHECK_PASS, _("Python %s in %s: all %zu recorded files are as installed%s, and it runs"),
                      cu_str_strip(res.out.data), dir, rec->n_files,
                      o->deep ? _(" (contents re-hashed)") : _(" (sizes and modes; --deep re-hashes)"));
    cu_exec_result_fini(&res);
    cu_record_free(rec);
}
