// Parse / verify / print throughput on a generated module of >= 200k
// instructions (Google Benchmark), plus memory per instruction.
//
//   bazel run -c opt //tests/benchmarks:parser_benchmark
//   bazel run -c opt //tests/benchmarks:parser_benchmark -- --memory
//   bazel run -c opt //tests/benchmarks:parser_benchmark --
//   --write_module=/tmp/m.hlo python3 tests/benchmarks/compare_xla_parser.py
//   (XLA side by side)
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "hlo/analysis/verifier.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "tests/benchmarks/module_generator.h"

namespace xlite {
namespace {

int64_t g_instructions = 200000;
std::string* g_text_path = nullptr;

const std::string& Text() {
  static const std::string* const kText = [] {
    if (g_text_path != nullptr) {
      std::ifstream in(*g_text_path);
      return new std::string((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
    }
    return new std::string(GenerateLargeModule(g_instructions));
  }();
  return *kText;
}

std::unique_ptr<HloModule> ParseOrDie(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) {
    std::cerr << module.status().message() << "\n";
    std::abort();
  }
  return std::move(*module);
}

void SetCounters(benchmark::State& state, int64_t instructions) {
  state.SetBytesProcessed(state.iterations() * Text().size());
  state.counters["instructions/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * instructions),
                         benchmark::Counter::kIsRate);
  state.counters["instructions"] = static_cast<double>(instructions);
}

void BM_Parse(benchmark::State& state) {
  const std::string& text = Text();
  int64_t instructions = 0;
  for (auto _ : state) {
    auto module = ParseOrDie(text);
    instructions = module->instruction_count();
    benchmark::DoNotOptimize(module);
  }
  SetCounters(state, instructions);
}
BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Verify(benchmark::State& state) {
  auto module = ParseOrDie(Text());
  for (auto _ : state) {
    absl::Status status = VerifyModule(*module);
    if (!status.ok()) std::abort();
  }
  SetCounters(state, module->instruction_count());
}
BENCHMARK(BM_Verify)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Print(benchmark::State& state) {
  auto module = ParseOrDie(Text());
  for (auto _ : state) {
    std::string printed = PrintModule(*module);
    benchmark::DoNotOptimize(printed);
  }
  SetCounters(state, module->instruction_count());
}
BENCHMARK(BM_Print)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ParseVerifyPrint(benchmark::State& state) {
  const std::string& text = Text();
  int64_t instructions = 0;
  for (auto _ : state) {
    auto module = ParseOrDie(text);
    if (!VerifyModule(*module).ok()) std::abort();
    std::string printed = PrintModule(*module);
    instructions = module->instruction_count();
    benchmark::DoNotOptimize(printed);
  }
  SetCounters(state, instructions);
}
BENCHMARK(BM_ParseVerifyPrint)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ProtoExport(benchmark::State& state) {
  auto module = ParseOrDie(Text());
  for (auto _ : state) {
    auto proto = ModuleToProto(*module);
    if (!proto.ok()) std::abort();
    std::string bytes = SerializeDeterministic(*proto);
    benchmark::DoNotOptimize(bytes);
  }
  SetCounters(state, module->instruction_count());
}
BENCHMARK(BM_ProtoExport)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ProtoImport(benchmark::State& state) {
  auto module = ParseOrDie(Text());
  auto proto = ModuleToProto(*module);
  if (!proto.ok()) std::abort();
  const std::string bytes = SerializeDeterministic(*proto);
  for (auto _ : state) {
    auto imported = ModuleFromSerializedProto(bytes, false, "bench");
    if (!imported.ok()) std::abort();
    benchmark::DoNotOptimize(imported);
  }
  SetCounters(state, module->instruction_count());
}
BENCHMARK(BM_ProtoImport)->Unit(benchmark::kMillisecond)->UseRealTime();

// Heap bytes in use (malloc's accounting, so freed parser scratch space
// does not count).
int64_t HeapInUse() {
  struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

// Heap the parsed module holds, per instruction, and the peak RSS of
// parse + verify + print.
int MeasureMemory() {
  const std::string& text = Text();
  const int64_t before = HeapInUse();
  auto module = ParseOrDie(text);
  const int64_t after = HeapInUse();
  if (!VerifyModule(*module).ok()) return 1;
  std::string printed = PrintModule(*module);
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  const int64_t n = module->instruction_count();
  std::printf(
      "module: %lld instructions, %.1f MB of text\n"
      "heap held by the parsed module: %.1f MB = %.0f bytes/instruction\n"
      "peak RSS of the process (text + module + verify + printed copy): "
      "%.1f MB\n",
      static_cast<long long>(n), text.size() / 1e6, (after - before) / 1e6,
      static_cast<double>(after - before) / n, usage.ru_maxrss / 1e3);
  return 0;
}

}  // namespace
}  // namespace xlite

int main(int argc, char** argv) {
  bool memory = false;
  std::string write_path;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--memory") {
      memory = true;
    } else if (arg.rfind("--write_module=", 0) == 0) {
      write_path = arg.substr(15);
    } else if (arg.rfind("--module=", 0) == 0) {
      xlite::g_text_path = new std::string(arg.substr(9));
    } else if (arg.rfind("--instructions=", 0) == 0) {
      xlite::g_instructions = std::stoll(arg.substr(15));
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (!write_path.empty()) {
    std::ofstream(write_path) << xlite::Text();
    return 0;
  }
  if (memory) return xlite::MeasureMemory();
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
