/* SPDX-License-Identifier: MIT */
/*
 * A host made ready for GPU containers (issue 48 items 2 and 3): the NVIDIA Container Toolkit from NVIDIA's CUDA
 * repository for the distribution, at a release the data vouches for and held there; each engine's configuration
 * written so that the engine still starts (Docker's daemon.json merged, containerd's root config or a drop-in of the
 * root's own version, CRI-O's drop-in, Podman through CDI alone); the CDI specs generated and kept fresh; each engine
 * restarted only where that stops nothing unasked.  Decided from the machine's facts (core/machine/engines.h,
 * core/machine/cdi.h), the user's wishes and the catalog's containers tables; pure: the installer carries the steps
 * out (installers/containers/).  The texts of the configuration files are made here too (containers_cfg.c), so that
 * doctor judges a file by the same rules the install writes it by.
 */
#ifndef CU_CONTAINERS_H
#define CU_CONTAINERS_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/error.h"
#include "core/base/str.h"
#include "core/catalog/catalog.h"
#include "core/catalog/ctk_data.h"
#include "core/machine/cdi.h"
#include "core/machine/engines.h"
#include "core/machine/sysinfo.h"

/* The files cudaup writes for containers (each also a step of the plan). */
#define CU_CTR_CONTAINERD_DROPIN "/etc/containerd/conf.d/99-cudaup-nvidia.toml"
#define CU_CTR_CRIO_DROPIN "/etc/crio/crio.conf.d/99-cudaup-nvidia.toml"
#define CU_CTR_TOOLKIT_CONFIG "/etc/nvidia-container-runtime/config.toml"
#define CU_CTR_OWN_UNIT "/etc/systemd/system/cudaup-cdi-refresh.service"
#define CU_CTR_RUNTIME "/usr/bin/nvidia-container-runtime"
#define CU_CTR_BLOCK_BEGIN "# BEGIN cudaup: the NVIDIA Container Runtime"
#define CU_CTR_BLOCK_END "# END cudaup"

/* What the user asked: --containers, --restart-engines; --yes (no question can be asked). */
struct cu_ctr_wish {
    const char *containers; /* NULL or "none", "auto", "docker,containerd,crio,podman" */
    bool restart_engines;
    bool yes;
};

/** Check --containers' syntax. Errors: CU_E_USAGE with the sentence. */
CU_NODISCARD enum cu_status cu_ctr_wish_check(const struct cu_ctr_wish *w, struct cu_error *err);

/** Does @w ask for containers at all (not none)? */
bool cu_ctr_wish_any(const struct cu_ctr_wish *w);

/*
 * One thing the install does, in order (the plan's containers.steps[]): a command (@argv), a file cudaup writes
 * (@path with @text; kept first at @backup when it exists), NVIDIA's repository file or keyring (@url, @sha256), or a
 * step left to the user (@user: listed, never run).  Actions: keyring repository refresh update prereq install hold
 * configure check cdi units restart reload.
 */
struct cu_ctr_step {
    char *action;
    char *engine;          /* the engine it is for ("docker"), or NULL */
    char **argv;           /* NULL-terminated, or NULL */
    char *path, *text;     /* a file: its text as planned now (made again from the file as it is when the step runs) */
    char *url, *sha256;
    char *why;             /* translated */
    bool user;             /* the user's step: said, not run */
    bool ask;              /* restart: asked first, naming the engine's running containers (on a terminal) */
};

/* One engine of the plan. */
struct cu_ctr_engine {
    enum cu_engine_kind kind;
    char *version;         /* "20.10.24", or NULL when unknown */
    char *mode;            /* docker: "daemon.json" or "rootless"; containerd: "root-config" or "drop-in"; crio: "drop-in";
                            * podman: "cdi" */
    char *config;          /* the file written, or NULL (podman; already configured) */
    bool configured;       /* already set up for the GPU: nothing written */
    char *check;           /* how the written file is checked: "containerd config dump", "dockerd --validate",
                            * "keys", "crio config", "none" */
    char *apply;           /* how the engine takes it: "restart", "reload", "none" (not running, or no daemon), "user" */
    struct cu_strv running;/* its running containers, by name */
    bool running_known;
};

struct cu_ctr_plan {
    char *action;          /* install, keep (everything is in place), refuse */
    struct cu_ctr_engine *engines;
    size_t n_engines;
    char *manager;         /* apt, dnf, zypper */
    char *toolkit;         /* "1.20.0" */
    struct cu_strv packages;    /* as the manager installs them: "nvidia-container-toolkit=1.20.0-1" */
    struct cu_strv names;       /* the bare names */
    bool toolkit_ready;    /* installed at that release already */
    char *hold;            /* how it is held, a command line for the user */
    char *cdi_path;        /* /var/run/cdi/nvidia.yaml */
    char *refresh;         /* "nvidia-cdi-refresh" (the toolkit's units), "cudaup-cdi-refresh" (cudaup's own), "none" */
    bool wsl;
    bool image;            /* a machine image (--root, no kernel runs): nothing is generated or restarted there */
    struct cu_strv reasons, reason_sources;
    struct cu_strv user_steps; /* what is left to the user, one sentence each */
    char *refusal, *advice;    /* action refuse */
    struct cu_ctr_step *steps;
    size_t n_steps;
};

struct cu_drv_plan; /* core/resolve/driver.h */

