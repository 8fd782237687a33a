/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/parse.h"

#include <stdio.h>
#include <string.h>

bool
cu_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;

    if (!s || !*s)
        return false;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

bool
cu_version_parse(const char *s, struct cu_version *out)
{
    struct cu_version v = {{0}, 0};
    const char *p = s;

    memset(out, 0, sizeof(*out));
    if (!s || !*s)
        return false;
    for (;;) {
        if (v.n == CU_VERSION_MAX_PARTS)
            return false;
        int digits = 0;
        uint32_t part = 0;
        while (*p >= '0' && *p <= '9') {
            if (++digits > 9)
                return false;
            part = part * 10 + (uint32_t)(*p - '0');
            p++;
        }
        if (digits == 0)
            return false;
        v.part[v.n++] = part;
        if (*p == '\0')
            break;
        if (*p != '.')
            return false;
        p++;
    }
    *out = v;
    return true;
}

int
cu_version_cmp(const struct cu_version *a, const struct cu_version *b)
{
    int n = a->n < b->n ? a->n : b->n;
    for (int i = 0; i < n; i++) {
        if (a->part[i] != b->part[i])
            return a->part[i] < b->part[i] ? -1 : 1;
    }
    return (a->n > b->n) - (a->n < b->n);
}

int
cu_version_strcmp(const char *a, const char *b)
{
    struct cu_version va, vb;
    bool oka = cu_version_parse(a, &va), okb = cu_version_parse(b, &vb);
    if (!oka || !okb)
        return oka - okb;
    return cu_version_cmp(&va, &vb);
}

bool
cu_version_matches(const struct cu_version *v, const struct cu_version *prefix)
{
    if (prefix->n == 0 || prefix->n > v->n)
        return false;
    for (int i = 0; i < prefix->n; i++)
        if (v->part[i] != prefix->part[i])
            return false;
    return true;
}

char *
cu_version_format(const struct cu_version *v, int nparts, char *buf, size_t len)
{
    int n = nparts > 0 && nparts < v->n ? nparts : v->n;
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && off < len; i++) {
        int w = snprintf(buf + off, len - off, i ? ".%u" : "%u", v->part[i]);
        if (w < 0)
            break;
        off += (size_t)w;
    }
    return buf;
}

char *
cu_driver_version_format(const struct cu_version *v, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < v->n && off < len; i++) {
        int w = snprintf(buf + off, len - off, i ? ".%02u" : "%u", v->part[i]);
        if (w < 0)
            break;
        off += (size_t)w;
    }
    return buf;
}

int
cu_version_to_cuda_int(const struct cu_version *v)
{
    if (v->n < 1)
        return 0;
    return (int)(v->part[0] * 1000 + (v->n > 1 ? v->part[1] * 10 : 0));
}

void
cu_version_from_cuda_int(int n, struct cu_version *out)
{
    memset(out, 0, sizeof(*out));
    if (n <= 0)
        return;
    out->part[0] = (uint32_t)(n / 1000);
    out->part[1] = (uint32_t)((n % 1000) / 10);
    out->n = 2;
}
