#ifndef XLITE_GPU_BACKEND_PTX_RESOURCES_H_
#define XLITE_GPU_BACKEND_PTX_RESOURCES_H_

// What each kernel of a PTX module asks of an SM, read from the PTX text
// (so it works wherever the PTX comes from: LLVM, inline assembly, a
// file) and from ptxas's resource report (`ptxas -v`) when ptxas ran:
//   - static shared memory: the `.shared` variables a kernel's body, or a
//     function it calls, names (module-scope ones counted once per kernel)
//     plus those declared inside them; `.extern .shared` arrays are
//     dynamic and sized at launch;
//   - tensor memory (Blackwell's tcgen05): the most columns held at once by
//     `tcgen05.alloc` minus `tcgen05.dealloc`, in text order (a called
//     function's peak is added at worst); a column count in a register is
//     resolved through its `mov` from an immediate, else marked unknown;
//   - registers per thread: only ptxas knows (its "Used N registers").

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace xlite::gpu {

/// One kernel (`.entry`) as its PTX text declares it.
struct PtxKernelUsage {
  int64_t static_shared_bytes = 0;
  /// Names an `.extern .shared` array (uses dynamic shared memory).
  bool uses_dynamic_shared = false;
  /// Peak tensor-memory columns allocated; 0 when it allocates none.
  int64_t tensor_memory_columns = 0;
  /// Some tcgen05.alloc/dealloc column count could not be read.
  bool tensor_memory_unknown = false;
};

/// Every `.entry` of `ptx`, by name.
absl::flat_hash_map<std::string, PtxKernelUsage> ScanPtxKernels(
    absl::string_view ptx);

/// What ptxas reported for one entry function.
struct PtxasKernelUsage {
  int64_t registers = 0;
  int64_t shared_bytes = 0;
  /// Bytes of spill stores plus spill loads ("Function properties").
  int64_t spill_bytes = 0;
  /// Why ptxas serialized the kernel's wgmma-s (waiting for each before
  /// the next, a "Potential Performance Loss" report); empty if it did
  /// not.
  std::string wgmma_serialized;
};

/// The entries of a `ptxas -v` log ("Compiling entry function 'k'", then
/// "Used N registers, ..., M bytes smem"; wgmma serialization reports
/// name their function), by name.
absl::flat_hash_map<std::string, PtxasKernelUsage> ParsePtxasUsage(
    absl::string_view log);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_PTX_RESOURCES_H_
