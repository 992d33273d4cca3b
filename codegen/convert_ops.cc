// convert: every pair of element types, as hlo/evaluator/convert.cc's
// ConvertOne. Floats go to integers through double (NaN -> 0, saturating,
// truncating); integers wrap; narrow floats round once from f32 (or from f64
// as ConvertFromF64 does); 64-bit integers round directly to f32. Between
// f32 and f64 the hardware converts (flushing denormals where the module
// does, codegen/denormals.h); f32 and narrow values never pass through f64
// on the way to f32 or a narrow type.

#include <cmath>
#include <limits>

#include "codegen/complex_ops.h"
#include "codegen/denormals.h"
#include "codegen/float_codec.h"
#include "codegen/scalar_ops.h"

namespace xlite::codegen {
namespace {

enum class Category { kPred, kSigned, kUnsigned, kFloat, kComplex };

Category CategoryOf(PrimitiveType type) {
  if (type == PrimitiveType::kPred) return Category::kPred;
  if (IsSignedInteger(type)) return Category::kSigned;
  if (IsUnsignedInteger(type)) return Category::kUnsigned;
  if (IsComplex(type)) return Category::kComplex;
  return Category::kFloat;
}

// FloatToInt: double -> signed/unsigned integer of `to`'s width.
llvm::Value* EmitFloatToInt(llvm::IRBuilderBase& b, PrimitiveType to,
                            llvm::Value* x) {
  const int bits = BitWidth(to);
  const bool is_signed = IsSignedInteger(to);
  llvm::IntegerType* type = b.getIntNTy(bits);
  const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
  // 2^N - 1 for N < 64 is exact; for 64 bits it rounds to 2^N, and any x at
  // or above it saturates to the maximum.
  const double hi =
      is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  llvm::Value* min_int =
      is_signed
          ? llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(bits))
          : llvm::ConstantInt::get(type, 0);
  llvm::Value* max_int = llvm::ConstantInt::get(
      type, is_signed ? llvm::APInt::getSignedMaxValue(bits)
                      : llvm::APInt::getMaxValue(bits));
  llvm::Type* f64 = b.getDoubleTy();
  // Inside (lo, hi) the conversion truncates toward zero and fits.
  llvm::Value* in_range =
      is_signed ? b.CreateFPToSI(x, type) : b.CreateFPToUI(x, type);
  llvm::Value* result = b.CreateSelect(
      b.CreateFCmpOGE(x, llvm::ConstantFP::get(f64, hi)), max_int, in_range);
  result = b.CreateSelect(b.CreateFCmpOLE(x, llvm::ConstantFP::get(f64, lo)),
                          min_int, result);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), llvm::ConstantInt::get(type, 0),
                        result);
}

// A real float value of `from` (or the real part of a complex) as double.
llvm::Value* EmitRealAsDouble(llvm::IRBuilderBase& b, PrimitiveType from,
                              llvm::Value* value) {
  if (IsComplex(from)) value = b.CreateExtractValue(value, {0});
  value = EmitToComputeFloat(b, ComplexComponentType(from), value);
  return b.CreateFPExt(value, b.getDoubleTy());
}

// An integer or pred as a float of `type` (float or double), rounded once.
llvm::Value* EmitIntToFloat(llvm::IRBuilderBase& b, Category from,
                            llvm::Value* value, llvm::Type* type) {
  return from == Category::kSigned ? b.CreateSIToFP(value, type)
                                   : b.CreateUIToFP(value, type);
}

// A real float of `type` (f32, f64 or narrow) in its compute type, widened
// to `target` (float or double) as the hardware widens (a subnormal read as
// zero where denormals are flushed) or narrowed as it narrows; f8e8m0fnu
// goes to double on its bits, as XLA:CPU converts it (its 2^-127 is an f32
// subnormal).
llvm::Value* EmitRealTo(llvm::IRBuilderBase& b, PrimitiveType type,
                        llvm::Value* value, llvm::Type* target) {
  if (type == PrimitiveType::kF8E8M0FNU && target->isDoubleTy()) {
    return EmitE8M0ToF64(b, value);
  }
  value = EmitToComputeFloat(b, type, value);
  if (value->getType() == target) return value;
  return target->isDoubleTy() ? b.CreateFPExt(value, target)
                              : b.CreateFPTrunc(value, target);
}

// Anything but complex as a real float `target` (f32 or f64) as ConvertOne
// computes it on the way to a float result.
llvm::Value* EmitToReal(llvm::IRBuilderBase& b, PrimitiveType from,
                        llvm::Value* value, llvm::Type* target) {
  const Category category = CategoryOf(from);
  if (category != Category::kFloat && category != Category::kComplex) {
    return EmitIntToFloat(b, category, value, target);
  }
  if (category == Category::kComplex) value = b.CreateExtractValue(value, {0});
  return EmitRealTo(b, ComplexComponentType(from), value, target);
}

