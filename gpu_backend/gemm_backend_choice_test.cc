// --gemm-backend=auto's cost model: a large plain GEMM stays with
// cuBLASLt, a dot whose epilogue cuBLASLt cannot fold (SiLU) or whose
// producers would be kernels of their own on a GEMM the tiled kernel runs
// about as fast becomes a tiled fusion; the region copied for the estimate
// holds the producers and epilogue with the outside values as parameters;
// the estimates are never below the memory roofline; and PrepareForGpu
// applies the choice.
#include "gpu_backend/gemm_backend_choice.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gpu_backend/gemm_test_modules.h"
#include "gpu_backend/gpu_pipeline.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"
#include "hlo/text/parser.h"

namespace xlite::gpu {
namespace {

using gemm_test::CountTiledFusions;
using gemm_test::FindDot;
using gemm_test::H100;
using gemm_test::Parse;

// A bf16 [m,k] x [k,n] dot, `epilogue` lines after it (reading `d`),
// `root` naming the result.
std::string Module(int64_t m, int64_t n, int64_t k,
                   const std::string& epilogue = "",
                   const std::string& root = "d") {
  return absl::StrCat(
      "HloModule t\n\nENTRY e {\n  a = bf16[", m, ",", k,
      "] parameter(0)\n  b = bf16[", k, ",", n, "] parameter(1)\n  d = bf16[",
      m, ",", n,
      "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
      epilogue, "  ROOT r = bf16[", m, ",", n, "] copy(", root, ")\n}\n");
}

std::string Silu(int64_t m, int64_t n) {
  const std::string s = absl::StrCat("bf16[", m, ",", n, "]");
  return absl::StrCat("  l = ", s, " logistic(d)\n  y = ", s,
                      " multiply(d, l)\n");
}

GemmPathEstimate Estimate(const HloModule& module) {
  absl::StatusOr<GemmPathEstimate> e =
      EstimateGemmPaths(FindDot(module), H100());
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *e : GemmPathEstimate{};
}

TEST(GemmBackendChoice, LargePlainGemmStaysWithTheLibrary) {
  std::unique_ptr<HloModule> module = Parse(Module(4096, 4096, 4096));
  const GemmPathEstimate e = Estimate(*module);
  EXPECT_FALSE(e.tiled()) << e.ToString();
  // The tiled kernel's wgmma loop (each step waited for, no warp
  // specialization) reaches less of Hopper's peak than cuBLASLt's.
  EXPECT_GT(e.tiled_seconds, 1.2 * e.library_seconds) << e.ToString();
  ASSERT_TRUE(e.tiling.has_value());
  EXPECT_TRUE(e.tiling->warpgroups()) << e.tiling->ToString();
}

TEST(GemmBackendChoice, SiluEpilogueBecomesTiled) {
  // cuBLASLt has no SiLU epilogue: the library path is a GEMM call and a
  // kernel reading and writing the whole result again, which a short K
  // makes the larger part of the time.
  std::unique_ptr<HloModule> module =
      Parse(Module(2048, 2048, 256, Silu(2048, 2048), "y"));
  const GemmPathEstimate e = Estimate(*module);
  EXPECT_TRUE(e.tiled()) << e.ToString();
}

TEST(GemmBackendChoice, UnfoldedEpilogueOnAShortKGemmBecomesTiled) {
  // A product with another matrix: the library path is a GEMM call the
  // thunk runs and a kernel reading both matrices and writing the result;
  // the tiled kernel reads the other matrix in its epilogue.
  const std::string other =
      "  e = bf16[2048,2048] parameter(2)\n"
      "  y = bf16[2048,2048] multiply(d, e)\n";
  std::unique_ptr<HloModule> module =
      Parse(Module(2048, 2048, 256, other, "y"));
  const GemmPathEstimate e = Estimate(*module);
  EXPECT_TRUE(e.library_call);
  EXPECT_TRUE(std::isfinite(e.library_seconds)) << e.ToString();
  EXPECT_TRUE(e.tiled()) << e.ToString();
}

TEST(GemmBackendChoice, CallsNoThunkRunsHaveNoLibraryPath) {
  // An s8 GEMM becomes a call no GEMM thunk runs: tiled either way,
  // nothing to choose or measure.
  std::unique_ptr<HloModule> module = Parse(
      "HloModule t\n\nENTRY e {\n  a = s8[64,64] parameter(0)\n"
      "  b = s8[64,64] parameter(1)\n  ROOT d = s32[64,64] dot(a, b), "
      "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  const GemmPathEstimate e = Estimate(*module);
  EXPECT_TRUE(std::isinf(e.library_seconds)) << e.ToString();
  EXPECT_TRUE(e.tiled()) << e.ToString();
}

TEST(GemmBackendChoice, Tf32DotsKeepTheLibraryCall) {
  // The same short-K product as above in f32: TF32 on both paths, and the
  // call's numbers are cuBLASLt's.
  std::unique_ptr<HloModule> module = Parse(
      "HloModule t\n\nENTRY e {\n  a = f32[2048,256] parameter(0)\n"
      "  b = f32[256,2048] parameter(1)\n  d = f32[2048,2048] dot(a, b), "
      "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  e = f32[2048,2048] parameter(2)\n"
      "  ROOT y = f32[2048,2048] multiply(d, e)\n}\n");
  const GemmPathEstimate e = Estimate(*module);
  EXPECT_TRUE(e.tf32_stays) << e.ToString();
  EXPECT_FALSE(e.tiled()) << e.ToString();
}

TEST(GemmBackendChoice, FoldedEpilogueOnALargeGemmStaysWithTheLibrary) {
  // Bias and ReLU fold into the cuBLASLt call; the GEMM decides.
  const std::string bias =
      "  c = bf16[4096] parameter(2)\n"
      "  cb = bf16[4096,4096] broadcast(c), dimensions={1}\n"
      "  s = bf16[4096,4096] add(d, cb)\n"
      "  z = bf16[] constant(0)\n"
      "  zb = bf16[4096,4096] broadcast(z), dimensions={}\n"
      "  y = bf16[4096,4096] maximum(s, zb)\n";
  std::unique_ptr<HloModule> module =
      Parse(Module(4096, 4096, 4096, bias, "y"));
  const GemmPathEstimate e = Estimate(*module);
  EXPECT_FALSE(e.tiled()) << e.ToString();
}

TEST(GemmBackendChoice, EstimatesAreAtLeastTheMemoryRoofline) {
  // A decode step: M = 4, the weights dominate the bytes.
  std::unique_ptr<HloModule> module = Parse(Module(4, 4096, 4096));
  const GemmPathEstimate e = Estimate(*module);
  const double weight_bytes = 4096.0 * 4096 * 2;
  const double floor = weight_bytes / H100().hbm_bandwidth_bytes_per_second;
  EXPECT_GE(e.tiled_seconds, floor) << e.ToString();
  EXPECT_GE(e.library_seconds, floor) << e.ToString();
  EXPECT_LT(e.tiled_seconds, 4 * floor) << e.ToString();
  EXPECT_LT(e.library_seconds, 4 * floor) << e.ToString();
}

TEST(GemmBackendChoice, RegionHoldsProducersAndEpilogue) {
  const std::string text =
      "HloModule t\n\nENTRY e {\n"
      "  a = f8e4m3fn[64,128] parameter(0)\n"
      "  ac = bf16[64,128] convert(a)\n"
      "  b = bf16[128,32] parameter(1)\n"
      "  d = bf16[64,32] dot(ac, b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n"
      "  l = bf16[64,32] logistic(d)\n"
      "  y = bf16[64,32] multiply(d, l)\n"
      "  ROOT r = bf16[64,32] negate(y)\n}\n";
  std::unique_ptr<HloModule> module = Parse(text);
  std::unique_ptr<HloModule> region = ExtractTiledGemmRegion(FindDot(*module));
  const HloComputation& entry = *region->entry_computation();
  EXPECT_EQ(entry.num_parameters(), 2);
  EXPECT_EQ(entry.parameter_instruction(0)->shape().element_type(),
            PrimitiveType::kF8E4M3FN);
  // convert, dot, logistic, multiply, negate (elementwise too).
  EXPECT_EQ(entry.instruction_count(), 7);
  EXPECT_EQ(entry.root_instruction()->opcode(), HloOpcode::kNegate);
  // The original is untouched.
  EXPECT_EQ(module->entry_computation()->instruction_count(), 7);
}

TEST(GemmBackendChoice, PrepareForGpuAppliesTheChoice) {
  std::unique_ptr<HloModule> silu =
      Parse(Module(2048, 2048, 256, Silu(2048, 2048), "y"));
  ASSERT_TRUE(PrepareForGpu(*silu, H100()).ok());
  EXPECT_EQ(CountTiledFusions(*silu), 1);

  std::unique_ptr<HloModule> large = Parse(Module(4096, 4096, 4096));
  ASSERT_TRUE(PrepareForGpu(*large, H100()).ok());
  EXPECT_EQ(CountTiledFusions(*large), 0);

  // --gemm-backend=cublaslt never fuses.
  std::unique_ptr<HloModule> forced =
      Parse(Module(2048, 2048, 256, Silu(2048, 2048), "y"));
  GpuPipelineOptions options;
  options.gemm_backend = GemmBackend::kCublasLt;
  ASSERT_TRUE(PrepareForGpu(*forced, H100(), options).ok());
  EXPECT_EQ(CountTiledFusions(*forced), 0);
}

}  // namespace
}  // namespace xlite::gpu
