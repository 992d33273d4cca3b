#ifndef XLITE_RUNTIME_CUDA_DYNAMIC_LIBRARY_H_
#define XLITE_RUNTIME_CUDA_DYNAMIC_LIBRARY_H_

// Loading NVIDIA's libraries at run time (cuBLASLt, cuDNN): the first of a
// user's path and the usual names that dlopen finds, and its entry points
// bound into a table of function pointers.

#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

namespace xlite::runtime::cuda {

/// dlopen (local symbols) of $`env_var` when set, else of each of `names`
/// in turn; null when none loads. `tried` receives every name tried.
inline void* OpenFirstLibrary(const char* env_var,
                              std::initializer_list<const char*> names,
                              std::vector<std::string>& tried) {
  if (const char* env = std::getenv(env_var); env && *env) {
    tried.push_back(env);
  }
  for (const char* n : names) tried.push_back(n);
  for (const std::string& n : tried) {
    if (void* library = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      return library;
    }
  }
  return nullptr;
}

/// Binds `slot` to `library`'s symbol `name`; the first symbol missing is
/// kept in `missing`.
template <typename F>
void BindSymbol(void* library, const char* name, F& slot,
                std::string& missing) {
  slot = reinterpret_cast<F>(dlsym(library, name));
  if (slot == nullptr && missing.empty()) missing = name;
}

}  // namespace xlite::runtime::cuda

#endif  // XLITE_RUNTIME_CUDA_DYNAMIC_LIBRARY_H_
