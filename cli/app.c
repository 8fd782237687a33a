/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "app"
#include "app.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/proc.h"
#include "core/base/str.h"

static char *
home_dir(const struct cu_app *app)
{
    const char *h = cu_env_get(app->envp, "HOME");
    if (h && h[0] == '/')
        return cu_xstrdup(h);
    struct passwd *pw = getpwuid(geteuid());
    return pw && pw->pw_dir ? cu_xstrdup(pw->pw_dir) : cu_xstrdup("/");
}

static char *
xdg_dir(const struct cu_app *app, const char *var, const char *fallback)
{
    const char *v = cu_env_get(app->envp, var);
    if (v && v[0] == '/')
        return cu_path_join(v, "cudaup");
    CU_AUTOFREE char *home = home_dir(app);
    CU_AUTOFREE char *base = cu_path_join(home, fallback);
    return cu_path_join(base, "cudaup");
}

/* A path the user gave may be relative; everything downstream wants it absolute. */
static char *
absolute(const char *p)
{
    if (p[0] == '/')
        return cu_xstrdup(p);
    char cwd[4096];
    if (!getcwd(cwd, sizeof(cwd)))
        return cu_xstrdup(p);
    return cu_path_join(cwd, p);
}

/* A default folder inside the machine root that leads out of it: the option that names another. */
static enum cu_status
resolve_refused(enum cu_status st, const char *option, struct cu_error *err)
{
    cu_error_advise(err, _("Name a folder for it with %s, or mend the link inside the tree."), option);
    return st;
}

/* Does the command change the machine, or plan to? */
static bool
changes_machine(enum cu_command c)
{
    return c == CU_CMD_NONE || c == CU_CMD_PLAN || c == CU_CMD_INSTALL || c == CU_CMD_REPAIR || c == CU_CMD_UNINSTALL;
}

/* See cu_app_setup: what a changing command may use, judged before anything is read or touched. */
static enum cu_status
check_places(struct cu_app *app, struct cu_error *err)
{
    enum cu_status st;
    CU_AUTOFREE char *backups = cu_path_join(app->state_dir, "backups");
    if (!cu_sysroot_is_host(&app->root)) {
        /* As given (a link to it is judged by its owner), DIR and every folder on the way to it. */
        CU_AUTOFREE char *given = absolute(app->cfg.root);
        if ((st = cu_path_trusted(given, err)) != CU_OK) {
            cu_error_prefix(err, "--root %s", app->cfg.root);
            cu_error_advise(err, _("Nothing was changed. Prepare the machine from a tree that root (or you) owns, reached through folders and links of root's or yours."));
            return st;
        }
        if (!app->root_writable && app->prefix_in_root) {
            struct stat sb;
            char owner[64];
            cu_user_name(fstat(app->root.dirfd, &sb) == 0 ? sb.st_uid : 0, owner, sizeof(owner));
            return cu_error_set(err, CU_E_USAGE, 0,
                                _("--root %s belongs to %s, not to you, so cudaup cannot install into that tree as you: name a folder of yours with --prefix (and --state-dir), or run cudaup as root."),
                                app->root.path, owner);
        }
    }
    const struct {
        const char *option, *path;
    } places[] = {{"--prefix", app->prefix}, {"--state-dir", app->state_dir}, {"--cache-dir", app->cache_dir},
                  /* the state's own subfolder, written as the environment is (rc files' backups): judged up front
                   * too, not after the CUDA folder is in place (found by an independent re-check) */
                  {"--state-dir", backups}};
    for (size_t i = 0; i < CU_N_ELEMENTS(places); i++) {
        if ((st = cu_path_trusted(places[i].path, err)) != CU_OK) {
            cu_error_prefix(err, "%s %s", places[i].option, places[i].path);
            return st;
        }
    }
    return CU_OK;
}

