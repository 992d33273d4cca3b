// Reductions for the random module generator: reduce and reduce-window
// (one or two inputs, random reducers, init values that need not be
// identities, XLA:CPU's scan-like windows too), sort with a comparator,
// topk and map.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/fuzz/random_module_internal.h"

namespace xlite::fuzz {
namespace {

using T = PrimitiveType;

// Inputs of a variadic op: `first` plus, sometimes, a second array of the
// same dimensions and a random type.
std::vector<Value> Inputs(Generator& g, Comp& c, const Value& first) {
  std::vector<Value> inputs = {first};
  if (g.ch().Chance(25)) {
    inputs.push_back(
        g.Get(c, g.RandomType(kAnyClass), first.shape.dims));
  }
  return inputs;
}

struct WindowDim {
  int64_t size = 1, stride = 1, lo = 0, hi = 0, base = 1, dilation = 1;
};

int64_t WindowedSize(int64_t input, const WindowDim& w) {
  const int64_t dilated = input == 0 ? 0 : (input - 1) * w.base + 1;
  const int64_t padded = dilated + w.lo + w.hi;
  const int64_t window = (w.size - 1) * w.dilation + 1;
  if (padded < window) return 0;
  return (padded - window) / w.stride + 1;
}

std::string WindowText(const std::vector<WindowDim>& window) {
  std::vector<std::string> size, stride, pad, base, dilation;
  for (const WindowDim& w : window) {
    size.push_back(absl::StrCat(w.size));
    stride.push_back(absl::StrCat(w.stride));
    pad.push_back(absl::StrCat(w.lo, "_", w.hi));
    base.push_back(absl::StrCat(w.base));
    dilation.push_back(absl::StrCat(w.dilation));
  }
  return absl::StrCat(
      "window={size=", absl::StrJoin(size, "x"),
      " stride=", absl::StrJoin(stride, "x"), " pad=", absl::StrJoin(pad, "x"),
      " lhs_dilate=", absl::StrJoin(base, "x"),
      " rhs_dilate=", absl::StrJoin(dilation, "x"), "}");
}

// A window for `dims`: small sizes, strides, paddings and dilations.
std::vector<WindowDim> RandomWindow(ChoiceSource& ch,
                                    const std::vector<int64_t>& dims) {
  std::vector<WindowDim> window;
  for (size_t i = 0; i < dims.size(); ++i) {
    WindowDim w;
    w.size = ch.Range(1, 3);
    w.stride = ch.Chance(30) ? 2 : 1;
    if (ch.Chance(40)) {
      w.lo = ch.Range(0, 2);
      w.hi = ch.Range(0, 2);
    }
    if (ch.Chance(15)) w.base = 2;
    if (ch.Chance(15)) w.dilation = 2;
    window.push_back(w);
  }
  return window;
}

}  // namespace

std::string Generator::EmitReduce(Comp& c, const std::vector<Value>& inputs,
                                  const std::vector<int64_t>& dims,
                                  std::vector<ArrayShape>* shapes) {
  std::vector<std::string> operands;
  std::vector<PrimitiveType> types;
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < inputs[0].shape.rank(); ++d) {
    if (!std::binary_search(dims.begin(), dims.end(), d)) {
      kept.push_back(inputs[0].shape.dims[d]);
    }
  }
  shapes->clear();
  for (const Value& in : inputs) {
    Use(c, in);
    operands.push_back(in.name);
    types.push_back(in.shape.type);
    shapes->push_back(WithLayout(in.shape.type, kept));
  }
  std::vector<std::string> identities;
  const std::string reducer = Reducer(types, &identities);
  for (const Value& init : InitValues(c, types, identities)) {
    Use(c, init);
    operands.push_back(init.name);
  }
  return EmitResults(c, *shapes, false,
                     absl::StrCat("reduce(", absl::StrJoin(operands, ", "),
                                  "), dimensions=", ListText(dims),
                                  ", to_apply=", reducer),
                     false);
}

bool Generator::Reduce(Comp& c) {
  const Value x = Any(c);
  std::vector<ArrayShape> shapes;
  EmitReduce(c, Inputs(*this, c, x), Subset(ch_, x.shape.rank()), &shapes);
  return true;
}

