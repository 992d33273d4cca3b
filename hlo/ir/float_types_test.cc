// Bit-exact check of every narrow float conversion against ml_dtypes, via the
// chunk hashes in tests/oracles/float_oracle.txt (see float_oracle.py).
#include "hlo/ir/float_types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace xlite {
namespace {

constexpr uint64_t kChunk = 65536;
constexpr uint32_t kLow[] = {0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001, 0x2000,
                             0x3000, 0x7FFF, 0x8000, 0x8001, 0xC000, 0xFFFF};

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::vector<uint64_t> ChunkHashes(const std::vector<uint64_t>& values) {
  std::vector<uint64_t> out;
  for (uint64_t start = 0; start < values.size(); start += kChunk) {
    uint64_t h = 0;
    for (uint64_t i = 0; i < kChunk && start + i < values.size(); ++i) {
      h += SplitMix64(values[start + i] ^ (i << 32));
    }
    out.push_back(h);
  }
  return out;
}

std::vector<float> F32Sweep() {
  std::vector<float> out;
  out.reserve((1u << 16) * std::size(kLow));
  for (uint32_t hi = 0; hi < (1u << 16); ++hi) {
    for (uint32_t lo : kLow) {
      uint32_t bits = (hi << 16) | lo;
      float f;
      std::memcpy(&f, &bits, sizeof f);
      out.push_back(f);
    }
  }
  return out;
}

std::vector<double> F64Sweep() {
  std::vector<double> out;
  for (float f : F32Sweep()) {
    double x = f;
    out.push_back(x);
    out.push_back(std::nextafter(x, HUGE_VAL));
    out.push_back(std::nextafter(x, -HUGE_VAL));
  }
  return out;
}

using Oracle = std::map<std::string, std::vector<uint64_t>>;  // "seq type"

Oracle LoadOracle() {
  Oracle oracle;
  std::ifstream in("tests/oracles/float_oracle.txt");
  EXPECT_TRUE(in.good()) << "missing tests/oracles/float_oracle.txt";
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string seq, type, hex;
    fields >> seq >> type;
    std::vector<uint64_t>& hashes = oracle[seq + " " + type];
    while (fields >> hex) hashes.push_back(std::stoull(hex, nullptr, 16));
  }
  return oracle;
}

uint64_t F32Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

uint64_t F64Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

void ExpectHashes(const Oracle& oracle, const std::string& key,
                  const std::vector<uint64_t>& values,
                  const std::function<std::string(uint64_t)>& describe) {
  auto it = oracle.find(key);
  ASSERT_NE(it, oracle.end()) << "oracle lacks " << key;
  std::vector<uint64_t> got = ChunkHashes(values);
  ASSERT_EQ(got.size(), it->second.size()) << key;
  for (size_t c = 0; c < got.size(); ++c) {
    EXPECT_EQ(got[c], it->second[c])
        << key << ": chunk " << c << " (elements " << c * kChunk << ".."
        << (c + 1) * kChunk - 1
        << ") differs from ml_dtypes; first element: " << describe(c * kChunk);
  }
}

class FloatOracleTest : public ::testing::TestWithParam<PrimitiveType> {
 protected:
  static void SetUpTestSuite() {
    oracle_ = new Oracle(LoadOracle());
    sweep32_ = new std::vector<float>(F32Sweep());
    sweep64_ = new std::vector<double>(F64Sweep());
  }
  static Oracle* oracle_;
  static std::vector<float>* sweep32_;
  static std::vector<double>* sweep64_;
};
Oracle* FloatOracleTest::oracle_;
std::vector<float>* FloatOracleTest::sweep32_;
std::vector<double>* FloatOracleTest::sweep64_;

TEST_P(FloatOracleTest, DecodeEveryBitPattern) {
  const PrimitiveType type = GetParam();
  const std::string name(PrimitiveTypeName(type));
  const uint64_t count = uint64_t{1} << BitWidth(type);
  std::vector<uint64_t> d32, d64;
  for (uint64_t bits = 0; bits < count; ++bits) {
    d32.push_back(F32Bits(DecodeToF32(type, bits)));
    d64.push_back(F64Bits(DecodeToF64(type, bits)));
  }
  auto describe = [](uint64_t i) { return std::to_string(i); };
  ExpectHashes(*oracle_, "decode32 " + name, d32, describe);
  ExpectHashes(*oracle_, "decode64 " + name, d64, describe);
}

TEST_P(FloatOracleTest, EncodeF32Sweep) {
  const PrimitiveType type = GetParam();
  std::vector<uint64_t> out;
  out.reserve(sweep32_->size());
  for (float f : *sweep32_) out.push_back(EncodeFromF32(type, f));
  ExpectHashes(*oracle_, "encode32 " + std::string(PrimitiveTypeName(type)),
               out, [&](uint64_t i) {
                 std::ostringstream s;
                 s << std::hexfloat << (*sweep32_)[i] << " -> " << out[i];
                 return s.str();
               });
}

TEST_P(FloatOracleTest, EncodeF64Sweep) {
  const PrimitiveType type = GetParam();
  std::vector<uint64_t> out;
  out.reserve(sweep64_->size());
  for (double d : *sweep64_) out.push_back(EncodeFromF64(type, d));
  ExpectHashes(*oracle_, "encode64 " + std::string(PrimitiveTypeName(type)),
               out, [&](uint64_t i) {
                 std::ostringstream s;
                 s << std::hexfloat << (*sweep64_)[i] << " -> " << out[i];
                 return s.str();
               });
}

