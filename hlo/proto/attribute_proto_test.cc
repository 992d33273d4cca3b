#include "hlo/proto/attribute_proto.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"

namespace xlite::attribute_proto {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

struct Attribute {
  AttributeId id;
  const char* name;
};

constexpr Attribute kAttributes[] = {
#define XLITE_LIST_ATTRIBUTE(id, text, kind, proto, dflt) {AttributeId::id, #id},
    XLITE_HLO_ATTRIBUTE_LIST(XLITE_LIST_ATTRIBUTE)
#undef XLITE_LIST_ATTRIBUTE
};

// The field a dotted path names, through sub-messages; null if none.
const FieldDescriptor* FindField(absl::string_view path) {
  const Descriptor* message = xla::HloInstructionProto::descriptor();
  const FieldDescriptor* field = nullptr;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    if (message == nullptr) return nullptr;
    field = message->FindFieldByName(std::string(part));
    if (field == nullptr) return nullptr;
    message = field->message_type();
  }
  return field;
}

TEST(AttributeProto, ProtoFieldPathsNameHloInstructionProtoFields) {
  int checked = 0;
  for (const Attribute& a : kAttributes) {
    const absl::string_view path = GetAttributeInfo(a.id).proto_field;
    if (path.empty()) continue;
    EXPECT_NE(FindField(path), nullptr)
        << a.name << ": " << path << " is not a field of HloInstructionProto";
    ++checked;
  }
  EXPECT_GT(checked, 80);
}

TEST(AttributeProto, EveryAttributeHasBothFunctions) {
  ASSERT_EQ(std::size(kAttributes), kAttributeCount);
  for (const Attribute& a : kAttributes) {
    EXPECT_NE(GetAttributeProto(a.id).write, nullptr) << a.name;
    EXPECT_NE(GetAttributeProto(a.id).read, nullptr) << a.name;
  }
}

// The reader reads exactly what the writer writes, in another order.
TEST(AttributeProto, ImportOrderIsTheRowPlusProtoOnlyAttributes) {
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const auto opcode = static_cast<HloOpcode>(i);
    std::vector<AttributeId> written;
    for (const OpcodeAttribute& a : GetOpcodeSchema(opcode).attributes) {
      written.push_back(a.id);
    }
    for (AttributeId id : ProtoOnlyAttributes(opcode)) {
      EXPECT_EQ(std::count(written.begin(), written.end(), id), 0)
          << HloOpcodeString(opcode)
          << ": a proto-only attribute is in the row";
      written.push_back(id);
    }
    absl::Span<const AttributeId> read = ImportOrder(opcode);
    EXPECT_TRUE(std::is_permutation(written.begin(), written.end(),
                                    read.begin(), read.end()))
        << HloOpcodeString(opcode);
  }
}

// Custom-call's row (print order) differs from the order its fields have
// always been checked in: a proto with several bad fields names the first.
TEST(AttributeProto, CustomCallChecksFieldsInItsOldOrder) {
  std::vector<AttributeId> checked;
  for (AttributeId id : ImportOrder(HloOpcode::kCustomCall)) {
    if (id == AttributeId::kPaddingType ||
        id == AttributeId::kOperandPrecision ||
        id == AttributeId::kApiVersion || id == AttributeId::kSchedule ||
        id == AttributeId::kOperandLayoutConstraints ||
        id == AttributeId::kLiteral) {
      checked.push_back(id);
    }
  }
  EXPECT_EQ(
      checked,
      (std::vector<AttributeId>{
          AttributeId::kPaddingType, AttributeId::kOperandPrecision,
          AttributeId::kApiVersion, AttributeId::kSchedule,
          AttributeId::kOperandLayoutConstraints, AttributeId::kLiteral}));
}

}  // namespace
}  // namespace xlite::attribute_proto
