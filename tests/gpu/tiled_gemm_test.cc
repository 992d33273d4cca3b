// Tiled GEMM fusions (--gemm-backend=tiled) over a matrix of dots: odd
// sizes (67x129x257, 3x5x7, 17x33x9, 5x40x2001 split along K) and exact
// tile multiples, operands
// plain, transposed (lhs contracting dimension 0, rhs contracting
// dimension 1), with a batch dimension or column-major; f32, bf16, f16,
// f8e4m3fn and f8e5m2 (accumulated in f32, f8 giving f32) and
// s8 x s8 -> s32; epilogues bias + ReLU, GELU (tanh form) and a convert to
// bf16. Each tiling runs: the heuristic's (tensor cores on h100 for every
// type here; f32 as TF32), CUDA cores forced, and forced tensor-core
// tilings of every warp arrangement the heuristic proposes. Each runs on
// the GPU emulator against the interpreter, on inputs exact in every type
// (so a fragment-layout slip is a wrong answer, not a rounding), and
// assembles with ptxas for sm_90a (h100) and sm_100a (b200) when ptxas is
// installed; the kernel's shared memory (ptxas's static figure, or the
// launch's dynamic bytes past 48 KiB) equals the tiling heuristic's
// estimate. Forced 3- and 4-stage tilings (cp.async commit groups) run on
// K-major operands (tb, batch_tb) with K tails, K shorter than the
// pipeline, and 128x128x32 tiles in 80 KiB of dynamic shared memory.
// Warpgroup (wgmma) tilings cover every wgmma type, transposed (MN-major)
// 16-bit tiles and f8 x f8 dots of one or two f8 types multiplied as f8.

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/gpu/kernel_emitter.h"
#include "gpu_backend/executable.h"
#include "gpu_backend/ptx_compiler.h"
#include "gpu_backend/tiled_gemm_tiling.h"
#include "gtest/gtest.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "hlo/text/parser.h"
#include "runtime/gpu_thunks.h"
#include "tests/gpu/deterministic_values.h"
#include "tests/gpu/tiled_gemm_cases.h"
#include "tests/gpu/tiled_gemm_harness.h"

