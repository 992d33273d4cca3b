// top-k (the topk op and XLA:CPU's "TopK" custom call) as the evaluator
// defines it: along the last dimension, the k first elements of each row
// in a stable order by value (largest or smallest first; floats in their
// total order, integers by their signedness), with their s32 positions.
//
// One thread per operand element computes the element's rank in its row —
// how many elements come before it (better, or equal and earlier) — and
// writes it to position `rank` when rank < k. No scratch, no sorting, any k;
// O(n) per element (a per-row selection kernel for long rows is the fast
// path still to come).

#include "codegen/compare_ops.h"
#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen::gpu {
namespace {

constexpr int64_t kBlock = 128;

// Whether the top-k of `hlo` keeps the largest elements, and its k.
absl::StatusOr<std::pair<bool, int64_t>> LargestAndK(const HloInstruction* hlo) {
  const Shape& values = hlo->shape().tuple_shapes(0);
  if (hlo->opcode() == HloOpcode::kTopK) {
    return std::make_pair(hlo->attrs().largest, hlo->attrs().k);
  }
  const int64_t k = values.rank() == 0 ? 0 : values.dimensions(values.rank() - 1);
  // The comparator says the order: less-than for the smallest.
  bool largest = true;
  if (!hlo->called_computations().empty()) {
    const HloInstruction* root =
        hlo->called_computations()[0]->root_instruction();
    if (root->opcode() == HloOpcode::kCompare &&
        (root->attrs().direction == ComparisonDirection::kLt ||
         root->attrs().direction == ComparisonDirection::kLe)) {
      largest = false;
    }
  }
  return std::make_pair(largest, k);
}

}  // namespace

bool IsTopK(const HloInstruction* hlo) {
  return hlo->opcode() == HloOpcode::kTopK ||
         (hlo->opcode() == HloOpcode::kCustomCall &&
          hlo->attrs().custom_call->target == "TopK");
}

absl::StatusOr<LaunchDims> EmitTopKKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  if (hlo->operand_count() != 1 || !hlo->shape().IsTuple() ||
      hlo->shape().tuple_shapes_size() != 2) {
    return Unsupported(hlo, "top-k takes one operand and returns "
                            "(values, indices)");
  }
  const Shape& in = hlo->operand(0)->shape();
  const PrimitiveType type = in.element_type();
  const PrimitiveType index_type = hlo->shape().tuple_shapes(1).element_type();
  absl::StatusOr<std::pair<bool, int64_t>> order = LargestAndK(hlo);
  if (!order.ok()) return order.status();
  const auto [largest, k] = *order;
  if (in.rank() < 1 || k < 0 || k > in.dimensions(in.rank() - 1) ||
      IsComplex(type) || !IsInteger(index_type)) {
    return Unsupported(hlo, "top-k of a real or integer array along its "
                            "last dimension, 0 <= k <= its size");
  }
  const int64_t n = in.dimensions(in.rank() - 1);
  const int64_t elements = in.ElementCount();
  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope ks{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(ks, hlo, name, params, kBlock); !s.ok()) {
    return s;
  }
  const ComparisonDirection better =
      largest ? ComparisonDirection::kGt : ComparisonDirection::kLt;
  llvm::Value* linear = b.CreateAdd(
      b.CreateMul(BlockIndex64(ks), b.getInt64(kBlock)), ThreadIndex64(ks));
  llvm::AllocaInst* rank = EntryAlloca(b, b.getInt64Ty());
  absl::Status s = EmitIf(
      ks, b.CreateICmpULT(linear, b.getInt64(elements)),
      [&]() -> absl::Status {
        Index index = DelinearizeRowMajor(b, linear, in);
        absl::StatusOr<llvm::Value*> mine =
            emitter.ValueAt(hlo->operand(0), -1, index);
        if (!mine.ok()) return mine.status();
        llvm::Value* j = index.back();
        b.CreateStore(b.getInt64(0), rank);
        absl::Status loop = EmitForLoop(
            b, b.getInt64(0), b.getInt64(n), "topk.rank",
            [&](llvm::Value* i) -> absl::Status {
              ElementalEmitter::Scope scope(emitter);
              Index other = index;
              other.back() = i;
              absl::StatusOr<llvm::Value*> theirs =
                  emitter.ValueAt(hlo->operand(0), -1, other);
              if (!theirs.ok()) return theirs.status();
              llvm::Value* before = EmitCompare(
                  b, better, ComparisonType::kTotalOrder, type, *theirs, *mine);
              llvm::Value* after = EmitCompare(
                  b, better, ComparisonType::kTotalOrder, type, *mine, *theirs);
              before = b.CreateOr(
                  before, b.CreateAnd(b.CreateNot(after), b.CreateICmpULT(i, j)));
              llvm::Value* count = b.CreateLoad(b.getInt64Ty(), rank);
              b.CreateStore(b.CreateAdd(count, b.CreateZExt(before, b.getInt64Ty())),
                            rank);
              return absl::OkStatus();
            });
        if (!loop.ok()) return loop;
        llvm::Value* r = b.CreateLoad(b.getInt64Ty(), rank);
        return EmitIf(ks, b.CreateICmpSLT(r, b.getInt64(k)),
                      [&]() -> absl::Status {
                        Index at = index;
                        at.back() = r;
                        ks.outputs[0].EmitWrite(b, at, *mine);
                        absl::StatusOr<llvm::Value*> position = EmitConvert(
                            b, PrimitiveType::kS64, index_type, j);
                        if (!position.ok()) return position.status();
                        ks.outputs[1].EmitWrite(b, at, *position);
                        return absl::OkStatus();
                      });
      });
  if (!s.ok()) return s;
  return EndKernel(ks, (elements + kBlock - 1) / kBlock, kBlock,
                   /*cooperative=*/false);
}

}  // namespace xlite::codegen::gpu
