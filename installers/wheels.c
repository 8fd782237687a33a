/* SPDX-License-Identifier: MIT */
/*
 * The framework's wheels on a site mirror (`cudaup mirror DIR`): pip download
 * --only-binary=:all: for the plan's platform, Python and implementation, from
 * the index the plan would use, into DIR/pypi/files/, and a PEP 503 simple index
 * of every wheel there at DIR/pypi/simple/ with the sha256 in each link, so
 * that http:// and file:// mirrors serve it and pip checks every wheel; each
 * wheel's METADATA beside it (PEP 658, listed with PEP 714's data-core-metadata),
 * so that a node learns the releases it holds without their wheels.
 */
#include "config.h"

#include "wheels.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "core/install/exec.h"
#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/base/log.h"
#include "core/unpack/wheelzip.h"
#include "pyenv.h"

char *
cu_wheels_pip_python(const char *const *envp)
{
    char *py = cu_which("python3", envp);
    if (!py)
        return NULL;
    const char *argv[] = {py, "-m", "pip", "--version", NULL};
    struct cu_exec_opts o = {.envp = envp, .timeout_ms = 60000};
    struct cu_exec_result res;
    struct cu_error err;
    cu_exec_result_init(&res);
    bool ok = cu_exec(argv, &o, &res, &err) == CU_OK && res.exit_code == 0;
    cu_exec_result_fini(&res);
    if (!ok) {
        free(py);
        return NULL;
    }
    return py;
}

/* PEP 503: lower case, runs of -, _ and . as one -. */
static char *
normalize(const char *name, size_t n)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        if (name[i] == '-' || name[i] == '_' || name[i] == '.') {
            if (b.len == 0 || b.data[b.len - 1] != '-')
                cu_buf_putc(&b, '-');
        } else {
            cu_buf_putc(&b, (char)tolower((unsigned char)name[i]));
        }
    }
    return cu_buf_steal(&b);
}

/* Write WHEEL.metadata, the wheel's own .dist-info/METADATA, and its sha256 into @sha; false (said in the log) when
 * the wheel's METADATA cannot be read. */
