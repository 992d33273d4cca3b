#ifndef XLITE_PASSES_GPU_FUSION_TARGET_H_
#define XLITE_PASSES_GPU_FUSION_TARGET_H_

// The GPU figures the GPU fusion passes (priority-fusion,
// multi_output_fusion) decide with. Passes never read gpu_backend/: the GPU
// pipeline fills this from its GpuTargetSpec, hlo-opt from pass options
// whose defaults are the H100 SXM's figures.

#include <cstdint>

namespace xlite {

struct GpuFusionTarget {
  /// HBM bandwidth, bytes per second (H100 SXM: 3.35 TB/s).
  double hbm_bytes_per_second = 3.35e12;
  /// Streaming multiprocessors (H100 SXM: 132).
  int64_t sm_count = 132;
  /// Shared memory one block may use, bytes (H100: 227 KiB opt-in).
  int64_t shared_memory_per_block = 232448;
  /// Fixed cost of one kernel launch, seconds.
  double kernel_launch_seconds = 1e-6;
  /// Peak f32 arithmetic on the CUDA cores, operations per second.
  double peak_flops_per_second = 67e12;
  /// At most this many operands plus results per fusion (XLA's limit).
  int64_t max_operands_and_outputs = 96;
  /// At most this many instructions per fused computation (code size).
  int64_t max_fused_instructions = 512;
};

}  // namespace xlite

#endif  // XLITE_PASSES_GPU_FUSION_TARGET_H_
