#include "cpu_backend/fusion_builder.h"

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

HloInstruction* BuildFusion(HloComputation& parent,
                            absl::Span<HloInstruction* const> members,
                            HloInstruction* root, FusionKind kind) {
  HloModule& module = *parent.parent();
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> copies;
  for (HloInstruction* m : members) copies[m] = nullptr;

  auto fused = std::make_unique<HloComputation>(
      module.NewComputationName(absl::StrCat("fused_", root->name())));
  fused->set_execution_thread(parent.execution_thread());
  std::vector<HloInstruction*> outside;  // the fusion's operands, in order
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> parameters;
  auto parameter_for = [&](HloInstruction* value) {
    auto [it, inserted] = parameters.try_emplace(value, nullptr);
    if (inserted) {
      const int64_t number = static_cast<int64_t>(outside.size());
      auto p = HloInstruction::Create(HloOpcode::kParameter, value->shape());
      p->set_index(number);
      p->set_name(module.NewInstructionName(absl::StrCat("param_", number)));
      it->second = fused->AddInstruction(std::move(p));
      outside.push_back(value);
    }
    return it->second;
  };
  for (HloInstruction* m : members) {
    std::vector<HloInstruction*> operands;
    for (HloInstruction* o : m->operands()) {
      auto it = copies.find(o);
      operands.push_back(it != copies.end() && it->second != nullptr
                             ? it->second
                             : parameter_for(o));
    }
    std::unique_ptr<HloInstruction> copy =
        m->CloneWithNewOperands(m->shape(), operands);
    copy->set_name(module.NewInstructionName(m->name()));
    copies[m] = fused->AddInstruction(std::move(copy));
  }
  fused->set_root_instruction(copies.at(root));
  HloComputation* callee = module.AddComputation(std::move(fused));

  auto fusion = HloInstruction::Create(HloOpcode::kFusion, root->shape(),
                                       outside);
  fusion->mutable_attrs().fusion_kind = kind;
  fusion->AppendCalledComputation(callee);
  fusion->set_name(module.NewInstructionName(
      kind == FusionKind::kInput ? "input_fusion" : "loop_fusion"));
  if (root->has_metadata()) fusion->set_metadata(root->metadata());
  fusion->set_location(root->location());
  return parent.AddInstruction(std::move(fusion));
}

}  // namespace xlite::cpu
