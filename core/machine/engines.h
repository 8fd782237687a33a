/* SPDX-License-Identifier: MIT */
/*
 * The container engines on this machine (issue 48): Docker, containerd, CRI-O and Podman, each as the machine root
 * has it: whether its program is there (on the root's own PATH, not a link into Docker Desktop's Windows side under
 * WSL2), its version as the program says it (asked through the system runner), its configuration files as they are
 * (read through the root), a rootless Docker of the user (HOME's ~/.config), and the containers it runs now.  Facts,
 * not judgements: what to write is core/resolve/containers.h's, what is wrong doctor's.
 */
#ifndef CU_ENGINES_H
#define CU_ENGINES_H

#include <stdbool.h>

#include "core/base/parse.h"
#include "core/base/str.h"
#include "core/machine/syscmd.h"

enum cu_engine_kind {
    CU_ENGINE_DOCKER,
    CU_ENGINE_CONTAINERD,
    CU_ENGINE_CRIO,
    CU_ENGINE_PODMAN,
    CU_N_ENGINES,
};

/* One file an engine reads, as it is now. */
struct cu_engine_file {
    char *path;   /* as the machine sees it: /etc/containerd/conf.d/99-nvidia.toml */
    char *text;   /* its bytes, or NULL when it does not exist (or cannot be read: @error says why) */
    char *error;  /* why it could not be read, or NULL */
};

struct cu_engine_info {
    enum cu_engine_kind kind;
    bool installed;          /* its program is in the root: dockerd, containerd, crio, podman */
    char *program;           /* where: /usr/bin/containerd */
    char *version_line;      /* the first line `PROGRAM --version` printed, or NULL */
    struct cu_version version; /* n == 0: unknown */
    bool desktop;            /* docker only: no dockerd here, but a docker CLI that is Docker Desktop's (WSL2) */
    char *desktop_link;      /* where that CLI points */
    /* Its configuration: Docker's daemon.json, containerd's config.toml (and the files its `imports` name, in
     * @imports), CRI-O's crio.conf and its crio.conf.d drop-ins. */
    struct cu_engine_file config;
    struct cu_engine_file *imports;
    size_t n_imports;
    bool rootless;           /* docker: the user (HOME) runs a rootless daemon: its config is @user_config */
    char *home;              /* that user's home as the root sees it */
    struct cu_engine_file user_config; /* ~/.config/docker/daemon.json */
    /* The containers it runs now, by name (queried only when asked): @running_known false when it could not say. */
    struct cu_strv running;
    bool running_known;
    char *state;             /* systemctl is-active's word ("active", "inactive"), or NULL (no systemd, not asked) */
};

struct cu_engines {
    struct cu_engine_info e[CU_N_ENGINES];
    bool systemd;            /* systemctl is there to restart engines with */
    char *nvidia_ctk;        /* the NVIDIA Container Toolkit's nvidia-ctk in the root, or NULL */
};

/** "docker", "containerd", "crio", "podman". Static. */
const char *cu_engine_name(enum cu_engine_kind k);
/** "Docker", "containerd", "CRI-O", "Podman". Static. */
const char *cu_engine_title(enum cu_engine_kind k);
/** @name ("docker", ..., also "cri-o") as a kind; false when it names none. */
bool cu_engine_parse(const char *name, enum cu_engine_kind *out);

struct cu_engines_opts {
    const struct cu_sys *sys;     /* reads the root's files, runs `--version` and the queries */
    const char *const *envp;      /* HOME, for a rootless Docker */
    bool versions;                /* ask each program found its version */
    bool running;                 /* ask each engine which containers it runs, and systemd its state */
};

/** Fill @out for the machine of @o->sys.  Never fails: what cannot be read is said in the fields. */
void cu_engines_probe(const struct cu_engines_opts *o, struct cu_engines *out);
void cu_engines_fini(struct cu_engines *e);

/** The version of an engine from its `--version` line ("Docker version 20.10.24+dfsg1, build ...",
 *  "containerd github.com/containerd/containerd 1.6.20~ds1 ...", "podman version 4.3.1", "crio version 1.30.0"). */
bool cu_engine_version_parse(const char *line, struct cu_version *out);

#endif /* CU_ENGINES_H */
