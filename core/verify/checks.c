/* SPDX-License-Identifier: MIT */
/*
 * verify's list of checks (checks.h): adding a check, with or without advice of cudaup's own,
 * the damaged files, freeing it all, and what the list says as a whole: failed or not, the
 * summary sentence, the JSON.
 */
#include "config.h"

#include "core/verify/checks.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"

void
cu_checks_fini(struct cu_checks *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].name);
        free(c->v[i].detail);
        free(c->v[i].fact);
        free(c->v[i].fix);
        free(c->v[i].framework);
    }
    free(c->v);
    json_decref(c->libraries);
    c->libraries = NULL;
    c->v = NULL;
    c->n = 0;
    for (size_t i = 0; i < c->n_damaged; i++)
        free(c->damaged[i].path);
    free(c->damaged);
    c->damaged = NULL;
    c->n_damaged = 0;
}

void
cu_checks_add(struct cu_checks *c, const char *name, enum cu_check_status st, const char *fmt, ...)
{
    va_list ap, en;
    va_start(ap, fmt);
    va_copy(en, ap);
    char *d = cu_xvasprintf(fmt, ap);
    cu_i18n_note_formatted(d, fmt, en); /* the log (verify_report.c) takes the English twin */
    va_end(en);
    va_end(ap);
    c->v = cu_xreallocarray(c->v, c->n + 1, sizeof(*c->v));
    c->v[c->n++] = (struct cu_check){cu_xstrdup(name), st, d, NULL, CU_ADV_NONE, NULL, NULL};
}

char *
cu_checks_summary(const struct cu_checks *c)
{
    size_t pass = 0, fail = 0, skip = 0;
    const char *gpu_why = NULL;
    for (size_t i = 0; i < c->n; i++) {
        pass += c->v[i].status == CU_CHECK_PASS;
        fail += c->v[i].status == CU_CHECK_FAIL;
        skip += c->v[i].status == CU_CHECK_SKIP;
        if (c->v[i].status == CU_CHECK_SKIP && !gpu_why &&
            (strcmp(c->v[i].name, "device") == 0 || strcmp(c->v[i].name, "gpu-kernel") == 0))
            gpu_why = c->v[i].detail;
    }
    bool gpu_ran = false;
    for (size_t i = 0; i < c->n; i++)
        gpu_ran |= c->v[i].status == CU_CHECK_PASS &&
                   (strcmp(c->v[i].name, "gpu-kernel") == 0 || strcmp(c->v[i].name, "cudnn-conv") == 0 ||
                    strcmp(c->v[i].name, "framework") == 0);
    /* Whole sentences, so that a translation ends with its own full stop. */
    if (!gpu_ran && gpu_why)
        return cu_xasprintf(_("%zu passed, %zu failed, %zu skipped: no GPU work was done (%s)."), pass, fail, skip, gpu_why);
    if (!gpu_ran)
        return cu_xasprintf(_("%zu passed, %zu failed, %zu skipped: no GPU work was done."), pass, fail, skip);
    return cu_xasprintf(_("%zu passed, %zu failed, %zu skipped."), pass, fail, skip);
}

bool
cu_checks_failed(const struct cu_checks *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].status == CU_CHECK_FAIL)
            return true;
    return false;
}

const char *
cu_check_status_name(enum cu_check_status s)
{
    return s == CU_CHECK_PASS ? "pass" : s == CU_CHECK_FAIL ? "fail" : "skip";
}

json_t *
cu_checks_damaged_json(const struct cu_checks *c)
{
    json_t *a = json_array();
    for (size_t i = 0; i < c->n_damaged; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "path", json_string(c->damaged[i].path));
        json_object_set_new(o, "problem", json_string(c->damaged[i].problem));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *
cu_checks_json(const struct cu_checks *c)
{
    json_t *a = json_array();
    for (size_t i = 0; i < c->n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(c->v[i].name));
        json_object_set_new(o, "status", json_string(cu_check_status_name(c->v[i].status)));
        json_object_set_new(o, "detail", json_string(c->v[i].detail));
        if (c->v[i].framework)
            json_object_set_new(o, "framework", json_string(c->v[i].framework));
        json_array_append_new(a, o);
    }
    return a;
}

void
cu_checks_add_fix(struct cu_checks *c, const char *name, enum cu_check_status st, char *detail, char *fix)
{
    c->v = cu_xreallocarray(c->v, c->n + 1, sizeof(*c->v));
    c->v[c->n++] = (struct cu_check){.name = cu_xstrdup(name), .status = st, .detail = detail, .fix = fix};
}

void
cu_checks_about(struct cu_checks *c, const char *framework)
{
    if (!c->n || !framework)
        return;
    free(c->v[c->n - 1].framework);
    c->v[c->n - 1].framework = cu_xstrdup(framework);
}

void
cu_check_fail_repair(struct cu_check *out, char *fact)
{
    out->status = CU_CHECK_FAIL;
    free(out->detail);
    out->detail = cu_xasprintf(_("%s; repair restores it"), fact);
    free(out->fact);
    out->fact = fact;
    out->adv = CU_ADV_REPAIR;
}

void
cu_checks_add_advised(struct cu_checks *c, const char *name, enum cu_check_status st, enum cu_advice adv, char *fact,
                      char *detail)
{
    c->v = cu_xreallocarray(c->v, c->n + 1, sizeof(*c->v));
    c->v[c->n++] = (struct cu_check){cu_xstrdup(name), st, detail, fact, adv, NULL, NULL};
}
