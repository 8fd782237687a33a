/* SPDX-License-Identifier: MIT */
/* The container engines on this machine (core/machine/engines.h). */
#include "config.h"

#define CU_LOG_TAG "engines"
#include "core/machine/engines.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/toml.h"

static const char *const dirs[] = {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"};

static const struct {
    const char *name, *title, *program, *config;
} info[CU_N_ENGINES] = {
    [CU_ENGINE_DOCKER] = {"docker", "Docker", "dockerd", "/etc/docker/daemon.json"},
    [CU_ENGINE_CONTAINERD] = {"containerd", "containerd", "containerd", "/etc/containerd/config.toml"},
    [CU_ENGINE_CRIO] = {"crio", "CRI-O", "crio", "/etc/crio/crio.conf"},
    [CU_ENGINE_PODMAN] = {"podman", "Podman", "podman", NULL},
};

const char *
cu_engine_name(enum cu_engine_kind k)
{
    return k < CU_N_ENGINES ? info[k].name : "?";
}

const char *
cu_engine_title(enum cu_engine_kind k)
{
    return k < CU_N_ENGINES ? info[k].title : "?";
}

bool
cu_engine_parse(const char *name, enum cu_engine_kind *out)
{
    for (int k = 0; k < CU_N_ENGINES; k++)
        if (strcmp(name, info[k].name) == 0) {
            *out = (enum cu_engine_kind)k;
            return true;
        }
    if (strcmp(name, "cri-o") == 0) {
        *out = CU_ENGINE_CRIO;
        return true;
    }
    return false;
}

bool
cu_engine_version_parse(const char *line, struct cu_version *out)
{
    memset(out, 0, sizeof(*out));
    if (!line)
        return false;
    /* The first word that starts like a version ("1.6.20~ds1", "v2.1.3", "20.10.24+dfsg1,"): its X.Y.Z. */
    for (const char *p = line; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *w = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        const char *s = (*w == 'v' && w[1] >= '0' && w[1] <= '9') ? w + 1 : w;
        if (*s >= '0' && *s <= '9') {
            size_t n = strspn(s, "0123456789.");
            while (n && s[n - 1] == '.')
                n--;
            CU_AUTOFREE char *num = cu_xstrndup(s, n);
            if (strchr(num, '.') && cu_version_parse(num, out))
                return true;
        }
    }
    return false;
}

/* Is @name an executable program in one of the root's PATH folders?  Its path in *where. */
static bool
find_program(const struct cu_sys *s, const char *name, char **where)
{
    *where = NULL;
    for (size_t i = 0; s->files_open && i < CU_N_ELEMENTS(dirs); i++) {
        CU_AUTOFREE char *p = cu_path_join(dirs[i], name);
        int fd = cu_sysroot_open(&s->files, p, O_RDONLY | O_NONBLOCK);
        if (fd < 0)
            continue;
        struct stat sb;
        bool ok = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_mode & 0111);
        close(fd);
        if (ok) {
            *where = cu_xstrdup(p);
            return true;
        }
    }
    return false;
}

static void
read_file(const struct cu_sys *s, const char *path, struct cu_engine_file *f)
{
    struct cu_error e;
    f->path = cu_xstrdup(path);
    if (!cu_sys_exists(s, path))
        return;
    if (cu_sys_read(s, path, 4u << 20, &f->text, &e) != CU_OK) {
        f->text = NULL;
        f->error = cu_xstrdup(cu_error_text(&e));
    }
}

static void
file_fini(struct cu_engine_file *f)
{
    free(f->path);
    free(f->text);
    free(f->error);
    memset(f, 0, sizeof(*f));
}

static void
add_import(struct cu_engine_info *e, const struct cu_sys *s, const char *path)
{
    for (size_t i = 0; i < e->n_imports; i++)
        if (strcmp(e->imports[i].path, path) == 0)
            return;
    e->imports = cu_xreallocarray(e->imports, e->n_imports + 1, sizeof(*e->imports));
    memset(&e->imports[e->n_imports], 0, sizeof(e->imports[0]));
    read_file(s, path, &e->imports[e->n_imports++]);
}