namespace xlite {
namespace {

// The tiling of the executable's (last) tiled GEMM fusion.
std::optional<TiledGemmConfig> FusionTiling(const gpu::GpuExecutable& exe) {
  std::optional<TiledGemmConfig> config;
  for (const HloInstruction* h :
       exe.module().entry_computation()->instructions()) {
    if (IsTiledGemmFusion(*h)) config = TiledGemmConfigOf(*h);
  }
  return config;
}

class TiledGemmTest : public ::testing::TestWithParam<Case> {};

TEST_P(TiledGemmTest, EmulatorMatchesInterpreter) {
  ExpectEmulatorMatchesInterpreter(GetParam(), "h100");
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const char* type : {"f32", "bf16", "f16", "s8"}) {
    for (const char* form : {"nn", "ta", "tb", "batch", "colmajor"}) {
      for (std::vector<int64_t> mnk :
           std::vector<std::vector<int64_t>>{{67, 129, 257}, {3, 5, 7}}) {
        Case c;
        c.type = type;
        c.form = form;
        c.m = mnk[0];
        c.n = mnk[1];
        c.k = mnk[2];
        cases.push_back(c);
      }
    }
  }
  for (std::vector<int64_t> mnk :
       std::vector<std::vector<int64_t>>{{64, 128, 32}, {17, 33, 9}}) {
    Case c;
    c.m = mnk[0];
    c.n = mnk[1];
    c.k = mnk[2];
    cases.push_back(c);
  }
  for (const char* type : {"f32", "bf16"}) {
    for (const char* epilogue : {"bias_relu", "gelu", "convert_bf16"}) {
      for (const char* form : {"nn", "batch"}) {
        Case c;
        c.type = type;
        c.form = form;
        c.epilogue = epilogue;
        cases.push_back(c);
      }
    }
  }
  Case s8_relu;
  s8_relu.type = "s8";
  s8_relu.epilogue = "bias_relu";
  cases.push_back(s8_relu);
  for (const char* type : {"f8e4m3fn", "f8e5m2"}) {
    for (const char* form : {"nn", "tb", "batch"}) {
      Case c;
      c.type = type;
      c.form = form;
      cases.push_back(c);
    }
  }
  // K-major operands of whole 16-byte rows: tiles copied by cp.async.
  for (const char* type : {"bf16", "f16", "s8", "f8e4m3fn"}) {
    for (const char* form : {"nn", "tb", "batch"}) {
      Case c;
      c.type = type;
      c.form = form;
      c.k = 256;
      cases.push_back(c);
    }
  }
  // Split-K: few output tiles, long K (padded to a multiple of the parts).
  for (const char* type : {"f32", "bf16", "s8", "f8e4m3fn"}) {
    for (const char* form : {"nn", "ta", "batch", "colmajor"}) {
      Case c;
      c.type = type;
      c.form = form;
      c.m = 5;
      c.n = 40;
      c.k = 2001;
      cases.push_back(c);
    }
  }
  // CUDA cores forced, and every tensor-core warp arrangement.
  for (const char* type : {"f32", "bf16", "f16", "s8", "f8e4m3fn"}) {
    for (const char* form : {"nn", "colmajor"}) {
      Case c;
      c.type = type;
      c.form = form;
      c.tiling = "simt";
      cases.push_back(c);
    }
  }
  for (const char* tiling :
       {"mma128x128x32_2x2", "mma16x64x64_1x2", "mma64x16x64_2x1",
        "mma32x32x32_1x1", "mma64x32x64_2x1", "mma64x64x32_2x2_s2",
        "simt_s2"}) {
    for (const char* type : {"f32", "bf16", "s8"}) {
      for (const char* form : {"ta", "batch"}) {
        Case c;
        c.type = type;
        c.form = form;
        c.tiling = tiling;
        cases.push_back(c);
      }
    }
  }
  // Three and four stages (both tiles by cp.async: K-major operands of
  // whole 16-byte rows): odd M and N, K with a tail step (272 = 8.5 steps
  // of 32), K of fewer steps than the prologue issues (48: two steps, so
  // empty commit groups from the first), one step, and batches.
  for (const char* tiling :
       {"mma64x64x32_2x2_s3", "mma64x64x32_2x2_s4", "mma32x32x64_1x1_s4",
        "mma16x64x64_1x2_s3", "mma128x128x32_2x2_s4"}) {
    for (const char* type : {"bf16", "f16", "s8"}) {
      for (const char* form : {"tb", "batch_tb"}) {
        for (int64_t k : {272, 48}) {
          Case c;
          c.type = type;
          c.form = form;
          c.k = k;
          c.tiling = tiling;
          cases.push_back(c);
        }
      }
    }
  }
  for (const char* tiling : {"mma64x64x32_2x2_s3", "mma64x64x32_2x2_s4"}) {
    Case one;
    one.type = "bf16";
    one.form = "tb";
    one.k = 32;
    one.tiling = tiling;
    cases.push_back(one);
    Case relu = one;
    relu.k = 272;
    relu.epilogue = "bias_relu";
    cases.push_back(relu);
  }
  for (const Case& c : WarpgroupCases()) cases.push_back(c);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Matrix, TiledGemmTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return Name(info.param);
                         });

class TiledGemmPtxasTest : public ::testing::TestWithParam<Case> {};

