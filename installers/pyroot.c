/* SPDX-License-Identifier: MIT */
/* The venv of a machine image, named as the image sees it: see pyroot.h. */
#include "config.h"

#include "pyroot.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"
#include "core/install/envfile.h"
#include "core/install/exec.h"
#include "installer.h"

#define TEXT_MAX (1u << 20) /* bin/'s scripts are small; a larger file there is a program, left alone */

/* The venv's path as its machine sees it, or NULL when it is not inside p->env.root.  Caller owns. */
static char *
seen_env(const struct cu_plan *p)
{
    if (!p->env.root || !p->env.path || strcmp(p->env.root, "/") == 0)
        return NULL;
    return cu_root_seen_path(p->env.root, p->env.path);
}

bool
cu_pyroot_applies(const struct cu_plan *p)
{
    if (!p->framework || !p->env.tool || strcmp(p->env.tool, "venv") != 0)
        return false;
    CU_AUTOFREE char *s = seen_env(p);
    return s != NULL;
}

/* Does a path end at @s[i]: a character that cannot go on a path name (so "/a/env" does not match "/a/envx")? */
static bool
ends_path(char c)
{
    return c == '\0' || c == '/' || c == '\'' || c == '"' || c == ' ' || c == '\t' || c == '\n' || c == ':' || c == '\r';
}

/*
 * @text with each @from that stands as a whole path (not inside a longer name; at its end a '/', a quote, a
 * space or the end) replaced by @to.  NULL when nothing was replaced.  Caller owns.
 */
static char *
replace_path(const char *text, size_t len, const char *from, const char *to)
{
    size_t fl = strlen(from);
    struct cu_buf b;
    bool any = false;
    cu_buf_init(&b);
    for (size_t i = 0; i < len;) {
        bool starts = i == 0 || !(text[i - 1] == '/' || text[i - 1] == '_' || text[i - 1] == '-' || text[i - 1] == '.' ||
                                  (text[i - 1] >= '0' && text[i - 1] <= '9') || (text[i - 1] >= 'a' && text[i - 1] <= 'z') ||
                                  (text[i - 1] >= 'A' && text[i - 1] <= 'Z'));
        if (starts && i + fl <= len && memcmp(text + i, from, fl) == 0 && ends_path(i + fl < len ? text[i + fl] : '\0')) {
            cu_buf_puts(&b, to);
            i += fl;
            any = true;
        } else {
            cu_buf_putc(&b, text[i++]);
        }
    }
    if (!any) {
        cu_buf_fini(&b);
        return NULL;
    }
    return cu_buf_steal(&b);
}

/* @text with DIR (the machine root) taken off each path under it: DIR/usr/x -> /usr/x.  NULL when none. */
static char *
strip_root(const char *text, size_t len, const char *root)
{
    size_t rl = strlen(root);
    struct cu_buf b;
    bool any = false;
    cu_buf_init(&b);
    for (size_t i = 0; i < len;) {
        if (i + rl < len && memcmp(text + i, root, rl) == 0 && text[i + rl] == '/') {
            i += rl; /* the '/' after it stays */
            any = true;
        } else {
            cu_buf_putc(&b, text[i++]);
        }
    }
    if (!any) {
        cu_buf_fini(&b);
        return NULL;
    }
    return cu_buf_steal(&b);
}

/* The files whose text is rewritten: bin/'s scripts (regular, no NUL byte), pip.conf and the hold. */
static void
text_files(const char *env, struct cu_strv *out)
{
    CU_AUTOFREE char *bin = cu_path_join(env, "bin");
    DIR *d = opendir(bin);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char *p = cu_path_join(bin, de->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size <= (off_t)TEXT_MAX)
            cu_strv_push_owned(out, p);
        else
            free(p);
    }
    if (d)
        closedir(d);
    static const char *const more[] = {"pip.conf", "cudaup-constraints.txt"};
    for (size_t i = 0; i < CU_N_ELEMENTS(more); i++) {
        char *p = cu_path_join(env, more[i]);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode))
            cu_strv_push_owned(out, p);
        else
            free(p);
    }
    cu_strv_sort(out);
}

