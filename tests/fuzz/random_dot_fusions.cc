// Dot fusion shapes for the random module generator
// (RandomModuleOptions::dot_fusions): what the GPU's tiled GEMM fusion
// gathers into one kernel (passes/tiled_gemm_fusion.h), drawn so that its
// edges come up: dimensions of one element and sizes just off the tiles,
// operands whose physically minor dimension is K or a free one, producers
// it may fuse or must leave out, epilogues it fuses in full or only in
// part (a second user of an intermediate value), and the types the
// kernel refuses (f8 operands), which must still compute right elsewhere.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/fuzz/random_module_internal.h"

namespace xlite::fuzz {
namespace {

using T = PrimitiveType;

// ------------------------------------------------------------ the GEMM

struct GemmTypes {
  PrimitiveType lhs, rhs, out;
};

// What JAX writes most (f32, bf16, s8 quantized), then f8 and mixed
// operand types, which only some paths take.
GemmTypes DrawTypes(ChoiceSource& ch) {
  static const std::vector<GemmTypes> kTypes = {
      {T::kF32, T::kF32, T::kF32},
      {T::kBF16, T::kBF16, T::kBF16},
      {T::kBF16, T::kBF16, T::kF32},
      {T::kF16, T::kF16, T::kF16},
      {T::kF16, T::kF16, T::kF32},
      {T::kS8, T::kS8, T::kS32},
      {T::kF8E4M3FN, T::kF8E4M3FN, T::kF32},
      {T::kF8E4M3FN, T::kF8E4M3FN, T::kBF16},
      {T::kF8E5M2, T::kF8E5M2, T::kF32},
      {T::kF8E4M3FN, T::kF8E5M2, T::kBF16},
      {T::kF8E5M2, T::kF8E4M3FN, T::kF32},
      {T::kBF16, T::kF32, T::kF32},
      {T::kF16, T::kBF16, T::kBF16},
      {T::kF32, T::kF16, T::kF16},
  };
  static const std::vector<int> kWeights = {8, 5, 4, 3, 2, 5, 1,
                                            1, 1, 1, 1, 1, 1, 1};
  return kTypes[ch.Weighted(kWeights)];
}

// An M or N side: mostly 1-80 (tails of a 64-wide tile), sometimes tile
// multiples, sometimes tiny.
int64_t DrawSide(ChoiceSource& ch) {
  switch (ch.Weighted({6, 2, 2})) {
    case 0:
      return ch.Range(1, 80);
    case 1:
      return ch.Pick(std::vector<int64_t>{64, 128});
    default:
      return ch.Range(1, 4);
  }
}

// A K side: like a free one, but also long (several block_k steps).
int64_t DrawDepth(ChoiceSource& ch) {
  switch (ch.Weighted({4, 2, 2, 1})) {
    case 0:
      return ch.Range(1, 80);
    case 1:
      return ch.Pick(std::vector<int64_t>{16, 64, 128, 256});
    case 2:
      return ch.Range(81, 300);
    default:
      return ch.Range(1, 4);
  }
}

// The sizes of each role's dimensions (a role may have none or two).
struct GemmDims {
  std::vector<int64_t> batch, m, n, k;
};

bool TooBig(const GemmDims& d, int64_t max_elements) {
  const int64_t b = Product(d.batch), m = Product(d.m), n = Product(d.n),
                k = Product(d.k);
  return b * m * k > max_elements || b * k * n > max_elements ||
         b * m * n > max_elements;
}

GemmDims DrawDims(ChoiceSource& ch, int64_t max_elements) {
  GemmDims d;
  const size_t batch = ch.Weighted({6, 3, 1});
  for (size_t i = 0; i < batch; ++i) d.batch.push_back(ch.Range(1, 5));
  const size_t m = ch.Weighted({1, 8, 1}), n = ch.Weighted({1, 8, 1}),
               k = ch.Weighted({1, 8, 1});
  for (size_t i = 0; i < m; ++i) d.m.push_back(DrawSide(ch));
  for (size_t i = 0; i < n; ++i) d.n.push_back(DrawSide(ch));
  for (size_t i = 0; i < k; ++i) d.k.push_back(DrawDepth(ch));
  // Each operand keeps a dimension: a dot of two scalars is no GEMM.
  if (d.batch.empty() && d.k.empty()) {
    if (d.m.empty()) d.m.push_back(DrawSide(ch));
    if (d.n.empty()) d.n.push_back(DrawSide(ch));
  }
  // Halve the largest side until every array fits.
  while (TooBig(d, max_elements)) {
    int64_t* largest = nullptr;
    for (std::vector<int64_t>* v : {&d.batch, &d.m, &d.n, &d.k}) {
      for (int64_t& s : *v) {
        if (largest == nullptr || s > *largest) largest = &s;
      }
    }
    if (largest == nullptr || *largest <= 1) break;
    *largest /= 2;
  }
  return d;
}

// One operand of the dot: its dimensions and where each role's went.
struct GemmOperandDims {
  std::vector<int64_t> dims;
  std::vector<int64_t> batch, contracting;  // dimension numbers, by role
  std::vector<int64_t> free_sizes;          // in dimension order
};

enum class Role { kBatch, kFree, kContracting };

// Places an operand's dimensions: batch first, then free and contracting
// (lhs M x K, rhs K x N); or free and contracting swapped (lhs contracting
// dimension 0, rhs contracting dimension 1); or any order.
GemmOperandDims Arrange(ChoiceSource& ch, const GemmDims& d, bool rhs) {
  struct Dim {
    Role role;
    size_t index;
    int64_t size;
  };
  std::vector<Dim> order, free, contracting;
  for (size_t i = 0; i < d.batch.size(); ++i) {
    order.push_back({Role::kBatch, i, d.batch[i]});
  }
  const std::vector<int64_t>& free_sizes = rhs ? d.n : d.m;
  for (size_t i = 0; i < free_sizes.size(); ++i) {
    free.push_back({Role::kFree, i, free_sizes[i]});
  }
  for (size_t i = 0; i < d.k.size(); ++i) {
    contracting.push_back({Role::kContracting, i, d.k[i]});
  }
  const size_t form = ch.Weighted({6, 3, 1});
  const bool k_first = (form == 1) != rhs;
  const std::vector<Dim>& first = k_first ? contracting : free;
  const std::vector<Dim>& second = k_first ? free : contracting;
  order.insert(order.end(), first.begin(), first.end());
  order.insert(order.end(), second.begin(), second.end());
  if (form == 2) {
    const std::vector<int64_t> perm =
        Permutation(ch, static_cast<int64_t>(order.size()));
    std::vector<Dim> shuffled;
    for (int64_t p : perm) shuffled.push_back(order[p]);
    order = shuffled;
  }
  GemmOperandDims o;
  o.batch.resize(d.batch.size());
  o.contracting.resize(d.k.size());
  for (size_t p = 0; p < order.size(); ++p) {
    o.dims.push_back(order[p].size);
    if (order[p].role == Role::kBatch) o.batch[order[p].index] = p;
    if (order[p].role == Role::kContracting) o.contracting[order[p].index] = p;
    if (order[p].role == Role::kFree) o.free_sizes.push_back(order[p].size);
  }
  return o;
}

// Mostly the default layout; column-major ({0,1}: the tiles' loads run
// along another dimension) or any order now and then.
std::vector<int64_t> DrawLayout(ChoiceSource& ch, int64_t rank) {
  if (rank < 2) return {};
  switch (ch.Weighted({13, 5, 2})) {
    case 0:
      return {};
    case 1: {
      std::vector<int64_t> column_major;
      for (int64_t i = 0; i < rank; ++i) column_major.push_back(i);
      return column_major;
    }
    default:
      return Permutation(ch, rank);
  }
}

ArrayShape DrawShape(ChoiceSource& ch, PrimitiveType type,
                     const std::vector<int64_t>& dims) {
  ArrayShape s;
  s.type = type;
  s.dims = dims;
  s.minor_to_major = DrawLayout(ch, static_cast<int64_t>(dims.size()));
  return s;
}

// ------------------------------------------------------------ operands

// The value of an operand: a parameter (or a value an earlier GEMM made,
// so that GEMMs chain), or one of the producers the tiled kernel applies
// while loading its tiles (two deep at most).
Value Operand(Generator& g, Comp& c, PrimitiveType type,
              const std::vector<int64_t>& dims, int depth);

// Reused values have several users: the fusion pass may fuse a producer
// only when all of them are in its fusion (x . x^T reads one parameter
// twice; a GEMM may read the one before it).
Value Leaf(Generator& g, Comp& c, PrimitiveType type,
           const std::vector<int64_t>& dims) {
  ChoiceSource& ch = g.ch();
  std::vector<size_t> same;
  for (size_t i = 0; i < c.pool.size(); ++i) {
    const Value& v = c.pool[i];
    if (v.shape.dims == dims &&
        InClass(v.shape.type, kFloatClass) == InClass(type, kFloatClass)) {
      same.push_back(i);
    }
  }
  if (!same.empty() && ch.Chance(50)) {
    const Value v = c.pool[ch.Pick(same)];
    if (v.shape.type == type) return v;
    g.Use(c, v);
    ArrayShape s = DrawShape(ch, type, dims);
    return g.Emit(c, s, absl::StrCat("convert(", v.name, ")"),
                  ConvertTraits(v, type));
  }
  return g.AddParameter(c, DrawShape(ch, type, dims));
}

// `type` converted from another type (an f8 or s8 operand widened, an f32
// one narrowed).
Value Converted(Generator& g, Comp& c, PrimitiveType type,
                const std::vector<int64_t>& dims, int depth) {
  static const std::vector<PrimitiveType> kFloatSources = {
      T::kF32, T::kBF16, T::kF16, T::kF8E4M3FN, T::kF8E5M2, T::kS8, T::kS32};
  static const std::vector<PrimitiveType> kIntSources = {T::kS32, T::kU8,
                                                         T::kS16, T::kF32};
  ChoiceSource& ch = g.ch();
  const std::vector<PrimitiveType>& sources =
      IsFloatingPoint(type) ? kFloatSources : kIntSources;
  PrimitiveType from = ch.Pick(sources);
  if (from == type) from = sources.front() == type ? sources[1] : sources[0];
  const Value x = Operand(g, c, from, dims, depth + 1);
  g.Use(c, x);
  return g.Emit(c, DrawShape(ch, type, dims),
                absl::StrCat("convert(", x.name, ")"), ConvertTraits(x, type));
}

Value Transposed(Generator& g, Comp& c, PrimitiveType type,
                 const std::vector<int64_t>& dims, int depth) {
  ChoiceSource& ch = g.ch();
  const std::vector<int64_t> perm =
      Permutation(ch, static_cast<int64_t>(dims.size()));
  // Result dimension k is the operand's dimension perm[k].
  std::vector<int64_t> from(dims.size());
  for (size_t k = 0; k < dims.size(); ++k) from[perm[k]] = dims[k];
  const Value x = Operand(g, c, type, from, depth + 1);
  g.Use(c, x);
  return g.Emit(
      c, DrawShape(ch, type, dims),
      absl::StrCat("transpose(", x.name, "), dimensions=", ListText(perm)),
      Of(x));
}

// A row, column or scalar broadcast to the operand's dimensions.
Value Broadcast(Generator& g, Comp& c, PrimitiveType type,
                const std::vector<int64_t>& dims, int depth) {
  ChoiceSource& ch = g.ch();
  std::vector<int64_t> kept = Subset(ch, static_cast<int64_t>(dims.size()));
  if (kept.size() == dims.size())
    kept.erase(kept.begin() + ch.Below(kept.size()));
  std::vector<int64_t> from;
  for (int64_t d : kept) from.push_back(dims[d]);
  const Value x = Operand(g, c, type, from, depth + 1);
  g.Use(c, x);
  return g.Emit(
      c, DrawShape(ch, type, dims),
      absl::StrCat("broadcast(", x.name, "), dimensions=", ListText(kept)),
      Of(x));
}

// A scalar constant broadcast to `shape`.
Value Splat(Generator& g, Comp& c, const ArrayShape& shape,
            const std::string& text) {
  const Value s = g.ScalarConstant(c, shape.type, text);
  g.Use(c, s);
  return g.Emit(c, shape,
                absl::StrCat("broadcast(", s.name, "), dimensions={}"), Of(s));
}

// A scalar parameter broadcast to `shape`.
Value ScalarParameterSplat(Generator& g, Comp& c, const ArrayShape& shape) {
  ArrayShape scalar;
  scalar.type = shape.type;
  const Value s = g.AddParameter(c, scalar);
  g.Use(c, s);
  return g.Emit(c, shape,
                absl::StrCat("broadcast(", s.name, "), dimensions={}"), Of(s));
}

Value Emit2(Generator& g, Comp& c, const ArrayShape& shape, const char* op,
            const Value& a, const Value& b) {
  g.Use(c, a);
  g.Use(c, b);
  return g.Emit(c, shape, absl::StrCat(op, "(", a.name, ", ", b.name, ")"),
                Of(a) & Of(b));
}

// x * s, s * x or x / s for a scalar constant s (a dequantization scale).
Value Scaled(Generator& g, Comp& c, PrimitiveType type,
             const std::vector<int64_t>& dims, int depth) {
  ChoiceSource& ch = g.ch();
  const Value x = Operand(g, c, type, dims, depth + 1);
  const ArrayShape shape = DrawShape(ch, type, dims);
  const bool is_float = IsFloatingPoint(type);
  const std::string scale =
      is_float ? ch.Pick(std::vector<std::string>{"0.5", "2", "-1.5", "0.25"})
      : IsSignedInteger(type)
          ? ch.Pick(std::vector<std::string>{"2", "-1", "3"})
          : ch.Pick(std::vector<std::string>{"2", "3"});
  // A scalar parameter now and then: a broadcast scalar, not a constant.
  const Value s = ch.Chance(80) ? Splat(g, c, shape, scale)
                                : ScalarParameterSplat(g, c, shape);
  switch (ch.Weighted({3, 2, 2})) {
    case 0:
      return Emit2(g, c, shape, "multiply", x, s);
    case 1:
      return Emit2(g, c, shape, "multiply", s, x);
    default:
      return Emit2(g, c, shape, "divide", x, s);
  }
}

// A reshape from the dimensions flattened, or from another layout by copy.
Value Reshaped(Generator& g, Comp& c, PrimitiveType type,
               const std::vector<int64_t>& dims, int depth) {
  ChoiceSource& ch = g.ch();
  const bool copy = ch.Chance(40);
  const std::vector<int64_t> from =
      copy ? dims : std::vector<int64_t>{Product(dims)};
  const Value x = Operand(g, c, type, from, depth + 1);
  g.Use(c, x);
  return g.Emit(c, DrawShape(ch, type, dims),
                absl::StrCat(copy ? "copy(" : "reshape(", x.name, ")"), Of(x));
}

Value Operand(Generator& g, Comp& c, PrimitiveType type,
              const std::vector<int64_t>& dims, int depth) {
  ChoiceSource& ch = g.ch();
  if (depth >= 2) return Leaf(g, c, type, dims);
  switch (ch.Weighted({6, 3, 2, 1, 2, 1})) {
    case 0:
      return Leaf(g, c, type, dims);
    case 1:
      return Converted(g, c, type, dims, depth);
    case 2:
      return dims.size() >= 2 ? Transposed(g, c, type, dims, depth)
                              : Leaf(g, c, type, dims);
    case 3:
      return dims.empty() ? Leaf(g, c, type, dims)
                          : Broadcast(g, c, type, dims, depth);
    case 4:
      return Scaled(g, c, type, dims, depth);
    default:
      return Reshaped(g, c, type, dims, depth);
  }
}

// ------------------------------------------------------------ epilogue

// The shape of an epilogue step: the dot's dimensions, usually the
// previous step's layout.
ArrayShape StepShape(ChoiceSource& ch, const Value& x, PrimitiveType type) {
  ArrayShape s = x.shape;
  s.type = type;
  if (ch.Chance(20)) s.minor_to_major = DrawLayout(ch, s.rank());
  return s;
}

// x + broadcast(bias) along one dimension (mostly the last: N).
Value BiasAdd(Generator& g, Comp& c, const Value& x) {
  ChoiceSource& ch = g.ch();
  const ArrayShape shape = StepShape(ch, x, x.shape.type);
  std::vector<int64_t> along, bias_dims;
  if (shape.rank() > 0) {
    along.push_back(ch.Chance(60) ? shape.rank() - 1 : ch.Below(shape.rank()));
    bias_dims.push_back(shape.dims[along[0]]);
  }
  ArrayShape bias_shape;
  bias_shape.type = shape.type;
  bias_shape.dims = bias_dims;
  const Value bias = g.AddParameter(c, bias_shape);
  g.Use(c, bias);
  const Value b = g.Emit(
      c, shape,
      absl::StrCat("broadcast(", bias.name, "), dimensions=", ListText(along)),
      Of(bias));
  return ch.Chance(70) ? Emit2(g, c, shape, "add", x, b)
                       : Emit2(g, c, shape, "add", b, x);
}

// max(x, 0): ReLU.
Value Relu(Generator& g, Comp& c, const Value& x) {
  ChoiceSource& ch = g.ch();
  const ArrayShape shape = StepShape(ch, x, x.shape.type);
  const Value zero = Splat(g, c, shape, "0");
  return ch.Chance(70) ? Emit2(g, c, shape, "maximum", x, zero)
                       : Emit2(g, c, shape, "maximum", zero, x);
}

// x > 0 ? x : 0.125 x (leaky ReLU: a pred in the epilogue), or
// clamp(0, x, 6) (ReLU6).
Value LeakyRelu(Generator& g, Comp& c, const Value& x) {
  ChoiceSource& ch = g.ch();
  const ArrayShape shape = StepShape(ch, x, x.shape.type);
  const Value zero = Splat(g, c, shape, "0");
  if (ch.Chance(40)) {
    const Value six = Splat(g, c, shape, "6");
    g.Use(c, x);
    g.Use(c, zero);
    g.Use(c, six);
    return g.Emit(
        c, shape,
        absl::StrCat("clamp(", zero.name, ", ", x.name, ", ", six.name, ")"));
  }
  ArrayShape pred = shape;
  pred.type = T::kPred;
  g.Use(c, x);
  g.Use(c, zero);
  const Value positive = g.Emit(
      c, pred,
      absl::StrCat("compare(", x.name, ", ", zero.name, "), direction=GT"));
  const Value leak =
      Emit2(g, c, shape, "multiply", x,
            Splat(g, c, shape, IsFloatingPoint(shape.type) ? "0.125" : "0"));
  g.Use(c, positive);
  g.Use(c, x);
  g.Use(c, leak);
  return g.Emit(c, shape,
                absl::StrCat("select(", positive.name, ", ", x.name, ", ",
                             leak.name, ")"));
}

// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))): GELU, tanh form.
Value Gelu(Generator& g, Comp& c, const Value& x) {
  ChoiceSource& ch = g.ch();
  const ArrayShape s = StepShape(ch, x, x.shape.type);
  const Value x2 = Emit2(g, c, s, "multiply", x, x);
  const Value x3 = Emit2(g, c, s, "multiply", x2, x);
  const Value cubic =
      Emit2(g, c, s, "multiply", x3, Splat(g, c, s, "0.044715"));
  const Value inner = Emit2(g, c, s, "add", x, cubic);
  const Value scaled =
      Emit2(g, c, s, "multiply", inner, Splat(g, c, s, "0.7978845608"));
  g.Use(c, scaled);
  const Value t =
      g.Emit(c, s, absl::StrCat("tanh(", scaled.name, ")"), Of(scaled));
  const Value one_plus = Emit2(g, c, s, "add", t, Splat(g, c, s, "1"));
  const Value half = Emit2(g, c, s, "multiply", x, Splat(g, c, s, "0.5"));
  return Emit2(g, c, s, "multiply", half, one_plus);
}

// x * logistic(x): SiLU.
Value Silu(Generator& g, Comp& c, const Value& x) {
  ChoiceSource& ch = g.ch();
  const ArrayShape s = StepShape(ch, x, x.shape.type);
  g.Use(c, x);
  const Value sigmoid =
      g.Emit(c, s, absl::StrCat("logistic(", x.name, ")"), Of(x));
  return ch.Chance(70) ? Emit2(g, c, s, "multiply", x, sigmoid)
                       : Emit2(g, c, s, "multiply", sigmoid, x);
}

Value Scale(Generator& g, Comp& c, const Value& x) {
  ChoiceSource& ch = g.ch();
  const ArrayShape s = StepShape(ch, x, x.shape.type);
  const std::string scale =
      IsFloatingPoint(s.type)
          ? ch.Pick(std::vector<std::string>{"0.125", "2", "-0.5", "3"})
          : ch.Pick(std::vector<std::string>{"2", "-1", "3"});
  return Emit2(g, c, s, "multiply", x, Splat(g, c, s, scale));
}

// To another float: bf16 or f16 for the next layer, f32 (an s32 result
// too).
Value ConvertResult(Generator& g, Comp& c, const Value& x) {
  ChoiceSource& ch = g.ch();
  static const std::vector<PrimitiveType> kFloats = {T::kBF16, T::kF16,
                                                     T::kF32};
  PrimitiveType to = ch.Pick(kFloats);
  if (to == x.shape.type) to = T::kBF16 == to ? T::kF16 : T::kBF16;
  g.Use(c, x);
  return g.Emit(c, StepShape(ch, x, to), absl::StrCat("convert(", x.name, ")"),
                ConvertTraits(x, to));
}

// x + r for an array r of the same shape (a residual): a fusion operand.
Value Residual(Generator& g, Comp& c, const Value& x) {
  ChoiceSource& ch = g.ch();
  const ArrayShape s = StepShape(ch, x, x.shape.type);
  const Value r = g.AddParameter(c, DrawShape(ch, s.type, s.dims));
  return Emit2(g, c, s, "add", r, x);
}

Value EpilogueStep(Generator& g, Comp& c, const Value& x) {
  // bias, relu, gelu, silu, scale, convert, residual, leaky relu / relu6
  static const std::vector<int> kFloatSteps = {4, 3, 2, 2, 2, 2, 1, 1};
  static const std::vector<int> kIntSteps = {4, 3, 0, 0, 2, 2, 1, 1};
  const bool is_float = IsFloatingPoint(x.shape.type);
  switch (g.ch().Weighted(is_float ? kFloatSteps : kIntSteps)) {
    case 0:
      return BiasAdd(g, c, x);
    case 1:
      return Relu(g, c, x);
    case 2:
      return Gelu(g, c, x);
    case 3:
      return Silu(g, c, x);
    case 4:
      return Scale(g, c, x);
    case 5:
      return ConvertResult(g, c, x);
    case 6:
      return Residual(g, c, x);
    default:
      return LeakyRelu(g, c, x);
  }
}

// ---------------------------------------------------------- second user

// (a, b) -> op(a, b) over scalars of `type`.
std::string ScalarReducer(Generator& g, const Comp& caller, PrimitiveType type,
                          const char* op) {
  Comp r = g.NewComputation(op, caller);
  ArrayShape s;
  s.type = type;
  const Value a = g.AddParameter(r, s);
  const Value b = g.AddParameter(r, s);
  const Value out =
      g.Emit(r, s, absl::StrCat(op, "(", a.name, ", ", b.name, ")"));
  return g.Finish(r, out.name);
}

// max or sum of `x` over its last dimension. Sums only where the gpu's
// order of summation cannot show: in f32 and s32 (a narrow float sum
// rounds at every step).
void ReduceLast(Generator& g, Comp& c, const Value& x) {
  ChoiceSource& ch = g.ch();
  const PrimitiveType type = x.shape.type;
  const bool sum = ch.Chance(50) && !IsNarrowFloat(type);
  const Value init = g.ScalarConstant(
      c, type, sum ? "0" : (IsFloatingPoint(type) ? "-inf" : "-2147483648"));
  const std::string reducer =
      ScalarReducer(g, c, type, sum ? "add" : "maximum");
  std::vector<int64_t> dims, kept = x.shape.dims;
  if (!kept.empty()) {
    dims.push_back(x.shape.rank() - 1);
    kept.pop_back();
  }
  g.Use(c, x);
  g.Use(c, init);
  g.Emit(c, DrawShape(ch, type, kept),
         absl::StrCat("reduce(", x.name, ", ", init.name, "), dimensions=",
                      ListText(dims), ", to_apply=", reducer));
}

// The first half of `x` along dimension 0.
void SliceHalf(Generator& g, Comp& c, const Value& x) {
  std::vector<int64_t> dims = x.shape.dims;
  std::string ranges;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d == 0) dims[0] = (dims[0] + 1) / 2;
    absl::StrAppend(&ranges, d ? ", " : "", "[0:", dims[d], "]");
  }
  g.Use(c, x);
  g.Emit(c, DrawShape(g.ch(), x.shape.type, dims),
         absl::StrCat("slice(", x.name, "), slice={", ranges, "}"), Of(x));
}