enum cu_status
cu_app_setup(struct cu_app *app, struct cu_error *err)
{
    enum cu_status st;
    const char *root = app->cfg.root ? app->cfg.root : "/";

    app->is_root = geteuid() == 0;
    st = cu_sysroot_init(&app->root, root, err);
    if (st != CU_OK)
        return st;
    app->root_open = true;
    st = cu_catalog_load(cu_env_get(app->envp, "CUDAUP_CATALOG"), &app->catalog, err);
    if (st != CU_OK)
        return st;

    /*
     * Under another machine root (preparing an image), that machine's own folders: the prefix and state are
     * DIR's (each resolved inside DIR, its own absolute links included), the cache stays this host's (downloads
     * are not part of the machine).  An explicit --prefix or --state-dir is a host path as given.  A user who
     * may not write into DIR gets no prefix there (check_places refuses, naming --prefix) and keeps their own state.
     */
    bool image = !cu_sysroot_is_host(&app->root);
    struct stat rsb;
    app->root_writable = image && (app->is_root || (fstat(app->root.dirfd, &rsb) == 0 && rsb.st_uid == geteuid()));
    if (app->cfg.prefix && *app->cfg.prefix) {
        app->prefix = absolute(app->cfg.prefix);
    } else if (image) {
        if ((st = cu_sysroot_resolve(&app->root, "/usr/local", &app->prefix, err)) != CU_OK)
            return resolve_refused(st, "--prefix", err);
        app->prefix_in_root = true;
    } else if (app->is_root) {
        app->prefix = cu_xstrdup("/usr/local");
    } else {
        CU_AUTOFREE char *home = home_dir(app);
        app->prefix = cu_path_join(home, ".local");
    }
    if (app->cfg.state_dir && *app->cfg.state_dir) {
        app->state_dir = absolute(app->cfg.state_dir);
    } else if (app->root_writable) {
        if ((st = cu_sysroot_resolve(&app->root, "/var/lib/cudaup", &app->state_dir, err)) != CU_OK)
            return resolve_refused(st, "--state-dir", err);
    } else if (app->is_root) {
        app->state_dir = cu_xstrdup("/var/lib/cudaup");
    } else {
        app->state_dir = xdg_dir(app, "XDG_STATE_HOME", ".local/state");
    }
    if (app->cfg.cache_dir && *app->cfg.cache_dir)
        app->cache_dir = absolute(app->cfg.cache_dir);
    else
        app->cache_dir = xdg_dir(app, "XDG_CACHE_HOME", ".cache");

    /* The CA bundle: --ca-cert (or CUDAUP_CA_CERT), else what curl and OpenSSL users set. */
    const char *ca_from = "--ca-cert";
    if (!app->cfg.ca_cert || !*app->cfg.ca_cert) {
        ca_from = "CURL_CA_BUNDLE";
        const char *ca = cu_env_get(app->envp, ca_from);
        if (!ca || !*ca)
            ca = cu_env_get(app->envp, ca_from = "SSL_CERT_FILE");
        if (ca && *ca) {
            free(app->cfg.ca_cert);
            app->cfg.ca_cert = cu_xstrdup(ca);
        }
    }
    if (app->cfg.ca_cert && *app->cfg.ca_cert && access(app->cfg.ca_cert, R_OK) != 0)
        return cu_error_set(err, CU_E_USAGE, errno, _("%s: cannot read the CA bundle %s"), ca_from, app->cfg.ca_cert);
    const char *pd = cu_env_get(app->envp, "CUDAUP_PROFILE_D");
    /* Under another machine root, its /etc/profile.d (its login shells'), never this host's: written through the
     * root (the run's root), so that the tree's own absolute links lead inside it. */
    if (pd && *pd) {
        app->profile_d = pd;
    } else if (image) {
        app->profile_d = app->profile_d_owned = cu_sysroot_host_path(&app->root, "/etc/profile.d");
    } else {
        app->profile_d = "/etc/profile.d";
    }
    uint64_t v;
    const char *e = cu_env_get(app->envp, "CUDAUP_LOW_SPEED_TIME");
    if (e && cu_parse_u64(e, 3600, &v))
        app->low_speed_time_s = (long)v;
    e = cu_env_get(app->envp, "CUDAUP_RETRY_BASE_MS");
    if (e && cu_parse_u64(e, 600000, &v))
        app->retry_base_ms = (long)v;
    if (changes_machine(app->cfg.command) && (st = check_places(app, err)) != CU_OK)
        return st;
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n > 0) {
        buf[n] = '\0';
        app->self_exe = cu_xstrdup(buf);
    }
    return CU_OK;
}

enum cu_status
cu_app_probe(struct cu_app *app, struct cu_facts **out, struct cu_error *err)
{
    const char *extra[] = {app->prefix, NULL};
    struct cu_probe_opts o = {
        .root = &app->root,
        .catalog = app->catalog,
        .envp = app->envp,
        .extra_prefixes = extra,
        .nvml_override = cu_env_get(app->envp, "CUDAUP_NVML_LIB"),
        .libcuda_override = cu_env_get(app->envp, "CUDAUP_LIBCUDA_LIB"),
    };
    return cu_facts_probe(&o, out, err);
}

static void
mkdir_p(const char *path)
{
    CU_AUTOFREE char *p = cu_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    mkdir(p, 0755);
}

char *
cu_app_root_flag(const struct cu_app *app)
{
    if (cu_sysroot_is_host(&app->root))
        return cu_xstrdup("");
    CU_AUTOFREE char *q = cu_sh_quote(app->root.path);
    return cu_xasprintf(" --root %s", q);
}

void
cu_app_open_log(struct cu_app *app)
{
    CU_AUTOFREE char *path = NULL;
    if (app->log)
        return;
    if (app->cfg.log_file && *app->cfg.log_file) {
        path = cu_xstrdup(app->cfg.log_file);
    } else {
        /* Not in (or through) a folder another user could swap for a link that chooses where root writes. */
        struct cu_error e;
        if (cu_path_trusted(app->state_dir, &e) != CU_OK) {
            cu_log_warn(_("No log is kept: %s; choose another folder with --state-dir."), cu_error_text(&e));
            return;
        }
        mkdir_p(app->state_dir);
        path = cu_path_join(app->state_dir, "cudaup.log");
    }
    /* The default log is never followed through a link (another user could choose where root writes). */
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | (app->cfg.log_file && *app->cfg.log_file ? 0 : O_NOFOLLOW),
                  0600);
    app->log = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (app->log) {
        free(app->log_path);
        app->log_path = cu_xstrdup(path);
    }
    if (!app->log && fd >= 0)
        close(fd);
    if (!app->log) {
        /* What it means and the option that mends it; a state folder that cannot be made (/proc) is said
         * so, not with open()'s ENOENT (issue 35). */
        int e = errno;
        char buf[128];
        struct stat sb;
        if (app->cfg.log_file && *app->cfg.log_file)
            cu_log_warn(_("No log is kept: %s cannot be written (%s); choose another file with --log."), path,
                        cu_strerror(e, buf, sizeof(buf)));
        else if (stat(app->state_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
            cu_log_warn(_("No log is kept: the state folder %s cannot be made; choose another folder with --state-dir."),
                        app->state_dir);
        else
            cu_log_warn(_("No log is kept: %s cannot be written (%s); choose another folder with --state-dir."), path,
                        cu_strerror(e, buf, sizeof(buf)));
    }
}
