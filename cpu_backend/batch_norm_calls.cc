// batch-norm-training, -inference and -grad as runtime library calls in
// double (runtime_lib.h, batch_norm.cc): every operand is converted to f64
// exactly, every result rounded once from f64, as the evaluator computes
// them.

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "cpu_backend/library_calls.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

absl::Status EmitBatchNormCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                               const HloInstruction* hlo) {
  const HloOpcode op = hlo->opcode();
  const Shape& x = hlo->operand(0)->shape();
  const int64_t f = hlo->attrs().feature_index;
  const int64_t results = op == HloOpcode::kBatchNormInference ? 1 : 3;
  const bool shaped =
      x.IsArray() && f >= 0 && f < x.rank() &&
      (results == 1
           ? hlo->shape().IsArray()
           : hlo->shape().IsTuple() && hlo->shape().tuple_shapes_size() == 3);
  bool real = shaped;
  for (const HloInstruction* operand : hlo->operands()) {
    real &= operand->shape().IsArray() &&
            IsFloatingPoint(operand->shape().element_type());
  }
  if (!real) {
    return codegen::Unsupported(
        hlo, "batch normalization of real arrays with a feature dimension");
  }
  LibraryCallArrays arrays(ctx, b);
  std::vector<llvm::Value*> args;
  for (const HloInstruction* operand : hlo->operands()) {
    absl::StatusOr<llvm::Value*> in =
        arrays.InputAs(operand, {}, PrimitiveType::kF64);
    if (!in.ok()) return in.status();
    args.push_back(*in);
  }
  for (int64_t r = 0; r < results; ++r) {
    ShapeIndex leaf;
    if (results > 1) leaf = {r};
    absl::StatusOr<llvm::Value*> out =
        arrays.OutputAs(hlo, leaf, PrimitiveType::kF64);
    if (!out.ok()) return out.status();
    args.push_back(*out);
  }
  args.push_back(b.getInt64(DimensionProduct(x, 0, f)));
  args.push_back(b.getInt64(x.dimensions(f)));
  args.push_back(b.getInt64(DimensionProduct(x, f + 1, x.rank())));
  args.push_back(llvm::ConstantFP::get(
      b.getDoubleTy(), static_cast<double>(hlo->attrs().epsilon)));
  const char* name =
      op == HloOpcode::kBatchNormTraining    ? "xlite_cpu_batch_norm_training"
      : op == HloOpcode::kBatchNormInference ? "xlite_cpu_batch_norm_inference"
                                             : "xlite_cpu_batch_norm_grad";
  arrays.Call(name, args);
  return arrays.Finish();
}

}  // namespace xlite::cpu
