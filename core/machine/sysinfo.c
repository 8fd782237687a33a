/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "sysinfo"
#include "core/machine/sysinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "core/machine/driver_state.h"
#include "core/machine/gpulib.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/fsutil.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"

#define PCI_DEVICES "/sys/bus/pci/devices"
#define NVIDIA_VENDOR "0x10de"

const char *
cu_driver_kind_name(enum cu_driver_kind kind)
{
    switch (kind) {
    case CU_DRIVER_NVIDIA: return "nvidia";
    case CU_DRIVER_NOUVEAU: return "nouveau";
    case CU_DRIVER_WSL: return "wsl";
    case CU_DRIVER_NONE:
    default: return "none";
    }
}

static int
cmp_dirent_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in a folder inside the root, without "." and "..". */
static void
list_dir(const struct cu_sysroot *root, const char *path, struct cu_strv *out)
{
    DIR *d = cu_sysroot_opendir(root, path);
    struct dirent *de;
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        cu_strv_push(out, de->d_name);
    }
    closedir(d);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(char *), cmp_dirent_name);
}

static char *
basename_dup(const char *p)
{
    const char *s = strrchr(p, '/');
    return cu_xstrdup(s ? s + 1 : p);
}

/* ---- GPUs from sysfs ------------------------------------------------------ */

static bool
is_display_class(const char *cls)
{
    /* 0x0300xx VGA, 0x0302xx 3D controller (data-centre parts), 0x0380xx other display */
    return cls && (cu_str_has_prefix(cls, "0x0300") || cu_str_has_prefix(cls, "0x0302") ||
                   cu_str_has_prefix(cls, "0x0380"));
}

