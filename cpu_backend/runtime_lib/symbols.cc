// RuntimeLibrarySymbols: the table the JIT defines its absolute symbols
// from. A function missing here is one the generated code cannot call.

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {

std::vector<std::pair<const char*, void*>> RuntimeLibrarySymbols() {
  // The C functions' names, spelled once by the macro.
#define XLITE_CPU_SYMBOL(fn) {#fn, reinterpret_cast<void*>(&fn)}
  return {
      XLITE_CPU_SYMBOL(xlite_cpu_sort),
      XLITE_CPU_SYMBOL(xlite_cpu_topk),
      XLITE_CPU_SYMBOL(xlite_cpu_cholesky),
      XLITE_CPU_SYMBOL(xlite_cpu_trsm),
      XLITE_CPU_SYMBOL(xlite_cpu_geqrf),
      XLITE_CPU_SYMBOL(xlite_cpu_orgqr),
      XLITE_CPU_SYMBOL(xlite_cpu_fft),
      XLITE_CPU_SYMBOL(xlite_cpu_matmul),
  };
#undef XLITE_CPU_SYMBOL
}

}  // namespace xlite::cpu
