#include "codegen/gpu/reduction_common.h"

#include <algorithm>

#include "codegen/gpu/kernels.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen::gpu {

Partial::Partial(KernelScope& k, const HloComputation* reducer,
                 llvm::Value* init)
    : k_(k), reducer_(reducer), type_(init->getType()) {
  value_ = EntryAlloca(k.b, type_);
  valid_ = EntryAlloca(k.b, k.b.getInt1Ty());
  k.b.CreateStore(init, value_);
  k.b.CreateStore(k.b.getFalse(), valid_);
}

llvm::Value* Partial::value() const { return k_.b.CreateLoad(type_, value_); }
llvm::Value* Partial::valid() const {
  return k_.b.CreateLoad(k_.b.getInt1Ty(), valid_);
}

absl::StatusOr<llvm::Value*> Partial::Apply(llvm::Value* x, llvm::Value* y) {
  absl::StatusOr<std::vector<llvm::Value*>> r =
      k_.emitter.EmitApplied(*reducer_, {x, y});
  if (!r.ok()) return r.status();
  return (*r)[0];
}

absl::Status Partial::Add(llvm::Value* element) {
  llvm::Value* valid = this->valid();
  absl::StatusOr<llvm::Value*> combined = Apply(value(), element);
  if (!combined.ok()) return combined.status();
  k_.b.CreateStore(k_.b.CreateSelect(valid, *combined, element), value_);
  k_.b.CreateStore(k_.b.getTrue(), valid_);
  return absl::OkStatus();
}

absl::Status Partial::Combine(llvm::Value* other, llvm::Value* other_valid) {
  llvm::Value* valid = this->valid();
  llvm::Value* mine = value();
  absl::StatusOr<llvm::Value*> combined = Apply(mine, other);
  if (!combined.ok()) return combined.status();
  llvm::IRBuilderBase& b = k_.b;
  llvm::Value* result = b.CreateSelect(
      valid, b.CreateSelect(other_valid, *combined, mine), other);
  b.CreateStore(result, value_);
  b.CreateStore(b.CreateOr(valid, other_valid), valid_);
  return absl::OkStatus();
}

absl::StatusOr<llvm::Value*> Partial::Finish(llvm::Value* init) {
  llvm::Value* valid = this->valid();
  absl::StatusOr<llvm::Value*> combined = Apply(init, value());
  if (!combined.ok()) return combined.status();
  return k_.b.CreateSelect(valid, *combined, init);
}

const HloInstruction* ReduceOf(const HloInstruction* hlo) {
  return ReducesOf(hlo).front();
}

std::vector<const HloInstruction*> ReducesOf(const HloInstruction* hlo) {
  const HloInstruction* root = ComputedRoot(hlo);
  std::vector<const HloInstruction*> reduces;
  if (root->opcode() == HloOpcode::kTuple && hlo->shape().IsTuple()) {
    for (const HloInstruction* leaf : root->operands()) reduces.push_back(leaf);
  } else {
    reduces.push_back(root);
  }
  for (const HloInstruction* r : reduces) {
    // Single-array reduces, alike (the same operand shape and layout and
    // dimensions) so one walk over the operand feeds them all.
    const HloInstruction* first = reduces.front();
    if (r->opcode() != HloOpcode::kReduce || !r->shape().IsArray() ||
        r->operand_count() != 2 || IsComplex(r->shape().element_type()) ||
        r->dimensions() != first->dimensions() ||
        r->operand(0)->shape().dimensions() !=
            first->operand(0)->shape().dimensions() ||
        MajorToMinor(r->operand(0)->shape()) !=
            MajorToMinor(first->operand(0)->shape()) ||
        r->shape().dimensions() != first->shape().dimensions()) {
      return {root};
    }
  }
  return reduces;
}

std::optional<ReductionShape> ClassifyReduction(const HloInstruction* hlo) {
  const std::vector<const HloInstruction*> reduces = ReducesOf(hlo);
  const HloInstruction* reduce = reduces.front();
  if (reduce->opcode() != HloOpcode::kReduce || !reduce->shape().IsArray() ||
      reduce->operand_count() != 2 ||
      (reduces.size() == 1 && !hlo->shape().IsArray())) {
    return std::nullopt;
  }
  const Shape& operand = reduce->operand(0)->shape();
  const PrimitiveType type = reduce->shape().element_type();
  if (IsComplex(type) || reduce->dimensions().empty()) return std::nullopt;
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(operand);
  const auto& dims = reduce->dimensions();
  auto is_reduced = [&](int64_t d) {
    return std::find(dims.begin(), dims.end(), d) != dims.end();
  };
  ReductionShape shape;
  for (int64_t d : order) {
    (is_reduced(d) ? shape.reduced : shape.kept).push_back(d);
  }
  const size_t r = shape.reduced.size();
  const bool reduced_minor =
      std::all_of(order.end() - r, order.end(), is_reduced);
  const bool reduced_major =
      std::all_of(order.begin(), order.begin() + r, is_reduced);
  if (reduced_minor) {
    shape.is_row = true;
    return shape;
  }
  if (reduced_major) return shape;
  return std::nullopt;
}

absl::StatusOr<Partials> MakePartials(
    KernelScope& k, const std::vector<const HloInstruction*>& reduces) {
  Partials out;
  for (const HloInstruction* reduce : reduces) {
    absl::StatusOr<llvm::Value*> init =
        k.emitter.ValueAt(reduce->operand(1), -1, {});
    if (!init.ok()) return init.status();
    out.inits.push_back(*init);
    out.partials.push_back(
        std::make_unique<Partial>(k, reduce->to_apply(), *init));
  }
  return out;
}

absl::Status AddElements(KernelScope& k,
                         const std::vector<const HloInstruction*>& reduces,
                         Partials& partials, const Index& input) {
  for (size_t r = 0; r < reduces.size(); ++r) {
    absl::StatusOr<llvm::Value*> v =
        k.emitter.ValueAt(reduces[r]->operand(0), -1, input);
    if (!v.ok()) return v.status();
    if (absl::Status s = partials.partials[r]->Add(*v); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void ReductionIndices(llvm::IRBuilderBase& b, const ReductionShape& shape,
                      const Shape& operand, llvm::Value* kept_linear,
                      llvm::Value* reduced_linear, Index& input,
                      Index& output) {
  input.assign(operand.rank(), nullptr);
  DelinearizeInto(b, kept_linear, operand, shape.kept, input);
  DelinearizeInto(b, reduced_linear, operand, shape.reduced, input);
  // The output's dimensions are the kept ones in increasing order.
  std::vector<int64_t> kept_sorted = shape.kept;
  std::sort(kept_sorted.begin(), kept_sorted.end());
  output.clear();
  for (int64_t d : kept_sorted) output.push_back(input[d]);
}

}  // namespace xlite::codegen::gpu
