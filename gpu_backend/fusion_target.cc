#include "gpu_backend/fusion_target.h"

namespace xlite::gpu {

GpuFusionTarget FusionTargetFor(const GpuTargetSpec& spec) {
  GpuFusionTarget target;
  if (spec.hbm_bandwidth_bytes_per_second > 0) {
    target.hbm_bytes_per_second = spec.hbm_bandwidth_bytes_per_second;
  }
  if (spec.sm_count > 0) target.sm_count = spec.sm_count;
  if (spec.shared_memory_per_block > 0) {
    target.shared_memory_per_block = spec.shared_memory_per_block;
  }
  if (auto it = spec.peak_tflops.find("f32");
      it != spec.peak_tflops.end() && it->second > 0) {
    target.peak_flops_per_second = it->second * 1e12;
  }
  return target;
}

}  // namespace xlite::gpu
