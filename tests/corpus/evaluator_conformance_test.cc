// The evaluator against XLA:CPU on the JAX corpus: every module (before and
// after XLA's pipeline) evaluated on the recorded arguments reproduces the
// recorded results — integers and predicates bit-exactly, floats within
// the per-type tolerance below. SPMD programs run their partitioned module
// on one simulated device per partition.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "tests/testing/coarsest_float.h"
#ifdef XLITE_CONFORMANCE_CPU
#include "cpu_backend/executable.h"
#include "cpu_backend/multi_device.h"
#endif
#ifdef XLITE_CONFORMANCE_GPU
#include "gpu_backend/executable.h"
#endif
#include "hlo/text/parser.h"
#include "runtime/literal_io.h"
#include "tests/testing/paths.h"

namespace xlite {
namespace {

using ::xlite::testing::CoarsestFloat;

constexpr char kPrograms[] = "tests/corpus/programs";
#if defined(XLITE_CONFORMANCE_CPU)
constexpr char kPlatform[] = "the cpu backend";
#elif defined(XLITE_CONFORMANCE_GPU)
constexpr char kPlatform[] = "the gpu backend on the emulator";
#else
constexpr char kPlatform[] = "evaluator";
#endif

// Tolerances (absolute, relative) by element type. XLA:CPU's own
// transcendental approximations and summation order differ from libm and
// sequential sums by a few ulps; narrow types get about one ulp.
std::pair<double, double> Tolerance(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      return {1e-12, 1e-9};
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:
      return {1e-5, 2e-4};
    case PrimitiveType::kF16:
      return {1e-3, 2e-3};
    case PrimitiveType::kBF16:
      return {1e-2, 1.6e-2};
    default:  // f8 / f4: one ulp of a 2- or 3-bit mantissa
      return {0.02, 0.26};
  }
}

std::string Mismatch(const Literal& got, const Literal& want,
                     PrimitiveType coarsest) {
  PrimitiveType type = want.shape().element_type();
  if (!ShapesCompatible(got.shape(), want.shape())) {
    return absl::StrCat("shape ", got.shape().ToString(false), " vs ",
                        want.shape().ToString(false));
  }
  const bool inexact = IsFloatingPoint(type) || IsComplex(type);
  if (inexact && ::xlite::testing::FloatPrecision(coarsest) <
                     ::xlite::testing::FloatPrecision(type)) {
    type = coarsest;
  }
  const auto [atol, rtol] = Tolerance(type);
  for (int64_t i = 0; i < want.element_count(); ++i) {
    if (!inexact) {
      if (got.GetBits(i) != want.GetBits(i)) {
        return absl::StrCat("element ", i, ": ", got.ElementToString(i), " vs ",
                            want.ElementToString(i));
      }
      continue;
    }
    const std::complex<double> a = got.GetAsComplex(i);
    const std::complex<double> b = want.GetAsComplex(i);
    auto nan = [](std::complex<double> z) {
      return std::isnan(z.real()) || std::isnan(z.imag());
    };
    if (nan(a) || nan(b)) {
      if (nan(a) != nan(b)) {
        return absl::StrCat("element ", i, ": ", got.ElementToString(i), " vs ",
                            want.ElementToString(i));
      }
      continue;
    }
    if (a == b) continue;
    const double err = std::abs(a - b);
    if (std::isinf(a.real()) || std::isinf(b.real()) ||
        err > atol + rtol * std::abs(b)) {
      return absl::StrCat("element ", i, ": ", got.ElementToString(i), " vs ",
                          want.ElementToString(i), " (error ", err, ")");
    }
  }
  return "";
}

void Flatten(const Literal& l, std::vector<const Literal*>* out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Flatten(e, out);
  } else {
    out->push_back(&l);
  }
}

std::vector<Literal> ReadArrays(const std::string& dir, const std::string& stem,
                                const std::vector<Shape>& shapes,
                                const std::string& suffix) {
  std::vector<Literal> out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto literal = ReadLiteralFile(
        absl::StrCat(dir, "/", stem, "_", i, suffix, ".npy"), &shapes[i]);
    EXPECT_TRUE(literal.ok()) << literal.status().message();
    if (literal.ok()) out.push_back(*std::move(literal));
  }
  return out;
}

std::vector<Shape> Leaves(const Shape& shape) {
  std::vector<Shape> out;
  std::function<void(const Shape&)> walk = [&](const Shape& s) {
    if (s.IsTuple()) {
      for (const Shape& e : s.tuple_shapes()) walk(e);
    } else {
      out.push_back(s);
    }
  };
  walk(shape);
  return out;
}

int& Passed() {
  static int passed = 0;
  return passed;
}
int& Total() {
  static int total = 0;
  return total;
}
// Modules the backend refused to compile (gpu: not yet supported).
int& Refused() {
  static int refused = 0;
  return refused;
}

#ifdef XLITE_CONFORMANCE_GPU
// Kernel launches in a thunk sequence (each while/conditional body once).
int64_t CountKernels(const runtime::ThunkSequence& thunks) {
  int64_t n = 0;
  for (const runtime::Thunk& t : thunks) {
    n += t.kind == runtime::Thunk::Kind::kKernel ? 1 : 0;
    for (const runtime::ThunkSequence& child : t.children) {
      n += CountKernels(child);
    }
  }
  return n;
}
#endif

