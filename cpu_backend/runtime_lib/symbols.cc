// RuntimeLibrarySymbols: the table the JIT defines its absolute symbols
// from. A function missing here is one the generated code cannot call.

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

template <typename F>
std::pair<const char*, void*> Symbol(const char* name, F* fn) {
  return {name, reinterpret_cast<void*>(fn)};
}

}  // namespace

std::vector<std::pair<const char*, void*>> RuntimeLibrarySymbols() {
  return {
      Symbol("xlite_cpu_sort", &xlite_cpu_sort),
      Symbol("xlite_cpu_topk", &xlite_cpu_topk),
      Symbol("xlite_cpu_cholesky", &xlite_cpu_cholesky),
      Symbol("xlite_cpu_trsm", &xlite_cpu_trsm),
      Symbol("xlite_cpu_geqrf", &xlite_cpu_geqrf),
      Symbol("xlite_cpu_orgqr", &xlite_cpu_orgqr),
      Symbol("xlite_cpu_syevd", &xlite_cpu_syevd),
      Symbol("xlite_cpu_gesdd", &xlite_cpu_gesdd),
      Symbol("xlite_cpu_fft", &xlite_cpu_fft),
      Symbol("xlite_cpu_matmul", &xlite_cpu_matmul),
      Symbol("xlite_cpu_matmul_strided", &xlite_cpu_matmul_strided),
      Symbol("xlite_cpu_conv", &xlite_cpu_conv),
      Symbol("xlite_cpu_rng_bit_generator", &xlite_cpu_rng_bit_generator),
      Symbol("xlite_cpu_block_scaled_dot", &xlite_cpu_block_scaled_dot),
      Symbol("xlite_cpu_batch_norm_training", &xlite_cpu_batch_norm_training),
      Symbol("xlite_cpu_batch_norm_inference", &xlite_cpu_batch_norm_inference),
      Symbol("xlite_cpu_batch_norm_grad", &xlite_cpu_batch_norm_grad),
      Symbol("xlite_cpu_rng_engine_init", &xlite_cpu_rng_engine_init),
      Symbol("xlite_cpu_rng_uniform_f64", &xlite_cpu_rng_uniform_f64),
      Symbol("xlite_cpu_rng_normal_f64", &xlite_cpu_rng_normal_f64),
      Symbol("xlite_cpu_rng_uniform_s64", &xlite_cpu_rng_uniform_s64),
      Symbol("xlite_cpu_alloc", &xlite_cpu_alloc),
      Symbol("xlite_cpu_free", &xlite_cpu_free),
      Symbol("xlite_cpu_parallel_range", &xlite_cpu_parallel_range),
      Symbol("xlite_cpu_flush_denormals", &xlite_cpu_flush_denormals),
      Symbol("xlite_cpu_restore_denormals", &xlite_cpu_restore_denormals),
  };
}

}  // namespace xlite::cpu
