#include "passes/contraction_type_caster.h"

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "hlo/ir/float_types.h"
#include "passes/hlo_util.h"

namespace xlite {

namespace {

// The power of two a floating point type overflows at: one above the
// exponent of its largest finite value. IEEE types keep the all-ones
// exponent for infinities and NaNs, "fn" types only the all-ones pattern
// (all of that exponent when there is no mantissa: f8e8m0fnu), and the
// fnuz types and f4e2m1fn use every exponent.
int OverflowExponent(const FloatFormat& f) {
  const int all_ones = (1 << f.exponent_bits) - 1;
  const bool top_reserved =
      f.nan == NanEncoding::kIeee ||
      (f.nan == NanEncoding::kAllOnes && f.mantissa_bits == 0);
  return (top_reserved ? all_ones - 1 : all_ones) - f.bias + 1;
}

// Where a type stands in XLA's order, most significant first: complex,
// range, significand width (both -1 for non-floats), bit width, signed.
std::tuple<bool, int, int, int, bool> PrecisionKey(PrimitiveType type) {
  const PrimitiveType component =
      IsComplex(type) ? ComplexComponentType(type) : type;
  const FloatFormat* f = GetFloatFormat(component);
  return {IsComplex(type), f != nullptr ? OverflowExponent(*f) : -1,
          f != nullptr ? f->mantissa_bits + 1 : -1, BitWidth(component),
          IsSignedInteger(component)};
}

// Equal values, NaN to NaN, zeros of the same sign.
bool SameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

bool HoldsExactly(PrimitiveType type, double value) {
  return SameValue(value, DecodeToF64(type, EncodeFromF64(type, value)));
}

// Rewrites one dot or convolution (see the header); true if it changed.
absl::StatusOr<bool> CastContraction(HloComputation* c, HloInstruction* hlo) {
  if (hlo->operand_count() != 2 || !hlo->shape().IsArray()) return false;
  const PrimitiveType result = hlo->shape().element_type();
  const PrimitiveType lhs = hlo->operands()[0]->shape().element_type();
  const PrimitiveType rhs = hlo->operands()[1]->shape().element_type();
  if (!IsFloatingPoint(result) || IsComplex(lhs) || IsComplex(rhs)) {
    return false;
  }
  std::optional<PrimitiveType> compute = HigherPrecisionType(lhs, rhs);
  if (compute.has_value()) compute = HigherPrecisionType(*compute, result);
  if (!compute.has_value()) return false;
  std::vector<HloInstruction*> operands(hlo->operands().begin(),
                                        hlo->operands().end());
  bool converted = false;
  for (HloInstruction*& operand : operands) {
    if (ConvertsExactly(operand->shape().element_type(), *compute)) continue;
    operand = AddNew(c, HloOpcode::kConvert,
                     WithElementType(operand->shape(), *compute), {operand});
    if (hlo->has_metadata()) operand->set_metadata(hlo->metadata());
    converted = true;
  }
  if (*compute == result) {
    for (int64_t i = 0; i < 2; ++i) {
      if (operands[i] == hlo->operands()[i]) continue;
      if (absl::Status s =
              hlo->ReplaceOperandWithDifferentShape(i, operands[i]);
          !s.ok()) {
        return s;
      }
    }
    return converted;
  }
  HloInstruction* wide = c->AddInstruction(hlo->CloneWithNewOperands(
      WithElementType(hlo->shape(), *compute), operands));
  wide->set_name(c->parent()->NewInstructionName(
      std::string(HloOpcodeString(hlo->opcode()))));
  HloInstruction* narrowed =
      AddNew(c, HloOpcode::kConvert, hlo->shape(), {wide});
  if (hlo->has_metadata()) narrowed->set_metadata(hlo->metadata());
  if (absl::Status s = ReplaceInstruction(hlo, narrowed); !s.ok()) return s;
  return true;
}

}  // namespace

std::optional<PrimitiveType> HigherPrecisionType(PrimitiveType a,
                                                 PrimitiveType b) {
  const auto key_a = PrecisionKey(a);
  const auto key_b = PrecisionKey(b);
  if (key_a == key_b && a != b) return std::nullopt;
  return key_a >= key_b ? a : b;
}

bool ConvertsExactly(PrimitiveType from, PrimitiveType to) {
  if (from == to) return true;
  if (!IsFloatingPoint(from)) return false;
  // Every f16, bf16, f8 and f4 value is an f32 value, every f32 an f64.
  const int bits = BitWidth(from);
  if (to == PrimitiveType::kF64) return true;
  if (to == PrimitiveType::kF32) return bits <= 16;
  if (bits > 16) return false;
  for (uint64_t pattern = 0; pattern < (uint64_t{1} << bits); ++pattern) {
    if (!HoldsExactly(to, DecodeToF64(from, pattern))) return false;
  }
  return true;
}

absl::StatusOr<bool> CastContractionTypes(HloModule& module) {
  const absl::flat_hash_set<const HloComputation*> fused =
      FusionComputations(module);
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    if (fused.contains(c)) continue;
    for (HloOpcode opcode : {HloOpcode::kDot, HloOpcode::kConvolution}) {
      for (HloInstruction* hlo : InstructionsWithOpcode(c, opcode)) {
        absl::StatusOr<bool> cast = CastContraction(c, hlo);
        if (!cast.ok()) return cast.status();
        changed |= *cast;
      }
    }
  }
  return changed;
}

}  // namespace xlite
