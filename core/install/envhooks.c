/* SPDX-License-Identifier: MIT */
/* What a Python environment's activation does: the CUDA it points at, the guard that keeps a framework's own
 * CUDA wheels first, and the hold on pip (conda's activate.d hooks, a marked block in a venv's bin/activate). */
#include "config.h"

#define CU_LOG_TAG "envhooks"
#include "core/install/envfile.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"


/* POSIX sh that takes @bin and @lib out of PATH and LD_LIBRARY_PATH and puts the rest back. */
static char *
undo_sh(const char *bin, const char *lib)
{
    CU_AUTOFREE char *qb = cu_sh_quote(bin);
    CU_AUTOFREE char *ql = cu_sh_quote(lib);
    return cu_xasprintf(
        "if [ -n \"${_CUDAUP_ACTIVE-}\" ]; then\n"
        "    for _cudaup_v in CUDA_HOME CUDA_PATH LD_LIBRARY_PATH; do\n"
        "        eval \"_cudaup_o=\\${_CUDAUP_OLD_$_cudaup_v-}\"\n"
        "        if [ -n \"$_cudaup_o\" ]; then eval \"export $_cudaup_v=\\$_cudaup_o\"; else unset \"$_cudaup_v\"; fi\n"
        "        unset \"_CUDAUP_OLD_$_cudaup_v\"\n"
        "    done\n"
        "    _cudaup_b=%s\n"
        "    case \":$PATH:\" in *\":$_cudaup_b:\"*)\n"
        "        _cudaup_p=\":$PATH:\"; _cudaup_p=\"${_cudaup_p%%%%:\"$_cudaup_b\":*}:${_cudaup_p#*:\"$_cudaup_b\":}\"\n"
        "        _cudaup_p=${_cudaup_p#:}; PATH=${_cudaup_p%%:}; export PATH ;;\n"
        "    esac\n"
        "    unset _CUDAUP_ACTIVE _cudaup_v _cudaup_o _cudaup_b _cudaup_p\n"
        "fi\n",
        qb);
    (void)ql;
}

static char *
set_sh(const char *state_dir)
{
    CU_AUTOFREE char *script = cu_path_join(state_dir, "env.sh");
    CU_AUTOFREE char *q = cu_sh_quote(script);
    return cu_xasprintf("if [ -f %s ] && [ -z \"${_CUDAUP_ACTIVE-}\" ]; then\n"
                        "    _CUDAUP_OLD_CUDA_HOME=${CUDA_HOME-}; _CUDAUP_OLD_CUDA_PATH=${CUDA_PATH-}\n"
                        "    _CUDAUP_OLD_LD_LIBRARY_PATH=${LD_LIBRARY_PATH-}; _CUDAUP_ACTIVE=1\n"
                        "    export _CUDAUP_OLD_CUDA_HOME _CUDAUP_OLD_CUDA_PATH _CUDAUP_OLD_LD_LIBRARY_PATH _CUDAUP_ACTIVE\n"
                        "    . %s\n"
                        "fi\n",
                        q, q);
}

/*
 * The toolkit of the environment's own compiler wheels (--toolkit wheels, issue 50): CUDA_HOME and CUDA_PATH name
 * @home, PATH gets @home/bin first; deactivation puts back what was there.  _CUDAUP_TK names the toolkit in effect,
 * so that an activation first takes out another environment's whose deactivation never ran (a venv's activate
 * calls its own fresh deactivate, not the wrapped one; `conda activate --stack`): no CUDA_HOME or PATH of the
 * first is left over the second (fixed with the fish hooks).  POSIX sh.
 */
