#ifndef XLITE_RUNTIME_CUDA_CUDNN_API_H_
#define XLITE_RUNTIME_CUDA_CUDNN_API_H_

// The slice of cuDNN 9's backend (graph) C API xlite uses, declared here
// with the values NVIDIA's public cudnn_graph.h gives them, so nothing
// needs cuDNN headers or links cuDNN at build time: the library is loaded
// with dlopen (cudnn_graph.h, LoadCudnn).

#include <cstddef>
#include <cstdint>

namespace xlite::runtime::cuda::dnn {

// cudnnStatus_t.
inline constexpr int kSuccess = 0;

// cudnnDataType_t.
inline constexpr int32_t kFloat = 0;
inline constexpr int32_t kHalf = 2;
inline constexpr int32_t kBFloat16 = 9;
inline constexpr int32_t kFp8E4M3 = 12;
inline constexpr int32_t kFp8E5M2 = 13;
inline constexpr int32_t kFp8E8M0 = 15;
inline constexpr int32_t kFp4E2M1 = 16;

// cudnnBackendDescriptorType_t.
inline constexpr int32_t kPointwiseDescriptor = 0;
inline constexpr int32_t kEngineCfgDescriptor = 3;
inline constexpr int32_t kEngineHeurDescriptor = 4;
inline constexpr int32_t kExecutionPlanDescriptor = 5;
inline constexpr int32_t kOperationPointwiseDescriptor = 13;
inline constexpr int32_t kOperationGraphDescriptor = 15;
inline constexpr int32_t kVariantPackDescriptor = 16;
inline constexpr int32_t kTensorDescriptor = 17;
inline constexpr int32_t kMatmulDescriptor = 18;
inline constexpr int32_t kOperationMatmulDescriptor = 19;
inline constexpr int32_t kOperationBlockScaleDequantizeDescriptor = 37;

// cudnnBackendAttributeType_t.
inline constexpr int32_t kTypeHandle = 0;
inline constexpr int32_t kTypeDataType = 1;
inline constexpr int32_t kTypeBoolean = 2;
inline constexpr int32_t kTypeInt64 = 3;
inline constexpr int32_t kTypeVoidPtr = 6;
inline constexpr int32_t kTypeHeurMode = 8;
inline constexpr int32_t kTypePointwiseMode = 14;
inline constexpr int32_t kTypeBackendDescriptor = 15;
inline constexpr int32_t kTypeTensorReorderingMode = 20;
inline constexpr int32_t kTypeInt32 = 23;

// cudnnBackendAttributeName_t.
inline constexpr int32_t kPointwiseMode = 0;
inline constexpr int32_t kPointwiseMathPrec = 1;
inline constexpr int32_t kEngineHeurMode = 200;
inline constexpr int32_t kEngineHeurOperationGraph = 201;
inline constexpr int32_t kEngineHeurResults = 202;
inline constexpr int32_t kExecutionPlanHandle = 400;
inline constexpr int32_t kExecutionPlanEngineConfig = 401;
inline constexpr int32_t kExecutionPlanWorkspaceSize = 402;
inline constexpr int32_t kOperationPointwisePwDescriptor = 750;
inline constexpr int32_t kOperationPointwiseXDesc = 751;
inline constexpr int32_t kOperationPointwiseBDesc = 752;
inline constexpr int32_t kOperationPointwiseYDesc = 753;
inline constexpr int32_t kOperationGraphHandle = 800;
inline constexpr int32_t kOperationGraphOps = 801;
inline constexpr int32_t kTensorByteAlignment = 900;
inline constexpr int32_t kTensorDataType = 901;
inline constexpr int32_t kTensorDimensions = 902;
inline constexpr int32_t kTensorStrides = 903;
inline constexpr int32_t kTensorUniqueId = 906;
inline constexpr int32_t kTensorIsVirtual = 907;
inline constexpr int32_t kTensorReorderingMode = 909;
inline constexpr int32_t kVariantPackUniqueIds = 1000;
inline constexpr int32_t kVariantPackDataPointers = 1001;
inline constexpr int32_t kVariantPackWorkspace = 1003;
inline constexpr int32_t kMatmulCompType = 1500;
inline constexpr int32_t kOperationMatmulADesc = 1520;
inline constexpr int32_t kOperationMatmulBDesc = 1521;
inline constexpr int32_t kOperationMatmulCDesc = 1522;
inline constexpr int32_t kOperationMatmulDesc = 1523;
inline constexpr int32_t kBlockScaleDequantizeXDesc = 2600;
inline constexpr int32_t kBlockScaleDequantizeScaleDesc = 2601;
inline constexpr int32_t kBlockScaleDequantizeYDesc = 2602;
inline constexpr int32_t kBlockScaleDequantizeMathPrec = 2603;
inline constexpr int32_t kBlockScaleDequantizeBlockSize = 2604;

// cudnnPointwiseMode_t, cudnnBackendHeurMode_t,
// cudnnBackendTensorReordering_t.
inline constexpr int32_t kPointwiseMul = 1;
inline constexpr int32_t kHeurModeA = 3;
inline constexpr int32_t kReorderingNone = 0;
inline constexpr int32_t kReorderingF8_128x4 = 3;

struct Handle;
struct Descriptor;

/// The entry points (cudnnStatus_t results: 0 is success).
struct Api {
  size_t (*GetVersion)();
  const char* (*GetErrorString)(int);
  void (*GetLastErrorString)(char*, size_t);
  int (*Create)(Handle**);
  int (*Destroy)(Handle*);
  int (*SetStream)(Handle*, void* stream);
  int (*BackendCreateDescriptor)(int32_t type, Descriptor**);
  int (*BackendDestroyDescriptor)(Descriptor*);
  int (*BackendFinalize)(Descriptor*);
  int (*BackendSetAttribute)(Descriptor*, int32_t name, int32_t type,
                             int64_t count, const void* values);
  int (*BackendGetAttribute)(Descriptor*, int32_t name, int32_t type,
                             int64_t requested, int64_t* returned,
                             void* values);
  int (*BackendExecute)(Handle*, Descriptor* plan, Descriptor* variant_pack);
};

}  // namespace xlite::runtime::cuda::dnn

#endif  // XLITE_RUNTIME_CUDA_CUDNN_API_H_
