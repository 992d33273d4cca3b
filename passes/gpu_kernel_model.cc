#include "passes/gpu_kernel_model.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/analysis/cost_model.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"
#include "passes/fusion_builder.h"

namespace xlite {
namespace {

using O = HloOpcode;

// Transcendental math, division and roots: several operations per element.
constexpr double kExpensiveOpWeight = 8;
// Reads per element at or above which a reduce counts as significant.
constexpr int64_t kSignificantReduction = 16;
// Warp width and the padded tile side of XLA's shared-memory emitters.
constexpr int64_t kWarp = 32;
constexpr int64_t kPaddedTile = 33;

int64_t ShapeBytes(const Shape& s) {
  if (s.IsTuple()) {
    int64_t n = 0;
    for (const Shape& e : s.tuple_shapes()) n += ShapeBytes(e);
    return n;
  }
  return s.IsArray() ? s.ByteSizeOfElements() : 0;
}

// Elements of one evaluation site: an array's, or a variadic result's first
// leaf (all leaves of a variadic reduce share dimensions).
double Elements(const Shape& s) {
  if (s.IsTuple()) {
    return s.tuple_shapes().empty() ? 1 : Elements(s.tuple_shapes(0));
  }
  return static_cast<double>(std::max<int64_t>(1, s.ElementCount()));
}

int64_t ElementBytes(const Shape& s) {
  const Shape& leaf = s.IsTuple() && !s.tuple_shapes().empty()
                          ? s.tuple_shapes(0)
                          : s;
  const int64_t n = leaf.ElementCount();
  return n > 0 ? std::max<int64_t>(1, leaf.ByteSizeOfElements() / n) : 4;
}

int64_t MinorDimension(const Shape& s) {
  if (s.rank() == 0) return -1;
  if (s.has_layout() && !s.layout().minor_to_major().empty()) {
    return s.layout().minor_to_major()[0];
  }
  return s.rank() - 1;
}

bool IsWeighted(O op) {
  switch (op) {
    case O::kExp: case O::kExpm1: case O::kLog: case O::kLog1p:
    case O::kLogistic: case O::kTanh: case O::kSin: case O::kCos:
    case O::kTan: case O::kAtan2: case O::kPower: case O::kErf:
    case O::kCbrt: case O::kSqrt: case O::kRsqrt: case O::kDivide:
    case O::kRemainder:
      return true;
    default:
      return false;
  }
}

// A scalar-like operand of an elementwise op: the op stays "intermediate"
// (its hero is its one other operand) when all but one operand are these.
bool IsScalarLike(const HloInstruction* h) {
  if (h->opcode() == O::kBroadcast) h = h->operand(0);
  return h->shape().IsArray() && h->shape().ElementCount() <= 1;
}

// The expanded graph of a view: fusion members stand for their bodies.
class ExpandedKernel {
 public:
  explicit ExpandedKernel(const KernelView& view) {
    for (const HloInstruction* m : view.members) {
      members_.insert(m);
      if (m->opcode() == O::kFusion) body_of_[m->fused_computation()] = m;
    }
  }

  // What an instruction computes inside the kernel, or nullptr when it is
  // read from outside (then `*outside` is set).
  const HloInstruction* Resolve(const HloInstruction* h,
                                const HloInstruction** outside) const {
    if (auto it = body_of_.find(h->parent()); it != body_of_.end()) {
      if (h->opcode() != O::kParameter) return h;
      h = it->second->operand(h->parameter_number());
    }
    if (!members_.contains(h)) {
      *outside = h;
      return nullptr;
    }
    return h->opcode() == O::kFusion ? h->fused_computation()->root_instruction()
                                     : h;
  }

  // The nodes of the kernel's results (a multi-output root's operands).
  std::vector<const HloInstruction*> OutputNodes(const KernelView& view) const {
    std::vector<const HloInstruction*> nodes;
    for (const HloInstruction* m : view.outputs) {
      const HloInstruction* n = m->opcode() == O::kFusion
                                    ? m->fused_computation()->root_instruction()
                                    : m;
      if (n->opcode() == O::kTuple && m->opcode() == O::kFusion) {
        for (const HloInstruction* o : n->operands()) {
          const HloInstruction* outside = nullptr;
          if (const HloInstruction* r = Resolve(o, &outside)) nodes.push_back(r);
        }
      } else {
        nodes.push_back(n);
      }
    }
    return nodes;
  }

