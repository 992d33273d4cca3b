#include "gpu_backend/emulator/reference_block_scaled_dot.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "gpu_backend/emulator/reference_gemm.h"
#include "hlo/evaluator/block_scaled_call.h"
#include "hlo/ir/literal.h"

namespace xlite::gpu::emulator {

absl::Status RunReferenceBlockScaledDot(
    const runtime::BlockScaledDotDescription& dot,
    const std::vector<uint8_t*>& arguments) {
  if (static_cast<int64_t>(arguments.size()) != dot.ArgumentCount()) {
    return absl::InvalidArgumentError(
        absl::StrCat("block-scaled dot thunk with ", arguments.size(),
                     " arguments for ", dot.ArgumentCount()));
  }
  const std::vector<Literal> operands = LiteralsAt(dot.operands, arguments);
  std::vector<const Literal*> pointers;
  for (const Literal& o : operands) pointers.push_back(&o);
  // The workspace is scratch: evaluated empty, left as it is.
  Shape evaluated = dot.result;
  evaluated.mutable_tuple_shapes()[1].set_dimension(0, 0);
  absl::StatusOr<Literal> result =
      eval::EvaluateCudnnBlockScaledDot(pointers, evaluated);
  if (!result.ok()) return result.status();
  const std::vector<uint8_t> bytes =
      result->tuple_elements()[0].PhysicalData(dot.out());
  if (!bytes.empty()) {
    std::memcpy(arguments[dot.operands.size()], bytes.data(), bytes.size());
  }
  return absl::OkStatus();
}

}  // namespace xlite::gpu::emulator