static const char untoolkit_sh[] =
    "if [ -n \"${_CUDAUP_TK-}\" ]; then\n"
    "    if [ -n \"${_CUDAUP_TK_HOME-}\" ]; then CUDA_HOME=$_CUDAUP_TK_HOME; export CUDA_HOME; else unset CUDA_HOME; fi\n"
    "    if [ -n \"${_CUDAUP_TK_PATH-}\" ]; then CUDA_PATH=$_CUDAUP_TK_PATH; export CUDA_PATH; else unset CUDA_PATH; fi\n"
    "    _cudaup_b=$_CUDAUP_TK/bin\n"
    "    case \":$PATH:\" in *\":$_cudaup_b:\"*)\n"
    "        _cudaup_p=\":$PATH:\"; _cudaup_p=\"${_cudaup_p%%:\"$_cudaup_b\":*}:${_cudaup_p#*:\"$_cudaup_b\":}\"\n"
    "        _cudaup_p=${_cudaup_p#:}; PATH=${_cudaup_p%:}; export PATH ;;\n"
    "    esac\n"
    "    unset _CUDAUP_TK _CUDAUP_TK_HOME _CUDAUP_TK_PATH _cudaup_b _cudaup_p\n"
    "fi\n";

static char *
toolkit_sh(const char *home)
{
    CU_AUTOFREE char *q = cu_sh_quote(home);
    return cu_xasprintf("%s"
                        "_CUDAUP_TK=%s; _CUDAUP_TK_HOME=${CUDA_HOME-}; _CUDAUP_TK_PATH=${CUDA_PATH-}\n"
                        "export _CUDAUP_TK _CUDAUP_TK_HOME _CUDAUP_TK_PATH\n"
                        "CUDA_HOME=%s; CUDA_PATH=%s; PATH=%s/bin:$PATH; export CUDA_HOME CUDA_PATH PATH\n",
                        untoolkit_sh, q, q, q, q);
}

/* The same for fish: CUDA_HOME and CUDA_PATH put back as they were (they were erased), each PATH entry of the
 * toolkit's bin/ taken out by its index (string match would read the folder as a glob). */
static const char untoolkit_fish[] =
    "if set -q _CUDAUP_TK\n"
    "    if test -n \"$_CUDAUP_TK_HOME\"; set -gx CUDA_HOME $_CUDAUP_TK_HOME; else; set -e CUDA_HOME; end\n"
    "    if test -n \"$_CUDAUP_TK_PATH\"; set -gx CUDA_PATH $_CUDAUP_TK_PATH; else; set -e CUDA_PATH; end\n"
    "    set -l _cudaup_i (contains -i -- \"$_CUDAUP_TK/bin\" $PATH)\n"
    "    while test -n \"$_cudaup_i\"\n"
    "        set -e PATH[$_cudaup_i]; set _cudaup_i (contains -i -- \"$_CUDAUP_TK/bin\" $PATH)\n"
    "    end\n"
    "    set -e _CUDAUP_TK; set -e _CUDAUP_TK_HOME; set -e _CUDAUP_TK_PATH\n"
    "end\n";

static char *
toolkit_fish(const char *home)
{
    CU_AUTOFREE char *q = cu_fish_quote(home);
    CU_AUTOFREE char *bin = cu_path_join(home, "bin");
    CU_AUTOFREE char *qb = cu_fish_quote(bin);
    return cu_xasprintf("%s"
                        "set -gx _CUDAUP_TK %s; set -gx _CUDAUP_TK_HOME $CUDA_HOME; set -gx _CUDAUP_TK_PATH $CUDA_PATH\n"
                        "set -gx CUDA_HOME %s; set -gx CUDA_PATH %s; set -gx PATH %s $PATH\n",
                        untoolkit_fish, q, q, q, qb);
}

/*
 * The guard of an environment whose frameworks bring their own CUDA wheels (issue 36): at activation,
 * every folder in LD_LIBRARY_PATH that holds a CUDA runtime, cuBLAS, cuDNN, nvJitLink or NVRTC is taken
 * out (the loader reads LD_LIBRARY_PATH before the wheels' RUNPATH, so such a folder would shadow them),
 * the WSL driver's folder stays, and deactivation puts the variable back as it was.  POSIX sh that runs
 * in bash and zsh too (no word splitting, no globs).
 */