void TransposeAll(Generator& g, Comp& c, const Value& x) {
  const std::vector<int64_t> perm = Permutation(g.ch(), x.shape.rank());
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x.shape.dims[p]);
  g.Use(c, x);
  g.Emit(c, DrawShape(g.ch(), x.shape.type, dims),
         absl::StrCat("transpose(", x.name, "), dimensions=", ListText(perm)),
         Of(x));
}

// A user of `x` outside any epilogue: a max or sum over its last
// dimension, a transpose, a slice; or an elementwise one, which competes
// with the epilogue. Or the module's root tuple.
void SecondUser(Generator& g, Comp& c, const Value& x) {
  ChoiceSource& ch = g.ch();
  const int64_t rank = x.shape.rank();
  switch (ch.Weighted({3, 3, 2, 2, 2})) {
    case 0:
      // The root takes the latest values nothing uses: count x as unused.
      for (size_t i = 0; i < c.pool.size(); ++i) {
        if (c.pool[i].name == x.name) c.uses[i] = 0;
      }
      return;
    case 1:
      return ReduceLast(g, c, x);
    case 2:
      if (rank >= 2) return TransposeAll(g, c, x);
      [[fallthrough]];
    case 3:
      if (rank >= 1) return SliceHalf(g, c, x);
      [[fallthrough]];
    default:
      g.Use(c, x);
      g.Emit(c, StepShape(ch, x, x.shape.type),
             absl::StrCat(ch.Chance(50) ? "negate(" : "abs(", x.name, ")"),
             Of(x));
  }
}

