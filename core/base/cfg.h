/* SPDX-License-Identifier: MIT */
/*
 * Everything the user asked for, parsed before anything runs (STYLE 43).
 * Filled by cli/options.c from defaults < config file < CUDAUP_* env < argv.
 * Strings are owned by the struct (cu_config_fini).
 */
#ifndef CU_CFG_H
#define CU_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Tries after a failed one, per download, unless --retries says otherwise (the back-off: net.h). */
#define CU_NET_RETRIES_DEFAULT 6

enum cu_command {
    CU_CMD_NONE, /* the wizard */
    CU_CMD_DOCTOR,
    CU_CMD_PLAN,
    CU_CMD_INSTALL,
    CU_CMD_VERIFY,
    CU_CMD_REPAIR,
    CU_CMD_UNINSTALL,
    CU_CMD_LIST,
    CU_CMD_MIRROR,
    CU_CMD_COUNT
};

struct cu_config {
    enum cu_command command;
    char **args; /* positional arguments after the command, NULL-terminated */
    size_t n_args;
    char **given; /* the command line's words as given (argv[1..]), NULL-terminated: what an image's first boot runs
                   * again there (installers/driver_firstboot.c) */

    /* every command */
    char *root, *mirror, *cache_dir, *state_dir, *log_file;
    char *ca_cert; /* a CA bundle for the mirror's TLS (--ca-cert, else CURL_CA_BUNDLE, else SSL_CERT_FILE) */
    bool json, yes, quiet, no_color, help, version;
    int verbose;

    /* plan, install, mirror (and the wizard's answers) */
    char *cuda, *cudnn, *framework, *components, *prefix, *env_scope, *shell_rc, *env_tool,
        *env_name, *python, *platform;
    char *python_source; /* auto, system, cudaup */
    char *index_url;     /* the framework's upstream package index (else PIP_INDEX_URL, else PyPI) */
    char *env_dir;       /* where venvs go (--env-dir) */
    char *package;       /* mirror: cudaup's own .deb or tarball to place in DIR/cudaup/ */
    char *driver;        /* --driver auto|keep|none|BRANCH[-open|-proprietary] */
    char *driver_source; /* --driver-source distro|nvidia */
    char *containers;    /* --containers docker,containerd,crio,podman|auto|none */
    char *toolkit;       /* --toolkit system|wheels|none (issue 50) */
    bool restart_engines; /* --restart-engines: with --yes, restart an engine even when it runs containers */
    bool offline;        /* --offline: no package index, not NVIDIA's server; the catalog, the cache, the --mirror given */
    bool allow_inferred; /* --allow-inferred: plan a build whose GPU code is inferred as one read */
    uint64_t index_timeout; /* seconds the package index has to answer, its requests together (default 5) */

    /* verify, repair */
    bool require_gpu, deep;
    char *env; /* verify --env PATH|NAME: one conda environment or venv, made by cudaup or not */
    bool keep_env; /* uninstall: keep the Python environment made for that CUDA */
    uint64_t gpu_timeout; /* seconds for each GPU check */

    /* downloads */
    uint64_t jobs;    /* archives at once */
    uint64_t retries; /* tries after a failed one, per download (CU_NET_RETRIES_DEFAULT) */

    /* wizard and its tests */
    char *keys_script;
    uint64_t iterations;
    bool non_interactive;

    /* where values came from, for messages: the config file read, if any */
    char *config_file;
};

void cu_config_init(struct cu_config *cfg);
void cu_config_fini(struct cu_config *cfg);
/** A deep copy of @src into @dst (the wizard hands its worker a snapshot); cu_config_fini frees it. */
void cu_config_copy(struct cu_config *dst, const struct cu_config *src);
const char *cu_command_name(enum cu_command cmd);

#endif /* CU_CFG_H */