#define GUARD_LIBS "libcudart.so libcudart.so.11.0 libcudart.so.12 libcudart.so.13 libcublas.so.11 " \
                   "libcublas.so.12 libcublas.so.13 libcudnn.so.8 libcudnn.so.9 libnvJitLink.so.12 " \
                   "libnvJitLink.so.13 libnvrtc.so.12 libnvrtc.so.13"

static const char guard_sh[] =
    "if [ -n \"${LD_LIBRARY_PATH-}\" ] && [ -z \"${_CUDAUP_GUARD-}\" ]; then\n"
    "    _CUDAUP_GUARD=1; _CUDAUP_GUARD_OLD=$LD_LIBRARY_PATH; export _CUDAUP_GUARD _CUDAUP_GUARD_OLD\n"
    "    _cudaup_rest=$LD_LIBRARY_PATH:; _cudaup_keep=\n"
    "    while [ -n \"$_cudaup_rest\" ]; do\n"
    "        _cudaup_d=${_cudaup_rest%%:*}; _cudaup_rest=${_cudaup_rest#*:}; _cudaup_drop=\n"
    "        if [ -n \"$_cudaup_d\" ] && [ \"$_cudaup_d\" != /usr/lib/wsl/lib ]; then\n"
    "            for _cudaup_n in " GUARD_LIBS "; do\n"
    "                if [ -e \"$_cudaup_d/$_cudaup_n\" ]; then _cudaup_drop=1; fi\n"
    "            done\n"
    "        fi\n"
    "        if [ -z \"$_cudaup_drop\" ] && [ -n \"$_cudaup_d\" ]; then _cudaup_keep=${_cudaup_keep:+$_cudaup_keep:}$_cudaup_d; fi\n"
    "    done\n"
    "    if [ -n \"$_cudaup_keep\" ]; then LD_LIBRARY_PATH=$_cudaup_keep; export LD_LIBRARY_PATH; else unset LD_LIBRARY_PATH; fi\n"
    "    unset _cudaup_rest _cudaup_keep _cudaup_d _cudaup_drop _cudaup_n\n"
    "fi\n";

static const char unguard_sh[] =
    "if [ -n \"${_CUDAUP_GUARD-}\" ]; then\n"
    "    LD_LIBRARY_PATH=$_CUDAUP_GUARD_OLD; export LD_LIBRARY_PATH\n"
    "    unset _CUDAUP_GUARD _CUDAUP_GUARD_OLD\n"
    "fi\n";

static const char guard_fish[] =
    "if set -q LD_LIBRARY_PATH; and not set -q _CUDAUP_GUARD\n"
    "    set -gx _CUDAUP_GUARD 1; set -gx _CUDAUP_GUARD_OLD $LD_LIBRARY_PATH\n"
    "    set -l _cudaup_keep\n"
    "    for _cudaup_d in $LD_LIBRARY_PATH\n"
    "        set -l _cudaup_drop 0\n"
    "        if test \"$_cudaup_d\" != /usr/lib/wsl/lib\n"
    "            for _cudaup_n in " GUARD_LIBS "\n"
    "                if test -e \"$_cudaup_d/$_cudaup_n\"; set _cudaup_drop 1; end\n"
    "            end\n"
    "        end\n"
    "        if test $_cudaup_drop = 0; set _cudaup_keep $_cudaup_keep $_cudaup_d; end\n"
    "    end\n"
    "    if count $_cudaup_keep >/dev/null; set -gx LD_LIBRARY_PATH $_cudaup_keep; else; set -e LD_LIBRARY_PATH; end\n"
    "end\n";

static const char unguard_fish[] =
    "if set -q _CUDAUP_GUARD\n"
    "    set -gx LD_LIBRARY_PATH $_CUDAUP_GUARD_OLD; set -e _CUDAUP_GUARD; set -e _CUDAUP_GUARD_OLD\n"
    "end\n";

char *
cu_env_hold_file(const char *env_path)
{
    return cu_path_join(env_path, "cudaup-constraints.txt");
}

