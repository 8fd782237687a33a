/* SPDX-License-Identifier: MIT */
/* The branch's hold in a machine image, checked (driver_image.c): inside the driver stage only. */
#ifndef CU_INST_DRIVER_IMAGE_H
#define CU_INST_DRIVER_IMAGE_H

#include "core/base/str.h"
#include "core/resolve/driver.h"

/**
 * Is the branch of plan @d held in the image at @root as its distribution holds it (d->pin_kind): apt's
 * preferences (@prefs_text, the file's text or NULL) pin each of d->pin_packages to `B.*`; NVIDIA's pinning
 * package is among @installed; each is among @held (apt-mark hold)?  NULL when it is; else one sentence
 * naming what is missing (caller frees).  For the other managers: drv_image_hold_files.
 */
char *drv_image_hold_missing(const struct cu_drv_plan *d, const char *root, const char *prefs_text,
                             const struct cu_strv *installed, const struct cu_strv *held);

/**
 * The same for dnf and zypper, from the image's own files (each text NULL when the file is not there): dnf's
 * version locks (@lock_text: DNF 5's /etc/dnf/versionlock.toml or DNF 4's plugins/versionlock.list) hold an NVIDIA
 * package at the branch (an epoch-version "3:580." or "580."); dnf's module stream (@module_text:
 * /etc/dnf/modules.d/nvidia-driver.module) is d->module_stream's, enabled; zypper's locks (@lock_text:
 * /etc/zypp/locks) name each of d->pin_packages.  NULL when it is held (or the plan has no hold: pacman); else one
 * sentence naming what is missing (caller frees).
 */
char *drv_image_hold_files(const struct cu_drv_plan *d, const char *root, const char *lock_text, const char *module_text);

#endif /* CU_INST_DRIVER_IMAGE_H */
