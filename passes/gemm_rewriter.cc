// gemm-rewriter (gemm_rewriter.h): which dots become cuBLAS calls, the
// transposes that make their operands batch-major, and the final result
// tuples with XLA's workspace. Epilogues: gemm_epilogue_fusion.cc.

#include "passes/gemm_rewriter.h"

#include <algorithm>
#include <numeric>

#include "passes/gemm_rewriter_internal.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace gemm_rewriter {

std::vector<int64_t> MajorToMinor(const Shape& s) {
  std::vector<int64_t> order(s.rank());
  if (s.has_layout() && s.layout().minor_to_major().size() == s.rank()) {
    for (int64_t i = 0; i < s.rank(); ++i) {
      order[i] = s.layout().minor_to_major()[s.rank() - 1 - i];
    }
  } else {
    std::iota(order.begin(), order.end(), 0);
  }
  return order;
}

GemmBackendConfig ConfigFor(const HloInstruction* dot,
                            const DotDimensionNumbers& d) {
  GemmBackendConfig c;
  c.alpha_real = 1;
  c.dnums = d;
  const std::vector<Precision>& p = dot->attrs().operand_precision;
  for (int i = 0; i < 2; ++i) {
    const Precision q = i < static_cast<int>(p.size()) ? p[i]
                                                       : Precision::kDefault;
    c.operand_precision.push_back(q == Precision::kHighest ? "HIGHEST"
                                  : q == Precision::kHigh  ? "HIGH"
                                                           : "DEFAULT");
  }
  const FrontendAttributes& f = dot->frontend_attributes();
  auto flag = [&](const char* key) {
    auto it = f.find(key);
    return it != f.end() && it->second == "true";
  };
  c.grad_x = flag("grad_x");
  c.grad_y = flag("grad_y");
  const int64_t nb = d.lhs_batch_dimensions.size();
  auto stride = [&](const Shape& s) {
    return s.rank() == nb + 1 ? s.dimensions(nb)
                              : s.dimensions(nb) * s.dimensions(nb + 1);
  };
  c.lhs_stride = stride(dot->operand(0)->shape());
  c.rhs_stride = stride(dot->operand(1)->shape());
  return c;
}

namespace {

using PT = PrimitiveType;

bool IsF8(PT t) { return t == PT::kF8E4M3FN || t == PT::kF8E5M2; }

std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (std::count(batch.begin(), batch.end(), i) == 0 &&
        std::count(contracting.begin(), contracting.end(), i) == 0) {
      out.push_back(i);
    }
  }
  return out;
}

// The type triples cuBLAS/cuBLASLt multiply (XLA's tables, minus the
// compute-type variants that only change precision).
bool TypesSupported(PT a, PT b, PT out) {
  if (a != b) return false;
  switch (a) {
    case PT::kF16:
    case PT::kBF16:
      return out == a || out == PT::kF32;
    case PT::kF32:
    case PT::kF64:
    case PT::kC64:
    case PT::kC128:
      return out == a;
    case PT::kS8:
      return out == PT::kS32;
    default:
      return false;
  }
}

// Makes `batch` the most-major dimensions of operand `index` of `dot`
// (inserting a transpose when they are not) and renumbers `batch` and
// `contracting` for the new operand.
void MakeBatchMajor(HloInstruction* dot, int64_t index,
                    std::vector<int64_t>& batch,
                    std::vector<int64_t>& contracting) {
  HloInstruction* operand = dot->mutable_operand(index);
  const Shape& s = operand->shape();
  const std::vector<int64_t> order = MajorToMinor(s);
  if (std::equal(batch.begin(), batch.end(), order.begin())) return;
  std::vector<int64_t> perm = batch;
  for (int64_t d : order) {
    if (std::count(batch.begin(), batch.end(), d) == 0) perm.push_back(d);
  }
  std::vector<int64_t> dims;
  for (int64_t d : perm) dims.push_back(s.dimensions(d));
  HloInstruction* t = AddNew(dot->parent(), HloOpcode::kTranspose,
                             LayoutLike(Shape(s.element_type(), dims), dot),
                             {operand});
  *t->mutable_dimensions() = perm;
  t->set_has_dimensions(true);
  (void)dot->ReplaceOperandWithDifferentShape(index, t);
  auto renumber = [&](std::vector<int64_t>& list) {
    for (int64_t& d : list) {
      d = std::find(perm.begin(), perm.end(), d) - perm.begin();
    }
  };
  renumber(batch);
  renumber(contracting);
}

