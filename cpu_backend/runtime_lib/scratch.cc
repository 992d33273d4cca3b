// xlite_cpu_alloc / xlite_cpu_free: scratch arrays for generated code
// (a library call's operand or result in another layout than its buffer).

#include <cstdlib>

#include "cpu_backend/runtime_lib/runtime_lib.h"

extern "C" {

void* xlite_cpu_alloc(int64_t bytes) {
  if (bytes < 0) return nullptr;
  constexpr int64_t kAlignment = 64;
  // aligned_alloc needs a multiple of the alignment; 0 still gets a block.
  const int64_t size = (bytes / kAlignment + 1) * kAlignment;
  return std::aligned_alloc(kAlignment, static_cast<size_t>(size));
}

void xlite_cpu_free(void* block) { std::free(block); }

}  // extern "C"