char *
cu_env_hold_ref(const char *env_path)
{
    char *file = cu_env_hold_file(env_path);
    if (!strpbrk(file, " \t\n\r\f\v"))
        return file;
    struct cu_buf b;
    cu_buf_init(&b);
    cu_buf_printf(&b, "file://");
    for (const char *c = file; *c; c++)
        if (strchr(" \t\n\r\f\v%", *c))
            cu_buf_printf(&b, "%%%02X", (unsigned char)*c);
        else
            cu_buf_putc(&b, *c);
    free(file);
    return cu_buf_steal(&b);
}

/*
 * The hold (issue 45): while ENV/cudaup-constraints.txt is there, activation adds it to PIP_CONSTRAINT (after what
 * the user had there: pip reads every file the variable names), so that `pip install -U torch` stays on the build
 * planned for this machine's GPUs; deactivation puts PIP_CONSTRAINT back as it was.  Activation first puts back
 * what another environment's hold, never deactivated, had changed: pip is held on this environment's build alone.
 */
static const char unhold_sh[] =
    "if [ -n \"${_CUDAUP_HOLD-}\" ]; then\n"
    "    if [ -n \"$_CUDAUP_HOLD_OLD\" ]; then PIP_CONSTRAINT=$_CUDAUP_HOLD_OLD; export PIP_CONSTRAINT; else unset PIP_CONSTRAINT; fi\n"
    "    unset _CUDAUP_HOLD _CUDAUP_HOLD_OLD\n"
    "fi\n";

static char *
hold_sh(const char *env_path)
{
    CU_AUTOFREE char *file = cu_env_hold_file(env_path);
    CU_AUTOFREE char *ref = cu_env_hold_ref(env_path);
    CU_AUTOFREE char *qf = cu_sh_quote(file);
    CU_AUTOFREE char *qr = cu_sh_quote(ref);
    return cu_xasprintf("%s"
                        "if [ -f %s ]; then\n"
                        "    _CUDAUP_HOLD=1; _CUDAUP_HOLD_OLD=${PIP_CONSTRAINT-}; export _CUDAUP_HOLD _CUDAUP_HOLD_OLD\n"
                        "    PIP_CONSTRAINT=${PIP_CONSTRAINT:+$PIP_CONSTRAINT }%s; export PIP_CONSTRAINT\n"
                        "fi\n",
                        unhold_sh, qf, qr);
}

static const char unhold_fish[] =
    "if set -q _CUDAUP_HOLD\n"
    "    if set -q _CUDAUP_HOLD_OLD; set -gx PIP_CONSTRAINT $_CUDAUP_HOLD_OLD; set -e _CUDAUP_HOLD_OLD; else; set -e PIP_CONSTRAINT; end\n"
    "    set -e _CUDAUP_HOLD\n"
    "end\n";

static char *
hold_fish(const char *env_path)
{
    CU_AUTOFREE char *file = cu_env_hold_file(env_path);
    CU_AUTOFREE char *ref = cu_env_hold_ref(env_path);
    CU_AUTOFREE char *qf = cu_fish_quote(file);
    CU_AUTOFREE char *qr = cu_fish_quote(ref);
    return cu_xasprintf("%s"
                        "if test -f %s\n"
                        "    set -gx _CUDAUP_HOLD 1\n"
                        "    if set -q PIP_CONSTRAINT; and test -n \"$PIP_CONSTRAINT\"\n"
                        "        set -gx _CUDAUP_HOLD_OLD $PIP_CONSTRAINT; set -gx PIP_CONSTRAINT \"$PIP_CONSTRAINT \"%s\n"
                        "    else\n"
                        "        set -gx PIP_CONSTRAINT %s\n"
                        "    end\n"
                        "end\n",
                        unhold_fish, qf, qr, qr);
}

/*
 * fish's activation and deactivation of @what (enum cu_hook) for the environment at @env_path whose CUDA is
 * @cuda_home: *@act and *@deact, to free.  The guard and the hold last on activation, first on deactivation.
 */
