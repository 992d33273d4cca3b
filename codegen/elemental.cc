#include "codegen/elemental.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/scalar_ops.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen {

// The refusal sentence, before any backend names itself.
constexpr absl::string_view kRefusal = "cannot compile %";

absl::Status Unsupported(const HloInstruction* hlo, absl::string_view what) {
  // "LINE:COL: error: " when the instruction came from text, so a tool can
  // put the file name in front.
  std::string where;
  if (hlo->location().line > 0) {
    where = absl::StrCat(hlo->location().line, ":", hlo->location().column,
                         ": error: ");
  }
  return absl::UnimplementedError(
      absl::StrCat(where, kRefusal, hlo->name(), " (",
                   HloOpcodeString(hlo->opcode()), "): ", what));
}

namespace {

// Where the refusal sentence starts in `message`: after a "LINE:COL: error: "
// prefix, if any; npos when it is not an Unsupported refusal.
size_t RefusalStart(absl::string_view message) {
  size_t at = 0;
  if (const size_t e = message.find(": error: "); e != absl::string_view::npos) {
    const absl::string_view where = message.substr(0, e);
    if (!where.empty() &&
        std::all_of(where.begin(), where.end(), [](char c) {
          return c == ':' || (c >= '0' && c <= '9');
        })) {
      at = e + std::string_view(": error: ").size();
    }
  }
  return absl::StartsWith(message.substr(at), kRefusal)
             ? at
             : absl::string_view::npos;
}

}  // namespace

bool IsUnnamedRefusal(const absl::Status& status) {
  return !status.ok() &&
         RefusalStart(status.message()) != absl::string_view::npos;
}

absl::Status NameBackend(absl::Status status, absl::string_view backend) {
  if (!IsUnnamedRefusal(status)) return status;
  std::string message(status.message());
  message.insert(RefusalStart(message),
                 absl::StrCat("the ", backend, " backend "));
  return absl::Status(status.code(), message);
}

void ElementalEmitter::Bind(const HloInstruction* instruction, int64_t leaf,
                            Generator generator) {
  bound_.insert({instruction, leaf});
  generators_[{instruction, leaf}] = std::move(generator);
}

void ElementalEmitter::BindArray(const HloInstruction* instruction,
                                 int64_t leaf, const IrArray& array) {
  Bind(instruction, leaf, [this, array](const Index& index) {
    return array.EmitRead(b_, index);
  });
}

void ElementalEmitter::PushScope() { scopes_.emplace_back(); }
void ElementalEmitter::PopScope() { scopes_.pop_back(); }

absl::StatusOr<Generator> ElementalEmitter::GeneratorFor(
    const HloInstruction* instruction, int64_t leaf) {
  auto it = generators_.find({instruction, leaf});
  if (it != generators_.end()) return it->second;
  absl::StatusOr<Generator> made = MakeGenerator(instruction, leaf);
  if (!made.ok()) return made.status();
  generators_[{instruction, leaf}] = *made;
  return *made;
}

absl::StatusOr<llvm::Value*> ElementalEmitter::ValueAt(
    const HloInstruction* instruction, int64_t leaf, const Index& index) {
  CacheKey key{instruction, leaf, {index.begin(), index.end()}};
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->find(key);
    if (it != scope->end()) return it->second;
  }
  absl::StatusOr<Generator> generator = GeneratorFor(instruction, leaf);
  if (!generator.ok()) return generator.status();
  absl::StatusOr<llvm::Value*> value = (*generator)(index);
  if (!value.ok()) return value.status();
  scopes_.back()[key] = *value;
  return *value;
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalEmitter::EmitApplied(
    const HloComputation& computation,
    absl::Span<llvm::Value* const> arguments) {
  // A fresh emitter: the computation's instructions are not the caller's,
  // and its memo must not outlive this call site.
  ElementalEmitter inner(b_, module_);
  size_t next = 0;
  for (const HloInstruction* param : computation.parameter_instructions()) {
    const Shape& shape = param->shape();
    const int64_t leaves = shape.IsTuple() ? shape.tuple_shapes_size() : 1;
    for (int64_t l = 0; l < leaves; ++l) {
      if (next >= arguments.size()) {
        return absl::InternalError(absl::StrCat(
            "too few arguments applying computation ", computation.name()));
      }
      llvm::Value* value = arguments[next++];
      inner.Bind(param, shape.IsTuple() ? l : -1,
                 [value](const Index&) -> absl::StatusOr<llvm::Value*> {
                   return value;
                 });
    }
  }
  const HloInstruction* root = computation.root_instruction();
  std::vector<llvm::Value*> results;
  if (root->shape().IsTuple()) {
    for (int64_t l = 0; l < root->shape().tuple_shapes_size(); ++l) {
      absl::StatusOr<llvm::Value*> v = inner.ValueAt(root, l, {});
      if (!v.ok()) return v.status();
      results.push_back(*v);
    }
  } else {
    absl::StatusOr<llvm::Value*> v = inner.ValueAt(root, -1, {});
    if (!v.ok()) return v.status();
    results.push_back(*v);
  }
  return results;
}