class EvaluatorConformance
    : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(EvaluatorConformance, MatchesXla) {
  const auto& [dir, stage] = GetParam();
  const std::string path = absl::StrCat(dir, "/", stage, ".hlo");
  std::optional<std::string> text = testing::ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  ParseOptions options;
  options.filename = path;
  auto module = ParseHloModule(*text, options);
  ASSERT_TRUE(module.ok()) << module.status().message();
  ASSERT_TRUE(VerifyModule(**module).ok());
  const HloComputation& entry = *(*module)->entry_computation();
  std::vector<Shape> param_shapes;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    param_shapes.push_back(entry.parameter_instruction(i)->shape());
  }
  const std::vector<Shape> result_shapes =
      Leaves(entry.root_instruction()->shape());
  // meta.json records the partitions of SPMD programs.
  const std::string meta = testing::ReadFile(dir + "/meta.json").value_or("");
  const size_t at = meta.find("\"num_partitions\": ");
  const int64_t partitions =
      at == std::string::npos ? 1 : std::atoll(meta.c_str() + at + 18);
  if (partitions > 1 && stage == "before") {
    GTEST_SKIP() << "global SPMD module (shardings resolved by XLA's "
                    "partitioner, not evaluable as one program)";
  }
#ifdef XLITE_CONFORMANCE_GPU
  if (partitions > 1) {
    GTEST_SKIP() << "multi-device programs are not run on the gpu emulator";
  }
  auto gpu_options =
      gpu::DefaultGpuCompileOptions(gpu::GpuCodeTarget::kEmulator);
  ASSERT_TRUE(gpu_options.ok()) << gpu_options.status().message();
  auto gpu_exe = gpu::GpuExecutable::Compile((*module)->Clone(), *gpu_options);
  if (!gpu_exe.ok() &&
      gpu_exe.status().code() == absl::StatusCode::kUnimplemented) {
    ++Refused();
    GTEST_SKIP() << "refused: " << gpu_exe.status().message();
  }
  ASSERT_TRUE(gpu_exe.ok()) << gpu_exe.status().message();
  // Kernel launches per module, and (XLITE_GPU_COUNT_UNFUSED set) without
  // the fusion passes beside them.
  std::string unfused_count = "-";
  if (std::getenv("XLITE_GPU_COUNT_UNFUSED") != nullptr) {
    gpu::GpuCompileOptions unfused = *gpu_options;
    unfused.fuse = false;
    auto plain = gpu::GpuExecutable::Compile((*module)->Clone(), unfused);
    if (plain.ok())
      unfused_count = absl::StrCat(CountKernels((*plain)->thunks()));
  }
  std::cout << "kernels " << dir.substr(dir.rfind('/') + 1) << "/" << stage
            << ": unfused " << unfused_count << ", fused "
            << CountKernels((*gpu_exe)->thunks()) << "\n";
#endif
  ++Total();
  std::vector<std::vector<Literal>> expected;
  std::vector<Literal> results;
  if (partitions > 1) {
    std::vector<std::vector<Literal>> args;
    for (int64_t p = 0; p < partitions; ++p) {
      args.push_back(
          ReadArrays(dir, "in", param_shapes, absl::StrCat(".p", p)));
      expected.push_back(
          ReadArrays(dir, "out", result_shapes, absl::StrCat(".p", p)));
    }
#if defined(XLITE_CONFORMANCE_CPU)
    auto exe = cpu::CpuExecutable::Compile((*module)->Clone());
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    auto r = cpu::RunOnDevices(**exe, 1, partitions, args);
#elif defined(XLITE_CONFORMANCE_GPU)
    absl::StatusOr<std::vector<Literal>> r =
        absl::UnimplementedError("unreachable: skipped above");
#else
    auto r = EvaluateOnDevices(**module, 1, partitions, args);
#endif
    ASSERT_TRUE(r.ok()) << r.status().message();
    results = *std::move(r);
  } else {
    std::vector<Literal> args = ReadArrays(dir, "in", param_shapes, "");
    expected.push_back(ReadArrays(dir, "out", result_shapes, ""));
#if defined(XLITE_CONFORMANCE_CPU)
    auto exe = cpu::CpuExecutable::Compile((*module)->Clone());
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    auto r = (*exe)->Run(args);
#elif defined(XLITE_CONFORMANCE_GPU)
    auto r = (*gpu_exe)->Run(args);
#else
    auto r = EvaluateModule(**module, args);
#endif
    ASSERT_TRUE(r.ok()) << r.status().message();
    results.push_back(*std::move(r));
  }
  bool all = true;
  for (size_t d = 0; d < results.size(); ++d) {
    std::vector<const Literal*> leaves;
    Flatten(results[d], &leaves);
    ASSERT_EQ(leaves.size(), expected[d].size());
    for (size_t k = 0; k < leaves.size(); ++k) {
      const std::string mismatch =
          Mismatch(*leaves[k], expected[d][k], CoarsestFloat(**module));
      EXPECT_EQ(mismatch, "") << "device " << d << ", result " << k << " ("
                              << expected[d][k].shape().ToString(false) << ")";
      all &= mismatch.empty();
    }
  }
  if (all) ++Passed();
}

std::vector<std::pair<std::string, std::string>> Cases() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& dir : testing::ListFiles(kPrograms, "")) {
    out.push_back({dir, "before"});
    out.push_back({dir, "after"});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, EvaluatorConformance, ::testing::ValuesIn(Cases()),
    [](const ::testing::TestParamInfo<std::pair<std::string, std::string>>& i) {
      return i.param.first.substr(i.param.first.rfind('/') + 1) + "_" +
             i.param.second;
    });

class Summary : public ::testing::Environment {
 public:
  void TearDown() override {
    if (Refused() > 0) {
      std::cout << kPlatform << " compiled " << Total() << " of "
                << Total() + Refused() << " corpus modules (refused "
                << Refused() << ")\n";
    }
    std::cout << kPlatform << " matches XLA:CPU on " << Passed() << "/"
              << Total() << " corpus modules\n";
  }
};
const auto* const kSummary = ::testing::AddGlobalTestEnvironment(new Summary());

}  // namespace
}  // namespace xlite
