/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/pipspec.h"

#include <string.h>

int
cu_pipver_cmp(const struct cu_version *a, const struct cu_version *b)
{
    int n = a->n > b->n ? a->n : b->n;
    for (int i = 0; i < n; i++) {
        uint32_t x = i < a->n ? a->part[i] : 0, y = i < b->n ? b->part[i] : 0;
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static bool
parse_clause(const char *s, size_t len, struct cu_pipspec_clause *out)
{
    static const struct {
        const char *text;
        enum cu_pipspec_op op;
    } ops[] = {{"===", CU_PS_EQ}, {"==", CU_PS_EQ}, {"!=", CU_PS_NE}, {">=", CU_PS_GE}, {"<=", CU_PS_LE},
               {"~=", CU_PS_COMPAT}, {">", CU_PS_GT}, {"<", CU_PS_LT}};
    char buf[64];
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        size_t ol = strlen(ops[i].text);
        if (len <= ol || strncmp(s, ops[i].text, ol) != 0)
            continue;
        if (i == 0)
            return false; /* arbitrary equality: not a version comparison */
        const char *v = s + ol;
        size_t vl = len - ol;
        while (vl && *v == ' ')
            v++, vl--;
        memset(out, 0, sizeof(*out));
        out->op = ops[i].op;
        if (vl > 2 && strncmp(v + vl - 2, ".*", 2) == 0) {
            if (out->op != CU_PS_EQ && out->op != CU_PS_NE)
                return false;
            out->prefix = true;
            vl -= 2;
        }
        if (vl == 0 || vl >= sizeof(buf))
            return false;
        memcpy(buf, v, vl);
        buf[vl] = '\0';
        if (!cu_version_parse(buf, &out->v))
            return false;
        return !(out->op == CU_PS_COMPAT && out->v.n < 2);
    }
    return false;
}

bool
cu_pipspec_parse(const char *s, struct cu_pipspec *out)
{
    memset(out, 0, sizeof(*out));
    if (!s)
        return true;
    while (*s == ' ')
        s++;
    if (!*s)
        return true;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (out->n == sizeof(out->c) / sizeof(out->c[0]) || !parse_clause(s, len, &out->c[out->n]))
            return false;
        out->n++;
        if (!comma)
            return true;
        s = comma + 1;
    }
}

/* Does @v start with the parts of @prefix (zeros where @v has none)? */
static bool
has_prefix(const struct cu_version *v, const struct cu_version *prefix)
{
    for (int i = 0; i < prefix->n; i++)
        if ((i < v->n ? v->part[i] : 0) != prefix->part[i])
            return false;
    return true;
}

static bool
clause_holds(const struct cu_pipspec_clause *c, const struct cu_version *v)
{
    int d = cu_pipver_cmp(v, &c->v);
    switch (c->op) {
    case CU_PS_EQ: return c->prefix ? has_prefix(v, &c->v) : d == 0;
    case CU_PS_NE: return c->prefix ? !has_prefix(v, &c->v) : d != 0;
    case CU_PS_GE: return d >= 0;
    case CU_PS_GT: return d > 0;
    case CU_PS_LE: return d <= 0;
    case CU_PS_LT: return d < 0;
    case CU_PS_COMPAT: {
        struct cu_version p = c->v;
        p.n--;
        return d >= 0 && has_prefix(v, &p);
    }
    }
    return false;
}

bool
cu_pipspec_contains(const struct cu_pipspec *s, const struct cu_version *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (!clause_holds(&s->c[i], v))
            return false;
    return true;
}

/* The first release after every release that starts with @p: 13.1.0.3 -> 13.1.0.4. */
static struct cu_version
after_prefix(const struct cu_version *p)
{
    struct cu_version v = *p;
    v.part[v.n - 1]++;
    return v;
}

struct bound {
    bool set, incl;
    struct cu_version v;
};

static void
raise_lo(struct bound *lo, const struct cu_version *v, bool incl)
{
    int d = lo->set ? cu_pipver_cmp(v, &lo->v) : 1;
    if (d > 0 || (d == 0 && !incl))
        *lo = (struct bound){true, incl, *v};
}

static void
lower_hi(struct bound *hi, const struct cu_version *v, bool incl)
{
    int d = hi->set ? cu_pipver_cmp(v, &hi->v) : -1;
    if (d < 0 || (d == 0 && !incl))
        *hi = (struct bound){true, incl, *v};
}

bool
cu_pipspec_meet(const struct cu_pipspec *const *specs, size_t n)
{
    struct bound lo = {0}, hi = {0};
    struct cu_version exact;
    bool exact_prefix = false;
    bool have_exact = cu_pipspec_pinned(specs, n, &exact, &exact_prefix) && !exact_prefix;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < specs[i]->n; k++) {
            const struct cu_pipspec_clause *c = &specs[i]->c[k];
            struct cu_version top;
            switch (c->op) {
            case CU_PS_GE: raise_lo(&lo, &c->v, true); break;
            case CU_PS_GT: raise_lo(&lo, &c->v, false); break;
            case CU_PS_LE: lower_hi(&hi, &c->v, true); break;
            case CU_PS_LT: lower_hi(&hi, &c->v, false); break;
            case CU_PS_EQ:
                raise_lo(&lo, &c->v, true);
                if (c->prefix) {
                    top = after_prefix(&c->v);
                    lower_hi(&hi, &top, false);
                } else {
                    lower_hi(&hi, &c->v, true);
                }
                break;
            case CU_PS_COMPAT:
                raise_lo(&lo, &c->v, true);
                top = c->v;
                top.n--;
                top = after_prefix(&top);
                lower_hi(&hi, &top, false);
                break;
            case CU_PS_NE: break;
            }
        }
    }
    if (have_exact) {
        /* One release is named: every specifier must take it. */
        for (size_t i = 0; i < n; i++)
            if (!cu_pipspec_contains(specs[i], &exact))
                return false;
        return true;
    }
    if (!lo.set || !hi.set)
        return true;
    int d = cu_pipver_cmp(&lo.v, &hi.v);
    return d < 0 || (d == 0 && lo.incl && hi.incl);
}

bool
cu_pipspec_pinned(const struct cu_pipspec *const *specs, size_t n, struct cu_version *out, bool *prefix)
{
    bool found = false;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < specs[i]->n; k++) {
            const struct cu_pipspec_clause *c = &specs[i]->c[k];
            if (c->op != CU_PS_EQ)
                continue;
            /* An exact release beats a prefix; the longest prefix beats a shorter one. */
            if (!found || (*prefix && (!c->prefix || c->v.n > out->n))) {
                *out = c->v;
                *prefix = c->prefix;
                found = true;
            }
        }
    return found;
}

bool
cu_pipspec_floor(const struct cu_pipspec *s, struct cu_version *out, bool *exact)
{
    *exact = false;
    for (size_t i = 0; i < s->n; i++)
        if (s->c[i].op == CU_PS_EQ || s->c[i].op == CU_PS_GE || s->c[i].op == CU_PS_COMPAT) {
            *out = s->c[i].v;
            *exact = s->c[i].op == CU_PS_EQ && !s->c[i].prefix;
            return true;
        }
    return false;
}

bool
cu_pipspec_below(const struct cu_pipspec *s, struct cu_version *out)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->c[i].op == CU_PS_LT) {
            *out = s->c[i].v;
            return true;
        }
    return false;
}
