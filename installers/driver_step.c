/* SPDX-License-Identifier: MIT */
/*
 * The driver stage's steps (driver_int.h): each system command run through the runner with its output
 * streamed and bracketed by the record of what it installed; each system file written and recorded; the
 * nouveau blacklist; DKMS's forced rebuild and its signing key; the checks before the first change.
 */
#include "config.h"

#define CU_LOG_TAG "driver"
#include "driver_int.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"

/* Each line the package manager prints, as it comes: to the screen (an event) and the log. */
static void
output_line(void *userdata, const char *line)
{
    struct inst_driver_ctx *c = userdata;
    struct cu_event ev = {.type = CU_EV_LOG, .installer = "driver", .phase = "output", .message = line};
    cu_emit(c->run->events, &ev);
}

/* Ctrl-C while a command runs (the runner calls this once, at once): it is let finish, then cudaup stops. */
static void
wait_notice(void *userdata, const char *prog)
{
    struct inst_driver_ctx *c = userdata;
    CU_AUTOFREE char *msg = drv_manager_of(prog) || strcmp(prog, "rpm") == 0
                                ? cu_xasprintf(_("Interrupted: waiting for %s to finish its transaction (stopped halfway, it would leave the package database broken); then cudaup stops without changing anything else."),
                                               prog)
                                : cu_xasprintf(_("Interrupted: waiting for %s to finish (stopped halfway, it would leave its work half-done); then cudaup stops without changing anything else."),
                                               prog);
    cu_log_msg(CU_LOG_INFO, CU_LOG_TAG_RECORD, "%s", msg);
    struct cu_event ev = {.type = CU_EV_LOG, .installer = "driver", .message = msg};
    cu_emit(c->run->events, &ev);
}

enum cu_status
drv_run_step(struct inst_driver_ctx *c, const char *action, const char *const *argv, bool interactive,
         struct cu_error *err)
{
    CU_AUTOFREE char *line = cu_sys_argv_str(argv);
    struct cu_event ev = {.type = CU_EV_STEP_START, .installer = "driver", .message = line};
    cu_emit(c->run->events, &ev);
    struct cu_sys sys = *c->sys; /* the same runner, its output streamed to this run's events */
    sys.on_line = output_line;
    sys.line_userdata = c;
    sys.cancel = c->plan ? c->run->cancel : NULL; /* an install stops after the step; repair and uninstall go on */
    sys.on_wait = wait_notice;
    /* What the step installs is read from the package database before and after it, and recorded after. */
    struct drv_snap snap;
    drv_snap_before(c, argv, &snap);
    enum cu_status st = cu_sys_run(&sys, argv, interactive, NULL, err);
    struct cu_error rerr;
    enum cu_status rst = drv_snap_after(c, argv, &snap, st, &rerr);
    drv_snap_fini(&snap);
    if (st == CU_OK && rst != CU_OK) {
        *err = rerr;
        st = rst;
    }
    cu_run_result(c->run, "driver", action, line, st, st == CU_OK); /* which says it is done (an event) */
    return st;
}


enum cu_status
drv_write_step(struct inst_driver_ctx *c, const char *action, const char *path, const char *text, struct cu_error *err)
{
    enum cu_status st = cu_sys_write(c->sys, path, text, err);
    if (st == CU_OK)
        st = drv_rec_add_file(c, path, err); /* the record says so right after the file is there */
    cu_run_result(c->run, "driver", action, path, st, st == CU_OK);
    return st;
}


/* argv of @cmd words, then @extra strings. Caller frees the vector (the strings are borrowed or owned by @keep). */
static const char **
argv_of(const char *cmd, const struct cu_strv *extra, struct cu_strv *keep)
{
    cu_strv_split(keep, cmd, " ");
    size_t n = keep->n + (extra ? extra->n : 0);
    const char **v = cu_xcalloc(n + 1, sizeof(char *));
    size_t k = 0;
    for (size_t i = 0; i < keep->n; i++)
        v[k++] = keep->v[i];
    for (size_t i = 0; extra && i < extra->n; i++)
        v[k++] = extra->v[i];
    return v;
}

enum cu_status
drv_run_words(struct inst_driver_ctx *c, const char *action, const char *cmd, const struct cu_strv *extra,
          struct cu_error *err)
{
    struct cu_strv keep;
    cu_strv_init(&keep);
    const char **v = argv_of(cmd, extra, &keep);
    enum cu_status st = drv_run_step(c, action, v, false, err);
    free(v);
    cu_strv_fini(&keep);
    return st;
}


