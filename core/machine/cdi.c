/* SPDX-License-Identifier: MIT */
/* The CDI specifications on this machine (core/machine/cdi.h). */
#include "config.h"

#include "core/machine/cdi.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/base/mem.h"

const char *const cu_cdi_dirs[] = {"/etc/cdi", "/var/run/cdi", NULL};

/* The text after "KEY:" (YAML) or "\"KEY\":" (JSON) on a line, unquoted; NULL when the line is not that key's. */
static char *
field(const char *line, const char *key)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t' || *p == '-' || *p == '{' || *p == ',')
        p++;
    size_t n = strlen(key);
    bool q = *p == '"';
    if (q)
        p++;
    if (strncmp(p, key, n) != 0)
        return NULL;
    p += n;
    if (q) {
        if (*p != '"')
            return NULL;
        p++;
    }
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t len = strcspn(p, ",}\r\n");
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
        len--;
    if (len >= 2 && ((p[0] == '"' && p[len - 1] == '"') || (p[0] == '\'' && p[len - 1] == '\''))) {
        p++;
        len -= 2;
    }
    return cu_xstrndup(p, len);
}

/* A driver release after @mark in @line ("libcuda.so." then 575.57.08, "--host-driver-version=" then 575.57.08). */
static bool
version_after(const char *line, const char *mark, struct cu_version *out)
{
    const char *p = strstr(line, mark);
    if (!p)
        return false;
    p += strlen(mark);
    size_t n = strspn(p, "0123456789.");
    while (n && p[n - 1] == '.')
        n--;
    CU_AUTOFREE char *v = cu_xstrndup(p, n);
    return strchr(v, '.') && cu_version_parse(v, out);
}

/* The driver release and WSL mark anywhere in @text. */
static void
scan(const char *text, struct cu_cdi_spec *out)
{
    CU_AUTOFREE char *t = cu_xstrdup(text);
    char *save = NULL;
    for (char *line = strtok_r(t, "\n,", &save); line; line = strtok_r(NULL, "\n,", &save)) {
        if (!out->driver.n)
            version_after(line, "--host-driver-version=", &out->driver);
        if (!out->driver.n)
            version_after(line, "libcuda.so.", &out->driver);
        if (strstr(line, "/dev/dxg"))
            out->wsl = true;
    }
}

static bool
read_json(const char *text, struct cu_cdi_spec *out)
{
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    const json_t *devs = doc ? json_object_get(doc, "devices") : NULL;
    if (!json_is_object(doc) || !json_is_string(json_object_get(doc, "cdiVersion"))) {
        json_decref(doc);
        cu_cdi_spec_fini(out);
        return false;
    }
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    out->kind = kind ? cu_xstrdup(kind) : NULL;
    for (size_t i = 0; json_is_array(devs) && i < json_array_size(devs); i++) {
        const char *name = json_string_value(json_object_get(json_array_get(devs, i), "name"));
        if (name && *name && !cu_strv_contains(&out->devices, name))
            cu_strv_push(&out->devices, name);
    }
    json_decref(doc);
    scan(text, out);
    return true;
}

bool
cu_cdi_read(const char *path, const char *text, struct cu_cdi_spec *out)
{
    memset(out, 0, sizeof(*out));
    out->path = cu_xstrdup(path);
    cu_strv_init(&out->devices);
    bool cdi = false, in_devices = false;
    CU_AUTOFREE char *t = cu_xstrdup(text ? text : "");
    const char *first = t + strspn(t, " \t\r\n");
    if (*first == '{') /* nvidia-ctk --format=json */
        return read_json(t, out);
    char *save = NULL;
    for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *v;
        if ((v = field(line, "cdiVersion"))) {
            cdi = true;
            free(v);
        }
        if ((v = field(line, "kind")) && !out->kind) {
            out->kind = v;
            v = NULL;
        }
        free(v);
        /* "devices:" at the top (not containerEdits' deviceNodes) opens the list of named devices */
        if (strncmp(line, "devices:", 8) == 0) {
            in_devices = true;
        } else if (line[0] != ' ' && line[0] != '-' && line[0] != '\t' && strchr(line, ':')) {
            in_devices = false; /* the next top-level YAML key */
        }
        if (in_devices && (v = field(line, "name"))) {
            if (*v && !cu_strv_contains(&out->devices, v))
                cu_strv_push(&out->devices, v);
            free(v);
        }
    }
    scan(text, out);
    if (!cdi) {
        cu_cdi_spec_fini(out);
        return false;
    }
    return true;
}

void
cu_cdi_spec_fini(struct cu_cdi_spec *s)
{
    free(s->path);
    free(s->kind);
    cu_strv_fini(&s->devices);
    memset(s, 0, sizeof(*s));
}

void
cu_cdi_probe(const struct cu_sysroot *root, struct cu_cdi *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t d = 0; cu_cdi_dirs[d]; d++) {
        DIR *dir = cu_sysroot_opendir(root, cu_cdi_dirs[d]);
        struct cu_strv names;
        cu_strv_init(&names);
        struct dirent *de;
        while (dir && (de = readdir(dir)))
            if (cu_str_has_suffix(de->d_name, ".yaml") || cu_str_has_suffix(de->d_name, ".yml") ||
                cu_str_has_suffix(de->d_name, ".json"))
                cu_strv_push(&names, de->d_name);
        if (dir)
            closedir(dir);
        cu_strv_sort(&names);
        for (size_t i = 0; i < names.n; i++) {
            CU_AUTOFREE char *p = cu_path_join(cu_cdi_dirs[d], names.v[i]);
            char *text = NULL;
            struct cu_error err;
            struct cu_cdi_spec s;
            if (cu_sysroot_read(root, p, 8u << 20, &text, NULL, &err) != CU_OK)
                continue;
            if (cu_cdi_read(p, text, &s)) {
                if (s.kind && strcmp(s.kind, "nvidia.com/gpu") == 0) {
                    out->v = cu_xreallocarray(out->v, out->n + 1, sizeof(*out->v));
                    out->v[out->n++] = s;
                } else {
                    out->others++;
                    cu_cdi_spec_fini(&s);
                }
            }
            free(text);
        }
        cu_strv_fini(&names);
    }
}

void
cu_cdi_fini(struct cu_cdi *c)
{
    for (size_t i = 0; i < c->n; i++)
        cu_cdi_spec_fini(&c->v[i]);
    free(c->v);
    memset(c, 0, sizeof(*c));
}
