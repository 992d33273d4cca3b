// The generator's core: types, shapes and literals drawn at random, the
// text it writes, how operands are found or made, and the driver that
// draws instructions by family.

#include "tests/fuzz/random_module.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/analysis/verifier.h"
#include "hlo/text/parser.h"
#include "tests/fuzz/random_module_internal.h"

namespace xlite::fuzz {

using T = PrimitiveType;

unsigned ClassOf(PrimitiveType type) {
  if (type == T::kPred) return kPredClass;
  if (IsSignedInteger(type)) return kSignedClass;
  if (IsUnsignedInteger(type)) return kUnsignedClass;
  if (IsComplex(type)) return kComplexClass;
  if (IsFloatingPoint(type)) return kFloatClass;
  return 0;
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t ArrayShape::elements() const { return Product(dims); }

std::string TypeText(PrimitiveType type) {
  return std::string(PrimitiveTypeName(type));
}

std::string ListText(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

std::string ShapeText(const ArrayShape& shape) {
  std::string out =
      absl::StrCat(TypeText(shape.type), "[", absl::StrJoin(shape.dims, ","),
                   "]");
  if (!shape.minor_to_major.empty()) {
    absl::StrAppend(&out, ListText(shape.minor_to_major));
  }
  return out;
}

// ------------------------------------------------------------ randomness

namespace {

struct WeightedType {
  PrimitiveType type;
  int weight;
};

// Common types more often; every array type the verifier and the
// evaluator know appears.
const std::vector<WeightedType>& TypeWeights() {
  static const auto* kTypes = new std::vector<WeightedType>{
      {T::kF32, 12},         {T::kS32, 7},        {T::kPred, 4},
      {T::kBF16, 4},         {T::kF16, 3},        {T::kF64, 3},
      {T::kS8, 3},           {T::kU8, 3},         {T::kS64, 3},
      {T::kU32, 3},          {T::kS16, 2},        {T::kU16, 2},
      {T::kU64, 2},          {T::kC64, 2},        {T::kC128, 1},
      {T::kS4, 1},           {T::kU4, 1},         {T::kS2, 1},
      {T::kU2, 1},           {T::kS1, 1},         {T::kU1, 1},
      {T::kF8E5M2, 1},       {T::kF8E4M3FN, 1},   {T::kF8E4M3B11FNUZ, 1},
      {T::kF8E5M2FNUZ, 1},   {T::kF8E4M3FNUZ, 1}, {T::kF8E4M3, 1},
      {T::kF8E3M4, 1},       {T::kF4E2M1FN, 1},   {T::kF8E8M0FNU, 1},
  };
  return *kTypes;
}

bool IsFnuz(PrimitiveType t) {
  return t == T::kF8E4M3B11FNUZ || t == T::kF8E5M2FNUZ ||
         t == T::kF8E4M3FNUZ || t == T::kF8E8M0FNU;
}

}  // namespace

Traits IotaTraits(PrimitiveType type) {
  // f8e8m0fnu has no zero (nor negatives): its iota starts with a NaN.
  return Traits(true, type != T::kF8E8M0FNU);
}

Traits ConvertTraits(const Value& from, PrimitiveType to) {
  // Integers may overflow a float type; small floats stay finite (but
  // f8e8m0fnu holds neither zero nor negatives).
  return Traits(from.clean, from.finite && IsFloatingPoint(from.shape.type) &&
                                to != T::kF8E8M0FNU);
}

std::string ZeroLiteral(PrimitiveType type) {
  if (type == T::kPred) return "false";
  if (IsComplex(type)) return "(0, 0)";
  // f8e8m0fnu has no zero; its smallest-magnitude ordinary value is 1.
  return type == T::kF8E8M0FNU ? "1" : "0";
}

PrimitiveType Generator::RandomType(unsigned classes) {
  std::vector<PrimitiveType> types;
  std::vector<int> weights;
  for (const WeightedType& w : TypeWeights()) {
    if (!InClass(w.type, classes)) continue;
    types.push_back(w.type);
    weights.push_back(w.weight);
  }
  if (types.empty()) return T::kF32;
  return types[ch_.Weighted(weights)];
}

int64_t Generator::RandomDimSize() {
  static const std::vector<int64_t> kSizes = {1, 2, 3, 4, 5, 0, 7, 8, 16};
  // Past the default bound, some sizes that span several warps and blocks
  // (the default draws stay as they were, so seeds keep their modules).
  static const std::vector<int64_t> kLarge = {33, 64, 100, 257, 1024};
  if (options_.max_elements > 256 && ch_.Chance(30)) {
    return kLarge[ch_.Below(kLarge.size())];
  }
  return kSizes[ch_.Weighted({4, 4, 3, 2, 1, 1, 1, 1, 1})];
}

std::vector<int64_t> Generator::RandomDims(int64_t min_rank,
                                           int64_t max_rank) {
  static const std::vector<int> kRankWeights = {2, 4, 4, 2, 1};
  std::vector<int> weights;
  for (int64_t r = min_rank; r <= max_rank && r <= 4; ++r) {
    weights.push_back(kRankWeights[r]);
  }
  const int64_t rank = min_rank + static_cast<int64_t>(ch_.Weighted(weights));
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i) dims.push_back(RandomDimSize());
  while (Product(dims) > options_.max_elements) {
    *std::max_element(dims.begin(), dims.end()) /= 2;
  }
  return dims;
}

std::vector<int64_t> Generator::RandomLayout(int64_t rank) {
  if (rank < 2 || !ch_.Chance(25)) return {};
  std::vector<int64_t> order;
  for (int64_t i = rank - 1; i >= 0; --i) order.push_back(i);
  for (int64_t i = rank - 1; i > 0; --i) {
    std::swap(order[i], order[ch_.Below(i + 1)]);
  }
  return order;
}

ArrayShape Generator::WithLayout(PrimitiveType type,
                                 std::vector<int64_t> dims) {
  ArrayShape s;
  s.type = type;
  s.minor_to_major = RandomLayout(static_cast<int64_t>(dims.size()));
  s.dims = std::move(dims);
  return s;
}

std::string Generator::ScalarLiteral(PrimitiveType type, bool* nan) {
  *nan = false;
  if (type == T::kPred) return ch_.Chance(50) ? "true" : "false";
  if (IsComplex(type)) {
    // Finite parts only: products with infinite or NaN parts follow C's
    // Annex G in one implementation and the plain formula in another (XLA
    // itself does both), a known difference not worth rediscovering.
    const std::vector<std::string> parts = {"0",   "1",    "-1", "0.5",
                                            "2",   "-3",   "-0", "0.25"};
    return absl::StrCat("(", ch_.Pick(parts), ", ", ch_.Pick(parts), ")");
  }
  if (IsInteger(type)) {
    const int bits = BitWidth(type);
    const bool is_signed = IsSignedInteger(type);
    const int64_t max = bits >= 64 ? INT64_MAX
                        : is_signed ? (int64_t{1} << (bits - 1)) - 1
                                    : (int64_t{1} << bits) - 1;
    const int64_t min = is_signed ? -max - 1 : 0;
    std::vector<std::string> values;
    for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{3},
                      int64_t{-1}, int64_t{-2}, int64_t{100}}) {
      if (v >= min && v <= max) values.push_back(absl::StrCat(v));
    }
    values.push_back(absl::StrCat(max));
    if (is_signed) values.push_back(absl::StrCat(min));
    if (type == T::kU64) values.back() = "18446744073709551615";
    return ch_.Pick(values);
  }
  std::vector<std::string> values;
  if (type == T::kF8E8M0FNU) {
    values = {"1", "2", "0.5", "4", "0.125"};
  } else {
    values = {"0", "1", "-1", "0.5", "2", "-3", "0.25", "-1.5", "4"};
    if (!IsFnuz(type)) values.push_back("-0");
  }
  if (type != T::kF4E2M1FN && ch_.Chance(15)) {
    *nan = true;
    return ch_.Chance(30) ? "-nan" : "nan";
  }
  if (HasInfinity(type) && ch_.Chance(10)) {
    return ch_.Chance(50) ? "inf" : "-inf";
  }
  return ch_.Pick(values);
}

