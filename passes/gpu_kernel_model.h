#ifndef XLITE_PASSES_GPU_KERNEL_MODEL_H_
#define XLITE_PASSES_GPU_KERNEL_MODEL_H_

// What a GPU kernel would be, for fusion decisions taken before the fusion
// is built: a KernelView names instructions of one computation (plain ones,
// or fusions whose bodies count as inlined) and which of them give results;
// AnalyzeKernel finds the emitter it would use (its "heroes"), the limits it
// meets (operands, results, shared memory, size) and a roofline estimate.
//
// The estimate: every fused value is computed as often as its readers ask
// (a value under a broadcast read once per broadcast element, a reduction's
// input once per input element), so duplicated work shows as extra
// arithmetic; an outside operand costs its bytes times the fraction of its
// elements the kernel reads (re-reads hit the cache); results cost their
// bytes (an in-place dynamic-update-slice or scatter only its update).
// Time = launch + max(bytes / HBM bandwidth, arithmetic / peak rate), where
// transcendental math, division and roots count as several operations.

#include <cstdint>
#include <vector>

#include "hlo/ir/attributes.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/module.h"
#include "passes/gpu_fusion_target.h"

namespace xlite {

struct KernelView {
  /// Instructions of one computation; fusions count as their bodies.
  std::vector<const HloInstruction*> members;
  /// Members whose every result leaf is a result of the kernel.
  std::vector<const HloInstruction*> outputs;
};

/// The emitter a kernel would use, as XLA:GPU chooses it from its heroes.
enum class KernelEmitter { kLoop, kReduction, kTranspose, kScatter };

struct KernelAnalysis {
  KernelEmitter emitter = KernelEmitter::kLoop;
  /// Per result leaf, the instruction that decides its emitter (a reduce,
  /// a tiled transpose, a scatter, or else the leaf itself).
  std::vector<const HloInstruction*> heroes;
  /// Per result, what computes it (parallel to `heroes`).
  std::vector<const HloInstruction*> result_nodes;
  int64_t operands = 0;  // distinct outside values read
  int64_t results = 0;   // result leaves
  int64_t instructions = 0;
  int64_t shared_memory_bytes = 0;
  /// Holds a reduce of 16 or more elements into each result element.
  bool has_significant_reduce = false;
  double bytes_read = 0;
  double bytes_written = 0;
  double flops = 0;
};

KernelAnalysis AnalyzeKernel(const KernelView& view);

/// Estimated run time of one launch of the kernel.
double KernelSeconds(const KernelAnalysis& kernel,
                     const GpuFusionTarget& target);

/// The time `hlo` takes as a kernel of its own (0 for what launches
/// nothing: parameters, constants, tuples, get-tuple-element, bitcasts).
double UnfusedSeconds(const HloInstruction& hlo, const GpuFusionTarget& target);

/// Kernels the module launches per run of its sequential computations
/// (SequentialComputations): fusions plus unfused instructions that are
/// neither free (LaunchesNoKernel) nor control flow (while, conditional,
/// call, async wrappers). The figure fusion passes shrink.
int64_t CountGpuKernels(const HloModule& module);

/// kInput for reduction, transpose and scatter kernels, else kLoop.
FusionKind FusionKindFor(KernelEmitter emitter);

/// True for instructions that launch no kernel of their own.
bool LaunchesNoKernel(const HloInstruction& hlo);

/// True when `transpose` moves the minor-most dimension with both tile
/// sides at least 16 elements: XLA:GPU's shared-memory transpose emitter.
bool IsTiledTranspose(const HloInstruction& transpose);

/// True when `reduce` reduces the minor-most dimension of its input (a row
/// reduction); a column reduction otherwise.
bool IsRowReduction(const HloInstruction& reduce);

}  // namespace xlite

#endif  // XLITE_PASSES_GPU_KERNEL_MODEL_H_
