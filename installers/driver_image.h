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
 * naming what is missing (caller frees).  Other managers do not run inside an image: NULL.
 */
char *drv_image_hold_missing(const struct cu_drv_plan *d, const char *root, const char *prefs_text,
                             const struct cu_strv *installed, const struct cu_strv *held);

#endif /* CU_INST_DRIVER_IMAGE_H */