// ---------------------------------------------------------------- writing

std::string Generator::NewName(const std::string& hint) {
  return absl::StrCat("%", hint, ".", next_name_++);
}

std::string Generator::EmitRaw(Comp& c, const std::string& shape_text,
                               const std::string& rhs) {
  const std::string first = rhs.substr(0, rhs.find_first_of("(,"));
  const std::string name = NewName(first.empty() ? "v" : first);
  c.lines.push_back(absl::StrCat("  ", name, " = ", shape_text, " ", rhs));
  return name;
}

Value Generator::Emit(Comp& c, const ArrayShape& shape, const std::string& rhs,
                      Traits traits) {
  Value v;
  v.name = EmitRaw(c, ShapeText(shape), rhs);
  v.shape = shape;
  const bool exact = !InClass(shape.type, kFloatClass | kComplexClass);
  v.clean = traits.clean || exact;
  v.finite = traits.finite || exact;
  c.pool.push_back(v);
  c.uses.push_back(0);
  return v;
}

Value Generator::GetTupleElement(Comp& c, const std::string& tuple,
                                 const ArrayShape& shape, int64_t index,
                                 Traits traits) {
  return Emit(c, shape,
              absl::StrCat("get-tuple-element(", tuple, "), index=", index),
              traits);
}

std::string Generator::EmitResults(Comp& c,
                                   const std::vector<ArrayShape>& shapes,
                                   bool tuple, const std::string& rhs,
                                   Traits traits) {
  if (shapes.size() == 1 && !tuple) {
    return Emit(c, shapes[0], rhs, traits).name;
  }
  std::vector<std::string> texts;
  for (const ArrayShape& s : shapes) texts.push_back(ShapeText(s));
  const std::string name =
      EmitRaw(c, absl::StrCat("(", absl::StrJoin(texts, ", "), ")"), rhs);
  for (size_t i = 0; i < shapes.size(); ++i) {
    // Not every element needs extracting: unused results exercise dead
    // tuple elements.
    if (shapes.size() > 1 && ch_.Chance(20)) continue;
    GetTupleElement(c, name, shapes[i], i, traits);
  }
  return name;
}

