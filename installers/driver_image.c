/* SPDX-License-Identifier: MIT */
/*
 * The end of an install into a machine image (installers/driver_repair.c drv_image_done): is the branch held
 * in the image the way its distribution holds it?  apt's preferences file with `Pin: version B.*` for the
 * plan's packages, NVIDIA's pinning package installed, or the packages on `apt-mark hold`; dnf's version locks
 * or module stream, zypper's locks, read from the image's own files.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "driver_image.h"

/* Does a stanza of apt preferences @text name @pkg on its "Package:" line and pin it to "Pin: version GLOB"? */
static bool
prefs_hold(const char *text, const char *glob, const char *pkg)
{
    CU_AUTOFREE char *pin = cu_xasprintf("Pin: version %s", glob);
    CU_AUTOFREE char *t = cu_xstrdup(text ? text : "");
    bool in_stanza = false, names = false, pins = false;
    char *save = NULL;
    /* Stanzas are separated by blank lines; strtok_r drops them, so a "Package:" line starts a new one. */
    for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (cu_str_has_prefix(line, "Package:")) {
            if (in_stanza && names && pins)
                return true;
            in_stanza = true;
            pins = false;
            struct cu_strv w;
            cu_strv_init(&w);
            cu_strv_split(&w, line + strlen("Package:"), " \t");
            names = cu_strv_contains(&w, pkg);
            cu_strv_fini(&w);
        } else if (in_stanza && strcmp(line, pin) == 0) {
            pins = true;
        }
    }
    return in_stanza && names && pins;
}

char *
drv_image_hold_missing(const struct cu_drv_plan *d, const char *root, const char *prefs_text,
                       const struct cu_strv *installed, const struct cu_strv *held)
{
    const char *kind = d->pin_kind ? d->pin_kind : "";
    for (size_t i = 0; i < d->pin_packages.n; i++) {
        const char *p = d->pin_packages.v[i];
        CU_AUTOFREE char *glob = d->pin_version ? cu_xstrdup(d->pin_version) : cu_xasprintf("%d.*", d->branch);
        if (strcmp(kind, "apt preferences") == 0 && !prefs_hold(prefs_text, glob, p))
            return cu_xasprintf(_("%s in %s does not pin %s to the branch %d (Pin: version %s), so the next upgrade could replace the branch."),
                                CU_DRV_PREFS_FILE, root, p, d->branch, glob);
        if (strcmp(kind, "nvidia pinning package") == 0 && !cu_strv_contains(installed, p))
            return cu_xasprintf(_("%s, which holds the branch, is not installed in %s, so the next upgrade could replace the branch."), p, root);
        if (strcmp(kind, "apt-mark hold") == 0 && !cu_strv_contains(held, p))
            return cu_xasprintf(_("%s is not held in %s, so the next upgrade could replace the branch."), p, root);
    }
    return NULL;
}

/* Does a version lock in @text hold an NVIDIA package at @branch: "3:580.95.05-1.fc43" (DNF 5's value), the NEVRA
 * "nvidia-driver-3:580.95.05-1.el9.*" (DNF 4's line)? */
static bool
lock_holds(const char *text, int branch)
{
    CU_AUTOFREE char *t = cu_xstrdup(text ? text : "");
    CU_AUTOFREE char *epoch = cu_xasprintf(":%d.", branch), *bare = cu_xasprintf("\"%d.", branch), *dash = cu_xasprintf("-%d.", branch);
    bool nvidia = false;
    char *save = NULL;
    for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strstr(line, "name") && strchr(line, '='))
            nvidia = strstr(line, "nvidia") || strstr(line, "cuda-drivers"); /* DNF 5: the package this block locks */
        bool listed = strstr(line, "nvidia") || strstr(line, "cuda-drivers"); /* DNF 4: one NEVRA a line */
        if ((nvidia && (strstr(line, epoch) || strstr(line, bare))) || (listed && (strstr(line, epoch) || strstr(line, dash))))
            return true;
    }
    return false;
}

char *
drv_image_hold_files(const struct cu_drv_plan *d, const char *root, const char *lock_text, const char *module_text)
{
    const char *kind = d->pin_kind ? d->pin_kind : "";
    if (strcmp(kind, "dnf versionlock") == 0 && !lock_holds(lock_text, d->branch))
        return cu_xasprintf(_("dnf's version locks in %s hold no NVIDIA package at the branch %d, so the next upgrade could replace the branch."),
                            root, d->branch);
    if (strcmp(kind, "dnf module") == 0 && d->module_stream) {
        const char *colon = strchr(d->module_stream, ':');
        CU_AUTOFREE char *want = cu_xasprintf("stream=%s", colon ? colon + 1 : d->module_stream);
        bool enabled = false, stream = false;
        CU_AUTOFREE char *t = cu_xstrdup(module_text ? module_text : "");
        char *save = NULL;
        for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char *x = cu_str_strip(line);
            enabled |= strcmp(x, "state=enabled") == 0;
            stream |= strcmp(x, want) == 0;
        }
        if (!enabled || !stream)
            return cu_xasprintf(_("dnf's module stream %s is not enabled in %s, so the next upgrade could replace the branch."),
                                d->module_stream, root);
    }
    if (strcmp(kind, "zypper addlock") == 0) {
        for (size_t i = 0; i < d->pin_packages.n; i++) {
            CU_AUTOFREE char *name = cu_xasprintf("solvable_name: %s\n", d->pin_packages.v[i]);
            CU_AUTOFREE char *t = cu_xasprintf("%s\n", lock_text ? lock_text : "");
            if (!strstr(t, name))
                return cu_xasprintf(_("%s is not locked in %s (zypper addlock), so the next update could move it alone."),
                                    d->pin_packages.v[i], root);
        }
    }
    return NULL;
}
