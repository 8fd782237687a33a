/* SPDX-License-Identifier: MIT */
/* A double of libnvrtc: "compiles" CUDA C by writing PTX that names its kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/machine/nvtypes.h"
#include "fakegpu.h"

#define EXPORT __attribute__((visibility("default")))

struct prog {
    char *src, *ptx;
};

EXPORT nvrtcResult nvrtcVersion(int *maj, int *min);
EXPORT nvrtcResult nvrtcCreateProgram(struct prog **p, const char *src, const char *name, int nh,
                                      const char *const *h, const char *const *hn);
EXPORT nvrtcResult nvrtcCompileProgram(struct prog *p, int n, const char *const *opts);
EXPORT nvrtcResult nvrtcGetPTXSize(struct prog *p, size_t *s);
EXPORT nvrtcResult nvrtcGetPTX(struct prog *p, char *out);
EXPORT nvrtcResult nvrtcGetProgramLogSize(struct prog *p, size_t *s);
EXPORT nvrtcResult nvrtcGetProgramLog(struct prog *p, char *out);
EXPORT nvrtcResult nvrtcDestroyProgram(struct prog **p);

nvrtcResult
nvrtcVersion(int *maj, int *min)
{
    const char *e = getenv("FAKE_NVRTC_VERSION");
    unsigned n[3];
    *maj = 12;
    *min = 6;
    if (!e && fake_version_from_name("libnvrtc.so.", n))
        *maj = (int)n[0], *min = (int)n[1];
    if (e && sscanf(e, "%d.%d", maj, min) != 2)
        *maj = 0;
    return NVRTC_SUCCESS;
}

nvrtcResult
nvrtcCreateProgram(struct prog **p, const char *src, const char *name, int nh, const char *const *h,
                   const char *const *hn)
{
    FAKE_FAIL_RETURN(nvrtcResult);
    (void)name, (void)nh, (void)h, (void)hn;
    *p = calloc(1, sizeof(**p));
    (*p)->src = strdup(src);
    return NVRTC_SUCCESS;
}

nvrtcResult
nvrtcCompileProgram(struct prog *p, int n, const char *const *opts)
{
    FAKE_FAIL_RETURN(nvrtcResult);
    (void)n, (void)opts;
    const char *g = strstr(p->src, "__global__ void ");
    if (!g)
        return 6; /* NVRTC_ERROR_COMPILATION */
    g += strlen("__global__ void ");
    int len = (int)strcspn(g, "(");
    if (asprintf(&p->ptx, ".version 8.0\n.target sm_52\n.address_size 64\n.visible .entry %.*s()\n{\n ret;\n}\n",
                 len, g) < 0)
        return 1;
    return NVRTC_SUCCESS;
}

nvrtcResult
nvrtcGetPTXSize(struct prog *p, size_t *s)
{
    FAKE_FAIL_RETURN(nvrtcResult);
    *s = strlen(p->ptx) + 1;
    return NVRTC_SUCCESS;
}

nvrtcResult
nvrtcGetPTX(struct prog *p, char *out)
{
    FAKE_FAIL_RETURN(nvrtcResult);
    strcpy(out, p->ptx);
    return NVRTC_SUCCESS;
}

nvrtcResult
nvrtcGetProgramLogSize(struct prog *p, size_t *s)
{
    (void)p;
    *s = sizeof("fake.cu(1): error: the double was told to fail");
    return NVRTC_SUCCESS;
}

nvrtcResult
nvrtcGetProgramLog(struct prog *p, char *out)
{
    (void)p;
    strcpy(out, "fake.cu(1): error: the double was told to fail");
    return NVRTC_SUCCESS;
}

nvrtcResult
nvrtcDestroyProgram(struct prog **p)
{
    free((*p)->src);
    free((*p)->ptx);
    free(*p);
    *p = NULL;
    return NVRTC_SUCCESS;
}
