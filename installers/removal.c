/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "removal.h"

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/sysroot.h"
#include "core/install/envfile.h"
#include "core/install/record.h"
#include "core/resolve/plan.h"

/* The blocks under the directory open at @fd, links not followed; depth-limited like the tree itself. */
static uint64_t
dir_bytes(int fd, int depth)
{
    uint64_t n = 0;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 0;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        struct stat sb;
        if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        n += (uint64_t)sb.st_blocks * 512;
        if (S_ISDIR(sb.st_mode) && depth < 64) {
            int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                n += dir_bytes(sub, depth + 1);
        }
    }
    closedir(d);
    return n;
}

uint64_t
cu_tree_bytes(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return 0;
    uint64_t n = (uint64_t)sb.st_blocks * 512;
    if (S_ISDIR(sb.st_mode)) {
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0)
            n += dir_bytes(fd, 0);
    }
    return n;
}

void
cu_removal_fini(struct cu_removal *r)
{
    cu_strv_fini(&r->goes);
    cu_strv_fini(&r->stays);
    memset(r, 0, sizeof(*r));
}

static json_t *
pyenv_record(const char *state_dir)
{
    CU_AUTOFREE char *pj = cu_path_join(state_dir, "pyenv.json");
    char *text = NULL;
    size_t len;
    json_t *j = NULL;
    struct cu_error e;
    if (cu_read_file(pj, 1 << 20, &text, &len, &e) != CU_OK || cu_json_parse_object(text, len, pj, &j, &e) != CU_OK)
        j = NULL;
    free(text);
    return j;
}

/* The Pythons cudaup brought into PREFIX/cudaup/python: they stay, and say how they go. */
static void
brought_pythons(const char *prefix, struct cu_removal *out)
{
    CU_AUTOFREE char *base = cu_xasprintf("%s/cudaup/python", prefix);
    DIR *d = opendir(base);
    struct dirent *de;
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        CU_AUTOFREE char *dir = cu_path_join(base, de->d_name);
        CU_AUTOFREE char *rec = cu_path_join(dir, ".cudaup/record.json");
        if (!cu_is_dir(dir) || !cu_path_exists(rec))
            continue;
        char b[32];
        cu_strv_push_owned(&out->stays,
                           cu_xasprintf(_("Python %s, which cudaup brought for the environment (%s, %s), stays: `cudaup uninstall python-%s` removes it once no venv uses it."),
                                        de->d_name, dir, cu_format_bytes(cu_tree_bytes(dir), b, sizeof(b)), de->d_name));
    }
    closedir(d);
}