Comp Generator::NewComputation(const std::string& hint, const Comp& caller) {
  Comp c;
  c.name = absl::StrCat(hint, ".", next_computation_++);
  c.depth = caller.depth + 1;
  return c;
}

std::vector<Value> Generator::AddTupleParameter(
    Comp& c, const std::vector<ArrayShape>& shapes) {
  std::vector<std::string> texts;
  for (const ArrayShape& s : shapes) texts.push_back(ShapeText(s));
  const std::string shape_text =
      absl::StrCat("(", absl::StrJoin(texts, ", "), ")");
  const int64_t n = c.parameters++;
  c.signature.push_back(absl::StrCat("p", n, ": ", shape_text));
  const std::string tuple =
      EmitRaw(c, shape_text, absl::StrCat("parameter(", n, ")"));
  std::vector<Value> out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    out.push_back(GetTupleElement(c, tuple, shapes[i], i, false));
  }
  return out;
}

Value Generator::AddParameter(Comp& c, const ArrayShape& shape) {
  const int64_t n = c.parameters++;
  c.signature.push_back(absl::StrCat("p", n, ": ", ShapeText(shape)));
  return Emit(c, shape, absl::StrCat("parameter(", n, ")"), Traits(true, true));
}

void Generator::Use(Comp& c, const Value& v) {
  for (size_t i = 0; i < c.pool.size(); ++i) {
    if (c.pool[i].name == v.name) ++c.uses[i];
  }
}

std::string Generator::Finish(Comp& c, const std::string& root) {
  std::string body;
  const std::string prefix = absl::StrCat("  ", root, " = ");
  for (const std::string& line : c.lines) {
    if (line.rfind(prefix, 0) == 0) {
      absl::StrAppend(&body, "  ROOT ", line.substr(2), "\n");
    } else {
      absl::StrAppend(&body, line, "\n");
    }
  }
  const std::string name = c.is_entry ? "main" : c.name;
  computations_.push_back(absl::StrCat(c.is_entry ? "ENTRY " : "", "%", name,
                                       " {\n", body, "}\n"));
  return absl::StrCat("%", name);
}

// --------------------------------------------------------------- operands

Value Generator::Any(Comp& c) {
  if (c.pool.empty()) {
    return NewLeaf(c, WithLayout(RandomType(kAnyClass), RandomDims(0, 4)));
  }
  const size_t n = c.pool.size();
  const size_t recent = std::min<size_t>(n, 4);
  const size_t i = ch_.Chance(60) ? n - 1 - ch_.Below(recent) : ch_.Below(n);
  return c.pool[i];
}

