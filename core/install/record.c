/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/install/record.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/hash.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"

struct cu_record *
cu_record_new(void)
{
    return cu_xcalloc(1, sizeof(struct cu_record));
}

void
cu_record_free(struct cu_record *r)
{
    if (!r)
        return;
    free(r->cuda_version);
    free(r->python_version);
    free(r->platform);
    free(r->cudnn_version);
    free(r->cudnn_full);
    free(r->cudnn_variant);
    free(r->mirror);
    free(r->created);
    for (size_t i = 0; i < r->n_components; i++) {
        free(r->components[i].name);
        free(r->components[i].version);
        free(r->components[i].title);
        free(r->components[i].url);
        free(r->components[i].runfile_layout);
        free(r->components[i].archive_layout);
    }
    free(r->components);
    for (size_t i = 0; i < r->n_files; i++) {
        free(r->files[i].path);
        free(r->files[i].target);
        free(r->files[i].component);
    }
    free(r->files);
    free(r);
}

enum cu_status
cu_record_save(const struct cu_record *r, const char *dir, struct cu_error *err)
{
    json_t *doc = json_object(), *comps = json_array(), *files = json_array();
    char mode[8];
    json_object_set_new(doc, "schema", json_integer(1));
    json_object_set_new(doc, "tool", json_string("cudaup " PACKAGE_VERSION));
    json_object_set_new(doc, "created", cu_json_str_or_null(r->created));
    if (r->python_version) {
        json_t *py = json_object();
        json_object_set_new(py, "version", json_string(r->python_version));
        json_object_set_new(py, "platform", cu_json_str_or_null(r->platform));
        json_object_set_new(doc, "python", py);
    } else {
        json_t *cuda = json_object();
        json_object_set_new(cuda, "version", json_string(r->cuda_version));
        json_object_set_new(cuda, "platform", cu_json_str_or_null(r->platform));
        json_object_set_new(doc, "cuda", cuda);
    }
    if (r->cudnn_version) {
        json_t *c = json_object();
        json_object_set_new(c, "version", json_string(r->cudnn_version));
        json_object_set_new(c, "full_version", cu_json_str_or_null(r->cudnn_full));
        json_object_set_new(c, "cuda_variant", cu_json_str_or_null(r->cudnn_variant));
        json_object_set_new(doc, "cudnn", c);
    } else {
        json_object_set_new(doc, "cudnn", json_null());
    }
    json_object_set_new(doc, "mirror", cu_json_str_or_null(r->mirror));
    for (size_t i = 0; i < r->n_components; i++) {
        const struct cu_record_component *c = &r->components[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(c->name));
        json_object_set_new(o, "product", json_string(cu_product_name(c->product)));
        json_object_set_new(o, "version", cu_json_str_or_null(c->version));
        json_object_set_new(o, "title", cu_json_str_or_null(c->title));
        json_object_set_new(o, "sha256", json_string(c->sha256));
        json_object_set_new(o, "size", json_integer((json_int_t)c->size));
        json_object_set_new(o, "url", cu_json_str_or_null(c->url));
        if (c->runfile_layout)
            json_object_set_new(o, "runfile_layout", json_string(c->runfile_layout));
        if (c->archive_layout)
            json_object_set_new(o, "archive_layout", json_string(c->archive_layout));
        if (c->size_unknown)
            json_object_set_new(o, "size_unknown", json_true());
        if (c->from_base)
            json_object_set_new(o, "from_base", json_true());
        json_array_append_new(comps, o);
    }
    json_object_set_new(doc, "components", comps);
    for (size_t i = 0; i < r->n_files; i++) {
        const struct cu_record_file *f = &r->files[i];
        json_t *o = json_object();
        char t[2] = {f->type, 0};
        snprintf(mode, sizeof(mode), "%04o", (unsigned)f->mode & 07777);
        json_object_set_new(o, "path", json_string(f->path));
        json_object_set_new(o, "type", json_string(t));
        json_object_set_new(o, "mode", json_string(mode));
        json_object_set_new(o, "size", json_integer((json_int_t)f->size));
        if (f->sha256[0])
            json_object_set_new(o, "sha256", json_string(f->sha256));
        if (f->target)
            json_object_set_new(o, "target", json_string(f->target));
        json_object_set_new(o, "component", cu_json_str_or_null(f->component));
        json_array_append_new(files, o);
    }
    json_object_set_new(doc, "files", files);
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    CU_AUTOFREE char *meta = cu_path_join(dir, ".cudaup");
    CU_AUTOFREE char *path = cu_path_join(meta, "record.json");
    enum cu_status st = cu_mkdir_p(meta, 0755, err);
    if (st == CU_OK) {
        size_t len = strlen(text);
        text[len] = '\0';
        st = cu_write_file_atomic(path, text, len, 0644, err);
    }
    free(text);
    return st;
}

