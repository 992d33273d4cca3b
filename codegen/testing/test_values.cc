#include "codegen/testing/test_values.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hlo/ir/float_types.h"

namespace xlite::codegen::testing {
namespace {

// An element's value as raw storage: bits of the type, or for complex
// types the two components' bits.
struct Element {
  uint64_t re = 0;
  uint64_t im = 0;
};

uint64_t Mask(PrimitiveType type) {
  const int bits = BitWidth(type);
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

uint64_t F32Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

uint64_t F64Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// Interesting real values for every float type (converted to each).
std::vector<double> EdgeDoubles() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0,
                           -0.0,
                           1,
                           -1,
                           0.5,
                           -0.5,
                           1.5,
                           -1.5,
                           2.5,
                           -2.5,
                           3.5,
                           0.25,
                           0.75,
                           0.1,
                           -0.1,
                           2,
                           3,
                           -3,
                           6,
                           7,
                           -6.5,
                           10,
                           100,
                           1e-3,
                           1e-8,
                           1e10,
                           1e30,
                           1e38,
                           3.4028234663852886e38,
                           -3.4028234663852886e38,
                           3.5e38,
                           1e300,
                           -1e300,
                           1.1754943508222875e-38,
                           -1.1754943508222875e-38,
                           1.401298464324817e-45,
                           -1.401298464324817e-45,
                           1e-40,
                           5e-324,
                           -5e-324,
                           2.2250738585072014e-308,
                           inf,
                           -inf,
                           std::ldexp(1.0, 31),
                           -std::ldexp(1.0, 31),
                           std::ldexp(1.0, 31) - 128,
                           std::ldexp(1.0, 32),
                           std::ldexp(1.0, 63),
                           -std::ldexp(1.0, 63),
                           std::ldexp(1.0, 63) - 1024,
                           std::ldexp(1.0, 64),
                           65504,
                           65519.99,
                           65520,
                           448,
                           464,
                           480,
                           57344,
                           61440,
                           240,
                           256,
                           255.5,
                           -128.5,
                           127.5,
                           32767.5,
                           -32768.5,
                           std::ldexp(1.0, -14),
                           std::ldexp(1.0, -24),
                           std::ldexp(1.0, -25),
                           3 * std::ldexp(1.0, -26),
                           std::ldexp(1.5, -126),
                           std::ldexp(1.0, -127),
                           std::ldexp(1.5, -127),
                           std::ldexp(1.0, -128),
                           M_PI,
                           M_E,
                           0.999,
                           -0.999,
                           1.0000001,
                           88.7,
                           -87.3,
                           709,
                           710,
                           -745,
                           4,
                           5,
                           8,
                           16,
                           0.125,
                           0.375,
                           1.25,
                           1.75};
  return v;
}

std::vector<Element> FloatEdges(PrimitiveType type) {
  std::vector<Element> out;
  if (type == PrimitiveType::kF64) {
    for (double d : EdgeDoubles()) out.push_back({F64Bits(d)});
    for (uint64_t b :
         {0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull,
          0x7FF8000000001234ull, 0xFFF4000000000000ull, 0x7FEFFFFFFFFFFFFFull,
          0x000FFFFFFFFFFFFFull, 0x0000000000000001ull}) {
      out.push_back({b});
    }
    return out;
  }
  for (double d : EdgeDoubles()) {
    out.push_back({type == PrimitiveType::kF32 ? F32Bits(static_cast<float>(d))
                                               : EncodeFromF64(type, d)});
  }
  if (type == PrimitiveType::kF32) {
    for (uint64_t b : {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7FC01234u,
                       0x7FBFFFFFu, 0xFF800001u, 0x00000001u, 0x007FFFFFu,
                       0x00400000u, 0x00400001u, 0x3F7FFFFFu}) {
      out.push_back({b});
    }
  } else {
    for (uint64_t b : {0x0u,    0x8000u, 0x1u,    0x8001u, 0x3FFu,  0x400u,
                       0x7BFFu, 0x7C00u, 0xFC00u, 0x7C01u, 0x7E00u, 0xFE00u,
                       0x7F80u, 0xFF80u, 0x7F81u, 0x7FC0u, 0x7Fu,   0x80u,
                       0x7F7Fu, 0x3C00u, 0x3F80u, 0xBF80u, 0xBC00u, 0xFFFFu}) {
      out.push_back({b & Mask(type)});
    }
  }
  return out;
}

std::vector<Element> IntEdges(PrimitiveType type) {
  const int w = BitWidth(type);
  const bool is_signed = IsSignedInteger(type);
  std::vector<int64_t> values = {
      0,  1,  2,  3,  -1, -2, -3, w - 1, w,   w + 1, 2 * w, 5,   7,  8,
      13, 16, 31, 32, 33, 63, 64, 65,    100, -100,  127,   128, 255};
  const uint64_t mask = Mask(type);
  std::vector<Element> out;
  for (int64_t v : values) out.push_back({static_cast<uint64_t>(v) & mask});
  // min, min + 1, max, max - 1.
  const uint64_t top = uint64_t{1} << (w - 1);
  const uint64_t min = is_signed ? top : 0;
  const uint64_t max = is_signed ? top - 1 : mask;
  for (uint64_t v : {min, min + 1, max, max - 1}) out.push_back({v & mask});
  return out;
}

std::vector<Element> Edges(PrimitiveType type) {
  if (type == PrimitiveType::kPred) return {{0}, {1}};
  if (IsInteger(type)) return IntEdges(type);
  if (IsComplex(type)) {
    const PrimitiveType part = ComplexComponentType(type);
    std::vector<Element> parts = FloatEdges(part);
    // A subset of component values in every combination.
    std::vector<uint64_t> picks;
    for (size_t i = 0; i < parts.size(); i += 5) picks.push_back(parts[i].re);
    std::vector<Element> out;
    for (uint64_t re : picks) {
      for (uint64_t im : picks) out.push_back({re, im});
    }
    return out;
  }
  return FloatEdges(type);
}

Element RandomElement(PrimitiveType type, std::mt19937_64& rng) {
  const PrimitiveType part = ComplexComponentType(type);
  auto one = [&]() -> uint64_t {
    if (type == PrimitiveType::kPred) return rng() & 1;
    const uint64_t raw = rng() & Mask(part);
    if (rng() % 2 == 0) return raw;
    if (IsInteger(part)) {
      return static_cast<uint64_t>(static_cast<int64_t>(rng() % 41) - 20) &
             Mask(part);
    }
    // A moderate value: m * 2^e with a small exponent.
    const double m = std::ldexp(static_cast<double>(rng() % (1 << 20)), -20);
    const int e = static_cast<int>(rng() % 21) - 10;
    double v = std::ldexp(1 + m, e) * ((rng() & 1) ? -1 : 1);
    if (part == PrimitiveType::kF64) return F64Bits(v);
    if (part == PrimitiveType::kF32) return F32Bits(static_cast<float>(v));
    return EncodeFromF64(part, v);
  };
  Element e;
  e.re = one();
  if (IsComplex(type)) e.im = one();
  return e;
}

Literal FromElements(PrimitiveType type, const std::vector<Element>& values) {
  Literal out(Shape(type, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) {
    if (IsComplex(type)) {
      const int half = StorageBytes(type) / 2;
      uint8_t* at = out.mutable_data().data() + i * 2 * half;
      std::memcpy(at, &values[i].re, half);
      std::memcpy(at + half, &values[i].im, half);
    } else {
      out.SetBits(i, values[i].re);
    }
  }
  return out;
}

std::vector<Element> EdgeAndRandomElements(PrimitiveType type, int64_t count,
                                           uint64_t seed) {
  std::vector<Element> values = Edges(type);
  std::mt19937_64 rng(seed);
  while (static_cast<int64_t>(values.size()) < count) {
    values.push_back(RandomElement(type, rng));
  }
  values.resize(count);
  return values;
}

}  // namespace

Literal AllBitPatterns(PrimitiveType type) {
  std::vector<Element> values;
  const uint64_t n =
      type == PrimitiveType::kPred ? 2 : uint64_t{1} << BitWidth(type);
  for (uint64_t v = 0; v < n; ++v) values.push_back({v});
  return FromElements(type, values);
}

Literal EdgeAndRandom(PrimitiveType type, int64_t count, uint64_t seed) {
  return FromElements(type, EdgeAndRandomElements(type, count, seed));
}

Literal UnaryInputs(PrimitiveType type, int64_t count, uint64_t seed) {
  if (!IsComplex(type) && BitWidth(type) <= 16) return AllBitPatterns(type);
  return EdgeAndRandom(type, count, seed);
}

std::pair<Literal, Literal> OperandPairs(PrimitiveType type,
                                         int64_t random_pairs, uint64_t seed) {
  std::vector<Element> lhs, rhs;
  std::vector<Element> base;
  if (type == PrimitiveType::kPred) {
    base = {{0}, {1}};
  } else if (!IsComplex(type) && BitWidth(type) <= 8) {
    for (uint64_t v = 0; v < (uint64_t{1} << BitWidth(type)); ++v) {
      base.push_back({v});
    }
  } else {
    base = Edges(type);
  }
  for (const Element& x : base) {
    for (const Element& y : base) {
      lhs.push_back(x);
      rhs.push_back(y);
    }
  }
  if (IsComplex(type) || BitWidth(type) > 8) {
    std::mt19937_64 rng(seed);
    for (int64_t i = 0; i < random_pairs; ++i) {
      lhs.push_back(RandomElement(type, rng));
      rhs.push_back(RandomElement(type, rng));
    }
  }
  return {FromElements(type, lhs), FromElements(type, rhs)};
}

}  // namespace xlite::codegen::testing
