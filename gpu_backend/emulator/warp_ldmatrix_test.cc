// The emulator's ldmatrix against the PTX ISA's description written out
// per element: matrix j's row r comes from lane 8 j + r's address, and
// lane i gets b16 elements 2 (i % 4) and 2 (i % 4) + 1 of row i / 4 of
// each matrix, the first in the low half of its register. Rows are
// scattered through shared memory (not one after another), lanes past
// 8 count give addresses that must be ignored, and bad addresses are
// errors.
#include "gpu_backend/emulator/warp_ldmatrix.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace xlite::gpu::emulator {
namespace {

struct Warp {
  int32_t regs[32][4] = {};
  int32_t* out[32];
  int64_t rows[32];
  Warp() {
    for (int l = 0; l < 32; ++l) out[l] = regs[l];
  }
};

// Shared memory whose b16 element at byte 2e holds e * 7 + 3 (mod 2^16).
std::vector<uint8_t> Shared(int64_t bytes) {
  std::vector<uint8_t> s(bytes);
  for (int64_t e = 0; 2 * e + 1 < bytes; ++e) {
    const uint16_t v = static_cast<uint16_t>(e * 7 + 3);
    std::memcpy(&s[2 * e], &v, 2);
  }
  return s;
}

uint16_t ElementAt(const std::vector<uint8_t>& s, int64_t byte) {
  uint16_t v;
  std::memcpy(&v, &s[byte], 2);
  return v;
}

TEST(WarpLdMatrix, LanesGetTheirElementsOfEveryMatrix) {
  const std::vector<uint8_t> shared = Shared(8192);
  for (int count : {1, 2, 4}) {
    SCOPED_TRACE(testing::Message() << "x" << count);
    Warp w;
    for (int l = 0; l < 32; ++l) {
      // Row l % 8 of matrix l / 8: scattered, 16-byte aligned.
      w.rows[l] = l < 8 * count ? ((l * 37) % 64) * 80 + 16 * (l % 3) : -5;
    }
    ASSERT_EQ(ComputeWarpLdMatrix(count, w.rows, shared.data(),
                                  static_cast<int64_t>(shared.size()), w.out),
              "");
    for (int i = 0; i < 32; ++i) {
      for (int j = 0; j < count; ++j) {
        const int64_t row = w.rows[8 * j + i / 4];
        const uint32_t got = static_cast<uint32_t>(w.regs[i][j]);
        EXPECT_EQ(got & 0xffff, ElementAt(shared, row + 2 * (2 * (i % 4))))
            << "lane " << i << " matrix " << j;
        EXPECT_EQ(got >> 16, ElementAt(shared, row + 2 * (2 * (i % 4) + 1)))
            << "lane " << i << " matrix " << j;
      }
    }
  }
}

TEST(WarpLdMatrix, BadAddressesAndCountsAreErrors) {
  const std::vector<uint8_t> shared = Shared(1024);
  Warp w;
  for (int l = 0; l < 32; ++l) w.rows[l] = 16 * l;
  EXPECT_EQ(ComputeWarpLdMatrix(4, w.rows, shared.data(), 1024, w.out), "");
  for (int64_t bad :
       {int64_t{8}, int64_t{-16}, int64_t{1024 - 8}, int64_t{1024}}) {
    Warp v = w;
    for (int l = 0; l < 32; ++l) v.out[l] = v.regs[l];
    v.rows[13] = bad;
    EXPECT_NE(ComputeWarpLdMatrix(4, v.rows, shared.data(), 1024, v.out), "")
        << bad;
    // Lane 13 gives no row of an x1.
    EXPECT_EQ(ComputeWarpLdMatrix(1, v.rows, shared.data(), 1024, v.out), "")
        << bad;
  }
  for (int count : {0, 3, 8}) {
    EXPECT_NE(ComputeWarpLdMatrix(count, w.rows, shared.data(), 1024, w.out),
              "")
        << count;
  }
}

}  // namespace
}  // namespace xlite::gpu::emulator