static bool
write_metadata(const char *wheel, char sha[65])
{
    struct cu_error e;
    struct cu_buf b;
    CU_AUTOCLOSE int fd = open(wheel, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    cu_buf_init(&b);
    struct cu_zip_reader rd = {&fd, cu_zip_read_fd};
    CU_AUTOFREE char *out = cu_xasprintf("%s.metadata", wheel);
    bool ok = cu_wheel_metadata(&rd, wheel, 4u << 20, &b, &e) == CU_OK &&
              cu_write_file_atomic(out, b.data, b.len, 0644, &e) == CU_OK;
    if (ok)
        cu_sha256_hex(b.data, b.len, sha);
    else
        cu_log_warn(_("The site mirror's index lists no METADATA file for %s: %s"), wheel, e.msg);
    cu_buf_fini(&b);
    return ok;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

enum cu_status
cu_wheels_index(const char *pypi, size_t *n_wheels, struct cu_error *err)
{
    CU_AUTOFREE char *files = cu_path_join(pypi, "files");
    CU_AUTOFREE char *simple = cu_path_join(pypi, "simple");
    CU_AUTOFREE char *tindex = cu_path_join(simple, "index.html");
    struct cu_strv names;
    enum cu_status st = CU_OK;
    DIR *d = opendir(files);
    struct dirent *de;
    cu_strv_init(&names);
    *n_wheels = 0;
    while (d && (de = readdir(d)) != NULL)
        if (cu_str_has_suffix(de->d_name, ".whl") && strchr(de->d_name, '-'))
            cu_strv_push(&names, de->d_name);
    if (d)
        closedir(d);
    qsort(names.v, names.n, sizeof(char *), cmp_str);
    if ((st = cu_mkdir_p(simple, 0755, err)) != CU_OK)
        goto out;
    struct cu_buf top, page;
    cu_buf_init(&top);
    cu_buf_init(&page);
    cu_buf_puts(&top, "<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1.0\"><title>Simple index</title></head><body>\n");
    for (size_t i = 0; i < names.n && st == CU_OK;) {
        CU_AUTOFREE char *proj = normalize(names.v[i], (size_t)(strchr(names.v[i], '-') - names.v[i]));
        cu_buf_reset(&page);
        cu_buf_printf(&page, "<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1.0\"><title>Links for %s</title></head><body>\n<h1>Links for %s</h1>\n",
                      proj, proj);
        size_t k = i;
        for (; k < names.n; k++) {
            CU_AUTOFREE char *pk = normalize(names.v[k], (size_t)(strchr(names.v[k], '-') - names.v[k]));
            if (strcmp(pk, proj) != 0)
                break;
            CU_AUTOFREE char *path = cu_path_join(files, names.v[k]);
            char sha[65], msha[65];
            if ((st = cu_sha256_file(path, sha, NULL, err)) != CU_OK)
                break;
            /* PEP 658/714: the wheel's METADATA beside it, so that a node learns a release's requirements
             * without its wheel (a static server cannot answer PEP 691's JSON; the HTML says it is there). */
            if (write_metadata(path, msha))
                cu_buf_printf(&page, "<a href=\"../../files/%s#sha256=%s\" data-core-metadata=\"sha256=%s\" data-dist-info-metadata=\"sha256=%s\">%s</a><br>\n",
                              names.v[k], sha, msha, msha, names.v[k]);
            else
                cu_buf_printf(&page, "<a href=\"../../files/%s#sha256=%s\">%s</a><br>\n", names.v[k], sha, names.v[k]);
            (*n_wheels)++;
        }
        cu_buf_puts(&page, "</body></html>\n");
        cu_buf_printf(&top, "<a href=\"%s/\">%s</a><br>\n", proj, proj);
        CU_AUTOFREE char *pdir = cu_path_join(simple, proj);
        CU_AUTOFREE char *pindex = cu_path_join(pdir, "index.html");
        if (st == CU_OK && (st = cu_mkdir_p(pdir, 0755, err)) == CU_OK)
            st = cu_write_file_atomic(pindex, page.data, page.len, 0644, err);
        i = k;
    }
    cu_buf_puts(&top, "</body></html>\n");
    if (st == CU_OK)
        st = cu_write_file_atomic(tindex, top.data, top.len, 0644, err);
    cu_buf_fini(&top);
    cu_buf_fini(&page);
out:
    cu_strv_fini(&names);
    return st;
}

/* The platform tags a node of @platform may install: manylinux from glibc 2.17 to 2.40. */
static void
push_platforms(struct cu_strv *argv, const char *platform)
{
    const char *arch = platform && strcmp(platform, "linux-x86_64") != 0 ? "aarch64" : "x86_64";
    char tag[64];
    snprintf(tag, sizeof(tag), "manylinux2014_%s", arch);
    cu_strv_push(argv, "--platform");
    cu_strv_push(argv, tag);
    for (int minor = 17; minor <= 40; minor++) {
        snprintf(tag, sizeof(tag), "manylinux_2_%d_%s", minor, arch);
        cu_strv_push(argv, "--platform");
        cu_strv_push(argv, tag);
    }
}

/* pip download of one framework's wheels (its own index, its environment's constraints) into @files. */
static enum cu_status
download_one(struct cu_run_ctx *ctx, const struct cu_plan *p, const struct cu_plan_framework *fw, const char *files,
             const char *python, struct cu_error *err)
{
    enum cu_status st = cu_pip_constraints_write(fw, err);
    if (st != CU_OK)
        return st;
    struct cu_strv argv;
    cu_strv_init(&argv);
    const char *fixed[] = {python, "-m", "pip", "download", "--disable-pip-version-check", "--only-binary=:all:",
                           "--implementation", "cp", "--python-version", fw->python, "--dest", files};
    for (size_t i = 0; i < CU_N_ELEMENTS(fixed); i++)
        cu_strv_push(&argv, fixed[i]);
    push_platforms(&argv, p->platform);
    cu_pip_push_sources(&argv, ctx, python, fw); /* the same sources as install */
    struct cu_exec_result res;
    st = cu_pip_run(ctx, "framework", NULL, &argv, &res, err);
    if (st == CU_OK && res.exit_code != 0) {
        st = cu_error_set(err, CU_E_TOOL, 0, _("pip could not download %s's wheels for Python %s: %s"),
                          cu_framework_title(fw->name), fw->python, cu_exec_last_line(&res));
        cu_error_advise(err, "%s", _("If it could not download packages, point pip at a local index or wheel folder (PIP_INDEX_URL, or PIP_FIND_LINKS with PIP_NO_INDEX=1), then run the command again."));
    }
    cu_exec_result_fini(&res);
    cu_strv_fini(&argv);
    return st;
}

enum cu_status
cu_wheels_mirror(struct cu_run_ctx *ctx, const char *dir, const char *python, size_t *n_wheels, struct cu_error *err)
{
    const struct cu_plan *p = ctx->plan;
    CU_AUTOFREE char *pypi = cu_path_join(dir, "pypi");
    CU_AUTOFREE char *files = cu_path_join(pypi, "files");
    enum cu_status st;
    *n_wheels = 0;
    if (!p->framework)
        return CU_OK;
    CU_AUTOFREE char *names = cu_plan_framework_names(p, ",");
    struct cu_event e = {.type = CU_EV_STEP_START, .installer = "framework", .message = names};
    cu_emit(ctx->events, &e);
    if ((st = cu_mkdir_p(files, 0755, err)) != CU_OK)
        return st;
    /* Every framework of every environment of the plan (issue 36), each from its own index. */
    for (size_t k = 0; st == CU_OK && k <= p->n_envs; k++) {
        const struct cu_plan *q = k ? p->envs[k - 1] : p;
        size_t n;
        struct cu_plan_framework *const *fw = cu_plan_frameworks(q, &n);
        for (size_t i = 0; st == CU_OK && i < n; i++)
            st = download_one(ctx, q, fw[i], files, python, err);
    }
    if (st == CU_OK)
        st = cu_wheels_index(pypi, n_wheels, err);
    cu_run_result(ctx, "framework", "mirror", st == CU_OK ? pypi : cu_error_text(err), st, st == CU_OK);
    return st;
}
