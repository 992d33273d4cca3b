#ifndef XLITE_HLO_PROTO_PROTO_IMPORT_INTERNAL_H_
#define XLITE_HLO_PROTO_PROTO_IMPORT_INTERNAL_H_

// Shared by proto_import.cc (modules) and proto_import_instruction.cc.

#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hlo/ir/module.h"
#include "hlo/proto/hlo.pb.h"

namespace xlite::proto_import_internal {

ShapeIndex ToIndex(const google::protobuf::RepeatedField<int64_t>& f);

/// A sharding (and the metadata in it).
HloSharding ImportSharding(const xla::OpSharding& p);

/// One instruction; `by_id` holds the computation's earlier instructions
/// (operands must be among them), `computations` every computation by id.
/// Errors say what is wrong without the location, which the caller adds.
absl::StatusOr<std::unique_ptr<HloInstruction>> ImportInstruction(
    const xla::HloInstructionProto& p,
    const absl::flat_hash_map<int64_t, HloInstruction*>& by_id,
    const absl::flat_hash_map<int64_t, HloComputation*>& computations);

}  // namespace xlite::proto_import_internal

#endif  // XLITE_HLO_PROTO_PROTO_IMPORT_INTERNAL_H_