Value Generator::AnyOf(Comp& c, unsigned classes) {
  std::vector<size_t> fits;
  for (size_t i = 0; i < c.pool.size(); ++i) {
    if (InClass(c.pool[i].shape.type, classes)) fits.push_back(i);
  }
  if (!fits.empty() && !ch_.Chance(20)) return c.pool[ch_.Pick(fits)];
  const Value v = Any(c);
  if (InClass(v.shape.type, classes)) return v;
  return Coerce(c, v, RandomType(classes), v.shape.dims);
}

Value Generator::Get(Comp& c, PrimitiveType type,
                     const std::vector<int64_t>& dims) {
  std::vector<size_t> exact, same_dims;
  for (size_t i = 0; i < c.pool.size(); ++i) {
    if (c.pool[i].shape.dims != dims) continue;
    same_dims.push_back(i);
    if (c.pool[i].shape.type == type) exact.push_back(i);
  }
  if (!exact.empty() && !ch_.Chance(25)) return c.pool[ch_.Pick(exact)];
  if (!same_dims.empty() && ch_.Chance(40)) {
    return Coerce(c, c.pool[ch_.Pick(same_dims)], type, dims);
  }
  if (!c.pool.empty() && ch_.Chance(30)) {
    return Coerce(c, c.pool[ch_.Below(c.pool.size())], type, dims);
  }
  return NewLeaf(c, WithLayout(type, dims));
}

Value Generator::Coerce(Comp& c, const Value& v, PrimitiveType type,
                        const std::vector<int64_t>& dims) {
  Use(c, v);
  Value cur = v;
  if (cur.shape.type != type) {
    if (IsComplex(cur.shape.type) && !IsComplex(type)) {
      ArrayShape s = cur.shape;
      s.type = ComplexComponentType(s.type);
      cur = Emit(c, s, absl::StrCat("real(", cur.name, ")"), Of(cur));
    }
    if (cur.shape.type != type) {
      ArrayShape s = cur.shape;
      s.type = type;
      cur = Emit(c, s, absl::StrCat("convert(", cur.name, ")"),
                 ConvertTraits(cur, type));
    }
  }
  if (cur.shape.dims == dims) return cur;
  const int64_t n = cur.shape.elements();
  const int64_t m = Product(dims);
  if (cur.shape.rank() == 0) {
    return Emit(c, WithLayout(type, dims),
                absl::StrCat("broadcast(", cur.name, "), dimensions={}"),
                Of(cur));
  }
  if (n != m) {
    if (cur.shape.rank() != 1) {
      cur = Emit(c, WithLayout(type, {n}),
                 absl::StrCat("reshape(", cur.name, ")"), Of(cur));
    }
    if (n > m) {
      cur = Emit(c, WithLayout(type, {m}),
                 absl::StrCat("slice(", cur.name, "), slice={[0:", m, "]}"),
                 Of(cur));
    } else {
      const Value zero = ScalarConstant(c, type, ZeroLiteral(type));
      cur = Emit(c, WithLayout(type, {m}),
                 absl::StrCat("pad(", cur.name, ", ", zero.name,
                              "), padding=0_", m - n),
                 Of(cur));
    }
  }
  if (cur.shape.dims == dims) return cur;
  return Emit(c, WithLayout(type, dims),
              absl::StrCat("reshape(", cur.name, ")"), Of(cur));
}

Value Generator::ScalarConstant(Comp& c, PrimitiveType type,
                                const std::string& text) {
  ArrayShape s;
  s.type = type;
  const bool nan = text.find("nan") != std::string::npos;
  return Emit(c, s, absl::StrCat("constant(", text, ")"),
              Traits(!nan, !nan && text.find("inf") == std::string::npos));
}

