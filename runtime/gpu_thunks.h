#ifndef XLITE_RUNTIME_GPU_THUNKS_H_
#define XLITE_RUNTIME_GPU_THUNKS_H_

// What a compiled GPU module runs: a sequence of thunks over buffer slices.
// A kernel launch (grid, block, shared bytes, one slice per pointer
// argument), device copies and fills, a while loop whose condition
// sequence leaves a pred on the device, a conditional choosing a branch
// sequence by a pred or s32 on the device, and a GEMM (the cuBLASLt custom
// call, with the algorithm the autotuner chose, if any; an emulator runs
// it with a reference GEMM). A device (the CUDA driver, or the emulator)
// interprets them.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/buffer_assignment.h"
#include "runtime/block_scaled_dot.h"
#include "runtime/gemm_algorithm.h"
#include "runtime/gemm_description.h"

namespace xlite::runtime {

/// What one execution of a kernel or GEMM thunk costs by the compiler's
/// model (gpu_backend/thunk_cost.h), for profiles: a runtime that has no
/// HLO (a .xlx) still knows each thunk's bytes and FLOPs.
struct ThunkCost {
  /// Bytes read and written in device memory.
  int64_t bytes = 0;
  /// Arithmetic operations.
  int64_t flops = 0;
  /// The key of the target's peak_tflops these FLOPs compare against
  /// ("f32", "tf32", "bf16", ...).
  std::string flop_type;
  /// What it computes, for people: "fusion:kLoop:add", "reduce", "gemm".
  std::string label;
  bool operator==(const ThunkCost&) const = default;
};

/// A TMA tensor map a kernel takes by value (128 bytes, 64-byte aligned)
/// after its pointer arguments, in order: the buffer of pointer argument
/// `argument` viewed as a tensor of dims.size() (1 to 5) dimensions,
/// innermost first, whose indices step `strides` bytes (strides[0] is the
/// element size), copied into shared memory in boxes of `box` elements,
/// 128-byte swizzled when `swizzle_128b` (16-byte chunk c of 128-byte row
/// r lands at chunk c ^ (r % 8)); elements past `dims` read as zero. A
/// CUDA device encodes it with cuTensorMapEncodeTiled before each launch,
/// the emulator as an EmulatedTensorMap
/// (gpu_backend/emulator/emulated_tensor_map.h).
struct TensorMapDescription {
  int64_t argument = 0;
  int64_t element_bytes = 1;  // 1, 2 or 4
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  std::vector<int64_t> box;
  bool swizzle_128b = false;
  bool operator==(const TensorMapDescription&) const = default;
};

struct Thunk {
  enum class Kind {
    kKernel,
    kMemcpy,
    kMemset,
    kWhile,
    kConditional,
    kGemm,
    kBlockScaledDot,
  };
  Kind kind = Kind::kKernel;
  /// The instruction it comes from (for messages and profiles).
  std::string instruction;

  // kKernel: the kernel's symbol, its launch and its arguments.
  std::string kernel;
  int64_t grid = 1;
  int64_t block = 1;
  int64_t shared_bytes = 0;
  /// Threads use barriers or shuffles (emulators schedule them as fibers).
  bool cooperative = false;
  std::vector<Slice> arguments;
  /// The tensor maps the kernel takes after `arguments`' pointers.
  std::vector<TensorMapDescription> tensor_maps;

  // kMemcpy: source -> destination; kMemset: destination filled by `byte`.
  Slice source;
  Slice destination;
  uint8_t byte = 0;

  // kWhile: children[0] computes the pred at `predicate`, children[1] is
  // the body (see trip_count). kConditional: `predicate` holds a pred
  // (children[0] runs on true, children[1] on false) or an s32 branch index
  // (children[i]; out of range: the last), as `index_is_pred` says.
  Slice predicate;
  bool index_is_pred = false;
  /// kWhile: the body runs exactly this many times when it is known at
  /// compile time (a counted loop); the device then skips the condition
  /// and reads nothing back. -1: unknown, the condition decides.
  int64_t trip_count = -1;
  std::vector<std::vector<Thunk>> children;

  // kGemm: what the call computes; `arguments` holds one slice per
  // operand, then one per result leaf (GemmDescription's order). Shared:
  // thunks are copied, the description never changes.
  std::shared_ptr<const GemmDescription> gemm;
  /// kGemm: the algorithm the autotuner chose; none: the device asks
  /// cuBLASLt's heuristic and runs its first answer.
  std::optional<GemmAlgorithm> gemm_algorithm;

  // kBlockScaledDot: the __cudnn$blockScaledDot call (a cuDNN graph on a
  // GPU, a reference on the emulator); `arguments` holds one slice per
  // operand, then the result and the workspace.
  std::shared_ptr<const BlockScaledDotDescription> block_scaled_dot;

  /// kKernel, kGemm, kBlockScaledDot: the cost of one execution (zero
  /// elsewhere).
  ThunkCost cost;
};

using ThunkSequence = std::vector<Thunk>;

/// One line per thunk, nested sequences indented (hlo-opt's thunk dump).
std::string ThunkSequenceToString(const ThunkSequence& thunks, int indent = 0);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GPU_THUNKS_H_