TEST_P(TiledGemmPtxasTest, AssemblesForHopperAndBlackwell) {
  if (!gpu::FindPtxas().ok()) GTEST_SKIP() << gpu::FindPtxas().status();
  const Case& c = GetParam();
  // wgmma is sm_90a's: Blackwell (sm_90 PTX) refuses the tiling.
  const bool groups = c.tiling.rfind("wgmma", 0) == 0;
  if (groups) {
    auto exe = Compile(Module(c), gpu::GpuCodeTarget::kNvptx, "b200", c.tiling);
    ASSERT_FALSE(exe.ok());
    EXPECT_NE(exe.status().message().find("needs sm_90a"), std::string::npos)
        << exe.status();
  }
  for (const char* spec : {"h100", "b200"}) {
    if (groups && spec[0] == 'b') continue;
    auto exe = Compile(Module(c), gpu::GpuCodeTarget::kNvptx, spec, c.tiling);
    ASSERT_TRUE(exe.ok()) << spec << ": " << exe.status();
    EXPECT_TRUE(HasTiledGemmFusion((*exe)->module()));
    EXPECT_NE((*exe)->ptx().find("bar.sync"), std::string::npos) << spec;
    EXPECT_EQ((*exe)->ptx().find("mma.sync") != std::string::npos,
              c.tiling.rfind("simt", 0) != 0 && !groups)
        << spec;
    EXPECT_EQ((*exe)->ptx().find("wgmma.mma_async") != std::string::npos,
              groups)
        << spec;
    // mma.sync fragments come by ldmatrix (x4; x2 for an odd last 8
    // columns).
    EXPECT_EQ((*exe)->ptx().find("ldmatrix.sync.aligned.m8n8.x4.shared.b16") !=
                  std::string::npos,
              c.tiling.rfind("simt", 0) != 0 && !groups)
        << spec;
    EXPECT_EQ((*exe)->ptx().find("fence.proxy.async.shared::cta") !=
                  std::string::npos,
              groups)
        << spec;
    EXPECT_FALSE((*exe)->cubin().empty()) << spec;
    // Tensor-core tiles of K-major operands in whole 16-byte rows arrive
    // by cp.async (the lhs is K-major but in ta and colmajor, the rhs in
    // tb and batch_tb).
    // Warpgroup tilings copy f8 tiles as they are (a dot of two f8
    // operands), the mma.sync loop converts them to f16 in registers.
    const bool f8 = c.type.rfind("f8", 0) == 0;
    const int64_t bytes = c.type == "s8" || (groups && f8) ? 1 : 2;
    const bool copyable = c.tiling.rfind("simt", 0) != 0 && c.type != "f32" &&
                          (groups || !f8) && c.k * bytes % 16 == 0;
    if (groups && f8) {
      auto kind = [](const std::string& t) {
        return t == "f8e5m2" ? "e5m2" : "e4m3";
      };
      EXPECT_NE((*exe)->ptx().find(absl::StrCat(
                    ".f32.", kind(c.type), ".",
                    kind(c.type_b.empty() ? c.type : c.type_b), " ")),
                std::string::npos)
          << spec;
    }
    const bool lhs_k_minor = c.form != "ta" && c.form != "colmajor";
    const bool rhs_k_minor =
        c.form == "tb" || c.form == "batch_tb" || c.form == "colmajor";
    // Warpgroup tiles of 16-bit operands whose M or N is minor are
    // MN-major (transposed operands), copied 16 bytes along M or N.
    const bool mn = groups && (c.type == "bf16" || c.type == "f16");
    const bool lhs_async =
        lhs_k_minor ? copyable : mn && copyable && c.m * bytes % 16 == 0;
    const bool rhs_async =
        rhs_k_minor ? copyable : mn && copyable && c.n * bytes % 16 == 0;
    if (mn) {
      EXPECT_NE(
          (*exe)->ptx().find(absl::StrCat("p, 1, 1, ", lhs_k_minor ? 0 : 1,
                                          ", ", rhs_k_minor ? 0 : 1, ";")),
          std::string::npos)
          << spec;
    }
    EXPECT_EQ((*exe)->ptx().find("cp.async") != std::string::npos,
              lhs_async || rhs_async)
        << spec;
    // Three and four stages (of both tiles by cp.async; else two) count
    // commit groups.
    const std::optional<TiledGemmConfig> tiling = FusionTiling(**exe);
    ASSERT_TRUE(tiling.has_value());
    const bool pipelined = tiling->stages > 2 && lhs_async && rhs_async;
    EXPECT_EQ((*exe)->ptx().find("cp.async.commit_group") != std::string::npos,
              pipelined)
        << spec;
    // The copies run stages - 1 steps ahead, one fewer for wgmma-s (one
    // step's group stays in flight).
    const int64_t ahead = tiling->stages - 1 - (groups ? 1 : 0);
    EXPECT_EQ((*exe)->ptx().find(absl::StrCat("cp.async.wait_group ",
                                              ahead - 1)) != std::string::npos,
              pipelined)
        << spec;
    // The kernel's shared memory is the heuristic's estimate: ptxas's
    // (static) figure up to 48 KiB; past it the tiles are dynamic, ptxas
    // finds none static and the launch asks for the estimate (the thunk's
    // figure less the static bytes).
    int64_t checked = 0;
    for (const gpu::KernelResources& r : (*exe)->kernel_resources()) {
      for (const HloInstruction* h :
           (*exe)->module().entry_computation()->instructions()) {
        if (h->name() != r.instruction || !IsTiledGemmFusion(*h)) continue;
        const int64_t estimate = codegen::gpu::TiledGemmSharedBytes(*h);
        const bool dynamic = estimate > codegen::kMaxStaticSharedBytes;
        EXPECT_EQ(r.static_shared_bytes, dynamic ? 0 : estimate)
            << spec << " " << h->backend_config();
        EXPECT_EQ(r.dynamic_shared_bytes, dynamic ? estimate : 0)
            << spec << " " << h->backend_config();
        EXPECT_EQ((*exe)->ptx().find(".extern .shared") != std::string::npos,
                  dynamic)
            << spec << " " << h->backend_config();
        // cp.async pipelines stage nothing in registers.
        if (pipelined) {
          EXPECT_EQ(r.spill_bytes, 0) << spec << " " << h->backend_config();
        }
        // ptxas keeps the wgmma-s asynchronous (on the pipelined loop, one
        // step's group in flight while the next is issued).
        EXPECT_EQ(r.wgmma_serialized, "") << spec << " " << h->backend_config();
        if (groups) {
          EXPECT_EQ((*exe)->ptx().find("wgmma.wait_group.sync.aligned 1;") !=
                        std::string::npos,
                    pipelined)
              << spec;
        }
        ++checked;
      }
    }
    EXPECT_EQ(checked, 1) << spec;
  }
}

