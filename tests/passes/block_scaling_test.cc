// block-scaling-rewriter and global-scale fusion, validated with the
// evaluator: for every cuDNN band x type pair x shape case, the rewritten
// module (expansion or __cudnn$blockScaledDot with padded, swizzled scales)
// gives the custom call's reference results on random MXFP8/NVFP4 inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "passes/block_scaling.h"

namespace xlite {
namespace {

// Data uniform in [-3, 3] (rounded to the type), scales 2^[-2, 2] (e8m0)
// or [0.5, 2] (e4m3 NVFP4 scales), global scale in [0.5, 2].
Literal Input(const Shape& shape, bool is_scale, std::mt19937_64& gen) {
  Literal out(shape);
  std::uniform_real_distribution<double> data(-3, 3), unit(0.5, 2);
  std::uniform_int_distribution<int> exponent(-2, 2);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    if (!is_scale) {
      out.SetFromDouble(i, data(gen));
    } else if (shape.element_type() == PrimitiveType::kF8E8M0FNU) {
      out.SetFromDouble(i, std::exp2(exponent(gen)));
    } else {
      out.SetFromDouble(i, unit(gen));
    }
  }
  return out;
}

std::string Compare(const Literal& got, const Literal& want) {
  if (!ShapesCompatible(got.shape(), want.shape())) return "shapes differ";
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const double a = got.GetAsDouble(i), b = want.GetAsDouble(i);
    if (std::isnan(a) || std::isnan(b) ||
        std::fabs(a - b) > 0.05 + 1e-2 * std::fabs(b)) {
      return absl::StrCat("element ", i, ": ", a, " vs ", b);
    }
  }
  return "";
}

struct Band {
  const char* name;
  int cudnn_major, cudnn_minor, cc_major;
};
constexpr Band kBands[] = {{"none", 0, 0, 9},
                           {"hopper_9_19", 9, 19, 9},
                           {"blackwell_9_9", 9, 9, 10},
                           {"blackwell_9_10", 9, 10, 10},
                           {"blackwell_9_12", 9, 12, 10},
                           {"blackwell_9_13", 9, 13, 10}};

// Runs the rewriter for one band; returns the rewritten text and checks
// results against the original on random inputs.
std::string Check(const std::string& hlo, const Band& band) {
  auto original = ParseHloModule(hlo);
  EXPECT_TRUE(original.ok()) << original.status().message();
  if (!original.ok()) return "";
  std::unique_ptr<HloModule> rewritten = (*original)->Clone();
  BlockScalingTarget target;
  target.cudnn = {band.cudnn_major, band.cudnn_minor, 0};
  target.compute_capability_major = band.cc_major;
  auto changed = RunBlockScalingRewriter(*rewritten, target);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(VerifyModule(*rewritten).ok()) << PrintModule(*rewritten);
  const HloComputation& entry = *(*original)->entry_computation();
  std::mt19937_64 gen(7);
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const std::string& name = entry.parameter_instruction(i)->name();
    args.push_back(Input(entry.parameter_instruction(i)->shape(),
                         name.find("scale") != std::string::npos, gen));
  }
  auto want = EvaluateModule(**original, args);
  auto got = EvaluateModule(*rewritten, args);
  EXPECT_TRUE(want.ok()) << want.status().message();
  EXPECT_TRUE(got.ok()) << got.status().message();
  if (want.ok() && got.ok()) {
    EXPECT_EQ(Compare(*got, *want), "") << band.name << "\n" << hlo;
  }
  return PrintModule(*rewritten);
}

