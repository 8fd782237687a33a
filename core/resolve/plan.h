/* SPDX-License-Identifier: MIT */
/*
 * The plan: everything `install` will do, decided by the resolver before
 * anything is touched, shown by `plan`, the wizard's review screen and
 * `plan --json`.
 */
#ifndef CU_PLAN_H
#define CU_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/catalog/fwcheck.h"
#include "core/catalog/manifest.h"
#include "core/base/parse.h"
#include "core/base/str.h"

struct cu_plan_download {
    enum cu_product product;
    char *component;     /* manifest key: "cuda_cudart", "cudnn" */
    char *version;       /* the component's own version */
    char *title;         /* the manifest's name for it ("CUDA Runtime (cudart)"), or NULL */
    char *relative_path; /* as in the manifest */
    char *url;
    char sha256[65];
    uint64_t size;     /* the exact size; with size_unknown, only the most that is accepted */
    bool size_unknown; /* the source publishes no size (python-build-standalone): the hash alone decides */
    uint64_t size_seen; /* with size_unknown: the size the mirror reported (Content-Length, stat) when asked
                         * while planning, for the disk check and the totals; 0 when not known */
    char *runfile_layout; /* a CUDA runfile, read (never run) by core/unpack/runfile.c: "nested", ...; else NULL */
    char *archive_layout; /* a Python archive's: "full" places only python/install/ (core/unpack/pyarchive.h);
                             NULL or "install_only": the archive's top folder holds the tree */
    bool not_cached;      /* planned offline: cudaup's cache does not hold it, and its server is not asked */
    uint64_t unpacked;    /* what it takes unpacked, read from the .tar.xz's own index (core/unpack/xzsize.h) in the
                             cache, a file:// mirror or with one range request; 0 when not read */
    bool from_base;       /* relative_path lies under the mirror's base as on NVIDIA's server (runfiles,
                             cuDNN .tgz), not under BASE/PRODUCT/redist */
};

struct cu_plan_step {
    char *installer; /* "cuda", "cudnn", "envvars", "pyenv", "framework" */
    char *action;    /* "install", "link", "write", "create", "pip-install", "skip" */
    char *detail;
};

enum cu_framework {
    CU_FW_NONE,
    CU_FW_TENSORFLOW,
    CU_FW_PYTORCH,
    CU_FW_JAX,
};

struct cu_plan_framework {
    enum cu_framework kind;
    char *name;      /* "tensorflow", "pytorch", "jax" */
    char *version;   /* "2.20.0", "2.9", or NULL for the index's newest */
    char *python;    /* "3.12" */
    char *py_min, *py_max; /* the range the framework supports, or NULL */
    char **pip;      /* requirement strings for pip, NULL-terminated */
    char **constraints; /* pins for the libraries pip brings ("nvidia-cudnn-cu12==9.10.2.*"), NULL-terminated */
    char *constraints_file; /* where pip reads them (STATE/pip-constraints-ENV.txt), or NULL when none */
    char *index_url; /* PyTorch's CUDA index, --index-url, the site mirror's index, or NULL; never with user:password@ */
    char *index_userpwd; /* the user:password --index-url carried, for pip's private netrc alone; never shown or stored */
    bool index_explicit; /* --index-url or the site mirror's: passed to pip over its own configuration */
    char *cuda_tag;  /* cu128, cuda12-local, ... or NULL */
    bool bundled_runtime; /* the wheels bring their own CUDA runtime (PyTorch, jax[cuda12]) */
    /* How the build runs on each GPU, in GPU order (DESIGN "gpu_code"). */
    struct cu_plan_gpu_code {
        int gpu;      /* the GPU's index */
        char *code;   /* "sass", "ptx-jit", or "unknown" when the data is silent */
        char *target; /* "sm_50", "compute_90", or NULL */
    } *gpu_code;
    size_t n_gpu_code;
    char *code_confidence; /* "read" or "inferred" (of the arch data), NULL when silent */
};

