/* SPDX-License-Identifier: MIT */
/* The cliff of a GPU generation: see cliff.h. */
#include "config.h"

#include "core/catalog/cliff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/catalog/catalog.h"
#include "core/catalog/cudnn_matrix.h"
#include "core/catalog/driver_data.h"
#include "core/catalog/gpucode.h"

static const char *const fw_names[CU_CLIFF_N_FW] = {"pytorch", "tensorflow", "jax"};

const char *
cu_cliff_fw_name(enum cu_cliff_fw fw)
{
    return fw < CU_CLIFF_N_FW ? fw_names[fw] : "?";
}

static bool
runs(const struct cu_cat_code *c, const struct cu_version *cc)
{
    int t;
    return c && cu_code_fit(c, cc, &t) != CU_CODE_NONE;
}

static struct cu_version
minor_of(const struct cu_version *v)
{
    return (struct cu_version){{v->part[0], v->n > 1 ? v->part[1] : 0}, 2};
}

static void
cliff_driver(const struct cu_catalog *cat, const struct cu_version *cc, struct cu_cliff *out)
{
    const struct cu_drv_gen *gen = cu_drv_gen_for_cc(cat->driver, cc);
    struct cu_cliff_part *p = &out->driver;
    int newest = 0;
    for (size_t i = 0; cat->driver && i < cat->driver->n_branches; i++)
        if (cat->driver->branches[i].branch > newest)
            newest = cat->driver->branches[i].branch;
    if (!gen)
        return;
    out->generation = gen->generation;
    p->known = gen->branch_last || newest;
    p->current = !gen->branch_last || gen->branch_last >= newest;
    p->version = (struct cu_version){{(unsigned)(gen->branch_last ? gen->branch_last : newest)}, 1};
    p->newest = (struct cu_version){{(unsigned)newest}, 1};
    p->read = gen->confidence && strcmp(gen->confidence, "read") == 0;
    p->source = gen->source;
}

static void
cliff_cuda(const struct cu_catalog *cat, const struct cu_version *cc, struct cu_cliff_part *p)
{
    struct cu_version last;
    if (!cu_catalog_cuda_last_for_cc(cat, cc, &last))
        return;
    p->known = true;
    p->version = minor_of(&last);
    for (size_t i = 0; i < cat->n_cuda && !p->release.n; i++) /* newest first */
        if (cu_version_matches(&cat->cuda[i].version, &p->version))
            p->release = cat->cuda[i].version;
    p->newest = cat->n_cuda ? minor_of(&cat->cuda[0].version) : p->version;
    p->current = cu_version_cmp(&p->version, &p->newest) >= 0;
    const struct cu_cat_cuda_sm *sm = cu_catalog_cuda_sm(cat, &p->version);
    p->read = !sm || sm->verified; /* older than the arch table: the runfile's own list */
}

/* The CUDA majors a cuDNN release is built for, newest first (its archives' variants, else every major the
 * support matrix has rows for). */
static size_t
cudnn_majors(const struct cu_catalog *cat, const struct cu_cat_cudnn *d, int out[8])
{
    size_t n = 0;
    for (char **v = d->variants_x86_64; v && *v && n < 8; v++) {
        uint64_t m;
        if (cu_parse_u64(*v, 99, &m))
            out[n++] = (int)m;
    }
    for (size_t i = 0; n == 0 && i < cat->n_cudnn_support; i++) {
        bool seen = false;
        for (size_t k = 0; k < n; k++)
            seen |= out[k] == cat->cudnn_support[i].cuda_major;
        if (!seen && n < 8)
            out[n++] = cat->cudnn_support[i].cuda_major;
    }
    for (size_t i = 1; i < n; i++) /* newest major first */
        for (size_t k = i; k > 0 && out[k] > out[k - 1]; k--) {
            int t = out[k];
            out[k] = out[k - 1];
            out[k - 1] = t;
        }
    return n;
}

static void
cliff_cudnn(const struct cu_catalog *cat, const struct cu_version *cc, struct cu_cliff_part *p)
{
    for (size_t i = 0; i < cat->n_cudnn && !p->known; i++) { /* newest first */
        const struct cu_cat_cudnn *d = &cat->cudnn[i];
        int majors[8];
        size_t n = cudnn_majors(cat, d, majors);
        for (size_t k = 0; k < n && !p->known; k++) {
            if (cu_catalog_cudnn_lists(cat, &d->version, majors[k], cc, NULL) != 1)
                continue;
            const struct cu_cat_cudnn_support *row = cu_catalog_cudnn_support(cat, &d->version, majors[k]);
            p->known = true;
            p->current = i == 0;
            p->version = d->version;
            p->major = majors[k];
            p->read = row && cu_version_cmp(&row->cudnn, &d->version) == 0; /* else judged by a neighbour's row */
        }
    }
    if (cat->n_cudnn)
        p->newest = cat->cudnn[0].version;
}

