#include "cpu_backend/reshape_to_bitcast.h"

#include <vector>

#include "hlo/ir/opcode.h"

namespace xlite::cpu {
namespace {

// The dimensions of `shape` from most to least significant in memory,
// without those of size 1.
std::vector<int64_t> PhysicalOrder(const Shape& shape) {
  std::vector<int64_t> order;
  const int64_t rank = shape.rank();
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t d = shape.has_layout()
                          ? shape.layout().minor_to_major()[rank - 1 - k]
                          : k;
    if (shape.dimensions(d) != 1) order.push_back(d);
  }
  return order;
}

bool IsRowMajor(const Shape& shape) {
  const std::vector<int64_t> order = PhysicalOrder(shape);
  for (size_t i = 1; i < order.size(); ++i) {
    if (order[i] < order[i - 1]) return false;
  }
  return true;
}

bool HasPlainLayout(const Shape& shape) {
  return shape.IsArray() &&
         (!shape.has_layout() ||
          (shape.layout().HasOnlyMinorToMajor() &&
           static_cast<int64_t>(shape.layout().minor_to_major().size()) ==
               shape.rank()));
}

bool MovesNoBytes(const HloInstruction* hlo) {
  const Shape& in = hlo->operand(0)->shape();
  const Shape& out = hlo->shape();
  if (!HasPlainLayout(in) || !HasPlainLayout(out) ||
      in.element_type() != out.element_type()) {
    return false;
  }
  if (hlo->opcode() == HloOpcode::kReshape) {
    return IsRowMajor(in) && IsRowMajor(out);
  }
  // Transpose: result dimension i is operand dimension dimensions(i).
  std::vector<int64_t> mapped;
  for (int64_t d : PhysicalOrder(out)) mapped.push_back(hlo->dimensions(d));
  return mapped == PhysicalOrder(in);
}

}  // namespace

absl::StatusOr<bool> ReshapesToBitcasts(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if ((hlo->opcode() != HloOpcode::kReshape &&
           hlo->opcode() != HloOpcode::kTranspose) ||
          !MovesNoBytes(hlo) || !hlo->control_predecessors().empty() ||
          !hlo->control_successors().empty()) {
        continue;
      }
      auto bitcast = HloInstruction::Create(HloOpcode::kBitcast, hlo->shape(),
                                            {hlo->mutable_operand(0)});
      bitcast->set_name(hlo->name());
      if (hlo->has_metadata()) bitcast->set_metadata(hlo->metadata());
      bitcast->set_location(hlo->location());
      HloInstruction* added = computation->AddInstruction(std::move(bitcast));
      if (absl::Status s = hlo->ReplaceAllUsesWith(added); !s.ok()) return s;
      if (absl::Status s = computation->RemoveInstruction(hlo); !s.ok()) {
        return s;
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite::cpu