static void
probe_pci(const struct cu_probe_opts *o, struct cu_facts *f)
{
    struct cu_strv names;
    cu_strv_init(&names);
    list_dir(o->root, PCI_DEVICES, &names);
    f->gpus = cu_xcalloc(names.n + 1, sizeof(*f->gpus));
    for (size_t i = 0; i < names.n; i++) {
        CU_AUTOFREE char *dir = cu_path_join(PCI_DEVICES, names.v[i]);
        CU_AUTOFREE char *vp = cu_path_join(dir, "vendor");
        CU_AUTOFREE char *dp = cu_path_join(dir, "device");
        CU_AUTOFREE char *cp = cu_path_join(dir, "class");
        CU_AUTOFREE char *lp = cu_path_join(dir, "driver");
        CU_AUTOFREE char *vendor = cu_sysroot_read_line(o->root, vp);
        CU_AUTOFREE char *device = cu_sysroot_read_line(o->root, dp);
        CU_AUTOFREE char *cls = cu_sysroot_read_line(o->root, cp);
        if (!vendor || strcasecmp(vendor, NVIDIA_VENDOR) != 0 || !is_display_class(cls))
            continue;
        uint64_t dev = 0;
        const char *hex = device && cu_str_has_prefix(device, "0x") ? device + 2 : device;
        char *end = NULL;
        if (hex)
            dev = strtoull(hex, &end, 16);
        if (!hex || !*hex || *end || dev > 0xffff) {
            cu_log_warn("Ignoring PCI device %s: unreadable device id", names.v[i]);
            continue;
        }
        struct cu_gpu_info *g = &f->gpus[f->n_gpus];
        g->index = (int)f->n_gpus;
        snprintf(g->pci_id, sizeof(g->pci_id), "10de:%04x", (unsigned)dev);
        snprintf(g->bus, sizeof(g->bus), "%s", names.v[i]);
        for (char *p = g->bus; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        const struct cu_cat_gpu *cg = cu_catalog_gpu(o->catalog, (uint16_t)dev);
        g->name = cu_xstrdup(cg ? cg->name : NULL);
        if (!g->name)
            g->name = cu_xasprintf("NVIDIA GPU %04x", (unsigned)dev);
        if (cg)
            g->cc = cg->cc;
        CU_AUTOFREE char *link = cu_sysroot_readlink(o->root, lp);
        g->kernel_driver = link ? basename_dup(link) : NULL;
        g->source = cu_xstrdup("pci");
        f->n_gpus++;
    }
    cu_strv_fini(&names);
}

/* ---- driver --------------------------------------------------------------- */

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 ..." */
static bool
parse_nvrm_version(const char *text, struct cu_version *out)
{
    const char *p = strstr(text, "Kernel Module");
    if (!p)
        p = strstr(text, "NVRM version:");
    if (!p)
        return false;
    p = strpbrk(p, "0123456789");
    while (p) {
        size_t n = strspn(p, "0123456789.");
        CU_AUTOFREE char *tok = cu_xstrndup(p, n);
        if (strchr(tok, '.') && cu_version_parse(tok, out))
            return true;
        p = strpbrk(p + n, "0123456789");
    }
    return false;
}

static void
probe_driver_files(const struct cu_probe_opts *o, struct cu_facts *f)
{
    struct cu_driver_info *d = &f->driver;
    char *text = NULL;
    struct cu_error err;

    d->libcuda_result = -1;
    if (cu_sysroot_read(o->root, "/proc/driver/nvidia/version", 64 * 1024, &text, NULL, &err) ==
        CU_OK) {
        d->kernel_module = true;
        if (!parse_nvrm_version(text, &d->version))
            cu_log_warn("Cannot read the driver version in /proc/driver/nvidia/version");
        free(text);
    }
    if (!d->version.n) {
        CU_AUTOFREE char *v = cu_sysroot_read_line(o->root, "/sys/module/nvidia/version");
        if (v && cu_version_parse(v, &d->version))
            d->kernel_module = true;
    }
    if (cu_sysroot_exists(o->root, "/sys/module/nvidia"))
        d->kernel_module = true;
    if (cu_sysroot_exists(o->root, "/sys/module/nouveau"))
        d->nouveau_loaded = true;
    for (size_t i = 0; i < f->n_gpus; i++)
        if (f->gpus[i].kernel_driver && strcmp(f->gpus[i].kernel_driver, "nouveau") == 0)
            d->nouveau_loaded = true;
}

static struct cu_gpu_info *
gpu_by_bus(struct cu_facts *f, const char *bus)
{
    for (size_t i = 0; bus[0] && i < f->n_gpus; i++)
        if (strcmp(f->gpus[i].bus, bus) == 0)
            return &f->gpus[i];
    return NULL;
}

/* Merge what a driver library reports into the sysfs list (or build it, on WSL). */
static void
merge_lib_gpus(const struct cu_probe_opts *o, struct cu_facts *f, const struct cu_lib_info *li,
               const char *src)
{
    for (size_t i = 0; i < li->n_gpus; i++) {
        const struct cu_lib_gpu *lg = &li->gpus[i];
        struct cu_gpu_info *g = gpu_by_bus(f, lg->bus);
        if (!g && !lg->bus[0] && i < f->n_gpus)
            g = &f->gpus[i]; /* no bus id reported: same order as sysfs */
        if (!g) {
            f->gpus = cu_xreallocarray(f->gpus, f->n_gpus + 2, sizeof(*f->gpus));
            g = &f->gpus[f->n_gpus];
            memset(g, 0, sizeof(*g) * 2);
            g->index = (int)f->n_gpus;
            snprintf(g->bus, sizeof(g->bus), "%s", lg->bus);
            if (lg->device_id)
                snprintf(g->pci_id, sizeof(g->pci_id), "10de:%04x", lg->device_id);
            g->source = cu_xstrdup(src);
            f->n_gpus++;
        } else if (!strstr(g->source, src)) {
            char *s = cu_xasprintf("%s+%s", g->source, src);
            free(g->source);
            g->source = s;
        }
        if (lg->name[0]) {
            /* The driver's name is the marketing name; prefer it to pci.ids. */
            const char *n = lg->name;
            if (strncmp(n, "NVIDIA ", 7) == 0)
                n += 7;
            free(g->name);
            g->name = cu_xstrdup(n);
        }
        if (lg->cc.n)
            g->cc = lg->cc;
        if (lg->memory_mib)
            g->memory_mib = lg->memory_mib;
        if (!g->cc.n) {
            const struct cu_cat_product *p = cu_catalog_product(o->catalog, lg->name);
            if (p)
                g->cc = p->cc;
        }
    }
}

static void
probe_libs(const struct cu_probe_opts *o, struct cu_facts *f)
{
    struct cu_driver_info *d = &f->driver;
    struct cu_lib_info li;
    struct cu_error err;
    char **cand;

    cand = cu_gpulib_candidates(o->root, "libnvidia-ml.so.1", o->nvml_override);
    enum cu_status st = cu_nvml_query((const char *const *)cand, &li, &err);
    cu_strv_free(cand);
    if (st == CU_OK) {
        d->nvml_path = cu_steal_ptr(&li.lib_path);
        d->lib_version = li.driver;
        if (li.cuda_driver_version > 0) {
            cu_version_from_cuda_int(li.cuda_driver_version, &d->cuda_max);
            d->cuda_max_source = "nvml";
        }
        merge_lib_gpus(o, f, &li, "nvml");
    } else if (st == CU_E_DRIVER) {
        d->nvml_path = cu_steal_ptr(&li.lib_path);
        d->nvml_error = li.init_error ? cu_steal_ptr(&li.init_error) : cu_xstrdup(err.msg);
        cu_log_error_of(CU_LOG_INFO, &err);
    }
    cu_lib_info_fini(&li);

    cand = cu_gpulib_candidates(o->root, "libcuda.so.1", o->libcuda_override);
    st = cu_libcuda_query((const char *const *)cand, &li, &err);
    cu_strv_free(cand);
    if (li.lib_path) {
        d->libcuda_path = cu_steal_ptr(&li.lib_path);
        d->libcuda_result = li.init_result;
        if (li.cuda_driver_version > 0) {
            /* The driver API knows best what it runs. */
            cu_version_from_cuda_int(li.cuda_driver_version, &d->cuda_max);
            d->cuda_max_source = "libcuda";
        }
    }
    if (st == CU_OK && f->n_gpus == 0)
        merge_lib_gpus(o, f, &li, "libcuda");
    else if (st == CU_E_DRIVER)
        d->libcuda_error = li.init_error ? cu_steal_ptr(&li.init_error) : cu_xstrdup(err.msg);
    cu_lib_info_fini(&li);
}

static void
finish_driver(const struct cu_probe_opts *o, struct cu_facts *f)
{
    struct cu_driver_info *d = &f->driver;

    if (f->os.wsl && (d->nvml_path || d->libcuda_path ||
                      cu_sysroot_exists(o->root, "/usr/lib/wsl/lib/libcuda.so.1"))) {
        d->kind = CU_DRIVER_WSL;
        if (!d->version.n)
            d->version = d->lib_version;
    } else if (d->kernel_module || (f->container.inside && ((d->nvml_path && !d->nvml_error) || d->libcuda_result == 0))) {
        /* In a container the module is the host's, and /proc/driver/nvidia may be hidden: libraries that start
         * prove it runs. */
        d->kind = CU_DRIVER_NVIDIA;
        if (!d->version.n)
            d->version = d->lib_version;
    } else if (d->nouveau_loaded) {
        d->kind = CU_DRIVER_NOUVEAU;
    } else {
        d->kind = CU_DRIVER_NONE;
    }
    if (!d->cuda_max.n && d->version.n && d->kind != CU_DRIVER_NOUVEAU &&
        cu_catalog_cuda_max_for_driver(o->catalog, &d->version, &d->cuda_max))
        d->cuda_max_source = "table";
    for (size_t i = 0; i < f->n_gpus; i++)
        f->gpus[i].arch = cu_catalog_arch_name(o->catalog, &f->gpus[i].cc);
}

/* ---- OS ------------------------------------------------------------------- */

static char *
os_release_value(const char *text, const char *key)
{
    size_t n = strlen(key);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len > n && strncmp(line, key, n) == 0 && line[n] == '=') {
            const char *v = line + n + 1;
            size_t vl = len - n - 1;
            if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
                v++;
                vl -= 2;
            }
            return cu_xstrndup(v, vl);
        }
        line = nl ? nl + 1 : NULL;
    }
    return NULL;
}

