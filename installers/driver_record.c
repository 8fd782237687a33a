/* SPDX-License-Identifier: MIT */
/*
 * STATE/driver.json: what cudaup's driver steps changed on the system, and nothing else (issue 32,
 * class 1).  Each step that runs a package manager is bracketed by the installed set before and
 * after it (dpkg-query, rpm -qa, pacman -Q, asked through the runner, so inside a machine root when
 * there is one); what is new after it, dependencies included, is recorded, and the record is written
 * after the step, never before.  What a step only asked for (a headers package that was there already,
 * firmware the user had) is not cudaup's and is never recorded.  The record is read back as input:
 * the names must be the manager's package names, the files those cudaup makes where it makes them.
 */
#include "config.h"

#define CU_LOG_TAG "driver"
#include "driver_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"

#define RECORD "driver.json"
#define RECORD_FORMAT 2
#define MAX_NAMES 4096
#define YUM_REPOS "/etc/yum.repos.d/"

void
drv_rec_init(struct drv_rec *r)
{
    memset(r, 0, sizeof(*r));
    cu_strv_init(&r->packages);
    cu_strv_init(&r->kept_config);
    cu_strv_init(&r->held);
    cu_strv_init(&r->versionlock);
    cu_strv_init(&r->streams);
    cu_strv_init(&r->repos);
    cu_strv_init(&r->files);
}

void
drv_rec_fini(struct drv_rec *r)
{
    free(r->manager);
    free(r->flavor);
    free(r->source);
    free(r->initramfs);
    cu_strv_fini(&r->packages);
    cu_strv_fini(&r->kept_config);
    cu_strv_fini(&r->held);
    cu_strv_fini(&r->versionlock);
    cu_strv_fini(&r->streams);
    cu_strv_fini(&r->repos);
    cu_strv_fini(&r->files);
    memset(r, 0, sizeof(*r));
}

bool
drv_rec_empty(const struct drv_rec *r)
{
    return !r->packages.n && !r->held.n && !r->versionlock.n && !r->streams.n && !r->repos.n && !r->files.n &&
           !r->initramfs;
}

/* ---- what a name may be --------------------------------------------------------------------------- */

static bool
chars_in(const char *s, const char *set)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || strchr(set, *s)))
            return false;
    return true;
}

bool
drv_pkg_name_ok(const char *manager, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n < 1 || n > 200)
        return false;
    if (strcmp(manager, "apt") == 0) /* Debian Policy 5.6.1: [a-z0-9][a-z0-9+.-]+ */
        return n >= 2 && ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= '0' && name[0] <= '9')) &&
               chars_in(name + 1, "+.-");
    if (strcmp(manager, "pacman") == 0) /* alphanumerics and @ . _ + -, never a leading - or . */
        return name[0] != '-' && name[0] != '.' && chars_in(name, "@._+-");
    if (strcmp(manager, "dnf") == 0 || strcmp(manager, "zypper") == 0) {
        /* RPM names: letters of either case, digits, . _ + -, never a leading - or . */
        if (name[0] == '-' || name[0] == '.')
            return false;
        for (const char *p = name; *p; p++)
            if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("._+-", *p)))
                return false;
        return true;
    }
    return false;
}

const char *
drv_manager_of(const char *prog)
{
    if (strcmp(prog, "apt-get") == 0 || strcmp(prog, "apt-mark") == 0 || strcmp(prog, "dpkg") == 0 || strcmp(prog, "apt") == 0)
        return "apt";
    if (strcmp(prog, "dnf") == 0 || strcmp(prog, "yum") == 0)
        return "dnf";
    if (strcmp(prog, "zypper") == 0)
        return "zypper";
    if (strcmp(prog, "pacman") == 0)
        return "pacman";
    return NULL;
}

/* A dnf module stream of the kind cudaup enables ("nvidia-driver:580-open"). */
static bool
stream_ok(const char *s)
{
    return cu_str_has_prefix(s, "nvidia-driver:") && s[14] && strlen(s) < 100 && chars_in(s + 14, "._-") ? true : false;
}

