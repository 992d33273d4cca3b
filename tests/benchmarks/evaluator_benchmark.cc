// Evaluator throughput: elementwise ops (elements/s), dots and
// convolutions in f32/f64/bf16/f16 (FLOP/s), a bf16 attention block, and a
// transformer block of the JAX corpus end to end.
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
#include "hlo/text/parser.h"
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

// dot of [M,K] x [K,N] in `type` (model-sized projections).
void MatMul(benchmark::State& state, const char* type) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  auto module = Parse(absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", type, "[", m, ",", k,
      "] parameter(0)\n  b = ", type, "[", k, ",", n,
      "] parameter(1)\n  ROOT r = ", type, "[", m, ",", n,
      "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n"));
  const HloComputation& entry = *module->entry_computation();
  std::vector<Literal> args = {Random(entry.parameter_instruction(0)->shape(), 1),
                               Random(entry.parameter_instruction(1)->shape(), 2)};
  for (auto _ : state) {
    auto r = EvaluateModule(*module, args);
    benchmark::DoNotOptimize(r);
  }
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * m * k * n * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(MatMul, f32, "f32")->Args({1024, 256, 1024});
BENCHMARK_CAPTURE(MatMul, bf16, "bf16")->Args({1024, 256, 1024});
BENCHMARK_CAPTURE(MatMul, f16, "f16")->Args({1024, 256, 1024});

// 3x3 SAME convolution, NCHW [8,64,32,32] with 64 output features.
void Conv(benchmark::State& state, const char* type) {
  const int64_t n = 8, c = 64, hw = 32, o = 64;
  auto module = Parse(absl::StrCat(
      "HloModule m\nENTRY e {\n  x = ", type, "[", n, ",", c, ",", hw, ",", hw,
      "] parameter(0)\n  k = ", type, "[", o, ",", c,
      ",3,3] parameter(1)\n  ROOT y = ", type, "[", n, ",", o, ",", hw, ",",
      hw,
      "] convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
      "dim_labels=bf01_oi01->bf01\n}\n"));
  const HloComputation& entry = *module->entry_computation();
  std::vector<Literal> args = {Random(entry.parameter_instruction(0)->shape(), 1),
                               Random(entry.parameter_instruction(1)->shape(), 2)};
  for (auto _ : state) {
    auto r = EvaluateModule(*module, args);
    benchmark::DoNotOptimize(r);
  }
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * n * hw * hw * o * c * 9 * state.iterations(),
      benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(Conv, f32, "f32")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Conv, bf16, "bf16")->Unit(benchmark::kMillisecond);

// Softmax attention in bf16: 8 heads x 512 tokens x 64, as a model's HLO
// has it (dot, max-reduce, exp, sum-reduce, divide, dot).
void Attention(benchmark::State& state) {
  auto module = Parse(R"(HloModule m
max {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT c = bf16[] maximum(a, b)
}
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT c = bf16[] add(a, b)
}
ENTRY e {
  q = bf16[8,512,64] parameter(0)
  k = bf16[8,512,64] parameter(1)
  v = bf16[8,512,64] parameter(2)
  s = bf16[8,512,512] dot(q, k), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  ninf = bf16[] constant(-inf)
  m = bf16[8,512] reduce(s, ninf), dimensions={2}, to_apply=max
  mb = bf16[8,512,512] broadcast(m), dimensions={0,1}
  d = bf16[8,512,512] subtract(s, mb)
  x = bf16[8,512,512] exponential(d)
  zero = bf16[] constant(0)
  l = bf16[8,512] reduce(x, zero), dimensions={2}, to_apply=add
  lb = bf16[8,512,512] broadcast(l), dimensions={0,1}
  p = bf16[8,512,512] divide(x, lb)
  ROOT o = bf16[8,512,64] dot(p, v), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})");
  const HloComputation& entry = *module->entry_computation();
  std::vector<Literal> args;
  for (int i = 0; i < 3; ++i) {
    args.push_back(Random(entry.parameter_instruction(i)->shape(), i + 1));
  }
  for (auto _ : state) {
    auto r = EvaluateModule(*module, args);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(Attention)->Unit(benchmark::kMillisecond);

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
