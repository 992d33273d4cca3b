#ifndef XLITE_RUNTIME_CUDA_CUDNN_BLOCK_SCALED_DOT_H_
#define XLITE_RUNTIME_CUDA_CUDNN_BLOCK_SCALED_DOT_H_

// Block-scaled dot thunks on a CUDA device as cuDNN graphs
// (../shared/specs/block-scaling.md): tensors a [B,M,K], b viewed as
// [B,K,N], their scales (F8_128x4 reordering), the optional [1,1,1]
// global scale and the output, with unique ids in that order; a block
// scale dequantize of each side, a matmul in FLOAT and, with a global
// scale, a pointwise multiply. cuDNN is loaded at run time with dlopen
// ($XLITE_CUDNN, else libcudnn.so.9). The graph's tensors and operations
// are built and finalized without a device (what the tests here check);
// the operation graph, the engine heuristics and the execution plan need
// one, and are made once per thunk when it first runs.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/block_scaled_dot.h"
#include "runtime/cuda/cudnn_api.h"

namespace xlite::runtime::cuda {

/// One tensor of the graph as cuDNN sees it (always rank 3).
struct CudnnTensorSpec {
  std::string name;
  int64_t uid = 0;
  int32_t data_type = dnn::kFloat;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  bool is_virtual = false;
  int32_t reordering = dnn::kReorderingNone;
};

/// One operation: a block scale dequantize (inputs data, scale), a matmul
/// (inputs a, b) or a pointwise multiply (inputs x, b); by unique id.
struct CudnnOpSpec {
  enum class Kind { kDequantize, kMatmul, kMultiply };
  Kind kind = Kind::kMatmul;
  std::vector<int64_t> inputs;
  int64_t output = 0;
  int32_t block_size = 0;
};

struct CudnnGraphSpec {
  std::vector<CudnnTensorSpec> tensors;
  std::vector<CudnnOpSpec> ops;
  /// The unique ids of the thunk's arguments in argument order (operands,
  /// then the output; the workspace has none).
  std::vector<int64_t> argument_uids;
};

/// The graph of `dot`.
CudnnGraphSpec BlockScaledDotGraph(const BlockScaledDotDescription& dot);

/// The graph one line per tensor and operation (for tests and messages).
std::string CudnnGraphToString(const CudnnGraphSpec& graph);

/// The loaded library (once per process), or a FailedPrecondition naming
/// what was tried.
absl::StatusOr<const dnn::Api*> LoadCudnn();

/// Builds and finalizes every tensor and operation descriptor of `dot`'s
/// graph, then destroys them: cuDNN checks each attribute and each
/// operation's tensors, which needs the library but no GPU.
absl::Status CheckCudnnGraphDescriptors(const BlockScaledDotDescription& dot);

class CudnnBlockScaledDotRunner {
 public:
  /// Loads cuDNN and creates a handle (the context must be current).
  static absl::StatusOr<std::unique_ptr<CudnnBlockScaledDotRunner>> Create();
  ~CudnnBlockScaledDotRunner();

  /// Enqueues `dot` on `stream` (a CUstream); `arguments` holds the device
  /// address of each operand, then of the output and of the workspace.
  /// The execution plan is made on the first call for a description (the
  /// first engine configuration of cuDNN's heuristics that finalizes with
  /// a workspace that fits; an error lists every one tried and why).
  absl::Status Run(const BlockScaledDotDescription& dot,
                   const std::vector<uint64_t>& arguments, void* stream);

 private:
  struct Plan;
  CudnnBlockScaledDotRunner(const dnn::Api& api, dnn::Handle* handle);
  absl::StatusOr<const Plan*> PlanFor(const BlockScaledDotDescription& dot);

  const dnn::Api& api_;
  dnn::Handle* handle_;
  std::map<const BlockScaledDotDescription*, std::unique_ptr<Plan>> plans_;
};

}  // namespace xlite::runtime::cuda

#endif  // XLITE_RUNTIME_CUDA_CUDNN_BLOCK_SCALED_DOT_H_
