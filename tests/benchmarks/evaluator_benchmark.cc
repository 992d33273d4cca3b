// Evaluator throughput: elementwise ops (elements/s), f32/f64 dot through
// Eigen (FLOP/s), and a transformer block of the JAX corpus end to end.
// Side by side with XLA:CPU: tests/benchmarks/compare_evaluator_xla.py.
//
//   bazel build -c opt //tests/benchmarks:evaluator_benchmark
//   bazel-bin/tests/benchmarks/evaluator_benchmark
#include <benchmark/benchmark.h>

#include <fstream>
#include <random>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/parser.h"
#include "runtime/literal_io.h"

namespace xlite {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) std::abort();
  return *std::move(module);
}

Literal Random(const Shape& shape, uint64_t seed) {
  Literal out(shape);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    out.SetFromDouble(i, dist(gen));
  }
  return out;
}

void Elementwise(benchmark::State& state, const char* op, const char* type) {
  const int64_t n = state.range(0);
  const std::string shape = absl::StrCat(type, "[", n, "]");
  const bool binary = std::string(op) != "exponential" &&
                      std::string(op) != "tanh";
  auto module = Parse(absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  b = ", shape,
      " parameter(1)\n  ROOT r = ", shape, " ", op,
      binary ? "(a, b)" : "(a)", "\n}\n"));
  const Shape s = module->entry_computation()->parameter_instruction(0)->shape();
  std::vector<Literal> args = {Random(s, 1), Random(s, 2)};
  for (auto _ : state) {
    auto r = EvaluateModule(*module, args);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK_CAPTURE(Elementwise, add_f32, "add", "f32")->Arg(1 << 22);
BENCHMARK_CAPTURE(Elementwise, multiply_bf16, "multiply", "bf16")->Arg(1 << 22);
BENCHMARK_CAPTURE(Elementwise, exp_f32, "exponential", "f32")->Arg(1 << 22);
BENCHMARK_CAPTURE(Elementwise, tanh_f32, "tanh", "f32")->Arg(1 << 22);

void Dot(benchmark::State& state, const char* type) {
  const int64_t n = state.range(0);
  const std::string shape = absl::StrCat(type, "[", n, ",", n, "]");
  auto module = Parse(absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  b = ", shape,
      " parameter(1)\n  ROOT r = ", shape,
      " dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n"));
  const Shape s = module->entry_computation()->parameter_instruction(0)->shape();
  std::vector<Literal> args = {Random(s, 1), Random(s, 2)};
  for (auto _ : state) {
    auto r = EvaluateModule(*module, args);
    benchmark::DoNotOptimize(r);
  }
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * n * n * n * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(Dot, f32, "f32")->Arg(512)->Arg(1024);
BENCHMARK_CAPTURE(Dot, f64, "f64")->Arg(512);

// The corpus transformer block (XLA:CPU's optimized module) on its inputs.
void TransformerBlock(benchmark::State& state, const char* stage) {
  const std::string dir = "tests/corpus/programs/transformer_forward/";
  std::ifstream in(dir + stage + ".hlo");
  std::stringstream text;
  text << in.rdbuf();
  auto module = Parse(text.str());
  const HloComputation& entry = *module->entry_computation();
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const Shape& s = entry.parameter_instruction(i)->shape();
    auto l = ReadLiteralFile(absl::StrCat(dir, "in_", i, ".npy"), &s);
    if (!l.ok()) {
      state.SkipWithError("run from the source root (corpus inputs)");
      return;
    }
    args.push_back(*std::move(l));
  }
  for (auto _ : state) {
    auto r = EvaluateModule(*module, args);
    if (!r.ok()) state.SkipWithError(std::string(r.status().message()).c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK_CAPTURE(TransformerBlock, before, "before")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(TransformerBlock, after, "after")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xlite

BENCHMARK_MAIN();
