#ifndef XLITE_GPU_BACKEND_GEMM_TEST_MODULES_H_
#define XLITE_GPU_BACKEND_GEMM_TEST_MODULES_H_

// What the GEMM path tests share (testonly): the h100 spec, a parsed
// module, its first dot and its tiled GEMM fusions.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "gpu_backend/target_spec.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/module.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "hlo/text/parser.h"

namespace xlite::gpu::gemm_test {

inline GpuTargetSpec H100() {
  absl::StatusOr<GpuTargetSpec> spec = LoadGpuTargetSpec("h100");
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

inline std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

/// The entry computation's first dot (null when there is none).
inline HloInstruction* FindDot(const HloModule& module) {
  for (HloInstruction* h : module.entry_computation()->instructions()) {
    if (h->opcode() == HloOpcode::kDot) return h;
  }
  return nullptr;
}

/// The entry computation's tiled GEMM fusions; `tiling` gets the last
/// one's tiling as text.
inline int64_t CountTiledFusions(const HloModule& module,
                                 std::string* tiling = nullptr) {
  int64_t n = 0;
  for (const HloInstruction* h : module.entry_computation()->instructions()) {
    if (!IsTiledGemmFusion(*h)) continue;
    ++n;
    if (tiling != nullptr) *tiling = TiledGemmConfigOf(*h)->ToString();
  }
  return n;
}

}  // namespace xlite::gpu::gemm_test

#endif  // XLITE_GPU_BACKEND_GEMM_TEST_MODULES_H_
