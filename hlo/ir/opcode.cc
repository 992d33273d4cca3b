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

bool IsElementwiseUnary(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAbs:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kCbrt:
    case HloOpcode::kCeil:
    case HloOpcode::kClz:
    case HloOpcode::kConvert:
    case HloOpcode::kCopy:
    case HloOpcode::kCos:
    case HloOpcode::kCosh:
    case HloOpcode::kErf:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kFloor:
    case HloOpcode::kImag:
    case HloOpcode::kIsFinite:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kNegate:
    case HloOpcode::kNot:
    case HloOpcode::kPopulationCount:
    case HloOpcode::kReal:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSign:
    case HloOpcode::kSin:
    case HloOpcode::kSinh:
    case HloOpcode::kSqrt:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseBinary(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kAnd:
    case HloOpcode::kAtan2:
    case HloOpcode::kCompare:
    case HloOpcode::kComplex:
    case HloOpcode::kDivide:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMulhi:
    case HloOpcode::kMultiply:
    case HloOpcode::kOr:
    case HloOpcode::kPower:
    case HloOpcode::kRemainder:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kStochasticConvert:
    case HloOpcode::kSubtract:
    case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseOpcode(HloOpcode opcode) {
  return IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) ||
         opcode == HloOpcode::kClamp || opcode == HloOpcode::kSelect;
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