std::vector<Case> PtxasCases() {
  std::vector<Case> cases;
  for (const char* type : {"f32", "bf16", "f16", "s8"}) {
    Case c;
    c.type = type;
    c.form = "batch";
    c.epilogue = "bias_relu";
    cases.push_back(c);
  }
  Case gelu;
  gelu.form = "ta";
  gelu.epilogue = "gelu";
  cases.push_back(gelu);
  Case convert;
  convert.form = "colmajor";
  convert.epilogue = "convert_bf16";
  cases.push_back(convert);
  Case f8;
  f8.type = "f8e4m3fn";
  cases.push_back(f8);
  Case async;
  async.type = "bf16";
  async.form = "tb";
  async.k = 256;
  cases.push_back(async);
  Case split;
  split.type = "bf16";
  split.m = 5;
  split.n = 40;
  split.k = 2001;
  cases.push_back(split);
  for (const char* tiling :
       {"simt", "mma128x128x32_2x2", "mma16x64x64_1x2", "mma64x64x32_2x2_s2"}) {
    for (const char* type : {"bf16", "s8"}) {
      Case c;
      c.type = type;
      c.tiling = tiling;
      cases.push_back(c);
    }
  }
  // 4 x 20 KiB of 128x128x32 bf16 tiles: dynamic shared memory.
  for (const char* tiling :
       {"mma64x64x32_2x2_s3", "mma64x64x32_2x2_s4", "mma128x128x32_2x2_s4"}) {
    for (const char* type : {"bf16", "f16", "s8"}) {
      Case c;
      c.type = type;
      c.form = type[0] == 's' ? "batch_tb" : "tb";
      c.k = 272;
      c.tiling = tiling;
      cases.push_back(c);
    }
  }
  // Warpgroup tilings on h100: every wgmma type (f8 as it is), N
  // from 64 to 128 per warpgroup, cp.async (tb) or register (nn) tiles.
  for (const char* tiling :
       {"wgmma64x64x32_1x1", "wgmma128x128x64_2x1_s4", "wgmma64x128x32_1x2_s2",
        "wgmma128x64x32_2x1_s3", "wgmma128x256x64_2x1_s3"}) {
    for (const char* type : {"bf16", "f16", "s8", "f32", "f8e4m3fn"}) {
      if (type[1] == '3' && std::string(tiling) == "wgmma128x128x64_2x1_s4") {
        continue;  // 256 KiB
      }
      if (std::string(tiling) == "wgmma128x256x64_2x1_s3" && type[0] != 'b') {
        continue;
      }
      Case c;
      c.type = type;
      c.form = type[0] == 'b' ? "nn" : "tb";
      c.k = 272;
      c.tiling = tiling;
      cases.push_back(c);
    }
    // f8 x f8 of two kinds; an N-minor f8 rhs, transposed in registers.
    for (const char* form : {"tb", "nn"}) {
      Case c;
      c.type = "f8e4m3fn";
      c.type_b = "f8e5m2";
      c.form = form;
      c.k = 272;
      c.tiling = tiling;
      cases.push_back(c);
    }
    // The heuristic's f8 tilings: 128 f8 of K per row.
    if (std::string(tiling) == "wgmma128x128x64_2x1_s4" ||
        std::string(tiling) == "wgmma128x256x64_2x1_s3") {
      Case c;
      c.type = "f8e4m3fn";
      c.form = "tb";
      c.k = 400;
      c.tiling = std::string(tiling) == "wgmma128x128x64_2x1_s4"
                     ? "wgmma128x128x128_2x1_s4"
                     : "wgmma128x256x128_2x1_s4";
      cases.push_back(c);
    }
    // MN-major tiles by cp.async.
    for (const char* form : {"nn", "colmajor"}) {
      Case c;
      c.type = "bf16";
      c.form = form;
      c.m = 72;
      c.n = 136;
      c.k = 272;
      c.tiling = tiling;
      cases.push_back(c);
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Ptxas, TiledGemmPtxasTest,
                         ::testing::ValuesIn(PtxasCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return Name(info.param);
                         });

// Block-scaled dots (the block-scaling rewriter's expansion on h100): the
// dequantization (convert, the scales' broadcast and reshape, multiply)
// joins the tiled fusion, so the whole dot is one kernel with the
// expansion's numbers: MXFP8 (e4m3, e5m2; e8m0 scales, blocks of 32),
// NVFP4 (e2m1 with e4m3 scales, blocks of 16), only lhs quantized, and a
// global scale.
struct ScaledCase {
  std::string name, lhs, rhs, lhs_scale, rhs_scale, out;
  int64_t block = 32;
  bool global = false;
};

std::string ScaledModule(const ScaledCase& c) {
  const int64_t m = 48, n = 40, k = 256;
  std::string text =
      absl::StrCat("HloModule scaled\n\nENTRY e {\n  a = ", c.lhs, "[", m, ",",
                   k, "] parameter(0)\n  b = ", c.rhs, "[", n, ",", k,
                   "] parameter(1)\n  as = ", c.lhs_scale, "[", m, ",",
                   k / c.block, "] parameter(2)\n");
  std::string operands = "a, b, as";
  int64_t next = 3;
  if (!c.rhs_scale.empty()) {
    absl::StrAppend(&text, "  bs = ", c.rhs_scale, "[", n, ",", k / c.block,
                    "] parameter(", next++, ")\n");
    absl::StrAppend(&operands, ", bs");
  }
  if (c.global) {
    absl::StrAppend(&text, "  g = ", c.out, "[] parameter(", next++, ")\n");
    absl::StrAppend(&operands, ", g");
  }
  absl::StrAppend(&text, "  ROOT r = ", c.out, "[", m, ",", n, "] custom-call(",
                  operands,
                  "), custom_call_target=\"__op$block_scaled_dot\"\n}\n");
  return text;
}

// Data multiples of 1/8 in [-2, 2] (rounded to the type); scales powers of
// two from 1/4 to 4; the global scale 0.5.
std::vector<Literal> ScaledArguments(const HloModule& module) {
  std::vector<Literal> args = gpu_test::DeterministicArguments(module);
  const HloComputation& entry = *module.entry_computation();
  for (int64_t p = 2; p < entry.num_parameters(); ++p) {
    Literal& l = args[p];
    for (int64_t i = 0; i < l.element_count(); ++i) {
      l.SetFromDouble(i,
                      l.shape().rank() == 0 ? 0.5 : std::ldexp(1.0, i % 5 - 2));
    }
  }
  return args;
}

class TiledGemmScaledTest : public ::testing::TestWithParam<ScaledCase> {};

TEST_P(TiledGemmScaledTest, OneKernelWithTheExpansionsNumbers) {
  const std::string text = ScaledModule(GetParam());
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> args = ScaledArguments(**module);
  // With IEEE subnormals, as the GPU computes.
  absl::StatusOr<Literal> want =
      EvaluateModule(**module, args, {.denormals = DenormalMode::kIeee});
  ASSERT_TRUE(want.ok()) << want.status();
  auto exe = Compile(text, gpu::GpuCodeTarget::kEmulator);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_TRUE(HasTiledGemmFusion((*exe)->module()));
  EXPECT_EQ((*exe)->thunks().size(), 1u)
      << runtime::ThunkSequenceToString((*exe)->thunks());
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectClose(*got, *want, 1e-2);
}

INSTANTIATE_TEST_SUITE_P(
    BlockScaled, TiledGemmScaledTest,
    ::testing::Values(ScaledCase{"mxfp8_e4m3", "f8e4m3fn", "f8e4m3fn",
                                 "f8e8m0fnu", "f8e8m0fnu", "bf16"},
                      ScaledCase{"mxfp8_e4m3_e5m2", "f8e4m3fn", "f8e5m2",
                                 "f8e8m0fnu", "f8e8m0fnu", "f32"},
                      ScaledCase{"nvfp4", "f4e2m1fn", "f4e2m1fn", "f8e4m3fn",
                                 "f8e4m3fn", "bf16", 16},
                      ScaledCase{"lhs_only", "f8e4m3fn", "f16", "f8e5m2", "",
                                 "f16"},
                      ScaledCase{"mxfp8_global", "f8e4m3fn", "f8e4m3fn",
                                 "f8e8m0fnu", "f8e8m0fnu", "bf16", 32, true}),
    [](const ::testing::TestParamInfo<ScaledCase>& info) {
      return info.param.name;
    });

// The heuristic puts a dot on tensor cores when its types have an mma
// input: f32 only when TF32 is allowed (default precision).
TEST(TiledGemmTiling, TensorCoresWhereTheDotAllowsThem) {
  Case c;
  for (const char* precision : {"", "highest"}) {
    std::string text = Module(c);
    if (*precision != '\0') {
      const size_t at = text.find("rhs_contracting_dims={0}");
      text.insert(at + std::string("rhs_contracting_dims={0}").size(),
                  ", operand_precision={highest,highest}");
    }
    auto exe = Compile(text, gpu::GpuCodeTarget::kEmulator);
    ASSERT_TRUE(exe.ok()) << exe.status();
    const std::optional<TiledGemmConfig> config = FusionTiling(**exe);
    ASSERT_TRUE(config.has_value());
    EXPECT_EQ(config->tensor_cores(), *precision == '\0') << text;
  }
}

// More than two stages need both tiles copied by cp.async: a forced
// 3-stage tiling of a dot whose rhs is N-minor (copied through registers)
// is refused, saying why.
// A tiling of 3 stages whose rhs tile is not a cp.async copy (N-minor)
// runs the two-stage loop in its first two buffers, with the right answer.
// TMA tilings pass each side as a tensor map (after the pointers) where
// the operands allow, 128-byte swizzled, and assemble for sm_90a with
// bulk tensor copies and mbarriers (warp-specialized: a producer warp
// more and "empty" mbarriers); the shared memory estimate (tiles
// 1024-byte aligned, then the mbarriers) is ptxas's figure.
TEST(TiledGemmTma, TensorMapsBulkCopiesAndMbarriers) {
  for (const char* tiling :
       {"wgmma128x128x64_2x1_s4_tma", "wgmma128x128x64_2x1_s4_tma_ws"}) {
    for (const char* form : {"tb", "nn", "batch", "ta"}) {
      const bool ws = absl::EndsWith(tiling, "_ws");
      Case c;
      c.type = "bf16";
      c.form = form;
      c.m = 72;
      c.n = 136;
      c.k = 272;
      c.tiling = tiling;
      auto emu =
          Compile(Module(c), gpu::GpuCodeTarget::kEmulator, "h100", c.tiling);
      ASSERT_TRUE(emu.ok()) << form << ": " << emu.status();
      int64_t kernels = 0;
      for (const runtime::Thunk& t : (*emu)->thunks()) {
        if (t.kind != runtime::Thunk::Kind::kKernel || t.tensor_maps.empty()) {
          continue;
        }
        ++kernels;
        ASSERT_EQ(t.tensor_maps.size(), 2u) << form;
        for (const runtime::TensorMapDescription& m : t.tensor_maps) {
          EXPECT_TRUE(m.swizzle_128b);
          EXPECT_EQ(m.element_bytes, 2);
          EXPECT_EQ(m.box[0] * m.element_bytes, 128) << form;
        }
      }
      EXPECT_EQ(kernels, 1) << form;
      if (!gpu::FindPtxas().ok()) continue;
      auto exe =
          Compile(Module(c), gpu::GpuCodeTarget::kNvptx, "h100", c.tiling);
      ASSERT_TRUE(exe.ok()) << form << ": " << exe.status();
      const std::string& ptx = (*exe)->ptx();
      EXPECT_NE(ptx.find("cp.async.bulk.tensor."), std::string::npos) << form;
      EXPECT_NE(ptx.find("mbarrier.try_wait.parity"), std::string::npos);
      EXPECT_NE(ptx.find("mbarrier.arrive.expect_tx"), std::string::npos);
      EXPECT_EQ(ptx.find("cp.async.commit_group"), std::string::npos) << form;
      // The producer warp's "empty" mbarriers; the launch has its 32 threads.
      EXPECT_EQ(
          ptx.find("mbarrier.arrive.shared::cta.b64") != std::string::npos, ws)
          << form;
      EXPECT_NE(ptx.find(ws ? ".reqntid 288" : ".reqntid 256"),
                std::string::npos)
          << form;
      EXPECT_FALSE((*exe)->cubin().empty());
      for (const gpu::KernelResources& r : (*exe)->kernel_resources()) {
        for (const HloInstruction* h :
             (*exe)->module().entry_computation()->instructions()) {
          if (h->name() != r.instruction || !IsTiledGemmFusion(*h)) continue;
          const int64_t estimate = codegen::gpu::TiledGemmSharedBytes(*h);
          EXPECT_EQ(r.static_shared_bytes + r.dynamic_shared_bytes, estimate)
              << form;
          EXPECT_EQ(r.spill_bytes, 0) << form;
          EXPECT_EQ(r.wgmma_serialized, "") << form;
        }
      }
    }
  }
}

TEST(TiledGemmTiling, ThreeStagesWithoutAsyncTilesRunTwo) {
  Case c;
  c.type = "bf16";
  c.k = 272;
  c.tiling = "mma64x64x32_2x2_s3";
  const std::string text = Module(c);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> args = gpu_test::DeterministicArguments(**module);
  // With IEEE subnormals, as the GPU computes.
  absl::StatusOr<Literal> want =
      EvaluateModule(**module, args, {.denormals = DenormalMode::kIeee});
  ASSERT_TRUE(want.ok()) << want.status();
  auto exe = Compile(text, gpu::GpuCodeTarget::kEmulator, "h100", c.tiling);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectClose(*got, *want, 1e-2);
  auto ptx = Compile(text, gpu::GpuCodeTarget::kNvptx, "h100", c.tiling);
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_EQ((*ptx)->ptx().find("cp.async.commit_group"), std::string::npos);
}

// A tiling ptxas finds spilling is ruled out and the module compiled
// again. Whether a heuristic tiling spills depends on the kernel and on
// ptxas, so each GEMM here is compiled with its first proposal forced
// too: where that spills, the heuristic's kernel has another tiling and
// spills nothing; where it does not, the heuristic keeps it. (The f8
// GEMM's 128x128 tiling spilled on b200 until its fragments came by
// ldmatrix; with CUDA 13's ptxas none of these spills now, and
// gpu_backend:tiled_gemm_tiling_test checks the ruling out itself.)
TEST(TiledGemmTiling, SpillingTilingsAreRuledOut) {
  if (!gpu::FindPtxas().ok()) GTEST_SKIP() << gpu::FindPtxas().status();
  int spilled = 0;
  for (const char* type : {"f8e4m3fn", "bf16", "f32"}) {
    const std::string text = absl::StrCat(
        "HloModule sp\n\nENTRY e {\n  a = ", type,
        "[1024,1024]{1,0} parameter(0)\n  b = ", type,
        "[1024,1024]{0,1} parameter(1)\n  d = f32[1024,1024]{1,0} dot(a, b), "
        "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  ROOT t = "
        "f32[1024,1024]{1,0} multiply(d, d)\n}\n");
    SCOPED_TRACE(text);
    auto exe = Compile(text, gpu::GpuCodeTarget::kNvptx, "b200");
    ASSERT_TRUE(exe.ok()) << exe.status();
    for (const gpu::KernelResources& r : (*exe)->kernel_resources()) {
      EXPECT_EQ(r.spill_bytes, 0) << r.kernel;
    }
    const std::optional<TiledGemmConfig> chosen = FusionTiling(**exe);
    ASSERT_TRUE(chosen.has_value());
    absl::StatusOr<gpu::GpuTargetSpec> spec = gpu::LoadGpuTargetSpec("b200");
    ASSERT_TRUE(spec.ok());
    // The heuristic's proposals for the dot as the fusion holds it.
    const HloInstruction* dot = nullptr;
    for (const HloComputation* c : (*exe)->module().computations()) {
      for (const HloInstruction* h : c->instructions()) {
        if (h->opcode() == HloOpcode::kDot) dot = h;
      }
    }
    ASSERT_NE(dot, nullptr);
    const std::vector<TiledGemmConfig> proposals =
        gpu::ProposeTiledGemmConfigs(*dot, *spec);
    ASSERT_FALSE(proposals.empty());
    absl::StatusOr<gpu::GpuCompileOptions> options =
        gpu::DefaultGpuCompileOptions(gpu::GpuCodeTarget::kNvptx);
    ASSERT_TRUE(options.ok());
    options->spec = *spec;
    options->gemm_backend = gpu::GemmBackend::kTiled;
    options->tiled_gemm_config = proposals.front();
    options->assemble = true;
    auto forced =
        gpu::GpuExecutable::Compile(ParseHloModule(text).value(), *options);
    ASSERT_TRUE(forced.ok()) << forced.status();
    int64_t spill = 0;
    for (const gpu::KernelResources& r : (*forced)->kernel_resources()) {
      spill += r.spill_bytes;
    }
    if (spill > 0) {
      ++spilled;
      EXPECT_NE(*chosen, proposals.front()) << chosen->ToString();
    } else {
      EXPECT_EQ(*chosen, proposals.front()) << chosen->ToString();
    }
  }
  std::cout << spilled << " of 3 first proposals spilled\n";
}

float RoundToTf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0xfffu + ((bits >> 13) & 1u)) & 0xffffe000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

// An f32 dot on tensor cores multiplies its operands rounded to TF32 (to
// nearest, ties to even), summing exactly here.
TEST(TiledGemmTf32, RoundsOperandsToNearestTf32) {
  const std::string text =
      "HloModule tf32\n\nENTRY e {\n  a = f32[16,8]{1,0} parameter(0)\n"
      "  b = f32[8,8]{1,0} parameter(1)\n  ROOT d = f32[16,8]{1,0} dot(a, b), "
      "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  for (int p = 0; p < 2; ++p) {
    args.push_back(Literal(
        (*module)->entry_computation()->parameter_instruction(p)->shape()));
  }
  // 1 + j 2^-12: below, at (ties to even: down for j = 2, up for j = 6)
  // and above half a TF32 ulp (2^-11).
  for (int64_t i = 0; i < args[0].element_count(); ++i) {
    args[0].SetFromDouble(i, 1.0 + (i % 7) * std::ldexp(1.0, -12));
  }
  for (int64_t i = 0; i < args[1].element_count(); ++i) {
    args[1].SetFromDouble(
        i, (i % 3 == 0 ? -1.0 : 1.0) * (1.0 + (i % 7) * std::ldexp(1.0, -12)));
  }
  auto exe = Compile(text, gpu::GpuCodeTarget::kEmulator);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t m = 0; m < 16; ++m) {
    for (int64_t n = 0; n < 8; ++n) {
      double want = 0;
      for (int64_t k = 0; k < 8; ++k) {
        want += double{RoundToTf32(args[0].GetAsDouble(m * 8 + k))} *
                RoundToTf32(args[1].GetAsDouble(k * 8 + n));
      }
      EXPECT_EQ(got->GetAsDouble(m * 8 + n), want) << m << "," << n;
    }
  }
}

}  // namespace
}  // namespace xlite