/* The versionlock pattern cudaup adds: "*nvidia*580*". */
static bool
lock_pattern_ok(const char *s)
{
    unsigned b;
    char tail[4];
    return strlen(s) < 20 && sscanf(s, "*nvidia*%u%3s", &b, tail) == 2 && strcmp(tail, "*") == 0 && b >= 100 && b < 10000 &&
           strcmp(s + strlen(s) - 1, "*") == 0 && chars_in(s + 8, "*");
}

/* A repository alias cudaup gives zypper ("cuda-nvidia"). */
static bool
alias_ok(const char *s)
{
    return s[0] && s[0] != '-' && s[0] != '.' && strlen(s) < 64 && chars_in(s, "._-");
}

/* The files cudaup makes, where it makes them: nothing else is ever removed from a record's word. */
static bool
file_ok(const char *p)
{
    if (strcmp(p, DRV_BLACKLIST_FILE) == 0 || strcmp(p, DRV_SOURCES_FILE) == 0 || strcmp(p, DRV_PREFS_FILE) == 0 ||
        strcmp(p, CU_DRV_FIRSTBOOT_UNIT) == 0 || strcmp(p, CU_DRV_FIRSTBOOT_LINK) == 0 ||
        strcmp(p, CU_DRV_FIRSTBOOT_SCRIPT) == 0)
        return true;
    if (!cu_str_has_prefix(p, YUM_REPOS))
        return false;
    const char *base = p + strlen(YUM_REPOS);
    return base[0] && base[0] != '.' && base[0] != '-' && cu_str_has_suffix(base, ".repo") && strlen(base) < 100 &&
           !strchr(base, '/') && !strstr(base, "..") &&
           chars_in(base, "ABCDEFGHIJKLMNOPQRSTUVWXYZ._-");
}

/* Is @cmd an initramfs command of the data's (the only ones cudaup runs after the blacklist)? */
static bool
initramfs_ok(const struct cu_catalog *cat, const char *cmd)
{
    for (size_t i = 0; cat && cat->driver && i < cat->driver->n_pkgs; i++)
        if (cat->driver->pkgs[i].initramfs && strcmp(cat->driver->pkgs[i].initramfs, cmd) == 0)
            return true;
    return false;
}

/* ---- reading and writing the record --------------------------------------------------------------- */

static enum cu_status
load_names(const json_t *j, const char *key, const char *path, bool (*ok)(const char *, const char *),
           const char *manager, struct cu_strv *out, struct cu_error *err)
{
    const json_t *a = json_object_get(j, key);
    if (!a || json_is_null(a))
        return CU_OK;
    if (!json_is_array(a) || json_array_size(a) > MAX_NAMES)
        return cu_error_set(err, CU_E_INPUT, 0, _("%s: '%s' is not a list of names; cudaup will not act on it."), path, key);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const char *v = json_string_value(json_array_get(a, i));
        if (!v || !ok(manager, v)) {
            CU_AUTOFREE char *shown = cu_str_sanitize(v ? v : "(not a string)");
            return cu_error_set(err, CU_E_INPUT, 0,
                                _("%s: \"%.80s\" in '%s' is not what cudaup writes there (a package name of %s's, a file it makes); cudaup will not act on it."),
                                path, shown, key, manager);
        }
        if (!cu_strv_contains(out, v))
            cu_strv_push(out, v);
    }
    return CU_OK;
}

static bool
ok_pkg(const char *m, const char *v)
{
    return drv_pkg_name_ok(m, v);
}
static bool
ok_stream(const char *m, const char *v)
{
    (void)m;
    return stream_ok(v);
}
static bool
ok_lock(const char *m, const char *v)
{
    (void)m;
    return lock_pattern_ok(v);
}
static bool
ok_alias(const char *m, const char *v)
{
    (void)m;
    return alias_ok(v);
}
static bool
ok_file(const char *m, const char *v)
{
    (void)m;
    return file_ok(v);
}

