#ifndef XLITE_CPU_BACKEND_READ_AHEAD_H_
#define XLITE_CPU_BACKEND_READ_AHEAD_H_

// Read-ahead prefetches for kernel chains (kernel_chain.h). A chain's
// first member to read an input array takes each block of it from memory
// while the cores' arithmetic waits; a later member that reads the same
// block again (from the cache) is often compute-bound (a softmax's exp)
// while memory idles. That member prefetches the next block of the array
// as it goes, one prefetch per vector load, so the first member finds it
// in the cache next time: the two overlap.
//
// The request names the array by its slice; SliceAliasing (alias_scopes.h)
// gives that slice's accesses in the function an alias scope, which LLVM
// keeps on the widened loads, and records the request as function metadata
// naming the scope. After vectorization InsertReadAheadPrefetches puts a
// prefetch of the address `bytes` further before each vector load in that
// scope.

#include <cstdint>

#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/PassManager.h"

namespace xlite::cpu {

/// The function metadata kind: a tuple of {scope, i64 bytes} pairs.
inline constexpr char kReadAheadMetadata[] = "xlite.read_ahead";

/// Records on `f` that its vector loads in alias scope `scope` prefetch
/// `bytes` ahead.
void AddReadAhead(llvm::Function& f, llvm::MDNode* scope, int64_t bytes);

/// The pass (after vectorization) that inserts the prefetches.
class InsertReadAheadPrefetches
    : public llvm::PassInfoMixin<InsertReadAheadPrefetches> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& f,
                              llvm::FunctionAnalysisManager&);
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_READ_AHEAD_H_