static bool
parse_mode(const char *s, mode_t *out)
{
    if (!s || !*s || strlen(s) > 6)
        return false;
    unsigned v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '7')
            return false;
        v = v * 8 + (unsigned)(*p - '0');
    }
    *out = (mode_t)v;
    return true;
}

static enum cu_status
record_load(const char *dir, bool python_record, struct cu_record **out, struct cu_error *err)
{
    CU_AUTOFREE char *path = cu_path_join(dir, ".cudaup/record.json");
    char *text = NULL;
    size_t len = 0;
    json_t *doc = NULL;
    enum cu_status st;
    *out = NULL;
    if ((st = cu_read_file(path, 256u << 20, &text, &len, err)) != CU_OK)
        return st;
    CU_AUTOFREE char *what = cu_xasprintf(_("the install record %s"), path);
    st = cu_json_parse_object(text, len, what, &doc, err);
    free(text);
    if (st != CU_OK)
        return st;
    struct cu_record *r = cu_record_new();
    json_t *cuda = json_object_get(doc, "cuda"), *cudnn = json_object_get(doc, "cudnn");
    json_t *comps = json_object_get(doc, "components"), *files = json_object_get(doc, "files");
    json_t *python = json_object_get(doc, "python");
    if (json_integer_value(json_object_get(doc, "schema")) != 1 ||
        !cu_json_str(python_record ? python : cuda, "version") || !json_is_array(comps) ||
        !json_is_array(files)) {
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s is not a cudaup record"), what);
        goto fail;
    }
    r->cuda_version = cu_xstrdup(cu_json_str(cuda, "version"));
    r->python_version = cu_xstrdup(cu_json_str(python, "version"));
    r->platform = cu_xstrdup(cu_json_str(cuda ? cuda : python, "platform"));
    if (json_is_object(cudnn)) {
        r->cudnn_version = cu_xstrdup(cu_json_str(cudnn, "version"));
        r->cudnn_full = cu_xstrdup(cu_json_str(cudnn, "full_version"));
        r->cudnn_variant = cu_xstrdup(cu_json_str(cudnn, "cuda_variant"));
    }
    r->mirror = cu_xstrdup(cu_json_str(doc, "mirror"));
    r->created = cu_xstrdup(cu_json_str(doc, "created"));
    r->components = cu_xcalloc(json_array_size(comps) + 1, sizeof(*r->components));
    for (size_t i = 0; i < json_array_size(comps); i++) {
        json_t *o = json_array_get(comps, i);
        struct cu_record_component *c = &r->components[r->n_components];
        const char *sha = cu_json_str(o, "sha256");
        const char *prod = cu_json_str(o, "product");
        if (!cu_json_str(o, "name") || !cu_sha256_hex_ok(sha) || !prod) {
            st = cu_error_set(err, CU_E_INPUT, 0, _("%s: component %zu is malformed"), what, i);
            goto fail;
        }
        c->name = cu_xstrdup(cu_json_str(o, "name"));
        c->product = strcmp(prod, "cudnn") == 0 ? CU_PRODUCT_CUDNN : strcmp(prod, "python") == 0 ? CU_PRODUCT_PYTHON : CU_PRODUCT_CUDA;
        c->version = cu_xstrdup(cu_json_str(o, "version"));
        c->title = cu_xstrdup(cu_json_str(o, "title"));
        memcpy(c->sha256, sha, 65);
        c->size = (uint64_t)json_integer_value(json_object_get(o, "size"));
        c->url = cu_xstrdup(cu_json_str(o, "url"));
        c->runfile_layout = cu_xstrdup(cu_json_str(o, "runfile_layout"));
        c->archive_layout = cu_xstrdup(cu_json_str(o, "archive_layout"));
        c->size_unknown = json_is_true(json_object_get(o, "size_unknown"));
        c->from_base = json_is_true(json_object_get(o, "from_base"));
        r->n_components++;
    }
    r->files = cu_xcalloc(json_array_size(files) + 1, sizeof(*r->files));
    for (size_t i = 0; i < json_array_size(files); i++) {
        json_t *o = json_array_get(files, i);
        struct cu_record_file *f = &r->files[r->n_files];
        const char *p = cu_json_str(o, "path"), *t = cu_json_str(o, "type");
        const char *sha = cu_json_str(o, "sha256");
        if (!p || !cu_relpath_ok(p) || !t || strlen(t) != 1 || !strchr("fld", t[0]) ||
            !parse_mode(cu_json_str(o, "mode"), &f->mode) || (t[0] == 'f' && !cu_sha256_hex_ok(sha)) ||
            (t[0] == 'l' && !cu_json_str(o, "target"))) {
            st = cu_error_set(err, CU_E_INPUT, 0, _("%s: file %zu is malformed"), what, i);
            goto fail;
        }
        f->path = cu_xstrdup(p);
        f->type = t[0];
        f->size = (uint64_t)json_integer_value(json_object_get(o, "size"));
        if (sha)
            memcpy(f->sha256, sha, 65);
        f->target = cu_xstrdup(cu_json_str(o, "target"));
        f->component = cu_xstrdup(cu_json_str(o, "component"));
        r->n_files++;
    }
    json_decref(doc);
    *out = r;
    return CU_OK;
fail:
    json_decref(doc);
    cu_record_free(r);
    return st;
}

