#ifndef XLITE_RUNTIME_CUDA_CUDA_DRIVER_H_
#define XLITE_RUNTIME_CUDA_CUDA_DRIVER_H_

// The CUDA driver API entry points xlite uses, loaded at run time with
// dlopen("libcuda.so.1") so that nothing links against CUDA. Types are
// the driver ABI's (opaque handles, 64-bit device pointers, int results).

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace xlite::runtime::cuda {

using CuResult = int;
using CuDevice = int;
using CuDevicePtr = unsigned long long;  // NOLINT: the driver's ABI type
struct CuContextSt;
struct CuModuleSt;
struct CuFunctionSt;
struct CuStreamSt;
struct CuGraphSt;
struct CuGraphExecSt;
struct CuEventSt;
using CuContext = CuContextSt*;
using CuModule = CuModuleSt*;
using CuFunction = CuFunctionSt*;
using CuStream = CuStreamSt*;
using CuGraph = CuGraphSt*;
using CuGraphExec = CuGraphExecSt*;
using CuEvent = CuEventSt*;

struct CudaDriver {
  CuResult (*cuInit)(unsigned);
  CuResult (*cuDeviceGetCount)(int*);
  CuResult (*cuDeviceGet)(CuDevice*, int);
  CuResult (*cuDeviceGetAttribute)(int*, int, CuDevice);
  CuResult (*cuDevicePrimaryCtxRetain)(CuContext*, CuDevice);
  CuResult (*cuDevicePrimaryCtxRelease)(CuDevice);
  CuResult (*cuCtxSetCurrent)(CuContext);
  CuResult (*cuStreamCreate)(CuStream*, unsigned);
  CuResult (*cuStreamDestroy)(CuStream);
  CuResult (*cuStreamSynchronize)(CuStream);
  CuResult (*cuMemAlloc)(CuDevicePtr*, size_t);
  CuResult (*cuMemFree)(CuDevicePtr);
  CuResult (*cuMemcpyHtoD)(CuDevicePtr, const void*, size_t);
  CuResult (*cuMemcpyDtoH)(void*, CuDevicePtr, size_t);
  CuResult (*cuMemcpyDtoHAsync)(void*, CuDevicePtr, size_t, CuStream);
  CuResult (*cuMemcpyDtoDAsync)(CuDevicePtr, CuDevicePtr, size_t, CuStream);
  CuResult (*cuMemsetD8)(CuDevicePtr, unsigned char, size_t);
  CuResult (*cuMemsetD8Async)(CuDevicePtr, unsigned char, size_t, CuStream);
  CuResult (*cuModuleLoadData)(CuModule*, const void*);
  CuResult (*cuModuleUnload)(CuModule);
  CuResult (*cuModuleGetFunction)(CuFunction*, CuModule, const char*);
  CuResult (*cuFuncSetAttribute)(CuFunction, int, int);
  CuResult (*cuFuncGetAttribute)(int*, int, CuFunction);
  CuResult (*cuLaunchKernel)(CuFunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CuStream, void**,
                             void**);
  CuResult (*cuGetErrorString)(CuResult, const char**);
  // Stream capture into CUDA graphs; all null when the driver lacks any
  // (thunks then run eagerly).
  CuResult (*cuStreamBeginCapture)(CuStream, int);
  CuResult (*cuStreamEndCapture)(CuStream, CuGraph*);
  CuResult (*cuGraphInstantiateWithFlags)(CuGraphExec*, CuGraph,
                                          unsigned long long);  // NOLINT
  CuResult (*cuGraphLaunch)(CuGraphExec, CuStream);
  CuResult (*cuGraphExecDestroy)(CuGraphExec);
  CuResult (*cuGraphDestroy)(CuGraph);
  bool has_graphs() const { return cuGraphDestroy != nullptr; }
  // Events (to time GEMM candidates and profiled thunks) and the device's
  // name; the events all null when the driver lacks any (the autotuner
  // then times with the host's clock).
  CuResult (*cuEventCreate)(CuEvent*, unsigned);
  CuResult (*cuEventRecord)(CuEvent, CuStream);
  CuResult (*cuEventSynchronize)(CuEvent);
  CuResult (*cuEventElapsedTime)(float* milliseconds, CuEvent, CuEvent);
  CuResult (*cuEventDestroy)(CuEvent);
  CuResult (*cuDeviceGetName)(char*, int, CuDevice);
  bool has_events() const { return cuEventDestroy != nullptr; }
  // TMA tensor maps (CUDA 12 on); null when the driver lacks it (kernels
  // that take tensor maps then fail to launch, others run).
  CuResult (*cuTensorMapEncodeTiled)(
      void* tensor_map, int data_type, uint32_t rank, void* global_address,
      const uint64_t* global_dims, const uint64_t* global_strides,
      const uint32_t* box_dims, const uint32_t* element_strides, int interleave,
      int swizzle, int l2_promotion, int oob_fill);
};

/// Driver attribute and enum values used (from the driver API's headers).
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;
inline constexpr int kFuncAttrMaxDynamicSharedBytes = 8;
/// CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: the kernel's static shared memory.
inline constexpr int kFuncAttrStaticSharedBytes = 1;
inline constexpr int kStreamCaptureModeRelaxed = 2;
/// cuTensorMapEncodeTiled's enums: CU_TENSOR_MAP_DATA_TYPE_UINT8 (UINT16
/// and UINT32 follow), CU_TENSOR_MAP_INTERLEAVE_NONE,
/// CU_TENSOR_MAP_SWIZZLE_NONE and _128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
/// CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE (out-of-bounds elements read as zero).
inline constexpr int kTensorMapDataTypeUint8 = 0;
inline constexpr int kTensorMapDataTypeUint16 = 1;
inline constexpr int kTensorMapDataTypeUint32 = 2;
inline constexpr int kTensorMapInterleaveNone = 0;
inline constexpr int kTensorMapSwizzleNone = 0;
inline constexpr int kTensorMapSwizzle128B = 3;
inline constexpr int kTensorMapL2Promotion128B = 2;
inline constexpr int kTensorMapOobFillNone = 0;

/// The loaded driver (once per process), or "no CUDA device" when
/// libcuda.so.1 is missing, lacks an entry point, or cuInit fails.
absl::StatusOr<const CudaDriver*> LoadCudaDriver();

/// "NVIDIA H100 80GB HBM3 (sm_90)": the device's name and compute
/// capability, as GEMM autotuning results are keyed.
std::string CudaDeviceDescription(const CudaDriver& driver, CuDevice device);

/// `result` as a status ("cuLaunchKernel: CUDA_ERROR_...: message").
absl::Status CheckCuda(const CudaDriver& driver, CuResult result,
                       const std::string& what);

}  // namespace xlite::runtime::cuda

#endif  // XLITE_RUNTIME_CUDA_CUDA_DRIVER_H_
