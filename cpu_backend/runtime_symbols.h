#ifndef XLITE_CPU_BACKEND_RUNTIME_SYMBOLS_H_
#define XLITE_CPU_BACKEND_RUNTIME_SYMBOLS_H_

// Every function generated CPU code may call besides libm: the runtime
// library's and the scalar helpers', by name, for the JIT to define.

#include <utility>
#include <vector>

namespace xlite::cpu {

const std::vector<std::pair<const char*, void*>>& RuntimeSymbols();

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_RUNTIME_SYMBOLS_H_