/** The Python a venv is made with (DESIGN "python_source"). */
struct cu_plan_python {
    char *kind;    /* "system": a python3.X on PATH; "cudaup": a relocatable CPython cudaup brings */
    char *version; /* 3.11.16 (cudaup) or 3.11 (system) */
    char *build;   /* python-build-standalone's release tag, or NULL */
    char *path;    /* cudaup: PREFIX/cudaup/python/3.11 */
    char *exe;     /* the interpreter the venv is made with, when known */
    struct cu_plan_download dl; /* cudaup: the archive */
    bool force;                 /* re-create it even when its record says it is intact (repair) */
};

/** Where the environment goes; filled from the wishes, shown in steps. */
struct cu_plan_env {
    char *scope;    /* user, system, conda, none */
    char *shell_rc; /* the rc file for scope user, or NULL */
    char *tool;     /* conda, mamba, micromamba, venv, none */
    char *name;     /* the Python env's name */
    char *path;     /* where that env lives, when known */
    char *root;     /* the machine root the environment's files are written for (--root DIR): they name paths as
                       that machine sees them; NULL for this machine */
    char *profile_d; /* where scope system writes its script (DIR/etc/profile.d under --root), or NULL */
};

/*
 * How the environment holds pip on the build planned for this machine's GPUs (issue 45): once pip has installed
 * the frameworks, each of them and of their CUDA wheels at the release pip installed (a local version such as
 * +cu126 included) goes into @file, which the environment's own pip.conf and its activation (PIP_CONSTRAINT)
 * name, beside the index the frameworks came from; `pip install -U torch` then stays on that build.
 */
struct cu_plan_hold {
    char *file;      /* ENV/cudaup-constraints.txt, or NULL while the environment's folder is not known (conda) */
    char *pip_conf;  /* ENV/pip.conf, likewise */
    char **packages; /* the frameworks' distributions held ("torch", "torchvision"), NULL-terminated; their CUDA
                        wheels, whatever pip brings, go too */
    char *index_url; /* the index the frameworks come from, kept in pip.conf, or NULL (pip's own configuration) */
    bool index_explicit; /* --index-url or the site mirror's: pip.conf's index-url; else an extra-index-url */
};

/*
 * Where the CUDA toolkit comes from (--toolkit, issue 50): "system" (NVIDIA's redist archives under
 * PREFIX/cuda-X.Y, cuDNN's with them), "wheels" (no archive: the compiler wheels of the CUDA release of the
 * frameworks' held runtime go into the environment's pip install, and its activation points CUDA_HOME at
 * them) or "none" (the frameworks alone).
 */
struct cu_plan_toolkit {
    char *kind;            /* "system", "wheels", "none" */
    char *reason;          /* why, as the user reads it */
    bool asked;            /* --toolkit was given (else the default) */
    uint64_t archive_bytes; /* what the system toolkit's archives (CUDA's and cuDNN's) download; 0 when not known */
    size_t n_archives;      /* how many they are */
    bool archive_unsized;   /* one of them has no size published */
    struct cu_version release; /* wheels: the CUDA release whose compiler wheels are held */
    char **wheels;         /* wheels: their pins ("nvidia-cuda-nvcc==13.0.88"), NULL-terminated */
    char *home;            /* wheels: CUDA_HOME below the environment: "nvidia/cu13" under site-packages (CUDA 13's one
                              folder), or "cudaup-toolkit" under the environment (CUDA 12: a view of links cudaup makes) */
    bool view;             /* wheels: home is the view cudaup makes (CUDA 12's per-component folders) */
    char *cudnn;           /* wheels, none: the cuDNN wheel --cudnn pins ("nvidia-cudnn-cu13==9.13.1.26"), or NULL */
    char *why_system;      /* system by default where the frameworks bring their own CUDA: why the wheels could not
                              serve, or NULL */
};

struct cu_drv_plan; /* core/resolve/driver.h */
struct cu_ctr_plan; /* core/resolve/containers.h */