std::string Dot(const std::string& lhs, const std::string& rhs,
                const std::string& ls, const std::string& rs,
                const std::string& out, bool global,
                const std::string& config = "") {
  std::string operands = rs.empty() ? "lhs, rhs, lhs_scale"
                                    : "lhs, rhs, lhs_scale, rhs_scale";
  std::string params = absl::StrCat("  lhs = ", lhs, " parameter(0)\n  rhs = ",
                                    rhs, " parameter(1)\n  lhs_scale = ", ls,
                                    " parameter(2)\n");
  if (!rs.empty()) absl::StrAppend(&params, "  rhs_scale = ", rs, " parameter(3)\n");
  if (global) {
    const std::string type = out.substr(0, out.find('['));
    absl::StrAppend(&params, "  global_scale = ", type, "[] parameter(",
                    rs.empty() ? 3 : 4, ")\n");
    absl::StrAppend(&operands, ", global_scale");
  }
  return absl::StrCat("HloModule m\nENTRY e {\n", params, "  ROOT r = ", out,
                      " custom-call(", operands,
                      "), custom_call_target=\"__op$block_scaled_dot\"",
                      config.empty() ? "" : ", backend_config=" + config,
                      "\n}\n");
}

bool UsesCudnn(const std::string& text) {
  return text.find("__cudnn$blockScaledDot") != std::string::npos;
}

TEST(BlockScalingRewriter, GatesOnCudnnVersionAndComputeCapability) {
  const std::string m = Dot("f8e4m3fn[128,96]", "f8e4m3fn[120,96]",
                            "f8e8m0fnu[128,3]", "f8e8m0fnu[120,3]",
                            "f16[128,120]", /*global=*/true);
  for (const Band& band : kBands) {
    SCOPED_TRACE(band.name);
    const std::string text = Check(m, band);
    const bool cudnn = band.cc_major >= 10 &&
                       (band.cudnn_major > 9 || band.cudnn_minor >= 10);
    EXPECT_EQ(UsesCudnn(text), cudnn) << text;
    if (!cudnn) continue;
    // 9.10-9.12 multiply outside; 9.13+ passes the scale as operand 5.
    const bool inside = band.cudnn_minor >= 13;
    EXPECT_EQ(text.find("%reshape.3, %global_scale)") != std::string::npos,
              inside)
        << text;
    EXPECT_NE(text.find("slice={[0:128], [0:120]}"), std::string::npos);
  }
}

TEST(BlockScalingRewriter, TypePairs) {
  const Band b = kBands[5];
  struct Pair {
    const char* lhs;
    const char* rhs;
    const char* scale;
    int k_scale;
    bool cudnn;
  } pairs[] = {
      {"f8e4m3fn", "f8e4m3fn", "f8e8m0fnu", 4, true},
      {"f8e4m3fn", "f8e5m2", "f8e8m0fnu", 4, true},
      {"f8e5m2", "f8e4m3fn", "f8e8m0fnu", 4, true},
      {"f8e5m2", "f8e5m2", "f8e8m0fnu", 4, false},  // rejected pair
      {"f4e2m1fn", "f4e2m1fn", "f8e4m3fn", 8, true},
  };
  for (const Pair& p : pairs) {
    SCOPED_TRACE(absl::StrCat(p.lhs, " x ", p.rhs));
    const std::string ls = absl::StrCat(p.scale, "[128,", p.k_scale, "]");
    const std::string text =
        Check(Dot(absl::StrCat(p.lhs, "[128,128]"),
                  absl::StrCat(p.rhs, "[128,128]"), ls, ls, "f32[128,128]",
                  false),
              b);
    EXPECT_EQ(UsesCudnn(text), p.cudnn) << text;
  }
  // MXFP8 data with NVFP4 data: expansion.
  EXPECT_FALSE(UsesCudnn(Check(
      Dot("f8e4m3fn[128,128]", "f4e2m1fn[128,128]", "f8e8m0fnu[128,4]",
          "f8e4m3fn[128,8]", "f32[128,128]", false),
      b)));
}

