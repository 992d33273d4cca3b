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

  /// Annotates the loads and stores of every function of `module`.
  void Annotate(llvm::Module& module) const;

 private:
  // The slice `pointer` was computed from (through GEPs), or null.
  const runtime::Slice* SliceOf(llvm::Value* pointer) const;
  void AnnotateFunction(llvm::Function& function, llvm::MDNode* domain) const;

  absl::flat_hash_map<llvm::Value*, runtime::Slice> slices_;
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_ALIAS_SCOPES_H_