/* The commands each manager's steps and queries need. */
static const char *const *
manager_cmds(const char *manager)
{
    static const char *const apt[] = {"apt-get", "apt-mark", "dpkg-query", NULL};
    static const char *const dnf[] = {"dnf", "rpm", NULL};
    static const char *const zypper[] = {"zypper", "rpm", NULL};
    static const char *const pacman[] = {"pacman", NULL};
    return strcmp(manager, "dnf") == 0 ? dnf : strcmp(manager, "zypper") == 0 ? zypper : strcmp(manager, "pacman") == 0 ? pacman : apt;
}

enum cu_status
drv_refuse_in_container(const struct inst_driver_ctx *c, struct cu_error *err)
{
    struct cu_container_info ci;
    if (!c->sys->files_open)
        return CU_OK;
    cu_container_probe(&c->sys->files, &ci);
    if (!ci.inside)
        return CU_OK;
    CU_AUTOFREE char *where = cu_drv_container_where(&ci);
    cu_error_set(err, CU_E_UNSUPPORTED, 0,
                 _("cudaup runs inside a container (%s): the NVIDIA driver is the host's, and a container cannot install, change or remove it; nothing was changed."),
                 where);
    cu_error_advise(err, _("Change the driver on the host (run cudaup there). Driver packages in this container's own image are removed with its package manager, or by building the image without them."));
    return CU_E_UNSUPPORTED;
}

enum cu_status
drv_preflight(struct inst_driver_ctx *c, const char *manager, struct cu_error *err)
{
    struct drv_rec r;
    bool exists;
    enum cu_status cst = drv_refuse_in_container(c, err);
    if (cst != CU_OK)
        return cst;
    drv_rec_init(&r);
    enum cu_status st = drv_rec_load(c->state_dir, c->cat, &r, &exists, err);
    drv_rec_fini(&r);
    if (st != CU_OK)
        return st;
    /* Inside a machine root the tree's own package manager runs, chrooted (never this host's: --installroot or
     * --sysroot would run this host's tool against the tree); a tree without it is refused here, by name. */
    return cu_sys_check(c->sys, manager_cmds(manager), err);
}

static int
kernel_cmp(const void *a, const void *b)
{
    /* Releases are not versions ("6.1.0-57-amd64"): compared as GNU's strverscmp does, digits as numbers
     * (6.1.0-9 before 6.1.0-10); cu_version_strcmp called them all equal, so "newest" was readdir's order. */
    return strverscmp(*(const char *const *)a, *(const char *const *)b);
}
/* The kernels a DKMS build is for: in an image, each with headers (lib/modules/K/build); else the running one. */
void
drv_build_kernels(const struct cu_sys *s, struct cu_strv *out)
{
    if (!s->files_open)
        return;
    if (!s->image) {
        CU_AUTOFREE char *k = cu_sysroot_read_line(&s->files, "/proc/sys/kernel/osrelease");
        CU_AUTOFREE char *v = k && *k ? NULL : cu_sysroot_read_line(&s->files, "/proc/version");
        if (k && *k)
            cu_strv_push(out, k);
        else if (v && cu_str_has_prefix(v, "Linux version "))
            cu_strv_push_owned(out, cu_xstrndup(v + 14, strcspn(v + 14, " ")));
        return;
    }
    DIR *d = cu_sysroot_opendir(&s->files, "/lib/modules");
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        CU_AUTOFREE char *build = cu_xasprintf("/lib/modules/%s/build", de->d_name);
        if (cu_sysroot_exists(&s->files, build))
            cu_strv_push(out, de->d_name);
    }
    if (d)
        closedir(d);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(char *), kernel_cmp);
}

void
drv_sort_kernels(struct cu_strv *v)
{
    if (v->n > 1)
        qsort(v->v, v->n, sizeof(char *), kernel_cmp);
}

/* ---- DKMS, forced -------------------------------------------------------------------------------------------------- */

/*
 * `dkms status` lines: "nvidia-current/535.309.01, 6.1.0-27-amd64, x86_64: installed" (dkms 3), or
 * "nvidia, 535.54, 6.1.0-27-amd64, x86_64: installed" (dkms 2); "MOD/VER: added" before a build.
 */
static void
dkms_modules(const char *status, struct cu_strv *mods, struct cu_strv *built)
{
    CU_AUTOFREE char *t = cu_xstrdup(status ? status : "");
    char *save = NULL;
    for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *colon = strrchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        struct cu_strv f;
        cu_strv_init(&f);
        cu_strv_split(&f, line, ", ");
        char *mv = NULL, *kernel = NULL;
        if (f.n >= 1 && strchr(f.v[0], '/')) {
            mv = cu_xstrdup(f.v[0]);
            kernel = f.n >= 2 ? f.v[1] : NULL;
        } else if (f.n >= 2) {
            mv = cu_xasprintf("%s/%s", f.v[0], f.v[1]);
            kernel = f.n >= 3 ? f.v[2] : NULL;
        }
        if (mv && cu_str_has_prefix(mv, "nvidia") && !strpbrk(mv, " \t'\"$`;|&<>")) {
            if (!cu_strv_contains(mods, mv))
                cu_strv_push(mods, mv);
            if (kernel && (strstr(colon + 1, "installed") || strstr(colon + 1, "built")))
                cu_strv_push_owned(built, cu_xasprintf("%s %s", mv, kernel));
        }
        free(mv);
        cu_strv_fini(&f);
    }
}

