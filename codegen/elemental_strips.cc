// Reassociable reductions (hlo/ir/reducer.h: maximum, minimum, integer
// sums, products and bitwise folds) along their operand's physically
// minor dimension, folded in strips: each contiguous run of that
// dimension is read V elements at a time into one V-wide vector
// accumulator (a few vector instructions per strip), which is then
// reduced to one value, and the run's value folded into the result after
// the init value. The order differs from Reduce's one-by-one sequence;
// for these reducers the value does not. The vector operations are the
// reducer's own semantics: llvm.maximum / llvm.minimum propagate NaN and
// order -0 below +0, as EmitFloatMax / EmitFloatMin do. Where denormals
// are flushed (codegen/denormals.h), the strips compare subnormals as they
// are: reading one as a zero of its sign keeps the order (ties aside), so
// the maximum of the flushed values is the flushed maximum, which the
// reducer's own final fold with the init value reads so.

#include <algorithm>
#include <optional>

#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "hlo/ir/reducer.h"
#include "llvm/IR/Intrinsics.h"

namespace xlite::codegen {

namespace {

// The operand's physically minor dimension longer than 1, or -1.
int64_t MinorDimension(const Shape& shape) {
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  for (auto d = order.rbegin(); d != order.rend(); ++d) {
    if (shape.dimensions(*d) > 1) return *d;
  }
  return -1;
}

// Whether the vector forms below cover the reducer's element type: f32,
// f64 and the 8- to 64-bit integers.
bool HasVectorForm(PrimitiveType type) {
  if (type == PrimitiveType::kF32 || type == PrimitiveType::kF64) return true;
  if (!IsInteger(type)) return false;
  const int bits = BitWidth(type);
  return bits == 8 || bits == 16 || bits == 32 || bits == 64;
}

// The reducer's operation on two vectors.
llvm::Value* VectorOp(llvm::IRBuilderBase& b, HloOpcode op, PrimitiveType type,
                      llvm::Value* x, llvm::Value* y) {
  const bool is_signed = IsSignedInteger(type);
  switch (op) {
    case HloOpcode::kMaximum:
      if (IsFloatingPoint(type)) {
        return b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, x, y);
      }
      return b.CreateBinaryIntrinsic(
          is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, x, y);
    case HloOpcode::kMinimum:
      if (IsFloatingPoint(type)) {
        return b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, x, y);
      }
      return b.CreateBinaryIntrinsic(
          is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, x, y);
    case HloOpcode::kAdd:
      return b.CreateAdd(x, y);
    case HloOpcode::kMultiply:
      return b.CreateMul(x, y);
    case HloOpcode::kAnd:
      return b.CreateAnd(x, y);
    case HloOpcode::kOr:
      return b.CreateOr(x, y);
    default:  // kXor (StripWidth admits no other)
      return b.CreateXor(x, y);
  }
}

// The reducer's fold of a vector's elements.
llvm::Value* VectorFold(llvm::IRBuilderBase& b, HloOpcode op,
                        PrimitiveType type, llvm::Value* v) {
  const bool is_signed = IsSignedInteger(type);
  switch (op) {
    case HloOpcode::kMaximum:
      return IsFloatingPoint(type) ? b.CreateFPMaximumReduce(v)
                                   : b.CreateIntMaxReduce(v, is_signed);
    case HloOpcode::kMinimum:
      return IsFloatingPoint(type) ? b.CreateFPMinimumReduce(v)
                                   : b.CreateIntMinReduce(v, is_signed);
    case HloOpcode::kAdd:
      return b.CreateAddReduce(v);
    case HloOpcode::kMultiply:
      return b.CreateMulReduce(v);
    case HloOpcode::kAnd:
      return b.CreateAndReduce(v);
    case HloOpcode::kOr:
      return b.CreateOrReduce(v);
    default:
      return b.CreateXorReduce(v);
  }
}

}  // namespace

int64_t StripWidth(const HloInstruction* hlo) {
  if (hlo->opcode() != HloOpcode::kReduce || hlo->operand_count() != 2 ||
      !hlo->shape().IsArray() || !IsReassociableReduce(*hlo) ||
      !HasVectorForm(hlo->shape().element_type())) {
    return 0;
  }
  const Shape& in = hlo->operand(0)->shape();
  const int64_t minor = MinorDimension(in);
  if (minor < 0 || std::find(hlo->dimensions().begin(), hlo->dimensions().end(),
                             minor) == hlo->dimensions().end()) {
    return 0;
  }
  // Up to eight 64-byte lines of elements per strip (8 to 128 of them):
  // the strip's vector is several registers, each its own chain of folds,
  // so the folds' latency (six instructions for a float maximum) overlaps.
  // Runs shorter than two strips take narrower ones, down to two lines.
  const int64_t bytes = BitWidth(in.element_type()) / 8;
  const int64_t narrowest = std::clamp<int64_t>(128 / bytes, 8, 32);
  int64_t width = std::clamp<int64_t>(512 / bytes, 8, 128);
  const int64_t n = in.dimensions(minor);
  while (width > narrowest && n < 2 * width) width /= 2;
  return n >= 2 * width ? width : 0;
}

