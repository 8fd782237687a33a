/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/catalog/gpucode.h"

#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/parse.h"
#include "core/base/str.h"

static int
cc_num(const struct cu_version *cc)
{
    return (int)cc->part[0] * 10 + (int)(cc->n > 1 ? cc->part[1] : 0);
}

enum cu_code_fit
cu_code_fit(const struct cu_cat_code *c, const struct cu_version *cc, int *target)
{
    int g = cc_num(cc), best = 0;
    *target = 0;
    for (size_t i = 0; i < c->n_sass; i++)
        if (c->sass[i] / 10 == g / 10 && c->sass[i] <= g && c->sass[i] > best)
            best = c->sass[i];
    if (best) {
        *target = best;
        return CU_CODE_SASS;
    }
    for (size_t i = 0; i < c->n_ptx; i++)
        if (c->ptx[i] <= g && c->ptx[i] > best)
            best = c->ptx[i];
    *target = best;
    return best ? CU_CODE_PTX : CU_CODE_NONE;
}

const char *
cu_code_fit_name(enum cu_code_fit f)
{
    return f == CU_CODE_SASS ? "sass" : f == CU_CODE_PTX ? "ptx-jit" : "none";
}

char *
cu_code_describe(const struct cu_cat_code *c)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < c->n_sass; i++)
        cu_buf_printf(&b, "%ssm_%d", i == 0 ? "" : i + 1 == c->n_sass && !c->n_ptx ? _(" and ") : ", ", c->sass[i]);
    for (size_t i = 0; i < c->n_ptx; i++)
        cu_buf_printf(&b, "%s%s compute_%d", i == 0 ? (c->n_sass ? _(" and") : "") : ",", i == 0 ? _(" PTX") : "",
                      c->ptx[i]);
    return cu_buf_steal(&b);
}

bool
cu_code_add_arch(struct cu_cat_code *c, const char *arch)
{
    bool sm = arch && strncmp(arch, "sm_", 3) == 0, ptx = arch && strncmp(arch, "compute_", 8) == 0;
    if (!sm && !ptx)
        return false;
    const char *d = arch + (sm ? 3 : 8);
    size_t k = strspn(d, "0123456789");
    char num[8];
    uint64_t v;
    if (k == 0 || k >= sizeof(num))
        return false;
    memcpy(num, d, k);
    num[k] = '\0';
    if (!cu_parse_u64(num, 1000, &v))
        return false;
    if (sm)
        c->sass[c->n_sass++] = (int)v;
    else
        c->ptx[c->n_ptx++] = (int)v;
    return true;
}

struct cu_version
cu_code_cc(int sm)
{
    return (struct cu_version){{(unsigned)(sm / 10), (unsigned)(sm % 10)}, 2};
}