static void
probe_os(const struct cu_probe_opts *o, struct cu_facts *f)
{
    char *text = NULL;
    struct cu_error err;

    if (cu_sysroot_read(o->root, "/etc/os-release", 64 * 1024, &text, NULL, &err) == CU_OK ||
        cu_sysroot_read(o->root, "/usr/lib/os-release", 64 * 1024, &text, NULL, &err) == CU_OK) {
        f->os.id = os_release_value(text, "ID");
        f->os.version_id = os_release_value(text, "VERSION_ID");
        f->os.pretty_name = os_release_value(text, "PRETTY_NAME");
        free(text);
    }
    CU_AUTOFREE char *ver = cu_sysroot_read_line(o->root, "/proc/version");
    if (ver && (strcasestr(ver, "microsoft") || strstr(ver, "WSL")))
        f->os.wsl = true;
    if (cu_sysroot_exists(o->root, "/dev/dxg") && cu_sysroot_exists(o->root, "/usr/lib/wsl"))
        f->os.wsl = true;
    CU_AUTOFREE char *arch = cu_sysroot_read_line(o->root, "/proc/sys/kernel/arch");
    if (arch && *arch) {
        snprintf(f->os.machine, sizeof(f->os.machine), "%s", arch);
    } else if (cu_sysroot_is_host(o->root)) {
        struct utsname u;
        if (uname(&u) == 0)
            snprintf(f->os.machine, sizeof(f->os.machine), "%.31s", u.machine);
    }
    if (!f->os.machine[0])
        snprintf(f->os.machine, sizeof(f->os.machine), "%s", CU_HOST_MACHINE);
}

