/* SPDX-License-Identifier: MIT */
/*
 * Environment variables for the active CUDA: STATE/env.sh and env.fish,
 * and what sources them — a block between "# >>> cudaup >>>" and
 * "# <<< cudaup <<<" in an rc file (scope user), /etc/profile.d/cudaup.sh
 * (scope system).
 *
 * rc edits are atomic (temporary file beside the real target, rename),
 * follow a symlinked rc file to its target, keep its mode and owner, leave
 * every byte outside the block as it was, detect a concurrent edit, and keep
 * the original in STATE/backups so that removing the block restores the file
 * byte for byte when nobody else changed it.  Markers count only at the start
 * of a line; a start without an end (or the reverse) is refused, not guessed.
 */
#ifndef CU_ENVFILE_H
#define CU_ENVFILE_H

#include <stdbool.h>

#include "core/base/error.h"

/**
 * Write STATE/env.sh and STATE/env.fish for @cuda_home; unchanged files are not rewritten.  They set
 * LD_LIBRARY_PATH only with @ld_library_path: where the plan needs it (CUDA alone, a framework
 * without CUDA wheels of its own), never ahead of an environment whose frameworks bring their own.
 * The choice is kept in STATE/env-state.json for repair (cu_env_ld_library_path).
 */
CU_NODISCARD enum cu_status cu_env_write_scripts(const char *state_dir, const char *cuda_home, bool ld_library_path,
                                                 bool *changed, struct cu_error *err);
/** Did the last cu_env_write_scripts() set LD_LIBRARY_PATH?  True for a state written before it said. */
bool cu_env_ld_library_path(const char *state_dir);
/** Remove env.sh and env.fish. */
void cu_env_remove_scripts(const char *state_dir);

/** Put (or refresh) the block that sources STATE/env.sh (env.fish for *.fish) into @rc. */
/**
 * What cu_rc_install would refuse, found before anything is changed: an rc file (or a link on
 * the way to it) owned by another user, a folder, a block whose markers do not pair up.
 * Errors: CU_E_UNSAFE_PATH, CU_E_INPUT, CU_E_USAGE, CU_E_IO.  A missing file is fine.
 */
CU_NODISCARD enum cu_status cu_rc_check(const char *rc, struct cu_error *err);

CU_NODISCARD enum cu_status cu_rc_install(const char *rc, const char *state_dir, bool *changed,
                                          struct cu_error *err);
/** Take the block out of @rc again; restore the original bytes when nothing else changed. */
CU_NODISCARD enum cu_status cu_rc_uninstall(const char *rc, const char *state_dir, bool *changed,
                                            struct cu_error *err);
/** Every rc file cudaup has a block in, from STATE/env-state.json; NULL-terminated, caller frees. */
char **cu_rc_list(const char *state_dir);

struct cu_sysroot;
/**
 * Write PROFILE_D/cudaup.sh sourcing @state_dir/env.sh (@state_dir as the shells that read it see it); remove
 * it.  When @profile_d lies inside machine root @root (not this machine's "/"; may be NULL), the folder is
 * opened through the root (made there as needed), so that the tree's own absolute links lead inside it and
 * never to this host's files.  Errors: CU_E_IO naming @profile_d.
 */
CU_NODISCARD enum cu_status cu_profiled_install(const struct cu_sysroot *root, const char *profile_d,
                                                const char *state_dir, bool *changed, struct cu_error *err);
CU_NODISCARD enum cu_status cu_profiled_uninstall(const struct cu_sysroot *root, const char *profile_d, bool *changed,
                                                  struct cu_error *err);

/* The lines that mark the block cudaup owns in a file of the user's (an rc file, a venv's bin/activate). */
#define CU_RC_BLOCK_START "# >>> cudaup >>>"
#define CU_RC_BLOCK_END "# <<< cudaup <<<"

/** Put @body_lf (the marked block, "\n" line ends; NULL: the block that sources STATE's env.sh) into @rc, replacing
 *  the block cudaup put there before; @changed is set when the file was written. */
CU_NODISCARD enum cu_status cu_rc_install_block(const char *rc, const char *state_dir, const char *body_lf,
                                                bool *changed, struct cu_error *err);

/** Write @path (mode @mode) only when its content differs from @text; @changed is set when it was written. */
CU_NODISCARD enum cu_status cu_env_write_if_changed(const char *path, const char *text, mode_t mode, bool *changed,
                                                  struct cu_error *err);