struct DotPlan {
  GemmTarget target = GemmTarget::kCublasLtMatmul;
};

// Whether (and as what) XLA rewrites `dot`.
std::optional<DotPlan> PlanDot(const HloInstruction* dot,
                               const GemmRewriterOptions& o) {
  if (dot->opcode() != HloOpcode::kDot || !dot->attrs().dot->algorithm.empty())
    return std::nullopt;
  const DotDimensionNumbers& d = dot->attrs().dot->dnums;
  const Shape& a = dot->operand(0)->shape();
  const Shape& b = dot->operand(1)->shape();
  const int64_t nb = d.lhs_batch_dimensions.size();
  if (d.lhs_contracting_dimensions.size() != 1 || a.ElementCount() == 0 ||
      b.ElementCount() == 0) {
    return std::nullopt;
  }
  const bool a_matrix = a.rank() == nb + 2, b_matrix = b.rank() == nb + 2;
  const bool a_vector = a.rank() == nb + 1, b_vector = b.rank() == nb + 1;
  if (!(a_matrix || a_vector) || !(b_matrix || b_vector) ||
      (a_vector && b_vector)) {
    return std::nullopt;
  }
  const PT at = a.element_type(), bt = b.element_type(),
           out = dot->shape().element_type();
  DotPlan plan;
  if (IsF8(at) || IsF8(bt)) {
    return std::nullopt;  // f8 dots: RewriteF8Dot, else UpcastF8Dot
  }
  if (!TypesSupported(at, bt, out)) return std::nullopt;
  // XLA leaves tiny dots to its emitters (not s8 ones: they cannot).
  const int64_t k = a.dimensions(d.lhs_contracting_dimensions[0]);
  int64_t rows = 1, cols = 1;
  for (int64_t i : FreeDims(a.rank(), d.lhs_batch_dimensions,
                            d.lhs_contracting_dimensions)) {
    rows *= a.dimensions(i);
  }
  for (int64_t i : FreeDims(b.rank(), d.rhs_batch_dimensions,
                            d.rhs_contracting_dimensions)) {
    cols *= b.dimensions(i);
  }
  if ((rows + cols) * k < o.size_threshold && at != PT::kS8) {
    return std::nullopt;
  }
  int64_t batch = nb == 0 ? 0 : 1;
  for (int64_t i : d.lhs_batch_dimensions) batch *= a.dimensions(i);
  const bool lt = o.cublaslt && at != PT::kS8 && batch <= 65535 &&
                  (out != PT::kC64 || o.compute_capability_major >= 8);
  plan.target = lt ? GemmTarget::kCublasLtMatmul : GemmTarget::kCublasGemm;
  // The result must be batch-major too (its rows and columns may be in
  // either order).
  const std::vector<int64_t> order = MajorToMinor(dot->shape());
  for (int64_t i = 0; i < nb; ++i) {
    if (order[i] != i) return std::nullopt;
  }
  return plan;
}

absl::Status RewriteDot(RewriteState& state, HloInstruction* dot,
                        const DotPlan& plan) {
  DotDimensionNumbers d = dot->attrs().dot->dnums;
  MakeBatchMajor(dot, 0, d.lhs_batch_dimensions, d.lhs_contracting_dimensions);
  MakeBatchMajor(dot, 1, d.rhs_batch_dimensions, d.rhs_contracting_dimensions);
  GemmBackendConfig config = ConfigFor(dot, d);
  HloComputation* c = dot->parent();
  HloInstruction* call = AddNew(c, HloOpcode::kCustomCall, dot->shape(),
                                {dot->mutable_operand(0),
                                 dot->mutable_operand(1)});
  call->mutable_attrs().custom_call->target =
      std::string(GemmTargetName(plan.target));
  call->set_name(c->parent()->NewInstructionName(
      plan.target == GemmTarget::kCublasLtMatmul ? "cublas-lt-matmul"
      : d.lhs_batch_dimensions.empty()           ? "cublas-gemm"
                                                 : "cublas-batch-gemm"));
  state.calls[call] = config;
  return ReplaceInstruction(dot, call);
}

