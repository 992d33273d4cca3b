#ifndef XLITE_CPU_BACKEND_LDEXP_LOWERING_H_
#define XLITE_CPU_BACKEND_LDEXP_LOWERING_H_

// Replaces the calls of xlite_ldexp_f32 and its vector variants
// (codegen/ldexp.h) once the vectorizers have run: a variant of 4, 8 or 16
// lanes becomes one vscalefps on an AVX-512 host (the 4- and 8-lane ones
// with AVX-512VL), anything else the portable two-multiply form. The
// declarations go with them, so no call survives to the linker.

#include "llvm/IR/PassManager.h"
#include "llvm/Target/TargetMachine.h"

namespace xlite::cpu {

class LowerLdexpCalls : public llvm::PassInfoMixin<LowerLdexpCalls> {
 public:
  /// Uses vscalefps when `machine`'s features have it.
  explicit LowerLdexpCalls(const llvm::TargetMachine* machine);

  llvm::PreservedAnalyses run(llvm::Module& module,
                              llvm::ModuleAnalysisManager&);

 private:
  bool avx512f_ = false;
  bool avx512vl_ = false;
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_LDEXP_LOWERING_H_
