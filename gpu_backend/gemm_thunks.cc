#include "gpu_backend/gemm_thunks.h"

#include <vector>

#include "hlo/ir/computation.h"
#include "hlo/ir/gemm_config.h"
#include "passes/gemm_call_expansion.h"
#include "runtime/gemm_matrices.h"

namespace xlite::gpu {

bool IsGemmCall(const HloInstruction& h) {
  return h.opcode() == HloOpcode::kCustomCall &&
         GemmTargetFromName(h.attrs().custom_call->target).has_value();
}

absl::StatusOr<runtime::GemmDescription> DescribeGemmCall(
    const HloInstruction& call) {
  if (!IsGemmCall(call)) {
    return absl::InvalidArgumentError("not a GEMM custom call");
  }
  std::vector<Shape> operands;
  for (const HloInstruction* o : call.operands()) {
    operands.push_back(o->shape());
    operands.back().FillMissingLayouts();
  }
  Shape result = call.shape();
  result.FillMissingLayouts();
  return runtime::DescribeGemm(call.attrs().custom_call->target,
                               call.backend_config(), std::move(operands),
                               std::move(result));
}

bool RunsAsGemmThunk(const HloInstruction& call) {
  absl::StatusOr<runtime::GemmDescription> gemm = DescribeGemmCall(call);
  return gemm.ok() && runtime::CheckGemmThunkSupport(*gemm).ok();
}

absl::StatusOr<bool> ExpandGemmCallsWithoutThunks(HloModule& module) {
  std::vector<HloInstruction*> calls;
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    for (HloInstruction* h : c->instructions()) {
      if (IsGemmCall(*h) && !RunsAsGemmThunk(*h)) calls.push_back(h);
    }
  }
  for (HloInstruction* call : calls) {
    if (absl::Status s = ExpandGemmCall(call); !s.ok()) return s;
  }
  return !calls.empty();
}

}  // namespace xlite::gpu
