/* SPDX-License-Identifier: MIT */
/*
 * The few NVIDIA types cudaup calls, declared here so that cudaup builds
 * without CUDA (DESIGN: GPU libraries are dlopen'd, never linked).  Values are
 * those of NVIDIA's public headers (nvml.h, cuda.h, driver_types.h, nvrtc.h,
 * cudnn_*.h); only the ones used are listed.
 */
#ifndef CU_NVTYPES_H
#define CU_NVTYPES_H

#include <stddef.h>

/* NVML */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_LIB_RM_VERSION_MISMATCH 18
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32

typedef struct {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId; /* (device << 16) | vendor */
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

/* CUDA driver API */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
#define CUDA_SUCCESS 0
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_STUB_LIBRARY 34
#define CUDA_ERROR_INSUFFICIENT_DRIVER 35
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_NO_BINARY_FOR_GPU 209
#define CUDA_ERROR_UNSUPPORTED_PTX_VERSION 222
#define CUDA_ERROR_OPERATING_SYSTEM 304
#define CUDA_ERROR_SYSTEM_DRIVER_MISMATCH 803
#define CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE 804
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

/* CUDA runtime API */
typedef int cudaError_t;
#define cudaSuccess 0
#define cudaErrorInsufficientDriver 35
#define cudaErrorNoDevice 100
enum cuda_memcpy_kind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                        cudaMemcpyDeviceToDevice = 3 };

/* NVRTC */
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
#define NVRTC_SUCCESS 0

/* cuDNN */
typedef int cudnnStatus_t;
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;
#define CUDNN_STATUS_SUCCESS 0
#define CUDNN_TENSOR_NCHW 0
#define CUDNN_DATA_FLOAT 0
#define CUDNN_CROSS_CORRELATION 1
#define CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM 0

#endif /* CU_NVTYPES_H */