enum cu_status
drv_dkms_rebuild(struct inst_driver_ctx *c, struct cu_error *err)
{
    struct cu_strv kernels, mods, built;
    struct cu_buf out;
    int code = 0;
    enum cu_status st;
    cu_strv_init(&kernels);
    cu_strv_init(&mods);
    cu_strv_init(&built);
    cu_buf_init(&out);
    drv_build_kernels(c->sys, &kernels);
    const char *status[] = {"dkms", "status", NULL};
    if ((st = cu_sys_capture(c->sys, status, &out, NULL, &code, err)) != CU_OK)
        goto out;
    dkms_modules(out.data, &mods, &built);
    for (size_t k = 0; k < kernels.n && st == CU_OK; k++) {
        if (!mods.n) {
            const char *argv[] = {"dkms", "autoinstall", "-k", kernels.v[k], NULL};
            st = drv_run_step(c, "rebuild", argv, false, err);
            continue;
        }
        for (size_t m = 0; m < mods.n && st == CU_OK; m++) {
            /* `dkms autoinstall` skips a module already built: remove it for this kernel, then build and install it again. */
            CU_AUTOFREE char *key = cu_xasprintf("%s %s", mods.v[m], kernels.v[k]);
            if (cu_strv_contains(&built, key)) {
                const char *rm[] = {"dkms", "remove", mods.v[m], "-k", kernels.v[k], NULL};
                if ((st = drv_run_step(c, "rebuild", rm, false, err)) != CU_OK)
                    break;
            }
            const char *in[] = {"dkms", "install", mods.v[m], "-k", kernels.v[k], NULL};
            st = drv_run_step(c, "rebuild", in, false, err);
        }
    }
    if (st == CU_OK && !kernels.n)
        st = cu_error_set(err, CU_E_TOOL, 0, _("cudaup cannot tell which kernel to build the nvidia module for."));
out:
    cu_buf_fini(&out);
    cu_strv_fini(&kernels);
    cu_strv_fini(&mods);
    cu_strv_fini(&built);
    return st;
}

enum cu_status
drv_blacklist_nouveau(struct inst_driver_ctx *c, const char *initramfs, struct cu_error *err)
{
    enum cu_status st = drv_write_step(c, "blacklist", DRV_BLACKLIST_FILE,
                                   "# Written by cudaup: nouveau would hold the GPU the NVIDIA driver needs.\n"
                                   "blacklist nouveau\noptions nouveau modeset=0\n",
                                   err);
    if (st == CU_OK && initramfs)
        st = drv_run_words(c, "initramfs", initramfs, NULL, err);
    return st;
}

/*
 * mokutil asks for the one-time password on the terminal: cudaup never sees, stores or logs it.  The
 * key is DKMS's, made at its first signed build (dkms 3.0.10 has no generate_mok): where it is
 * missing, the module is rebuilt so that DKMS makes it and signs the module with it.  Inside a machine
 * image nothing is queued: the image's own firmware is asked at its first boot.
 */
enum cu_status
drv_queue_key(struct inst_driver_ctx *c, const char *cert, bool *queued, struct cu_error *err)
{
    *queued = false;
    if (!cert)
        return CU_OK;
    enum cu_status st;
    if (!cu_sys_exists(c->sys, cert)) {
        if ((st = drv_dkms_rebuild(c, err)) != CU_OK)
            return st;
        if (!cu_sys_exists(c->sys, cert)) {
            CU_AUTOFREE char *shown = cu_sys_path(c->sys, cert);
            st = cu_error_set(err, CU_E_TOOL, 0, _("DKMS built the module but made no signing key (%s), so the module is not signed for Secure Boot."), shown);
            cu_error_advise(err, _("DKMS makes its key with openssl at a signed build: install openssl with the package manager, then run `cudaup repair`."));
            return st;
        }
    }
    if (c->sys->image) {
        cu_run_result(c->run, "driver", "mok", _("not queued: the image's first boot asks its own firmware"), CU_OK, false);
        return CU_OK;
    }
    if (!c->sys->tty) {
        cu_run_result(c->run, "driver", "mok", _("not queued: no terminal to type the password on"), CU_OK, false);
        return CU_OK;
    }
    const char *argv[] = {"mokutil", "--import", cert, NULL};
    st = drv_run_step(c, "mok", argv, true, err);
    *queued = st == CU_OK;
    return st;
}




