#ifndef XLITE_HLO_PROTO_PROTO_ATTRIBUTES_H_
#define XLITE_HLO_PROTO_PROTO_ATTRIBUTES_H_

// The attributes xlite keeps as text (statistics=, result_accuracy=,
// origin=) <-> their typed HloInstructionProto fields. Internal to the proto
// conversion.

#include "absl/status/status.h"
#include "hlo/ir/instruction.h"
#include "hlo/proto/hlo.pb.h"

namespace xlite {

/// Writes a kept attribute's typed proto field; an error if its text cannot
/// be read as that field.
absl::Status ExportKeptAttribute(const KeptAttribute& kept,
                                 xla::HloInstructionProto* proto);

/// Adds kept attributes for the typed fields set in `proto`.
void ImportKeptAttributes(const xla::HloInstructionProto& proto,
                          HloInstruction* instruction);

}  // namespace xlite

#endif  // XLITE_HLO_PROTO_PROTO_ATTRIBUTES_H_
