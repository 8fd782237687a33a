/* SPDX-License-Identifier: MIT */
/*
 * The environment cudaup writes for the machine under --root DIR (preparing an image; issue 46 items 2 and 6):
 * the files written into DIR are that machine's and name paths as it sees them, so each path they name must lie
 * inside DIR; files named outside DIR are this host's, as given.
 */
#ifndef CU_ROOTENV_H
#define CU_ROOTENV_H

#include <stdbool.h>

#include "core/base/error.h"
#include "prepare.h"

/** Under --root DIR (not `mirror`), does scope system's /etc/profile.d (@in->profile_d) lie inside DIR? */
bool cu_root_env_profile_d(const struct cu_prepare_in *in);

/**
 * The scope asked for, else the default: system as root, user otherwise; under --root DIR, DIR's own
 * /etc/profile.d (system) when the state folder is DIR's too, else none (the files DIR's shells read could not
 * name a state folder of this host's; the plan says so).  Borrowed or static.
 */
const char *cu_root_env_scope(const struct cu_prepare_in *in);

/**
 * Under --root DIR, before anything runs: env.sh in a state folder inside DIR names the prefix (so the prefix must
 * lie inside DIR), DIR's /etc/profile.d/cudaup.sh names the state folder (so must it), that env.sh is of no use to
 * this host's shells (scopes user and conda), and a shell start-up file inside DIR (@rc: the one scope user
 * would edit) is not edited from here.
 * Errors: CU_E_USAGE, one sentence naming the option.
 */
CU_NODISCARD enum cu_status cu_root_env_check(const struct cu_prepare_in *in, const char *rc, struct cu_error *err);

/**
 * Is the framework's environment the machine's under --root DIR (not `mirror`): the prefix lies inside DIR (its
 * default there)?  Then the venv goes inside DIR (cu_root_env_dir), is relocated for it (installers/pyroot.h),
 * and no conda of this host's makes it.
 */
bool cu_root_env_image(const struct cu_prepare_in *in);

/** Under cu_root_env_image, without --env-dir: PREFIX/cudaup/envs/@name, else NULL.  Caller owns. */
char *cu_root_env_dir(const struct cu_prepare_in *in, const char *name);

/**
 * Under cu_root_env_image: the venv's folder and each folder on the way to it inside DIR is a real folder (or not
 * there yet), never a link, which could lead the venv's files out of DIR.  Errors: CU_E_USAGE, naming the link.
 */
CU_NODISCARD enum cu_status cu_root_env_links(const struct cu_prepare_in *in, const struct cu_plan *p, struct cu_error *err);

#endif /* CU_ROOTENV_H */
