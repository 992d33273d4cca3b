// GEMM custom calls run as GEMM thunks on the emulator (its reference
// GEMM) against the interpreter, over a matrix of cases: element types
// (f32, f64, bf16, f16, c64), plain, transposed and column-major operands,
// batches, alpha (complex for c64) and beta with c aliased to the result,
// and every epilogue the GEMM rewriter produces; plus f8 with scales and
// amax, and calls no thunk runs (SiLU, integers), which are expanded into
// kernels instead. The thunk reuses the evaluator's numerics, so results
// are equal bit for bit.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpu_backend/executable.h"
#include "gtest/gtest.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "runtime/gpu_thunks.h"
#include "tests/gpu/deterministic_values.h"

namespace xlite {
namespace {

struct Case {
  std::string type = "f32";
  std::string form = "nn";  // nn, ta, tb, batch, colmajor
  std::string epilogue = "DEFAULT";
  bool beta = false;
  bool complex_alpha = false;
};

std::string Name(const Case& c) {
  return absl::StrCat(c.type, "_", c.form, "_", c.epilogue,
                      c.beta ? "_beta" : "");
}

bool HasBias(const std::string& e) { return e.rfind("BIAS", 0) == 0; }
bool HasAux(const std::string& e) {
  return e.size() > 4 && e.substr(e.size() - 4) == "_AUX";
}

// d[.., 3, 4] = a x b with k = 5 (batch 2), the operands as `form` says.
std::string Module(const Case& c) {
  const std::string t = c.type;
  std::string a = t + "[3,5]{1,0}", b = t + "[5,4]{1,0}", d = t + "[3,4]{1,0}";
  std::string lc = "1", rc = "0", batch;
  if (c.form == "ta") {
    a = t + "[5,3]{1,0}";
    lc = "0";
  } else if (c.form == "tb") {
    b = t + "[4,5]{1,0}";
    rc = "1";
  } else if (c.form == "colmajor") {
    a = t + "[3,5]{0,1}";
    b = t + "[5,4]{0,1}";
  } else if (c.form == "batch") {
    a = t + "[2,3,5]{2,1,0}";
    b = t + "[2,5,4]{2,1,0}";
    d = t + "[2,3,4]{2,1,0}";
    lc = "2";
    rc = "1";
    batch = "\"0\"";
  }
  std::vector<std::string> params = {"a = " + a + " parameter(0)",
                                     "b = " + b + " parameter(1)"};
  std::vector<std::string> operands = {"a", "b"};
  if (c.beta) {
    params.push_back("c = " + d + " parameter(2)");
    operands.push_back("c");
  }
  if (HasBias(c.epilogue)) {
    params.push_back(
        absl::StrCat("bias = ", t, "[4]{0} parameter(", params.size(), ")"));
    operands.push_back("bias");
  }
  const bool aux = HasAux(c.epilogue);
  const std::string result =
      absl::StrCat("(", d, aux ? ", " + d : "", ", s8[1024]{0})");
  const std::string config = absl::StrCat(
      R"({"gemm_backend_config":{"alpha_real":1.5,"alpha_imag":)",
      c.complex_alpha ? "0.5" : "0", R"(,"beta":)", c.beta ? "0.5" : "0",
      R"(,"dot_dimension_numbers":{"lhs_contracting_dimensions":[")", lc,
      R"("],"rhs_contracting_dimensions":[")", rc,
      R"("],"lhs_batch_dimensions":[)", batch, R"(],"rhs_batch_dimensions":[)",
      batch,
      R"(]},"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":")",
      c.epilogue, R"("}})");
  std::string text = "HloModule gemm\n\nENTRY e {\n";
  for (const std::string& p : params) absl::StrAppend(&text, "  ", p, "\n");
  absl::StrAppend(&text, "  call = ", result, " custom-call(",
                  absl::StrJoin(operands, ", "),
                  "), custom_call_target=\"__cublas$lt$matmul\"",
                  c.beta ? ", output_to_operand_aliasing={{0}: (2, {})}" : "",
                  ", backend_config=", config, "\n");
  absl::StrAppend(&text, "  d = ", d, " get-tuple-element(call), index=0\n");
  if (aux) {
    absl::StrAppend(&text, "  x = ", d, " get-tuple-element(call), index=1\n",
                    "  ROOT r = (", d, ", ", d, ") tuple(d, x)\n");
  } else {
    absl::StrAppend(&text, "  ROOT r = (", d, ") tuple(d)\n");
  }
  return text + "}\n";
}

int CountGemmThunks(const runtime::ThunkSequence& thunks) {
  int n = 0;
  for (const runtime::Thunk& t : thunks) {
    n += t.kind == runtime::Thunk::Kind::kGemm;
    for (const auto& child : t.children) n += CountGemmThunks(child);
  }
  return n;
}