absl::StatusOr<Generator> ElementalEmitter::MakeGenerator(
    const HloInstruction* hlo, int64_t leaf) {
  if (hlo->opcode() == HloOpcode::kFusion) return NestedFusion(hlo, leaf);
  // An array-shaped get-tuple-element reads a leaf of its operand (a
  // variadic reduce-window's, say).
  if (hlo->shape().IsTuple() || leaf >= 0 ||
      hlo->opcode() == HloOpcode::kGetTupleElement) {
    return MakeTupleOp(hlo, leaf);
  }
  switch (HloOpcodeFamily(hlo->opcode())) {
    case OpcodeFamily::kElementwise:
    case OpcodeFamily::kConversion:
      return MakeElementwise(hlo);
    case OpcodeFamily::kDataMovement:
      return MakeDataMovement(hlo);
    case OpcodeFamily::kGenerator:
      return MakeGeneratorOp(hlo);
    case OpcodeFamily::kReduction:
      return MakeReduction(hlo, leaf);
    case OpcodeFamily::kContraction:
      return MakeContraction(hlo);
    case OpcodeFamily::kGatherScatter:
      return MakeGatherScatter(hlo);
    default:
      break;
  }
  if (hlo->opcode() == HloOpcode::kParameter) {
    return Unsupported(hlo, "parameter without a binding");
  }
  return Unsupported(hlo, "no elemental form");
}

absl::StatusOr<Generator> ElementalEmitter::MakeElementwise(
    const HloInstruction* hlo) {
  if (hlo->opcode() == HloOpcode::kBitcastConvert) {
    const PrimitiveType from = hlo->operand(0)->shape().element_type();
    const PrimitiveType to = hlo->shape().element_type();
    if (BitWidth(from) > BitWidth(to)) {
      // Narrower: the last output dimension walks the pieces.
      return [this, hlo, from, to](const Index& index)
                 -> absl::StatusOr<llvm::Value*> {
        Index in(index.begin(), index.end() - 1);
        absl::StatusOr<llvm::Value*> v = ValueAt(hlo->operand(0), -1, in);
        if (!v.ok()) return v.status();
        return EmitBitcastConvertSplit(b_, from, to, *v, index.back());
      };
    }
    if (BitWidth(from) < BitWidth(to)) {
      // Wider: the operand's last dimension holds the pieces.
      return [this, hlo, from, to](const Index& index)
                 -> absl::StatusOr<llvm::Value*> {
        const int64_t n = BitWidth(to) / BitWidth(from);
        std::vector<llvm::Value*> pieces;
        for (int64_t k = 0; k < n; ++k) {
          Index in(index.begin(), index.end());
          in.push_back(b_.getInt64(k));
          absl::StatusOr<llvm::Value*> v = ValueAt(hlo->operand(0), -1, in);
          if (!v.ok()) return v.status();
          pieces.push_back(*v);
        }
        return EmitBitcastConvertJoin(b_, from, to, pieces);
      };
    }
  }
  return [this, hlo](const Index& index) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> operands;
    for (const HloInstruction* operand : hlo->operands()) {
      // Scalar operands of elementwise ops broadcast implicitly (clamp's
      // bounds may be scalars).
      Index at = operand->shape().rank() == 0 ? Index() : index;
      absl::StatusOr<llvm::Value*> v = ValueAt(operand, -1, at);
      if (!v.ok()) return v.status();
      operands.push_back(*v);
    }
    return EmitElementwise(b_, *hlo, operands);
  };
}