absl::StatusOr<llvm::Value*> ElementalEmitter::StripVector(
    const HloInstruction* operand, const Index& base, int64_t minor,
    int64_t width, llvm::Value* start) {
  std::vector<Index> lanes(width, base);
  for (int64_t j = 0; j < width; ++j) {
    lanes[j][minor] =
        j == 0 ? start : b_.CreateAdd(start, b_.getInt64(j), "", true, true);
  }
  absl::StatusOr<std::vector<llvm::Value*>> xs =
      ValuesAt(operand, -1, lanes, minor);
  if (!xs.ok()) return xs.status();
  llvm::Type* type = (*xs)[0]->getType();
  llvm::Value* v =
      llvm::PoisonValue::get(llvm::FixedVectorType::get(type, width));
  for (int64_t j = 0; j < width; ++j)
    v = b_.CreateInsertElement(v, (*xs)[j], j);
  return v;
}

absl::StatusOr<llvm::Value*> ElementalEmitter::FoldRun(
    const HloInstruction* hlo, const Index& base, int64_t minor,
    int64_t width) {
  const HloInstruction* operand = hlo->operand(0);
  const HloOpcode op = hlo->to_apply()->root_instruction()->opcode();
  const PrimitiveType element = hlo->shape().element_type();
  const int64_t n = operand->shape().dimensions(minor);
  llvm::Type* type = ValueType(element, b_.getContext());
  llvm::Type* vector = llvm::FixedVectorType::get(type, width);
  llvm::AllocaInst* acc = EntryAlloca(b_, vector);
  llvm::AllocaInst* tail = EntryAlloca(b_, type);
  {
    Scope first(*this);
    absl::StatusOr<llvm::Value*> v =
        StripVector(operand, base, minor, width, b_.getInt64(0));
    if (!v.ok()) return v.status();
    b_.CreateStore(*v, acc);
  }
  absl::Status strips = EmitForLoop(
      b_, b_.getInt64(1), b_.getInt64(n / width), "strip",
      [&](llvm::Value* s) -> absl::Status {
        Scope inner(*this);
        absl::StatusOr<llvm::Value*> v =
            StripVector(operand, base, minor, width,
                        b_.CreateMul(s, b_.getInt64(width), "", true, true));
        if (!v.ok()) return v.status();
        b_.CreateStore(
            VectorOp(b_, op, element, b_.CreateLoad(vector, acc), *v), acc);
        return absl::OkStatus();
      });
  if (!strips.ok()) return strips;
  b_.CreateStore(VectorFold(b_, op, element, b_.CreateLoad(vector, acc)), tail);
  absl::Status rest =
      EmitForLoop(b_, b_.getInt64(n - n % width), b_.getInt64(n), "strip.rest",
                  [&](llvm::Value* i) -> absl::Status {
                    Scope inner(*this);
                    Index at = base;
                    at[minor] = i;
                    absl::StatusOr<llvm::Value*> x = ValueAt(operand, -1, at);
                    if (!x.ok()) return x.status();
                    absl::StatusOr<std::vector<llvm::Value*>> y = EmitApplied(
                        *hlo->to_apply(), {b_.CreateLoad(type, tail), *x});
                    if (!y.ok()) return y.status();
                    b_.CreateStore((*y)[0], tail);
                    return absl::OkStatus();
                  });
  if (!rest.ok()) return rest;
  return b_.CreateLoad(type, tail);
}

absl::StatusOr<llvm::Value*> ElementalEmitter::ReduceInStrips(
    const HloInstruction* hlo, const Index& index, int64_t width) {
  const Shape& in = hlo->operand(0)->shape();
  const int64_t minor = MinorDimension(in);
  const auto& reduced = hlo->dimensions();
  auto is_reduced = [&](int64_t d) {
    return std::find(reduced.begin(), reduced.end(), d) != reduced.end();
  };
  // The other reduced dimensions, physically major to minor: one run each.
  std::vector<int64_t> outer;
  for (int64_t d : MajorToMinor(in)) {
    if (d != minor && is_reduced(d)) outer.push_back(d);
  }
  llvm::Type* type = ValueType(hlo->shape().element_type(), b_.getContext());
  absl::StatusOr<llvm::Value*> init = ValueAt(hlo->operand(1), -1, {});
  if (!init.ok()) return init.status();
  llvm::AllocaInst* result = EntryAlloca(b_, type);
  b_.CreateStore(*init, result);
  std::vector<int64_t> bounds;
  for (int64_t d : outer) bounds.push_back(in.dimensions(d));
  Scope scope(*this);
  absl::Status status =
      EmitLoopNestOverBounds(b_, bounds, [&](const Index& o) -> absl::Status {
        Scope run(*this);
        Index base(in.rank(), nullptr);
        size_t k = 0;
        for (int64_t d = 0; d < in.rank(); ++d) {
          if (!is_reduced(d)) base[d] = index[k++];
        }
        for (size_t r = 0; r < outer.size(); ++r) base[outer[r]] = o[r];
        for (int64_t d = 0; d < in.rank(); ++d) {
          if (base[d] == nullptr) base[d] = b_.getInt64(0);
        }
        absl::StatusOr<llvm::Value*> value = FoldRun(hlo, base, minor, width);
        if (!value.ok()) return value.status();
        absl::StatusOr<std::vector<llvm::Value*>> total = EmitApplied(
            *hlo->to_apply(), {b_.CreateLoad(type, result), *value});
        if (!total.ok()) return total.status();
        b_.CreateStore((*total)[0], result);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return b_.CreateLoad(type, result);
}

}  // namespace xlite::codegen
