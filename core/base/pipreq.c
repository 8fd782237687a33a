/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/pipreq.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/mem.h"
#include "core/base/pipspec.h"

char *
cu_pep503_name(const char *name, size_t n)
{
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        if (name[i] == '-' || name[i] == '_' || name[i] == '.') {
            if (b.len == 0 || b.data[b.len - 1] != '-')
                cu_buf_putc(&b, '-');
        } else {
            cu_buf_putc(&b, (char)tolower((unsigned char)name[i]));
        }
    }
    return cu_buf_steal(&b);
}

static bool
name_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

void
cu_pipreq_fini(struct cu_pipreq *r)
{
    cu_clear_ptr(&r->name, free);
    cu_clear_ptr(&r->extras, free);
    cu_clear_ptr(&r->spec, free);
    cu_clear_ptr(&r->marker, free);
}

bool
cu_pipreq_parse(const char *text, struct cu_pipreq *out)
{
    memset(out, 0, sizeof(*out));
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    const char *semi = strchr(p, ';');
    const char *end = semi ? semi : p + strlen(p);
    size_t n = 0;
    while (p + n < end && name_char(p[n]))
        n++;
    if (n == 0 || !isalnum((unsigned char)p[0]))
        return false;
    out->name = cu_pep503_name(p, n);
    const char *q = p + n;
    while (q < end && *q == ' ')
        q++;
    struct cu_buf ex;
    cu_buf_init(&ex);
    if (q < end && *q == '[') {
        const char *close = memchr(q, ']', (size_t)(end - q));
        if (!close) {
            cu_buf_fini(&ex);
            cu_pipreq_fini(out);
            return false;
        }
        for (const char *s = q + 1; s < close;) {
            while (s < close && (*s == ' ' || *s == ','))
                s++;
            size_t k = 0;
            while (s + k < close && name_char(s[k]))
                k++;
            if (k == 0)
                break;
            CU_AUTOFREE char *e = cu_pep503_name(s, k);
            cu_buf_printf(&ex, "%s%s", ex.len ? "," : "", e);
            s += k;
        }
        q = close + 1;
    }
    out->extras = cu_buf_steal(&ex);
    /* The specifier: "(==1.0)", "==1.0", ">=9.8,<10"; an "@ URL" requirement is not one cudaup reads. */
    struct cu_buf sp;
    cu_buf_init(&sp);
    for (const char *s = q; s < end; s++) {
        if (*s == '@') {
            cu_buf_fini(&sp);
            cu_pipreq_fini(out);
            return false;
        }
        if (*s != ' ' && *s != '\t' && *s != '(' && *s != ')')
            cu_buf_putc(&sp, *s);
    }
    out->spec = cu_buf_steal(&sp);
    if (semi) {
        out->marker = cu_xstrdup(semi + 1);
        cu_str_strip(out->marker);
    } else {
        out->marker = cu_xstrdup("");
    }
    return true;
}

bool
cu_metadata_read(const char *text, struct cu_strv *out, char **requires_python)
{
    bool name = false, version = false;
    *requires_python = NULL;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len && line[len - 1] == '\r')
            len--;
        if (len == 0)
            break; /* the body starts */
        CU_AUTOFREE char *l = cu_xstrndup(line, len);
        char *colon = strchr(l, ':');
        if (colon && l[0] != ' ' && l[0] != '\t') {
            *colon = '\0';
            char *val = cu_str_strip(colon + 1);
            if (strcasecmp(l, "Requires-Dist") == 0)
                cu_strv_push(out, val);
            else if (strcasecmp(l, "Requires-Python") == 0 && !*requires_python)
                *requires_python = cu_xstrdup(val);
            else if (strcasecmp(l, "Name") == 0)
                name = true;
            else if (strcasecmp(l, "Metadata-Version") == 0)
                version = true;
        }
        line = nl ? nl + 1 : NULL;
    }
    return name && version;
}

/* ---- PEP 508 markers -------------------------------------------------------------------- */

struct mk {
    const char *s;
    const char *machine, *extra, *python;
    bool bad;
};

static void
skip_ws(struct mk *m)
{
    while (*m->s == ' ' || *m->s == '\t')
        m->s++;
}

/* A value: a quoted string or a marker variable; *var says which it was. */
static char *
value(struct mk *m, bool *var)
{
    skip_ws(m);
    if (*m->s == '\'' || *m->s == '"') {
        char q = *m->s++;
        const char *e = strchr(m->s, q);
        if (!e) {
            m->bad = true;
            return NULL;
        }
        char *v = cu_xstrndup(m->s, (size_t)(e - m->s));
        m->s = e + 1;
        *var = false;
        return v;
    }
    size_t n = 0;
    while (isalnum((unsigned char)m->s[n]) || m->s[n] == '_' || m->s[n] == '.')
        n++;
    if (n == 0) {
        m->bad = true;
        return NULL;
    }
    char *v = cu_xstrndup(m->s, n);
    m->s += n;
    *var = true;
    return v;
}

