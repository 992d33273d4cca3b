// Every registered pass (and the cpu pipeline) on a generated module of
// >= 1M instructions and on the largest real corpus module; reports ms and
// instructions/s. Each iteration runs on a fresh clone (cloning untimed).
//
//   bazel run -c opt //tests/benchmarks:pass_benchmark --
//       --module=$PWD/../shared/hlo-corpus/real/maxtext_llama31_70b_bf16_32x8.hlo
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "hlo/text/parser.h"
#include "passes/registry.h"
#include "tests/benchmarks/module_generator.h"

namespace xlite {
namespace {

std::unique_ptr<HloModule> ParseOrDie(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) {
    std::cerr << module.status().message() << "\n";
    std::abort();
  }
  return std::move(*module);
}

void RunPass(benchmark::State& state, const HloModule* module,
             const std::string& spec) {
  auto pipeline = PassRegistry::Global().BuildPipeline(spec, "cpu");
  if (!pipeline.ok()) std::abort();
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<HloModule> clone = module->Clone();
    state.ResumeTiming();
    auto changed = pipeline->Run(*clone);
    if (!changed.ok()) {
      state.SkipWithError(std::string(changed.status().message()).c_str());
      break;
    }
    state.PauseTiming();
    clone.reset();
    state.ResumeTiming();
  }
  const double n = static_cast<double>(module->instruction_count());
  state.counters["instructions"] = n;
  state.counters["instructions/s"] = benchmark::Counter(
      n * state.iterations(), benchmark::Counter::kIsRate);
}

void Register(const std::string& label, const HloModule* module) {
  std::vector<std::string> specs = PassRegistry::Global().Names();
  specs.push_back("");
  for (const std::string& spec : specs) {
    benchmark::RegisterBenchmark(
        (label + "/" + (spec.empty() ? "cpu-pipeline" : spec)).c_str(),
        [module, spec](benchmark::State& s) { RunPass(s, module, spec); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(spec.empty() ? 1 : 3);
  }
}

}  // namespace
}  // namespace xlite

int main(int argc, char** argv) {
  std::string module_path;
  int64_t instructions = 1000000;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--module=", 9) == 0) {
      module_path = argv[i] + 9;
    } else if (std::strncmp(argv[i], "--instructions=", 15) == 0) {
      instructions = std::atoll(argv[i] + 15);
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  auto synthetic =
      xlite::ParseOrDie(xlite::GenerateLargeModule(instructions));
  xlite::Register("Synthetic", synthetic.get());
  std::unique_ptr<xlite::HloModule> real;
  if (!module_path.empty()) {
    std::ifstream in(module_path);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    real = xlite::ParseOrDie(text);
    xlite::Register("Corpus", real.get());
  }
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