struct cu_plan {
    char *platform;               /* linux-x86_64 */
    char *base_url;               /* the mirror's base */
    char *prefix;                 /* PREFIX */
    char *state_dir;
    char *cache_dir; /* where the archives are downloaded (this host's, also under --root), or NULL */
    struct cu_version cuda;       /* 12.4.1 */
    char *cuda_path;              /* PREFIX/cuda-12.4 */
    struct cu_version cuda_driver; /* the driver it needs */
    bool cuda_inferred;           /* a fact the CUDA choice rests on was inferred, not read (its driver floor) */
    bool has_cudnn;
    struct cu_version cudnn;      /* release label 9.14.0 */
    char *cudnn_full;             /* 9.14.0.64 */
    char *cudnn_variant;          /* "12" */
    struct cu_plan_framework *framework; /* NULL: none; with several, the first of frameworks[] */
    struct cu_plan_framework **frameworks; /* every framework of the environment (cu_plan_add_framework), or NULL
                                              when only @framework was set */
    size_t n_frameworks;
    char **components;            /* CUDA manifest keys, NULL-terminated */
    struct cu_plan_download *downloads;
    size_t n_downloads;
    uint64_t download_bytes;
    struct cu_plan_step *steps;
    size_t n_steps;
    struct cu_plan_env env;
    struct cu_plan_toolkit *toolkit; /* where the toolkit comes from (--toolkit), or NULL: the system's, as always */
    struct cu_plan_hold *hold;     /* pip held on the environment's build (installers/pyhold.c), or NULL */
    struct cu_plan_python *python; /* the venv's Python; NULL without a venv */
    struct cu_strv reasons;  /* why each version was chosen, as the user reads it */
    struct cu_strv reason_sources; /* beside each reason, the data row and citation it rests on ("" for none):
                                      for -v, the log and JSON's provenance[], never the plain text */
    struct cu_strv warnings; /* things the user should know but that do not stop the plan */
    struct cu_drv_plan *driver;   /* the driver (DESIGN "plan ... driver"), or NULL (`mirror`) */
    struct cu_ctr_plan *containers; /* GPU containers (--containers: DESIGN "New (compatible)"), or NULL */
    /* --framework A --framework B: the environments after the first, each a plan of its own for the
     * same CUDA whose Python, environment and frameworks are installed beside this one's (their
     * toolkit parts are not used); NULL-terminated, or NULL. */
    struct cu_plan **envs;
    size_t n_envs;
    bool extra_env; /* this plan is one of another's envs[] */
    bool container; /* cudaup runs inside a container (its driver is the host's): the plan JSON's "container" */
    bool offline;   /* planned without the package index (--offline, or it did not answer): catalog and cache */
    /* Borrowed from the manifest source; valid while it lives. */
    const struct cu_manifest *cuda_manifest, *cudnn_manifest;
};

struct cu_plan *cu_plan_new(void);
void cu_plan_free(struct cu_plan *plan);
void cu_plan_python_free(struct cu_plan_python *py);

/** Add @fw (taken) to the environment's frameworks; the first becomes plan->framework. */
void cu_plan_add_framework(struct cu_plan *plan, struct cu_plan_framework *fw);
/** The environment's frameworks: every one of frameworks[], or @framework alone; *@n how many (0: none). */
struct cu_plan_framework *const *cu_plan_frameworks(const struct cu_plan *plan, size_t *n);
/** Do all of @plan's frameworks (of this environment) bring their own CUDA wheels?  False without one. */
bool cu_plan_bundled(const struct cu_plan *plan);
/**
 * Does the plan need LD_LIBRARY_PATH in env.sh: CUDA alone, or a framework (of any of its environments)
 * that loads the CUDA folder's libraries?  (DESIGN "Files on disk", issue 36.)
 */
bool cu_plan_needs_ld_library_path(const struct cu_plan *plan);
/** Does the plan install NVIDIA's CUDA archives (no --toolkit, or --toolkit system)? */
bool cu_plan_system_toolkit(const struct cu_plan *plan);
/**
 * CUDA_HOME of the plan's environment at @env_path: the wheels' toolkit inside it (--toolkit wheels), PREFIX/cuda
 * (the system toolkit), or NULL (--toolkit none).  Caller frees.
 */
