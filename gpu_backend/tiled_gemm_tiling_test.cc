// The tiling heuristic: shape classes, tensor cores only from compute
// capability 8.0 and for dots with a tensor-core input, proposals that fit
// the GEMM first, 3 and 4 stages only where both tiles arrive by cp.async,
// and a tiling too big for shared memory refused at compile time naming
// the fusion and the bytes.
#include "gpu_backend/tiled_gemm_tiling.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "codegen/gpu/kernel_emitter.h"
#include "gpu_backend/executable.h"
#include "hlo/text/parser.h"

namespace xlite::gpu {
namespace {

std::string DotModule(const std::string& type, int64_t m, int64_t n, int64_t k,
                      const std::string& extra = "") {
  const std::string out = type == "s8"               ? "s32"
                          : type.rfind("f8", 0) == 0 ? "f32"
                                                     : type;
  return absl::StrCat("HloModule t\n\nENTRY e {\n  a = ", type, "[", m, ",", k,
                      "] parameter(0)\n  b = ", type, "[", k, ",", n,
                      "] parameter(1)\n  ROOT d = ", out, "[", m, ",", n,
                      "] dot(a, b), lhs_contracting_dims={1}, "
                      "rhs_contracting_dims={0}",
                      extra, "\n}\n");
}

std::vector<TiledGemmConfig> Propose(const std::string& text,
                                     int cc_major = 9) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuTargetSpec> spec = LoadGpuTargetSpec("h100");
  EXPECT_TRUE(spec.ok());
  spec->compute_capability_major = cc_major;
  return ProposeTiledGemmConfigs(
      *(*module)->entry_computation()->root_instruction(), *spec);
}

// The tiling and shared bytes of each tiled GEMM fusion of `text`
// compiled for the emulator (h100) with --gemm-backend=tiled.
struct AssignedTiling {
  TiledGemmConfig config;
  int64_t shared_bytes = 0;
};
std::vector<AssignedTiling> AssignedTilings(const std::string& text) {
  std::vector<AssignedTiling> out;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuCompileOptions> options =
      DefaultGpuCompileOptions(GpuCodeTarget::kEmulator);
  EXPECT_TRUE(options.ok());
  if (!module.ok() || !options.ok()) return out;
  options->gemm_backend = GemmBackend::kTiled;
  auto exe = GpuExecutable::Compile(*std::move(module), *options);
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!exe.ok()) return out;
  for (const HloInstruction* h :
       (*exe)->module().entry_computation()->instructions()) {
    if (!IsTiledGemmFusion(*h)) continue;
    const std::optional<TiledGemmConfig> c = TiledGemmConfigOf(*h);
    EXPECT_TRUE(c.has_value()) << h->backend_config();
    if (c.has_value()) {
      out.push_back({*c, codegen::gpu::TiledGemmSharedBytes(*h)});
    }
  }
  return out;
}

TEST(TiledGemmTiling, ShapeClasses) {
  EXPECT_STREQ(GemmShapeClass(1, 4096, 4096), "skinny");
  EXPECT_STREQ(GemmShapeClass(4096, 16, 4096), "skinny");
  EXPECT_STREQ(GemmShapeClass(64, 4096, 4096), "small");
  EXPECT_STREQ(GemmShapeClass(4096, 4096, 4096), "large");
  EXPECT_STREQ(GemmShapeClass(4096, 4096, 32), "medium");
  EXPECT_STREQ(GemmShapeClass(100, 100, 100), "medium");
}

TEST(TiledGemmTiling, TensorCoresFromAmpereForTensorCoreInputs) {
  for (const char* type : {"f32", "bf16", "f16", "s8", "f8e4m3fn"}) {
    const std::string text = DotModule(type, 4096, 4096, 4096);
    std::vector<TiledGemmConfig> configs = Propose(text);
    ASSERT_FALSE(configs.empty());
    EXPECT_TRUE(configs[0].tensor_cores()) << type;
    EXPECT_EQ(configs[0].block_m, 128) << type;
    EXPECT_EQ(configs[0].block_n, 128) << type;
    EXPECT_FALSE(Propose(text, /*cc_major=*/7)[0].tensor_cores()) << type;
  }
  // HIGHEST precision: no TF32.
  EXPECT_FALSE(Propose(DotModule("f32", 4096, 4096, 4096,
                                 ", operand_precision={highest,highest}"))[0]
                   .tensor_cores());
  // f64 has no tensor-core input here.
  EXPECT_FALSE(Propose(DotModule("f64", 512, 512, 512))[0].tensor_cores());
}

TEST(TiledGemmTiling, SkinnyGemmsTakeNarrowTiles) {
  const TiledGemmConfig decode = Propose(DotModule("bf16", 4, 4096, 4096))[0];
  EXPECT_EQ(decode.block_m, 16);
  EXPECT_EQ(decode.block_n, 64);
  const TiledGemmConfig tall = Propose(DotModule("bf16", 4096, 8, 4096))[0];
  EXPECT_EQ(tall.block_n, 16);
  // A GEMM smaller than a tile in both directions gets the smallest tile.
  const TiledGemmConfig tiny = Propose(DotModule("f32", 16, 8, 32))[0];
  EXPECT_EQ(tiny.block_m, 16);
  EXPECT_EQ(tiny.block_n, 16);
}

