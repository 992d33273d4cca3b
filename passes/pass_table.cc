// The table of passes: one entry per pass, the only place a pass is named.
// `hlo-opt --passes=<name>` and `--list-passes` read it.

#include <functional>

#include "passes/passes.h"
#include "passes/registry.h"

namespace xlite {
namespace {

using RunFn = std::function<absl::StatusOr<bool>(HloModule&)>;

// An HloPass around a function.
class FunctionPass : public HloPass {
 public:
  FunctionPass(std::string name, RunFn run)
      : name_(std::move(name)), run_(std::move(run)) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule& module) override { return run_(module); }

 private:
  std::string name_;
  RunFn run_;
};

// A table entry for a pass without options.
PassInfo Simple(std::string name, std::string description,
                absl::StatusOr<bool> (*run)(HloModule&)) {
  PassInfo info;
  info.name = name;
  info.description = std::move(description);
  info.factory = [name, run](const PassOptions&) {
    return std::make_unique<FunctionPass>(name, run);
  };
  return info;
}

using Type = PassOptionSpec::Type;

}  // namespace

const PassRegistry& PassRegistry::Global() {
  static const PassRegistry* const kRegistry = new PassRegistry({
      {"dce",
       "removes unused side-effect-free instructions and uncalled "
       "computations",
       {{"remove_dead_computations", Type::kBool, "true",
         "also remove computations nothing calls"}},
       [](const PassOptions& o) {
         const bool computations = o.GetBool("remove_dead_computations");
         return std::make_unique<FunctionPass>(
             "dce", [computations](HloModule& m) {
               return RunDce(m, computations);
             });
       }},
      {"cse",
       "merges identical instructions (commutative operands in either order)",
       {{"only_scalar_constants", Type::kBool, "false",
         "merge only scalar constants among constants"}},
       [](const PassOptions& o) {
         const bool scalars = o.GetBool("only_scalar_constants");
         return std::make_unique<FunctionPass>(
             "cse", [scalars](HloModule& m) { return RunCse(m, scalars); });
       }},
      {"constant-folding",
       "evaluates instructions whose operands are all constants",
       {{"max_elements", Type::kInt, "1000000",
         "largest result (elements) to fold"}},
       [](const PassOptions& o) {
         const int64_t max = o.GetInt("max_elements");
         return std::make_unique<FunctionPass>(
             "constant-folding",
             [max](HloModule& m) { return RunConstantFolding(m, max); });
       }},
      Simple("algsimp", "table-driven algebraic simplifier",
             &RunAlgebraicSimplifier),
      Simple("tuple-simplifier",
             "forwards get-tuple-element(tuple) and rebuilt tuples",
             &RunTupleSimplifier),
      Simple("call-inliner", "inlines call instructions", &RunCallInliner),
      Simple("flatten-call-graph",
             "gives every call site its own copy of the computation",
             &RunFlattenCallGraph),
      Simple("while-loop-simplifier",
             "removes zero/one-trip loops, constant and dead loop state",
             &RunWhileLoopSimplifier),
      Simple("zero-sized-hlo-elimination",
             "replaces element-less instructions by constants",
             &RunZeroSizedHloElimination),
      Simple("sort-simplifier", "drops unused operands of variadic sorts",
             &RunSortSimplifier),
      Simple("opt-barrier-expander", "removes optimization barriers",
             &RunOptBarrierExpander),
      Simple("reshape-mover",
             "moves reshapes/transposes past elementwise operations",
             &RunReshapeMover),
      Simple("dot-decomposer",
             "canonicalizes dots to [batch, M, K] x [batch, K, N]",
             &RunDotDecomposer),
  });
  return *kRegistry;
}

std::vector<std::string> PlatformPipeline(absl::string_view platform) {
  if (platform != "cpu" && platform != "gpu") return {};
  // The generic simplification pipeline (run to a fixed point); the
  // backends add their own passes as they arrive.
  return {"call-inliner",     "zero-sized-hlo-elimination",
          "algsimp",          "constant-folding",
          "tuple-simplifier", "while-loop-simplifier",
          "sort-simplifier",  "reshape-mover",
          "cse",              "dce"};
}

}  // namespace xlite
