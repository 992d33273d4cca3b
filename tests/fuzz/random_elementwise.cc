// Elementwise and conversion opcodes, iota and constants for the random
// module generator. Each opcode is drawn only for the element types XLA
// (and the evaluator) define it on.

#include "absl/strings/str_cat.h"
#include "tests/fuzz/random_module_internal.h"

namespace xlite::fuzz {
namespace {

using T = PrimitiveType;

struct OpTypes {
  const char* opcode;
  unsigned classes;
};

// Unary opcodes and the element types they take. Complex operands get
// only the functions XLA's evaluator defines on them.
const std::vector<OpTypes>& UnaryOps() {
  static const auto* kOps = new std::vector<OpTypes>{
      {"abs", kIntClass | kFloatClass | kComplexClass},
      {"negate", kIntClass | kFloatClass | kComplexClass},
      {"sign", kIntClass | kFloatClass | kComplexClass},
      {"not", kPredClass | kIntClass},
      {"popcnt", kIntClass},
      {"count-leading-zeros", kIntClass},
      {"floor", kFloatClass},
      {"ceil", kFloatClass},
      {"round-nearest-afz", kFloatClass},
      {"round-nearest-even", kFloatClass},
      {"is-finite", kFloatClass},
      {"exponential", kFloatClass | kComplexClass},
      {"exponential-minus-one", kFloatClass | kComplexClass},
      {"log", kFloatClass | kComplexClass},
      {"log-plus-one", kFloatClass | kComplexClass},
      {"sqrt", kFloatClass | kComplexClass},
      {"rsqrt", kFloatClass | kComplexClass},
      {"sine", kFloatClass | kComplexClass},
      {"cosine", kFloatClass | kComplexClass},
      {"tan", kFloatClass | kComplexClass},
      {"tanh", kFloatClass | kComplexClass},
      {"logistic", kFloatClass | kComplexClass},
      {"cbrt", kFloatClass},
      {"erf", kFloatClass},
      {"asin", kFloatClass},
      {"acos", kFloatClass},
      {"atan", kFloatClass},
      {"asinh", kFloatClass},
      {"acosh", kFloatClass},
      {"atanh", kFloatClass},
      {"sinh", kFloatClass},
      {"cosh", kFloatClass},
      {"real", kFloatClass | kComplexClass},
      {"imag", kFloatClass | kComplexClass},
  };
  return *kOps;
}

const std::vector<OpTypes>& BinaryOps() {
  static const auto* kOps = new std::vector<OpTypes>{
      {"add", kIntClass | kFloatClass | kComplexClass},
      {"subtract", kIntClass | kFloatClass | kComplexClass},
      {"multiply", kIntClass | kFloatClass | kComplexClass},
      {"divide", kIntClass | kFloatClass | kComplexClass},
      {"power", kIntClass | kFloatClass | kComplexClass},
      {"remainder", kIntClass | kFloatClass},
      {"maximum", kPredClass | kIntClass | kFloatClass},
      {"minimum", kPredClass | kIntClass | kFloatClass},
      {"atan2", kFloatClass},
      {"and", kPredClass | kIntClass},
      {"or", kPredClass | kIntClass},
      {"xor", kPredClass | kIntClass},
      {"shift-left", kIntClass},
      {"shift-right-arithmetic", kIntClass},
      {"shift-right-logical", kIntClass},
      {"mulhi", kIntClass},
      {"complex", 0},  // f32 and f64 only, below
  };
  return *kOps;
}

bool TakesComplexOp(PrimitiveType t) { return t == T::kF32 || t == T::kF64; }

// The signed or unsigned integer type of `bits` bits.
PrimitiveType IntegerOfWidth(int bits, bool is_signed) {
  switch (bits) {
    case 1: return is_signed ? T::kS1 : T::kU1;
    case 2: return is_signed ? T::kS2 : T::kU2;
    case 4: return is_signed ? T::kS4 : T::kU4;
    case 8: return is_signed ? T::kS8 : T::kU8;
    case 16: return is_signed ? T::kS16 : T::kU16;
    case 32: return is_signed ? T::kS32 : T::kU32;
    default: return is_signed ? T::kS64 : T::kU64;
  }
}

}  // namespace

bool Generator::Unary(Comp& c) {
  const Value x = Any(c);
  std::vector<const OpTypes*> fits;
  for (const OpTypes& op : UnaryOps()) {
    if (InClass(x.shape.type, op.classes)) fits.push_back(&op);
  }
  if (fits.empty()) return false;
  const std::string op = ch_.Pick(fits)->opcode;
  ArrayShape s = x.shape;
  if (op == "is-finite") {
    s.type = T::kPred;
  } else if (op == "abs" || op == "real" || op == "imag") {
    s.type = ComplexComponentType(s.type);
  }
  s.minor_to_major = RandomLayout(s.rank());
  Use(c, x);
  Emit(c, s, absl::StrCat(op, "(", x.name, ")"));
  return true;
}

bool Generator::Binary(Comp& c) {
  const Value x = Any(c);
  std::vector<const OpTypes*> fits;
  for (const OpTypes& op : BinaryOps()) {
    const bool complex = std::string(op.opcode) == "complex";
    if (complex ? TakesComplexOp(x.shape.type)
                : InClass(x.shape.type, op.classes)) {
      fits.push_back(&op);
    }
  }
  if (fits.empty()) return false;
  const std::string op = ch_.Pick(fits)->opcode;
  const Value y = Get(c, x.shape.type, x.shape.dims);
  ArrayShape s = WithLayout(x.shape.type, x.shape.dims);
  if (op == "complex") {
    s.type = x.shape.type == T::kF32 ? T::kC64 : T::kC128;
  }
  const bool swap = ch_.Chance(30);
  Use(c, x);
  Use(c, y);
  Emit(c, s,
       absl::StrCat(op, "(", swap ? y.name : x.name, ", ",
                    swap ? x.name : y.name, ")"),
       Traits(op == "complex" && x.clean && y.clean));
  return true;
}

bool Generator::Compare(Comp& c) {
  const Value x = Any(c);
  const Value y = Get(c, x.shape.type, x.shape.dims);
  std::vector<std::string> directions = {"EQ", "NE"};
  if (!IsComplex(x.shape.type)) {
    directions = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  }
  std::string rhs = absl::StrCat("compare(", x.name, ", ", y.name,
                                 "), direction=", ch_.Pick(directions));
  // Total order tells NaNs apart by sign, which only clean values fix.
  if (IsFloatingPoint(x.shape.type) && x.clean && y.clean && ch_.Chance(40)) {
    absl::StrAppend(&rhs, ", type=TOTALORDER");
  }
  Use(c, x);
  Use(c, y);
  Emit(c, WithLayout(T::kPred, x.shape.dims), rhs);
  return true;
}

bool Generator::Select(Comp& c) {
  const Value x = Any(c);
  const Value pred = ch_.Chance(25) ? Get(c, T::kPred, {})
                                    : Get(c, T::kPred, x.shape.dims);
  const Value y = Get(c, x.shape.type, x.shape.dims);
  Use(c, x);
  Use(c, y);
  Use(c, pred);
  Emit(c, WithLayout(x.shape.type, x.shape.dims),
       absl::StrCat("select(", pred.name, ", ", x.name, ", ", y.name, ")"),
       Of(x) & Of(y));
  return true;
}

bool Generator::Clamp(Comp& c) {
  const Value x = AnyOf(c, kIntClass | kFloatClass);
  auto bound = [&] {
    return ch_.Chance(50) ? Get(c, x.shape.type, {})
                          : Get(c, x.shape.type, x.shape.dims);
  };
  const Value lo = bound();
  const Value hi = bound();
  Use(c, x);
  Use(c, lo);
  Use(c, hi);
  Emit(c, WithLayout(x.shape.type, x.shape.dims),
       absl::StrCat("clamp(", lo.name, ", ", x.name, ", ", hi.name, ")"));
  return true;
}

bool Generator::Convert(Comp& c) {
  const Value x = Any(c);
  // XLA converts real to complex but not back.
  const unsigned to = IsComplex(x.shape.type) ? kComplexClass : kAnyClass;
  Use(c, x);
  const PrimitiveType target = RandomType(to);
  Emit(c, WithLayout(target, x.shape.dims),
       absl::StrCat("convert(", x.name, ")"), ConvertTraits(x, target));
  return true;
}

bool Generator::BitcastConvert(Comp& c) {
  // The bits of a NaN an operation made are not specified: only clean
  // values are reinterpreted. Results are never pred (a byte other than
  // 0/1 is no pred value).
  const unsigned from = kPredClass | kIntClass | kFloatClass;
  const unsigned to = kIntClass | kFloatClass;
  const PrimitiveType target = RandomType(to);
  const int out_bits = BitWidth(target);
  if (ch_.Chance(60)) {
    // Same width: same dimensions.
    std::vector<size_t> sources;
    for (size_t i = 0; i < c.pool.size(); ++i) {
      const Value& v = c.pool[i];
      if (v.clean && InClass(v.shape.type, from) &&
          BitWidth(v.shape.type) == out_bits) {
        sources.push_back(i);
      }
    }
    Value x;
    if (!sources.empty() && ch_.Chance(70)) {
      x = c.pool[ch_.Pick(sources)];
    } else {
      // An integer of the target's width (integers are always clean).
      const PrimitiveType source =
          IntegerOfWidth(out_bits, ch_.Chance(50));
      x = Get(c, source, ch_.Chance(50) ? Any(c).shape.dims
                                        : RandomDims(0, 4));
    }
    Use(c, x);
    Emit(c, WithLayout(target, x.shape.dims),
         absl::StrCat("bitcast-convert(", x.name, ")"), true);
    return true;
  }
  // Different widths: a minor dimension of in/out elements appears or
  // disappears. The source is an integer (always clean).
  const PrimitiveType source = RandomType(kIntClass);
  const int in_bits = BitWidth(source);
  if (in_bits == out_bits) return false;
  std::vector<int64_t> dims = RandomDims(0, 3);
  std::vector<int64_t> out_dims = dims;
  if (in_bits > out_bits) {
    out_dims.push_back(in_bits / out_bits);
  } else {
    dims.push_back(out_bits / in_bits);
  }
  if (Product(dims) > options_.max_elements ||
      Product(out_dims) > options_.max_elements) {
    return false;
  }
  const Value x = Get(c, source, dims);
  Use(c, x);
  Emit(c, WithLayout(target, out_dims),
       absl::StrCat("bitcast-convert(", x.name, ")"), true);
  return true;
}

bool Generator::ReducePrecision(Comp& c) {
  const Value x = AnyOf(c, kFloatClass);
  Use(c, x);
  Emit(c, WithLayout(x.shape.type, x.shape.dims),
       absl::StrCat("reduce-precision(", x.name,
                    "), exponent_bits=", ch_.Range(1, 8),
                    ", mantissa_bits=", ch_.Range(0, 12)));
  return true;
}

bool Generator::Iota(Comp& c) {
  const ArrayShape s =
      WithLayout(RandomType(kIntClass | kFloatClass), RandomDims(1, 4));
  Emit(c, s,
       absl::StrCat("iota(), iota_dimension=", ch_.Below(s.rank())),
       IotaTraits(s.type));
  return true;
}

bool Generator::MakeConstant(Comp& c) {
  Constant(c, WithLayout(RandomType(kAnyClass), RandomDims(0, 3)));
  return true;
}

}  // namespace xlite::fuzz