llvm::Value* EmitToFloat(llvm::IRBuilderBase& b, PrimitiveType from,
                         PrimitiveType to, llvm::Value* value) {
  if (to == PrimitiveType::kF64 || to == PrimitiveType::kF32) {
    return EmitToReal(b, from, value, ValueType(to, b.getContext()));
  }
  if (from == PrimitiveType::kF64) {
    llvm::Value* bits = EmitEncodeFromF64(b, to, value);
    if (to != PrimitiveType::kF8E8M0FNU ||
        !FlushesDenormals(*b.GetInsertBlock()->getModule())) {
      return bits;
    }
    // XLA:CPU, denormals flushed, converts an f64 below 2^-127 to NaN
    // (the evaluator's RealToFloat).
    llvm::Value* below = b.CreateFCmpULT(
        value, llvm::ConstantFP::get(value->getType(), 0x1p-127));
    return b.CreateSelect(below, llvm::ConstantInt::get(bits->getType(), 0xFF),
                          bits);
  }
  return EmitEncodeFromF32(b, to, EmitToReal(b, from, value, b.getFloatTy()));
}

llvm::Value* EmitToComplex(llvm::IRBuilderBase& b, PrimitiveType from,
                           PrimitiveType to, llvm::Value* value) {
  llvm::Type* part = ValueType(ComplexComponentType(to), b.getContext());
  const PrimitiveType from_part = ComplexComponentType(from);
  auto cast = [&](llvm::Value* v) { return EmitRealTo(b, from_part, v, part); };
  llvm::Value* zero = llvm::ConstantFP::get(part, 0.0);
  switch (CategoryOf(from)) {
    case Category::kComplex:
      return EmitMakeComplex(b, to, cast(b.CreateExtractValue(value, {0})),
                             cast(b.CreateExtractValue(value, {1})));
    case Category::kFloat:
      return EmitMakeComplex(b, to, cast(value), zero);
    default:
      return EmitMakeComplex(
          b, to, EmitIntToFloat(b, CategoryOf(from), value, part), zero);
  }
}

}  // namespace

absl::StatusOr<llvm::Value*> EmitConvert(llvm::IRBuilderBase& b,
                                         PrimitiveType from, PrimitiveType to,
                                         llvm::Value* value) {
  if (!IsArrayType(from) || !IsArrayType(to)) {
    return absl::InvalidArgumentError(
        absl::StrCat("convert from ", PrimitiveTypeName(from), " to ",
                     PrimitiveTypeName(to), ": not array element types"));
  }
  const Category in = CategoryOf(from);
  switch (CategoryOf(to)) {
    case Category::kPred:
      switch (in) {
        case Category::kPred:
          return value;
        case Category::kComplex: {
          // x != 0: either component non-zero (or NaN).
          llvm::Value* re = b.CreateExtractValue(value, {0});
          llvm::Value* im = b.CreateExtractValue(value, {1});
          llvm::Value* zero = llvm::ConstantFP::get(re->getType(), 0.0);
          return b.CreateOr(b.CreateFCmpUNE(re, zero),
                            b.CreateFCmpUNE(im, zero));
        }
        case Category::kFloat: {
          llvm::Value* x = EmitToComputeFloat(b, from, value);
          if (IsNarrowFloat(from)) {
            // Zero or not on the f32 bits: a bf16 or f8e8m0fnu value may be
            // an f32 subnormal, which XLA:CPU tests as non-zero (a flushing
            // compare would read it as zero).
            llvm::Value* bits = b.CreateBitCast(x, b.getInt32Ty());
            return b.CreateICmpNE(b.CreateAnd(bits, b.getInt32(0x7FFFFFFF)),
                                  b.getInt32(0));
          }
          return b.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));
        }
        default:
          return b.CreateICmpNE(value,
                                llvm::ConstantInt::get(value->getType(), 0));
      }
    case Category::kSigned:
    case Category::kUnsigned: {
      llvm::Type* type = ValueType(to, b.getContext());
      switch (in) {
        case Category::kFloat:
        case Category::kComplex:
          return EmitFloatToInt(b, to, EmitRealAsDouble(b, from, value));
        case Category::kSigned:
          return b.CreateSExtOrTrunc(value, type);
        default:  // unsigned, pred: zero-extended, then wrapped
          return b.CreateZExtOrTrunc(value, type);
      }
    }
    case Category::kFloat:
      return EmitToFloat(b, from, to, value);
    case Category::kComplex:
      return EmitToComplex(b, from, to, value);
  }
  return absl::InternalError("unreachable");
}

}  // namespace xlite::codegen