int64_t Splits(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuTargetSpec> spec = LoadGpuTargetSpec("h100");
  EXPECT_TRUE(spec.ok());
  return ChooseSplitK(*(*module)->entry_computation()->root_instruction(),
                      *spec);
}

// Split-K where the output has few tiles for the 132 SMs and K is long.
TEST(TiledGemmTiling, SplitKForFewTilesAndLongK) {
  // Decode: 64 tiles of 16x64; doubling once stays within 132 SMs.
  EXPECT_EQ(Splits(DotModule("bf16", 1, 4096, 4096)), 2);
  // One tile: parts of at least 8 x 64 of K.
  EXPECT_EQ(Splits(DotModule("bf16", 5, 40, 2001)), 2);
  EXPECT_EQ(Splits(DotModule("bf16", 67, 129, 257)), 1);
  EXPECT_EQ(Splits(DotModule("bf16", 5, 40, 16384)), 16);
  EXPECT_EQ(Splits(DotModule("bf16", 5, 40, 300)), 1);
  // Enough tiles already.
  EXPECT_EQ(Splits(DotModule("bf16", 4096, 4096, 4096)), 1);
  // Two contracting dimensions: not split.
  EXPECT_EQ(Splits("HloModule t\n\nENTRY e {\n  a = f32[4,64,64] "
                   "parameter(0)\n  b = f32[64,64,4] parameter(1)\n  ROOT "
                   "d = f32[4,4] dot(a, b), lhs_contracting_dims={1,2}, "
                   "rhs_contracting_dims={0,1}\n}\n"),
            1);
}

// Tilings ruled out for a fusion (ptxas found them spilling) are
// skipped; the others keep their order.
TEST(TiledGemmTiling, RuledOutTilingsAreSkipped) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(DotModule("bf16", 1024, 1024, 1024));
  ASSERT_TRUE(module.ok());
  absl::StatusOr<GpuTargetSpec> spec = LoadGpuTargetSpec("h100");
  ASSERT_TRUE(spec.ok());
  const std::vector<TiledGemmConfig> proposals = ProposeTiledGemmConfigs(
      *(*module)->entry_computation()->root_instruction(), *spec);
  ASSERT_GE(proposals.size(), 2u);
  absl::StatusOr<GpuCompileOptions> options =
      DefaultGpuCompileOptions(GpuCodeTarget::kEmulator);
  ASSERT_TRUE(options.ok());
  options->gemm_backend = GemmBackend::kTiled;
  options->tiled_gemm_spilled["gemm_fusion"] = {proposals[0]};
  auto exe = GpuExecutable::Compile(*std::move(module), *options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  for (const HloInstruction* h :
       (*exe)->module().entry_computation()->instructions()) {
    if (IsTiledGemmFusion(*h)) EXPECT_EQ(TiledGemmConfigOf(*h), proposals[1]);
  }
}

// Medium and large tensor-core GEMMs whose tiles both arrive by cp.async
// (operands in the mma's type, K physically minor: here the rhs is
// [N, K]) are proposed 4, then 3, 2 and 1 stages; the 4-stage 128x128x32
// bf16 tiling (80 KiB, dynamic shared memory) fits h100's 227 KiB and is
// the one assigned.
TEST(TiledGemmTiling, FourStagesWhereBothTilesAreAsync) {
  const std::string nt =
      "HloModule t\n\nENTRY e {\n  a = bf16[4096,4096]{1,0} parameter(0)\n"
      "  b = bf16[4096,4096]{1,0} parameter(1)\n  ROOT d = "
      "bf16[4096,4096]{1,0} dot(a, b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={1}\n}\n";
  const std::vector<TiledGemmConfig> configs = Propose(nt);
  ASSERT_GE(configs.size(), 4u);
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(configs[i].block_m, 128) << i;
    EXPECT_EQ(configs[i].block_n, 128) << i;
    EXPECT_EQ(configs[i].stages, 4 - i) << i;
  }
  const std::vector<AssignedTiling> tiled = AssignedTilings(nt);
  ASSERT_EQ(tiled.size(), 1u);
  EXPECT_EQ(tiled[0].config.stages, 4) << tiled[0].config.ToString();
  // Warpgroup tiles: 128 x 64 bf16 per side and stage, unpadded.
  EXPECT_TRUE(tiled[0].config.warpgroups()) << tiled[0].config.ToString();
  EXPECT_EQ(tiled[0].shared_bytes, 4 * 2 * 128 * 64 * 2);
}