/* Rewrite @path with @fn(text) when it is text and @fn changes it; *h is fed what the file holds after. */
static enum cu_status
rewrite(const char *path, char *(*fn)(const char *, size_t, const char *, const char *), const char *a,
        const char *b, struct cu_sha256 *h, struct cu_error *err)
{
    char *text = NULL;
    size_t len = 0;
    struct stat sb;
    if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || cu_read_file(path, TEXT_MAX, &text, &len, err) != CU_OK) {
        cu_error_clear(err);
        return CU_OK;
    }
    enum cu_status st = CU_OK;
    if (!memchr(text, '\0', len)) {
        CU_AUTOFREE char *now = fn(text, len, a, b);
        if (now)
            st = cu_write_file_atomic(path, now, strlen(now), sb.st_mode & 07777, err);
        if (h) {
            cu_sha256_update(h, path, strlen(path) + 1);
            cu_sha256_update(h, now ? now : text, now ? strlen(now) : len);
        }
    }
    free(text);
    return st;
}

static char *
strip_fn(const char *text, size_t len, const char *root, const char *unused)
{
    (void)unused;
    return strip_root(text, len, root);
}

/* Point link @path at @target (a new link renamed over it). */
static enum cu_status
relink(const char *path, const char *target, struct cu_error *err)
{
    CU_AUTOFREE char *tmp = cu_xasprintf("%s.cudaup-new", path);
    unlink(tmp);
    if (symlink(target, tmp) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return cu_error_set(err, CU_E_IO, e, _("Cannot point %s at %s"), path, target);
    }
    return CU_OK;
}

/* The absolute links in ENV/bin, sorted by name: name -> target. */
static json_t *
abs_links(const char *env)
{
    CU_AUTOFREE char *bin = cu_path_join(env, "bin");
    json_t *o = json_object();
    DIR *d = opendir(bin);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        CU_AUTOFREE char *p = cu_path_join(bin, de->d_name);
        char buf[4096];
        ssize_t n = readlink(p, buf, sizeof(buf) - 1);
        if (n <= 0 || buf[0] != '/')
            continue;
        buf[n] = '\0';
        json_object_set_new(o, de->d_name, json_string(buf));
    }
    if (d)
        closedir(d);
    return o;
}

static json_t *
mark_read(const char *env)
{
    CU_AUTOFREE char *file = cu_path_join(env, CU_PYROOT_MARK);
    char *text = NULL;
    size_t len;
    struct cu_error e;
    json_t *j = NULL;
    if (cu_read_file(file, 4u << 20, &text, &len, &e) != CU_OK || cu_json_parse_object(text, len, file, &j, &e) != CU_OK)
        j = NULL;
    free(text);
    return j;
}

static enum cu_status
mark_write(const char *env, json_t *j, struct cu_error *err)
{
    CU_AUTOFREE char *file = cu_path_join(env, CU_PYROOT_MARK);
    char *text = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
    enum cu_status st = cu_write_file_atomic(file, text, strlen(text), 0644, err);
    free(text);
    return st;
}

enum cu_status
cu_pyroot_host_view(const struct cu_plan *p, struct cu_error *err)
{
    if (!cu_pyroot_applies(p))
        return CU_OK;
    json_t *m = mark_read(p->env.path);
    const char *seen = cu_json_str(m, "seen"), *cfg = cu_json_str(m, "pyvenv_cfg");
    enum cu_status st = CU_OK;
    if (!m || !seen || !cfg) {
        json_decref(m);
        return CU_OK;
    }
    CU_AUTOFREE char *cfg_path = cu_path_join(p->env.path, "pyvenv.cfg");
    /* The tree moved since (another DIR): what it was here names the new one. */
    const char *was = cu_json_str(m, "root");
    bool moved = was && strcmp(was, p->env.root) != 0;
    CU_AUTOFREE char *cfg_now = moved ? replace_path(cfg, strlen(cfg), was, p->env.root) : NULL;
    if (cfg_now)
        cfg = cfg_now;
    if ((st = cu_write_file_atomic(cfg_path, cfg, strlen(cfg), 0644, err)) != CU_OK)
        goto out;
    const char *name;
    json_t *v;
    json_object_foreach(json_object_get(m, "links"), name, v) {
        CU_AUTOFREE char *lp = cu_xasprintf("%s/bin/%s", p->env.path, name);
        const char *target = json_string_value(v);
        CU_AUTOFREE char *moved_to = moved && target ? replace_path(target, strlen(target), was, p->env.root) : NULL;
        struct stat sb;
        if (target && lstat(lp, &sb) == 0 && S_ISLNK(sb.st_mode) && (st = relink(lp, moved_to ? moved_to : target, err)) != CU_OK)
            goto out;
    }
    struct cu_strv files;
    cu_strv_init(&files);
    text_files(p->env.path, &files);
    for (size_t i = 0; i < files.n && st == CU_OK; i++)
        st = rewrite(files.v[i], replace_path, seen, p->env.path, NULL, err);
    cu_strv_fini(&files);
out:
    json_decref(m);
    return st;
}