char *cu_plan_cuda_home(const struct cu_plan *plan, const char *env_path);
/** The frameworks' names joined by @sep ("pytorch,jax"), or NULL without one. Caller frees. */
char *cu_plan_framework_names(const struct cu_plan *plan, const char *sep);

void cu_plan_add_step(struct cu_plan *plan, const char *installer, const char *action,
                      const char *fmt, ...) CU_PRINTF(4, 5);
void cu_plan_reason(struct cu_plan *plan, const char *fmt, ...) CU_PRINTF(2, 3);
/** A reason that rests on data: the user reads the reason, -v, the log and JSON also @source (copied). */
void cu_plan_reason_src(struct cu_plan *plan, const char *source, const char *fmt, ...) CU_PRINTF(3, 4);
/** Log the plan's reasons, each with its source, at level info (tag "plan"): the log keeps the provenance. */
void cu_plan_log_reasons(const struct cu_plan *plan);
void cu_plan_warn(struct cu_plan *plan, const char *fmt, ...) CU_PRINTF(2, 3);

/** The `plan --json` document (DESIGN.md "JSON"). */
json_t *cu_plan_to_json(const struct cu_plan *plan);

/** "12.4" of the plan's CUDA. Returns @buf. */
char *cu_plan_cuda_mm(const struct cu_plan *plan, char *buf, size_t len);

/**
 * The bytes download @d brings: its published size, else the size the mirror reported while planning
 * (size_seen); *@known false (and 0) when neither is known.
 */
uint64_t cu_download_size(const struct cu_plan_download *d, bool *known);

/**
 * The plan's downloads as `plan` and the wizard's Review count them: every archive, the Python cudaup
 * brings among them, but those @skip marks (indexed as plan->downloads; NULL skips none).  *@n is their
 * count, *@unsized how many have no size known (none published, none reported by the mirror); returns the
 * bytes of the others.  A size nobody publishes is counted apart, never as its download cap.
 */
uint64_t cu_plan_download_total(const struct cu_plan *plan, const bool *skip, size_t *n, size_t *unsized);

/**
 * The same, in words: "3 downloads, 20 MB", "3 downloads, 20 MB and 1 of unpublished size", or, when no
 * size is known, "3 downloads of unpublished size" (no "0 B").  Translated; the caller frees it.
 */
char *cu_plan_download_text(const struct cu_plan *plan, const bool *skip);

/** Human size: "1.2 GB", "340 MB", "12 kB". Returns @buf. */
char *cu_format_bytes(uint64_t n, char *buf, size_t len);

const char *cu_framework_name(enum cu_framework fw);
/** How its makers write framework @name ("pytorch" -> "PyTorch"; TensorFlow for anything else). Static. */
const char *cu_framework_title(const char *name);
/**
 * A one-line test of framework @name @version ("1.14.0"; NULL: the newest) in its environment, a call that
 * release has ("python -c 'import torch; ...'", from @cat's gpu_check rows); NULL when the catalog names
 * none.  Caller frees.
 */
char *cu_framework_try_line(const struct cu_catalog_gpu_checks *checks, const char *name, const char *version);
/**
 * The try line of each framework of environment @q (cu_plan_frameworks), in order, skipping a release
 * that has none: NULL-terminated, never NULL (free with cu_strv_free).
 */
char **cu_plan_try_lines(const struct cu_plan *q, const struct cu_catalog_gpu_checks *checks);
/**
 * What the Done text says of the environment's pip hold (issue 45): where it is, what moves it and how to lift it by
 * hand; NULL when the plan holds nothing.  Translated; caller frees.
 */
char *cu_plan_hold_line(const struct cu_plan *p);
/** The command that activates the plan's Python environment (". ENV/bin/activate", "conda activate NAME"), or NULL. Caller frees. */
char *cu_plan_activate_cmd(const struct cu_plan *p);

#endif /* CU_PLAN_H */
