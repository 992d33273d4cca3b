#include "passes/batch_norm_expander.h"

#include <memory>
#include <vector>

#include "hlo/ir/opcode.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace {

constexpr PrimitiveType kWide = PrimitiveType::kF64;

// Whether `hlo` is a batch norm this pass expands: real arrays, a feature
// dimension inside the operand, the result shaped as the opcode defines.
bool Expandable(const HloInstruction& hlo) {
  const Shape& x = hlo.operand(0)->shape();
  const int64_t f = hlo.attrs().feature_index;
  if (!x.IsArray() || f < 0 || f >= x.rank()) return false;
  const int expected_operands =
      hlo.opcode() == HloOpcode::kBatchNormTraining ? 3 : 5;
  if (hlo.operand_count() != expected_operands) return false;
  for (const HloInstruction* operand : hlo.operands()) {
    if (!operand->shape().IsArray() ||
        !IsFloatingPoint(operand->shape().element_type())) {
      return false;
    }
  }
  if (hlo.opcode() == HloOpcode::kBatchNormInference) {
    return hlo.shape().IsArray();
  }
  if (!hlo.shape().IsTuple() || hlo.shape().tuple_shapes_size() != 3) {
    return false;
  }
  for (int64_t i = 0; i < 3; ++i) {
    if (!hlo.shape().tuple_shapes(i).IsArray()) return false;
  }
  return true;
}

// Builds the expansion of one batch norm next to it, in f64.
class Expander {
 public:
  explicit Expander(HloInstruction* bn)
      : bn_(bn),
        c_(bn->parent()),
        x_shape_(bn->operand(0)->shape()),
        f_(bn->attrs().feature_index) {
    const int64_t elements = x_shape_.ElementCount();
    const int64_t features = x_shape_.dimensions(f_);
    per_feature_ = features == 0 ? 0 : elements / features;
  }

  HloInstruction* Training();
  HloInstruction* Inference();
  HloInstruction* Grad();

 private:
  // f64 shapes: the operand's (its layout kept) and one value per feature.
  Shape WideX() const {
    Shape s = x_shape_;
    s.set_element_type(kWide);
    return s;
  }
  Shape WideFeatures() const {
    return LayoutLike(Shape(kWide, {x_shape_.dimensions(f_)}), bn_);
  }
  HloInstruction* Operand(int64_t i) { return Widen(bn_->mutable_operand(i)); }
  HloInstruction* Widen(HloInstruction* v) {
    if (v->shape().element_type() == kWide) return v;
    Shape s = v->shape();
    s.set_element_type(kWide);
    return AddNew(c_, HloOpcode::kConvert, s, {v});
  }
  // `v` rounded to `to` (a copy when only the layout differs).
  HloInstruction* Narrow(HloInstruction* v, const Shape& to) {
    if (v->shape() == to) return v;
    return AddNew(c_,
                  to.element_type() == kWide ? HloOpcode::kCopy
                                             : HloOpcode::kConvert,
                  to, {v});
  }
  HloInstruction* Binary(HloOpcode op, HloInstruction* a, HloInstruction* b) {
    return AddNew(c_, op, a->shape(), {a, b});
  }
  HloInstruction* Unary(HloOpcode op, HloInstruction* a) {
    return AddNew(c_, op, a->shape(), {a});
  }
  // A per-feature vector along the operand's feature dimension.
  HloInstruction* AlongFeature(HloInstruction* v) {
    return AddBroadcast(c_, v, WideX(), {f_});
  }
  HloInstruction* Filled(const Shape& shape, double value) {
    return AddFilledLike(c_, shape, value, bn_);
  }
  // The per-feature sum of an operand-shaped value.
  HloInstruction* SumPerFeature(HloInstruction* v);
  // 1 / sqrt(var + eps), or sqrt(var + eps) without the reciprocal.
  HloInstruction* Deviation(HloInstruction* var) {
    return Unary(HloOpcode::kSqrt,
                 Binary(HloOpcode::kAdd, var,
                        Filled(WideFeatures(), bn_->attrs().epsilon)));
  }
  HloInstruction* PerElementCount(const Shape& shape) {
    return Filled(shape, static_cast<double>(per_feature_));
  }
  // (x - mean) / sqrt(var + eps) * scale + offset.
  HloInstruction* Normalize(HloInstruction* centered, HloInstruction* var,
                            HloInstruction* scale, HloInstruction* offset);

  HloInstruction* bn_;
  HloComputation* c_;
  const Shape x_shape_;
  const int64_t f_;
  int64_t per_feature_ = 0;
  HloComputation* add_ = nullptr;
};

