/* SPDX-License-Identifier: MIT */
/* `uninstall driver`'s preview (driver_removal.h): the record's parts, one line each, in the user's language. */
#include "config.h"

#define CU_LOG_TAG "driver"
#include "driver_removal.h"

#include <string.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "driver_int.h"

enum cu_status
inst_driver_removal(const char *state_dir, const struct cu_catalog *cat, const struct cu_strv *removes,
                    struct cu_removal *out, struct cu_error *err)
{
    memset(out, 0, sizeof(*out));
    cu_strv_init(&out->goes);
    cu_strv_init(&out->stays);
    struct drv_rec r;
    bool exists = false;
    drv_rec_init(&r);
    enum cu_status st = drv_rec_load(state_dir, cat, &r, &exists, err);
    if (st != CU_OK || !exists) {
        drv_rec_fini(&r);
        return st;
    }
    out->installed = true;
    const struct cu_strv *pk = removes ? removes : &r.packages;
    if (pk->n) {
        CU_AUTOFREE char *names = cu_strv_join(pk, " ");
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("the packages cudaup's steps installed (%s): %s"), r.manager, names));
    }
    if (r.kept_config.n) {
        CU_AUTOFREE char *names = cu_strv_join(&r.kept_config, " ");
        cu_strv_push_owned(&out->stays, cu_xasprintf(_("The configuration files of %s stay (they were there before cudaup)."), names));
    }
    if (r.held.n) {
        CU_AUTOFREE char *names = cu_strv_join(&r.held, " ");
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("the hold on %s (`%s`)"), names,
                                                    strcmp(r.manager, "zypper") == 0 ? "zypper addlock" : "apt-mark hold"));
    }
    for (size_t i = 0; i < r.versionlock.n; i++)
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("the version lock %s (`dnf versionlock`)"), r.versionlock.v[i]));
    for (size_t i = 0; i < r.streams.n; i++)
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("the module stream %s (`dnf module`)"), r.streams.v[i]));
    for (size_t i = 0; i < r.repos.n; i++)
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("the repository %s (`zypper addrepo`)"), r.repos.v[i]));
    for (size_t i = 0; i < r.files.n; i++)
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("the file %s"), r.files.v[i]));
    if (r.initramfs)
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("then the initramfs is rebuilt (`%s`)"), r.initramfs));
    CU_AUTOFREE char *resume = cu_path_join(state_dir, "resume.json");
    if (access(resume, F_OK) == 0)
        cu_strv_push_owned(&out->goes, cu_xasprintf(_("the record of where the install stopped (%s): nothing is left to resume"), resume));
    if (!out->goes.n)
        cu_strv_push(&out->goes, _("nothing that is still there: the record is cleared"));
    cu_strv_push(&out->stays, _("The module that runs now stays loaded until the next reboot."));
    drv_rec_fini(&r);
    return CU_OK;
}
