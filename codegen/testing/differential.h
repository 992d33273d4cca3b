#ifndef XLITE_CODEGEN_TESTING_DIFFERENTIAL_H_
#define XLITE_CODEGEN_TESTING_DIFFERENTIAL_H_

// Test-only: checks JIT-compiled elementwise instructions against the
// evaluator, bit for bit. Each case is a module whose entry root is the
// instruction under test over parameters; cases the verifier rejects are
// skipped, cases the evaluator rejects must be rejected by the emitter too.
//
// The evaluator runs in the JIT's denormal mode (ElementwiseJit::Options).
// Results agree when their bits are equal, except that any NaN matches any
// NaN of the same type (the evaluator is not bit-specific about NaN payloads:
// the compiler may fold its float -> double -> float round trips) and a pred
// produced by bitcast-convert is compared as a truth value (the scalar
// representation of pred is i1).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/testing/elementwise_jit.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"
#include "hlo/ir/shape.h"

namespace xlite::codegen::testing {

/// "HloModule m, ENTRY e { p0 = ... parameter(0) ... ROOT r = <result>
/// <opcode>(p0, ...)<attributes> }" (attributes start with ", " if any).
std::string OneInstructionModule(const std::string& opcode, const Shape& result,
                                 const std::vector<Shape>& operands,
                                 const std::string& attributes = "");

class DifferentialRunner {
 public:
  struct Counts {
    int64_t cases = 0;          // accepted by the verifier
    int64_t skipped = 0;        // rejected by the verifier
    int64_t both_rejected = 0;  // evaluator and emitter both report errors
    int64_t elements = 0;       // result elements compared
  };

  explicit DifferentialRunner(ElementwiseJit::Options options = {});
  ~DifferentialRunner();

  /// Adds a case; false when the verifier rejects the module (skipped).
  /// Parse errors are errors (the test wrote bad text).
  absl::StatusOr<bool> Add(const std::string& hlo,
                           std::vector<Literal> arguments);

  /// Compiles and runs every case added since the last Check and compares
  /// the results with the evaluator's; returns one message per
  /// disagreement (the first few elements of each case).
  std::vector<std::string> Check();

  const Counts& counts() const { return counts_; }

 private:
  struct Case;
  ElementwiseJit jit_;
  DenormalMode denormals_;  // the evaluator's too
  std::vector<std::unique_ptr<Case>> cases_;
  Counts counts_;
};

}  // namespace xlite::codegen::testing

#endif  // XLITE_CODEGEN_TESTING_DIFFERENTIAL_H_