static void
fish_hooks(const char *env_path, const char *state_dir, const char *cuda_home, unsigned what, char **act, char **deact)
{
    bool env = what & CU_HOOK_ENV, guard = what & CU_HOOK_GUARD, hold = what & CU_HOOK_HOLD, tk = what & CU_HOOK_TOOLKIT;
    CU_AUTOFREE char *bin = cu_path_join(cuda_home, "bin");
    CU_AUTOFREE char *fish_env = cu_path_join(state_dir, "env.fish");
    CU_AUTOFREE char *qf = cu_fish_quote(fish_env);
    CU_AUTOFREE char *fb = cu_fish_quote(bin);
    CU_AUTOFREE char *h_fish = hold ? hold_fish(env_path) : cu_xstrdup("");
    CU_AUTOFREE char *t_fish = tk ? toolkit_fish(cuda_home) : cu_xstrdup("");
    /* As sh's set_sh/undo_sh: what CUDA_HOME, CUDA_PATH and LD_LIBRARY_PATH were is kept on activation and put
     * back on deactivation (unset where it was unset), not erased. */
    CU_AUTOFREE char *a_env = env ? cu_xasprintf("if test -f %s; and not set -q _CUDAUP_ACTIVE\n"
                                                 "    for _cudaup_v in CUDA_HOME CUDA_PATH LD_LIBRARY_PATH\n"
                                                 "        set -q $_cudaup_v; and set -gx _CUDAUP_OLD_$_cudaup_v $$_cudaup_v\n"
                                                 "    end\n"
                                                 "    set -e _cudaup_v\n"
                                                 "    set -gx _CUDAUP_ACTIVE 1\n    source %s\nend\n",
                                                 qf, qf)
                                  : cu_xstrdup("");
    CU_AUTOFREE char *d_env = env ? cu_xasprintf("if set -q _CUDAUP_ACTIVE\n"
                                                 "    for _cudaup_v in CUDA_HOME CUDA_PATH LD_LIBRARY_PATH\n"
                                                 "        set -l _cudaup_o _CUDAUP_OLD_$_cudaup_v\n"
                                                 "        if set -q $_cudaup_o; set -gx $_cudaup_v $$_cudaup_o; set -e $_cudaup_o\n"
                                                 "        else; set -e $_cudaup_v; end\n"
                                                 "    end\n"
                                                 "    set -e _cudaup_v; set -e _CUDAUP_ACTIVE\n"
                                                 "    if set -l _cudaup_i (contains -i -- %s $PATH); set -e PATH[$_cudaup_i]; end\n"
                                                 "end\n",
                                                 fb)
                                  : cu_xstrdup("");
    *act = cu_xasprintf("%s%s%s%s", a_env, t_fish, guard ? guard_fish : "", h_fish);
    *deact = cu_xasprintf("%s%s%s%s", hold ? unhold_fish : "", guard ? unguard_fish : "", tk ? untoolkit_fish : "", d_env);
}

/* The hooks under ENV/etc/conda, written and removed as a set. */
static const char *const conda_hooks[] = {"activate.d/cudaup.sh", "deactivate.d/cudaup.sh", "activate.d/cudaup.fish",
                                          "deactivate.d/cudaup.fish"};