Value Generator::Constant(Comp& c, const ArrayShape& shape) {
  bool any_nan = false;
  const int64_t n = shape.elements();
  if (shape.rank() >= 1 && n >= 1 && n <= 8 && ch_.Chance(50)) {
    // A literal array, written row-major with one brace level per
    // dimension.
    std::string text;
    int64_t at = 0;
    auto write = [&](auto&& self, int64_t d) -> void {
      text += "{";
      for (int64_t i = 0; i < shape.dims[d]; ++i) {
        if (i > 0) text += ", ";
        if (d + 1 == shape.rank()) {
          bool nan;
          text += ScalarLiteral(shape.type, &nan);
          any_nan |= nan;
          ++at;
        } else {
          self(self, d + 1);
        }
      }
      text += "}";
    };
    write(write, 0);
    return Emit(c, shape, absl::StrCat("constant(", text, ")"),
                Traits(!any_nan, !any_nan && text.find("inf") == std::string::npos));
  }
  const Value scalar =
      ScalarConstant(c, shape.type, ScalarLiteral(shape.type, &any_nan));
  if (shape.rank() == 0) return scalar;
  return Emit(c, shape,
              absl::StrCat("broadcast(", scalar.name, "), dimensions={}"),
              Of(scalar));
}

Value Generator::NewLeaf(Comp& c, const ArrayShape& shape) {
  if (c.is_entry && c.parameters < 8 && ch_.Chance(60)) {
    return AddParameter(c, shape);
  }
  if (shape.rank() >= 1 && InClass(shape.type, kIntClass | kFloatClass) &&
      ch_.Chance(30)) {
    return Emit(c, shape,
                absl::StrCat("iota(), iota_dimension=", ch_.Below(shape.rank())),
                IotaTraits(shape.type));
  }
  return Constant(c, shape);
}

Value Generator::IndexScalar(Comp& c, PrimitiveType type) {
  std::vector<size_t> fits;
  for (size_t i = 0; i < c.pool.size(); ++i) {
    if (c.pool[i].shape.type == type && c.pool[i].shape.rank() == 0) {
      fits.push_back(i);
    }
  }
  if (!fits.empty() && ch_.Chance(50)) return c.pool[ch_.Pick(fits)];
  ArrayShape s;
  s.type = type;
  if (c.is_entry && c.parameters < 8 && ch_.Chance(40)) {
    return AddParameter(c, s);
  }
  bool nan;
  return ScalarConstant(c, type, ScalarLiteral(type, &nan));
}

Value Generator::FiniteValue(Comp& c, PrimitiveType type,
                             const std::vector<int64_t>& dims) {
  std::vector<size_t> fits;
  for (size_t i = 0; i < c.pool.size(); ++i) {
    const Value& v = c.pool[i];
    if (v.finite && v.shape.type == type && v.shape.dims == dims) {
      fits.push_back(i);
    }
  }
  if (!fits.empty() && !ch_.Chance(25)) return c.pool[ch_.Pick(fits)];
  const ArrayShape shape = WithLayout(type, dims);
  if (c.is_entry && c.parameters < 8 && ch_.Chance(70)) {
    return AddParameter(c, shape);
  }
  std::string text = ZeroLiteral(type);
  for (int attempt = 0; attempt < 8; ++attempt) {
    bool nan;
    const std::string t = ScalarLiteral(type, &nan);
    if (!nan && t.find("inf") == std::string::npos) {
      text = t;
      break;
    }
  }
  const Value scalar = ScalarConstant(c, type, text);
  if (shape.rank() == 0) return scalar;
  return Emit(c, shape,
              absl::StrCat("broadcast(", scalar.name, "), dimensions={}"),
              Of(scalar));
}

// ----------------------------------------------------------------- driver