/*
 * STATE/pyenv.json's entry of @env (the first, or one of "envs") gets "seen" (its path as the machine sees it) and
 * "root": on that machine, where the recorded host paths are not there, verify, repair and uninstall read them
 * without the root (cu_venv_rec_here).
 */
static enum cu_status
record_seen(const char *state_dir, const char *root, const char *env, const char *seen, struct cu_error *err)
{
    CU_AUTOFREE char *file = cu_path_join(state_dir, "pyenv.json");
    char *text = NULL;
    size_t len;
    json_t *j = NULL;
    struct cu_error e;
    if (cu_read_file(file, 1 << 20, &text, &len, &e) != CU_OK || cu_json_parse_object(text, len, file, &j, &e) != CU_OK) {
        free(text);
        return CU_OK; /* nothing recorded: nothing to name */
    }
    free(text);
    json_t *hit = cu_json_str(j, "path") && strcmp(cu_json_str(j, "path"), env) == 0 ? j : NULL;
    json_t *envs = json_object_get(j, "envs");
    for (size_t i = 0; !hit && i < json_array_size(envs); i++) {
        json_t *x = json_array_get(envs, i);
        if (cu_json_str(x, "path") && strcmp(cu_json_str(x, "path"), env) == 0)
            hit = x;
    }
    enum cu_status st = CU_OK;
    if (hit && !(cu_json_str(hit, "seen") && strcmp(cu_json_str(hit, "seen"), seen) == 0 && cu_json_str(hit, "root") &&
                 strcmp(cu_json_str(hit, "root"), root) == 0)) {
        json_object_set_new(hit, "seen", json_string(seen));
        json_object_set_new(hit, "root", json_string(root));
        char *out = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        st = cu_write_file_atomic(file, out, strlen(out), 0644, err);
        free(out);
    }
    json_decref(j);
    return st;
}

/* The image's python3.X for a venv made here with this host's: the first on PATH inside the root.  Caller owns. */
static char *
image_python(const char *root, const char *minor, const char *const *envp)
{
    struct cu_strv dirs;
    char *found = NULL;
    cu_strv_init(&dirs);
    cu_strv_split(&dirs, cu_env_get(envp, "PATH"), ":");
    for (size_t i = 0; i < dirs.n && !found; i++) {
        if (dirs.v[i][0] != '/')
            continue;
        CU_AUTOFREE char *exe = cu_xasprintf("%s/python%s", dirs.v[i], minor);
        CU_AUTOFREE char *host = cu_xasprintf("%s%s", root, exe);
        struct stat sb;
        if (lstat(host, &sb) == 0 && (S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode)))
            found = cu_xstrdup(exe);
    }
    cu_strv_fini(&dirs);
    return found;
}

/* pyvenv.cfg as the image sees it: home and executable its Python's (@img_exe, or DIR taken off), the rest without DIR. */
static char *
image_cfg(const char *cfg, const char *root, const char *img_exe)
{
    struct cu_buf b;
    cu_buf_init(&b);
    CU_AUTOFREE char *copy = cu_xstrdup(cfg);
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        CU_AUTOFREE char *key = cu_xstrdup(line);
        char *eq = strchr(key, '=');
        if (eq)
            *eq = '\0';
        const char *k = cu_str_strip(key);
        if (img_exe && strcmp(k, "home") == 0) {
            CU_AUTOFREE char *dir = cu_xstrdup(img_exe);
            *strrchr(dir, '/') = '\0';
            cu_buf_printf(&b, "home = %s\n", dir);
        } else if (img_exe && strcmp(k, "executable") == 0) {
            cu_buf_printf(&b, "executable = %s\n", img_exe);
        } else {
            CU_AUTOFREE char *s = strip_root(line, strlen(line), root);
            cu_buf_printf(&b, "%s\n", s ? s : line);
        }
    }
    return cu_buf_steal(&b);
}

void
cu_pyroot_plan(struct cu_plan *p)
{
    CU_AUTOFREE char *seen = seen_env(p);
    if (!cu_pyroot_applies(p))
        return;
    cu_plan_add_step(p, "pyenv", "relocate",
                     _("make the venv %s name paths as the machine under %s sees them (%s): its pyvenv.cfg, bin/'s links and scripts, its activation and pip.conf; its framework checks run on that machine (cudaup verify there)"),
                     p->env.path, p->env.root, seen);
}