HloInstruction* Expander::SumPerFeature(HloInstruction* v) {
  if (add_ == nullptr) {
    HloModule* module = c_->parent();
    add_ = module->AddComputation(
        std::make_unique<HloComputation>(module->NewComputationName("add")));
    const Shape scalar = LayoutLike(Shape(kWide, {}), bn_);
    std::vector<HloInstruction*> params;
    for (int64_t i = 0; i < 2; ++i) {
      std::unique_ptr<HloInstruction> p =
          HloInstruction::Create(HloOpcode::kParameter, scalar);
      p->set_index(i);
      p->set_name(module->NewInstructionName(i == 0 ? "a" : "b"));
      params.push_back(add_->AddInstruction(std::move(p)));
    }
    add_->set_root_instruction(
        AddNew(add_, HloOpcode::kAdd, scalar, params));
  }
  HloInstruction* zero = Filled(LayoutLike(Shape(kWide, {}), bn_), 0);
  HloInstruction* reduce =
      AddNew(c_, HloOpcode::kReduce, WideFeatures(), {v, zero});
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < x_shape_.rank(); ++d) {
    if (d != f_) dims.push_back(d);
  }
  *reduce->mutable_dimensions() = dims;
  reduce->set_has_dimensions(true);
  reduce->AppendCalledComputation(add_);
  return reduce;
}

HloInstruction* Expander::Normalize(HloInstruction* centered,
                                    HloInstruction* var, HloInstruction* scale,
                                    HloInstruction* offset) {
  HloInstruction* normalized = Binary(HloOpcode::kDivide, centered,
                                      AlongFeature(Deviation(var)));
  return Binary(HloOpcode::kAdd,
                Binary(HloOpcode::kMultiply, normalized, AlongFeature(scale)),
                AlongFeature(offset));
}

HloInstruction* Expander::Training() {
  HloInstruction* x = Operand(0);
  HloInstruction* mean = Binary(HloOpcode::kDivide, SumPerFeature(x),
                                PerElementCount(WideFeatures()));
  HloInstruction* centered = Binary(HloOpcode::kSubtract, x, AlongFeature(mean));
  HloInstruction* var =
      Binary(HloOpcode::kDivide,
             SumPerFeature(Binary(HloOpcode::kMultiply, centered, centered)),
             PerElementCount(WideFeatures()));
  HloInstruction* y = Normalize(centered, var, Operand(1), Operand(2));
  const Shape& shape = bn_->shape();
  return AddNew(c_, HloOpcode::kTuple, shape,
                {Narrow(y, shape.tuple_shapes(0)),
                 Narrow(mean, shape.tuple_shapes(1)),
                 Narrow(var, shape.tuple_shapes(2))});
}

HloInstruction* Expander::Inference() {
  HloInstruction* centered = Binary(HloOpcode::kSubtract, Operand(0),
                                    AlongFeature(Operand(3)));
  return Narrow(Normalize(centered, Operand(4), Operand(1), Operand(2)),
                bn_->shape());
}

HloInstruction* Expander::Grad() {
  HloInstruction* x = Operand(0);
  HloInstruction* scale = Operand(1);
  HloInstruction* dy = Operand(4);
  HloInstruction* centered = Binary(HloOpcode::kSubtract, x,
                                    AlongFeature(Operand(2)));
  HloInstruction* inv = Binary(HloOpcode::kDivide, Filled(WideFeatures(), 1),
                               Deviation(Operand(3)));
  HloInstruction* sum_dy = SumPerFeature(dy);
  HloInstruction* sum_dy_centered =
      SumPerFeature(Binary(HloOpcode::kMultiply, dy, centered));
  HloInstruction* n = PerElementCount(WideFeatures());
  // dy - sum(dy) / N - (x - mean) * inv^2 * sum(dy * (x - mean)) / N
  HloInstruction* mean_dy = Binary(HloOpcode::kDivide, sum_dy, n);
  HloInstruction* projection = Binary(
      HloOpcode::kDivide,
      Binary(HloOpcode::kMultiply, Binary(HloOpcode::kMultiply, inv, inv),
             sum_dy_centered),
      n);
  HloInstruction* inner = Binary(
      HloOpcode::kSubtract,
      Binary(HloOpcode::kSubtract, dy, AlongFeature(mean_dy)),
      Binary(HloOpcode::kMultiply, centered, AlongFeature(projection)));
  HloInstruction* grad_x =
      Binary(HloOpcode::kMultiply,
             AlongFeature(Binary(HloOpcode::kMultiply, scale, inv)), inner);
  HloInstruction* grad_scale =
      Binary(HloOpcode::kMultiply, sum_dy_centered, inv);
  const Shape& shape = bn_->shape();
  return AddNew(c_, HloOpcode::kTuple, shape,
                {Narrow(grad_x, shape.tuple_shapes(0)),
                 Narrow(grad_scale, shape.tuple_shapes(1)),
                 Narrow(sum_dy, shape.tuple_shapes(2))});
}

}  // namespace

absl::StatusOr<bool> ExpandBatchNorms(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* hlo : c->MakeInstructionPostOrder()) {
      const HloOpcode op = hlo->opcode();
      if ((op != HloOpcode::kBatchNormTraining &&
           op != HloOpcode::kBatchNormInference &&
           op != HloOpcode::kBatchNormGrad) ||
          !Expandable(*hlo)) {
        continue;
      }
      Expander expander(hlo);
      HloInstruction* expanded = op == HloOpcode::kBatchNormTraining
                                     ? expander.Training()
                                 : op == HloOpcode::kBatchNormInference
                                     ? expander.Inference()
                                     : expander.Grad();
      if (absl::Status s = ReplaceInstruction(hlo, expanded); !s.ok()) {
        return s;
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