TEST(BlockScalingRewriter, ExpansionCases) {
  const Band none = kBands[0];
  // Only lhs quantized (the spec's first module), batched, explicit block
  // size with pre-padded scales, K not a multiple of the block.
  Check(Dot("f8e4m3fn[16,256]", "f16[32,256]", "f8e5m2[16,8]", "",
            "f16[16,32]", false),
        none);
  Check(Dot("f8e4m3fn[2,16,64]", "f8e4m3fn[2,8,64]", "f8e8m0fnu[2,16,2]",
            "f8e8m0fnu[2,8,2]", "f32[2,16,8]", true),
        none);
  const std::string padded =
      Check(Dot("f8e4m3fn[4,64]", "f8e4m3fn[8,64]", "f8e8m0fnu[8,4]",
                "f8e8m0fnu[16,4]", "f32[4,8]", false,
                R"({"block_scaled_dot_backend_config":{"block_size":32}})"),
            none);
  EXPECT_NE(padded.find("slice={[0:4], [0:2]}"), std::string::npos) << padded;
  Check(Dot("f8e4m3fn[4,48]", "f8e4m3fn[8,48]", "f8e8m0fnu[4,2]",
            "f8e8m0fnu[8,2]", "f32[4,8]", false,
            R"({"block_scaled_dot_backend_config":{"block_size":32}})"),
        none);
  // Batched cuDNN path with padding on both sides.
  EXPECT_TRUE(UsesCudnn(Check(
      Dot("f8e4m3fn[2,64,64]", "f8e4m3fn[2,32,64]", "f8e8m0fnu[2,64,2]",
          "f8e8m0fnu[2,32,2]", "bf16[2,64,32]", true),
      kBands[4])));
}

TEST(BlockScalingRewriter, NonDefaultLayoutKeepsBlockDimensionMinorToScale) {
  const std::string text = Check(
      "HloModule m\nENTRY e {\n"
      "  lhs = f8e4m3fn[2,4,64]{1,2,0} parameter(0)\n"
      "  rhs = f8e4m3fn[2,8,64] parameter(1)\n"
      "  lhs_scale = f8e8m0fnu[2,4,2]{0,1,2} parameter(2)\n"
      "  rhs_scale = f8e8m0fnu[2,8,2] parameter(3)\n"
      "  ROOT r = f32[2,4,8] custom-call(lhs, rhs, lhs_scale, rhs_scale), "
      "custom_call_target=\"__op$block_scaled_dot\"\n}\n",
      kBands[5]);
  EXPECT_FALSE(UsesCudnn(text));
  EXPECT_NE(text.find("f32[2,4,2,32]{0,1,3,2} broadcast("), std::string::npos)
      << text;
}

TEST(BlockScalingRewriter, QuantizeAndDequantizeExpand) {
  const std::string m = R"(HloModule m
ENTRY e {
  x = f32[4,64] parameter(0)
  q = (f8e4m3fn[4,64], f8e8m0fnu[4,2]) custom-call(x), custom_call_target="__op$quantize"
  d = f8e4m3fn[4,64] get-tuple-element(q), index=0
  s = f8e8m0fnu[4,2] get-tuple-element(q), index=1
  ROOT r = f32[4,64] custom-call(d, s), custom_call_target="__op$dequantize"
})";
  const std::string text = Check(m, kBands[0]);
  EXPECT_EQ(text.find("custom-call"), std::string::npos) << text;
}

TEST(BlockScalingRewriter, BadCallsAreErrors) {
  auto module = ParseHloModule(R"(HloModule m
ENTRY e {
  a = f8e4m3fn[4,64] parameter(0)
  b = f8e4m3fn[4,64] parameter(1)
  ROOT r = f32[4,4] custom-call(a, b), custom_call_target="__op$block_scaled_dot"
})");
  ASSERT_TRUE(module.ok());
  auto result = RunBlockScalingRewriter(**module, {});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("takes 3 to 5 operands"),
            std::string::npos);
}