const char *
cu_facts_platform(const struct cu_facts *facts)
{
    if (strcmp(facts->os.machine, "x86_64") == 0)
        return "linux-x86_64";
    if (strcmp(facts->os.machine, "aarch64") == 0 || strcmp(facts->os.machine, "arm64") == 0)
        return facts->os.id && strstr(facts->os.id, "l4t") ? "linux-aarch64" : "linux-sbsa";
    return NULL;
}

/* ---- CUDA installs --------------------------------------------------------- */

static bool
header_define(const struct cu_sysroot *root, const char *path, const char *name, uint64_t *out)
{
    char *text = NULL;
    struct cu_error err;
    bool ok = false;
    size_t n = strlen(name);

    if (cu_sysroot_read(root, path, 4 << 20, &text, NULL, &err) != CU_OK)
        return false;
    for (char *p = text; (p = strstr(p, "#define")) != NULL; p += 7) {
        char *q = p + 7;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, name, n) != 0 || (q[n] != ' ' && q[n] != '\t'))
            continue;
        q += n;
        while (*q == ' ' || *q == '\t')
            q++;
        size_t digits = strspn(q, "0123456789");
        CU_AUTOFREE char *num = cu_xstrndup(q, digits);
        ok = cu_parse_u64(num, 100000000, out);
        break;
    }
    free(text);
    return ok;
}

static bool
read_cudnn_version(const struct cu_sysroot *root, const char *inc, struct cu_version *out)
{
    static const char *const headers[] = {"cudnn_version.h", "cudnn.h"};
    for (size_t i = 0; i < CU_N_ELEMENTS(headers); i++) {
        CU_AUTOFREE char *h = cu_path_join(inc, headers[i]);
        uint64_t maj, min, pat;
        if (header_define(root, h, "CUDNN_MAJOR", &maj) && header_define(root, h, "CUDNN_MINOR", &min) &&
            header_define(root, h, "CUDNN_PATCHLEVEL", &pat)) {
            *out = (struct cu_version){{(uint32_t)maj, (uint32_t)min, (uint32_t)pat}, 3};
            return true;
        }
    }
    return false;
}

static bool
version_from_json(const struct cu_sysroot *root, const char *path, struct cu_version *out)
{
    char *text = NULL;
    size_t len = 0;
    struct cu_error err;
    json_t *j = NULL;
    bool ok = false;

    CU_AUTOFREE char *p = cu_path_join(path, "version.json");
    if (cu_sysroot_read(root, p, 1 << 20, &text, &len, &err) != CU_OK)
        return false;
    if (cu_json_parse_object(text, len, "version.json", &j, &err) == CU_OK) {
        ok = cu_json_version(json_object_get(j, "cuda"), "version", out);
        json_decref(j);
    }
    free(text);
    return ok;
}

static bool
version_from_txt(const struct cu_sysroot *root, const char *path, struct cu_version *out)
{
    CU_AUTOFREE char *p = cu_path_join(path, "version.txt");
    CU_AUTOFREE char *line = cu_sysroot_read_line(root, p);
    const char *v;
    if (!line || !(v = strstr(line, "CUDA Version ")))
        return false;
    return cu_version_parse(v + 13, out);
}

/* Wheel-built trees (like pip's nvidia-* packages) keep dist-info folders.  nvcc's wheel carries the compiler's
 * own version (13.0.88), which is no CUDA release (13.0.1 and 13.0.2 both ship it): the release is said as the
 * X.Y they share, never as 13.0.88 (issue 49 item 18). */
static bool
version_from_dist_info(const struct cu_sysroot *root, const char *path, struct cu_version *out)
{
    struct cu_strv names;
    bool ok = false;
    CU_AUTOFREE char *p = cu_path_join(path, "dist-info");
    cu_strv_init(&names);
    list_dir(root, p, &names);
    for (size_t i = 0; i < names.n && !ok; i++) {
        const char *pre = "nvidia_cuda_nvcc-";
        if (cu_str_has_prefix(names.v[i], pre) && cu_str_has_suffix(names.v[i], ".dist-info")) {
            size_t n = strlen(names.v[i]) - strlen(pre) - strlen(".dist-info");
            CU_AUTOFREE char *v = cu_xstrndup(names.v[i] + strlen(pre), n);
            ok = cu_version_parse(v, out);
            if (ok && out->n > 2)
                out->n = 2, out->part[2] = out->part[3] = 0;
        }
    }
    cu_strv_fini(&names);
    return ok;
}

