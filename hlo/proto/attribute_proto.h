#ifndef XLITE_HLO_PROTO_ATTRIBUTE_PROTO_H_
#define XLITE_HLO_PROTO_ATTRIBUTE_PROTO_H_

// The HloInstructionProto side of every opcode-specific attribute of the
// opcode schema (hlo/ir/opcode_schema.h): one function writes the attribute
// into the proto, one reads it back. The proto writer and reader walk an
// opcode's schema row and call these, so no opcode list is kept here.
// Internal to the proto room.

#include <array>
#include <bitset>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/opcode_schema.h"
#include "hlo/proto/hlo.pb.h"

namespace xlite::attribute_proto {

/// Writes one attribute of `hlo` into `proto`.
using ExportFn = absl::Status (*)(const HloInstruction& hlo,
                                  xla::HloInstructionProto* proto);
/// Reads one attribute of `proto` into `hlo`, which already has its opcode,
/// shape and operands.
using ImportFn = absl::Status (*)(const xla::HloInstructionProto& proto,
                                  HloInstruction* hlo);

/// One attribute's two functions. Attributes XLA keeps in text only, and
/// those naming called computations (one repeated proto field for all,
/// written and read with the instruction's common fields), have functions
/// that do nothing.
struct AttributeProto {
  ExportFn write = nullptr;
  ImportFn read = nullptr;
};

/// The functions of `id`.
const AttributeProto& GetAttributeProto(AttributeId id);

/// Attributes the proto side handles for `opcode` beyond its schema row (see
/// attribute_proto.cc for why).
absl::Span<const AttributeId> ProtoOnlyAttributes(HloOpcode opcode);

/// The attributes ImportAttributes reads for `opcode`, in order: its row and
/// ProtoOnlyAttributes, the fields that can be refused last, in the order
/// that decides which error a proto with several bad fields reports.
absl::Span<const AttributeId> ImportOrder(HloOpcode opcode);

/// Writes every attribute of `hlo`'s schema row (and ProtoOnlyAttributes),
/// in row order; the first error.
absl::Status ExportAttributes(const HloInstruction& hlo,
                              xla::HloInstructionProto* proto);

/// Reads every attribute of `hlo`'s opcode from `proto` (see ImportOrder);
/// the first error.
absl::Status ImportAttributes(const xla::HloInstructionProto& proto,
                              HloInstruction* hlo);

/// Collects the functions: one Set per attribute, from the files that hold
/// them.
class FunctionTable {
 public:
  void Set(AttributeId id, ExportFn write, ImportFn read);
  const std::array<AttributeProto, kAttributeCount>& slots() const {
    return slots_;
  }

 private:
  std::array<AttributeProto, kAttributeCount> slots_;
  std::bitset<kAttributeCount> seen_;
};

// Helpers of the files that hold the functions.

/// The functions of attributes with no proto field of their own.
inline absl::Status WriteNothing(const HloInstruction&,
                                 xla::HloInstructionProto*) {
  return absl::OkStatus();
}
inline absl::Status ReadNothing(const xla::HloInstructionProto&,
                                HloInstruction*) {
  return absl::OkStatus();
}

inline void AddAll(const std::vector<int64_t>& values,
                   google::protobuf::RepeatedField<int64_t>* field) {
  for (int64_t v : values) field->Add(v);
}

inline void AssignTo(const google::protobuf::RepeatedField<int64_t>& field,
                     std::vector<int64_t>* values) {
  values->assign(field.begin(), field.end());
}

/// An enum field's value, checked against the values xlite knows (0 to
/// `last`): a proto from a newer XLA, or a corrupt one, may hold others.
template <typename E>
absl::Status ReadEnum(int value, int last, absl::string_view what, E* out) {
  if (value < 0 || value > last) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown ", what, " value ", value));
  }
  *out = static_cast<E>(value);
  return absl::OkStatus();
}

/// dimensions= and index-like attributes, slices, padding, fft, windows,
/// convolution numbers, operand precision (attribute_proto_dimensions.cc).
void AddDimensionAttributes(FunctionTable* table);
/// Dot, gather and scatter dimension numbers
/// (attribute_proto_dimension_numbers.cc).
void AddDimensionNumberAttributes(FunctionTable* table);
/// Channels, replica groups and the other collective attributes, feeds
/// (attribute_proto_collectives.cc).
void AddCollectiveAttributes(FunctionTable* table);
/// Scalars and enums, parameter replication, aliasing, custom calls, async
/// ops, domains and called computations (attribute_proto_values.cc).
void AddValueAttributes(FunctionTable* table);

}  // namespace xlite::attribute_proto

#endif  // XLITE_HLO_PROTO_ATTRIBUTE_PROTO_H_
