#include "tests/fuzz/dot_rounding.h"

#include "absl/container/flat_hash_set.h"
#include "hlo/ir/float_types.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "passes/fusion_builder.h"
#include "passes/tiled_gemm_fusion.h"

namespace xlite::fuzz {
namespace {

// The coarser of `a` and the result type of `h` when `h` is a dot of a
// float type narrower than f32.
PrimitiveType Coarser(PrimitiveType a, const HloInstruction* h) {
  if (h->opcode() != HloOpcode::kDot || !h->shape().IsArray()) return a;
  const FloatFormat* f = GetFloatFormat(h->shape().element_type());
  const FloatFormat* current = GetFloatFormat(a);
  const int bits = current == nullptr ? 23 : current->mantissa_bits;
  return f != nullptr && f->mantissa_bits < bits ? h->shape().element_type()
                                                 : a;
}

// The coarsest narrow dot result among `roots` and what they are computed
// from: their operands, and every instruction of the computations they
// call.
PrimitiveType CoarsestDotReaching(std::vector<const HloInstruction*> roots) {
  PrimitiveType coarsest = PrimitiveType::kInvalid;
  absl::flat_hash_set<const HloInstruction*> seen;
  absl::flat_hash_set<const HloComputation*> called;
  while (!roots.empty()) {
    const HloInstruction* h = roots.back();
    roots.pop_back();
    if (!seen.insert(h).second) continue;
    coarsest = Coarser(coarsest, h);
    for (const HloInstruction* o : h->operands()) roots.push_back(o);
    for (const HloComputation* c : h->called_computations()) {
      if (c == nullptr || !called.insert(c).second) continue;
      for (const HloInstruction* i : c->instructions()) roots.push_back(i);
    }
  }
  return coarsest;
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& element : shape.tuple_shapes()) n += LeafCount(element);
  return n;
}

}  // namespace

std::unique_ptr<HloModule> WithTf32DotOperands(const HloModule& module) {
  std::unique_ptr<HloModule> out = module.Clone();
  for (HloComputation* c : SequentialComputations(*out)) {
    std::vector<HloInstruction*> dots;
    for (HloInstruction* h : c->instructions()) {
      if (IsTiledGemmCandidate(*h) &&
          TensorCoreInputOf(*h) == TensorCoreInput::kTF32) {
        dots.push_back(h);
      }
    }
    for (HloInstruction* dot : dots) {
      for (int64_t i = 0; i < dot->operand_count(); ++i) {
        HloInstruction* x = dot->mutable_operand(i);
        if (x->shape().element_type() != PrimitiveType::kF32) continue;
        std::unique_ptr<HloInstruction> round =
            HloInstruction::Create(HloOpcode::kReducePrecision, x->shape());
        round->AppendOperand(x);
        round->mutable_attrs().exponent_bits = 8;
        round->mutable_attrs().mantissa_bits = 10;
        round->set_name(out->NewInstructionName("tf32"));
        HloInstruction* r = c->AddInstruction(std::move(round));
        if (absl::Status s = dot->ReplaceOperandWith(i, r); !s.ok()) {
          return nullptr;
        }
      }
    }
  }
  return out;
}

std::vector<PrimitiveType> DotRoundingPerResult(const HloModule& module) {
  const HloInstruction* root = module.entry_computation()->root_instruction();
  bool flat_tuple = root->opcode() == HloOpcode::kTuple;
  for (const HloInstruction* element : root->operands()) {
    flat_tuple = flat_tuple && element->shape().IsArray();
  }
  if (!flat_tuple) {
    return std::vector<PrimitiveType>(LeafCount(root->shape()),
                                      CoarsestDotReaching({root}));
  }
  std::vector<PrimitiveType> out;
  for (const HloInstruction* element : root->operands()) {
    out.push_back(CoarsestDotReaching({element}));
  }
  return out;
}

}  // namespace xlite::fuzz