bool
cu_cuda_install_read(const struct cu_sysroot *root, const char *path, struct cu_cuda_install *out)
{
    uint64_t v;
    memset(out, 0, sizeof(*out));
    CU_AUTOFREE char *nvcc = cu_path_join(path, "bin/nvcc");
    CU_AUTOFREE char *cudah = cu_path_join(path, "include/cuda.h");
    CU_AUTOFREE char *rt = cu_path_join(path, "include/cuda_runtime_api.h");
    CU_AUTOFREE char *inc = cu_path_join(path, "include");
    CU_AUTOFREE char *rec = cu_path_join(path, ".cudaup/record.json");
    CU_AUTOFREE char *tinc = cu_path_join(path, "targets/x86_64-linux/include");
    CU_AUTOFREE char *sinc = cu_path_join(path, "targets/sbsa-linux/include");

    out->has_nvcc = cu_sysroot_exists(root, nvcc);
    bool headers = cu_sysroot_exists(root, cudah) || cu_sysroot_exists(root, rt);
    if (version_from_json(root, path, &out->version))
        out->version_source = "version.json";
    else if (version_from_txt(root, path, &out->version))
        out->version_source = "version.txt";
    else if (version_from_dist_info(root, path, &out->version))
        out->version_source = "dist-info";
    else if (header_define(root, cudah, "CUDA_VERSION", &v) ||
             header_define(root, rt, "CUDART_VERSION", &v)) {
        cu_version_from_cuda_int((int)v, &out->version);
        out->version_source = "cuda.h";
    }
    if (!out->version.n && !out->has_nvcc && !headers)
        return false;
    out->path = cu_xstrdup(path);
    out->links = cu_xcalloc(1, sizeof(char *));
    CU_AUTOFREE char *lib = cu_path_join(path, "lib64/libcudart.so");
    CU_AUTOFREE char *lib2 = cu_path_join(path, "lib/libcudart.so");
    out->has_cudart = cu_sysroot_exists(root, lib) || cu_sysroot_exists(root, lib2);
    if (!read_cudnn_version(root, inc, &out->cudnn) && !read_cudnn_version(root, tinc, &out->cudnn))
        (void)read_cudnn_version(root, sinc, &out->cudnn);
    out->managed = cu_sysroot_exists(root, rec);
    return true;
}

void
cu_cuda_install_fini(struct cu_cuda_install *inst)
{
    cu_clear_ptr(&inst->path, free);
    cu_strv_free(inst->links);
    inst->links = NULL;
}

/* Resolve symlinks of a machine path inside the root, lexically (no host escape). */
static char *
resolve_in_root(const struct cu_sysroot *root, const char *path)
{
    char *cur = cu_xstrdup(path);
    for (int hops = 0; hops < 16; hops++) {
        CU_AUTOFREE char *target = cu_sysroot_readlink(root, cur);
        if (!target)
            return cur;
        char *next = cu_link_target_path(cur, target);
        free(cur);
        cur = next;
        /* Fold "a/../b" and "./" so the result compares equal to the plain path. */
        struct cu_strv parts, keep;
        cu_strv_init(&parts);
        cu_strv_init(&keep);
        cu_strv_split(&parts, cur, "/");
        for (size_t i = 0; i < parts.n; i++) {
            if (strcmp(parts.v[i], ".") == 0)
                continue;
            if (strcmp(parts.v[i], "..") == 0) {
                if (keep.n)
                    free(keep.v[--keep.n]), keep.v[keep.n] = NULL;
                continue;
            }
            cu_strv_push(&keep, parts.v[i]);
        }
        struct cu_buf b;
        cu_buf_init(&b);
        for (size_t i = 0; i < keep.n; i++)
            cu_buf_printf(&b, "/%s", keep.v[i]);
        if (!b.len)
            cu_buf_putc(&b, '/');
        free(cur);
        cur = cu_buf_steal(&b);
        cu_buf_fini(&b);
        cu_strv_fini(&parts);
        cu_strv_fini(&keep);
    }
    return cur;
}