/* The files a glob names (its last part may hold * ? [...]), sorted, read through the root. */
static void
add_glob(struct cu_engine_info *e, const struct cu_sys *s, const char *pattern)
{
    const char *slash = strrchr(pattern, '/');
    if (!slash || !strpbrk(slash + 1, "*?[")) {
        if (cu_sys_exists(s, pattern))
            add_import(e, s, pattern);
        return;
    }
    CU_AUTOFREE char *dir = slash == pattern ? cu_xstrdup("/") : cu_xstrndup(pattern, (size_t)(slash - pattern));
    DIR *d = s->files_open ? cu_sysroot_opendir(&s->files, dir) : NULL;
    struct cu_strv names;
    cu_strv_init(&names);
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.' && fnmatch(slash + 1, de->d_name, 0) == 0)
            cu_strv_push(&names, de->d_name);
    if (d)
        closedir(d);
    cu_strv_sort(&names);
    for (size_t i = 0; i < names.n; i++) {
        CU_AUTOFREE char *p = cu_path_join(dir, names.v[i]);
        add_import(e, s, p);
    }
    cu_strv_fini(&names);
}

/* containerd's imports (the root config's `imports`, relative ones against its folder). */
static void
containerd_imports(struct cu_engine_info *e, const struct cu_sys *s)
{
    struct cu_toml t;
    struct cu_error err;
    if (!e->config.text || cu_toml_parse(e->config.text, &t, &err) != CU_OK)
        return;
    const struct cu_toml_entry *im = cu_toml_get(&t, "imports");
    for (char **p = im && im->type == CU_TOML_ARRAY ? im->items : NULL; p && *p; p++) {
        CU_AUTOFREE char *abs = **p == '/' ? cu_xstrdup(*p) : cu_path_join("/etc/containerd", *p);
        add_glob(e, s, abs);
    }
    cu_toml_fini(&t);
}

/* A line of a command's output, through the runner; NULL when it cannot run or fails. */
static char *
ask(const struct cu_sys *s, const char *const *argv, bool first_line)
{
    struct cu_buf out;
    struct cu_error err;
    int code = -1;
    cu_buf_init(&out);
    if (cu_sys_capture(s, argv, &out, NULL, &code, &err) != CU_OK || code != 0) {
        cu_buf_fini(&out);
        return NULL;
    }
    char *text = cu_buf_steal(&out);
    if (!text)
        return cu_xstrdup("");
    if (first_line)
        text[strcspn(text, "\n")] = '\0';
    return text;
}

static void
lines_into(const char *text, struct cu_strv *out)
{
    CU_AUTOFREE char *t = cu_xstrdup(text ? text : "");
    char *save = NULL;
    for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *w = cu_str_strip(l);
        if (*w && !cu_strv_contains(out, w))
            cu_strv_push(out, w);
    }
}

/* The containers each engine runs now: docker ps, containerd's tasks in every namespace, crictl ps. */
static void
running(struct cu_engine_info *e, const struct cu_sys *s)
{
    CU_AUTOFREE char *text = NULL;
    if (e->kind == CU_ENGINE_DOCKER) {
        const char *argv[] = {"docker", "ps", "--format", "{{.Names}}", NULL};
        text = ask(s, argv, false);
    } else if (e->kind == CU_ENGINE_CONTAINERD) {
        const char *ns[] = {"ctr", "namespaces", "list", "-q", NULL};
        CU_AUTOFREE char *names = ask(s, ns, false);
        if (names) {
            struct cu_strv v, all;
            cu_strv_init(&v);
            cu_strv_init(&all);
            lines_into(names, &v);
            bool ok = true;
            for (size_t i = 0; i < v.n && ok; i++) {
                const char *tasks[] = {"ctr", "--namespace", v.v[i], "tasks", "list", "-q", NULL};
                CU_AUTOFREE char *t = ask(s, tasks, false);
                ok = t != NULL;
                struct cu_strv ids;
                cu_strv_init(&ids);
                lines_into(t, &ids);
                for (size_t k = 0; k < ids.n; k++)
                    cu_strv_push_owned(&all, cu_xasprintf("%s/%s", v.v[i], ids.v[k]));
                cu_strv_fini(&ids);
            }
            if (ok) {
                struct cu_buf b;
                cu_buf_init(&b);
                for (size_t i = 0; i < all.n; i++)
                    cu_buf_printf(&b, "%s\n", all.v[i]);
                text = b.data ? cu_buf_steal(&b) : cu_xstrdup("");
            }
            cu_strv_fini(&v);
            cu_strv_fini(&all);
        }
    } else if (e->kind == CU_ENGINE_CRIO) {
        const char *argv[] = {"crictl", "ps", "-q", NULL};
        text = ask(s, argv, false);
    } else {
        e->running_known = true; /* Podman has no daemon to restart: nothing of it stops */
        return;
    }
    e->running_known = text != NULL;
    lines_into(text, &e->running);
}

