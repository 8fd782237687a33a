/* SPDX-License-Identifier: MIT */
#include "config.h"

#define CU_LOG_TAG "gpulib"
#include "core/machine/gpulib.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/dl.h"
#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/machine/nvtypes.h"
#include "core/base/str.h"

void
cu_lib_info_fini(struct cu_lib_info *info)
{
    cu_clear_ptr(&info->lib_path, free);
    cu_clear_ptr(&info->init_error, free);
    cu_clear_ptr(&info->gpus, free);
    info->n_gpus = 0;
}

static const char *const lib_dirs[] = {
    "/usr/lib/wsl/lib", /* WSL2: the Windows driver's libraries */
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/nvidia/lib64", /* NVIDIA container toolkit layout */
    "/usr/local/nvidia/lib",
};

char **
cu_gpulib_candidates(const struct cu_sysroot *root, const char *soname, const char *override)
{
    struct cu_strv v;
    cu_strv_init(&v);
    if (override && *override) {
        cu_strv_push(&v, override);
        return cu_steal_ptr(&v.v);
    }
    for (size_t i = 0; i < CU_N_ELEMENTS(lib_dirs); i++) {
        CU_AUTOFREE char *rel = cu_path_join(lib_dirs[i], soname);
        /* The file as the root's links lead to it, never through an absolute link to this host's library. */
        char *real = cu_sysroot_real_path(root, rel);
        if (real)
            cu_strv_push_owned(&v, real);
    }
    if (cu_sysroot_is_host(root))
        cu_strv_push(&v, soname);
    return cu_steal_ptr(&v.v);
}

static void
lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

/* NVML reports "00000000:01:00.0"; sysfs writes "0000:01:00.0". */
static void
norm_bus(char *bus)
{
    lower(bus);
    size_t len = strlen(bus);
    char *colon = strchr(bus, ':');
    if (colon && colon - bus == 8 && strncmp(bus, "0000", 4) == 0)
        memmove(bus, bus + 4, len - 4 + 1);
}

struct nvml_api {
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*driver_version)(char *, unsigned int);
    nvmlReturn_t (*cuda_version)(int *);
    nvmlReturn_t (*count)(unsigned int *);
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*pci)(nvmlDevice_t, nvmlPciInfo_t *);
    nvmlReturn_t (*cc)(nvmlDevice_t, int *, int *);
    nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t *);
};

#define SYM(n, f, opt) {n, offsetof(struct nvml_api, f), opt}
static const struct cu_dl_sym nvml_syms[] = {
    SYM("nvmlInit_v2", init, false),
    SYM("nvmlShutdown", shutdown, false),
    SYM("nvmlErrorString", error_string, true),
    SYM("nvmlSystemGetDriverVersion", driver_version, false),
    SYM("nvmlSystemGetCudaDriverVersion_v2", cuda_version, true),
    SYM("nvmlDeviceGetCount_v2", count, false),
    SYM("nvmlDeviceGetHandleByIndex_v2", handle, false),
    SYM("nvmlDeviceGetName", name, true),
    SYM("nvmlDeviceGetPciInfo_v3", pci, true),
    SYM("nvmlDeviceGetCudaComputeCapability", cc, true),
    SYM("nvmlDeviceGetMemoryInfo", memory, true),
};
#undef SYM

enum cu_status
cu_nvml_query(const char *const *candidates, struct cu_lib_info *info, struct cu_error *err)
{
    struct nvml_api api = {0};
    struct cu_dl dl;
    enum cu_status st;
    char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    unsigned int count = 0;

    memset(info, 0, sizeof(*info));
    st = cu_dl_open(&dl, candidates, nvml_syms, CU_N_ELEMENTS(nvml_syms), &api, err);
    if (st != CU_OK)
        return st;
    info->lib_path = cu_xstrdup(dl.path);
    info->init_result = api.init();
    if (info->init_result != NVML_SUCCESS) {
        const char *e = api.error_string ? api.error_string(info->init_result) : NULL;
        info->init_error = cu_xstrdup(e ? e : "unknown NVML error");
        st = cu_error_set(err, CU_E_DRIVER, 0, _("NVML could not start: %s"), info->init_error);
        goto out;
    }
    if (api.driver_version(buf, sizeof(buf)) == NVML_SUCCESS) {
        buf[sizeof(buf) - 1] = '\0';
        if (!cu_version_parse(cu_str_strip(buf), &info->driver))
            cu_log_warn("NVML reported an unreadable driver version");
    }
    if (api.cuda_version)
        api.cuda_version(&info->cuda_driver_version);
    if (api.count(&count) != NVML_SUCCESS)
        count = 0;
    if (count > 64)
        count = 64;
    info->gpus = cu_xcalloc(count + 1, sizeof(*info->gpus));
    for (unsigned int i = 0; i < count; i++) {
        nvmlDevice_t dev;
        struct cu_lib_gpu *g = &info->gpus[info->n_gpus];
        if (api.handle(i, &dev) != NVML_SUCCESS)
            continue;
        if (api.name && api.name(dev, g->name, sizeof(g->name)) == NVML_SUCCESS)
            g->name[sizeof(g->name) - 1] = '\0';
        nvmlPciInfo_t pci;
        memset(&pci, 0, sizeof(pci));
        if (api.pci && api.pci(dev, &pci) == NVML_SUCCESS) {
            pci.busId[sizeof(pci.busId) - 1] = '\0';
            snprintf(g->bus, sizeof(g->bus), "%s", pci.busId);
            norm_bus(g->bus);
            g->device_id = (uint16_t)(pci.pciDeviceId >> 16);
        }
        int major = 0, minor = 0;
        if (api.cc && api.cc(dev, &major, &minor) == NVML_SUCCESS && major > 0)
            g->cc = (struct cu_version){{(uint32_t)major, (uint32_t)minor}, 2};
        nvmlMemory_t mem;
        if (api.memory && api.memory(dev, &mem) == NVML_SUCCESS)
            g->memory_mib = mem.total / (1024 * 1024);
        info->n_gpus++;
    }
    st = CU_OK;
    api.shutdown();
out:
    cu_dl_close(&dl);
    return st;
}

