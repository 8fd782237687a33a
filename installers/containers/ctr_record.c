/* SPDX-License-Identifier: MIT */
/* STATE/containers.json: what the containers stage changed, read back as input (ctr_int.h). */
#include "config.h"

#include "ctr_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"

#define RECORD_FORMAT 1

void
ctr_rec_init(struct ctr_rec *r)
{
    memset(r, 0, sizeof(*r));
    cu_strv_init(&r->packages);
    cu_strv_init(&r->held);
    cu_strv_init(&r->units);
}

void
ctr_rec_fini(struct ctr_rec *r)
{
    free(r->manager);
    free(r->toolkit);
    cu_strv_fini(&r->packages);
    cu_strv_fini(&r->held);
    cu_strv_fini(&r->units);
    for (size_t i = 0; i < r->n_files; i++) {
        struct ctr_file *f = &r->files[i];
        free(f->path);
        free(f->kind);
        free(f->engine);
        free(f->backup);
        free(f->sha256);
    }
    free(r->files);
    memset(r, 0, sizeof(*r));
}

bool
ctr_rec_empty(const struct ctr_rec *r)
{
    return !r->packages.n && !r->held.n && !r->n_files && !r->units.n;
}

struct ctr_file *
ctr_rec_file(struct ctr_rec *r, const char *path, const char *kind)
{
    for (size_t i = 0; i < r->n_files; i++)
        if (strcmp(r->files[i].path, path) == 0)
            return &r->files[i];
    r->files = cu_xreallocarray(r->files, r->n_files + 1, sizeof(*r->files));
    struct ctr_file *f = &r->files[r->n_files++];
    memset(f, 0, sizeof(*f));
    f->path = cu_xstrdup(path);
    f->kind = cu_xstrdup(kind);
    return f;
}

void
ctr_sha256(const char *text, char out[65])
{
    cu_sha256_hex(text ? text : "", text ? strlen(text) : 0, out);
}

static bool
chars_ok(const char *s, const char *extra)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || strchr(extra, *s)))
            return false;
    return true;
}

/* A file name of a drop-in folder: no folder part, no dot first, plain characters. */
static bool
dropin_ok(const char *path, const char *dir)
{
    if (!cu_str_has_prefix(path, dir))
        return false;
    const char *b = path + strlen(dir);
    return *b && *b != '.' && !strchr(b, '/') && strlen(b) < 128 && chars_ok(b, "ABCDEFGHIJKLMNOPQRSTUVWXYZ._-");
}

bool
ctr_path_ok(const char *path, const char *kind, const char *home)
{
    if (!path || !kind || *path != '/' || strstr(path, "/../") || strstr(path, "/./"))
        return false;
    if (strcmp(kind, "docker") == 0) {
        if (strcmp(path, "/etc/docker/daemon.json") == 0)
            return true;
        CU_AUTOFREE char *user = home && *home == '/' ? cu_path_join(home, ".config/docker/daemon.json") : NULL;
        return user && strcmp(path, user) == 0;
    }
    if (strcmp(kind, "containerd-root") == 0)
        return strcmp(path, "/etc/containerd/config.toml") == 0;
    if (strcmp(kind, "containerd-dropin") == 0)
        return strcmp(path, CU_CTR_CONTAINERD_DROPIN) == 0;
    if (strcmp(kind, "crio-dropin") == 0)
        return strcmp(path, CU_CTR_CRIO_DROPIN) == 0;
    if (strcmp(kind, "toolkit-config") == 0)
        return strcmp(path, CU_CTR_TOOLKIT_CONFIG) == 0;
    if (strcmp(kind, "unit") == 0)
        return strcmp(path, CU_CTR_OWN_UNIT) == 0;
    if (strcmp(kind, "cdi") == 0)
        return dropin_ok(path, "/var/run/cdi/") || dropin_ok(path, "/etc/cdi/");
    if (strcmp(kind, "set-aside") == 0)
        return dropin_ok(path, "/etc/containerd/conf.d/") || dropin_ok(path, "/etc/crio/crio.conf.d/");
    return false;
}

static bool
unit_ok(const char *u)
{
    return strcmp(u, "nvidia-cdi-refresh.path") == 0 || strcmp(u, "nvidia-cdi-refresh.service") == 0 ||
           strcmp(u, "cudaup-cdi-refresh.service") == 0;
}

