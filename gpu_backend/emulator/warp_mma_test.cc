// The emulator's mma against single elements placed where the PTX ISA's
// fragment tables put them (quoted per case): A has one 1 at (row, col),
// B a row of ones at K = col, so D is 1 exactly on row `row`. A layout
// slip moves or loses the ones.
#include "gpu_backend/emulator/warp_mma.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace xlite::gpu::emulator {
namespace {

struct Registers {
  int32_t a[32][4] = {}, b[32][4] = {}, c[32][4] = {}, d[32][4] = {};
};

// D's rows that hold a nonzero, as read back through the C/D table:
// element i of lane l is at row l / 4 + 8 (i / 2).
std::vector<int> NonzeroRows(const Registers& r, bool integer) {
  std::vector<int> rows;
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 4; ++i) {
      float f;
      std::memcpy(&f, &r.d[lane][i], 4);
      if (integer ? r.d[lane][i] == 0 : f == 0) continue;
      EXPECT_EQ(integer ? r.d[lane][i] : f, 1);
      rows.push_back(lane / 4 + 8 * (i / 2));
    }
  }
  return rows;
}

void RunMma(int32_t kind, Registers& r) {
  const int32_t *a[32], *b[32], *c[32];
  int32_t* d[32];
  for (int l = 0; l < 32; ++l) {
    a[l] = r.a[l];
    b[l] = r.b[l];
    c[l] = r.c[l];
    d[l] = r.d[l];
  }
  ComputeWarpMma(kind, a, b, c, d);
}

// m16n8k16 f16: "row = groupID + 8 for a2, a3, a6, a7; col =
// threadID_in_group * 2 + (i & 1) + 8 for i >= 4": lane 6 (g 1, t 2),
// a7 (register 3, high half) is at (9, 13). B: "row = threadID_in_group *
// 2 + (i & 1) + 8 for i >= 2, col = groupID": K row 13 is b3 (register 1,
// high half) of the lanes with t = 2.
TEST(WarpMma, F16FragmentsAreThePtxTables) {
  Registers r;
  const uint32_t one_high = 0x3c00u << 16;  // f16 1.0 in the high half
  r.a[6][3] = static_cast<int32_t>(one_high);
  for (int g = 0; g < 8; ++g)
    r.b[g * 4 + 2][1] = static_cast<int32_t>(one_high);
  RunMma(0, r);
  const std::vector<int> rows = NonzeroRows(r, false);
  EXPECT_EQ(rows.size(), 8u);
  for (int row : rows) EXPECT_EQ(row, 9);
}

// m16n8k8 tf32: "row = groupID + 8 for a1 and a3; col = threadID_in_group
// + 4 for a2 and a3": lane 13 (g 3, t 1), a3 is at (11, 5). B: "row =
// threadID_in_group + 4 for b1": K row 5 is b1 of the lanes with t = 1.
TEST(WarpMma, Tf32FragmentsAreThePtxTables) {
  Registers r;
  const int32_t one = 0x3f800000;
  r.a[13][3] = one;
  for (int g = 0; g < 8; ++g) r.b[g * 4 + 1][1] = one;
  RunMma(2, r);
  const std::vector<int> rows = NonzeroRows(r, false);
  EXPECT_EQ(rows.size(), 8u);
  for (int row : rows) EXPECT_EQ(row, 11);
}

// m16n8k32 s8: "row = groupID for a0..a3 and a8..a11, groupID + 8
// otherwise; col = threadID_in_group * 4 + (i & 3) + 16 for i >= 8":
// lane 31 (g 7, t 3), a14 (register 3, byte 2) is at (15, 30). B: "row =
// threadID_in_group * 4 + (i & 3) + 16 for i >= 4": K row 30 is b6
// (register 1, byte 2) of the lanes with t = 3.
TEST(WarpMma, S8FragmentsAreThePtxTables) {
  Registers r;
  r.a[31][3] = 1 << 16;
  for (int g = 0; g < 8; ++g) r.b[g * 4 + 3][1] = 1 << 16;
  RunMma(3, r);
  const std::vector<int> rows = NonzeroRows(r, true);
  EXPECT_EQ(rows.size(), 8u);
  for (int row : rows) EXPECT_EQ(row, 15);
}

// C passes through and the sums run in f32: bf16 ones times ones over
// K = 16 add 16 to C.
TEST(WarpMma, Bf16AccumulatesIntoC) {
  Registers r;
  const uint32_t ones = 0x3f803f80u;  // two bf16 1.0
  for (int l = 0; l < 32; ++l) {
    for (int i = 0; i < 4; ++i) r.a[l][i] = static_cast<int32_t>(ones);
    for (int i = 0; i < 2; ++i) r.b[l][i] = static_cast<int32_t>(ones);
    const float c = 0.5f;
    for (int i = 0; i < 4; ++i) std::memcpy(&r.c[l][i], &c, 4);
  }
  RunMma(1, r);
  for (int l = 0; l < 32; ++l) {
    for (int i = 0; i < 4; ++i) {
      float d;
      std::memcpy(&d, &r.d[l][i], 4);
      EXPECT_EQ(d, 16.5f);
    }
  }
}

}  // namespace
}  // namespace xlite::gpu::emulator