enum cu_status
drv_rec_load(const char *state_dir, const struct cu_catalog *cat, struct drv_rec *r, bool *exists, struct cu_error *err)
{
    CU_AUTOFREE char *path = cu_path_join(state_dir, RECORD);
    char *text = NULL;
    size_t len;
    json_t *j = NULL;
    *exists = false;
    enum cu_status st = cu_read_record(state_dir, RECORD, 1 << 20, &text, &len, err);
    if (st == CU_E_NOT_FOUND) {
        cu_error_clear(err);
        return CU_OK;
    }
    if (st != CU_OK)
        return st;
    st = cu_json_parse_object(text, len, path, &j, err);
    free(text);
    if (st != CU_OK)
        return st;
    *exists = true;
    const char *manager = cu_json_str(j, "manager");
    const json_t *fmt = json_object_get(j, "format");
    if (!fmt) {
        st = cu_error_set(err, CU_E_UNSUPPORTED, 0,
                          _("%s was written by an older cudaup: it lists the packages that install planned, not those it installed, so cudaup will not remove anything from it."),
                          path);
        cu_error_advise(err, _("Remove the driver's packages with your package manager, keeping the kernel headers and firmware that were there before; then delete %s."),
                        path);
        goto out;
    }
    if (!json_is_integer(fmt) || json_integer_value(fmt) != RECORD_FORMAT) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s is of a format this cudaup does not know; it will not act on it."), path);
        goto out;
    }
    if (!manager || !drv_manager_of(strcmp(manager, "apt") == 0 ? "apt-get" : manager)) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s does not name a package manager cudaup uses (apt, dnf, zypper, pacman); it will not act on it."), path);
        goto out;
    }
    r->manager = cu_xstrdup(manager);
    const json_t *b = json_object_get(j, "branch");
    r->branch = json_is_integer(b) && json_integer_value(b) > 0 && json_integer_value(b) < 10000 ? (int)json_integer_value(b) : 0;
    const char *fl = cu_json_str(j, "flavor"), *so = cu_json_str(j, "source");
    r->flavor = fl && (strcmp(fl, "open") == 0 || strcmp(fl, "proprietary") == 0) ? cu_xstrdup(fl) : NULL;
    r->source = so && (strcmp(so, "distro") == 0 || strcmp(so, "nvidia") == 0) ? cu_xstrdup(so) : NULL;
    if ((st = load_names(j, "packages", path, ok_pkg, manager, &r->packages, err)) != CU_OK ||
        (st = load_names(j, "kept_config", path, ok_pkg, manager, &r->kept_config, err)) != CU_OK ||
        (st = load_names(j, "held", path, ok_pkg, manager, &r->held, err)) != CU_OK ||
        (st = load_names(j, "versionlock", path, ok_lock, manager, &r->versionlock, err)) != CU_OK ||
        (st = load_names(j, "module_streams", path, ok_stream, manager, &r->streams, err)) != CU_OK ||
        (st = load_names(j, "repositories", path, ok_alias, manager, &r->repos, err)) != CU_OK ||
        (st = load_names(j, "files", path, ok_file, manager, &r->files, err)) != CU_OK)
        goto out;
    const json_t *ir = json_object_get(j, "initramfs");
    if (ir && !json_is_null(ir)) {
        const char *cmd = json_string_value(ir);
        if (!cmd || !initramfs_ok(cat, cmd)) {
            st = cu_error_set(err, CU_E_INPUT, 0, _("%s: 'initramfs' is not a command cudaup runs; it will not act on it."), path);
            goto out;
        }
        r->initramfs = cu_xstrdup(cmd);
    }
out:
    json_decref(j);
    return st;
}

static json_t *
names_json(const struct cu_strv *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(a, json_string(v->v[i]));
    return a;
}