INSTANTIATE_TEST_SUITE_P(
    AllNarrowTypes, FloatOracleTest,
    ::testing::Values(PrimitiveType::kF16, PrimitiveType::kBF16,
                      PrimitiveType::kF8E5M2, PrimitiveType::kF8E4M3,
                      PrimitiveType::kF8E4M3FN, PrimitiveType::kF8E4M3B11FNUZ,
                      PrimitiveType::kF8E5M2FNUZ, PrimitiveType::kF8E4M3FNUZ,
                      PrimitiveType::kF8E3M4, PrimitiveType::kF8E8M0FNU,
                      PrimitiveType::kF4E2M1FN),
    [](const ::testing::TestParamInfo<PrimitiveType>& info) {
      return std::string(PrimitiveTypeName(info.param));
    });

// The facts block-scaling relies on, spelled out.
// XLA:CPU's convert op from f64 and its f8 arithmetic (see the header).
TEST(FloatTypes, ConvertFromF64AndOpResults) {
  // f16 through f32: -12.84765668 -> f32 -12.8476567 -> f16 -12.84375.
  EXPECT_EQ(ConvertFromF64(PrimitiveType::kF16, -12.84765668),
            EncodeFromF32(PrimitiveType::kF16, -12.84375f));
  EXPECT_EQ(EncodeFromF64(PrimitiveType::kF16, -12.84765668),
            EncodeFromF32(PrimitiveType::kF16, -12.8515625f));
  // f8 once: just below the tie 432 between 416 and 448.
  EXPECT_EQ(ConvertFromF64(PrimitiveType::kF8E4M3FN, 431.99999178020505),
            EncodeFromF32(PrimitiveType::kF8E4M3FN, 416.0f));
  EXPECT_EQ(EncodeFromF64(PrimitiveType::kF8E4M3FN, 431.99999178020505),
            EncodeFromF32(PrimitiveType::kF8E4M3FN, 448.0f));
  EXPECT_EQ(ConvertFromF64(PrimitiveType::kF8E5M2, std::nan("")),
            EncodeFromF32(PrimitiveType::kF8E5M2, std::nanf("")));
  // f8e8m0fnu keeps EncodeFromF32's rule below 2^-126.
  EXPECT_EQ(ConvertFromF64(PrimitiveType::kF8E8M0FNU, std::ldexp(1.5, -127)),
            1u);
  // An operation's result: f8e3m4 through f16, bf16 and f8e8m0fnu once.
  EXPECT_EQ(EncodeOpResultFromF32(PrimitiveType::kF8E3M4, 0.98425f),
            EncodeFromF32(PrimitiveType::kF8E3M4, 1.0f));
  EXPECT_EQ(EncodeFromF32(PrimitiveType::kF8E3M4, 0.98425f),
            EncodeFromF32(PrimitiveType::kF8E3M4, 0.96875f));
  EXPECT_EQ(EncodeOpResultFromF32(PrimitiveType::kBF16, 1.00390625f),
            EncodeFromF32(PrimitiveType::kBF16, 1.00390625f));
  EXPECT_TRUE(ComputesInF16(PrimitiveType::kF4E2M1FN));
  EXPECT_FALSE(ComputesInF16(PrimitiveType::kF8E8M0FNU));
  EXPECT_FALSE(ComputesInF16(PrimitiveType::kF16));
}

TEST(FloatTypes, ScaleTypeFacts) {
  // f8e8m0fnu: 0xFF is NaN, there is no zero, 0x7F is 1.0.
  EXPECT_TRUE(std::isnan(DecodeToF32(PrimitiveType::kF8E8M0FNU, 0xFF)));
  EXPECT_EQ(DecodeToF32(PrimitiveType::kF8E8M0FNU, 0x7F), 1.0f);
  EXPECT_EQ(DecodeToF64(PrimitiveType::kF8E8M0FNU, 0x00),
            std::ldexp(1.0, -127));
  EXPECT_EQ(EncodeFromF32(PrimitiveType::kF8E8M0FNU, 0.0f), 0xFFu);
  // f4e2m1fn: +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}; saturates.
  const float kF4[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(DecodeToF32(PrimitiveType::kF4E2M1FN, i), kF4[i]);
    EXPECT_EQ(DecodeToF32(PrimitiveType::kF4E2M1FN, i | 8), -kF4[i]);
  }
  EXPECT_EQ(EncodeFromF32(PrimitiveType::kF4E2M1FN, 100.0f), 0x7u);
  // f8e4m3fn: max 448, no infinity.
  EXPECT_EQ(DecodeToF32(PrimitiveType::kF8E4M3FN, 0x7E), 448.0f);
  EXPECT_TRUE(std::isnan(DecodeToF32(PrimitiveType::kF8E4M3FN, 0x7F)));
  EXPECT_EQ(EncodeFromF32(PrimitiveType::kF8E4M3FN, 1e6f), 0x7Fu);
  // f8e5m2: max 57344, has infinity.
  EXPECT_EQ(DecodeToF32(PrimitiveType::kF8E5M2, 0x7B), 57344.0f);
  EXPECT_TRUE(std::isinf(DecodeToF32(PrimitiveType::kF8E5M2, 0x7C)));
}

}  // namespace
}  // namespace xlite
