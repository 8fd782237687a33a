/* SPDX-License-Identifier: MIT */
/*
 * A double of libcudnn: the legacy convolution API, computed on the CPU
 * (so cudaup's check compares two independent implementations).
 * FAKE_CUDNN_VERSION gives cudnnGetVersion (default 90501).
 */
#include <stdlib.h>
#include <string.h>

#include "core/machine/nvtypes.h"
#include "fakegpu.h"

#define EXPORT __attribute__((visibility("default")))

struct desc {
    int n, c, h, w;
    int pad_h, pad_w, u, v;
};

EXPORT size_t cudnnGetVersion(void);
EXPORT cudnnStatus_t cudnnCreate(cudnnHandle_t *h);
EXPORT cudnnStatus_t cudnnDestroy(cudnnHandle_t h);
EXPORT cudnnStatus_t cudnnCreateTensorDescriptor(void **d);
EXPORT cudnnStatus_t cudnnCreateFilterDescriptor(void **d);
EXPORT cudnnStatus_t cudnnCreateConvolutionDescriptor(void **d);
EXPORT cudnnStatus_t cudnnSetTensor4dDescriptor(struct desc *d, int f, int t, int n, int c, int h, int w);
EXPORT cudnnStatus_t cudnnSetFilter4dDescriptor(struct desc *d, int t, int f, int k, int c, int h, int w);
EXPORT cudnnStatus_t cudnnSetConvolution2dDescriptor(struct desc *d, int ph, int pw, int u, int v, int dh, int dw,
                                                     int mode, int type);
EXPORT cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(void *h, void *x, void *w, void *c, void *y, int algo,
                                                             size_t *s);
EXPORT cudnnStatus_t cudnnConvolutionForward(void *h, const void *alpha, struct desc *xd, const float *x,
                                             struct desc *wd, const float *w, struct desc *cd, int algo, void *ws,
                                             size_t wss, const void *beta, struct desc *yd, float *y);
EXPORT const char *cudnnGetErrorString(cudnnStatus_t s);

size_t
cudnnGetVersion(void)
{
    const char *e = getenv("FAKE_CUDNN_VERSION");
    unsigned n[3];
    if (e)
        return (size_t)strtoul(e, NULL, 10);
    if (fake_version_from_name("libcudnn.so.", n) == 3)
        return n[0] >= 9 ? n[0] * 10000 + n[1] * 100 + n[2] : n[0] * 1000 + n[1] * 100 + n[2];
    return 90501;
}

cudnnStatus_t
cudnnCreate(cudnnHandle_t *h)
{
    FAKE_FAIL_RETURN(cudnnStatus_t);
    *h = (cudnnHandle_t)calloc(1, 1);
    return fake_config()->n_gpus ? CUDNN_STATUS_SUCCESS : 1;
}

cudnnStatus_t
cudnnDestroy(cudnnHandle_t h)
{
    free(h);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t
mk(void **d)
{
    *d = calloc(1, sizeof(struct desc));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
cudnnCreateTensorDescriptor(void **d)
{
    FAKE_FAIL_RETURN(cudnnStatus_t);
    return mk(d);
}

cudnnStatus_t
cudnnCreateFilterDescriptor(void **d)
{
    FAKE_FAIL_RETURN(cudnnStatus_t);
    return mk(d);
}

cudnnStatus_t
cudnnCreateConvolutionDescriptor(void **d)
{
    FAKE_FAIL_RETURN(cudnnStatus_t);
    return mk(d);
}

cudnnStatus_t
cudnnSetTensor4dDescriptor(struct desc *d, int f, int t, int n, int c, int h, int w)
{
    FAKE_FAIL_RETURN(cudnnStatus_t);
    (void)f, (void)t;
    *d = (struct desc){n, c, h, w, 0, 0, 1, 1};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
cudnnSetFilter4dDescriptor(struct desc *d, int t, int f, int k, int c, int h, int w)
{
    FAKE_FAIL_RETURN(cudnnStatus_t);
    (void)f, (void)t;
    *d = (struct desc){k, c, h, w, 0, 0, 1, 1};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
cudnnSetConvolution2dDescriptor(struct desc *d, int ph, int pw, int u, int v, int dh, int dw, int mode, int type)
{
    FAKE_FAIL_RETURN(cudnnStatus_t);
    (void)dh, (void)dw, (void)mode, (void)type;
    d->pad_h = ph, d->pad_w = pw, d->u = u, d->v = v;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
cudnnGetConvolutionForwardWorkspaceSize(void *h, void *x, void *w, void *c, void *y, int algo, size_t *s)
{
    FAKE_FAIL_RETURN(cudnnStatus_t);
    (void)h, (void)x, (void)w, (void)c, (void)y, (void)algo;
    *s = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
cudnnConvolutionForward(void *h, const void *alpha, struct desc *xd, const float *x, struct desc *wd, const float *w,
                        struct desc *cd, int algo, void *ws, size_t wss, const void *beta, struct desc *yd, float *y)
{
    FAKE_FAIL_RETURN(cudnnStatus_t);
    (void)h, (void)alpha, (void)algo, (void)ws, (void)wss, (void)beta;
    for (int n = 0; n < yd->n; n++)
        for (int k = 0; k < yd->c; k++)
            for (int i = 0; i < yd->h; i++)
                for (int j = 0; j < yd->w; j++) {
                    double s = 0;
                    for (int c = 0; c < xd->c; c++)
                        for (int p = 0; p < wd->h; p++)
                            for (int q = 0; q < wd->w; q++) {
                                int ii = i * cd->u + p - cd->pad_h, jj = j * cd->v + q - cd->pad_w;
                                if (ii >= 0 && ii < xd->h && jj >= 0 && jj < xd->w)
                                    s += (double)x[((n * xd->c + c) * xd->h + ii) * xd->w + jj] *
                                         (double)w[((k * wd->c + c) * wd->h + p) * wd->w + q];
                            }
                    y[((n * yd->c + k) * yd->h + i) * yd->w + j] = (float)s;
                }
    if (fake_config()->wrong_results)
        y[0] += 0.5f;
    return CUDNN_STATUS_SUCCESS;
}

const char *
cudnnGetErrorString(cudnnStatus_t s)
{
    return s == CUDNN_STATUS_SUCCESS ? "CUDNN_STATUS_SUCCESS" : "CUDNN_STATUS_NOT_INITIALIZED";
}