static bool
pkg_ok(const char *manager, const char *n)
{
    if (!*n || strlen(n) > 128 || !((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= '0' && n[0] <= '9')))
        return false;
    return strcmp(manager, "apt") == 0 ? chars_ok(n, "+.-") : chars_ok(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ+._-");
}

static enum cu_status
bad(struct cu_error *err, const char *path, const char *what)
{
    return cu_error_set(err, CU_E_INPUT, 0, _("%s is not a record cudaup wrote (%s); nothing was changed."), path, what);
}

static bool
names(const json_t *a, struct cu_strv *out, bool (*ok)(const char *, const char *), const char *arg)
{
    if (!json_is_array(a))
        return false;
    for (size_t i = 0; i < json_array_size(a); i++) {
        const char *s = json_string_value(json_array_get(a, i));
        if (!s || !ok(arg, s))
            return false;
        cu_strv_push(out, s);
    }
    return true;
}

static bool
unit_ok2(const char *unused, const char *u)
{
    (void)unused;
    return unit_ok(u);
}

static bool
hex64(const char *s)
{
    return s && strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

enum cu_status
ctr_rec_load(const char *state_dir, const char *const *envp, struct ctr_rec *r, bool *exists, struct cu_error *err)
{
    CU_AUTOFREE char *path = cu_path_join(state_dir, CTR_RECORD);
    char *text = NULL;
    size_t len;
    *exists = false;
    enum cu_status st = cu_read_record(state_dir, CTR_RECORD, 1u << 20, &text, &len, err);
    if (st == CU_E_NOT_FOUND)
        return CU_OK;
    if (st != CU_OK)
        return st;
    json_error_t je;
    json_t *o = json_loads(text, 0, &je);
    free(text);
    const char *home = cu_env_get(envp, "HOME");
    if (!json_is_object(o) || json_integer_value(json_object_get(o, "format")) != RECORD_FORMAT) {
        json_decref(o);
        return bad(err, path, _("not a JSON object of format 1"));
    }
    const char *mgr = json_string_value(json_object_get(o, "manager"));
    if (!mgr || (strcmp(mgr, "apt") != 0 && strcmp(mgr, "dnf") != 0 && strcmp(mgr, "zypper") != 0)) {
        json_decref(o);
        return bad(err, path, _("its manager"));
    }
    r->manager = cu_xstrdup(mgr);
    const char *tk = json_string_value(json_object_get(o, "toolkit"));
    struct cu_version tv;
    if (tk && !cu_version_parse(tk, &tv)) {
        json_decref(o);
        return bad(err, path, _("its toolkit release"));
    }
    r->toolkit = tk ? cu_xstrdup(tk) : NULL;
    if (!names(json_object_get(o, "packages"), &r->packages, pkg_ok, mgr) || !names(json_object_get(o, "held"), &r->held, pkg_ok, mgr) ||
        !names(json_object_get(o, "units"), &r->units, unit_ok2, NULL)) {
        json_decref(o);
        return bad(err, path, _("its packages, holds or units"));
    }
    const json_t *fs = json_object_get(o, "files");
    if (!json_is_array(fs)) {
        json_decref(o);
        return bad(err, path, _("its files"));
    }
    for (size_t i = 0; i < json_array_size(fs); i++) {
        const json_t *f = json_array_get(fs, i);
        const char *p = json_string_value(json_object_get(f, "path")), *k = json_string_value(json_object_get(f, "kind"));
        const char *b = json_string_value(json_object_get(f, "backup")), *sha = json_string_value(json_object_get(f, "sha256"));
        const char *eng = json_string_value(json_object_get(f, "engine"));
        CU_AUTOFREE char *want_b = p ? cu_xasprintf("%s%s", p, strcmp(k ? k : "", "set-aside") == 0 ? CTR_ASIDE : CTR_BACKUP) : NULL;
        enum cu_engine_kind ek;
        if (!ctr_path_ok(p, k, home) || (b && strcmp(b, want_b) != 0) || (sha && !hex64(sha)) || (eng && !cu_engine_parse(eng, &ek))) {
            json_decref(o);
            CU_AUTOFREE char *what = cu_tr_asprintf(_("its file %s"), p ? p : "?");
            return bad(err, path, what);
        }
        struct ctr_file *x = ctr_rec_file(r, p, k);
        x->engine = eng ? cu_xstrdup(eng) : NULL;
        x->backup = b ? cu_xstrdup(b) : NULL;
        x->sha256 = sha ? cu_xstrdup(sha) : NULL;
        x->cdi_added = json_is_true(json_object_get(f, "cdi_added"));
        x->import_added = json_is_true(json_object_get(f, "import_added"));
    }
    json_decref(o);
    *exists = true;
    return CU_OK;
}

static json_t *
strv_json(const struct cu_strv *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(a, json_string(v->v[i]));
    return a;
}

enum cu_status
ctr_rec_save(const char *state_dir, const struct ctr_rec *r, struct cu_error *err)
{
    CU_AUTOFREE char *path = cu_path_join(state_dir, CTR_RECORD);
    if (ctr_rec_empty(r)) {
        if (unlink(path) != 0 && errno != ENOENT)
            return cu_error_set(err, CU_E_IO, errno, _("Cannot remove %s"), path);
        return CU_OK;
    }
    json_t *o = json_object();
    json_object_set_new(o, "format", json_integer(RECORD_FORMAT));
    json_object_set_new(o, "manager", json_string(r->manager ? r->manager : "apt"));
    json_object_set_new(o, "toolkit", cu_json_str_or_null(r->toolkit));
    json_object_set_new(o, "packages", strv_json(&r->packages));
    json_object_set_new(o, "held", strv_json(&r->held));
    json_object_set_new(o, "units", strv_json(&r->units));
    json_t *fs = json_array();
    for (size_t i = 0; i < r->n_files; i++) {
        const struct ctr_file *f = &r->files[i];
        json_t *j = json_object();
        json_object_set_new(j, "path", json_string(f->path));
        json_object_set_new(j, "kind", json_string(f->kind));
        json_object_set_new(j, "engine", cu_json_str_or_null(f->engine));
        json_object_set_new(j, "backup", cu_json_str_or_null(f->backup));
        json_object_set_new(j, "sha256", cu_json_str_or_null(f->sha256));
        if (f->cdi_added)
            json_object_set_new(j, "cdi_added", json_true());
        if (f->import_added)
            json_object_set_new(j, "import_added", json_true());
        json_array_append_new(fs, j);
    }
    json_object_set_new(o, "files", fs);
    CU_AUTOFREE char *text = cu_json_dump(o, true);
    json_decref(o);
    enum cu_status st = cu_mkdir_p(state_dir, 0755, err);
    return st == CU_OK ? cu_write_file_atomic(path, text, strlen(text), 0644, err) : st;
}

/* ---- the machine's packages and sources ---------------------------------------------------------------- */

enum cu_status
ctr_installed(const struct cu_sys *s, const char *manager, struct cu_strv *out, struct cu_error *err)
{
    bool apt = manager ? strcmp(manager, "apt") == 0 : cu_sys_exists(s, "/var/lib/dpkg/status");
    const char *dpkg[] = {"dpkg-query", "-W", "-f=${Package}=${Version}\t${Status}\n", NULL};
    const char *rpm[] = {"rpm", "-qa", "--qf", "%{NAME}=%{VERSION}-%{RELEASE}\n", NULL};
    struct cu_buf b;
    int code = 0;
    cu_buf_init(&b);
    enum cu_status st = cu_sys_capture(s, apt ? dpkg : rpm, &b, NULL, &code, err);
    if (st == CU_OK && code != 0 && !(code == 1 && b.len == 0))
        st = cu_error_set(err, CU_E_TOOL, 0, _("`%s` failed (exit %d), so cudaup cannot tell which packages are installed."), apt ? "dpkg-query -W" : "rpm -qa", code);
    for (char *l = st == CU_OK ? b.data : NULL, *next; l && *l; l = next) {
        next = strchr(l, '\n');
        if (next)
            *next++ = '\0';
        char *tab = strchr(l, '\t');
        if (tab) {
            *tab++ = '\0';
            /* dpkg: "install ok installed"; a package with only its configuration left is not installed */
            if (!strstr(tab, " installed") || strstr(tab, "not-installed") || strstr(tab, "config-files"))
                continue;
        }
        if (strchr(l, '='))
            cu_strv_push(out, l);
    }
    cu_buf_fini(&b);
    return st;
}

/* Does any file of folder @dir (through the root) mention @needle? */
static bool
dir_mentions(const struct cu_sys *s, const char *dir, const char *needle)
{
    CU_AUTOFREE char *host = cu_sys_path(s, dir);
    DIR *d = s->files_open ? cu_sysroot_opendir(&s->files, dir) : NULL;
    struct dirent *de;
    bool hit = false;
    while (d && !hit && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        CU_AUTOFREE char *p = cu_path_join(dir, de->d_name);
        char *text = NULL;
        struct cu_error e;
        if (cu_sys_read(s, p, 1u << 20, &text, &e) == CU_OK)
            hit = strstr(text, needle) != NULL;
        free(text);
    }
    if (d)
        closedir(d);
    return hit;
}

bool
ctr_nvidia_repo(const struct cu_sys *s)
{
    static const char needle[] = "developer.download.nvidia.com/compute/cuda/repos/";
    char *text = NULL;
    struct cu_error e;
    bool hit = false;
    if (cu_sys_read(s, "/etc/apt/sources.list", 1u << 20, &text, &e) == CU_OK)
        hit = strstr(text, needle) != NULL;
    free(text);
    return hit || dir_mentions(s, "/etc/apt/sources.list.d", needle) || dir_mentions(s, "/etc/yum.repos.d", needle) ||
           dir_mentions(s, "/etc/zypp/repos.d", needle);
}