// An f8 GEMM on Hopper's warpgroups multiplies f8 as it is: 128 f8
// (128 bytes) of K per tile row, 1-byte tiles (4 stages of 128 x 128 per
// side in 128 KiB), both copied by cp.async where K is minor; before
// Hopper (mma.sync) the tiles hold f16.
TEST(TiledGemmTiling, F8OnWarpgroupsStaysF8) {
  const std::string nt =
      "HloModule t\n\nENTRY e {\n  a = f8e4m3fn[4096,4096]{1,0} "
      "parameter(0)\n  b = f8e5m2[4096,4096]{1,0} parameter(1)\n  ROOT d = "
      "bf16[4096,4096]{1,0} dot(a, b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={1}\n}\n";
  const std::vector<TiledGemmConfig> configs = Propose(nt);
  ASSERT_FALSE(configs.empty());
  EXPECT_TRUE(configs[0].warpgroups()) << configs[0].ToString();
  EXPECT_EQ(configs[0].block_k, 128) << configs[0].ToString();
  EXPECT_EQ(configs[0].stages, 4) << configs[0].ToString();
  EXPECT_EQ(Propose(nt, /*cc_major=*/8)[0].block_k, 32);
  // wgmma's f8 kinds accumulate in less than f32: as XLA, only at DEFAULT
  // precision (or the fast-accumulation algorithm); else f8 converts to
  // f16 (64 of K per row).
  auto with = [&](const std::string& attribute) {
    std::string text = nt;
    text.insert(text.find("\n}"), attribute);
    return Propose(text)[0].block_k;
  };
  EXPECT_EQ(with(", operand_precision={highest,highest}"), 64);
  EXPECT_EQ(with(", algorithm=dot_any_f8_any_f8_f32"), 64);
  EXPECT_EQ(with(", algorithm=dot_any_f8_any_f8_f32_fast_accum"), 128);
  const std::vector<AssignedTiling> tiled = AssignedTilings(nt);
  ASSERT_EQ(tiled.size(), 1u);
  EXPECT_EQ(tiled[0].shared_bytes, 4 * 2 * 128 * 128);
}

// Not where a tile passes through registers: f32 (rounded to TF32), an
// N-minor rhs (as [K, N] row-major) or an M-minor lhs before Hopper's
// warpgroups (which copy MN-major tiles); nor small GEMMs.
TEST(TiledGemmTiling, AtMostTwoStagesWhereATileIsNotAsync) {
  const std::string mn_minor[] = {
      DotModule("bf16", 4096, 4096, 4096),
      "HloModule t\n\nENTRY e {\n  a = bf16[4096,4096]{0,1} parameter(0)\n  "
      "b = bf16[4096,4096]{1,0} parameter(1)\n  ROOT d = bf16[4096,4096]{1,0} "
      "dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n}\n"};
  for (const std::string& text : mn_minor) {
    for (const TiledGemmConfig& c : Propose(text, /*cc_major=*/8)) {
      EXPECT_LE(c.stages, 2) << text << c.ToString();
    }
    const std::vector<TiledGemmConfig> hopper = Propose(text);
    ASSERT_FALSE(hopper.empty());
    EXPECT_TRUE(hopper[0].warpgroups()) << text << hopper[0].ToString();
    EXPECT_EQ(hopper[0].stages, 4) << text << hopper[0].ToString();
  }
  for (const std::string& text :
       {DotModule("f32", 4096, 4096, 4096),
        std::string(
            "HloModule t\n\nENTRY e {\n  a = bf16[32,4096]{1,0} "
            "parameter(0)\n  b = bf16[4096,4096]{1,0} parameter(1)\n  ROOT "
            "d = bf16[32,4096]{1,0} dot(a, b), lhs_contracting_dims={1}, "
            "rhs_contracting_dims={1}\n}\n")}) {
    const std::vector<TiledGemmConfig> configs = Propose(text);
    ASSERT_FALSE(configs.empty());
    EXPECT_TRUE(configs[0].tensor_cores()) << text;
    for (const TiledGemmConfig& c : configs) {
      EXPECT_LE(c.stages, 2) << text << c.ToString();
    }
  }
}

TEST(TiledGemmTiling, ATilingTooBigForSharedMemoryIsRefused) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(DotModule("f32", 512, 512, 512));
  ASSERT_TRUE(module.ok());
  absl::StatusOr<GpuCompileOptions> options =
      DefaultGpuCompileOptions(GpuCodeTarget::kEmulator);
  ASSERT_TRUE(options.ok());
  options->gemm_backend = GemmBackend::kTiled;
  TiledGemmConfig big;
  big.block_m = 256;
  big.block_n = 256;
  big.block_k = 128;
  big.warps_m = 4;
  big.warps_n = 4;
  options->tiled_gemm_config = big;
  auto exe = GpuExecutable::Compile(*std::move(module), *options);
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kResourceExhausted);
  // 256 rows of 128 + 4 f32 for each operand, over the 227 KiB a block
  // may opt into on h100.
  EXPECT_NE(exe.status().message().find("%gemm_fusion"), std::string::npos)
      << exe.status();
  EXPECT_NE(exe.status().message().find("270336 bytes"), std::string::npos)
      << exe.status();
  EXPECT_NE(exe.status().message().find("232448 bytes"), std::string::npos)
      << exe.status();
}

}  // namespace
}  // namespace xlite::gpu