enum cu_status
cu_uninstall_preview(const struct cu_maint_in *in, const char *mm, struct cu_removal *out, struct cu_error *err)
{
    char b[32];
    memset(out, 0, sizeof(*out));
    cu_strv_init(&out->goes);
    cu_strv_init(&out->stays);
    CU_AUTOFREE char *dir = cu_xasprintf("%s/cuda-%s", in->prefix, mm);
    CU_AUTOFREE char *link = cu_path_join(in->prefix, "cuda");
    if (!cu_path_exists(dir))
        return CU_OK;
    struct cu_record *rec = NULL;
    enum cu_status st = cu_record_load(dir, &rec, err);
    if (st == CU_E_NOT_FOUND)
        return cu_error_set(err, CU_E_UNSUPPORTED, 0, _("%s was not installed by cudaup, so cudaup leaves it alone"), dir);
    if (st != CU_OK)
        return st;
    out->installed = true;
    /* The folder, what it holds, and its size. */
    uint64_t size = cu_tree_bytes(dir);
    out->bytes += size;
    if (rec->cudnn_version)
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("%s (%s): CUDA %s and cuDNN %s"), dir, cu_format_bytes(size, b, sizeof(b)),
                                                    rec->cuda_version ? rec->cuda_version : mm,
                                                    rec->cudnn_full ? rec->cudnn_full : rec->cudnn_version));
    else
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("%s (%s): CUDA %s"), dir, cu_format_bytes(size, b, sizeof(b)),
                                                    rec->cuda_version ? rec->cuda_version : mm));
    cu_record_free(rec);
    /* The active link, and with the last install the environment cudaup wrote for it. */
    char cur[4096];
    ssize_t n = readlink(link, cur, sizeof(cur) - 1);
    bool active = false;
    if (n >= 0) {
        cur[n] = '\0';
        active = strcmp(cur, strrchr(dir, '/') + 1) == 0 || strcmp(cur, dir) == 0;
    }
    CU_AUTOFREE char *next = cu_maint_newest_managed(in->prefix, mm);
    bool last = !next;
    if (active && next)
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("%s: points at %s afterwards"), link, next));
    else if (active)
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("%s: the link to it"), link));
    /* The Python environment made for it (cu_pyenv_remove_for's rule). */
    json_t *pe = pyenv_record(in->state_dir);
    CU_AUTOFREE char *path = pe ? cu_venv_rec_here(pe, "path") : NULL;
    CU_AUTOFREE char *cuda = pe ? cu_venv_rec_here(pe, "cuda") : NULL;
    const char *tool = pe ? cu_json_str(pe, "tool") : NULL;
    bool made = pe && json_is_true(json_object_get(pe, "made"));
    bool env_goes = path && tool && made && (cuda ? strcmp(cuda, dir) == 0 : last) && cu_path_exists(path) && !in->keep_env;
    if (active && last) {
        char **rcs = cu_rc_list(in->state_dir);
        bool given = in->shell_rc && *in->shell_rc;
        for (char **r = rcs; r && *r; r++) {
            if (given && strcmp(*r, in->shell_rc) == 0)
                given = false; /* recorded: said once, below */
            if (!(env_goes && cu_str_has_prefix(*r, path) && (*r)[strlen(path)] == '/')) /* inside what goes anyway */
                cu_strv_push_owned(&out->goes, cu_xasprintf(_("%s: the lines between # >>> cudaup >>> and # <<< cudaup <<<"), *r));
        }
        cu_strv_free(rcs);
        if (given && cu_path_exists(in->shell_rc)) /* --shell-rc, where STATE's record of it is gone */
            cu_strv_push_owned(&out->goes, cu_xasprintf(_("%s: the lines between # >>> cudaup >>> and # <<< cudaup <<<"), in->shell_rc));
        CU_AUTOFREE char *profiled = in->profile_d ? cu_path_join(in->profile_d, "cudaup.sh") : NULL;
        /* Inside a machine root, the script as that machine's links lead to it (what uninstall removes). */
        CU_AUTOFREE char *inside = profiled && in->root && !cu_sysroot_is_host(in->root) ? cu_root_seen_path(in->root->path, profiled) : NULL;
        if (profiled && (inside ? cu_sysroot_exists(in->root, inside) : cu_path_exists(profiled)))
            cu_strv_push_owned(&out->goes, cu_xasprintf(_("%s: sets the environment at login"), profiled));
        CU_AUTOFREE char *envsh = cu_path_join(in->state_dir, "env.sh");
        if (cu_path_exists(envsh))
            cu_strv_push_owned(&out->goes, cu_xasprintf(_("%s and env.fish: the environment variables for it"), envsh));
    }
    if (path && tool && made && (cuda ? strcmp(cuda, dir) == 0 : last) && cu_path_exists(path)) {
        uint64_t env_bytes = cu_tree_bytes(path);
        bool venv = strcmp(tool, "venv") == 0;
        if (in->keep_env) {
            cu_strv_push_owned(&out->stays, venv ? cu_xasprintf(_("The venv %s (%s) made for it stays (--keep-env)."), path,
                                                                cu_format_bytes(env_bytes, b, sizeof(b)))
                                                 : cu_xasprintf(_("The %s environment %s (%s) made for it stays (--keep-env)."), tool,
                                                                path, cu_format_bytes(env_bytes, b, sizeof(b))));
        } else {
            out->bytes += env_bytes;
            out->env_goes = true;
            cu_strv_push_owned(&out->goes, venv ? cu_xasprintf(_("%s (%s): the venv made for it, with its packages"),
                                                               path, cu_format_bytes(env_bytes, b, sizeof(b)))
                                                : cu_xasprintf(_("%s (%s): the %s environment made for it, with its packages"),
                                                               path, cu_format_bytes(env_bytes, b, sizeof(b)), tool));
        }
    }
    json_decref(pe);
    brought_pythons(in->prefix, out);
    return CU_OK;
}
