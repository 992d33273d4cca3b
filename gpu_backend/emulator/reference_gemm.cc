#include "gpu_backend/emulator/reference_gemm.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/gemm_call.h"
#include "hlo/ir/literal.h"

namespace xlite::gpu::emulator {

std::vector<Literal> LiteralsAt(const std::vector<Shape>& shapes,
                                const std::vector<uint8_t*>& addresses) {
  std::vector<Literal> values;
  for (size_t i = 0; i < shapes.size() && i < addresses.size(); ++i) {
    const Shape& shape = shapes[i];
    const uint8_t* at = addresses[i];
    std::vector<uint8_t> bytes(at, at + shape.ByteSizeOfElements());
    Literal value(shape);
    value.SetFromPhysicalData(shape, bytes);
    values.push_back(std::move(value));
  }
  return values;
}

absl::Status RunReferenceGemm(const runtime::GemmDescription& gemm,
                              const std::vector<uint8_t*>& arguments) {
  const std::vector<Shape> leaves = gemm.ResultLeaves();
  if (static_cast<int64_t>(arguments.size()) != gemm.ArgumentCount()) {
    return absl::InvalidArgumentError(
        absl::StrCat("GEMM thunk with ", arguments.size(), " arguments for ",
                     gemm.ArgumentCount()));
  }
  const std::vector<Literal> operands = LiteralsAt(gemm.operands, arguments);
  std::vector<const Literal*> pointers;
  for (const Literal& o : operands) pointers.push_back(&o);
  // The workspace's content is unspecified: evaluated empty, left as it
  // is (XLA's are 4 to 32 MiB).
  Shape evaluated = gemm.result;
  if (gemm.layout.workspace >= 0) {
    evaluated.mutable_tuple_shapes()[gemm.layout.workspace].set_dimension(0, 0);
  }
  absl::StatusOr<Literal> result =
      eval::EvaluateGemmCall(gemm.target, gemm.config, pointers, evaluated);
  if (!result.ok()) return result.status();
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (static_cast<int64_t>(i) == gemm.layout.workspace) continue;
    const Literal& leaf =
        gemm.result.IsTuple() ? result->tuple_elements()[i] : *result;
    const std::vector<uint8_t> bytes = leaf.PhysicalData(leaves[i]);
    if (!bytes.empty()) {
      std::memcpy(arguments[gemm.operands.size() + i], bytes.data(),
                  bytes.size());
    }
  }
  return absl::OkStatus();
}

}  // namespace xlite::gpu::emulator
