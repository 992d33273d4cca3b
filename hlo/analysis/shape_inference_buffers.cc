// Buffer shapes (b(f32[32]), XLA's BUFFER) name mutable arrays that only
// custom-calls create and update: Pin turns an array into a buffer, Unpin a
// buffer back into an array, CreateBuffer makes a fresh one, and any other
// custom-call that takes or returns a buffer aliases it, one operand part
// to one result part. Buffers may also pass through tuples,
// get-tuple-elements, while loops and the parameters of non-entry
// computations; nothing else may see one. These are the rules of XLA's
// HloVerifier (VerifyBuffers), minus its one-writer-per-buffer count.

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/module.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

// Calls `fn(index)` for every buffer inside `shape`.
template <typename Fn>
void ForEachBuffer(const Shape& shape, ShapeIndex* index, Fn&& fn) {
  if (shape.IsBuffer()) {
    fn(*index);
  } else if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      index->push_back(i);
      ForEachBuffer(shape.tuple_shapes(i), index, fn);
      index->pop_back();
    }
  }
}

bool AnyBuffer(const HloInstruction& hlo) {
  if (hlo.shape().ContainsBuffer()) return true;
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    if (hlo.operand(i)->shape().ContainsBuffer()) return true;
  }
  return false;
}

bool IsPlainArray(const Shape& s) { return s.IsArray(); }

// Pin, Unpin and CreateBuffer: fixed signatures.
absl::Status CheckPinFamily(const HloInstruction& hlo,
                            absl::string_view target) {
  const Shape& result = hlo.shape();
  const size_t aliases = hlo.attrs().output_to_operand_aliasing.size();
  if (target == "CreateBuffer") {
    if (hlo.operand_count() != 0 || !result.IsBuffer()) {
      return Invalid(
          "custom-call to CreateBuffer takes no operand and returns a buffer");
    }
    return absl::OkStatus();
  }
  if (hlo.operand_count() != 1 || aliases != 1) {
    return Invalid(absl::StrCat("custom-call to ", target,
                                " takes one operand and aliases it to its "
                                "result (output_to_operand_aliasing)"));
  }
  const Shape& operand = hlo.operand(0)->shape();
  const bool pin = target == "Pin";
  const Shape& array = pin ? operand : result;
  const Shape& buffer = pin ? result : operand;
  if (!IsPlainArray(array) || !buffer.IsBuffer() ||
      !ShapesCompatible(array, buffer.buffer_shape())) {
    return Invalid(absl::StrCat(
        "custom-call to ", target,
        pin ? " turns an array into a buffer" : " turns a buffer into an array",
        " of the same shape, not ", S(operand), " into ", S(result)));
  }
  return absl::OkStatus();
}

// Any other custom-call: each buffer part of an operand or of the result
// appears in exactly one output_to_operand_aliasing pair.
absl::Status CheckAliasedBuffers(const HloInstruction& hlo) {
  std::map<std::pair<int64_t, ShapeIndex>, int> operand_uses;
  std::map<ShapeIndex, int> result_uses;
  for (const OutputOperandAlias& a : hlo.attrs().output_to_operand_aliasing) {
    ++operand_uses[{a.operand_number, a.operand_index}];
    ++result_uses[a.output_index];
  }
  absl::Status status = absl::OkStatus();
  for (int64_t i = 0; i < hlo.operand_count() && status.ok(); ++i) {
    ShapeIndex index;
    ForEachBuffer(hlo.operand(i)->shape(), &index, [&](const ShapeIndex& at) {
      const int uses = operand_uses[{i, at}];
      if (status.ok() && uses != 1) {
        status = Invalid(
            absl::StrCat("buffer operand ", i, " at ", ShapeIndexToString(at),
                         uses == 0 ? " is not aliased to a result"
                                   : " is aliased to several results"));
      }
    });
  }
  ShapeIndex index;
  ForEachBuffer(hlo.shape(), &index, [&](const ShapeIndex& at) {
    const int uses = result_uses[at];
    if (status.ok() && uses != 1) {
      status =
          Invalid(absl::StrCat("buffer result at ", ShapeIndexToString(at),
                               uses == 0 ? " is not aliased to an operand"
                                         : " is aliased to several operands"));
    }
  });
  return status;
}

}  // namespace

absl::Status CheckBufferUse(const HloInstruction& hlo) {
  if (!AnyBuffer(hlo)) return absl::OkStatus();
  switch (hlo.opcode()) {
    case HloOpcode::kCustomCall: {
      const std::string& target = hlo.attrs().custom_call->target;
      if (target == "Pin" || target == "Unpin" || target == "CreateBuffer") {
        return CheckPinFamily(hlo, target);
      }
      return CheckAliasedBuffers(hlo);
    }
    case HloOpcode::kParameter: {
      const HloComputation* c = hlo.parent();
      if (c != nullptr && c->parent() != nullptr &&
          c->parent()->entry_computation() == c) {
        return Invalid("an entry computation parameter cannot be a buffer");
      }
      return absl::OkStatus();
    }
    case HloOpcode::kWhile:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
      return absl::OkStatus();
    default:
      return Invalid(absl::StrCat(
          "buffers are not allowed in ", HloOpcodeString(hlo.opcode()),
          " (only custom-call, tuple, get-tuple-element, while and "
          "non-entry parameters may hold them)"));
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
