// The table of passes: one entry per pass, the only place a pass is named.
// `hlo-opt --passes=<name>` and `--list-passes` read it.

#include <functional>

#include "passes/annotation_calls.h"
#include "passes/manual_sharding.h"
#include "passes/async_to_sync.h"
#include "passes/batch_norm_expander.h"
#include "passes/block_scaling.h"
#include "passes/contraction_type_caster.h"
#include "passes/gemm_call_expansion.h"
#include "passes/gemm_rewriter.h"
#include "passes/gpu_fusion_target.h"
#include "passes/multi_output_fusion.h"
#include "passes/passes.h"
#include "passes/priority_fusion.h"
#include "passes/registry.h"
#include "passes/scan_to_while.h"
#include "passes/single_device_collectives.h"
#include "passes/tiled_gemm_fusion.h"
#include "passes/while_loop_all_reduce_code_motion.h"

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

// The GPU figures of the fusion passes; defaults are the H100 SXM's
// (gpu_fusion_target.h).
std::vector<PassOptionSpec> GpuFusionOptions() {
  return {
      {"hbm_bandwidth_gbps", Type::kDouble, "3350", "HBM bandwidth, GB/s"},
      {"sm_count", Type::kInt, "132", "streaming multiprocessors"},
      {"shared_memory_per_block", Type::kInt, "232448",
       "shared memory one block may use, bytes"},
      {"kernel_launch_us", Type::kDouble, "1", "cost of a kernel launch, us"},
      {"peak_tflops", Type::kDouble, "67", "peak f32 TFLOP/s"},
      {"max_operands_and_outputs", Type::kInt, "96",
       "operands plus results of one fusion, at most"},
      {"max_fused_instructions", Type::kInt, "512",
       "instructions of one fused computation, at most"},
  };
}

GpuFusionTarget GpuFusionTargetFrom(const PassOptions& o) {
  GpuFusionTarget t;
  t.hbm_bytes_per_second = o.GetDouble("hbm_bandwidth_gbps") * 1e9;
  t.sm_count = o.GetInt("sm_count");
  t.shared_memory_per_block = o.GetInt("shared_memory_per_block");
  t.kernel_launch_seconds = o.GetDouble("kernel_launch_us") * 1e-6;
  t.peak_flops_per_second = o.GetDouble("peak_tflops") * 1e12;
  t.max_operands_and_outputs = o.GetInt("max_operands_and_outputs");
  t.max_fused_instructions = o.GetInt("max_fused_instructions");
  return t;
}

// A table entry for a GPU fusion pass.
PassInfo GpuFusionPass(std::string name, std::string description,
                       absl::StatusOr<bool> (*run)(HloModule&,
                                                   const GpuFusionTarget&)) {
  PassInfo info;
  info.name = name;
  info.description = std::move(description);
  info.options = GpuFusionOptions();
  info.factory = [name, run](const PassOptions& o) {
    const GpuFusionTarget target = GpuFusionTargetFrom(o);
    return std::make_unique<FunctionPass>(
        name, [run, target](HloModule& m) { return run(m, target); });
  };
  return info;
}

// XLA's simplification passes, backend-neutral.
std::vector<PassInfo> SimplificationPasses() {
  return {
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
  };
}

// Rewrites into what one device on one stream runs (both backends).
std::vector<PassInfo> LoweringPasses() {
  return {
    Simple("async-to-sync",
           "async start/update/done chains become their synchronous op",
           &ConvertAsyncToSync),
    Simple("scan-to-while", "scans of arrays become while loops",
           &ConvertScanToWhile),
    Simple("single-device-collectives",
           "one device's collectives become copies (zeros for an unfed "
           "collective-permute), its device ids 0",
           &RewriteSingleDeviceCollectives),
    Simple("localize-manual-sharding",
           "a program over several partitions that only moves values into "
           "and out of manually partitioned bodies (shard_map) takes and "
           "gives each partition's shards",
           &LocalizeManualSharding),
    Simple("annotation-call-remover",
           "sharding and host-placement annotation calls become copies, "
           "AllocateBuffer zeros",
           &RemoveAnnotationCalls),
    Simple("batch-norm-expander",
           "batch-norm-training/-inference/-grad become reductions and "
           "elementwise ops (in f64)",
           &ExpandBatchNorms),
    Simple("contraction-type-caster",
           "dots and convolutions compute in the higher of their operand "
           "and result types: integer operands and ones it does not hold "
           "exactly converted to it, a lower result converted from it "
           "(XLA's OperandUpcaster and ResultCaster)",
           &CastContractionTypes),
  };
}

