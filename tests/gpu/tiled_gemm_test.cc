// Tiled GEMM fusions (--gemm-backend=tiled) over a matrix of dots: odd
// sizes (67x129x257, 3x5x7, 17x33x9) and exact tile multiples, operands
// plain, transposed (lhs contracting dimension 0, rhs contracting
// dimension 1), with a batch dimension or column-major; f32, bf16 and f16
// (accumulated in f32) and s8 x s8 -> s32; epilogues bias + ReLU, GELU
// (tanh form) and a convert to bf16. Each runs on the GPU emulator against
// the interpreter, and assembles with ptxas for sm_90a (h100) and sm_100a
// (b200) when ptxas is installed.

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpu_backend/executable.h"
#include "gpu_backend/ptx_compiler.h"
#include "gtest/gtest.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "hlo/text/parser.h"
#include "runtime/gpu_thunks.h"
#include "tests/gpu/deterministic_values.h"

namespace xlite {
namespace {

struct Case {
  std::string type = "f32";       // operand type; s8 gives an s32 result
  std::string form = "nn";        // nn, ta, tb, batch, colmajor
  std::string epilogue = "none";  // none, bias_relu, gelu, convert_bf16
  int64_t m = 67, n = 129, k = 257;
};

std::string Name(const Case& c) {
  return absl::StrCat(c.type, "_", c.form, "_", c.epilogue, "_", c.m, "x", c.n,
                      "x", c.k);
}

std::string Dims(std::vector<int64_t> d) { return absl::StrJoin(d, ","); }

// The module: d = a x b as `form` lays them out, then the epilogue.
std::string Module(const Case& c) {
  const std::string t = c.type;
  const std::string r = t == "s8" ? "s32" : t;
  const bool batch = c.form == "batch";
  std::string a = absl::StrCat(t, "[", Dims({c.m, c.k}), "]{1,0}");
  std::string b = absl::StrCat(t, "[", Dims({c.k, c.n}), "]{1,0}");
  std::string lc = "1", rc = "0", dims;
  if (c.form == "ta") {
    a = absl::StrCat(t, "[", Dims({c.k, c.m}), "]{1,0}");
    lc = "0";
  } else if (c.form == "tb") {
    b = absl::StrCat(t, "[", Dims({c.n, c.k}), "]{1,0}");
    rc = "1";
  } else if (c.form == "colmajor") {
    a = absl::StrCat(t, "[", Dims({c.m, c.k}), "]{0,1}");
    b = absl::StrCat(t, "[", Dims({c.k, c.n}), "]{0,1}");
  } else if (batch) {
    a = absl::StrCat(t, "[3,", Dims({c.m, c.k}), "]{2,1,0}");
    b = absl::StrCat(t, "[3,", Dims({c.k, c.n}), "]{2,1,0}");
    lc = "2";
    rc = "1";
    dims = "lhs_batch_dims={0}, rhs_batch_dims={0}, ";
  }
  const std::string shape = batch ? Dims({3, c.m, c.n}) : Dims({c.m, c.n});
  const std::string d = absl::StrCat(r, "[", shape, "]");
  const std::string last = batch ? "2" : "1";
  std::string text =
      absl::StrCat("HloModule tiled\n\nENTRY e {\n  a = ", a,
                   " parameter(0)\n  b = ", b, " parameter(1)\n");
  absl::StrAppend(&text, "  d = ", d, " dot(a, b), ", dims,
                  "lhs_contracting_dims={", lc, "}, rhs_contracting_dims={", rc,
                  "}\n");
  if (c.epilogue == "none") {
    absl::StrAppend(&text, "  ROOT out = ", d, " negate(d)\n");
  } else if (c.epilogue == "bias_relu") {
    text.insert(text.find("  d = "),
                absl::StrCat("  bias = ", r, "[", c.n, "] parameter(2)\n"));
    absl::StrAppend(&text, "  bb = ", d, " broadcast(bias), dimensions={", last,
                    "}\n  add = ", d, " add(d, bb)\n  zero = ", r,
                    "[] constant(0)\n  zeros = ", d,
                    " broadcast(zero), dimensions={}\n  ROOT out = ", d,
                    " maximum(add, zeros)\n");
  } else if (c.epilogue == "gelu") {
    absl::StrAppend(&text, "  x3 = ", d, " multiply(d, d)\n  c = ", r,
                    "[] constant(0.5)\n  cb = ", d,
                    " broadcast(c), dimensions={}\n  y = ", d,
                    " multiply(x3, cb)\n  th = ", d,
                    " tanh(y)\n  ROOT out = ", d, " multiply(d, th)\n");
  } else {
    absl::StrAppend(&text, "  ROOT out = bf16[", shape, "] convert(d)\n");
  }
  return text + "}\n";
}

bool HasTiledGemmFusion(const HloModule& module) {
  for (const HloInstruction* h : module.entry_computation()->instructions()) {
    if (IsTiledGemmFusion(*h)) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> Compile(
    const std::string& text, gpu::GpuCodeTarget target,
    const char* spec_name = "h100") {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  absl::StatusOr<gpu::GpuCompileOptions> options =
      gpu::DefaultGpuCompileOptions(target);
  if (!options.ok()) return options.status();
  absl::StatusOr<gpu::GpuTargetSpec> spec = gpu::LoadGpuTargetSpec(spec_name);
  if (!spec.ok()) return spec.status();
  options->spec = *spec;
  options->gemm_backend = gpu::GemmBackend::kTiled;
  options->assemble = target == gpu::GpuCodeTarget::kNvptx;
  return gpu::GpuExecutable::Compile(*std::move(module), *options);
}

// Equal for integers; for floats within what the result type's rounding
// of the same f32 sum (or the epilogue's tanh) may differ by.
void ExpectClose(const Literal& got, const Literal& want, double tolerance) {
  ASSERT_EQ(got.element_count(), want.element_count());
  int64_t bad = 0;
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const double g = got.GetAsDouble(i), w = want.GetAsDouble(i);
    if (std::fabs(g - w) > tolerance * std::max(1.0, std::fabs(w))) {
      if (++bad <= 5) {
        ADD_FAILURE() << "element " << i << ": " << g << " vs " << w;
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

class TiledGemmTest : public ::testing::TestWithParam<Case> {};

TEST_P(TiledGemmTest, EmulatorMatchesInterpreter) {
  const Case& c = GetParam();
  const std::string text = Module(c);
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  const std::vector<Literal> args = gpu_test::DeterministicArguments(**module);
  absl::StatusOr<Literal> want = EvaluateModule(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  auto exe = Compile(text, gpu::GpuCodeTarget::kEmulator);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_TRUE(HasTiledGemmFusion((*exe)->module()))
      << runtime::ThunkSequenceToString((*exe)->thunks());
  ASSERT_EQ((*exe)->thunks().size(), 1u)
      << runtime::ThunkSequenceToString((*exe)->thunks());
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status();
  const bool narrow =
      c.type == "bf16" || c.type == "f16" || c.epilogue == "convert_bf16";
  const double tolerance = c.type == "s8"         ? 0
                           : narrow               ? 1e-2
                           : c.epilogue == "gelu" ? 1e-5
                                                  : 1e-6;
  ExpectClose(*got, *want, tolerance);
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
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Matrix, TiledGemmTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return Name(info.param);
                         });

class TiledGemmPtxasTest : public ::testing::TestWithParam<Case> {};

TEST_P(TiledGemmPtxasTest, AssemblesForHopperAndBlackwell) {
  if (!gpu::FindPtxas().ok()) GTEST_SKIP() << gpu::FindPtxas().status();
  for (const char* spec : {"h100", "b200"}) {
    auto exe = Compile(Module(GetParam()), gpu::GpuCodeTarget::kNvptx, spec);
    ASSERT_TRUE(exe.ok()) << spec << ": " << exe.status();
    EXPECT_TRUE(HasTiledGemmFusion((*exe)->module()));
    EXPECT_NE((*exe)->ptx().find("bar.sync"), std::string::npos) << spec;
    EXPECT_FALSE((*exe)->cubin().empty()) << spec;
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
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Ptxas, TiledGemmPtxasTest,
                         ::testing::ValuesIn(PtxasCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return Name(info.param);
                         });

}  // namespace
}  // namespace xlite
