/* SPDX-License-Identifier: MIT */
/* Inside a container or not (core/machine/container.h). */
#include "config.h"

#define CU_LOG_TAG "container"
#include "core/machine/container.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"

/* A value as written, kept only where it is a plain word ([a-z0-9._-], lower-cased): it goes into sentences. */
static void
set_engine(struct cu_container_info *out, const char *v, size_t n)
{
    out->engine[0] = '\0';
    if (n >= sizeof(out->engine))
        return;
    for (size_t i = 0; i < n; i++) {
        char ch = v[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
              ch == '-'))
            return; /* not a word: said as unknown rather than as written */
    }
    for (size_t i = 0; i < n; i++)
        out->engine[i] = v[i] >= 'A' && v[i] <= 'Z' ? (char)(v[i] - 'A' + 'a') : v[i];
    out->engine[n] = '\0';
}

static void
found(struct cu_container_info *out, const char *engine, const char *evidence)
{
    out->inside = true;
    set_engine(out, engine, strlen(engine));
    snprintf(out->evidence, sizeof(out->evidence), "%s", evidence);
}

/* Podman writes engine="podman-4.3.1" (Buildah: "buildah-1.28.2") into /run/.containerenv; an empty file (a
 * rootless or an older Podman, CRI-O) names no engine. */
static void
containerenv(const struct cu_sysroot *root, struct cu_container_info *out)
{
    char *text = NULL;
    struct cu_error err;
    found(out, "", "/run/.containerenv");
    if (cu_sysroot_read(root, "/run/.containerenv", 64 * 1024, &text, NULL, &err) != CU_OK)
        return;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len > 9 && strncmp(line, "engine=\"", 8) == 0 && line[len - 1] == '"') {
            const char *v = line + 8;
            size_t vl = len - 9;
            const char *dash = memchr(v, '-', vl);
            set_engine(out, v, dash ? (size_t)(dash - v) : vl);
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
}

/* pid 1's environment (NUL-separated): container=NAME, or a pod's KUBERNETES_SERVICE_HOST. */
static bool
pid1_environ(const struct cu_sysroot *root, struct cu_container_info *out)
{
    char *text = NULL;
    size_t len = 0;
    struct cu_error err;
    bool kube = false;
    if (cu_sysroot_read(root, "/proc/1/environ", 1 << 20, &text, &len, &err) != CU_OK) {
        cu_log_debug("pid 1's environment is not readable here: %s", err.msg);
        return false;
    }
    for (size_t i = 0; i < len;) {
        const char *e = text + i;
        size_t n = strnlen(e, len - i);
        if (n > 10 && strncmp(e, "container=", 10) == 0) {
            found(out, "", "/proc/1/environ");
            set_engine(out, e + 10, n - 10);
            free(text);
            return true;
        }
        kube |= n > 24 && strncmp(e, "KUBERNETES_SERVICE_HOST=", 24) == 0;
        i += n + 1;
    }
    free(text);
    if (kube)
        found(out, "kubernetes", "/proc/1/environ");
    return kube;
}

/* The engines' marks in pid 1's cgroup paths, most specific first (a pod's containerd is Kubernetes'). */
static bool
pid1_cgroup(const struct cu_sysroot *root, struct cu_container_info *out)
{
    static const struct {
        const char *mark, *engine;
    } marks[] = {
        {"kubepods", "kubernetes"}, {"libpod", "podman"}, {"/docker/", "docker"}, {"/docker-", "docker"},
        {"/lxc/", "lxc"},           {"lxc.payload", "lxc"}, {"crio-", "cri-o"},   {"containerd", "containerd"},
    };
    char *text = NULL;
    struct cu_error err;
    if (cu_sysroot_read(root, "/proc/1/cgroup", 1 << 20, &text, NULL, &err) != CU_OK)
        return false;
    for (size_t k = 0; k < CU_N_ELEMENTS(marks); k++)
        for (const char *line = text; line && *line;) {
            const char *nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            /* "hierarchy:controllers:path": the path is after the second colon */
            const char *c1 = memchr(line, ':', len);
            const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
            if (c2) {
                CU_AUTOFREE char *path = cu_xstrndup(c2 + 1, len - (size_t)(c2 + 1 - line));
                if (strstr(path, marks[k].mark)) {
                    found(out, marks[k].engine, "/proc/1/cgroup");
                    free(text);
                    return true;
                }
            }
            line = nl ? nl + 1 : NULL;
        }
    free(text);
    return false;
}

void
cu_container_detect(const struct cu_sysroot *root, bool pid1, struct cu_container_info *out)
{
    memset(out, 0, sizeof(*out));
    if (cu_sysroot_exists(root, "/.dockerenv")) {
        found(out, "docker", "/.dockerenv");
    } else if (cu_sysroot_exists(root, "/run/.containerenv")) {
        containerenv(root, out);
    } else if (pid1 && !pid1_environ(root, out)) {
        CU_AUTOFREE char *sd = cu_sysroot_read_line(root, "/run/systemd/container");
        if (sd && *sd)
            found(out, sd, "/run/systemd/container");
        else
            pid1_cgroup(root, out);
    }
    if (out->inside)
        cu_log_info("Inside a container (%s: %s)", out->engine[0] ? out->engine : "engine unknown", out->evidence);
}

void
cu_container_probe(const struct cu_sysroot *root, struct cu_container_info *out)
{
    cu_container_detect(root, cu_sysroot_is_host(root), out);
}

const char *
cu_container_engine_title(const struct cu_container_info *c)
{
    static const struct {
        const char *engine, *title;
    } titles[] = {
        {"docker", "Docker"}, {"podman", "Podman"}, {"buildah", "Buildah"}, {"lxc", "LXC"},
        {"lxc-libvirt", "libvirt LXC"}, {"kubernetes", "Kubernetes"}, {"cri-o", "CRI-O"},
    };
    if (!c->inside || !c->engine[0])
        return NULL;
    for (size_t i = 0; i < CU_N_ELEMENTS(titles); i++)
        if (strcmp(c->engine, titles[i].engine) == 0)
            return titles[i].title;
    return c->engine;
}
