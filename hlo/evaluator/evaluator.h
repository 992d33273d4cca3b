#ifndef XLITE_HLO_EVALUATOR_EVALUATOR_H_
#define XLITE_HLO_EVALUATOR_EVALUATOR_H_

// The reference interpreter: evaluates any verified module, instruction by
// instruction, with XLA's semantics. It is the ground truth constant
// folding, passes and backends are checked against.
//
//   absl::StatusOr<Literal> result = EvaluateModule(module, arguments);
//
// Modules with collectives run on N simulated devices (replicas x
// partitions), one thread each; see EvaluateOnDevices.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/denormal_mode.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"

namespace xlite {

/// A custom-call implementation: the instruction (for its shape, backend
/// config and attributes) and its operand values; returns the result.
using CustomCallFn = std::function<absl::StatusOr<Literal>(
    const HloInstruction& call, absl::Span<const Literal* const> operands)>;

/// Custom-call targets the evaluator can run. The global registry ships
/// reference implementations (TopK, LAPACK potrf/trsm as JAX emits them on
/// CPU, the block-scaled dot and (de)quantize calls of block-scaling.md).
class CustomCallRegistry {
 public:
  static CustomCallRegistry& Global();
  void Register(const std::string& target, CustomCallFn fn);
  const CustomCallFn* Find(const std::string& target) const;
  std::vector<std::string> Targets() const;

 private:
  absl::flat_hash_map<std::string, CustomCallFn> fns_;
};

struct EvaluatorOptions {
  /// Seed of the `rng` opcode's generator (rng-bit-generator is exact and
  /// needs none).
  uint64_t rng_seed = 42;
  /// A while loop running longer than this is reported (0: no limit).
  int64_t max_loop_iterations = 0;
  /// Custom calls; nullptr means the global registry.
  const CustomCallRegistry* custom_calls = nullptr;
  /// The float hardware's treatment of f32 and f64 subnormals while the
  /// evaluator runs (hlo/ir/denormal_mode.h; the caller's mode is restored
  /// after). kFlushToZero is XLA:CPU's mode at run time, and the CPU
  /// backend's: a subnormal operand reads as zero, a subnormal result is
  /// zero. kIeee keeps gradual underflow, as XLA's compile-time constant
  /// folding does (passes fold with it) and as XLA:GPU computes f32 and f64.
  DenormalMode denormals = DenormalMode::kFlushToZero;
};

/// Runs the entry computation on `arguments` (one per entry parameter) on a
/// single device (replica 0, partition 0). Collectives over one device act
/// as identities.
absl::StatusOr<Literal> EvaluateModule(const HloModule& module,
                                       absl::Span<const Literal> arguments,
                                       const EvaluatorOptions& options = {});

/// Runs a computation on arguments (for constant folding and tests).
absl::StatusOr<Literal> EvaluateComputation(
    const HloComputation& computation,
    absl::Span<const Literal* const> arguments,
    const EvaluatorOptions& options = {});

/// Evaluates one instruction on given operand values (constant folding).
absl::StatusOr<Literal> EvaluateInstruction(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands,
    const EvaluatorOptions& options = {});

/// Runs the module on replicas x partitions simulated devices, device d =
/// replica * partitions + partition getting `arguments[d]`; returns each
/// device's result. Collectives exchange values between the devices'
/// threads; devices that wait on collectives no one else joins are
/// reported as a deadlock instead of hanging.
absl::StatusOr<std::vector<Literal>> EvaluateOnDevices(
    const HloModule& module, int64_t replicas, int64_t partitions,
    const std::vector<std::vector<Literal>>& arguments,
    const EvaluatorOptions& options = {});

}  // namespace xlite

#endif  // XLITE_HLO_EVALUATOR_EVALUATOR_H_