enum cu_status
cu_conda_hooks_install(const char *env_path, const char *state_dir, const char *cuda_home, unsigned what,
                       bool *changed, struct cu_error *err)
{
    CU_AUTOFREE char *ad = cu_path_join(env_path, "etc/conda/activate.d");
    CU_AUTOFREE char *dd = cu_path_join(env_path, "etc/conda/deactivate.d");
    CU_AUTOFREE char *bin = cu_path_join(cuda_home, "bin");
    CU_AUTOFREE char *lib = cu_path_join(cuda_home, "lib64");
    CU_AUTOFREE char *set = set_sh(state_dir);
    CU_AUTOFREE char *undo = undo_sh(bin, lib);
    bool env = what & CU_HOOK_ENV, guard = what & CU_HOOK_GUARD, hold = what & CU_HOOK_HOLD, tk = what & CU_HOOK_TOOLKIT;
    CU_AUTOFREE char *h_sh = hold_sh(env_path);
    CU_AUTOFREE char *t_sh = tk ? toolkit_sh(cuda_home) : cu_xstrdup("");
    /* The guard and the hold last on activation (after env.sh), first on deactivation. */
    CU_AUTOFREE char *a_sh = cu_xasprintf("# Managed by cudaup: CUDA for this environment.\n%s%s%s%s", env ? set : "", t_sh,
                                          guard ? guard_sh : "", hold ? h_sh : "");
    CU_AUTOFREE char *d_sh = cu_xasprintf("# Managed by cudaup: undoes activate.d/cudaup.sh.\n%s%s%s%s", hold ? unhold_sh : "",
                                          guard ? unguard_sh : "", tk ? untoolkit_sh : "", env ? undo : "");
    CU_AUTOFREE char *f_act = NULL, *f_deact = NULL;
    fish_hooks(env_path, state_dir, cuda_home, what, &f_act, &f_deact);
    CU_AUTOFREE char *a_fish = cu_xasprintf("# Managed by cudaup: CUDA for this environment.\n%s", f_act);
    CU_AUTOFREE char *d_fish = cu_xasprintf("# Managed by cudaup: undoes activate.d/cudaup.fish.\n%s", f_deact);
    enum cu_status st;
    *changed = false;
    if ((st = cu_mkdir_p(ad, 0755, err)) != CU_OK || (st = cu_mkdir_p(dd, 0755, err)) != CU_OK)
        return st;
    const char *texts[CU_N_ELEMENTS(conda_hooks)] = {a_sh, d_sh, a_fish, d_fish};
    for (size_t i = 0; i < CU_N_ELEMENTS(conda_hooks); i++) {
        CU_AUTOFREE char *rel = cu_xasprintf("etc/conda/%s", conda_hooks[i]);
        CU_AUTOFREE char *p = cu_path_join(env_path, rel);
        if ((st = cu_env_write_if_changed(p, texts[i], 0644, changed, err)) != CU_OK)
            return st;
    }
    return CU_OK;
}

void
cu_conda_hooks_remove(const char *env_path)
{
    for (size_t i = 0; i < CU_N_ELEMENTS(conda_hooks); i++) {
        CU_AUTOFREE char *p = cu_xasprintf("%s/etc/conda/%s", env_path, conda_hooks[i]);
        unlink(p);
    }
}

/*
 * The venv's bin/activate.fish does for fish what the block in bin/activate does: its deactivate (a function the
 * venv defines above us, defined afresh at each activation) is wrapped so that it undoes ours first.
 */
static enum cu_status
venv_fish_install(const char *env_path, const char *state_dir, const char *cuda_home, unsigned what, bool *changed,
                  struct cu_error *err)
{
    CU_AUTOFREE char *activate = cu_path_join(env_path, "bin/activate.fish");
    *changed = false;
    if (!cu_path_exists(activate))
        return CU_OK; /* a venv made without it: fish users source nothing of it */
    CU_AUTOFREE char *act = NULL, *deact = NULL;
    fish_hooks(env_path, state_dir, cuda_home, what, &act, &deact);
    CU_AUTOFREE char *block = cu_xasprintf(
        CU_RC_BLOCK_START "\n# Managed by cudaup: CUDA for this venv; `deactivate` undoes it.\n"
        "%s"
        "function _cudaup_undo\n%send\n"
        "functions -e _cudaup_venv_deactivate\n"
        "functions -c deactivate _cudaup_venv_deactivate\n"
        "function deactivate -d \"Exit virtual environment and return to normal shell environment\"\n"
        "    _cudaup_undo\n"
        "    _cudaup_venv_deactivate $argv\n"
        "    if test \"$argv[1]\" != nondestructive; functions -e _cudaup_venv_deactivate _cudaup_undo; end\n"
        "end\n" CU_RC_BLOCK_END "\n",
        act, deact);
    return cu_rc_install_block(activate, state_dir, block, changed, err);
}

