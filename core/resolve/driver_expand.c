/* SPDX-License-Identifier: MIT */
/* The driver data's templates expanded for this machine ({B}, {K}, {KM}, {R}, {V}, {VN}, {ARCH}, {ARCHR}). */
#include "config.h"

#include "core/resolve/driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"

/* The kernel release's flavour: what follows the ABI number (6.8.0-45-generic -> generic), or NULL. */
static const char *
release_flavour(const struct cu_facts *f)
{
    const char *krel = f->drv && f->drv->kernel_release ? f->drv->kernel_release : "";
    const char *dash = strchr(krel, '-');
    const char *kf = dash ? strchr(dash + 1, '-') : NULL;
    return kf && kf[1] ? kf + 1 : NULL;
}

const char *
cu_drv_kernel_meta(const struct cu_facts *f)
{
    if (f->drv && f->drv->kernel_meta)
        return f->drv->kernel_meta;
    const char *kf = release_flavour(f);
    if (!kf)
        return NULL;
    for (const char *c = kf; *c; c++)
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))
            return kf; /* "amd64", "cloud-amd64", "default": a flavour; Arch's "1" of 6.17.9-arch1-1 is not */
    return NULL;
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
    const char *krel = f->drv && f->drv->kernel_release ? f->drv->kernel_release : "";
    const char *kf = release_flavour(f);
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