 private:
  absl::flat_hash_set<const HloInstruction*> members_;
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> body_of_;
};

// Elements of operand `i` one evaluation of `u` reads.
double ReadsPerElement(const HloInstruction& u, int64_t i, bool is_output) {
  switch (u.opcode()) {
    case O::kReduce:
      if (i < u.operand_count() / 2) {
        return Elements(u.operand(i)->shape()) / Elements(u.shape());
      }
      return 1;
    case O::kReduceWindow: {
      if (i >= u.operand_count() / 2 || !u.attrs().window) return 1;
      double window = 1;
      for (const WindowDimension& d : (*u.attrs().window).dimensions) {
        window *= static_cast<double>(std::max<int64_t>(1, d.size));
      }
      return window;
    }
    case O::kDynamicUpdateSlice:
      return is_output && i == 0 ? 0 : 1;
    case O::kScatter:
      return is_output && i < u.operand_count() / 2 ? 0 : 1;
    default:
      return 1;
  }
}

// Follows intermediate ops (bitcasts, reshapes, converts, elementwise ops
// with one non-scalar operand) down from a result to its hero.
const HloInstruction* FindHero(const ExpandedKernel& kernel,
                               const HloInstruction* node) {
  for (int steps = 0; steps < 64; ++steps) {
    const HloInstruction* next = nullptr;
    const O op = node->opcode();
    if (op == O::kBitcast || op == O::kReshape || op == O::kConvert ||
        op == O::kCopy) {
      next = node->operand(0);
    } else if (IsElementwiseOpcode(op) && node->operand_count() > 1) {
      for (const HloInstruction* o : node->operands()) {
        if (IsScalarLike(o)) continue;
        if (next != nullptr) return node;
        next = o;
      }
    } else if (IsElementwiseOpcode(op) && node->operand_count() == 1) {
      next = node->operand(0);
    }
    if (next == nullptr) return node;
    const HloInstruction* outside = nullptr;
    const HloInstruction* resolved = kernel.Resolve(next, &outside);
    if (resolved == nullptr) return node;
    if (resolved->opcode() == O::kGetTupleElement) {
      const HloInstruction* tuple =
          kernel.Resolve(resolved->operand(0), &outside);
      if (tuple != nullptr && tuple->opcode() == O::kReduce) return tuple;
      return node;
    }
    node = resolved;
  }
  return node;
}

int64_t SharedMemoryOf(const HloInstruction& hero) {
  if (hero.opcode() == O::kReduce) {
    const int64_t leaves =
        hero.shape().IsTuple() ? hero.shape().tuple_shapes_size() : 1;
    const int64_t bytes = ElementBytes(hero.shape()) * leaves;
    return IsRowReduction(hero) ? kWarp * bytes : kWarp * kPaddedTile * bytes;
  }
  if (hero.opcode() == O::kTranspose && IsTiledTranspose(hero)) {
    return kWarp * kPaddedTile * ElementBytes(hero.shape());
  }
  return 0;
}

void FindEmitter(const ExpandedKernel& kernel,
                 const std::vector<const HloInstruction*>& outputs,
                 KernelAnalysis& a) {
  absl::flat_hash_set<const HloInstruction*> seen;
  for (const HloInstruction* out : outputs) {
    const HloInstruction* hero = FindHero(kernel, out);
    a.heroes.push_back(hero);
    a.result_nodes.push_back(out);
    if (seen.insert(hero).second) a.shared_memory_bytes += SharedMemoryOf(*hero);
    if (hero->opcode() == O::kReduce) {
      a.emitter = KernelEmitter::kReduction;
    } else if (hero->opcode() == O::kTranspose && IsTiledTranspose(*hero) &&
               a.emitter != KernelEmitter::kReduction) {
      a.emitter = KernelEmitter::kTranspose;
    } else if (out->opcode() == O::kScatter &&
               a.emitter == KernelEmitter::kLoop) {
      a.emitter = KernelEmitter::kScatter;
    }
  }
}

}  // namespace

bool IsTiledTranspose(const HloInstruction& t) {
  if (t.opcode() != O::kTranspose || !t.shape().IsArray() ||
      t.shape().rank() < 2) {
    return false;
  }
  const Shape& in = t.operand(0)->shape();
  const int64_t out_minor = MinorDimension(t.shape());
  // The output's minor dimension comes from input dimension perm[out_minor].
  const int64_t from = t.dimensions(out_minor);
  const int64_t in_minor = MinorDimension(in);
  if (from == in_minor) return false;  // the minor dimension stays minor
  return t.shape().dimensions(out_minor) >= 16 &&
         in.dimensions(in_minor) >= 16;
}

bool IsRowReduction(const HloInstruction& reduce) {
  const Shape& in = reduce.operand(0)->shape();
  const int64_t minor = MinorDimension(in);
  const std::vector<int64_t>& dims = reduce.dimensions();
  return std::find(dims.begin(), dims.end(), minor) != dims.end();
}

bool LaunchesNoKernel(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case O::kParameter: case O::kConstant: case O::kTuple:
    case O::kGetTupleElement: case O::kBitcast: case O::kAfterAll:
    case O::kAddDependency: case O::kOptimizationBarrier: case O::kDomain:
      return true;
    default:
      return false;
  }
}