bool IsParameter(const Value& v) { return v.name.rfind("%parameter.", 0) == 0; }

// A pattern inside a called computation: the fusion pass works on every
// sequential computation, and without the simplification pipeline the
// call stays. The callee returns its latest unused values; the caller
// passes it fresh parameters.
void InCall(Generator& g, Comp& caller) {
  Comp f = g.NewComputation("gemm", caller);
  g.DotFusion(f);
  std::vector<ArrayShape> results;
  std::vector<std::string> names, texts;
  for (size_t i = f.pool.size(); i-- > 0 && results.size() < 3;) {
    if (f.uses[i] != 0 || IsParameter(f.pool[i])) continue;
    results.push_back(f.pool[i].shape);
    names.push_back(f.pool[i].name);
    texts.push_back(ShapeText(f.pool[i].shape));
  }
  std::string root = names.front();
  if (names.size() > 1) {
    root = g.EmitRaw(f, absl::StrCat("(", absl::StrJoin(texts, ", "), ")"),
                     absl::StrCat("tuple(", absl::StrJoin(names, ", "), ")"));
  }
  std::vector<std::string> arguments;
  for (const Value& v : f.pool) {
    if (!IsParameter(v)) continue;
    const Value p = g.AddParameter(caller, v.shape);
    g.Use(caller, p);
    arguments.push_back(p.name);
  }
  const std::string callee = g.Finish(f, root);
  g.EmitResults(caller, results, names.size() > 1,
                absl::StrCat("call(", absl::StrJoin(arguments, ", "),
                             "), to_apply=", callee),
                Traits());
}

}  // namespace

