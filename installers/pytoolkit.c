/* SPDX-License-Identifier: MIT */
/*
 * repair of an environment's own toolkit (--toolkit wheels, issue 50): each compiler wheel STATE/pyenv.json holds
 * ("toolkit_wheels": "nvidia-cuda-nvcc==13.0.88", ...) is there at that version with every file its RECORD lists
 * (runnable where it lies in a bin/); a wheel that is not is installed again at the held version by the environment's
 * own pip (its pip.conf names its index, its hold file constrains it), and CUDA 12's toolkit view is made again over
 * what pip put back.
 */
#include "config.h"
#define CU_LOG_TAG "pyenv"

#include "pytoolkit.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/install/envfile.h"
#include "pyenv.h"

/* ENV/lib/python3.X/site-packages, or NULL. */
static char *
site_packages(const char *env)
{
    CU_AUTOFREE char *lib = cu_path_join(env, "lib");
    DIR *d = opendir(lib);
    struct dirent *de;
    char *found = NULL;
    while (d && !found && (de = readdir(d)))
        if (strncmp(de->d_name, "python3", 7) == 0) {
            char *sp = cu_xasprintf("%s/%s/site-packages", lib, de->d_name);
            if (cu_is_dir(sp))
                found = sp;
            else
                free(sp);
        }
    if (d)
        closedir(d);
    return found;
}

/* "nvidia-cuda-nvcc" as a dist-info folder names it: nvidia_cuda_nvcc, compared without case. */
static bool
dist_matches(const char *entry, const char *name, const char *version)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < n; i++) {
        char a = (char)tolower((unsigned char)entry[i]), b = name[i] == '-' || name[i] == '.' ? '_' : (char)tolower((unsigned char)name[i]);
        if (!entry[i] || (a == '-' ? '_' : a) != b)
            return false;
    }
    if (entry[n] != '-')
        return false;
    size_t vl = strlen(version);
    return strncmp(entry + n + 1, version, vl) == 0 && strcmp(entry + n + 1 + vl, ".dist-info") == 0;
}

/* Why the wheel @name==@version is not whole in @sp (caller frees); NULL when it is. */
static char *
wheel_broken(const char *sp, const char *name, const char *version)
{
    DIR *d = opendir(sp);
    struct dirent *de;
    CU_AUTOFREE char *info = NULL;
    while (d && !info && (de = readdir(d)))
        if (dist_matches(de->d_name, name, version))
            info = cu_path_join(sp, de->d_name);
    if (d)
        closedir(d);
    if (!info)
        return cu_xasprintf(_("%s %s is not installed"), name, version);
    CU_AUTOFREE char *record = cu_path_join(info, "RECORD");
    char *text = NULL;
    size_t len;
    struct cu_error e;
    if (cu_read_file(record, 16u << 20, &text, &len, &e) != CU_OK)
        return cu_xasprintf(_("%s %s has no RECORD of its files"), name, version);
    char *why = NULL;
    for (char *line = text, *next; !why && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t pl = strcspn(line, ",");
        if (!pl || line[0] == '"' || strstr(line, "__pycache__") || strncmp(line, "../", 3) == 0 || line[0] == '/')
            continue; /* a quoted or outside path is none of the toolkit's files; compiled Python is made again */
        CU_AUTOFREE char *rel = cu_xstrndup(line, pl);
        if (strstr(rel, "/../"))
            continue;
        CU_AUTOFREE char *p = cu_path_join(sp, rel);
        struct stat sb;
        if (lstat(p, &sb) != 0)
            why = cu_xasprintf(_("%s of %s %s is missing"), p, name, version);
        else if (strstr(rel, "/bin/") && S_ISREG(sb.st_mode) && access(p, X_OK) != 0)
            why = cu_xasprintf(_("%s of %s %s cannot be run"), p, name, version);
    }
    free(text);
    return why;
}

