#include "cpu_backend/tree_reduction.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/reducer.h"

namespace xlite::cpu {

namespace {

constexpr int64_t kWindow = 32;

bool NeedsTree(const HloInstruction* reduce) {
  if (reduce->opcode() != HloOpcode::kReduce || reduce->operand_count() != 2 ||
      !reduce->shape().IsArray()) {
    return false;
  }
  // Any order gives the same result: no tree.
  if (IsReassociableReduce(*reduce)) return false;
  const Shape& input = reduce->operand(0)->shape();
  // Nothing to reduce (the result is the init value): no tree, whose
  // windows would be 0 long.
  if (input.ElementCount() == 0) return false;
  for (int64_t d : reduce->dimensions()) {
    if (input.dimensions(d) > kWindow) return true;
  }
  return false;
}

// One level: the reduce-window of `input` along `reduced`.
HloInstruction* Level(HloComputation& computation, HloInstruction* reduce,
                      HloInstruction* input) {
  const Shape& in = input->shape();
  std::vector<int64_t> dims(in.dimensions().begin(), in.dimensions().end());
  Window window;
  window.dimensions.resize(in.rank());
  for (int64_t d : reduce->dimensions()) {
    const int64_t n = in.dimensions(d);
    const int64_t w = std::min(n, kWindow);
    const int64_t windows = (n + w - 1) / w;
    WindowDimension& wd = window.dimensions[d];
    wd.size = w;
    wd.stride = w;
    wd.padding_low = (windows * w - n) / 2;
    wd.padding_high = windows * w - n - wd.padding_low;
    dims[d] = windows;
  }
  Shape shape = Shape::WithDefaultLayout(in.element_type(), dims);
  auto rw = HloInstruction::Create(HloOpcode::kReduceWindow, shape,
                                   {input, reduce->mutable_operand(1)});
  rw->mutable_attrs().window = window;
  rw->AppendCalledComputation(reduce->to_apply());
  rw->set_metadata(reduce->metadata());
  return computation.AddInstruction(std::move(rw));
}

}  // namespace

absl::StatusOr<bool> RewriteReductionsAsTrees(HloModule& module) {
  bool changed = false;
  // Reduces inside fusions stay sequential, as XLA leaves them.
  absl::flat_hash_set<const HloComputation*> fused;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* hlo : computation->instructions()) {
      if (hlo->opcode() == HloOpcode::kFusion) {
        fused.insert(hlo->fused_computation());
      }
    }
  }
  for (HloComputation* computation : module.computations()) {
    if (fused.contains(computation)) continue;
    for (HloInstruction* reduce : computation->MakeInstructionPostOrder()) {
      if (!NeedsTree(reduce)) continue;
      HloInstruction* input = reduce->mutable_operand(0);
      bool long_dim = true;
      while (long_dim) {
        input = Level(*computation, reduce, input);
        long_dim = false;
        for (int64_t d : reduce->dimensions()) {
          long_dim |= input->shape().dimensions(d) > kWindow;
        }
      }
      if (absl::Status s = reduce->ReplaceOperandWithDifferentShape(0, input);
          !s.ok()) {
        return s;
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite::cpu