bool Generator::ReduceWindow(Comp& c) {
  Value x = Any(c);
  std::vector<WindowDim> window;
  if (ch_.Chance(15)) {
    // A scan (cumsum and its reverse or exclusive forms), which XLA:CPU
    // rewrites into blocks of 16 when the scanned dimension is longer.
    std::vector<int64_t> dims = RandomDims(1, 2);
    const int64_t d = ch_.Below(dims.size());
    dims[d] = ch_.Range(2, 40);
    while (Product(dims) > options_.max_elements) {
      for (size_t i = 0; i < dims.size(); ++i) {
        if (static_cast<int64_t>(i) != d && dims[i] > 1) dims[i] /= 2;
      }
      if (Product(dims) > options_.max_elements) dims[d] /= 2;
    }
    x = Get(c, RandomType(kNumericClass), dims);
    window.assign(dims.size(), WindowDim());
    WindowDim& w = window[d];
    w.size = dims[d];
    const int64_t pad = std::max<int64_t>(0, dims[d] - (ch_.Chance(25) ? 0 : 1));
    (ch_.Chance(50) ? w.lo : w.hi) = pad;
  } else {
    if (x.shape.rank() == 0) return false;
    window = RandomWindow(ch_, x.shape.dims);
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < x.shape.rank(); ++i) {
    dims.push_back(WindowedSize(x.shape.dims[i], window[i]));
  }
  const std::vector<Value> inputs = Inputs(*this, c, x);
  std::vector<std::string> operands;
  std::vector<PrimitiveType> types;
  std::vector<ArrayShape> shapes;
  for (const Value& in : inputs) {
    Use(c, in);
    operands.push_back(in.name);
    types.push_back(in.shape.type);
    shapes.push_back(WithLayout(in.shape.type, dims));
  }
  std::vector<std::string> identities;
  const std::string reducer = Reducer(types, &identities);
  for (const Value& init : InitValues(c, types, identities)) {
    Use(c, init);
    operands.push_back(init.name);
  }
  EmitResults(c, shapes, false,
              absl::StrCat("reduce-window(", absl::StrJoin(operands, ", "),
                           "), ", WindowText(window), ", to_apply=", reducer),
              false);
  return true;
}

bool Generator::Sort(Comp& c) {
  // The key: no complex numbers (no order), floats only clean (total
  // order; NaN signs decide it).
  std::vector<size_t> keys;
  for (size_t i = 0; i < c.pool.size(); ++i) {
    const Value& v = c.pool[i];
    if (v.shape.rank() >= 1 && v.clean && !IsComplex(v.shape.type)) {
      keys.push_back(i);
    }
  }
  const Value key =
      !keys.empty() && ch_.Chance(80)
          ? c.pool[ch_.Pick(keys)]
          : Get(c, RandomType(kIntClass | kPredClass), RandomDims(1, 3));
  std::vector<Value> operands = {key};
  for (int64_t k = ch_.Range(0, 2); k > 0; --k) {
    operands.push_back(Get(c, RandomType(kAnyClass), key.shape.dims));
  }
  for (int64_t i = static_cast<int64_t>(operands.size()) - 1; i > 0; --i) {
    std::swap(operands[i], operands[ch_.Below(i + 1)]);
  }
  int key_index = 0;
  std::vector<std::string> names;
  std::vector<PrimitiveType> types;
  std::vector<ArrayShape> shapes;
  // One layout for every result (the cpu backend sorts them together).
  const std::vector<int64_t> layout = RandomLayout(key.shape.rank());
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].name == key.name) key_index = i;
    Use(c, operands[i]);
    names.push_back(operands[i].name);
    types.push_back(operands[i].shape.type);
    shapes.push_back(WithLayout(operands[i].shape.type, key.shape.dims));
    shapes.back().minor_to_major = layout;
  }
  // Several operands: ties must keep their order for the others to be
  // determined.
  const bool stable = operands.size() > 1 || ch_.Chance(50);
  const std::string comparator = Comparator(types, key_index, ch_.Chance(50));
  EmitResults(c, shapes, false,
              absl::StrCat("sort(", absl::StrJoin(names, ", "),
                           "), dimensions={", ch_.Below(key.shape.rank()),
                           "}, is_stable=", stable ? "true" : "false",
                           ", to_apply=", comparator),
              key.clean);
  return true;
}

bool Generator::TopK(Comp& c) {
  std::vector<size_t> fits;
  for (size_t i = 0; i < c.pool.size(); ++i) {
    const Value& v = c.pool[i];
    if (v.shape.rank() >= 1 && v.clean &&
        InClass(v.shape.type, kIntClass | kFloatClass)) {
      fits.push_back(i);
    }
  }
  const Value x = !fits.empty() && ch_.Chance(80)
                      ? c.pool[ch_.Pick(fits)]
                      : Get(c, RandomType(kIntClass), RandomDims(1, 3));
  std::vector<int64_t> dims = x.shape.dims;
  dims.back() = ch_.Range(0, dims.back());
  Use(c, x);
  EmitResults(c, {WithLayout(x.shape.type, dims), WithLayout(T::kS32, dims)},
              true,
              absl::StrCat("topk(", x.name, "), k=", dims.back(),
                           ", largest=", ch_.Chance(80) ? "true" : "false"),
              true);
  return true;
}

bool Generator::Map(Comp& c) {
  const Value x = Any(c);
  std::vector<Value> operands = {x};
  for (int64_t k = ch_.Range(0, 2); k > 0; --k) {
    operands.push_back(Get(c, RandomType(kAnyClass), x.shape.dims));
  }
  std::vector<std::string> names;
  std::vector<PrimitiveType> types;
  for (const Value& v : operands) {
    Use(c, v);
    names.push_back(v.name);
    types.push_back(v.shape.type);
  }
  const PrimitiveType result = RandomType(kAnyClass);
  const std::string function = ScalarFunction(types, result);
  std::vector<int64_t> all(x.shape.rank());
  for (int64_t i = 0; i < x.shape.rank(); ++i) all[i] = i;
  Emit(c, WithLayout(result, x.shape.dims),
       absl::StrCat("map(", absl::StrJoin(names, ", "),
                    "), dimensions=", ListText(all), ", to_apply=", function));
  return true;
}

}  // namespace xlite::fuzz