// (call, aux?) -> (call, aux?, workspace) with get-tuple-elements for the
// users, and the config written out.
absl::Status Finalize(RewriteState& state, HloInstruction* call,
                      const GemmBackendConfig& config) {
  call->set_backend_config(GemmBackendConfigToJson(config));
  const GemmTarget target = *GemmTargetFromName(call->attrs().custom_call->target);
  int64_t operand_bytes = 0;
  for (const HloInstruction* o : call->operands()) {
    operand_bytes += o->shape().ByteSizeOfElements();
  }
  const Shape workspace = LayoutLike(
      Shape(PT::kS8, {GemmWorkspaceBytes(
                         target, state.options->compute_capability_major,
                         operand_bytes)}),
      call);
  const bool was_tuple = call->shape().IsTuple();
  std::vector<Shape> elements =
      was_tuple ? call->shape().tuple_shapes()
                : std::vector<Shape>{call->shape()};
  elements.push_back(workspace);
  for (auto& alias : call->mutable_attrs().output_to_operand_aliasing) {
    alias.output_index = {0};
  }
  if (!was_tuple) {
    // Users read d through a get-tuple-element (made while the shapes
    // still agree); tuple results already have them.
    const std::vector<HloInstruction*> users = call->users();
    const bool root = call->IsRoot();
    HloComputation* c = call->parent();
    HloInstruction* d =
        AddNew(c, HloOpcode::kGetTupleElement, call->shape(), {call});
    d->set_index(0);
    for (HloInstruction* u : users) {
      if (absl::Status s = call->ReplaceUseWith(u, d); !s.ok()) return s;
    }
    if (root) c->set_root_instruction(d);
  }
  *call->mutable_shape() = Shape::Tuple(elements);
  return absl::OkStatus();
}

}  // namespace

HloInstruction* CloneCall(RewriteState& state, HloInstruction* call,
                          const Shape& shape,
                          const std::vector<HloInstruction*>& operands,
                          const GemmBackendConfig& config) {
  HloComputation* c = call->parent();
  HloInstruction* clone = AddNew(c, HloOpcode::kCustomCall, shape, operands);
  clone->mutable_attrs() = call->attrs();
  clone->set_name(call->name());
  call->set_name(call->name() + ".old");
  state.calls[clone] = config;
  return clone;
}

}  // namespace gemm_rewriter

absl::StatusOr<bool> RunGemmRewriter(HloModule& module,
                                     const GemmRewriterOptions& options) {
  using namespace gemm_rewriter;
  RewriteState state;
  state.options = &options;
  const auto fusions = FusionComputations(module);
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    if (fusions.contains(c)) continue;
    for (HloInstruction* dot : InstructionsWithOpcode(c, HloOpcode::kDot)) {
      if (HasControlDeps(dot)) continue;
      absl::StatusOr<bool> f8 = RewriteF8Dot(state, dot);
      if (!f8.ok()) return f8.status();
      if (*f8) continue;
      absl::StatusOr<HloInstruction*> upcast = UpcastF8Dot(dot, options);
      if (!upcast.ok()) return upcast.status();
      dot = *upcast;
      if (std::optional<DotPlan> plan = PlanDot(dot, options)) {
        if (absl::Status s = RewriteDot(state, dot, *plan); !s.ok()) return s;
      }
    }
    // Epilogues, to a fixed point (each fold replaces one instruction).
    for (bool again = true; again;) {
      again = false;
      for (HloInstruction* h : c->MakeInstructionPostOrder()) {
        absl::StatusOr<bool> fused = FuseEpilogue(state, h);
        if (fused.ok() && !*fused) fused = FuseF8Output(state, h);
        if (!fused.ok()) return fused.status();
        if (*fused) {
          again = true;
          break;
        }
      }
    }
  }
  // In instruction order, so the names Finalize makes are deterministic.
  std::vector<HloInstruction*> calls;
  for (auto& [call, config] : state.calls) calls.push_back(call);
  std::sort(calls.begin(), calls.end(),
            [](const HloInstruction* x, const HloInstruction* y) {
              return x->unique_id() < y->unique_id();
            });
  for (HloInstruction* call : calls) {
    if (absl::Status s = Finalize(state, call, state.calls[call]); !s.ok()) {
      return s;
    }
  }
  return !state.calls.empty();
}

}  // namespace xlite