/* A rootless Docker of the user whose HOME is given: its user unit or its socket, and dockerd-rootless.sh. */
static void
rootless_docker(struct cu_engine_info *e, const struct cu_sys *s, const char *const *envp)
{
    const char *home = cu_env_get(envp, "HOME");
    if (!home || *home != '/' || strcmp(home, "/") == 0)
        return;
    CU_AUTOFREE char *unit = cu_path_join(home, ".config/systemd/user/docker.service");
    CU_AUTOFREE char *script = NULL;
    if (!cu_sys_exists(s, unit) || !find_program(s, "dockerd-rootless.sh", &script))
        return;
    e->rootless = true;
    e->home = cu_xstrdup(home);
    CU_AUTOFREE char *cfg = cu_path_join(home, ".config/docker/daemon.json");
    read_file(s, cfg, &e->user_config);
}

void
cu_engines_probe(const struct cu_engines_opts *o, struct cu_engines *out)
{
    const struct cu_sys *s = o->sys;
    memset(out, 0, sizeof(*out));
    CU_AUTOFREE char *systemctl = NULL;
    if (s->bin_dir) { /* the stand-ins: their systemctl, if they have one */
        CU_AUTOFREE char *p = cu_path_join(s->bin_dir, "systemctl");
        out->systemd = access(p, X_OK) == 0;
    } else {
        /* systemd runs the machine (sd_booted(3): /run/systemd/system), and its systemctl is there */
        out->systemd = find_program(s, "systemctl", &systemctl) && cu_sys_exists(s, "/run/systemd/system");
    }
    if (!find_program(s, "nvidia-ctk", &out->nvidia_ctk))
        out->nvidia_ctk = NULL;
    for (int k = 0; k < CU_N_ENGINES; k++) {
        struct cu_engine_info *e = &out->e[k];
        e->kind = (enum cu_engine_kind)k;
        cu_strv_init(&e->running);
        e->installed = find_program(s, info[k].program, &e->program);
        if (k == CU_ENGINE_DOCKER && !e->installed && s->files_open) {
            /* Docker Desktop's WSL integration: /usr/bin/docker links into /mnt/wsl/docker-desktop/..., no dockerd. */
            for (size_t i = 0; i < CU_N_ELEMENTS(dirs) && !e->desktop; i++) {
                CU_AUTOFREE char *p = cu_path_join(dirs[i], "docker");
                CU_AUTOFREE char *to = cu_sysroot_readlink(&s->files, p);
                if (to && (cu_str_has_prefix(to, "/mnt/wsl/") || cu_str_has_prefix(to, "/mnt/c/"))) {
                    e->desktop = true;
                    e->desktop_link = cu_xasprintf("%s -> %s", p, to);
                }
            }
        }
        if (!e->installed)
            continue;
        if (info[k].config)
            read_file(s, info[k].config, &e->config);
        if (k == CU_ENGINE_CONTAINERD)
            containerd_imports(e, s);
        if (k == CU_ENGINE_CRIO)
            add_glob(e, s, "/etc/crio/crio.conf.d/*");
        if (k == CU_ENGINE_DOCKER)
            rootless_docker(e, s, o->envp);
        if (o->versions) {
            const char *argv[] = {info[k].program, "--version", NULL};
            e->version_line = ask(s, argv, true);
            if (!cu_engine_version_parse(e->version_line, &e->version))
                cu_log_info("%s --version said %s: no version read", info[k].program, e->version_line ? e->version_line : "nothing");
        }
        if (o->running) {
            running(e, s);
            if (out->systemd && k != CU_ENGINE_PODMAN) {
                const char *unit = k == CU_ENGINE_DOCKER ? "docker" : info[k].name;
                const char *argv[] = {"systemctl", "is-active", unit, NULL};
                struct cu_buf b;
                struct cu_error err;
                int code = 0;
                cu_buf_init(&b);
                if (cu_sys_capture(s, argv, &b, NULL, &code, &err) == CU_OK && b.data) {
                    char *w = cu_str_strip(b.data);
                    e->state = cu_xstrdup(*w ? w : "unknown");
                }
                cu_buf_fini(&b);
            }
        }
    }
}

void
cu_engines_fini(struct cu_engines *en)
{
    for (int k = 0; k < CU_N_ENGINES; k++) {
        struct cu_engine_info *e = &en->e[k];
        free(e->program);
        free(e->version_line);
        free(e->desktop_link);
        file_fini(&e->config);
        for (size_t i = 0; i < e->n_imports; i++)
            file_fini(&e->imports[i]);
        free(e->imports);
        free(e->home);
        file_fini(&e->user_config);
        cu_strv_fini(&e->running);
        free(e->state);
    }
    free(en->nvidia_ctk);
    memset(en, 0, sizeof(*en));
}