FusionKind FusionKindFor(KernelEmitter emitter) {
  return emitter == KernelEmitter::kLoop ? FusionKind::kLoop
                                         : FusionKind::kInput;
}

KernelAnalysis AnalyzeKernel(const KernelView& view) {
  KernelAnalysis a;
  ExpandedKernel kernel(view);
  const std::vector<const HloInstruction*> outputs = kernel.OutputNodes(view);
  absl::flat_hash_set<const HloInstruction*> output_set(outputs.begin(),
                                                        outputs.end());
  // Post order of the expanded nodes, from the results.
  std::vector<const HloInstruction*> order;
  absl::flat_hash_set<const HloInstruction*> visited;
  std::vector<std::pair<const HloInstruction*, bool>> stack;
  for (const HloInstruction* o : outputs) stack.push_back({o, false});
  while (!stack.empty()) {
    auto [n, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      order.push_back(n);
      continue;
    }
    if (!visited.insert(n).second) continue;
    stack.push_back({n, true});
    for (const HloInstruction* o : n->operands()) {
      const HloInstruction* outside = nullptr;
      if (const HloInstruction* r = kernel.Resolve(o, &outside)) {
        if (!visited.contains(r)) stack.push_back({r, false});
      }
    }
  }
  // Evaluations per node, users before operands.
  absl::flat_hash_map<const HloInstruction*, double> evaluations;
  absl::flat_hash_map<const HloInstruction*, double> input_reads;
  for (const HloInstruction* o : outputs) evaluations[o] += Elements(o->shape());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const HloInstruction* n = *it;
    const double e = evaluations[n];
    ++a.instructions;
    if (!LaunchesNoKernel(*n) || n->opcode() == O::kConstant) {
      double f = static_cast<double>(CostOf(*n).flops) / Elements(n->shape());
      if (IsWeighted(n->opcode())) f *= kExpensiveOpWeight;
      a.flops += f * e;
    }
    if (n->opcode() == O::kReduce && n->shape().IsArray() &&
        Elements(n->operand(0)->shape()) / Elements(n->shape()) >=
            kSignificantReduction) {
      a.has_significant_reduce = true;
    }
    const bool is_output = output_set.contains(n);
    for (int64_t i = 0; i < n->operand_count(); ++i) {
      const double reads = e * ReadsPerElement(*n, i, is_output);
      const HloInstruction* outside = nullptr;
      if (const HloInstruction* r = kernel.Resolve(n->operand(i), &outside)) {
        evaluations[r] += reads;
      } else {
        input_reads[outside] += reads;
      }
    }
  }
  for (const auto& [value, reads] : input_reads) {
    ++a.operands;
    const double fraction =
        value->shape().IsArray()
            ? std::min(1.0, reads / Elements(value->shape()))
            : 1.0;
    a.bytes_read += fraction * static_cast<double>(ShapeBytes(value->shape()));
  }
  for (const HloInstruction* o : outputs) {
    const int64_t leaves =
        o->shape().IsTuple() ? o->shape().tuple_shapes_size() : 1;
    a.results += leaves;
    if (o->opcode() == O::kDynamicUpdateSlice) {
      a.bytes_written += ShapeBytes(o->operand(1)->shape());
    } else if (o->opcode() == O::kScatter) {
      for (int64_t i = (o->operand_count() + 1) / 2; i < o->operand_count(); ++i) {
        a.bytes_written += ShapeBytes(o->operand(i)->shape());
      }
    } else {
      a.bytes_written += ShapeBytes(o->shape());
    }
  }
  FindEmitter(kernel, outputs, a);
  return a;
}

int64_t CountGpuKernels(const HloModule& module) {
  int64_t kernels = 0;
  for (const HloComputation* c : SequentialComputations(module)) {
    for (const HloInstruction* h : c->instructions()) {
      switch (h->opcode()) {
        case O::kWhile: case O::kConditional: case O::kCall:
        case O::kAsyncStart: case O::kAsyncUpdate: case O::kAsyncDone:
          continue;
        default:
          if (!LaunchesNoKernel(*h)) ++kernels;
      }
    }
  }
  return kernels;
}

double KernelSeconds(const KernelAnalysis& kernel,
                     const GpuFusionTarget& target) {
  const double memory =
      (kernel.bytes_read + kernel.bytes_written) / target.hbm_bytes_per_second;
  const double compute = kernel.flops / target.peak_flops_per_second;
  return target.kernel_launch_seconds + std::max(memory, compute);
}

double UnfusedSeconds(const HloInstruction& hlo,
                      const GpuFusionTarget& target) {
  if (LaunchesNoKernel(hlo)) return 0;
  KernelView view;
  view.members = {&hlo};
  view.outputs = {&hlo};
  return KernelSeconds(AnalyzeKernel(view), target);
}

}  // namespace xlite