absl::StatusOr<Generator> ElementalEmitter::NestedFusion(
    const HloInstruction* hlo, int64_t leaf) {
  // The inner parameters read the outer operands.
  const HloComputation* inner = hlo->fused_computation();
  const int64_t count = std::min<int64_t>(
      hlo->operand_count(), inner->parameter_instructions().size());
  for (int64_t i = 0; i < count; ++i) {
    const HloInstruction* operand = hlo->operand(i);
    const HloInstruction* param = inner->parameter_instructions()[i];
    if (operand->shape().IsTuple()) {
      for (int64_t l = 0; l < operand->shape().tuple_shapes_size(); ++l) {
        Bind(param, l, [this, operand, l](const Index& index) {
          return ValueAt(operand, l, index);
        });
      }
    } else {
      Bind(param, -1, [this, operand](const Index& index) {
        return ValueAt(operand, -1, index);
      });
    }
  }
  const HloInstruction* root = inner->root_instruction();
  return [this, root, leaf](const Index& index) {
    return ValueAt(root, leaf, index);
  };
}

absl::StatusOr<Generator> ElementalEmitter::MakeTupleOp(
    const HloInstruction* hlo, int64_t leaf) {
  switch (hlo->opcode()) {
    case HloOpcode::kTuple:
      return [this, hlo, leaf](const Index& index) {
        return ValueAt(hlo->operand(leaf), -1, index);
      };
    case HloOpcode::kGetTupleElement: {
      if (leaf >= 0) return Unsupported(hlo, "nested tuples in a kernel");
      return [this, hlo](const Index& index) {
        return ValueAt(hlo->operand(0), hlo->tuple_index(), index);
      };
    }
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
      return MakeReduction(hlo, leaf);
    default:
      return Unsupported(hlo, "tuple-shaped result inside a kernel");
  }
}

absl::StatusOr<Generator> ElementalEmitter::MakeGeneratorOp(
    const HloInstruction* hlo) {
  switch (hlo->opcode()) {
    case HloOpcode::kIota:
      return Iota(hlo);
    case HloOpcode::kConstant:
      return Constant(hlo);
    default:
      return Unsupported(hlo, "no elemental form");
  }
}

absl::StatusOr<Generator> ElementalEmitter::MakeDataMovement(
    const HloInstruction* hlo) {
  switch (hlo->opcode()) {
    case HloOpcode::kBroadcast:
      return Broadcast(hlo);
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
      return Reshape(hlo);
    case HloOpcode::kTranspose:
      return Transpose(hlo);
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kDynamicReshape:
      // Static shapes: the operand's elements, relabelled (the size
      // operands only say what the static shape already does).
      return Reshape(hlo);
    case HloOpcode::kGetDimensionSize:
      return [this, hlo](const Index&) {
        return EmitConvert(
            b_, PrimitiveType::kS64, hlo->shape().element_type(),
            b_.getInt64(hlo->operand(0)->shape().dimensions(hlo->dimensions(0))));
      };
    case HloOpcode::kCopy:
      return [this, hlo](const Index& index) {
        return ValueAt(hlo->operand(0), -1, index);
      };
    case HloOpcode::kSlice:
      return Slice(hlo);
    case HloOpcode::kPad:
      return Pad(hlo);
    case HloOpcode::kConcatenate:
      return Concatenate(hlo);
    case HloOpcode::kReverse:
      return Reverse(hlo);
    case HloOpcode::kDynamicSlice:
      return DynamicSlice(hlo);
    case HloOpcode::kDynamicUpdateSlice:
      return DynamicUpdateSlice(hlo);
    default:
      return Unsupported(hlo, "no elemental form");
  }
}

absl::StatusOr<Generator> ElementalEmitter::MakeReduction(
    const HloInstruction* hlo, int64_t leaf) {
  switch (hlo->opcode()) {
    case HloOpcode::kReduce:
      return Reduce(hlo, leaf);
    case HloOpcode::kReduceWindow:
      return ReduceWindow(hlo, leaf);
    case HloOpcode::kMap:
      return Map(hlo);
    default:
      return Unsupported(hlo, "no elemental form");
  }
}

absl::StatusOr<Generator> ElementalEmitter::MakeContraction(
    const HloInstruction* hlo) {
  switch (hlo->opcode()) {
    case HloOpcode::kDot:
      return Dot(hlo);
    case HloOpcode::kRaggedDot:
      return RaggedDot(hlo);
    case HloOpcode::kConvolution:
      return Convolution(hlo);
    default:
      return Unsupported(hlo, "no elemental form");
  }
}

absl::StatusOr<Generator> ElementalEmitter::MakeGatherScatter(
    const HloInstruction* hlo) {
  if (hlo->opcode() == HloOpcode::kGather) return Gather(hlo);
  return Unsupported(hlo, "no elemental form");
}

}  // namespace xlite::codegen
