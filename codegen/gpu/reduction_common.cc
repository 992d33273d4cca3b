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
  return ComputedRoot(hlo);
}

std::optional<ReductionShape> ClassifyReduction(const HloInstruction* hlo) {
  const HloInstruction* reduce = ReduceOf(hlo);
  if (reduce->opcode() != HloOpcode::kReduce || !reduce->shape().IsArray() ||
      reduce->operand_count() != 2 || !hlo->shape().IsArray()) {
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