static void
add_install(const struct cu_probe_opts *o, struct cu_facts *f, const char *path)
{
    CU_AUTOFREE char *real = resolve_in_root(o->root, path);
    for (size_t i = 0; i < f->n_installs; i++) {
        if (strcmp(f->installs[i].path, real) == 0) {
            if (strcmp(real, path) != 0) {
                size_t n = 0;
                char **links = f->installs[i].links;
                while (links[n])
                    n++;
                for (size_t k = 0; k < n; k++)
                    if (strcmp(links[k], path) == 0)
                        return;
                links = cu_xreallocarray(links, n + 2, sizeof(char *));
                links[n] = cu_xstrdup(path);
                links[n + 1] = NULL;
                f->installs[i].links = links;
            }
            return;
        }
    }
    struct cu_cuda_install inst;
    if (!cu_cuda_install_read(o->root, real, &inst))
        return;
    if (o->managed_only && !inst.managed) {
        cu_cuda_install_fini(&inst);
        return;
    }
    if (strcmp(real, path) != 0) {
        free(inst.links);
        inst.links = cu_xcalloc(2, sizeof(char *));
        inst.links[0] = cu_xstrdup(path);
    }
    f->installs = cu_xreallocarray(f->installs, f->n_installs + 1, sizeof(*f->installs));
    f->installs[f->n_installs++] = inst;
}