static void
cliff_torch(const struct cu_catalog *cat, const struct cu_version *cc, struct cu_cliff_part *p)
{
    for (size_t i = 0; i < cat->n_torch && !p->known; i++) { /* newest first */
        const struct cu_cat_torch *t = &cat->torch[i];
        const struct cu_cat_torch_build *best = NULL;
        const struct cu_cat_code *code = NULL;
        for (size_t k = 0; k < t->n_builds; k++) {
            const struct cu_cat_torch_build *b = &t->builds[k];
            const struct cu_cat_code *c = cu_catalog_torch_code(cat, &t->minor, b->tag);
            if (!runs(c, cc))
                continue;
            /* A stable build before an experimental one, then the newest CUDA. */
            if (!best || (b->stable && !best->stable) ||
                (b->stable == best->stable && cu_version_cmp(&b->cuda, &best->cuda) > 0)) {
                best = b;
                code = c;
            }
        }
        if (!best)
            continue;
        p->known = true;
        p->current = i == 0;
        p->version = t->minor;
        snprintf(p->tag, sizeof(p->tag), "%s", best->tag);
        p->read = code->read;
        p->source = code->source;
        for (size_t k = 0; k < cat->n_pypi_torch; k++)
            if (cu_version_matches(&cat->pypi_torch[k], &t->minor) &&
                (!p->release.n || cu_version_cmp(&cat->pypi_torch[k], &p->release) > 0))
                p->release = cat->pypi_torch[k];
    }
    if (cat->n_torch)
        p->newest = cat->torch[0].minor;
}

static void
cliff_tf(const struct cu_catalog *cat, const struct cu_version *cc, struct cu_cliff_part *p)
{
    for (size_t i = 0; i < cat->n_code_tf; i++) /* newest first */
        if (cat->code_tf[i].to.n && cu_version_cmp(&cat->code_tf[i].to, &p->newest) > 0)
            p->newest = cat->code_tf[i].to;
    for (size_t i = 0; i < cat->n_code_tf && !p->known; i++) {
        const struct cu_cat_code *c = &cat->code_tf[i];
        if (!runs(c, cc))
            continue;
        p->known = true;
        p->version = p->release = c->to;
        p->current = cu_version_cmp(&c->to, &p->newest) >= 0;
        p->read = c->read;
        p->source = c->source;
    }
}

static void
cliff_jax(const struct cu_catalog *cat, const struct cu_version *cc, struct cu_cliff_part *p)
{
    for (size_t i = 0; i < cat->n_code_jax; i++)
        if (cu_version_cmp(&cat->code_jax[i].to, &p->newest) > 0)
            p->newest = cat->code_jax[i].to;
    const struct cu_cat_code *best = NULL;
    for (size_t i = 0; i < cat->n_code_jax; i++) {
        const struct cu_cat_code *c = &cat->code_jax[i];
        if (runs(c, cc) && (!best || cu_version_cmp(&c->to, &best->to) > 0))
            best = c;
    }
    if (!best)
        return;
    p->known = true;
    p->version = p->release = best->to;
    p->current = cu_version_cmp(&best->to, &p->newest) >= 0;
    for (size_t k = 0; k < 4 && best->cuda_majors[k]; k++)
        if (best->cuda_majors[k] > p->major)
            p->major = best->cuda_majors[k];
    snprintf(p->tag, sizeof(p->tag), "cuda%d", p->major);
    p->read = best->read;
    p->source = best->source;
}

void
cu_cliff_for(const struct cu_catalog *cat, const struct cu_version *cc, struct cu_cliff *out)
{
    memset(out, 0, sizeof(*out));
    if (!cc || cc->n < 1)
        return;
    out->cc = minor_of(cc);
    cliff_driver(cat, &out->cc, out);
    cliff_cuda(cat, &out->cc, &out->cuda);
    cliff_cudnn(cat, &out->cc, &out->cudnn);
    cliff_torch(cat, &out->cc, &out->fw[CU_CLIFF_PYTORCH]);
    cliff_tf(cat, &out->cc, &out->fw[CU_CLIFF_TENSORFLOW]);
    cliff_jax(cat, &out->cc, &out->fw[CU_CLIFF_JAX]);
}

bool
cu_cliff_dropped(const struct cu_cliff *c)
{
    if ((c->driver.known && !c->driver.current) || (c->cuda.known && !c->cuda.current) ||
        (c->cudnn.known && !c->cudnn.current))
        return true;
    for (size_t i = 0; i < CU_CLIFF_N_FW; i++)
        if (c->fw[i].known && !c->fw[i].current)
            return true;
    return false;
}

