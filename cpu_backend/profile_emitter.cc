// Profiling instrumentation of the module emitter (CompileOptions::profile):
// the site table and the begin/end calls around each timed instruction.
// Without profiling none of this runs and the code is what it always was.

#include "absl/strings/str_cat.h"
#include "cpu_backend/emitter_context.h"
#include "cpu_backend/module_emitter.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

namespace {

// Whether `hlo` (a dynamic-update-slice or scatter, or a fusion rooted at
// one) got its operand's buffer and so writes only its updates. True when
// it is no update at all or the buffers cannot be told.
bool WritesInPlace(const runtime::BufferAssignment& assignment,
                   const HloInstruction* hlo) {
  const HloInstruction* root = hlo;
  if (hlo->opcode() == HloOpcode::kFusion) {
    root = hlo->fused_computation()->root_instruction();
  }
  if (root->opcode() != HloOpcode::kDynamicUpdateSlice &&
      root->opcode() != HloOpcode::kScatter) {
    return true;
  }
  const HloInstruction* operand = root->operand(0);
  if (hlo->opcode() == HloOpcode::kFusion) {
    if (operand->opcode() != HloOpcode::kParameter) return false;
    operand = hlo->operand(operand->parameter_number());
  }
  absl::StatusOr<runtime::Slice> out = assignment.GetSlice(hlo, {});
  absl::StatusOr<runtime::Slice> in = assignment.GetSlice(operand, {});
  return !out.ok() || !in.ok() || *out == *in;
}

ProfileSite SiteFor(const runtime::BufferAssignment& assignment,
                    const HloInstruction* hlo) {
  ProfileSite site;
  site.name = hlo->name();
  site.op = std::string(HloOpcodeString(hlo->opcode()));
  if (hlo->opcode() == HloOpcode::kFusion) {
    site.fusion_kind = std::string(FusionKindString(hlo->attrs().fusion_kind));
    site.root = std::string(HloOpcodeString(
        hlo->fused_computation()->root_instruction()->opcode()));
  }
  site.cost = CostOf(*hlo, WritesInPlace(assignment, hlo));
  return site;
}

}  // namespace

bool EmitterContext::IsTimed(const HloInstruction* instruction) const {
  switch (instruction->opcode()) {
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
      return false;  // their computations' instructions are timed
    default:
      return profile_sites_ != nullptr;
  }
}

int32_t EmitterContext::ProfileSiteOf(const HloInstruction* instruction) {
  auto [it, added] = profile_ids_.try_emplace(
      instruction, static_cast<int32_t>(profile_sites_->size()));
  if (added) profile_sites_->push_back(SiteFor(assignment_, instruction));
  return it->second;
}

int32_t EmitterContext::ProfileSiteOfChain(
    const std::vector<const HloInstruction*>& members) {
  ProfileSite site;
  site.name = "chain";
  for (const HloInstruction* m : members) {
    const ProfileSite one = SiteFor(assignment_, m);
    site.name += (site.name.size() == 5 ? ":" : "+") + one.name;
    site.cost.flops += one.cost.flops;
    site.cost.bytes_read += one.cost.bytes_read;
    site.cost.bytes_written += one.cost.bytes_written;
  }
  site.op = "kernel-chain";
  profile_sites_->push_back(std::move(site));
  return static_cast<int32_t>(profile_sites_->size()) - 1;
}

void EmitterContext::EmitProfileMark(llvm::IRBuilderBase& b, bool begin,
                                     int32_t site) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::Type* ptr = b.getPtrTy();
  llvm::Value* counters = b.CreateLoad(
      ptr, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), f->getArg(1),
                                        offsetof(RunContext, profile)));
  auto* type =
      llvm::FunctionType::get(b.getVoidTy(), {ptr, b.getInt32Ty()}, false);
  b.CreateCall(
      Runtime(begin ? "xlite_cpu_profile_begin" : "xlite_cpu_profile_end",
              type),
      {counters, b.getInt32(site)});
}

}  // namespace xlite::cpu