// Runs `text` on the emulator and the interpreter; `gemms` thunks expected.
void Check(const std::string& text, int gemms) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  const std::vector<Literal> args = gpu_test::DeterministicArguments(**module);
  // With IEEE subnormals, as the GPU computes.
  absl::StatusOr<Literal> want =
      EvaluateModule(**module, args, {.denormals = DenormalMode::kIeee});
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<gpu::GpuCompileOptions> options =
      gpu::DefaultGpuCompileOptions(gpu::GpuCodeTarget::kEmulator);
  ASSERT_TRUE(options.ok());
  absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> exe =
      gpu::GpuExecutable::Compile((*module)->Clone(), *options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(CountGemmThunks((*exe)->thunks()), gemms)
      << runtime::ThunkSequenceToString((*exe)->thunks());
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->ToString(), want->ToString());
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const char* type : {"f32", "f64", "bf16", "f16", "c64"}) {
    for (const char* form : {"nn", "ta", "tb", "batch", "colmajor"}) {
      for (bool beta : {false, true}) {
        Case c;
        c.type = type;
        c.form = form;
        c.beta = beta;
        c.complex_alpha = c.type == "c64";
        cases.push_back(c);
      }
    }
  }
  for (const char* type : {"f32", "bf16", "f16", "f64"}) {
    for (const char* epilogue : {"BIAS", "RELU", "BIAS_RELU", "GELU",
                                 "BIAS_GELU", "GELU_AUX", "BIAS_GELU_AUX"}) {
      for (const char* form : {"nn", "batch"}) {
        Case c;
        c.type = type;
        c.form = form;
        c.epilogue = epilogue;
        c.beta = c.form == "batch";
        cases.push_back(c);
      }
    }
  }
  return cases;
}

class GemmThunkTest : public ::testing::TestWithParam<Case> {};

TEST_P(GemmThunkTest, EmulatorEqualsInterpreter) {
  const Case& c = GetParam();
  // A bias needs a row-major result (cuBLASLt adds it along d's rows in
  // its column-major view); column-major results with a bias are expanded.
  Check(Module(c), 1);
}

INSTANTIATE_TEST_SUITE_P(Matrix, GemmThunkTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return Name(info.param);
                         });

TEST(GemmThunk, F8WithScalesAndAmax) {
  Check(R"(HloModule f8

ENTRY e {
  a = f8e4m3fn[2,2]{1,0} parameter(0)
  b = f8e4m3fn[2,2]{1,0} parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  sc = f32[] parameter(4)
  sd = f32[] parameter(5)
  call = (f8e4m3fn[2,2]{1,0}, f32[], s8[16]{0}) custom-call(a, b, sa, sb, sc, sd), custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"DEFAULT","damax_output":true}}
  d = f8e4m3fn[2,2]{1,0} get-tuple-element(call), index=0
  m = f32[] get-tuple-element(call), index=1
  ROOT r = (f8e4m3fn[2,2]{1,0}, f32[]) tuple(d, m)
}
)",
        1);
}

TEST(GemmThunk, CallsNoThunkRunsAreExpanded) {
  // An integer GEMM: expanded into a dot kernel, still the interpreter's.
  Check(R"(HloModule s8

ENTRY e {
  a = s8[3,5]{1,0} parameter(0)
  b = s8[5,4]{1,0} parameter(1)
  call = (s32[3,4]{1,0}, s8[16]{0}) custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"DEFAULT"}}
  ROOT d = s32[3,4]{1,0} get-tuple-element(call), index=0
}
)",
        0);
}

TEST(GemmThunk, RewrittenDotsRunAsThunks) {
  // The GEMM rewriter turns the dot, bias add and ReLU into one call.
  Check(R"(HloModule rewritten

ENTRY e {
  a = f32[16,32]{1,0} parameter(0)
  b = f32[32,8]{1,0} parameter(1)
  bias = f32[8]{0} parameter(2)
  dot = f32[16,8]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[16,8]{1,0} broadcast(bias), dimensions={1}
  add = f32[16,8]{1,0} add(dot, bb)
  zero = f32[] constant(0)
  zeros = f32[16,8]{1,0} broadcast(zero), dimensions={}
  ROOT relu = f32[16,8]{1,0} maximum(add, zeros)
}
)",
        1);
}

TEST(GemmThunk, ForcedExpansionLeavesNoThunk) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(Module(Case{}));
  ASSERT_TRUE(module.ok());
  absl::StatusOr<gpu::GpuCompileOptions> options =
      gpu::DefaultGpuCompileOptions(gpu::GpuCodeTarget::kEmulator);
  ASSERT_TRUE(options.ok());
  options->expand_gemm_calls = true;
  absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> exe =
      gpu::GpuExecutable::Compile(*std::move(module), *options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(CountGemmThunks((*exe)->thunks()), 0);
}

}  // namespace
}  // namespace xlite
