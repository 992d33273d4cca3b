#ifndef XLITE_CPU_BACKEND_AOT_ELF_SYMBOLS_H_
#define XLITE_CPU_BACKEND_AOT_ELF_SYMBOLS_H_

// One edit of a relocatable ELF object's symbol table that objcopy cannot
// make: GCC gives the function-local statics of inline functions (Eigen's
// cache sizes, its thread pool's per-thread slot) STB_GNU_UNIQUE binding,
// which objcopy --keep-global-symbol leaves global. Two ahead-of-time
// objects linked into one program would then define them twice. Made
// plain globals first, objcopy makes them local like every other symbol of
// the runtime.

#include <string>

#include "absl/status/status.h"

namespace xlite::cpu {

/// Rewrites the binding of every STB_GNU_UNIQUE symbol of the 64-bit
/// little-endian ELF object in `elf` to STB_GLOBAL. Fails on anything that
/// is not such an object or whose symbol table lies outside it.
absl::Status MakeUniqueSymbolsGlobal(std::string& elf);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_AOT_ELF_SYMBOLS_H_
