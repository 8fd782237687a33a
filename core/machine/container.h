/* SPDX-License-Identifier: MIT */
/*
 * Does cudaup run inside a container?  A container shares the host's kernel: it cannot install or load a
 * kernel module (in a privileged one, modprobe acts on the host's kernel), and the GPU's driver is the
 * host's, its libraries put in by the engine (`docker run --gpus all`, CDI).  Read through the machine root
 * (DESIGN "Containers", issue 48):
 *
 *  - the engines' own marker files: /.dockerenv (Docker), /run/.containerenv (Podman, Buildah and CRI-O;
 *    Podman writes engine="podman-VERSION" into it);
 *  - only when the root is this machine's own "/": what pid 1 says of itself, its container= variable
 *    (/proc/1/environ, set by LXC, systemd-nspawn and Podman; systemd keeps it in /run/systemd/container,
 *    which other users may read), KUBERNETES_SERVICE_HOST there (every pod's container), and its cgroup
 *    (/proc/1/cgroup: /docker/..., libpod-..., kubepods...).  With --root DIR, DIR's own files decide: a machine
 *    image prepared by a cudaup that runs inside a container is not taken for one.
 *
 * Facts, not judgements (core/machine): what to plan inside one is core/resolve's, what to say doctor's.
 */
#ifndef CU_CONTAINER_H
#define CU_CONTAINER_H

#include <stdbool.h>

#include "core/base/sysroot.h"

struct cu_container_info {
    bool inside;
    char engine[32];   /* "docker", "podman", "buildah", "lxc", "systemd-nspawn", "kubernetes", "containerd",
                        * "cri-o", another container= value as written ([a-z0-9._-] only), or "" when nothing says */
    char evidence[32]; /* the file that says so: "/.dockerenv", "/run/.containerenv", "/proc/1/environ",
                        * "/run/systemd/container", "/proc/1/cgroup"; "" when not inside */
};

/** Fill @out for the machine at @root: its marker files, and pid 1's word only when @root is "/". */
void cu_container_probe(const struct cu_sysroot *root, struct cu_container_info *out);

/** cu_container_probe with pid 1 read when @pid1 is true, whatever the root (tests: a root's proc/1). */
void cu_container_detect(const struct cu_sysroot *root, bool pid1, struct cu_container_info *out);

/** The engine as its makers write it ("Docker", "Podman", "LXC"), the value itself for one cudaup does not
 * know, or NULL when @c names none. Static or borrowed from @c. */
const char *cu_container_engine_title(const struct cu_container_info *c);

#endif /* CU_CONTAINER_H */
