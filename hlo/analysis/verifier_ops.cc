// Verifier checks of single opcodes beyond their shapes: attributes that
// restate the shape, async start/done pairing, compare types, rng operands,
// composite calls, infeed, and shardings against shapes. Each follows XLA's
// HloVerifier rule. Each opcode family runs only the rules that can fail
// for it (CheckFamilyRules), so other instructions pay for none.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/analysis/verifier_internal.h"

namespace xlite {
namespace verifier_internal {
namespace {

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

std::string OpcodeList(const std::vector<HloOpcode>& opcodes) {
  return absl::StrJoin(opcodes, " or ", [](std::string* out, HloOpcode op) {
    absl::StrAppend(out, HloOpcodeString(op));
  });
}

// `hlo` has exactly one user, of one of `expected`.
absl::Status ExpectSingleUser(const HloInstruction& hlo,
                              const std::vector<HloOpcode>& expected) {
  const std::string name(HloOpcodeString(hlo.opcode()));
  if (hlo.user_count() != 1) {
    return Invalid(absl::StrCat(name, " must have exactly one user (",
                                OpcodeList(expected), "), but has ",
                                hlo.user_count()));
  }
  const HloInstruction* user = hlo.users()[0];
  if (std::find(expected.begin(), expected.end(), user->opcode()) ==
      expected.end()) {
    return Invalid(absl::StrCat(name, "'s user must be ", OpcodeList(expected),
                                ", but %", user->name(), " is ",
                                HloOpcodeString(user->opcode())));
  }
  return absl::OkStatus();
}

// `hlo`'s single operand is one of `expected`.
absl::Status ExpectOperand(const HloInstruction& hlo,
                           const std::vector<HloOpcode>& expected) {
  const std::string name(HloOpcodeString(hlo.opcode()));
  if (hlo.operand_count() != 1) {
    return Invalid(absl::StrCat(name, " takes one operand (",
                                OpcodeList(expected), "), but has ",
                                hlo.operand_count()));
  }
  const HloInstruction* operand = hlo.operand(0);
  if (std::find(expected.begin(), expected.end(), operand->opcode()) ==
      expected.end()) {
    return Invalid(absl::StrCat(
        name, "'s operand must be ", OpcodeList(expected), ", but %",
        operand->name(), " is ", HloOpcodeString(operand->opcode())));
  }
  return absl::OkStatus();
}

// Whether a sharding applies to this leaf without tiling it.
bool IsUntiled(const HloSharding& s) {
  return s.type != HloSharding::Type::kTiled;
}

absl::Status CheckLeafSharding(const HloSharding& s, const Shape& leaf) {
  if (IsUntiled(s) || !leaf.IsArray()) return absl::OkStatus();
  // Trailing subgroup dimensions (replicated, manual, ...) tile no data.
  const int64_t subgroups = static_cast<int64_t>(s.last_tile_dims.size()) +
                            (s.last_tile_dim_replicate ? 1 : 0);
  const int64_t data_rank =
      static_cast<int64_t>(s.tile_dimensions.size()) - subgroups;
  if (data_rank != leaf.rank()) {
    return Invalid(absl::StrCat("sharding ", s.ToString(), " tiles ", data_rank,
                                " dimensions, but the shape ",
                                leaf.ToString(false), " has rank ",
                                leaf.rank()));
  }
  if (s.TileAssignmentSize() == 1) {
    return Invalid(absl::StrCat(
        "sharding ", s.ToString(),
        " tiles over a single device; write {replicated} or {maximal "
        "device=N} instead"));
  }
  if (!s.iota) {
    absl::flat_hash_set<int64_t> seen;
    for (int64_t d : s.devices) {
      if (!seen.insert(d).second) {
        return Invalid(absl::StrCat("sharding ", s.ToString(), " names device ",
                                    d, " more than once"));
      }
    }
  }
  return absl::OkStatus();
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

void CollectLeaves(const Shape& shape, std::vector<const Shape*>* out) {
  if (!shape.IsTuple()) {
    out->push_back(&shape);
    return;
  }
  for (const Shape& s : shape.tuple_shapes()) CollectLeaves(s, out);
}

absl::Status CheckConstantLiteral(const HloInstruction& hlo) {
  if (!hlo.attrs().literal.has_value() ||
      !ShapesCompatible(hlo.attrs().literal->shape(), hlo.shape())) {
    return Invalid("constant's literal does not match its shape");
  }
  return absl::OkStatus();
}

absl::Status CheckParameterReplication(const HloInstruction& hlo) {
  if (!hlo.attrs().parameter_replication.has_value()) {
    return absl::OkStatus();
  }
  const int64_t leaves = LeafCount(hlo.shape());
  const size_t entries = hlo.attrs().parameter_replication->size();
  if (leaves != static_cast<int64_t>(entries)) {
    return Invalid(absl::StrCat("parameter has ", leaves,
                                " leaf buffers, but parameter_replication "
                                "has ",
                                entries, " entries"));
  }
  return absl::OkStatus();
}

absl::Status CheckOperandLayoutConstraints(const HloInstruction& hlo) {
  if (!hlo.attrs().custom_call->operand_layout_constraints.has_value()) {
    return absl::OkStatus();
  }
  const auto& constraints =
      *hlo.attrs().custom_call->operand_layout_constraints;
  if (static_cast<int64_t>(constraints.size()) != hlo.operand_count()) {
    return Invalid(absl::StrCat("has ", constraints.size(),
                                " operand layout constraints for ",
                                hlo.operand_count(), " operands"));
  }
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    if (!ShapesCompatible(constraints[i], hlo.operand(i)->shape())) {
      return Invalid(absl::StrCat("operand layout constraint ",
                                  constraints[i].ToString(),
                                  " does not fit operand ", i, " ",
                                  hlo.operand(i)->shape().ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckAsyncPairing(const HloInstruction& hlo,
                               bool in_async_computation) {
  using Op = HloOpcode;
  // send/recv may go without a done only as the root of an async
  // computation (the async-done finishes them).
  const bool async_root = in_async_computation && hlo.IsRoot();
  switch (hlo.opcode()) {
    case Op::kAsyncStart:
      return ExpectSingleUser(hlo, {Op::kAsyncUpdate, Op::kAsyncDone});
    case Op::kAsyncUpdate: {
      absl::Status status =
          ExpectOperand(hlo, {Op::kAsyncStart, Op::kAsyncUpdate});
      if (!status.ok()) return status;
      return ExpectSingleUser(hlo, {Op::kAsyncUpdate, Op::kAsyncDone});
    }
    case Op::kAsyncDone:
      return ExpectOperand(hlo, {Op::kAsyncStart, Op::kAsyncUpdate});
    case Op::kAllReduceStart:
      return ExpectSingleUser(hlo, {Op::kAllReduceDone});
    case Op::kAllReduceDone:
      return ExpectOperand(hlo, {Op::kAllReduceStart});
    case Op::kCopyStart:
      return ExpectSingleUser(hlo, {Op::kCopyDone});
    case Op::kCopyDone:
      return ExpectOperand(hlo, {Op::kCopyStart});
    case Op::kCollectivePermuteStart:
      return ExpectSingleUser(hlo, {Op::kCollectivePermuteDone});
    case Op::kCollectivePermuteDone:
      return ExpectOperand(hlo, {Op::kCollectivePermuteStart});
    case Op::kSend:
      if (async_root) return absl::OkStatus();
      return ExpectSingleUser(hlo, {Op::kSendDone, Op::kTuple});
    case Op::kSendDone:
      return ExpectOperand(hlo, {Op::kSend, Op::kGetTupleElement});
    case Op::kRecv:
      if (async_root) return absl::OkStatus();
      return ExpectSingleUser(hlo, {Op::kRecvDone, Op::kTuple});
    case Op::kRecvDone:
      return ExpectOperand(hlo, {Op::kRecv, Op::kGetTupleElement});
    default:
      // all-gather-start/done are not paired by XLA's verifier either.
      return absl::OkStatus();
  }
}

absl::Status CheckCompareType(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kCompare || hlo.operand_count() < 2) {
    return absl::OkStatus();
  }
  const Shape& operand = hlo.operand(1)->shape();
  if (!operand.IsArray()) return absl::OkStatus();
  const PrimitiveType type = operand.element_type();
  const ComparisonType actual = hlo.attrs().comparison_type;
  if (IsFloatingPoint(type)) {
    if (actual != ComparisonType::kFloat &&
        actual != ComparisonType::kTotalOrder) {
      return Invalid(absl::StrCat("compare type=", ComparisonTypeString(actual),
                                  " does not fit ", operand.ToString(false),
                                  " operands; expected FLOAT or TOTALORDER"));
    }
    return absl::OkStatus();
  }
  const ComparisonType expected = DefaultComparisonType(type);
  if (actual != expected) {
    return Invalid(absl::StrCat("compare type=", ComparisonTypeString(actual),
                                " does not fit ", operand.ToString(false),
                                " operands; expected ",
                                ComparisonTypeString(expected)));
  }
  return absl::OkStatus();
}

absl::Status CheckRng(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kRng) return absl::OkStatus();
  if (hlo.operand_count() != 2) {
    return Invalid(
        absl::StrCat("rng takes 2 operands, but has ", hlo.operand_count()));
  }
  const Shape& a = hlo.operand(0)->shape();
  const Shape& b = hlo.operand(1)->shape();
  for (const Shape* s : {&a, &b}) {
    if (!s->IsArray() || s->rank() != 0) {
      return Invalid(absl::StrCat("rng operands must be scalars, got ",
                                  s->ToString(false)));
    }
  }
  const PrimitiveType type = a.element_type();
  if (b.element_type() != type || !hlo.shape().IsArray() ||
      hlo.shape().element_type() != type) {
    return Invalid(absl::StrCat("rng operands ", a.ToString(false), ", ",
                                b.ToString(false), " and result ",
                                hlo.shape().ToString(false),
                                " must have the same element type"));
  }
  if (hlo.attrs().distribution == RandomDistribution::kNormal) {
    if (!IsFloatingPoint(type)) {
      return Invalid(
          absl::StrCat("rng_normal needs a floating-point type, got ",
                       PrimitiveTypeName(type)));
    }
  } else if (!IsFloatingPoint(type) && !IsInteger(type) &&
             type != PrimitiveType::kPred) {
    return Invalid(absl::StrCat(
        "rng_uniform needs a floating-point, integer or pred type, got ",
        PrimitiveTypeName(type)));
  }
  return absl::OkStatus();
}

absl::Status CheckCompositeCall(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kCall || !hlo.attrs().is_composite) {
    return absl::OkStatus();
  }
  if (!hlo.has_frontend_attributes()) {
    return Invalid(
        "a composite call (is_composite=true) needs frontend_attributes with "
        "composite.name");
  }
  const FrontendAttributes& attrs = hlo.frontend_attributes();
  auto name = attrs.find("composite.name");
  if (name == attrs.end() || name->second.empty()) {
    return Invalid(
        "a composite call (is_composite=true) needs a non-empty "
        "composite.name frontend attribute");
  }
  auto attributes = attrs.find("composite.attributes");
  if (attributes != attrs.end() && attributes->second.empty()) {
    return Invalid(
        "a composite call's composite.attributes must be {} or non-empty");
  }
  auto version = attrs.find("composite.version");
  int64_t v = 0;
  if (version != attrs.end() &&
      (!absl::SimpleAtoi(version->second, &v) || v < 0)) {
    return Invalid(absl::StrCat(
        "a composite call's composite.version must be a non-negative "
        "integer, got \"",
        version->second, "\""));
  }
  return absl::OkStatus();
}

absl::Status CheckShardingFitsShape(const HloSharding& sharding,
                                    const Shape& shape) {
  if (shape.IsToken() || sharding.type == HloSharding::Type::kRaw) {
    return absl::OkStatus();
  }
  if (sharding.type != HloSharding::Type::kTuple) {
    // One sharding for every leaf of a tuple (XLA normalizes it so).
    std::vector<const Shape*> leaves;
    CollectLeaves(shape, &leaves);
    for (const Shape* leaf : leaves) {
      absl::Status status = CheckLeafSharding(sharding, *leaf);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  if (!shape.IsTuple()) {
    return Invalid(absl::StrCat("tuple sharding ", sharding.ToString(),
                                " on the non-tuple shape ",
                                shape.ToString(false)));
  }
  const int64_t leaves = LeafCount(shape);
  const int64_t elements = static_cast<int64_t>(sharding.tuple_elements.size());
  // An empty tuple may carry one sharding.
  if (leaves == 0 && elements <= 1) return absl::OkStatus();
  if (leaves != elements) {
    return Invalid(absl::StrCat(
        "tuple sharding has ", elements, " element", elements == 1 ? "" : "s",
        ", but the shape ", shape.ToString(false), " has ", leaves, " leaves"));
  }
  std::vector<const Shape*> leaf_shapes;
  CollectLeaves(shape, &leaf_shapes);
  for (int64_t i = 0; i < leaves; ++i) {
    const HloSharding& element = sharding.tuple_elements[i];
    if (element.type == HloSharding::Type::kTuple) {
      return Invalid("a tuple sharding's elements cannot be tuples");
    }
    absl::Status status = CheckLeafSharding(element, *leaf_shapes[i]);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status CheckInfeed(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kInfeed) return absl::OkStatus();
  if (hlo.operand_count() != 1 || !hlo.operand(0)->shape().IsToken()) {
    return Invalid("infeed takes one token operand");
  }
  const Shape& s = hlo.shape();
  if (!s.IsTuple() || s.tuple_shapes_size() != 2 ||
      !s.tuple_shapes(1).IsToken()) {
    return Invalid(
        absl::StrCat("infeed must have a tuple shape (data, token[]), got ",
                     s.ToString(false)));
  }
  return absl::OkStatus();
}

absl::Status CheckAttributesFitShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kConstant:
      return CheckConstantLiteral(hlo);
    case HloOpcode::kParameter:
      return CheckParameterReplication(hlo);
    case HloOpcode::kCustomCall:
      return CheckOperandLayoutConstraints(hlo);
    default:
      return absl::OkStatus();
  }
}

absl::Status CheckFamilyRules(const HloInstruction& hlo,
                              bool in_async_computation,
                              const HloModuleConfig& config) {
  switch (HloOpcodeFamily(hlo.opcode())) {
    case OpcodeFamily::kElementwise:
      return CheckCompareType(hlo);
    case OpcodeFamily::kRandom:
      return CheckRng(hlo);
    case OpcodeFamily::kControlFlow:
      return CheckCompositeCall(hlo);
    case OpcodeFamily::kCollective: {
      // all-reduce-start and collective-permute-start also pair with their
      // done.
      absl::Status status = CheckCollective(hlo, config);
      if (!status.ok()) return status;
      return CheckAsyncPairing(hlo, in_async_computation);
    }
    case OpcodeFamily::kAsync:
      return CheckAsyncPairing(hlo, in_async_computation);
    case OpcodeFamily::kHostTransfer: {
      absl::Status status = CheckAsyncPairing(hlo, in_async_computation);
      if (!status.ok()) return status;
      return CheckInfeed(hlo);
    }
    default:
      return absl::OkStatus();
  }
}

}  // namespace verifier_internal
}  // namespace xlite
