#ifndef XLITE_GPU_BACKEND_TARGET_SPEC_H_
#define XLITE_GPU_BACKEND_TARGET_SPEC_H_

// The GPU a module is compiled for: what passes gate on (compute
// capability, cuDNN version) and what cost models read (SMs, shared memory,
// HBM). Named presets (h100, h200, b200, gb200) or a spec file.

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xlite::gpu {

/// A cuDNN version; 0.0.0 means "no cuDNN".
struct CudnnVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  bool available() const { return major != 0 || minor != 0 || patch != 0; }
  /// At least major.minor.patch.
  bool AtLeast(int ma, int mi, int pa = 0) const;
  std::string ToString() const;
  bool operator==(const CudnnVersion&) const = default;
};

/// "9.10.0", "9.10", "9" or "0" (no cuDNN).
absl::StatusOr<CudnnVersion> ParseCudnnVersion(absl::string_view text);

struct GpuTargetSpec {
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  /// Architecture-specific feature set: "" (portable), "a" (sm_90a,
  /// sm_100a: wgmma/tcgen05 and friends) or "f" (family-portable).
  std::string feature_suffix;
  int64_t sm_count = 0;
  int64_t registers_per_sm = 65536;
  int64_t shared_memory_per_sm = 0;
  /// Shared memory a block may opt into, in bytes.
  int64_t shared_memory_per_block = 0;
  int64_t hbm_bytes = 0;
  double hbm_bandwidth_bytes_per_second = 0;
  CudnnVersion cudnn;
  /// Dense peak throughput in TFLOP/s by type: f64, f32, tf32, bf16, f16,
  /// f8, f4 (data-sheet figures; 0 where the part has none).
  std::map<std::string, double> peak_tflops;

  /// "sm_90a", "sm_100a", "sm_120": the PTX/SASS target name.
  std::string SmName() const;

  /// Blackwell (compute capability 10.x) or newer.
  bool IsBlackwellOrNewer() const { return compute_capability_major >= 10; }
};

/// A preset by name (h100, h200, b200, gb200; case-insensitive), or else
/// a spec file of "key: value" lines ('#' starts a comment):
///   name: my-gpu
///   compute_capability: 9.0
///   sm_count: 132
///   shared_memory_per_block: 232448
///   hbm_bytes: 85899345920
///   hbm_bandwidth_gbps: 3350        (GB/s)
///   cudnn_version: 9.19.0
/// Presets carry the cuDNN of the toolkit xlite is built against (9.19).
absl::StatusOr<GpuTargetSpec> LoadGpuTargetSpec(const std::string& name_or_file);

/// The spec of the local GPU (device 0) from the CUDA driver (loaded at run
/// time) and the installed cuDNN (cudnnGetVersion; 0.0.0 when cuDNN cannot
/// be loaded). An error saying "no CUDA device" when there is none.
absl::StatusOr<GpuTargetSpec> QueryLocalGpu();

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_TARGET_SPEC_H_
