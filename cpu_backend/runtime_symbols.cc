#include "cpu_backend/runtime_symbols.h"

#include "codegen/scalar_runtime.h"
#include "cpu_backend/runtime_lib/collectives.h"
#include "cpu_backend/runtime_lib/profile_counters.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {

const std::vector<std::pair<const char*, void*>>& RuntimeSymbols() {
  static const auto* const kSymbols = [] {
    auto* symbols = new std::vector<std::pair<const char*, void*>>(
        RuntimeLibrarySymbols());
    for (const auto& s : CollectiveSymbols()) symbols->push_back(s);
    for (const auto& s : ProfileCounterSymbols()) symbols->push_back(s);
    for (const codegen::RuntimeSymbol& s : codegen::ScalarRuntimeSymbols()) {
      symbols->push_back({s.name, s.address});
    }
    return symbols;
  }();
  return *kSymbols;
}

}  // namespace xlite::cpu