struct cu_ctr_in {
    const struct cu_facts *facts;
    const struct cu_catalog *cat;
    const struct cu_engines *engines;   /* probed with versions and running containers */
    const struct cu_ctr_wish *wish;
    const struct cu_drv_plan *driver;   /* the plan's driver (its NVIDIA repository steps), or NULL */
    const struct cu_strv *installed;    /* "name=version" of the packages installed now, or NULL when unknown */
    const struct cu_cdi *cdi;           /* the CDI specs there now, or NULL */
    bool nvidia_repo;                   /* NVIDIA's CUDA repository is set up already */
    bool image;                         /* the machine root is an image */
};

/**
 * Decide.  Never fails but on bad data: what cannot be done gets action "refuse" with its reason and advice (what
 * does work here).  NULL when the wish asks for no containers.  The caller owns the result (cu_ctr_plan_free).
 */
struct cu_ctr_plan *cu_ctr_choose(const struct cu_ctr_in *in);
void cu_ctr_plan_free(struct cu_ctr_plan *p);
void cu_ctr_step_fini(struct cu_ctr_step *s);

/** The plan JSON's "containers" object (DESIGN "New (compatible)"). */
json_t *cu_ctr_plan_json(const struct cu_ctr_plan *p);

/** A step as one line: its command, or its file; the user's steps as they are. Caller owns. */
char *cu_ctr_step_line(const struct cu_ctr_step *s);

/* ---- the engines' configuration files (containers_cfg.c) ---- */

/* What containerd's configuration says now, and what cudaup writes for it. */
struct cu_ctd_write {
    int root_version;      /* the root config's version (1 when it names none but has content) */
    bool root_exists;
    bool configured;       /* a file containerd loads defines the nvidia runtime with BinaryName and runtime_type */
    char *configured_in;   /* that file */
    char *mode;            /* "root-config" or "drop-in" */
    char *root_text;       /* the new root config (NULL: unchanged) */
    char *dropin_text;     /* drop-in mode: the drop-in's text */
    char *plugin;          /* the CRI runtime plugin of that version: "io.containerd.grpc.v1.cri" */
};

/**
 * containerd @version (n == 0: unknown) with root config @root_text (NULL: there is none) and the files its imports
 * name (@files, @n: path and text, as core/machine/engines.h reads them): what to write.  Errors: CU_E_INPUT (the root
 * config does not parse: containerd would not start with it either), CU_E_UNSUPPORTED (a version containerd or cudaup
 * does not know, a definition cudaup cannot add to without breaking the file): the sentence and its advice.
 */
CU_NODISCARD enum cu_status cu_ctd_config(const struct cu_ctk_data *d, const struct cu_version *version, const char *root_text,
                                          const struct cu_engine_file *files, size_t n, struct cu_ctd_write *out,
                                          struct cu_error *err);
void cu_ctd_write_fini(struct cu_ctd_write *w);

/**
 * Would containerd @version refuse to start with drop-in @dropin_text under a root config of version @root_version?
 * The reason (the engine's own words where recorded), or NULL.  Caller owns.
 */
char *cu_ctd_refuses(const struct cu_ctk_data *d, const struct cu_version *version, int root_version, const char *dropin_text);

/**
 * Check `containerd config dump`'s output @dump (the merged configuration as containerd read it) against what was
 * meant: the nvidia runtime with its binary and runtime_type, and every key the root config @root_text set under the
 * CRI plugin kept (a drop-in merged by plugin key drops them).  NULL when it holds, else what is wrong. Caller owns.
 */
char *cu_ctd_dump_check(const char *dump, const char *root_text);

/**
 * Docker's daemon.json @old_text (NULL: none) with the nvidia runtime added, every key of the user's kept, and
 * `features.cdi` where Docker @version runs CDI (25.0 and later).  *@changed false when nothing was missing.
 * *@runtimes_only: only runtimes changed (Docker reloads that without a restart).  Errors: CU_E_INPUT (the file is not
 * a JSON object: Docker would not start with it either).
 */
CU_NODISCARD enum cu_status cu_docker_config(const struct cu_ctk_data *d, const struct cu_version *version, const char *old_text,
                                             char **new_text, bool *changed, bool *runtimes_only, struct cu_error *err);

/**
 * Compare the daemon.json cudaup wrote (@new_text) with the old one: every key of the old kept with its value, the
 * nvidia runtime there.  NULL when it holds, else what differs. Caller owns.
 */
char *cu_docker_keys_check(const char *old_text, const char *new_text);

/** Is the nvidia runtime in daemon.json @text (with CDI on where @version runs it)? */
bool cu_docker_configured(const struct cu_ctk_data *d, const struct cu_version *version, const char *text);

/** CRI-O's drop-in that adds the nvidia runtime. Caller owns. */
char *cu_crio_dropin(void);

/** Does one of CRI-O's files (@files, @n) define the nvidia runtime? */
bool cu_crio_configured(const struct cu_engine_file *files, size_t n);

/**
 * The toolkit's config.toml @text with `no-cgroups = true` under [nvidia-container-cli] (rootless Docker: it cannot
 * manage cgroups), every other line kept.  NULL when it is set already. Caller owns.
 */
char *cu_ctk_no_cgroups(const char *text);

/** The unit of cudaup's own that regenerates the CDI spec at each boot (a toolkit without refresh units). */
char *cu_ctr_own_unit(const char *cdi_path, bool wsl);

/** Remove cudaup's marked block from @text (root-config mode's undoing). NULL when there is none. Caller owns. */
char *cu_ctd_unblock(const char *text);

#endif /* CU_CONTAINERS_H */
