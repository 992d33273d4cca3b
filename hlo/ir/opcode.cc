#include "hlo/ir/opcode.h"

#include "absl/container/flat_hash_map.h"

namespace xlite {
namespace {

struct OpcodeInfo {
  absl::string_view name;
  int arity;
  OpcodeFamily family;
};

constexpr OpcodeInfo kOpcodes[] = {
#define XLITE_OPCODE_INFO(enum_name, text, arity, family) \
  {text, arity, OpcodeFamily::family},
    XLITE_HLO_OPCODE_LIST(XLITE_OPCODE_INFO)
#undef XLITE_OPCODE_INFO
};

}  // namespace

absl::string_view HloOpcodeString(HloOpcode opcode) {
  return kOpcodes[static_cast<int>(opcode)].name;
}

std::optional<HloOpcode> StringToHloOpcode(absl::string_view text) {
  static const auto* const kByName = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, HloOpcode>();
    for (int i = 0; i < kHloOpcodeCount; ++i) {
      (*map)[kOpcodes[i].name] = static_cast<HloOpcode>(i);
    }
    return map;
  }();
  auto it = kByName->find(text);
  if (it == kByName->end()) return std::nullopt;
  return it->second;
}

int HloOpcodeArity(HloOpcode opcode) {
  return kOpcodes[static_cast<int>(opcode)].arity;
}

OpcodeFamily HloOpcodeFamily(HloOpcode opcode) {
  return kOpcodes[static_cast<int>(opcode)].family;
}

namespace {

// Element-wise math and conversions, by their family and arity; copy is
// data movement but element-wise too.
bool IsElementwiseFamily(HloOpcode opcode) {
  const OpcodeFamily family = HloOpcodeFamily(opcode);
  return family == OpcodeFamily::kElementwise ||
         family == OpcodeFamily::kConversion;
}

}  // namespace

bool IsElementwiseUnary(HloOpcode opcode) {
  return opcode == HloOpcode::kCopy ||
         (IsElementwiseFamily(opcode) && HloOpcodeArity(opcode) == 1);
}

bool IsElementwiseBinary(HloOpcode opcode) {
  return IsElementwiseFamily(opcode) && HloOpcodeArity(opcode) == 2;
}

bool OnlyNamesBuffers(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
    case HloOpcode::kAfterAll:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseOpcode(HloOpcode opcode) {
  return opcode == HloOpcode::kCopy || IsElementwiseFamily(opcode);
}

bool IsAsyncOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return true;
    default:
      return false;
  }
}

bool IsCollectiveOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kReduceScatter:
      return true;
    default:
      return false;
  }
}

}  // namespace xlite
