#ifndef XLITE_RUNTIME_CUDA_CUBLAS_LT_API_H_
#define XLITE_RUNTIME_CUDA_CUBLAS_LT_API_H_

// The slice of the cuBLASLt C API xlite uses, declared here with the
// values NVIDIA's public cublasLt.h, cublas_api.h and library_types.h give
// them (stable across CUDA 12 and 13), so that nothing needs CUDA headers
// or links cuBLASLt at build time: the library is loaded with dlopen
// (cublas_lt.h).

#include <cstddef>
#include <cstdint>

namespace xlite::runtime::cuda::lt {

// cudaDataType_t.
inline constexpr int32_t kR32F = 0;
inline constexpr int32_t kR64F = 1;
inline constexpr int32_t kR16F = 2;
inline constexpr int32_t kC32F = 4;
inline constexpr int32_t kC64F = 5;
inline constexpr int32_t kR16BF = 14;
inline constexpr int32_t kR8FE4M3 = 28;
inline constexpr int32_t kR8FE5M2 = 29;

// cublasComputeType_t.
inline constexpr int32_t kCompute32F = 68;
inline constexpr int32_t kCompute64F = 70;
inline constexpr int32_t kCompute32FFastTF32 = 77;

// cublasOperation_t.
inline constexpr int32_t kOpN = 0;
inline constexpr int32_t kOpT = 1;

// cublasLtOrder_t.
inline constexpr int32_t kOrderCol = 0;
inline constexpr int32_t kOrderRow = 1;

// cublasLtEpilogue_t.
inline constexpr int32_t kEpilogueDefault = 1;
inline constexpr int32_t kEpilogueRelu = 2;
inline constexpr int32_t kEpilogueBias = 4;
inline constexpr int32_t kEpilogueReluBias = 2 | 4;
inline constexpr int32_t kEpilogueGelu = 32;
inline constexpr int32_t kEpilogueGeluAux = 32 | 128;
inline constexpr int32_t kEpilogueGeluBias = 32 | 4;
inline constexpr int32_t kEpilogueGeluAuxBias = 32 | 128 | 4;

// cublasLtMatmulDescAttributes_t.
inline constexpr int32_t kDescPointerMode = 2;
inline constexpr int32_t kDescTransA = 3;
inline constexpr int32_t kDescTransB = 4;
inline constexpr int32_t kDescEpilogue = 7;
inline constexpr int32_t kDescBiasPointer = 8;
inline constexpr int32_t kDescEpilogueAuxPointer = 11;
inline constexpr int32_t kDescEpilogueAuxLd = 12;
inline constexpr int32_t kDescEpilogueAuxBatchStride = 13;
inline constexpr int32_t kDescAScalePointer = 17;
inline constexpr int32_t kDescBScalePointer = 18;
inline constexpr int32_t kDescCScalePointer = 19;
inline constexpr int32_t kDescDScalePointer = 20;
inline constexpr int32_t kDescAmaxDPointer = 21;
inline constexpr int32_t kDescBiasDataType = 26;

// cublasLtMatrixLayoutAttribute_t.
inline constexpr int32_t kLayoutOrder = 1;
inline constexpr int32_t kLayoutBatchCount = 5;
inline constexpr int32_t kLayoutStridedBatchOffset = 6;

// cublasLtMatmulPreferenceAttributes_t.
inline constexpr int32_t kPrefMaxWorkspaceBytes = 1;

// cublasLtPointerMode_t: alpha and beta on the host.
inline constexpr int32_t kPointerModeHost = 0;

// cublasLtMatmulAlgoConfigAttributes_t (for describing an algorithm).
inline constexpr int32_t kAlgoConfigId = 0;              // int32_t
inline constexpr int32_t kAlgoConfigTileId = 1;          // uint32_t
inline constexpr int32_t kAlgoConfigSplitKNum = 2;       // int32_t
inline constexpr int32_t kAlgoConfigReduction = 3;       // uint32_t
inline constexpr int32_t kAlgoConfigCtaSwizzling = 4;    // uint32_t
inline constexpr int32_t kAlgoConfigCustomOption = 5;    // uint32_t
inline constexpr int32_t kAlgoConfigStagesId = 6;        // uint32_t
inline constexpr int32_t kAlgoConfigInnerShapeId = 7;    // uint16_t
inline constexpr int32_t kAlgoConfigClusterShapeId = 8;  // uint16_t

struct Handle;
struct MatmulDesc;
struct MatrixLayout;
struct Preference;
struct Stream;

/// cublasLtMatmulAlgo_t and cublasLtMatmulHeuristicResult_t, as laid out
/// by the public header.
struct MatmulAlgo {
  uint64_t data[8];
};
struct HeuristicResult {
  MatmulAlgo algo;
  size_t workspace_size;
  int32_t state;
  float waves_count;
  int32_t reserved[4];
};

/// The entry points (cublasStatus_t results: 0 is success).
struct Api {
  int (*Create)(Handle**);
  int (*Destroy)(Handle*);
  int (*MatmulDescCreate)(MatmulDesc**, int32_t compute, int32_t scale);
  int (*MatmulDescDestroy)(MatmulDesc*);
  int (*MatmulDescSetAttribute)(MatmulDesc*, int32_t, const void*, size_t);
  int (*MatrixLayoutCreate)(MatrixLayout**, int32_t type, uint64_t rows,
                            uint64_t cols, int64_t ld);
  int (*MatrixLayoutDestroy)(MatrixLayout*);
  int (*MatrixLayoutSetAttribute)(MatrixLayout*, int32_t, const void*, size_t);
  int (*MatmulPreferenceCreate)(Preference**);
  int (*MatmulPreferenceDestroy)(Preference*);
  int (*MatmulPreferenceSetAttribute)(Preference*, int32_t, const void*,
                                      size_t);
  int (*MatmulAlgoGetHeuristic)(Handle*, MatmulDesc*, MatrixLayout*,
                                MatrixLayout*, MatrixLayout*, MatrixLayout*,
                                Preference*, int requested,
                                HeuristicResult* results, int* returned);
  int (*Matmul)(Handle*, MatmulDesc*, const void* alpha, const void* a,
                MatrixLayout*, const void* b, MatrixLayout*, const void* beta,
                const void* c, MatrixLayout*, void* d, MatrixLayout*,
                const MatmulAlgo*, void* workspace, size_t workspace_bytes,
                Stream* stream);
  // Optional (null when the library lacks them): what the autotuner uses
  // to name the library build and describe an algorithm.
  size_t (*GetVersion)();
  int (*MatmulAlgoConfigGetAttribute)(const MatmulAlgo*, int32_t, void*, size_t,
                                      size_t* written);
};

}  // namespace xlite::runtime::cuda::lt

#endif  // XLITE_RUNTIME_CUDA_CUBLAS_LT_API_H_
