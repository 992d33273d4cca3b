// TensorMemory on its own: allocation, the descriptor checks, a load of
// columns a multiply in flight writes, and the multiply's numbers once an
// mbarrier wait completes it.

#include "gpu_backend/emulator/tensor_memory.h"

#include <bit>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "codegen/kernel_target.h"
#include "gpu_backend/emulator/mbarrier_table.h"
#include "gtest/gtest.h"

namespace xlite::gpu::emulator {
namespace {

constexpr uint64_t kVersion1 = uint64_t{1} << 46;

// A K-major unswizzled descriptor at `start` for rows of 16 bf16 (K = 16:
// two core matrices along K, LBO 128, SBO 256).
uint64_t Descriptor(int64_t start) {
  return (start >> 4) | uint64_t{128 >> 4} << 16 | uint64_t{256 >> 4} << 32 |
         kVersion1;
}

TEST(TensorMemory, AllocatesAndFreesColumns) {
  TensorMemory t;
  uint32_t a = 0, b = 0;
  EXPECT_EQ(t.Alloc(256, a), "");
  EXPECT_EQ(t.Alloc(128, b), "");
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 256u);
  EXPECT_NE(t.Alloc(256, b), "");  // 128 left
  EXPECT_NE(t.Alloc(48, b), "");   // not a power of 2
  EXPECT_NE(t.Dealloc(a, 128), "");
  EXPECT_EQ(t.Dealloc(a, 256), "");
  EXPECT_TRUE(absl::StrContains(t.Leftover(), "no tcgen05.dealloc"));
  EXPECT_EQ(t.Dealloc(256, 128), "");
  EXPECT_EQ(t.Leftover(), "");
}

TEST(TensorMemory, MultipliesWhenItsCommitIsWaitedFor) {
  // A: 128 x 16 bf16 of 1.0, B: 16 x 16 of 2.0, in core matrices.
  std::vector<uint8_t> shared(128 * 32 + 16 * 32 + 64, 0);
  const uint16_t one = 0x3F80, two = 0x4000;
  for (int i = 0; i < 128 * 16; ++i) std::memcpy(&shared[2 * i], &one, 2);
  for (int i = 0; i < 16 * 16; ++i) {
    std::memcpy(&shared[128 * 32 + 2 * i], &two, 2);
  }
  TensorMemory t;
  uint32_t d = 0;
  ASSERT_EQ(t.Alloc(32, d), "");
  codegen::WgmmaShape shape;
  shape.kind = codegen::WgmmaKind::kBF16;
  shape.n = 16;
  const uint32_t idesc = codegen::Tcgen05InstructionDescriptor(shape);
  const int64_t bytes = static_cast<int64_t>(shared.size());
  // Without Blackwell's version bits the descriptor is refused.
  EXPECT_TRUE(absl::StrContains(
      t.Issue(Tcgen05Kind::kF16, idesc, d, Descriptor(0) & ~kVersion1,
              Descriptor(128 * 32), false, 0, shared.data(), bytes),
      "version 0"));
  ASSERT_EQ(t.Issue(Tcgen05Kind::kF16, idesc, d, Descriptor(0),
                    Descriptor(128 * 32), false, 0, shared.data(), bytes),
            "");
  int32_t out[16];
  EXPECT_TRUE(absl::StrContains(t.Load(1, 3, d | 32 << 16, 16, out),
                                "not yet complete"));
  EXPECT_TRUE(absl::StrContains(t.Load(1, 3, d, 16, out), "lane 0"));
  MbarrierTable bars;
  const int64_t at = bytes - 8;
  ASSERT_EQ(bars.Init(at, 1), "");
  const int64_t through = t.Issued();
  ASSERT_EQ(
      bars.ArriveOnCompletion(
          at, [&] { return t.CompleteThrough(through, shared.data(), bytes); }),
      "");
  std::string error;
  EXPECT_TRUE(bars.TryWait(at, 0, shared.data(), error)) << error;
  ASSERT_EQ(t.Load(1, 3, d | 32 << 16, 16, out), "");
  for (int32_t v : out) EXPECT_EQ(std::bit_cast<float>(v), 32.0f);
}

}  // namespace
}  // namespace xlite::gpu::emulator
