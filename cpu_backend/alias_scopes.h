#ifndef XLITE_CPU_BACKEND_ALIAS_SCOPES_H_
#define XLITE_CPU_BACKEND_ALIAS_SCOPES_H_

// What the buffer assignment knows and LLVM cannot: two slices whose byte
// ranges do not overlap (different allocations, or disjoint ranges of one)
// never alias. Every address the emitter makes from a slice is noted; once
// the module is emitted, each load and store reached from a noted address
// gets the slice's alias scope and, as noalias, the scopes of the other
// slices its function touches that are disjoint from it. LLVM then keeps
// values in registers across stores to other buffers and vectorizes loops
// without run-time overlap checks. Accesses it cannot trace to a slice
// (and library calls) make no claims.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "llvm/IR/Module.h"
#include "runtime/buffer_assignment.h"

namespace xlite::cpu {

class SliceAliasing {
 public:
  /// `address` points at the first byte of `slice`.
  void Note(llvm::Value* address, const runtime::Slice& slice) {
    slices_[address] = slice;
  }

  /// Asks that `f`'s vector loads of `slice` prefetch `bytes` ahead
  /// (read_ahead.h); Annotate records it once the slice has a scope there.
  void ReadAhead(const llvm::Function* f, const runtime::Slice& slice,
                 int64_t bytes) {
    read_ahead_[f].push_back({slice, bytes});
  }

  /// Annotates the loads and stores of every function of `module`.
  void Annotate(llvm::Module& module) const;

 private:
  // The slice `pointer` was computed from (through GEPs), or null.
  const runtime::Slice* SliceOf(llvm::Value* pointer) const;
  void AnnotateFunction(llvm::Function& function, llvm::MDNode* domain) const;

  absl::flat_hash_map<llvm::Value*, runtime::Slice> slices_;
  absl::flat_hash_map<const llvm::Function*,
                      std::vector<std::pair<runtime::Slice, int64_t>>>
      read_ahead_;
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_ALIAS_SCOPES_H_