/* One environment record @e: its compiler wheels put back where they are not whole. */
static enum cu_status
repair_env(const json_t *e, struct cu_run_ctx *ctx, struct cu_error *err)
{
    const char *tk = cu_json_str(e, "toolkit");
    const json_t *tw = json_object_get(e, "toolkit_wheels");
    CU_AUTOFREE char *env = cu_venv_rec_here(e, "path");
    CU_AUTOFREE char *home = cu_venv_rec_here(e, "cuda_home");
    if (!tk || strcmp(tk, "wheels") != 0 || !env || !cu_is_dir(env) || !json_array_size(tw))
        return CU_OK; /* no compiler wheels recorded (--toolkit system or none), or the environment is gone */
    CU_AUTOFREE char *root = NULL;
    CU_AUTOFREE char *seen = NULL;
    if (cu_venv_for_image(env, &root, &seen))
        return CU_OK; /* the machine image's: its pip runs there (the hold's repair says so) */
    CU_AUTOFREE char *sp = site_packages(env);
    struct cu_strv again;
    cu_strv_init(&again);
    for (size_t i = 0; sp && i < json_array_size(tw); i++) {
        const char *pin = json_string_value(json_array_get(tw, i));
        const char *eq = pin ? strstr(pin, "==") : NULL;
        if (!eq || !eq[2])
            continue;
        CU_AUTOFREE char *name = cu_xstrndup(pin, (size_t)(eq - pin));
        CU_AUTOFREE char *why = wheel_broken(sp, name, eq + 2);
        if (why) {
            cu_log_warn(_("%s: pip installs %s again"), why, pin);
            cu_strv_push(&again, pin);
        }
    }
    enum cu_status st = CU_OK;
    bool changed = false;
    if (again.n) {
        CU_AUTOFREE char *py = cu_path_join(env, "bin/python");
        CU_AUTOFREE char *hold = cu_env_hold_file(env);
        struct cu_strv argv;
        cu_strv_init(&argv);
        const char *fixed[] = {py, "-m", "pip", "install", "--disable-pip-version-check", "--force-reinstall", "--no-deps"};
        for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
            cu_strv_push(&argv, fixed[i]);
        if (cu_path_exists(hold)) { /* held as the install held them */
            cu_strv_push(&argv, "-c");
            cu_strv_push(&argv, hold);
        }
        for (size_t i = 0; i < again.n; i++)
            cu_strv_push(&argv, again.v[i]);
        struct cu_exec_result res;
        st = cu_pip_run(ctx, "pyenv", NULL, &argv, &res, err);
        if (st == CU_OK && res.exit_code != 0) {
            st = cu_error_set(err, CU_E_PROBLEMS, 0, _("pip could not install the compiler wheels of %s again (%s): %s"), env,
                              again.v[0], cu_exec_last_line(&res));
            cu_error_advise(err, _("Run `%s -m pip install --force-reinstall --no-deps %s` once its index can be reached, or `cudaup install` again."),
                            py, again.v[0]);
        }
        changed = st == CU_OK;
        cu_exec_result_fini(&res);
        cu_strv_fini(&argv);
    }
    /* CUDA 12: the view CUDA_HOME names, made again where its nvcc does not lead to one. */
    CU_AUTOFREE char *nvcc = home ? cu_path_join(home, "bin/nvcc") : NULL;
    if (st == CU_OK && sp && home && cu_str_has_suffix(home, "/cudaup-toolkit") && (changed || access(nvcc, X_OK) != 0)) {
        CU_AUTOFREE char *nv = cu_path_join(sp, "nvidia");
        st = cu_env_toolkit_view(nv, home, err);
        changed |= st == CU_OK;
    }
    if (changed || st != CU_OK)
        cu_run_result(ctx, "pyenv", "toolkit", st == CU_OK ? env : cu_error_text(err), st, changed);
    cu_strv_fini(&again);
    return st;
}

enum cu_status
cu_pytoolkit_repair(const char *state_dir, struct cu_run_ctx *ctx, struct cu_error *err)
{
    json_t *j = cu_pyenv_json_load(state_dir); /* NULL: no environment recorded */
    enum cu_status st = CU_OK;
    const json_t *e;
    for (size_t i = 0; st == CU_OK && (e = cu_pyenv_json_env(j, i)) != NULL; i++)
        st = repair_env(e, ctx, err);
    json_decref(j);
    return st;
}