static void
scan_prefix(const struct cu_probe_opts *o, struct cu_facts *f, const char *prefix)
{
    struct cu_strv names;
    cu_strv_init(&names);
    list_dir(o->root, prefix, &names);
    /* Real folders first, so links are recorded as links of them. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < names.n; i++) {
            const char *n = names.v[i];
            if (strcmp(n, "cuda") != 0 && !cu_str_has_prefix(n, "cuda-"))
                continue;
            CU_AUTOFREE char *p = cu_path_join(prefix, n);
            CU_AUTOFREE char *link = cu_sysroot_readlink(o->root, p);
            if ((pass == 0) == (link == NULL))
                add_install(o, f, p);
        }
    }
    cu_strv_fini(&names);
}

static void
probe_installs(const struct cu_probe_opts *o, struct cu_facts *f)
{
    static const char *const prefixes[] = {"/usr/local", "/opt"};
    static const char *const fixed[] = {"/usr/lib/cuda", "/usr/lib/nvidia-cuda-toolkit"};

    for (size_t i = 0; i < CU_N_ELEMENTS(prefixes); i++)
        scan_prefix(o, f, prefixes[i]);
    /* cudaup's PREFIX is where it writes, on this machine whatever --root reads (DESIGN "--root"):
     * the installs cudaup made there are looked for there first, then under the root as before. */
    struct cu_sysroot host;
    struct cu_error e;
    if (o->extra_prefixes && cu_sysroot_init(&host, "/", &e) == CU_OK) {
        struct cu_probe_opts ho = *o;
        ho.root = &host;
        ho.managed_only = true;
        for (const char *const *p = o->extra_prefixes; *p; p++) {
            /* A prefix inside the machine root (its own DIR/usr/local) is that machine's: read there, as it sees it. */
            CU_AUTOFREE char *inside = cu_sysroot_is_host(o->root) ? NULL : cu_root_seen_path(o->root->path, *p);
            if (!inside)
                scan_prefix(&ho, f, *p);
        }
        cu_sysroot_fini(&host);
    }
    for (const char *const *p = o->extra_prefixes; p && *p; p++) {
        CU_AUTOFREE char *inside = cu_sysroot_is_host(o->root) ? NULL : cu_root_seen_path(o->root->path, *p);
        scan_prefix(o, f, inside ? inside : *p);
    }
    for (size_t i = 0; i < CU_N_ELEMENTS(fixed); i++)
        if (cu_sysroot_is_dir(o->root, fixed[i]))
            add_install(o, f, fixed[i]);
    const char *envs[] = {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"};
    for (size_t i = 0; i < CU_N_ELEMENTS(envs); i++) {
        const char *v = cu_env_get(o->envp, envs[i]);
        if (v && v[0] == '/' && cu_sysroot_is_dir(o->root, v))
            add_install(o, f, v);
    }
}

/* ---- environment ---------------------------------------------------------- */

static bool
bears_on_cuda(const char *entry)
{
    return strcasestr(entry, "cuda") || strcasestr(entry, "cudnn") || strcasestr(entry, "nvidia");
}

static char **
cuda_entries(const char *value, bool *empty)
{
    struct cu_strv v;
    cu_strv_init(&v);
    if (empty)
        *empty = false;
    if (value) {
        const char *p = value;
        for (;;) {
            const char *c = strchr(p, ':');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            CU_AUTOFREE char *e = cu_xstrndup(p, n);
            if (n == 0 && empty)
                *empty = true;
            else if (n && bears_on_cuda(e) && !cu_strv_contains(&v, e))
                cu_strv_push(&v, e);
            if (!c)
                break;
            p = c + 1;
        }
    }
    return cu_steal_ptr(&v.v);
}

static void
probe_env(const struct cu_probe_opts *o, struct cu_facts *f)
{
    f->env.cuda_home = cu_xstrdup(cu_env_get(o->envp, "CUDA_HOME"));
    f->env.cuda_path = cu_xstrdup(cu_env_get(o->envp, "CUDA_PATH"));
    f->env.path_cuda = cuda_entries(cu_env_get(o->envp, "PATH"), NULL);
    f->env.ld_cuda = cuda_entries(cu_env_get(o->envp, "LD_LIBRARY_PATH"), &f->env.ld_empty_entry);
}

/* ---- Python environment tools ------------------------------------------------ */

static char *
conda_version(const struct cu_sysroot *root, const char *base, const char *pkg)
{
    struct cu_strv names;
    char *ver = NULL;
    CU_AUTOFREE char *meta = cu_path_join(base, "conda-meta");
    CU_AUTOFREE char *pre = cu_xasprintf("%s-", pkg);
    cu_strv_init(&names);
    list_dir(root, meta, &names);
    for (size_t i = 0; i < names.n && !ver; i++) {
        const char *n = names.v[i];
        if (!cu_str_has_prefix(n, pre) || !cu_str_has_suffix(n, ".json"))
            continue;
        const char *v = n + strlen(pre);
        if (!isdigit((unsigned char)v[0]))
            continue; /* conda-build-..., conda-libmamba-solver-... */
        size_t len = strcspn(v, "-");
        ver = cu_xstrndup(v, len);
    }
    cu_strv_fini(&names);
    return ver;
}

static bool
exe_in_root(const struct cu_sysroot *root, const char *path)
{
    return path && path[0] == '/' && cu_sysroot_exists(root, path);
}

static void
probe_pyenv(const struct cu_probe_opts *o, struct cu_facts *f)
{
    static const char *const tools[] = {"conda", "mamba", "micromamba"};
    const char *home = cu_env_get(o->envp, "HOME");
    char *found_tool = NULL, *found_path = NULL;

    /* An explicitly configured tool wins: CONDA_EXE / MAMBA_EXE. */
    const char *ce = cu_env_get(o->envp, "CONDA_EXE");
    const char *me = cu_env_get(o->envp, "MAMBA_EXE");
    if (exe_in_root(o->root, ce)) {
        found_tool = cu_xstrdup("conda");
        found_path = cu_xstrdup(ce);
    } else if (exe_in_root(o->root, me)) {
        found_tool = basename_dup(me);
        found_path = cu_xstrdup(me);
    }
    /* Then PATH, in order. */
    if (!found_tool) {
        struct cu_strv dirs;
        cu_strv_init(&dirs);
        cu_strv_split(&dirs, cu_env_get(o->envp, "PATH"), ":");
        for (size_t i = 0; i < dirs.n && !found_tool; i++) {
            for (size_t t = 0; t < CU_N_ELEMENTS(tools) && !found_tool; t++) {
                CU_AUTOFREE char *p = cu_path_join(dirs.v[i], tools[t]);
                if (exe_in_root(o->root, p)) {
                    found_tool = cu_xstrdup(tools[t]);
                    found_path = cu_steal_ptr(&p);
                }
            }
        }
        cu_strv_fini(&dirs);
    }
    /* Then the usual install folders. */
    if (!found_tool) {
        static const char *const bases[] = {"miniforge3", "miniconda3", "anaconda3", "mambaforge"};
        for (size_t i = 0; home && i < CU_N_ELEMENTS(bases) && !found_tool; i++) {
            CU_AUTOFREE char *p = cu_xasprintf("%s/%s/bin/conda", home, bases[i]);
            if (exe_in_root(o->root, p)) {
                found_tool = cu_xstrdup("conda");
                found_path = cu_steal_ptr(&p);
            }
        }
        if (!found_tool && exe_in_root(o->root, "/opt/conda/bin/conda")) {
            found_tool = cu_xstrdup("conda");
            found_path = cu_xstrdup("/opt/conda/bin/conda");
        }
    }
    const char *active = cu_env_get(o->envp, "CONDA_PREFIX");
    const char *venv = cu_env_get(o->envp, "VIRTUAL_ENV");
    if (!found_tool && !venv)
        return;
    f->pyenv = cu_xcalloc(1, sizeof(*f->pyenv));
    if (found_tool) {
        f->pyenv->tool = found_tool;
        f->pyenv->path = found_path;
        /* PATH/bin/conda -> PATH is the base environment with conda-meta. */
        char *slash = strrchr(found_path, '/');
        CU_AUTOFREE char *bindir = cu_xstrndup(found_path, slash ? (size_t)(slash - found_path) : 0);
        slash = strrchr(bindir, '/');
        CU_AUTOFREE char *base = cu_xstrndup(bindir, slash ? (size_t)(slash - bindir) : 0);
        f->pyenv->version = conda_version(o->root, *base ? base : "/", found_tool);
        f->pyenv->active_env = cu_xstrdup(active);
    } else {
        f->pyenv->tool = cu_xstrdup("venv");
        f->pyenv->path = cu_xstrdup(venv);
        f->pyenv->active_env = cu_xstrdup(venv);
    }
}

/* Which python3.N are on PATH: what a venv can be made with. */
static void
probe_pythons(const struct cu_probe_opts *o, struct cu_facts *f)
{
    struct cu_strv dirs, found;
    cu_strv_init(&dirs);
    cu_strv_init(&found);
    cu_strv_split(&dirs, cu_env_get(o->envp, "PATH"), ":");
    for (size_t i = 0; i < dirs.n; i++) {
        struct cu_strv names;
        cu_strv_init(&names);
        list_dir(o->root, dirs.v[i], &names);
        for (size_t k = 0; k < names.n; k++) {
            const char *n = names.v[k];
            struct cu_version v;
            if (!cu_str_has_prefix(n, "python3.") || !cu_version_parse(n + 6, &v) || v.n != 2)
                continue;
            CU_AUTOFREE char *p = cu_path_join(dirs.v[i], n);
            if (!cu_strv_contains(&found, n + 6) && exe_in_root(o->root, p))
                cu_strv_push(&found, n + 6);
        }
        cu_strv_fini(&names);
    }
    for (size_t i = 1; i < found.n; i++)
        for (size_t k = i; k > 0 && cu_version_strcmp(found.v[k - 1], found.v[k]) < 0; k--) {
            char *t = found.v[k];
            found.v[k] = found.v[k - 1];
            found.v[k - 1] = t;
        }
    f->pythons = cu_steal_ptr(&found.v);
    cu_strv_fini(&dirs);
}

/* ---- entry points ---------------------------------------------------------- */

enum cu_status
cu_facts_probe(const struct cu_probe_opts *opts, struct cu_facts **out, struct cu_error *err)
{
    struct cu_facts *f;

    *out = NULL;
    if (!opts->root || !opts->catalog)
        return cu_error_set(err, CU_E_USAGE, 0, "internal: probe without a root or catalog");
    f = cu_xcalloc(1, sizeof(*f));
    cu_container_probe(opts->root, &f->container);
    probe_os(opts, f);
    probe_pci(opts, f);
    probe_driver_files(opts, f);
    if (!opts->no_libs)
        probe_libs(opts, f);
    finish_driver(opts, f);
    probe_installs(opts, f);
    probe_env(opts, f);
    probe_pyenv(opts, f);
    probe_pythons(opts, f);
    f->drv = cu_drv_state_probe(opts->root, f, opts->envp);
    cu_drv_state_probe_files(f->drv, opts->root, opts->catalog->driver);
    *out = f;
    return CU_OK;
}

void
cu_facts_free(struct cu_facts *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_gpus; i++) {
        free(f->gpus[i].name);
        free(f->gpus[i].source);
        free(f->gpus[i].kernel_driver);
    }
    free(f->gpus);
    free(f->driver.nvml_path);
    free(f->driver.libcuda_path);
    free(f->driver.nvml_error);
    free(f->driver.libcuda_error);
    for (size_t i = 0; i < f->n_installs; i++)
        cu_cuda_install_fini(&f->installs[i]);
    free(f->installs);
    free(f->env.cuda_home);
    free(f->env.cuda_path);
    cu_strv_free(f->env.path_cuda);
    cu_strv_free(f->env.ld_cuda);
    if (f->pyenv) {
        free(f->pyenv->tool);
        free(f->pyenv->path);
        free(f->pyenv->version);
        free(f->pyenv->active_env);
        free(f->pyenv);
    }
    cu_strv_free(f->pythons);
    free(f->os.id);
    free(f->os.version_id);
    free(f->os.pretty_name);
    cu_drv_state_free(f->drv);
    free(f);
}