bool Generator::DotFusion(Comp& c) {
  if (c.is_entry && ch_.Chance(12)) {
    InCall(*this, c);
    return true;
  }
  const GemmTypes types = DrawTypes(ch_);
  const GemmDims dims = DrawDims(ch_, options_.max_elements);
  const GemmOperandDims lhs_dims = Arrange(ch_, dims, /*rhs=*/false);
  const GemmOperandDims rhs_dims = Arrange(ch_, dims, /*rhs=*/true);
  const Value lhs = Operand(*this, c, types.lhs, lhs_dims.dims, 0);
  const Value rhs = Operand(*this, c, types.rhs, rhs_dims.dims, 0);
  Use(c, lhs);
  Use(c, rhs);
  std::string text = absl::StrCat("dot(", lhs.name, ", ", rhs.name, ")");
  auto attribute = [&](const char* name, const std::vector<int64_t>& list) {
    if (!list.empty()) absl::StrAppend(&text, ", ", name, "=", ListText(list));
  };
  attribute("lhs_batch_dims", lhs_dims.batch);
  attribute("lhs_contracting_dims", lhs_dims.contracting);
  attribute("rhs_batch_dims", rhs_dims.batch);
  attribute("rhs_contracting_dims", rhs_dims.contracting);
  std::vector<int64_t> out = dims.batch;
  out.insert(out.end(), lhs_dims.free_sizes.begin(), lhs_dims.free_sizes.end());
  out.insert(out.end(), rhs_dims.free_sizes.begin(), rhs_dims.free_sizes.end());
  std::vector<Value> chain = {Emit(c, DrawShape(ch_, types.out, out), text)};
  const int64_t steps = ch_.Weighted({2, 3, 3, 2, 1});
  for (int64_t i = 0; i < steps; ++i) {
    chain.push_back(EpilogueStep(*this, c, chain.back()));
  }
  // The dot's value itself more often than any one later step: the pass
  // must then keep it as well as the epilogue's.
  if (ch_.Chance(45)) {
    SecondUser(*this, c,
               ch_.Chance(50) ? chain.front() : chain[ch_.Below(chain.size())]);
  }
  return true;
}

}  // namespace xlite::fuzz
