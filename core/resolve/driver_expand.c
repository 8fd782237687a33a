/* SPDX-License-Identifier: MIT */
/* The driver data's templates expanded for this machine ({B}, {K}, {KM}, {R}, {V}, {VN}, {ARCH}, {ARCHR}). */
#include "config.h"

#include "core/resolve/driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"

/* The kernel release's flavour: what follows the version and the ABI number, or NULL.  Debian 12 and Ubuntu
 * name a release VERSION-ABI-FLAVOUR (6.1.0-26-amd64, 6.8.0-45-generic, 6.1.0-26-cloud-amd64), Debian 13
 * VERSION+debN-FLAVOUR with one dash (6.12.48+deb13-amd64, 6.12.48+deb13-cloud-amd64), SUSE
 * VERSION-ABI.PATCH-FLAVOUR (6.4.0-150600.23.25-default).  A second field that starts with a digit is the ABI
 * and is skipped; what is left is a flavour when it starts with a letter and none of its fields is a bare
 * number (Arch's 6.17.9-arch1-1 and Fedora's 6.16.7-200.fc43.x86_64 have none). */
static const char *
release_flavour(const char *krel)
{
    const char *kf = strchr(krel, '-');
    if (!kf)
        return NULL;
    kf++;
    if (*kf >= '0' && *kf <= '9') {
        kf = strchr(kf, '-');
        if (!kf)
            return NULL;
        kf++;
    }
    if (!((*kf >= 'a' && *kf <= 'z') || (*kf >= 'A' && *kf <= 'Z')))
        return NULL;
    for (const char *field = kf; field; field = strchr(field, '-') ? strchr(field, '-') + 1 : NULL) {
        size_t n = strcspn(field, "-");
        if (n == 0 || strspn(field, "0123456789") == n)
            return NULL;
    }
    return kf;
}

const char *
cu_drv_kernel_meta(const struct cu_facts *f)
{
    if (f->drv && f->drv->kernel_meta)
        return f->drv->kernel_meta;
    /* "amd64", "cloud-amd64", "default"; none for Arch's 6.17.9-arch1-1 */
    return release_flavour(f->drv && f->drv->kernel_release ? f->drv->kernel_release : "");
}

const char *
cu_drv_row_kernel(const struct cu_drv_pkg *r, const char *km)
{
    for (char **k = r->kernels; k && *k; k++) {
        if (strcmp(*k, "*") == 0)
            return km;
        const char *eq = strchr(*k, '=');
        size_t n = eq ? (size_t)(eq - *k) : strlen(*k);
        if (km && strlen(km) == n && strncmp(*k, km, n) == 0)
            return eq ? eq + 1 : km;
    }
    return NULL;
}

char *
cu_drv_expand_km(const char *tmpl, int branch, const struct cu_facts *f, const char *km)
{
    return cu_drv_expand_kernel(tmpl, branch, f, km, f->drv && f->drv->kernel_release ? f->drv->kernel_release : "");
}

char *
cu_drv_expand_kernel(const char *tmpl, int branch, const struct cu_facts *f, const char *km, const char *krel)
{
    const char *kf = release_flavour(krel);
    const char *vid = f->os.version_id ? f->os.version_id : "";
    struct cu_buf b;
    cu_buf_init(&b);
    for (const char *c = tmpl; *c; c++) {
        if (*c != '{') {
            cu_buf_putc(&b, *c);
            continue;
        }
        const char *close = strchr(c, '}');
        if (!close) {
            cu_buf_puts(&b, c);
            break;
        }
        size_t n = (size_t)(close - c - 1);
        const char *k = c + 1;
        if (n == 1 && *k == 'B')
            cu_buf_printf(&b, "%d", branch);
        else if (n == 1 && *k == 'K')
            cu_buf_puts(&b, kf ? kf : "generic");
        else if (n == 2 && strncmp(k, "KM", 2) == 0)
            cu_buf_puts(&b, km ? km : "");
        else if (n == 1 && *k == 'R')
            cu_buf_puts(&b, krel);
        else if (n == 1 && *k == 'V')
            cu_buf_printf(&b, "%.*s", (int)strcspn(vid, "."), vid);
        else if (n == 2 && strncmp(k, "VN", 2) == 0)
            for (const char *v = vid; *v; v++) {
                if (*v != '.')
                    cu_buf_putc(&b, *v);
            }
        else if (n == 4 && strncmp(k, "ARCH", 4) == 0)
            cu_buf_puts(&b, strcmp(f->os.machine, "aarch64") == 0 ? "sbsa" : "x86_64");
        else if (n == 5 && strncmp(k, "ARCHR", 5) == 0)
            cu_buf_puts(&b, strcmp(f->os.machine, "aarch64") == 0 ? "aarch64" : "x86_64");
        else
            cu_buf_append(&b, c, n + 2);
        c = close;
    }
    return cu_buf_steal(&b);
}

char *
cu_drv_expand(const char *tmpl, int branch, const struct cu_facts *f)
{
    return cu_drv_expand_km(tmpl, branch, f, cu_drv_kernel_meta(f));
}


char *
cu_drv_expand_row(const struct cu_drv_pkg *row, const char *tmpl, int branch, const struct cu_facts *f)
{
    const char *km = cu_drv_kernel_meta(f);
    const char *alias = row ? cu_drv_row_kernel(row, km) : NULL;
    return cu_drv_expand_km(tmpl, branch, f, alias ? alias : km);
}

/* A flavor in the user's words (both driver.c's reasons and driver_steps.c's steps say it). */
const char *
cu_drv_flavor_word(const char *flavor)
{
    if (!flavor)
        return "";
    return strcmp(flavor, "open") == 0 ? _("open") : strcmp(flavor, "proprietary") == 0 ? _("proprietary") : flavor;
}