static bool
word(struct mk *m, const char *w)
{
    skip_ws(m);
    size_t n = strlen(w);
    if (strncmp(m->s, w, n) == 0 && !isalnum((unsigned char)m->s[n]) && m->s[n] != '_') {
        m->s += n;
        return true;
    }
    return false;
}

enum mk_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_COMPAT, OP_IN, OP_NOT_IN, OP_BAD };

static enum mk_op
op(struct mk *m)
{
    skip_ws(m);
    static const struct {
        const char *t;
        enum mk_op op;
    } ops[] = {{"===", OP_EQ}, {"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE},
               {"~=", OP_COMPAT}, {"<", OP_LT}, {">", OP_GT}};
    for (size_t i = 0; i < CU_N_ELEMENTS(ops); i++)
        if (strncmp(m->s, ops[i].t, strlen(ops[i].t)) == 0) {
            m->s += strlen(ops[i].t);
            return ops[i].op;
        }
    if (word(m, "in"))
        return OP_IN;
    if (word(m, "not")) {
        if (word(m, "in"))
            return OP_NOT_IN;
    }
    m->bad = true;
    return OP_BAD;
}

/* The value of a variable; NULL when unknown for the plan (python_version without @python). */
static const char *
var_value(struct mk *m, const char *name, bool *known)
{
    *known = true;
    if (strcmp(name, "platform_system") == 0)
        return "Linux";
    if (strcmp(name, "sys_platform") == 0)
        return "linux";
    if (strcmp(name, "os_name") == 0)
        return "posix";
    if (strcmp(name, "platform_machine") == 0)
        return m->machine;
    if (strcmp(name, "implementation_name") == 0)
        return "cpython";
    if (strcmp(name, "platform_python_implementation") == 0)
        return "CPython";
    if (strcmp(name, "extra") == 0)
        return m->extra;
    if (strcmp(name, "python_version") == 0 || strcmp(name, "python_full_version") == 0) {
        *known = m->python != NULL;
        return m->python;
    }
    if (strcmp(name, "platform_release") == 0 || strcmp(name, "platform_version") == 0 ||
        strcmp(name, "implementation_version") == 0) {
        *known = false;
        return NULL;
    }
    m->bad = true;
    return NULL;
}

static bool
compare(enum mk_op o, const char *a, const char *b, bool as_extra)
{
    CU_AUTOFREE char *na = as_extra ? cu_pep503_name(a, strlen(a)) : cu_xstrdup(a);
    CU_AUTOFREE char *nb = as_extra ? cu_pep503_name(b, strlen(b)) : cu_xstrdup(b);
    int c;
    if (o == OP_IN)
        return strstr(nb, na) != NULL;
    if (o == OP_NOT_IN)
        return strstr(nb, na) == NULL;
    struct cu_version va, vb;
    if (!as_extra && cu_version_parse(na, &va) && cu_version_parse(nb, &vb)) {
        c = cu_pipver_cmp(&va, &vb);
        if (o == OP_COMPAT) {
            struct cu_pipspec ps;
            CU_AUTOFREE char *spec = cu_xasprintf("~=%s", nb);
            return cu_pipspec_parse(spec, &ps) && cu_pipspec_contains(&ps, &va);
        }
    } else {
        c = strcmp(na, nb);
        if (o != OP_EQ && o != OP_NE)
            return false;
    }
    switch (o) {
    case OP_EQ: return c == 0;
    case OP_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    case OP_GE: return c >= 0;
    default: return false;
    }
}

static bool expr(struct mk *m);

static bool
atom(struct mk *m)
{
    skip_ws(m);
    if (*m->s == '(') {
        m->s++;
        bool v = expr(m);
        skip_ws(m);
        if (*m->s != ')')
            m->bad = true;
        else
            m->s++;
        return v;
    }
    bool lvar = false, rvar = false;
    CU_AUTOFREE char *l = value(m, &lvar);
    if (m->bad)
        return false;
    enum mk_op o = op(m);
    if (m->bad)
        return false;
    CU_AUTOFREE char *r = value(m, &rvar);
    if (m->bad || lvar == rvar) {
        m->bad = true;
        return false;
    }
    bool known;
    const char *name = lvar ? l : r;
    const char *v = var_value(m, name, &known);
    if (m->bad)
        return false;
    if (!known)
        return true; /* any Python the plan may take: not a reason to leave a requirement out */
    bool extra = strcmp(name, "extra") == 0;
    return lvar ? compare(o, v, r, extra) : compare(o, l, v, extra);
}

static bool
and_expr(struct mk *m)
{
    bool v = atom(m);
    while (!m->bad && word(m, "and")) {
        bool w = atom(m);
        v = v && w;
    }
    return v;
}

static bool
expr(struct mk *m)
{
    bool v = and_expr(m);
    while (!m->bad && word(m, "or")) {
        bool w = and_expr(m);
        v = v || w;
    }
    return v;
}

int
cu_marker_eval(const char *marker, const char *machine, const char *extra, const char *python)
{
    struct mk m = {marker ? marker : "", machine ? machine : "x86_64", extra ? extra : "", python, false};
    skip_ws(&m);
    if (!*m.s)
        return 1;
    bool v = expr(&m);
    skip_ws(&m);
    if (m.bad || *m.s)
        return -1;
    return v ? 1 : 0;
}

/* ---- wheel file names -------------------------------------------------------------------- */

void
cu_wheel_name_fini(struct cu_wheel_name *w)
{
    cu_clear_ptr(&w->name, free);
    cu_clear_ptr(&w->version, free);
    cu_clear_ptr(&w->python, free);
    cu_clear_ptr(&w->abi, free);
    cu_clear_ptr(&w->platform, free);
}

bool
cu_wheel_name_parse(const char *file, struct cu_wheel_name *out)
{
    memset(out, 0, sizeof(*out));
    if (!cu_str_has_suffix(file, ".whl") || strchr(file, '/'))
        return false;
    CU_AUTOFREE char *stem = cu_xstrndup(file, strlen(file) - 4);
    struct cu_strv parts;
    cu_strv_init(&parts);
    for (char *s = stem, *dash; s; s = dash ? dash + 1 : NULL) {
        dash = strchr(s, '-');
        if (dash)
            *dash = '\0';
        cu_strv_push(&parts, s);
    }
    bool ok = (parts.n == 5 || parts.n == 6);
    for (size_t i = 0; ok && i < parts.n; i++)
        ok = *parts.v[i] != '\0';
    if (ok) {
        size_t k = parts.n - 3;
        out->name = cu_pep503_name(parts.v[0], strlen(parts.v[0]));
        out->version = cu_xstrdup(parts.v[1]);
        out->python = cu_xstrdup(parts.v[k]);
        out->abi = cu_xstrdup(parts.v[k + 1]);
        out->platform = cu_xstrdup(parts.v[k + 2]);
    }
    cu_strv_fini(&parts);
    return ok;
}

bool
cu_wheel_for_linux(const struct cu_wheel_name *w, const char *machine)
{
    struct cu_strv tags;
    bool ok = false;
    cu_strv_init(&tags);
    cu_strv_split(&tags, w->platform, ".");
    for (size_t i = 0; i < tags.n && !ok; i++) {
        const char *t = tags.v[i];
        ok = strcmp(t, "any") == 0 ||
             ((cu_str_has_prefix(t, "manylinux") || cu_str_has_prefix(t, "linux_")) &&
              cu_str_has_suffix(t, machine) && t[strlen(t) - strlen(machine) - 1] == '_');
    }
    cu_strv_fini(&tags);
    return ok;
}

bool
cu_wheel_for_python(const struct cu_wheel_name *w, unsigned minor)
{
    struct cu_strv tags;
    bool ok = false, abi3 = strcmp(w->abi, "abi3") == 0;
    cu_strv_init(&tags);
    cu_strv_split(&tags, w->python, ".");
    for (size_t i = 0; i < tags.n && !ok; i++) {
        const char *t = tags.v[i];
        uint64_t m;
        if (strcmp(t, "py3") == 0 || strcmp(t, "py2") == 0)
            ok = t[2] == '3';
        else if (cu_str_has_prefix(t, "cp3") && cu_parse_u64(t + 3, 99, &m))
            ok = abi3 ? m <= minor : m == minor;
    }
    cu_strv_fini(&tags);
    return ok;
}

/* ---- PEP 440 ---------------------------------------------------------------------------- */

bool
cu_pep440_parse(const char *s, struct cu_version *release, char pre[16])
{
    size_t n = strspn(s, "0123456789.");
    pre[0] = '\0';
    if (n == 0 || n >= 48 || s[n - 1] == '.')
        return false;
    char rel[48];
    memcpy(rel, s, n);
    rel[n] = '\0';
    if (!cu_version_parse(rel, release))
        return false;
    const char *t = s + n;
    if (!*t)
        return true;
    size_t k = strncmp(t, "rc", 2) == 0 ? 2 : (t[0] == 'a' || t[0] == 'b') ? 1 : 0;
    uint64_t num;
    if (k == 0 || !t[k] || strlen(t) >= 16 || !cu_parse_u64(t + k, 1000000, &num))
        return false;
    memcpy(pre, t, strlen(t) + 1);
    return true;
}

/* a < b < rc < final */
static int
pre_rank(const char *pre, uint64_t *num)
{
    *num = 0;
    if (!*pre)
        return 3;
    size_t k = pre[0] == 'r' ? 2 : 1;
    if (!cu_parse_u64(pre + k, 1000000, num))
        *num = 0;
    return pre[0] == 'a' ? 0 : pre[0] == 'b' ? 1 : 2;
}

int
cu_pep440_cmp(const char *a, const char *b)
{
    struct cu_version va, vb;
    char pa[16], pb[16];
    bool oka = cu_pep440_parse(a, &va, pa), okb = cu_pep440_parse(b, &vb, pb);
    if (!oka || !okb)
        return oka - okb;
    int c = cu_pipver_cmp(&va, &vb);
    if (c)
        return c;
    uint64_t na, nb;
    int ra = pre_rank(pa, &na), rb = pre_rank(pb, &nb);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    return (na > nb) - (na < nb);
}