const struct cu_cliff_part *
cu_cliff_framework(const struct cu_cliff *c, const char *name)
{
    for (size_t i = 0; name && i < CU_CLIFF_N_FW; i++)
        if (strcmp(fw_names[i], name) == 0)
            return &c->fw[i];
    return NULL;
}

static const char *
title(const char *name)
{
    return strcmp(name, "pytorch") == 0 ? "PyTorch" : strcmp(name, "jax") == 0 ? "JAX" : "TensorFlow";
}

char *
cu_cliff_fw_text(const char *name, const struct cu_cliff_part *p)
{
    char b1[32], b2[32];
    cu_version_format(&p->version, 0, b1, sizeof(b1));
    if (p->tag[0] && p->release.n && cu_version_cmp(&p->release, &p->version) != 0)
        return cu_xasprintf(_("%s %s (%s, %s)"), title(name), b1, p->tag, cu_version_format(&p->release, 0, b2, sizeof(b2)));
    if (p->tag[0])
        return cu_xasprintf("%s %s (%s)", title(name), b1, p->tag);
    return cu_xasprintf("%s %s", title(name), b1);
}

/* The phrase of part @i (0 driver, 1 CUDA, 2 cuDNN, 3.. frameworks): its last release that serves, or with
 * @newest the newest the catalog knows of it. */
static char *
part_text(const struct cu_cliff *c, size_t i, bool newest)
{
    char b1[32], b2[32];
    if (i == 0)
        return newest ? cu_xasprintf(_("driver %u"), c->driver.newest.part[0])
                      : cu_xasprintf(_("driver branch %u"), c->driver.version.part[0]);
    if (i == 1)
        return newest || !c->cuda.release.n
                   ? cu_xasprintf("CUDA %s", cu_version_format(newest ? &c->cuda.newest : &c->cuda.version, 0, b1, sizeof(b1)))
                   : cu_xasprintf("CUDA %s (%s)", cu_version_format(&c->cuda.version, 0, b1, sizeof(b1)),
                                  cu_version_format(&c->cuda.release, 0, b2, sizeof(b2)));
    if (i == 2)
        return newest ? cu_xasprintf("cuDNN %s", cu_version_format(&c->cudnn.newest, 0, b1, sizeof(b1)))
                      : cu_xasprintf(_("cuDNN %s for CUDA %d"), cu_version_format(&c->cudnn.version, 0, b1, sizeof(b1)),
                                     c->cudnn.major);
    const struct cu_cliff_part *p = &c->fw[i - 3];
    if (newest)
        return cu_xasprintf("%s %s", title(fw_names[i - 3]), cu_version_format(&p->newest, 0, b1, sizeof(b1)));
    return cu_cliff_fw_text(fw_names[i - 3], p);
}

static const struct cu_cliff_part *
part(const struct cu_cliff *c, size_t i)
{
    return i == 0 ? &c->driver : i == 1 ? &c->cuda : i == 2 ? &c->cudnn : &c->fw[i - 3];
}

/* "a, b and c" of @v. */
static char *
join(const struct cu_strv *v)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < v->n; i++)
        cu_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == v->n ? _(" and ") : _(", "), v->v[i]);
    return cu_buf_steal(&b);
}

char *
cu_cliff_describe(const struct cu_cliff *c, const char *who)
{
    if (!cu_cliff_dropped(c))
        return NULL;
    struct cu_strv last, newer, still;
    cu_strv_init(&last);
    cu_strv_init(&newer);
    cu_strv_init(&still);
    for (size_t i = 0; i < 3 + CU_CLIFF_N_FW; i++) {
        const struct cu_cliff_part *p = part(c, i);
        if (!p->known)
            continue;
        if (p->current) {
            if (i >= 3)
                cu_strv_push_owned(&still, part_text(c, i, true));
            continue;
        }
        cu_strv_push_owned(&last, part_text(c, i, false));
        cu_strv_push_owned(&newer, part_text(c, i, true));
    }
    CU_AUTOFREE char *l = join(&last);
    CU_AUTOFREE char *n = join(&newer);
    CU_AUTOFREE char *s = join(&still);
    char *out = still.n
                    ? cu_xasprintf(_("%s is past the cliff of its generation (%s): the last releases that serve it are %s, not the newest (%s). Still current for it: %s."),
                                   who, c->generation ? c->generation : "?", l, n, s)
                    : cu_xasprintf(_("%s is past the cliff of its generation (%s): the last releases that serve it are %s, not the newest (%s)."),
                                   who, c->generation ? c->generation : "?", l, n);
    cu_strv_fini(&last);
    cu_strv_fini(&newer);
    cu_strv_fini(&still);
    return out;
}