/* What an environment's activation does (cu_conda_hooks_install, cu_venv_hook_install). */
enum cu_hook {
    CU_HOOK_ENV = 1 << 0,   /* source STATE/env.sh (scope conda): CUDA_HOME, PATH, and LD_LIBRARY_PATH where the plan needs it */
    CU_HOOK_GUARD = 1 << 1, /* its frameworks bring their own CUDA wheels: no folder holding a CUDA runtime, cuBLAS,
                               cuDNN, nvJitLink or NVRTC stays in LD_LIBRARY_PATH ahead of them (/usr/lib/wsl/lib
                               stays); deactivation puts LD_LIBRARY_PATH back (issue 36) */
    CU_HOOK_TOOLKIT = 1 << 3, /* the toolkit is the environment's compiler wheels (--toolkit wheels): CUDA_HOME, CUDA_PATH
                                 and PATH name cuda_home directly, env.sh is not sourced */
    CU_HOOK_HOLD = 1 << 2,  /* pip is held on the environment's build: PIP_CONSTRAINT names ENV/cudaup-constraints.txt
                               (cu_env_hold_file) while that file is there, after what the user had in it; deactivation
                               puts PIP_CONSTRAINT back (issue 45) */
};

/** ENV/cudaup-constraints.txt: the constraints that hold pip in the environment at @env_path. Caller frees. */
char *cu_env_hold_file(const char *env_path);

/**
 * How pip is told of the hold file of @env_path (PIP_CONSTRAINT, pip.conf's constraint): its path, or where the
 * path has white space in it (pip splits those values at white space) its file: URL with that space escaped.
 * Caller frees.
 */
char *cu_env_hold_ref(const char *env_path);

/**
 * For conda, mamba and micromamba environments: ENV/etc/conda/activate.d/cudaup.{sh,fish} do @what
 * (enum cu_hook), deactivate.d/cudaup.{sh,fish} put back what was there before.
 */
CU_NODISCARD enum cu_status cu_conda_hooks_install(const char *env_path, const char *state_dir,
                                                   const char *cuda_home, unsigned what, bool *changed,
                                                   struct cu_error *err);
void cu_conda_hooks_remove(const char *env_path);

/**
 * For a venv: a marked block at the end of ENV/bin/activate that does @what (enum cu_hook), and (bash,
 * zsh) makes `deactivate` undo it.  Removed with cu_rc_uninstall like any rc block.
 */
CU_NODISCARD enum cu_status cu_venv_hook_install(const char *env_path, const char *state_dir,
                                                 const char *cuda_home, unsigned what, bool *changed,
                                                 struct cu_error *err);

/** The text of the block for @state_dir (sh or fish), with @eol line ends. Caller frees. */
char *cu_rc_block(const char *state_dir, bool fish, const char *eol);

/** Quote @s for fish in single quotes. Caller frees. */
char *cu_fish_quote(const char *s);

/** The environment ENV of its interpreter ENV/bin/python, as a path (not resolved).  Caller frees. */
char *cu_venv_of(const char *python);

/** The `home` of the venv at @env (its pyvenv.cfg: the folder of the Python it was made with), or NULL. */
char *cu_venv_home(const char *env);

/**
 * The folder of the Python cudaup brought that the venv at @env was made with
 * (".../cudaup/python/X.Y"), or NULL when it was made with another Python.
 */
char *cu_venv_brought_python(const char *env);

/**
 * The view of a toolkit inside an environment whose compiler wheels keep one folder per component (CUDA 12's
 * @nvidia_dir: site-packages/nvidia): @view (made again) gets links to each component's bin/, include/ and lib/
 * entries, nvvm/, and lib64 -> lib (--toolkit wheels, issue 50).  Errors: CU_E_IO.
 */
CU_NODISCARD enum cu_status cu_env_toolkit_view(const char *nvidia_dir, const char *view, struct cu_error *err);

/** The file in a venv relocated for a machine image (installers/pyroot.h): {"root", "path", "seen", ...}. */
#define CU_ENV_ROOT_MARK "cudaup-root.json"

/**
 * Is @env (a host path) a venv relocated for the machine under another root, read from this host?  Then its
 * Python names that machine's paths and does not run here: *root and *seen (the venv's path as that machine
 * sees it) are set, the caller's.  False for any other venv, and for this one read as that machine sees it.
 */
bool cu_venv_for_image(const char *env, char **root, char **seen);

struct json_t;
/**
 * The path STATE/pyenv.json's entry @e holds at @key ("path", "python", "cuda"), as this machine sees it: as recorded,
 * or, for an environment relocated for a machine image (its "root" recorded) read on that machine, where the
 * recorded host path is not there, without the root.  NULL when @key is not there.  Caller owns.
 */
char *cu_venv_rec_here(const struct json_t *e, const char *key);

#endif /* CU_ENVFILE_H */
