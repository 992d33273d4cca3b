// Tiled GEMM fusions on Blackwell's tensor cores (tcgen05, b200): forced
// "tcgen05 groups 1x1" tilings over every tensor-core type and operand
// layout (tiles through registers, by cp.async, by TMA), run on the GPU
// emulator against the interpreter (the emulator keeps tensor memory and
// completes each tcgen05.mma only when its commit's mbarrier is waited
// for), and assembled by ptxas for sm_100a (PTX retargeted to ISA 8.7)
// with the shared memory the estimate gives and the tensor memory the
// resource check reads. Hopper refuses them by name.

#include <string>

#include "absl/strings/match.h"
#include "codegen/gpu/kernel_emitter.h"
#include "gpu_backend/ptx_compiler.h"
#include "gtest/gtest.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "tests/gpu/tiled_gemm_cases.h"
#include "tests/gpu/tiled_gemm_harness.h"

namespace xlite {
namespace {

class TiledGemmTcgen05Test : public ::testing::TestWithParam<Case> {};

TEST_P(TiledGemmTcgen05Test, EmulatorMatchesInterpreter) {
  ExpectEmulatorMatchesInterpreter(GetParam(), "b200");
}

INSTANTIATE_TEST_SUITE_P(Matrix, TiledGemmTcgen05Test,
                         ::testing::ValuesIn(Tcgen05Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return Name(info.param);
                         });

TEST(TiledGemmTcgen05, AssemblesForSm100aWithTheEstimatedMemory) {
  if (!gpu::FindPtxas().ok()) GTEST_SKIP() << "no ptxas";
  const Case cases[] = {
      MakeCase("bf16", "tb", 136, 72, 272, "tcgen05_128x128x64_s4_tma"),
      MakeCase("bf16", "nn", 136, 72, 272, "tcgen05_128x256x64_s3_tma"),
      MakeCase("f16", "nn", 136, 72, 272, "tcgen05_128x128x64_s4"),
      MakeCase("f8e4m3fn", "tb", 136, 72, 272, "tcgen05_128x128x128_s3_tma"),
      MakeCase("s8", "tb", 136, 72, 272, "tcgen05_128x64x64_s2"),
      MakeCase("f32", "ta", 136, 72, 272, "tcgen05_128x128x64")};
  for (const Case& c : cases) {
    SCOPED_TRACE(Name(c));
    auto exe = Compile(Module(c), gpu::GpuCodeTarget::kNvptx, "b200", c.tiling);
    ASSERT_TRUE(exe.ok()) << exe.status();
    const std::string& ptx = (*exe)->ptx();
    EXPECT_NE(ptx.find(".version 8.7"), std::string::npos);
    EXPECT_NE(ptx.find(".target sm_100a"), std::string::npos);
    for (const char* op :
         {"tcgen05.alloc.cta_group::1", "tcgen05.mma.cta_group::1.kind::",
          "tcgen05.commit.cta_group::1.mbarrier::arrive::one",
          "tcgen05.ld.sync.aligned.32x32b.x16", "tcgen05.dealloc",
          ".reqntid 128"}) {
      EXPECT_NE(ptx.find(op), std::string::npos) << op;
    }
    EXPECT_EQ(ptx.find("wgmma"), std::string::npos);
    EXPECT_EQ(absl::StrContains(ptx, "cp.async.bulk.tensor"),
              absl::EndsWith(c.tiling, "_tma") && c.type != "f32");
    EXPECT_FALSE((*exe)->cubin().empty());
    int64_t checked = 0;
    for (const gpu::KernelResources& r : (*exe)->kernel_resources()) {
      for (const HloInstruction* h :
           (*exe)->module().entry_computation()->instructions()) {
        if (h->name() != r.instruction || !IsTiledGemmFusion(*h)) continue;
        ++checked;
        EXPECT_EQ(r.static_shared_bytes + r.dynamic_shared_bytes,
                  codegen::gpu::TiledGemmSharedBytes(*h));
        EXPECT_EQ(r.spill_bytes, 0);
        const int64_t n = TiledGemmConfigOf(*h)->block_n;
        EXPECT_EQ(r.tensor_memory_columns, n < 32 ? 32 : n);
      }
    }
    EXPECT_EQ(checked, 1);
  }
}

// tcgen05 is sm_100a's: Hopper refuses the tiling by name, and Blackwell
// refuses wgmma.
TEST(TiledGemmTcgen05, OtherGpusRefuseIt) {
  const Case c = MakeCase("bf16", "tb", 136, 72, 272, "tcgen05_128x128x64_s4");
  auto hopper =
      Compile(Module(c), gpu::GpuCodeTarget::kEmulator, "h100", c.tiling);
  ASSERT_FALSE(hopper.ok());
  EXPECT_TRUE(absl::StrContains(hopper.status().message(),
                                "runs tcgen05, which needs sm_100a"))
      << hopper.status();
  const Case w = MakeCase("bf16", "tb", 136, 72, 272, "wgmma128x128x64_2x1_s4");
  auto blackwell =
      Compile(Module(w), gpu::GpuCodeTarget::kEmulator, "b200", w.tiling);
  ASSERT_FALSE(blackwell.ok());
  EXPECT_TRUE(absl::StrContains(blackwell.status().message(), "sm_90a"))
      << blackwell.status();
}

}  // namespace
}  // namespace xlite
