#ifndef XLITE_CODEGEN_TESTING_ELEMENTWISE_JIT_H_
#define XLITE_CODEGEN_TESTING_ELEMENTWISE_JIT_H_

// Test-only: JIT-compiles kernels that apply one elementwise instruction
// over arrays, through codegen/scalar_ops, with LLVM ORC's LLJIT on the
// host. libm symbols resolve from the process, the complex helpers from
// ScalarRuntimeSymbols().
//
//   ElementwiseJit jit;
//   int k = jit.AddKernel(*module->entry()->root()).value();
//   XLITE_CHECK_OK(jit.Compile());
//   absl::StatusOr<Literal> out = jit.Run(k, root, {&a, &b});

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/denormal_mode.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/literal.h"

namespace xlite::codegen::testing {

class ElementwiseJit {
 public:
  /// `void kernel(const void** operands, void* result, int64_t n)`: n
  /// iterations over elements (of the result; of the operand for a
  /// bitcast-convert to a narrower type, each giving several results).
  using Kernel = void (*)(const void** operands, void* result, int64_t n);

  struct Options {
    /// Run LLVM's -O2 pipeline before compiling, as a backend would.
    bool optimize = true;
    /// The mode the kernels run in (Run sets it around the call); with
    /// kFlushToZero they are emitted as the CPU backend emits its code
    /// (codegen/denormals.h).
    DenormalMode denormals = DenormalMode::kIeee;
  };

  ElementwiseJit() : ElementwiseJit(Options{}) {}
  explicit ElementwiseJit(Options options);
  ~ElementwiseJit();

  /// Emits a kernel for `instruction` (an elementwise or conversion
  /// opcode); operands with one element while the result has more are
  /// broadcast. Returns its index, or EmitElementwise's error.
  absl::StatusOr<int> AddKernel(const HloInstruction& instruction);

  /// Compiles every kernel added since the last Compile.
  absl::Status Compile();

  /// The compiled kernel `index`.
  Kernel kernel(int index) const { return kernels_[index]; }

  /// Runs compiled kernel `index` (built for `instruction`) on operand
  /// literals, in the Options' denormal mode; returns the result literal.
  absl::StatusOr<Literal> Run(int index, const HloInstruction& instruction,
                              absl::Span<const Literal* const> operands) const;

  /// The IR of the kernels not yet compiled (for failure messages).
  std::string PendingIr() const;

 private:
  struct State;
  Options options_;
  std::unique_ptr<State> state_;
  std::vector<Kernel> kernels_;
};

}  // namespace xlite::codegen::testing

#endif  // XLITE_CODEGEN_TESTING_ELEMENTWISE_JIT_H_