struct cuda_api {
    CUresult (*init)(unsigned int);
    CUresult (*driver_version)(int *);
    CUresult (*count)(int *);
    CUresult (*get)(CUdevice *, int);
    CUresult (*name)(char *, int, CUdevice);
    CUresult (*attr)(int *, int, CUdevice);
    CUresult (*mem)(size_t *, CUdevice);
    CUresult (*bus)(char *, int, CUdevice);
    CUresult (*err_name)(CUresult, const char **);
};

#define SYM(n, f, opt) {n, offsetof(struct cuda_api, f), opt}
static const struct cu_dl_sym cuda_syms[] = {
    SYM("cuInit", init, false),
    SYM("cuDriverGetVersion", driver_version, false),
    SYM("cuDeviceGetCount", count, false),
    SYM("cuDeviceGet", get, false),
    SYM("cuDeviceGetName", name, true),
    SYM("cuDeviceGetAttribute", attr, true),
    SYM("cuDeviceTotalMem_v2", mem, true),
    SYM("cuDeviceGetPCIBusId", bus, true),
    SYM("cuGetErrorName", err_name, true),
};
#undef SYM

const char *
cu_curesult_name(int r)
{
    switch (r) {
    case CUDA_SUCCESS: return "CUDA_SUCCESS";
    case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
    case CUDA_ERROR_STUB_LIBRARY: return "CUDA_ERROR_STUB_LIBRARY";
    case CUDA_ERROR_INSUFFICIENT_DRIVER: return "CUDA_ERROR_INSUFFICIENT_DRIVER";
    case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
    case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
    case CUDA_ERROR_NO_BINARY_FOR_GPU: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
    case CUDA_ERROR_OPERATING_SYSTEM: return "CUDA_ERROR_OPERATING_SYSTEM";
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    default: return "CUDA_ERROR_UNKNOWN";
    }
}

enum cu_status
cu_libcuda_query(const char *const *candidates, struct cu_lib_info *info, struct cu_error *err)
{
    struct cuda_api api = {0};
    struct cu_dl dl;
    enum cu_status st;
    int count = 0;

    memset(info, 0, sizeof(*info));
    st = cu_dl_open(&dl, candidates, cuda_syms, CU_N_ELEMENTS(cuda_syms), &api, err);
    if (st != CU_OK)
        return st;
    info->lib_path = cu_xstrdup(dl.path);
    /* cuDriverGetVersion works without cuInit and without a GPU. */
    api.driver_version(&info->cuda_driver_version);
    info->init_result = api.init(0);
    if (info->init_result != CUDA_SUCCESS) {
        info->init_error = cu_xstrdup(cu_curesult_name(info->init_result));
        st = cu_error_set(err, CU_E_DRIVER, 0, _("cuInit failed: %s"), info->init_error);
        goto out;
    }
    if (api.count(&count) != CUDA_SUCCESS || count < 0)
        count = 0;
    if (count > 64)
        count = 64;
    info->gpus = cu_xcalloc((size_t)count + 1, sizeof(*info->gpus));
    for (int i = 0; i < count; i++) {
        CUdevice dev;
        struct cu_lib_gpu *g = &info->gpus[info->n_gpus];
        if (api.get(&dev, i) != CUDA_SUCCESS)
            continue;
        if (api.name && api.name(g->name, (int)sizeof(g->name), dev) == CUDA_SUCCESS)
            g->name[sizeof(g->name) - 1] = '\0';
        int major = 0, minor = 0;
        if (api.attr && api.attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == 0 &&
            api.attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == 0 && major > 0)
            g->cc = (struct cu_version){{(uint32_t)major, (uint32_t)minor}, 2};
        size_t bytes = 0;
        if (api.mem && api.mem(&bytes, dev) == CUDA_SUCCESS)
            g->memory_mib = bytes / (1024 * 1024);
        if (api.bus && api.bus(g->bus, (int)sizeof(g->bus), dev) == CUDA_SUCCESS) {
            g->bus[sizeof(g->bus) - 1] = '\0';
            norm_bus(g->bus);
        }
        info->n_gpus++;
    }
    st = CU_OK;
out:
    /* libcuda starts threads in cuInit; unloading it under them can crash the
     * process, so the handle stays open for the rest of the run. */
    cu_clear_ptr(&dl.path, free);
    return st;
}