enum cu_status
cu_venv_hook_install(const char *env_path, const char *state_dir, const char *cuda_home, unsigned what,
                     bool *changed, struct cu_error *err)
{
    bool env = what & CU_HOOK_ENV, guard = what & CU_HOOK_GUARD, hold = what & CU_HOOK_HOLD, tk = what & CU_HOOK_TOOLKIT;
    CU_AUTOFREE char *t_sh = tk ? toolkit_sh(cuda_home) : cu_xstrdup("");
    CU_AUTOFREE char *activate = cu_path_join(env_path, "bin/activate");
    CU_AUTOFREE char *h_sh = hold_sh(env_path);
    CU_AUTOFREE char *bin = cu_path_join(cuda_home, "bin");
    CU_AUTOFREE char *lib = cu_path_join(cuda_home, "lib64");
    CU_AUTOFREE char *set = set_sh(state_dir);
    CU_AUTOFREE char *undo = undo_sh(bin, lib);
    if (!cu_path_exists(activate))
        return cu_error_set(err, CU_E_IO, ENOENT, _("%s has no bin/activate"), env_path);
    /* deactivate is a function the venv defines above us, afresh at each activation: bash and zsh wrap it where it
     * is not wrapped yet (a flag would stay set from another venv activated before, leaving this one's unwrapped). */
    CU_AUTOFREE char *block = cu_xasprintf(
        CU_RC_BLOCK_START "\n# Managed by cudaup: CUDA for this venv; `deactivate` undoes it in bash and zsh.\n"
        "%s%s%s%s"
        "_cudaup_undo () {\n%s%s%s%s:\n}\n"
        "if [ -n \"${BASH_VERSION-}${ZSH_VERSION-}\" ]; then\n"
        "    case \"$(typeset -f deactivate)\" in *_cudaup_venv_deactivate*) ;; *)\n"
        "        eval \"_cudaup_venv_deactivate () $(typeset -f deactivate | sed '1s/^deactivate *()//')\"\n"
        "        deactivate () { _cudaup_undo; _cudaup_venv_deactivate \"$@\"; } ;;\n"
        "    esac\n"
        "fi\n" CU_RC_BLOCK_END "\n",
        env ? set : "", t_sh, guard ? guard_sh : "", hold ? h_sh : "", hold ? unhold_sh : "", guard ? unguard_sh : "",
        tk ? untoolkit_sh : "", env ? undo : "");
    enum cu_status st = cu_rc_install_block(activate, state_dir, block, changed, err);
    bool c2 = false;
    if (st == CU_OK && (st = venv_fish_install(env_path, state_dir, cuda_home, what, &c2, err)) == CU_OK)
        *changed |= c2;
    return st;
}

char *
cu_venv_of(const char *python)
{
    char *env = cu_xstrdup(python);
    for (int up = 0; up < 2; up++) { /* ENV/bin/python -> ENV */
        char *slash = strrchr(env, '/');
        if (slash && slash > env)
            *slash = '\0';
    }
    return env;
}

char *
cu_venv_home(const char *env)
{
    CU_AUTOFREE char *cfg = cu_path_join(env, "pyvenv.cfg");
    char *text = NULL, *home = NULL, *save = NULL;
    struct cu_error e;
    if (cu_read_file(cfg, 1 << 16, &text, NULL, &e) != CU_OK)
        return NULL;
    for (char *line = strtok_r(text, "\n", &save); line && !home; line = strtok_r(NULL, "\n", &save)) {
        char *v = strchr(line, '=');
        if (!v)
            continue;
        *v = '\0';
        if (strcmp(cu_str_strip(line), "home") == 0)
            home = cu_xstrdup(cu_str_strip(v + 1));
    }
    free(text);
    return home;
}

char *
cu_venv_brought_python(const char *env)
{
    char *home = cu_venv_home(env);
    if (!home)
        return NULL;
    /* home is .../cudaup/python/X.Y/bin */
    char *bin = strrchr(home, '/');
    if (bin && strcmp(bin, "/bin") == 0) {
        *bin = '\0';
        char *ver = strrchr(home, '/');
        if (ver && ver - home >= 14 && strncmp(ver - 14, "/cudaup/python", 14) == 0)
            return home;
    }
    free(home);
    return NULL;
}
