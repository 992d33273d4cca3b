// Block-scaled dots (__op$block_scaled_dot) through the GPU backend on the
// emulator against the interpreter, for each path the rewriter takes: on
// a Blackwell spec with cuDNN 9.19 the cuDNN call (a block-scaled dot
// thunk, the global scale inside it); with cuDNN 9.12 the same call with
// the global scale applied after it; on an H100 spec the expansion into
// kernels. Cases: MXFP8 (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3) and NVFP4,
// rank 2 and batched, rows and scale columns needing padding, with and
// without a global scale, f32/f16/bf16 results. The values are exact in
// every path (small multiples of 1/2 times powers of two), so all paths
// give the interpreter's bits.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpu_backend/executable.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "runtime/gpu_thunks.h"

namespace xlite {
namespace {

struct Case {
  std::string lhs = "f8e4m3fn";
  std::string rhs = "f8e4m3fn";
  std::string out = "f32";
  bool batch = false;
  bool global = false;
  int64_t m = 128, n = 120, k = 64;
};

std::string Name(const Case& c) {
  return absl::StrCat(c.lhs, "_", c.rhs, "_", c.out, c.batch ? "_batch" : "",
                      c.global ? "_global" : "", "_", c.m, "x", c.n, "x", c.k);
}

bool Fp4(const Case& c) { return c.lhs == "f4e2m1fn"; }

std::string Module(const Case& c) {
  const std::string scale = Fp4(c) ? "f8e4m3fn" : "f8e8m0fnu";
  const int64_t blocks = c.k / (Fp4(c) ? 16 : 32);
  const std::string b = c.batch ? "2," : "";
  auto s = [&](const std::string& t, int64_t r, int64_t cols) {
    return absl::StrCat(t, "[", b, r, ",", cols, "]");
  };
  std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", s(c.lhs, c.m, c.k),
      " parameter(0)\n  b = ", s(c.rhs, c.n, c.k),
      " parameter(1)\n  as = ", s(scale, c.m, blocks),
      " parameter(2)\n  bs = ", s(scale, c.n, blocks), " parameter(3)\n");
  std::string operands = "a, b, as, bs";
  if (c.global) {
    absl::StrAppend(&text, "  g = ", c.out, "[] parameter(4)\n");
    operands += ", g";
  }
  absl::StrAppend(&text, "  ROOT d = ", s(c.out, c.m, c.n), " custom-call(",
                  operands,
                  "), custom_call_target=\"__op$block_scaled_dot\"\n}\n");
  return text;
}

// Data in [-2, 2] by halves (f4: integers in [-3, 3]), scales 1/2 to 4.
Literal Values(const Shape& shape, int seed) {
  Literal out(shape);
  const PrimitiveType t = shape.element_type();
  uint32_t state = 777u + 131u * seed;
  for (int64_t i = 0; i < out.element_count(); ++i) {
    state = state * 1664525u + 1013904223u;
    const int r = static_cast<int>((state >> 16) % 9);
    double v = 0;
    if (shape.rank() == 0) {
      v = 0.25;
    } else if (seed >= 2) {  // scales
      v = t == PrimitiveType::kF8E8M0FNU ? (1 << (r % 4)) / 2.0
                                         : (r % 3 + 1) / 2.0;
    } else {
      v = t == PrimitiveType::kF4E2M1FN ? r % 7 - 3 : (r - 4) * 0.5;
    }
    out.SetFromDouble(i, v);
  }
  return out;
}

int CountBlockScaledThunks(const runtime::ThunkSequence& thunks) {
  int n = 0;
  for (const runtime::Thunk& t : thunks) {
    n += t.kind == runtime::Thunk::Kind::kBlockScaledDot;
    for (const auto& child : t.children) n += CountBlockScaledThunks(child);
  }
  return n;
}

struct Path {
  const char* spec;
  const char* cudnn;
  int thunks;
};

class BlockScaledDotTest : public ::testing::TestWithParam<Case> {};

TEST_P(BlockScaledDotTest, EveryPathEqualsTheInterpreter) {
  const Case& c = GetParam();
  const std::string text = Module(c);
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  const HloComputation& entry = *(*module)->entry_computation();
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    args.push_back(Values(entry.parameter_instruction(i)->shape(), i));
  }
  // With IEEE subnormals, as the GPU computes.
  absl::StatusOr<Literal> want =
      EvaluateModule(**module, args, {.denormals = DenormalMode::kIeee});
  ASSERT_TRUE(want.ok()) << want.status();
  // e5m2 x e5m2 has no cuDNN path; the others do on Blackwell.
  for (const Path& path :
       {Path{"b200", "9.19.0", 1}, Path{"gb200", "9.12.0", 1},
        Path{"h100", "9.19.0", 0}}) {
    SCOPED_TRACE(absl::StrCat(path.spec, " cudnn ", path.cudnn));
    absl::StatusOr<gpu::GpuCompileOptions> options =
        gpu::DefaultGpuCompileOptions(gpu::GpuCodeTarget::kEmulator);
    ASSERT_TRUE(options.ok());
    absl::StatusOr<gpu::GpuTargetSpec> spec = gpu::LoadGpuTargetSpec(path.spec);
    ASSERT_TRUE(spec.ok());
    options->spec = *spec;
    absl::StatusOr<gpu::CudnnVersion> cudnn =
        gpu::ParseCudnnVersion(path.cudnn);
    ASSERT_TRUE(cudnn.ok());
    options->spec.cudnn = *cudnn;
    absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> exe =
        gpu::GpuExecutable::Compile((*module)->Clone(), *options);
    ASSERT_TRUE(exe.ok()) << exe.status();
    const runtime::ThunkSequence& thunks = (*exe)->thunks();
    EXPECT_EQ(CountBlockScaledThunks(thunks), path.thunks)
        << runtime::ThunkSequenceToString(thunks);
    if (path.thunks > 0 && c.global) {
      // From cuDNN 9.13 on the graph applies the global scale.
      const bool inside = std::string(path.cudnn) >= "9.13";
      EXPECT_EQ(runtime::ThunkSequenceToString(thunks).find("global scale") !=
                    std::string::npos,
                inside);
    }
    absl::StatusOr<Literal> got = (*exe)->Run(args);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->ToString(), want->ToString());
  }
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"f8e4m3fn", "f8e4m3fn"},
      {"f8e4m3fn", "f8e5m2"},
      {"f8e5m2", "f8e4m3fn"},
      {"f4e2m1fn", "f4e2m1fn"}};
  for (const auto& [lhs, rhs] : pairs) {
    for (const char* out : {"f32", "f16", "bf16"}) {
      for (bool batch : {false, true}) {
        Case c;
        c.lhs = lhs;
        c.rhs = rhs;
        c.out = out;
        c.batch = batch;
        c.global = batch;
        cases.push_back(c);
      }
    }
  }
  Case aligned;  // nothing to pad: 256 rows, 4 scale columns
  aligned.m = 256;
  aligned.n = 128;
  aligned.k = 128;
  aligned.global = true;
  cases.push_back(aligned);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Matrix, BlockScaledDotTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return Name(info.param);
                         });

}  // namespace
}  // namespace xlite
