// Data movement opcodes for the random module generator: broadcast,
// reshape, transpose, slices, dynamic slices, pad, concatenate, reverse,
// copy and a tuple round trip. Moving clean values keeps them clean.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/fuzz/random_module_internal.h"

namespace xlite::fuzz {
std::vector<int64_t> Permutation(ChoiceSource& ch, int64_t n) {
  std::vector<int64_t> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[ch.Below(i + 1)]);
  return p;
}

std::vector<int64_t> Subset(ChoiceSource& ch, int64_t n) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    if (ch.Chance(50)) out.push_back(i);
  }
  return out;
}

namespace {

// Dimensions with `elements` elements: its prime factors spread over a
// random rank, with size-1 dimensions sprinkled in.
std::vector<int64_t> Factorize(ChoiceSource& ch, int64_t elements) {
  std::vector<int64_t> dims;
  if (elements == 0) {
    dims = {0};
    for (int64_t extra = ch.Below(3); extra > 0; --extra) {
      dims.push_back(ch.Range(0, 3));
    }
  } else {
    std::vector<int64_t> primes;
    int64_t n = elements;
    for (int64_t p = 2; p * p <= n; ++p) {
      while (n % p == 0) {
        primes.push_back(p);
        n /= p;
      }
    }
    if (n > 1) primes.push_back(n);
    const int64_t rank =
        std::min<int64_t>(4, std::max<int64_t>(primes.empty() ? 0 : 1,
                                               ch.Range(0, 3)));
    dims.assign(rank, 1);
    for (int64_t p : primes) dims[ch.Below(rank)] *= p;
    if (dims.size() < 4 && ch.Chance(25)) dims.push_back(1);
  }
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i > 0; --i) {
    std::swap(dims[i], dims[ch.Below(i + 1)]);
  }
  return dims;
}

}  // namespace

bool Generator::Broadcast(Comp& c) {
  const Value x = Any(c);
  const int64_t rank = ch_.Range(x.shape.rank(), 4);
  // Where each operand dimension goes: increasing positions.
  std::vector<int64_t> positions = Permutation(ch_, rank);
  positions.resize(x.shape.rank());
  std::sort(positions.begin(), positions.end());
  std::vector<int64_t> dims(rank, 0);
  for (int64_t i = 0; i < rank; ++i) dims[i] = RandomDimSize();
  for (int64_t i = 0; i < x.shape.rank(); ++i) {
    dims[positions[i]] = x.shape.dims[i];
  }
  if (Product(dims) > options_.max_elements) return false;
  Use(c, x);
  Emit(c, WithLayout(x.shape.type, dims),
       absl::StrCat("broadcast(", x.name, "), dimensions=",
                    ListText(positions)),
       Of(x));
  return true;
}

bool Generator::Reshape(Comp& c) {
  const Value x = Any(c);
  Use(c, x);
  Emit(c, WithLayout(x.shape.type, Factorize(ch_, x.shape.elements())),
       absl::StrCat("reshape(", x.name, ")"), Of(x));
  return true;
}

// A fresh operand for a tiled transpose: rank 2 or 3, every dimension at
// least 16, within max_elements; nullopt when that bound is below 256.
std::optional<Value> Generator::TileSizedOperand(Comp& c) {
  static const std::vector<int64_t> kSides = {16, 17, 31, 33, 40, 64, 67, 100};
  if (options_.max_elements < 16 * 16) return std::nullopt;
  std::vector<int64_t> dims;
  const int64_t rank = ch_.Range(2, 3);
  for (int64_t i = 0; i < rank; ++i) dims.push_back(ch_.Pick(kSides));
  while (Product(dims) > options_.max_elements && dims.size() > 2) {
    dims.erase(dims.begin());
  }
  // 16x16 fits: halving the largest side (down to 16) ends.
  while (Product(dims) > options_.max_elements) {
    int64_t& largest = *std::max_element(dims.begin(), dims.end());
    largest = std::max<int64_t>(16, largest / 2);
  }
  return Get(c, RandomType(kAnyClass), dims);
}

bool Generator::Transpose(Comp& c) {
  std::optional<Value> tile_sized;
  if (options_.tile_sized_transposes) tile_sized = TileSizedOperand(c);
  const Value x = tile_sized.has_value() ? *tile_sized : Any(c);
  const std::vector<int64_t> perm = Permutation(ch_, x.shape.rank());
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x.shape.dims[p]);
  Use(c, x);
  Emit(c, WithLayout(x.shape.type, dims),
       absl::StrCat("transpose(", x.name, "), dimensions=", ListText(perm)),
       Of(x));
  return true;
}

bool Generator::Slice(Comp& c) {
  const Value x = Any(c);
  std::vector<std::string> ranges;
  std::vector<int64_t> dims;
  for (int64_t d : x.shape.dims) {
    const int64_t start = ch_.Range(0, d);
    const int64_t limit = ch_.Range(start, d);
    const int64_t stride = ch_.Chance(30) ? ch_.Range(2, 3) : 1;
    ranges.push_back(stride == 1
                         ? absl::StrCat("[", start, ":", limit, "]")
                         : absl::StrCat("[", start, ":", limit, ":", stride,
                                        "]"));
    dims.push_back((limit - start + stride - 1) / stride);
  }
  Use(c, x);
  Emit(c, WithLayout(x.shape.type, dims),
       absl::StrCat("slice(", x.name, "), slice={",
                    absl::StrJoin(ranges, ", "), "}"),
       Of(x));
  return true;
}