static enum cu_status
inst_pyroot_run(struct cu_run_ctx *ctx, struct cu_error *err)
{
    const struct cu_plan *p = ctx->plan;
    if (!cu_pyroot_applies(p))
        return CU_OK;
    const char *env = p->env.path, *root = p->env.root;
    CU_AUTOFREE char *seen = seen_env(p);
    CU_AUTOFREE char *cfg_path = cu_path_join(env, "pyvenv.cfg");
    CU_AUTOFREE char *cfg = NULL;
    CU_AUTOFREE char *img_exe = NULL;
    CU_AUTOFREE char *home = NULL;
    CU_AUTOFREE char *home_seen = NULL;
    CU_AUTOFREE char *cfg_img = NULL;
    json_t *old = mark_read(env), *m = json_object(), *links = abs_links(env);
    struct cu_sha256 h;
    char sum[65] = "";
    bool hashing = false;
    enum cu_status st = cu_read_file(cfg_path, 1 << 16, &cfg, NULL, err);
    if (st != CU_OK)
        goto out;
    /* A venv made with this host's python3.X runs the image's own (found as the plan found it, on PATH in DIR). */
    home = cu_venv_home(env);
    home_seen = home ? cu_root_seen_path(root, home) : NULL;
    if (home && !home_seen) {
        img_exe = image_python(root, p->framework->python, ctx->envp);
        if (!img_exe) {
            st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                              _("The venv %s was made with this host's Python in %s, but the machine under %s has no python%s on PATH to run it"),
                              env, home, root, p->framework->python);
            goto out;
        }
    }
    /* What it is on this host, first: a later install puts it back before it runs pip (cu_pyroot_host_view). */
    json_object_set_new(m, "root", json_string(root));
    json_object_set_new(m, "path", json_string(env));
    json_object_set_new(m, "seen", json_string(seen));
    json_object_set_new(m, "pyvenv_cfg", json_string(cfg));
    json_object_set_new(m, "links", json_incref(links));
    if ((st = mark_write(env, m, err)) != CU_OK || (st = cu_sha256_init(&h, err)) != CU_OK)
        goto out;
    hashing = true;
    cfg_img = image_cfg(cfg, root, img_exe);
    cu_sha256_update(&h, cfg_img, strlen(cfg_img));
    if ((st = cu_write_file_atomic(cfg_path, cfg_img, strlen(cfg_img), 0644, err)) != CU_OK)
        goto out;
    const char *name;
    json_t *v;
    json_object_foreach(links, name, v) {
        const char *target = json_string_value(v);
        CU_AUTOFREE char *under = cu_root_seen_path(root, target);
        const char *want = under ? under : img_exe ? img_exe : target;
        CU_AUTOFREE char *lp = cu_xasprintf("%s/bin/%s", env, name);
        cu_sha256_update(&h, name, strlen(name) + 1);
        cu_sha256_update(&h, want, strlen(want) + 1);
        if (strcmp(want, target) != 0 && (st = relink(lp, want, err)) != CU_OK)
            goto out;
    }
    struct cu_strv files;
    cu_strv_init(&files);
    text_files(env, &files);
    for (size_t i = 0; i < files.n && st == CU_OK; i++)
        st = rewrite(files.v[i], strip_fn, root, NULL, &h, err);
    cu_strv_fini(&files);
    if (st != CU_OK)
        goto out;
    cu_sha256_final(&h, sum);
    json_object_set_new(m, "relocated", json_string(sum));
    if ((st = mark_write(env, m, err)) == CU_OK)
        st = record_seen(p->state_dir, root, env, seen, err);
out:
    if (hashing)
        cu_sha256_fini(&h);
    {
        /* Changed when the venv differs from what the last relocation left (the mark's hash). */
        const char *was = cu_json_str(old, "relocated");
        bool changed = st == CU_OK && (!was || strcmp(was, sum) != 0);
        CU_AUTOFREE char *detail = st == CU_OK ? cu_xasprintf(_("%s, as %s"), env, seen) : NULL;
        cu_run_result(ctx, "pyenv", "relocate", st == CU_OK ? detail : cu_error_text(err), st, changed);
    }
    json_decref(old);
    json_decref(m);
    json_decref(links);
    return st;
}

const struct cu_installer_ops inst_pyroot_ops = {
    .name = "pyroot",
    .run = inst_pyroot_run,
};
