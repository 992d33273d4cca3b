#ifndef XLITE_HLO_PROTO_PROTO_CONVERT_H_
#define XLITE_HLO_PROTO_PROTO_CONVERT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"
#include "hlo/proto/hlo.pb.h"

namespace xlite {

/// Shapes and literals <-> XLA's ShapeProto / LiteralProto. Literal data in
/// a proto is in the order of the shape's layout (XLA's convention); xlite
/// literals are row-major, so non-default layouts are permuted here.
xla::ShapeProto ShapeToProto(const Shape& shape);
absl::StatusOr<Shape> ShapeFromProto(const xla::ShapeProto& proto);
absl::StatusOr<xla::LiteralProto> LiteralToProto(const Literal& literal);
absl::StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto);

/// A module as XLA's HloModuleProto: instruction and computation ids are
/// the xlite unique ids; replica_count/num_partitions (which XLA keeps in
/// its module config, not the module proto) travel in device_assignment.
/// Fails only for a constant whose value is unknown (elided in text).
absl::StatusOr<xla::HloModuleProto> ModuleToProto(const HloModule& module);

/// A module from XLA's HloModuleProto. Every reference is checked: errors
/// name the computation and instruction (dangling operand, computation or
/// root ids, unknown opcodes, bad shapes, call cycles) and never crash.
/// The module is not verified here; run VerifyModule next.
absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProto(
    const xla::HloModuleProto& proto, const std::string& source_name = "");

/// Binary serialization with map entries in key order, so equal protos
/// give equal bytes.
std::string SerializeDeterministic(const google::protobuf::Message& message);

/// Reads a serialized module: an HloModuleProto, an HloProto or an
/// HloSnapshot (binary), or their text format (pbtxt) when `text` is set.
absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromSerializedProto(
    const std::string& bytes, bool text, const std::string& source_name);

}  // namespace xlite

#endif  // XLITE_HLO_PROTO_PROTO_CONVERT_H_
