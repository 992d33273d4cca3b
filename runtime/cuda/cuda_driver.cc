#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/cuda/dynamic_library.h"

namespace xlite::runtime::cuda {
namespace {

// The _v2 names are the 64-bit ABI the driver exports for these calls.
template <typename F>
void Bind(void* library, const char* name, F& slot, std::string& missing) {
  BindSymbol(library, name, slot, missing);
}

absl::StatusOr<CudaDriver> Load() {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    return absl::FailedPreconditionError(
        "no CUDA device: libcuda.so.1 (the NVIDIA driver) is not installed");
  }
  CudaDriver d{};
  std::string missing;
  Bind(library, "cuInit", d.cuInit, missing);
  Bind(library, "cuDeviceGetCount", d.cuDeviceGetCount, missing);
  Bind(library, "cuDeviceGet", d.cuDeviceGet, missing);
  Bind(library, "cuDeviceGetAttribute", d.cuDeviceGetAttribute, missing);
  Bind(library, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain,
       missing);
  Bind(library, "cuDevicePrimaryCtxRelease_v2", d.cuDevicePrimaryCtxRelease,
       missing);
  Bind(library, "cuCtxSetCurrent", d.cuCtxSetCurrent, missing);
  Bind(library, "cuStreamCreate", d.cuStreamCreate, missing);
  Bind(library, "cuStreamDestroy_v2", d.cuStreamDestroy, missing);
  Bind(library, "cuStreamSynchronize", d.cuStreamSynchronize, missing);
  Bind(library, "cuMemAlloc_v2", d.cuMemAlloc, missing);
  Bind(library, "cuMemFree_v2", d.cuMemFree, missing);
  Bind(library, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD, missing);
  Bind(library, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH, missing);
  Bind(library, "cuMemcpyDtoHAsync_v2", d.cuMemcpyDtoHAsync, missing);
  Bind(library, "cuMemcpyDtoDAsync_v2", d.cuMemcpyDtoDAsync, missing);
  Bind(library, "cuMemsetD8_v2", d.cuMemsetD8, missing);
  Bind(library, "cuMemsetD8Async", d.cuMemsetD8Async, missing);
  Bind(library, "cuModuleLoadData", d.cuModuleLoadData, missing);
  Bind(library, "cuModuleUnload", d.cuModuleUnload, missing);
  Bind(library, "cuModuleGetFunction", d.cuModuleGetFunction, missing);
  Bind(library, "cuFuncSetAttribute", d.cuFuncSetAttribute, missing);
  Bind(library, "cuFuncGetAttribute", d.cuFuncGetAttribute, missing);
  Bind(library, "cuLaunchKernel", d.cuLaunchKernel, missing);
  Bind(library, "cuGetErrorString", d.cuGetErrorString, missing);
  std::string no_graphs;
  Bind(library, "cuStreamBeginCapture_v2", d.cuStreamBeginCapture, no_graphs);
  Bind(library, "cuStreamEndCapture", d.cuStreamEndCapture, no_graphs);
  Bind(library, "cuGraphInstantiateWithFlags", d.cuGraphInstantiateWithFlags,
       no_graphs);
  Bind(library, "cuGraphLaunch", d.cuGraphLaunch, no_graphs);
  Bind(library, "cuGraphExecDestroy", d.cuGraphExecDestroy, no_graphs);
  Bind(library, "cuGraphDestroy", d.cuGraphDestroy, no_graphs);
  if (!no_graphs.empty()) d.cuGraphDestroy = nullptr;
  // cuEventElapsedTime_v2 (CUDA 12.8 on) where the driver has it.
  std::string no_events;
  Bind(library, "cuEventCreate", d.cuEventCreate, no_events);
  Bind(library, "cuEventRecord", d.cuEventRecord, no_events);
  Bind(library, "cuEventSynchronize", d.cuEventSynchronize, no_events);
  if (dlsym(library, "cuEventElapsedTime_v2") != nullptr) {
    Bind(library, "cuEventElapsedTime_v2", d.cuEventElapsedTime, no_events);
  } else {
    Bind(library, "cuEventElapsedTime", d.cuEventElapsedTime, no_events);
  }
  Bind(library, "cuEventDestroy_v2", d.cuEventDestroy, no_events);
  if (!no_events.empty()) d.cuEventDestroy = nullptr;
  std::string no_name;
  Bind(library, "cuDeviceGetName", d.cuDeviceGetName, no_name);
  std::string no_tma;
  Bind(library, "cuTensorMapEncodeTiled", d.cuTensorMapEncodeTiled, no_tma);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no CUDA device: libcuda.so.1 lacks ", missing, " (driver too old?)"));
  }
  if (CuResult r = d.cuInit(0); r != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("no CUDA device: cuInit failed (error ", r, ")"));
  }
  int count = 0;
  if (d.cuDeviceGetCount(&count) != 0 || count == 0) {
    return absl::FailedPreconditionError(
        "no CUDA device: the driver sees none");
  }
  return d;
}

}  // namespace

absl::StatusOr<const CudaDriver*> LoadCudaDriver() {
  static const absl::StatusOr<CudaDriver>* const driver =
      new absl::StatusOr<CudaDriver>(Load());
  if (!driver->ok()) return driver->status();
  return &**driver;
}

std::string CudaDeviceDescription(const CudaDriver& driver, CuDevice device) {
  char name[256] = {};
  if (driver.cuDeviceGetName == nullptr ||
      driver.cuDeviceGetName(name, sizeof(name) - 1, device) != 0) {
    std::strcpy(name, "CUDA device");
  }
  int major = 0, minor = 0;
  (void)driver.cuDeviceGetAttribute(&major, kAttrComputeCapabilityMajor,
                                    device);
  (void)driver.cuDeviceGetAttribute(&minor, kAttrComputeCapabilityMinor,
                                    device);
  return absl::StrCat(name, " (sm_", major, minor, ")");
}

absl::Status CheckCuda(const CudaDriver& driver, CuResult result,
                       const std::string& what) {
  if (result == 0) return absl::OkStatus();
  const char* text = nullptr;
  if (driver.cuGetErrorString(result, &text) != 0 || text == nullptr) {
    text = "unknown error";
  }
  return absl::InternalError(
      absl::StrCat(what, ": CUDA error ", result, ": ", text));
}

}  // namespace xlite::runtime::cuda