TEST(BlockScalingRewriter, ExplicitBlockSizeAgreesWithTheEvaluator) {
  // K = 224 with 8 scale blocks: the default block would be 28, the
  // configured one is 32 (the last block partly padding). XLA's tests spell
  // the key unquoted; proto JSON spells an int64 as a string. The evaluator
  // (hlo-run) and the rewritten module must read both alike.
  for (const char* config :
       {R"({"block_scaled_dot_backend_config":{block_size:32}})",
        R"({"block_scaled_dot_backend_config":{"block_size":"32"}})",
        R"({"block_scaled_dot_backend_config":{"block_size":32}})"}) {
    SCOPED_TRACE(config);
    for (const Band& band : {kBands[0], kBands[5]}) {
      const std::string text =
          Check(Dot("f8e4m3fn[4,16,224]", "f8e4m3fn[4,32,224]",
                    "f8e5m2[4,16,8]", "f8e5m2[4,32,8]", "f32[4,16,32]", false,
                    config),
                band);
      EXPECT_NE(text.find("slice={[0:4], [0:16], [0:7]}"), std::string::npos)
          << text;
    }
  }
  // A block size that is not a positive integer, or a config that is not
  // JSON, is an error for both.
  for (const char* config :
       {R"({"block_scaled_dot_backend_config":{"block_size":0}})",
        R"({"block_scaled_dot_backend_config":{"block_size":"x"}})",
        R"({"block_scaled_dot_backend_config":{"block_size":2.5}})",
        R"({"block_scaled_dot_backend_config":{"block_size":32} "x"})"}) {
    SCOPED_TRACE(config);
    auto module = ParseHloModule(Dot("f8e4m3fn[4,64]", "f8e4m3fn[8,64]",
                                     "f8e8m0fnu[4,2]", "f8e8m0fnu[8,2]",
                                     "f32[4,8]", false, config));
    ASSERT_TRUE(module.ok()) << module.status().message();
    std::vector<Literal> args;
    for (const char* shape : {"f8e4m3fn[4,64]", "f8e4m3fn[8,64]",
                              "f8e8m0fnu[4,2]", "f8e8m0fnu[8,2]"}) {
      args.push_back(Literal(*ParseShape(shape)));
    }
    EXPECT_FALSE(EvaluateModule(**module, args).ok());
    EXPECT_FALSE(RunBlockScalingRewriter(**module, {}).ok());
  }
}

// scaled-dot(lhs, rhs, lhs_scale, rhs_scale[, input_global_scale,
// weight_global_scale]) with the given dimension numbers.
std::string ScaledDot(const std::string& lhs, const std::string& rhs,
                      const std::string& ls, const std::string& rs,
                      const std::string& out, const std::string& dims,
                      bool globals = false) {
  std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  lhs = ", lhs, " parameter(0)\n  rhs = ", rhs,
      " parameter(1)\n  lhs_scale = ", ls, " parameter(2)\n  rhs_scale = ", rs,
      " parameter(3)\n");
  if (globals) {
    absl::StrAppend(&text, "  input_global_scale = f32[] parameter(4)\n",
                    "  weight_global_scale = f32[] parameter(5)\n");
  }
  absl::StrAppend(&text, "  ROOT r = ", out,
                  " scaled-dot(lhs, rhs, lhs_scale, rhs_scale",
                  globals ? ", input_global_scale, weight_global_scale" : "",
                  "), ", dims, "\n}\n");
  return text;
}