bool Generator::DynamicSlice(Comp& c) {
  const Value x = Any(c);
  if (x.shape.rank() == 0) return false;
  const PrimitiveType index_type = RandomType(kIntClass);
  std::vector<int64_t> sizes;
  std::vector<std::string> operands = {x.name};
  for (int64_t d : x.shape.dims) {
    sizes.push_back(ch_.Range(0, d));
    const Value i = IndexScalar(c, index_type);
    Use(c, i);
    operands.push_back(i.name);
  }
  Use(c, x);
  Emit(c, WithLayout(x.shape.type, sizes),
       absl::StrCat("dynamic-slice(", absl::StrJoin(operands, ", "),
                    "), dynamic_slice_sizes=", ListText(sizes)),
       Of(x));
  return true;
}

bool Generator::DynamicUpdateSlice(Comp& c) {
  const Value x = Any(c);
  if (x.shape.rank() == 0) return false;
  std::vector<int64_t> sizes;
  for (int64_t d : x.shape.dims) sizes.push_back(ch_.Range(0, d));
  const Value update = Get(c, x.shape.type, sizes);
  const PrimitiveType index_type = RandomType(kIntClass);
  std::vector<std::string> operands = {x.name, update.name};
  for (int64_t i = 0; i < x.shape.rank(); ++i) {
    const Value index = IndexScalar(c, index_type);
    Use(c, index);
    operands.push_back(index.name);
  }
  Use(c, x);
  Use(c, update);
  Emit(c, WithLayout(x.shape.type, x.shape.dims),
       absl::StrCat("dynamic-update-slice(", absl::StrJoin(operands, ", "),
                    ")"),
       Of(x) & Of(update));
  return true;
}

bool Generator::Pad(Comp& c) {
  const Value x = Any(c);
  if (x.shape.rank() == 0) return false;
  std::vector<std::string> config;
  std::vector<int64_t> dims;
  for (int64_t d : x.shape.dims) {
    const int64_t interior = ch_.Chance(30) ? ch_.Range(1, 2) : 0;
    const int64_t inner = d == 0 ? 0 : d + (d - 1) * interior;
    int64_t lo = ch_.Range(-2, 3), hi = ch_.Range(-2, 3);
    if (lo + hi + inner < 0) lo = hi = 0;
    config.push_back(interior == 0
                         ? absl::StrCat(lo, "_", hi)
                         : absl::StrCat(lo, "_", hi, "_", interior));
    dims.push_back(lo + hi + inner);
  }
  if (Product(dims) > options_.max_elements) return false;
  const Value value = Get(c, x.shape.type, {});
  Use(c, x);
  Use(c, value);
  Emit(c, WithLayout(x.shape.type, dims),
       absl::StrCat("pad(", x.name, ", ", value.name,
                    "), padding=", absl::StrJoin(config, "x")),
       Of(x) & Of(value));
  return true;
}

bool Generator::Concatenate(Comp& c) {
  const Value x = Any(c);
  if (x.shape.rank() == 0) return false;
  const int64_t dim = ch_.Below(x.shape.rank());
  std::vector<std::string> operands = {x.name};
  std::vector<int64_t> dims = x.shape.dims;
  Traits traits = Of(x);
  Use(c, x);
  for (int64_t k = ch_.Range(1, 3); k > 0; --k) {
    std::vector<int64_t> part = x.shape.dims;
    part[dim] = RandomDimSize();
    const Value y = Get(c, x.shape.type, part);
    Use(c, y);
    operands.push_back(y.name);
    dims[dim] += part[dim];
    traits = traits & Of(y);
  }
  if (Product(dims) > options_.max_elements) return false;
  Emit(c, WithLayout(x.shape.type, dims),
       absl::StrCat("concatenate(", absl::StrJoin(operands, ", "),
                    "), dimensions={", dim, "}"),
       traits);
  return true;
}

bool Generator::Reverse(Comp& c) {
  const Value x = Any(c);
  Use(c, x);
  Emit(c, WithLayout(x.shape.type, x.shape.dims),
       absl::StrCat("reverse(", x.name, "), dimensions=",
                    ListText(Subset(ch_, x.shape.rank()))),
       Of(x));
  return true;
}

bool Generator::Copy(Comp& c) {
  const Value x = Any(c);
  Use(c, x);
  Emit(c, WithLayout(x.shape.type, x.shape.dims),
       absl::StrCat("copy(", x.name, ")"), Of(x));
  return true;
}

bool Generator::TupleRoundTrip(Comp& c) {
  const Value x = Any(c);
  const Value y = Any(c);
  Use(c, x);
  Use(c, y);
  const std::string tuple = EmitRaw(
      c, absl::StrCat("(", ShapeText(x.shape), ", ", ShapeText(y.shape), ")"),
      absl::StrCat("tuple(", x.name, ", ", y.name, ")"));
  const bool second = ch_.Chance(50);
  GetTupleElement(c, tuple, second ? y.shape : x.shape, second ? 1 : 0,
                  second ? Of(y) : Of(x));
  return true;
}

}  // namespace xlite::fuzz
