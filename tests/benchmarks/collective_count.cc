// Collectives executed per step before and after
// while-loop-all-reduce-code-motion: each all-reduce counts once per
// iteration of every counted loop around it (trip counts from the loop
// analysis). Modules are first simplified as XLA's pipeline would have
// (call-inliner, tuple-simplifier, dce).
//
//   bazel build -c opt //tests/benchmarks:collective_count
//   ./bazel-bin/tests/benchmarks/collective_count
//       tests/corpus/programs/grad_accumulation_scan/before.hlo
#include <fstream>
#include <iostream>
#include <sstream>

#include "hlo/text/parser.h"
#include "passes/loop_analysis.h"
#include "passes/registry.h"

namespace xlite {
namespace {

// Executions of all-reduces in `c`, called `times` times.
int64_t Count(const HloComputation& c, int64_t times) {
  int64_t total = 0;
  for (const HloInstruction* h : c.instructions()) {
    if (h->opcode() == HloOpcode::kAllReduce ||
        h->opcode() == HloOpcode::kAllReduceStart) {
      total += times;
    }
    if (h->opcode() == HloOpcode::kWhile) {
      std::optional<CountedLoop> loop = AnalyzeCountedLoop(*h);
      const int64_t trips = loop.has_value() ? loop->trip_count : 1;
      total += Count(*h->while_body(), times * trips);
      total += Count(*h->while_condition(), times * (trips + 1));
      continue;
    }
    for (const HloComputation* f : h->called_computations()) {
      total += Count(*f, times);
    }
  }
  return total;
}

int Main(int argc, char** argv) {
  std::cout << "| module | all-reduces executed before | after |\n|---|---|---|\n";
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i]);
    std::stringstream text;
    text << in.rdbuf();
    auto module = ParseHloModule(text.str());
    if (!module.ok()) {
      std::cerr << module.status().message() << "\n";
      return 1;
    }
    auto prepare = PassRegistry::Global().BuildPipeline(
        "call-inliner,tuple-simplifier,dce", "transforms");
    auto motion = PassRegistry::Global().BuildPipeline(
        "while-loop-all-reduce-code-motion", "transforms");
    if (!prepare.ok() || !motion.ok() || !prepare->Run(**module).ok()) return 1;
    const int64_t before = Count(*(*module)->entry_computation(), 1);
    if (!motion->Run(**module).ok()) return 1;
    const int64_t after = Count(*(*module)->entry_computation(), 1);
    std::cout << "| " << argv[i] << " | " << before << " | " << after << " |\n";
  }
  return 0;
}

}  // namespace
}  // namespace xlite

int main(int argc, char** argv) { return xlite::Main(argc, argv); }