// Target passes: block scaling, all-reduce code motion, GPU fusion and
// GEMMs.
std::vector<PassInfo> TargetPasses() {
  return {
    {"block-scaling-rewriter",
     "rewrites block-scaled dots for cuDNN or into HLO; expands "
     "(de)quantize",
     {{"cudnn_version", Type::kVersion, "0.0.0",
       "cuDNN version X.Y.Z of the target (0: none; from --gpu-spec / "
       "--cudnn-version)"},
      {"compute_capability", Type::kComputeCapability, "0.0",
       "compute capability M.m[a|f] of the target, as XLA writes it "
       "(from --gpu-spec)"}},
     [](const PassOptions& o) -> std::unique_ptr<HloPass> {
       BlockScalingTarget target;
       const DottedVersion v = o.GetVersion("cudnn_version");
       target.cudnn = {v.major, v.minor, v.patch};
       const ComputeCapability cc =
           o.GetComputeCapability("compute_capability");
       target.compute_capability_major = cc.major;
       target.compute_capability_minor = cc.minor;
       return std::make_unique<FunctionPass>(
           "block-scaling-rewriter", [target](HloModule& m) {
             return RunBlockScalingRewriter(m, target);
           });
     }},
    Simple("block-scaled-dot-global-scale-fusion",
           "folds multiply(block_scaled_dot, broadcast(scalar)) into the "
           "call's global scale",
           &RunBlockScaledDotGlobalScaleFusion),
    {"while-loop-all-reduce-code-motion",
     "moves all-reduces whose results are only accumulated out of loops",
     {{"enable_reduce_scatter", Type::kBool, "false",
       "also move reduce-scatters (the loop then accumulates unscattered values)"},
      {"run_setup_passes", Type::kBool, "false",
       "first sink converts below all-reduces"}},
     [](const PassOptions& o) -> std::unique_ptr<HloPass> {
       AllReduceCodeMotionOptions options;
       options.enable_reduce_scatter = o.GetBool("enable_reduce_scatter");
       options.run_setup_passes = o.GetBool("run_setup_passes");
       return std::make_unique<FunctionPass>(
           "while-loop-all-reduce-code-motion", [options](HloModule& m) {
             return RunWhileLoopAllReduceCodeMotion(m, options);
           });
     }},
    GpuFusionPass("priority-fusion",
                  "GPU producer-consumer fusion by a priority queue of "
                  "estimated time saved",
                  &RunPriorityFusion),
    GpuFusionPass("multi_output_fusion",
                  "GPU sibling and producer-consumer multi-output fusion",
                  &RunGpuMultiOutputFusion),
    {"gemm-rewriter",
     "rewrites dots into cuBLAS / cuBLASLt custom calls with XLA's backend "
     "config, fusing alpha, bias, ReLU and GELU epilogues",
     {{"compute_capability", Type::kComputeCapability, "9.0",
       "compute capability M.m[a|f] of the target (f8 GEMMs from 8.9)"},
      {"cublaslt", Type::kBool, "true",
       "use __cublas$lt$matmul and its epilogues (XLA's "
       "--xla_gpu_enable_cublaslt)"},
      {"size_threshold", Type::kInt, "100",
       "dots with (rows + columns) * k below this stay dots"}},
     [](const PassOptions& o) -> std::unique_ptr<HloPass> {
       GemmRewriterOptions options;
       const ComputeCapability cc =
           o.GetComputeCapability("compute_capability");
       options.compute_capability_major = cc.major;
       options.compute_capability_minor = cc.minor;
       options.cublaslt = o.GetBool("cublaslt");
       options.size_threshold = o.GetInt("size_threshold");
       return std::make_unique<FunctionPass>(
           "gemm-rewriter", [options](HloModule& m) {
             return RunGemmRewriter(m, options);
           });
     }},
    Simple("gemm-call-expander",
           "writes cuBLAS GEMM custom calls back as a dot and its epilogue "
           "(for backends without cuBLAS)",
           &RunGemmCallExpansion),
    Simple("tiled-gemm-fusion",
           "fuses each dot the tiled GEMM kernel computes with its operand "
           "producers and elementwise epilogue into one kCustom fusion",
           &RunTiledGemmFusion),
    Simple("dot-decomposer",
           "canonicalizes dots to [batch, M, K] x [batch, K, N]",
           &RunDotDecomposer),
  };
}

}  // namespace

const PassRegistry& PassRegistry::Global() {
  static const PassRegistry* const kRegistry = [] {
    std::vector<PassInfo> passes = SimplificationPasses();
    for (std::vector<PassInfo> more : {LoweringPasses(), TargetPasses()}) {
      for (PassInfo& info : more) passes.push_back(std::move(info));
    }
    return new PassRegistry(std::move(passes));
  }();
  return *kRegistry;
}

std::vector<std::string> PlatformPipeline(absl::string_view platform) {
  if (platform != "cpu" && platform != "gpu") return {};
  // The generic simplification pipeline (run to a fixed point); the
  // backends add their own passes as they arrive. On GPUs the global scale
  // is fused into block-scaled dots before the rewriter decides (by cuDNN
  // version) where the multiply really happens.
  std::vector<std::string> gpu_first;
  if (platform == "gpu") {
    gpu_first = {"block-scaled-dot-global-scale-fusion",
                 "block-scaling-rewriter"};
  }
  std::vector<std::string> simplify = {"call-inliner",     "zero-sized-hlo-elimination",
          "algsimp",          "constant-folding",
          "tuple-simplifier", "while-loop-simplifier",
          "sort-simplifier",  "reshape-mover",
          "cse",              "dce"};
  gpu_first.insert(gpu_first.end(), simplify.begin(), simplify.end());
  return gpu_first;
}

}  // namespace xlite