void Generator::Step(Comp& c) {
  using Family = bool (Generator::*)(Comp&);
  struct Entry {
    Family family;
    int weight;
    bool in_fusion;  // allowed inside fused computations
    bool calls;      // creates called computations (limited by depth)
    bool scalar = false;  // keeps scalars scalar (for scalar functions)
  };
  static const std::vector<Entry> kFamilies = {
      {&Generator::Unary, 10, true, false, true},
      {&Generator::Binary, 12, true, false, true},
      {&Generator::Compare, 5, true, false, true},
      {&Generator::Select, 4, true, false, true},
      {&Generator::Clamp, 2, true, false, true},
      {&Generator::Convert, 5, true, false, true},
      {&Generator::BitcastConvert, 3, true, false},
      {&Generator::ReducePrecision, 1, true, false, true},
      {&Generator::Iota, 2, true, false},
      {&Generator::MakeConstant, 1, true, false},
      {&Generator::Broadcast, 4, true, false},
      {&Generator::Reshape, 4, true, false},
      {&Generator::Transpose, 4, true, false},
      {&Generator::Slice, 4, true, false},
      {&Generator::DynamicSlice, 3, true, false},
      {&Generator::DynamicUpdateSlice, 3, true, false},
      {&Generator::Pad, 3, true, false},
      {&Generator::Concatenate, 3, true, false},
      {&Generator::Reverse, 2, true, false},
      {&Generator::Copy, 1, true, false},
      {&Generator::TupleRoundTrip, 1, false, false},
      {&Generator::Gather, 3, true, false},
      {&Generator::Scatter, 3, false, true},
      {&Generator::Reduce, 6, true, true},
      {&Generator::ReduceWindow, 3, true, true},
      {&Generator::Sort, 3, false, true},
      {&Generator::TopK, 1, false, false},
      {&Generator::Map, 2, true, true},
      {&Generator::Dot, 4, true, false},
      {&Generator::Convolution, 3, true, false},
      {&Generator::While, 2, false, true},
      {&Generator::Conditional, 2, false, true},
      {&Generator::Call, 1, false, true},
      {&Generator::Fusion, 3, false, true},
      {&Generator::RngBitGenerator, 1, false, false},
  };
  std::vector<int> weights;
  for (const Entry& e : kFamilies) {
    const bool allowed = (!c.fused || e.in_fusion) &&
                         (!c.scalar_only || e.scalar) &&
                         (!e.calls || c.depth < options_.max_depth);
    weights.push_back(allowed ? e.weight : 0);
  }
  for (int attempt = 0; attempt < 8; ++attempt) {
    const Entry& e = kFamilies[ch_.Weighted(weights)];
    if ((this->*e.family)(c)) return;
  }
  Unary(c) || Copy(c);
}

std::string Generator::Generate() {
  Comp entry;
  entry.is_entry = true;
  entry.name = "main";
  if (options_.dot_fusions) {
    const int64_t patterns = 1 + ch_.Weighted({4, 2, 1});
    for (int64_t i = 0; i < patterns; ++i) DotFusion(entry);
  } else {
    const int64_t steps = ch_.Range(1, std::max(1, options_.max_instructions));
    for (int64_t i = 0; i < steps; ++i) Step(entry);
  }
  // The root: the most recent values nothing uses (parameters only when
  // nothing else is left), one array or a tuple of up to four.
  std::vector<std::string> roots;
  for (size_t i = entry.pool.size(); i-- > 0 && roots.size() < 4;) {
    const bool is_parameter =
        entry.pool[i].name.rfind("%parameter.", 0) == 0;
    if (entry.uses[i] == 0 && !is_parameter) {
      roots.push_back(entry.pool[i].name);
    }
  }
  if (roots.empty()) roots.push_back(entry.pool.back().name);
  std::string root = roots[0];
  if (roots.size() > 1 || ch_.Chance(10)) {
    std::vector<std::string> shapes;
    for (const std::string& r : roots) {
      for (const Value& v : entry.pool) {
        if (v.name == r) shapes.push_back(ShapeText(v.shape));
      }
    }
    root = EmitRaw(entry, absl::StrCat("(", absl::StrJoin(shapes, ", "), ")"),
                   absl::StrCat("tuple(", absl::StrJoin(roots, ", "), ")"));
  }
  Finish(entry, root);
  return absl::StrCat("HloModule fuzz\n\n",
                      absl::StrJoin(computations_, "\n"));
}

std::string RandomModuleText(ChoiceSource& choices,
                             const RandomModuleOptions& options) {
  return Generator(choices, options).Generate();
}

absl::StatusOr<std::unique_ptr<HloModule>> RandomModule(
    ChoiceSource& choices, const RandomModuleOptions& options) {
  const std::string text = RandomModuleText(choices, options);
  ParseOptions parse;
  parse.filename = "random.hlo";
  std::vector<std::string> warnings;
  parse.warnings = &warnings;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, parse);
  if (!module.ok()) {
    return absl::InternalError(absl::StrCat(
        "the generated module does not parse: ", module.status().message(),
        "\n", text));
  }
  if (absl::Status s = VerifyModule(**module); !s.ok()) {
    return absl::InternalError(absl::StrCat(
        "the generated module does not verify: ", s.message(), "\n", text));
  }
  return module;
}

}  // namespace xlite::fuzz