enum cu_status
drv_rec_save(const char *state_dir, const struct drv_rec *r, struct cu_error *err)
{
    if (drv_rec_empty(r)) {
        CU_AUTOFREE char *path = cu_path_join(state_dir, RECORD);
        if (unlink(path) != 0 && errno != ENOENT)
            return cu_error_set(err, CU_E_IO, errno, _("Cannot remove %s"), path);
        return CU_OK;
    }
    json_t *o = json_object();
    json_object_set_new(o, "format", json_integer(RECORD_FORMAT));
    json_object_set_new(o, "manager", json_string(r->manager ? r->manager : "apt"));
    json_object_set_new(o, "branch", r->branch ? json_integer(r->branch) : json_null());
    json_object_set_new(o, "flavor", cu_json_str_or_null(r->flavor));
    json_object_set_new(o, "source", cu_json_str_or_null(r->source));
    json_object_set_new(o, "packages", names_json(&r->packages));
    json_object_set_new(o, "kept_config", names_json(&r->kept_config));
    json_object_set_new(o, "held", names_json(&r->held));
    json_object_set_new(o, "versionlock", names_json(&r->versionlock));
    json_object_set_new(o, "module_streams", names_json(&r->streams));
    json_object_set_new(o, "repositories", names_json(&r->repos));
    json_object_set_new(o, "files", names_json(&r->files));
    json_object_set_new(o, "initramfs", cu_json_str_or_null(r->initramfs));
    return drv_write_json(state_dir, RECORD, o, err);
}

enum cu_status
drv_write_json(const char *state_dir, const char *name, json_t *doc, struct cu_error *err)
{
    CU_AUTOFREE char *path = cu_path_join(state_dir, name);
    CU_AUTOFREE char *text = cu_json_dump(doc, true);
    json_decref(doc);
    enum cu_status st = cu_mkdir_p(state_dir, 0755, err);
    return st == CU_OK ? cu_write_file_atomic(path, text, strlen(text), 0644, err) : st;
}

/* ---- the installed set ---------------------------------------------------------------------------- */

enum cu_status
drv_installed(const struct cu_sys *s, const char *manager, struct cu_strv *installed, struct cu_strv *config,
              struct cu_strv *held, struct cu_error *err)
{
    const char *dpkg[] = {"dpkg-query", "-W", "-f=${Package}\t${Status}\n", NULL};
    const char *rpm[] = {"rpm", "-qa", "--qf", "%{NAME}\n", NULL};
    const char *pacman[] = {"pacman", "-Qq", NULL};
    bool apt = strcmp(manager, "apt") == 0;
    const char *const *argv = apt ? dpkg : strcmp(manager, "pacman") == 0 ? pacman : rpm;
    struct cu_buf out;
    int code = 0;
    cu_buf_init(&out);
    enum cu_status st = cu_sys_capture(s, argv, &out, NULL, &code, err);
    if (st == CU_OK && code != 0 && !(code == 1 && out.len == 0)) {
        CU_AUTOFREE char *line = cu_sys_argv_str(argv);
        st = cu_error_set(err, CU_E_TOOL, 0, _("`%s` failed (exit %d), so cudaup cannot tell which packages are installed."), line, code);
    }
    for (char *l = st == CU_OK ? out.data : NULL, *next; l && *l; l = next) {
        next = strchr(l, '\n');
        if (next)
            *next++ = '\0';
        char *tab = strchr(l, '\t');
        if (tab)
            *tab++ = '\0';
        if (!drv_pkg_name_ok(manager, l))
            continue;
        if (!apt) {
            cu_strv_push(installed, l);
            continue;
        }
        /* Status: "WANT EFLAG STATE"; anything unpacked counts as installed, config-files as not. */
        struct cu_strv w;
        cu_strv_init(&w);
        cu_strv_split(&w, tab ? tab : "", " ");
        const char *state = w.n == 3 ? w.v[2] : "not-installed";
        if (strcmp(state, "config-files") == 0) {
            if (config)
                cu_strv_push(config, l);
        } else if (strcmp(state, "not-installed") != 0) {
            if (!cu_strv_contains(installed, l))
                cu_strv_push(installed, l);
            if (held && w.n == 3 && strcmp(w.v[0], "hold") == 0)
                cu_strv_push(held, l);
        }
        cu_strv_fini(&w);
    }
    cu_buf_fini(&out);
    return st;
}

/* ---- around each step -------------------------------------------------------------------------------- */

/* The words of @argv that are not options, from the first on (the subcommand, then its names). */
static void
words(const char *const *argv, struct cu_strv *out)
{
    for (size_t i = 1; argv[i]; i++)
        if (argv[i][0] != '-')
            cu_strv_push(out, argv[i]);
}