enum cu_status
cu_record_load(const char *dir, struct cu_record **out, struct cu_error *err)
{
    return record_load(dir, false, out, err);
}

enum cu_status
cu_record_load_python(const char *dir, struct cu_record **out, struct cu_error *err)
{
    return record_load(dir, true, out, err);
}

const struct cu_record_component *
cu_record_component(const struct cu_record *r, const char *name)
{
    for (size_t i = 0; r && i < r->n_components; i++)
        if (strcmp(r->components[i].name, name) == 0)
            return &r->components[i];
    return NULL;
}

enum cu_file_state
cu_record_check_file(const char *dir, const struct cu_record_file *f, bool deep)
{
    /* Never through a link: a folder of the install turned into a link is damage, not a way elsewhere. */
    const char *base;
    CU_AUTOCLOSE int pfd = cu_open_parent_beneath(dir, f->path, &base);
    if (pfd < 0)
        return pfd == -ENOENT ? CU_FILE_MISSING : CU_FILE_ALTERED;
    struct stat st;
    if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return CU_FILE_MISSING;
    switch (f->type) {
    case 'd':
        return S_ISDIR(st.st_mode) ? CU_FILE_OK : CU_FILE_ALTERED;
    case 'l': {
        char buf[4096];
        if (!S_ISLNK(st.st_mode))
            return CU_FILE_ALTERED;
        ssize_t n = readlinkat(pfd, base, buf, sizeof(buf) - 1);
        if (n < 0)
            return CU_FILE_ALTERED;
        buf[n] = '\0';
        return strcmp(buf, f->target) == 0 ? CU_FILE_OK : CU_FILE_ALTERED;
    }
    default:
        if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != f->size)
            return CU_FILE_ALTERED;
        if (deep) {
            char h[65];
            struct cu_error e;
            CU_AUTOCLOSE int fd = openat(pfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            char via[64];
            snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
            if (fd < 0 || cu_sha256_file(via, h, NULL, &e) != CU_OK || strcmp(h, f->sha256) != 0)
                return CU_FILE_ALTERED;
        }
        return (st.st_mode & 07777) == f->mode ? CU_FILE_OK : CU_FILE_MODE;
    }
}

char **
cu_record_damaged(const struct cu_record *r, const char *dir, bool deep, size_t *n_bad)
{
    struct cu_strv bad;
    cu_strv_init(&bad);
    *n_bad = 0;
    for (size_t i = 0; i < r->n_files; i++) {
        enum cu_file_state s = cu_record_check_file(dir, &r->files[i], deep);
        if (s == CU_FILE_OK)
            continue;
        (*n_bad)++;
        const char *c = r->files[i].component ? r->files[i].component : "cudaup";
        if (!cu_strv_contains(&bad, c))
            cu_strv_push(&bad, c);
    }
    return cu_steal_ptr(&bad.v);
}

bool
cu_record_component_intact(const struct cu_record *r, const char *dir, const char *component)
{
    for (size_t i = 0; i < r->n_files; i++)
        if (r->files[i].component && strcmp(r->files[i].component, component) == 0 &&
            cu_record_check_file(dir, &r->files[i], false) != CU_FILE_OK)
            return false;
    return true;
}

size_t
cu_record_installed(const char *dir, const char *const *components, const char *const *sha256, size_t n,
                    bool *installed)
{
    struct cu_record *r = NULL;
    struct cu_error e;
    size_t have = 0;
    memset(installed, 0, n * sizeof(*installed));
    if (!dir || cu_record_load(dir, &r, &e) != CU_OK)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const struct cu_record_component *c = cu_record_component(r, components[i]);
        installed[i] = c && strcmp(c->sha256, sha256[i]) == 0 && cu_record_component_intact(r, dir, components[i]);
        have += installed[i];
    }
    cu_record_free(r);
    return have;
}
