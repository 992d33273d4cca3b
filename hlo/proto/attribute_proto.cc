// The table of attribute proto functions, and the walk over an opcode's
// schema row that calls them. The functions themselves live in
// attribute_proto_*.cc, grouped by the kind of attribute.

#include "hlo/proto/attribute_proto.h"

#include <algorithm>
#include <array>
#include <vector>

namespace xlite::attribute_proto {
namespace {

using A = AttributeId;

struct Tables {
  std::array<AttributeProto, kAttributeCount> functions;
  std::array<std::vector<AttributeId>, kHloOpcodeCount> import_order;
};

// The fields whose reading can fail, in the order the reader has always
// checked them (which differs from XLA's print order, e.g. on
// custom-call): a proto with several bad fields keeps reporting the same
// one. Nothing an attribute reads depends on another attribute, so the
// attributes that cannot fail may go first.
int FailureRank(AttributeId id) {
  static constexpr AttributeId kRanked[] = {
      A::kIotaDimension,    A::kPaddingType,
      A::kOperandPrecision, A::kDirection,
      A::kComparisonType,   A::kFftType,
      A::kDistribution,     A::kRngAlgorithm,
      A::kTransposeA,       A::kFusionKind,
      A::kOutfeedShape,     A::kApiVersion,
      A::kSchedule,         A::kOperandLayoutConstraints,
      A::kLiteral,
  };
  const auto* it = std::find(std::begin(kRanked), std::end(kRanked), id);
  return it == std::end(kRanked) ? 0 : 1 + (it - std::begin(kRanked));
}

const Tables& GetTables() {
  static const Tables* const kTables = [] {
    auto* tables = new Tables();
    FunctionTable functions;
    AddDimensionAttributes(&functions);
    AddDimensionNumberAttributes(&functions);
    AddCollectiveAttributes(&functions);
    AddValueAttributes(&functions);
    tables->functions = functions.slots();
    for (int i = 0; i < kHloOpcodeCount; ++i) {
      const auto opcode = static_cast<HloOpcode>(i);
      std::vector<AttributeId>& order = tables->import_order[i];
      for (const OpcodeAttribute& a : GetOpcodeSchema(opcode).attributes) {
        order.push_back(a.id);
      }
      for (AttributeId id : ProtoOnlyAttributes(opcode)) order.push_back(id);
      std::stable_sort(order.begin(), order.end(),
                       [](AttributeId a, AttributeId b) {
                         return FailureRank(a) < FailureRank(b);
                       });
    }
    return tables;
  }();
  return *kTables;
}

}  // namespace

void FunctionTable::Set(AttributeId id, ExportFn write, ImportFn read) {
  const int i = static_cast<int>(id);
  // A second entry for one attribute leaves it with none, which
  // attribute_proto_test reports.
  slots_[i] = seen_[i] ? AttributeProto{} : AttributeProto{write, read};
  seen_[i] = true;
}

const AttributeProto& GetAttributeProto(AttributeId id) {
  return GetTables().functions[static_cast<int>(id)];
}

// The proto reader has always read the replica groups,
// use_global_device_ids and constrain_layout of every opcode
// IsCollectiveOpcode names, and the writer has always given each of them a
// collective_device_list, also where XLA's text (and so the schema row)
// has no such attribute: collective-permute (whose device list is written
// empty), and the flags of ragged-all-to-all and collective-broadcast.
absl::Span<const AttributeId> ProtoOnlyAttributes(HloOpcode opcode) {
  static constexpr AttributeId kPermute[] = {
      A::kReplicaGroups, A::kUseGlobalDeviceIds, A::kConstrainLayout};
  static constexpr AttributeId kFlags[] = {A::kUseGlobalDeviceIds,
                                           A::kConstrainLayout};
  switch (opcode) {
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      return kPermute;
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectiveBroadcast:
      return kFlags;
    default:
      return {};
  }
}

absl::Span<const AttributeId> ImportOrder(HloOpcode opcode) {
  return GetTables().import_order[static_cast<int>(opcode)];
}

absl::Status ExportAttributes(const HloInstruction& hlo,
                              xla::HloInstructionProto* proto) {
  const auto& functions = GetTables().functions;
  const HloOpcode opcode = hlo.opcode();
  for (const OpcodeAttribute& a : GetOpcodeSchema(opcode).attributes) {
    absl::Status status = functions[static_cast<int>(a.id)].write(hlo, proto);
    if (!status.ok()) return status;
  }
  for (AttributeId id : ProtoOnlyAttributes(opcode)) {
    absl::Status status = functions[static_cast<int>(id)].write(hlo, proto);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ImportAttributes(const xla::HloInstructionProto& proto,
                              HloInstruction* hlo) {
  const Tables& tables = GetTables();
  for (AttributeId id : tables.import_order[static_cast<int>(hlo->opcode())]) {
    absl::Status status =
        tables.functions[static_cast<int>(id)].read(proto, hlo);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace xlite::attribute_proto