static bool
reads_only(const char *const *argv)
{
    struct cu_strv w;
    cu_strv_init(&w);
    words(argv, &w);
    bool ro = w.n && (strcmp(w.v[0], "update") == 0 || strcmp(w.v[0], "makecache") == 0 || strcmp(w.v[0], "refresh") == 0 ||
                      strcmp(w.v[0], "repolist") == 0 || strcmp(w.v[0], "clean") == 0);
    for (size_t i = 1; argv[i]; i++)
        ro |= strcmp(argv[i], "-s") == 0 || strcmp(argv[i], "--simulate") == 0 || strcmp(argv[i], "--assumeno") == 0;
    cu_strv_fini(&w);
    return ro;
}

/* The manager the record speaks for: the record's, else the plan's, else this command's. */
static const char *
step_manager(const struct inst_driver_ctx *c, const char *prog)
{
    const char *m = drv_manager_of(prog);
    if (m)
        return m;
    if (strcmp(prog, "rpm") == 0)
        return c->plan && c->plan->manager ? c->plan->manager : "dnf";
    return NULL;
}

void
drv_snap_before(struct inst_driver_ctx *c, const char *const *argv, struct drv_snap *sn)
{
    memset(sn, 0, sizeof(*sn));
    cu_strv_init(&sn->before);
    cu_strv_init(&sn->config_before);
    cu_strv_init(&sn->held_before);
    sn->manager = step_manager(c, argv[0]);
    if (!sn->manager || reads_only(argv))
        return;
    struct cu_error e;
    sn->ok = drv_installed(c->sys, sn->manager, &sn->before, &sn->config_before, &sn->held_before, &e) == CU_OK;
    if (!sn->ok)
        cu_log_warn("cannot read the installed packages before `%s`: %s", argv[0], cu_error_text(&e));
}

void
drv_snap_fini(struct drv_snap *sn)
{
    cu_strv_fini(&sn->before);
    cu_strv_fini(&sn->config_before);
    cu_strv_fini(&sn->held_before);
}

static bool
add_name(struct cu_strv *v, const char *name)
{
    if (cu_strv_contains(v, name))
        return false;
    cu_strv_push(v, name);
    return true;
}

/* The record as it is on disk now, with this run's plan's facts; *changed set by the caller. */
static enum cu_status
rec_open(struct inst_driver_ctx *c, const char *manager, struct drv_rec *r, struct cu_error *err)
{
    bool exists;
    drv_rec_init(r);
    enum cu_status st = drv_rec_load(c->state_dir, c->cat, r, &exists, err);
    if (st != CU_OK)
        return st;
    if (!r->manager)
        r->manager = cu_xstrdup(manager ? manager : c->plan && c->plan->manager ? c->plan->manager : "apt");
    if (c->plan && c->plan->branch && !r->branch) {
        r->branch = c->plan->branch;
        free(r->flavor);
        free(r->source);
        r->flavor = c->plan->flavor ? cu_xstrdup(c->plan->flavor) : NULL;
        r->source = c->plan->source ? cu_xstrdup(c->plan->source) : NULL;
    }
    return CU_OK;
}