TEST(BlockScalingRewriter, ScaledDotInEveryBand) {
  const std::string k = "lhs_contracting_dims={1}, rhs_contracting_dims={1}";
  struct Case {
    std::string hlo;
    bool cudnn_capable;  // takes cuDNN where the band allows it
  };
  const Case cases[] = {
      // MXFP8, rows padded to 128 for cuDNN.
      {ScaledDot("f8e4m3fn[64,64]", "f8e4m3fn[32,64]", "f8e8m0fnu[64,2]",
                 "f8e8m0fnu[32,2]", "f16[64,32]", k),
       true},
      // Batched MXFP8, mixed e4m3 x e5m2.
      {ScaledDot("f8e4m3fn[2,16,64]", "f8e5m2[2,8,64]", "f8e8m0fnu[2,16,2]",
                 "f8e8m0fnu[2,8,2]", "f32[2,16,8]",
                 "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                 "rhs_batch_dims={0}, rhs_contracting_dims={2}"),
       true},
      // NVFP4 with the two global scales.
      {ScaledDot("f4e2m1fn[16,64]", "f4e2m1fn[32,64]", "f8e4m3fn[16,4]",
                 "f8e4m3fn[32,4]", "bf16[16,32]", k, /*globals=*/true),
       true},
      // e5m2 x e5m2: never cuDNN.
      {ScaledDot("f8e5m2[16,64]", "f8e5m2[8,64]", "f8e8m0fnu[16,2]",
                 "f8e8m0fnu[8,2]", "f32[16,8]", k),
       false},
      // 2-D blocks (4 rows x 32 columns) with f32 scales, rhs K-major.
      {ScaledDot("f8e4m3fn[8,64]", "f8e4m3fn[64,16]", "f32[2,2]", "f32[2,4]",
                 "f32[8,16]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
       false},
  };
  for (const Case& c : cases) {
    for (const Band& band : kBands) {
      SCOPED_TRACE(absl::StrCat(band.name, "\n", c.hlo));
      const std::string text = Check(c.hlo, band);
      EXPECT_EQ(text.find(" scaled-dot("), std::string::npos) << text;
      const bool cudnn = c.cudnn_capable && band.cc_major >= 10 &&
                         (band.cudnn_major > 9 || band.cudnn_minor >= 10);
      EXPECT_EQ(UsesCudnn(text), cudnn) << text;
    }
  }
}

TEST(BlockScalingRewriter, ScaledDotWithOnlyTheRhsScaled) {
  // XLA's placeholder for an unscaled lhs: a bf16 scalar scale.
  const std::string text = Check(R"(HloModule m
ENTRY e {
  lhs = bf16[16,64] parameter(0)
  rhs = f8e4m3fn[32,64] parameter(1)
  lhs_scale = bf16[] constant(1)
  rhs_scale = f8e8m0fnu[32,2] parameter(2)
  ROOT r = bf16[16,32] scaled-dot(lhs, rhs, lhs_scale, rhs_scale), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
                                 kBands[5]);
  EXPECT_NE(text.find("dot(%lhs, %multiply"), std::string::npos) << text;
}

TEST(GlobalScaleFusion, FoldsScalarMultiply) {
  const std::string m = R"(HloModule m
ENTRY e {
  lhs = f8e4m3fn[128,64] parameter(0)
  rhs = f8e4m3fn[128,64] parameter(1)
  lhs_scale = f8e8m0fnu[128,2] parameter(2)
  rhs_scale = f8e8m0fnu[128,2] parameter(3)
  global_scale = f32[] parameter(4)
  d = f32[128,128] custom-call(lhs, rhs, lhs_scale, rhs_scale), custom_call_target="__op$block_scaled_dot"
  g = f32[128,128] broadcast(global_scale), dimensions={}
  ROOT r = f32[128,128] multiply(d, g)
})";
  auto original = ParseHloModule(m);
  ASSERT_TRUE(original.ok());
  std::unique_ptr<HloModule> fused = (*original)->Clone();
  auto changed = RunBlockScaledDotGlobalScaleFusion(*fused);
  ASSERT_TRUE(changed.ok() && *changed);
  ASSERT_TRUE(VerifyModule(*fused).ok());
  const std::string text = PrintModule(*fused);
  EXPECT_EQ(text.find("multiply("), std::string::npos) << text;
  EXPECT_NE(text.find("rhs_scale, %global_scale)"), std::string::npos) << text;
  std::mt19937_64 gen(3);
  std::vector<Literal> args;
  const HloComputation& entry = *(*original)->entry_computation();
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    args.push_back(Input(entry.parameter_instruction(i)->shape(),
                         entry.parameter_instruction(i)->name().find(
                             "scale") != std::string::npos,
                         gen));
  }
  auto want = EvaluateModule(**original, args);
  auto got = EvaluateModule(*fused, args);
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_EQ(Compare(*got, *want), "");
  // A second use of the dot, or a non-scalar multiplier: left alone.
  auto shared = ParseHloModule(absl::StrReplaceAll(
      m, {{"ROOT r = f32[128,128] multiply(d, g)",
           "r = f32[128,128] multiply(d, g)\n  ROOT t = (f32[128,128], "
           "f32[128,128]) tuple(r, d)"}}));
  ASSERT_TRUE(shared.ok());
  EXPECT_FALSE(*RunBlockScaledDotGlobalScaleFusion(**shared));
}

}  // namespace
}  // namespace xlite