enum cu_status
drv_snap_after(struct inst_driver_ctx *c, const char *const *argv, struct drv_snap *sn, enum cu_status step,
               struct cu_error *err)
{
    struct drv_rec r;
    bool changed = false;
    struct cu_strv w;
    const char *prog = argv[0];
    enum cu_status st;
    cu_strv_init(&w);
    words(argv, &w);
    if ((st = rec_open(c, sn->manager, &r, err)) != CU_OK)
        goto out;
    /* What the step installed, read from the database: a failed step's partial install is cudaup's too. */
    if (sn->ok) {
        struct cu_strv after, held_after;
        cu_strv_init(&after);
        cu_strv_init(&held_after);
        struct cu_error e;
        if (drv_installed(c->sys, sn->manager, &after, NULL, &held_after, &e) == CU_OK) {
            for (size_t i = 0; i < after.n; i++) {
                if (cu_strv_contains(&sn->before, after.v[i]))
                    continue;
                changed |= add_name(&r.packages, after.v[i]);
                if (cu_strv_contains(&sn->config_before, after.v[i]))
                    changed |= add_name(&r.kept_config, after.v[i]);
            }
            for (size_t i = 0; i < held_after.n; i++)
                if (!cu_strv_contains(&sn->held_before, held_after.v[i]))
                    changed |= add_name(&r.held, held_after.v[i]);
        } else {
            cu_log_warn("cannot read the installed packages after `%s`: %s", prog, cu_error_text(&e));
        }
        cu_strv_fini(&after);
        cu_strv_fini(&held_after);
    }
    if (step == CU_OK) {
        /* What the package database does not show: streams, locks, repositories, the initramfs. */
        if (strcmp(prog, "dnf") == 0 && w.n >= 3 && strcmp(w.v[0], "module") == 0 && strcmp(w.v[1], "enable") == 0 &&
            stream_ok(w.v[2]))
            changed |= add_name(&r.streams, w.v[2]);
        else if (strcmp(prog, "dnf") == 0 && w.n >= 3 && strcmp(w.v[0], "versionlock") == 0 && strcmp(w.v[1], "add") == 0 &&
                 lock_pattern_ok(w.v[2]))
            changed |= add_name(&r.versionlock, w.v[2]);
        else if (strcmp(prog, "zypper") == 0 && w.n >= 3 && (strcmp(w.v[0], "addrepo") == 0 || strcmp(w.v[0], "ar") == 0) &&
                 alias_ok(w.v[w.n - 1]))
            changed |= add_name(&r.repos, w.v[w.n - 1]);
        else if (strcmp(prog, "zypper") == 0 && w.n >= 2 && (strcmp(w.v[0], "addlock") == 0 || strcmp(w.v[0], "al") == 0)) {
            for (size_t i = 1; i < w.n; i++)
                if (drv_pkg_name_ok("zypper", w.v[i]))
                    changed |= add_name(&r.held, w.v[i]);
        } else if (strcmp(prog, "dnf") == 0 && w.n >= 1 && (strcmp(w.v[0], "config-manager") == 0)) {
            /* dnf config-manager --add-repo URL / addrepo --from-repofile=URL: the file it makes is named after the URL's */
            for (size_t i = 1; argv[i]; i++) {
                const char *u = cu_str_has_prefix(argv[i], "--from-repofile=") ? argv[i] + 16 : argv[i];
                const char *slash = strrchr(u, '/');
                if (!strstr(u, "://") || !slash)
                    continue;
                CU_AUTOFREE char *f = cu_xasprintf(YUM_REPOS "%s", slash + 1);
                if (file_ok(f))
                    changed |= add_name(&r.files, f);
            }
        } else if (strcmp(prog, "update-initramfs") == 0 || strcmp(prog, "dracut") == 0 || strcmp(prog, "mkinitcpio") == 0) {
            struct cu_buf lb; /* the command as the data writes it: words and spaces */
            cu_buf_init(&lb);
            for (size_t i = 0; argv[i]; i++)
                cu_buf_printf(&lb, "%s%s", i ? " " : "", argv[i]);
            CU_AUTOFREE char *line = cu_buf_steal(&lb);
            if (initramfs_ok(c->cat, line) && (!r.initramfs || strcmp(r.initramfs, line) != 0)) {
                free(r.initramfs);
                r.initramfs = cu_xstrdup(line);
                changed = true;
            }
        }
    }
    if (changed)
        st = drv_rec_save(c->state_dir, &r, err);
out:
    drv_rec_fini(&r);
    cu_strv_fini(&w);
    return st;
}

enum cu_status
drv_rec_add_file(struct inst_driver_ctx *c, const char *path, struct cu_error *err)
{
    struct drv_rec r;
    enum cu_status st = CU_OK;
    if (!file_ok(path))
        return CU_OK; /* not a file cudaup would ever remove */
    if ((st = rec_open(c, NULL, &r, err)) == CU_OK && add_name(&r.files, path))
        st = drv_rec_save(c->state_dir, &r, err);
    drv_rec_fini(&r);
    return st;
}
