// Tensor maps as emulated kernels receive them: the 128 bytes of each
// EmulatedTensorMap, and the emulator device passing a pointer to one per
// map after the pointer arguments (or refusing an invalid map).
#include "gpu_backend/emulator/emulated_tensor_map.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gpu_backend/emulator/emulator_device.h"
#include "runtime/tensor_map_samples.h"

namespace xlite::gpu::emulator {
namespace {

using runtime::Slice;
using runtime::TensorMapDescription;
using runtime::Thunk;

template <typename T>
T At(const EmulatedTensorMap& map, size_t offset) {
  T v;
  std::memcpy(&v, reinterpret_cast<const uint8_t*>(&map) + offset, sizeof(v));
  return v;
}

// A u16[2,4096,64] swizzled in [1,128,64] boxes over argument 1, and a
// u32[16] over argument 0.
Thunk KernelThunk() {
  Thunk t;
  t.kind = Thunk::Kind::kKernel;
  t.instruction = "fusion.3";
  t.kernel = "capture";
  t.arguments = {Slice{0, 0, 64}, Slice{1, 0, 1 << 20}};
  t.tensor_maps = {runtime::testing::SwizzledTileMap(),
                   runtime::testing::VectorMap(4, 16, 8)};
  return t;
}

TEST(EmulatedTensorMap, BytesAreTheLayoutKernelsRead) {
  const EmulatedTensorMap e =
      EncodeEmulatedTensorMap(KernelThunk().tensor_maps[0], 0x123456789a0);
  EXPECT_EQ(At<uint64_t>(e, 0), 0x123456789a0u);  // address
  EXPECT_EQ(At<uint32_t>(e, 8), 3u);              // rank
  EXPECT_EQ(At<uint32_t>(e, 12), 2u);             // element_bytes
  EXPECT_EQ(At<uint32_t>(e, 16), 1u);             // swizzle_128b
  EXPECT_EQ(At<uint32_t>(e, 20), 0u);             // reserved
  const uint64_t dims[5] = {64, 4096, 2, 0, 0};
  const uint64_t strides[5] = {2, 128, 524288, 0, 0};
  const uint32_t box[5] = {64, 128, 1, 0, 0};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(At<uint64_t>(e, 24 + 8 * i), dims[i]) << i;
    EXPECT_EQ(At<uint64_t>(e, 64 + 8 * i), strides[i]) << i;
    EXPECT_EQ(At<uint32_t>(e, 104 + 4 * i), box[i]) << i;
  }
  EXPECT_EQ(At<uint32_t>(e, 124), 0u);  // padding
  const EmulatedTensorMap plain =
      EncodeEmulatedTensorMap(KernelThunk().tensor_maps[1], 64);
  EXPECT_EQ(plain.swizzle_128b, 0u);
  EXPECT_EQ(plain.rank, 1u);
  EXPECT_EQ(plain.dims[1], 0u);
}

// What the capture kernel saw on its one thread.
struct Seen {
  int calls = 0;
  void* pointers[2] = {};
  EmulatedTensorMap maps[2];
  uintptr_t map_addresses[2] = {};
};
Seen seen;

void CaptureEntry(void** arguments) {
  ++seen.calls;
  for (int i = 0; i < 2; ++i) {
    seen.pointers[i] = arguments[i];
    seen.map_addresses[i] = reinterpret_cast<uintptr_t>(arguments[2 + i]);
    std::memcpy(&seen.maps[i], arguments[2 + i], sizeof(EmulatedTensorMap));
  }
}

class EmulatorDeviceTensorMaps : public ::testing::Test {
 protected:
  void SetUp() override { seen = Seen(); }
  absl::Status Run(const Thunk& t) {
    EmulatorDevice device({{"capture", &CaptureEntry}});
    return device.Run({t}, {small_.data(), big_.data()});
  }
  std::vector<uint8_t> small_ = std::vector<uint8_t>(64);
  std::vector<uint8_t> big_ = std::vector<uint8_t>(1 << 20);
};

TEST_F(EmulatorDeviceTensorMaps, PassesAMapPerTensorMapAfterThePointers) {
  const Thunk t = KernelThunk();
  ASSERT_TRUE(Run(t).ok());
  ASSERT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.pointers[0], small_.data());
  EXPECT_EQ(seen.pointers[1], big_.data());
  const uint64_t addresses[2] = {reinterpret_cast<uint64_t>(big_.data()),
                                 reinterpret_cast<uint64_t>(small_.data())};
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(seen.map_addresses[i] % 64, 0u) << i;
    const EmulatedTensorMap want =
        EncodeEmulatedTensorMap(t.tensor_maps[i], addresses[i]);
    EXPECT_EQ(std::memcmp(&seen.maps[i], &want, sizeof(want)), 0) << i;
  }
  EXPECT_EQ(seen.maps[0].address, addresses[0]);
  EXPECT_EQ(seen.maps[1].box[0], 8u);
}

TEST_F(EmulatorDeviceTensorMaps, RefusesAnInvalidMapWithoutLaunching) {
  Thunk t = KernelThunk();
  t.tensor_maps[0].dims[1] = 4097;  // past the 1 MiB argument
  absl::Status s = Run(t);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "kernel capture (%fusion.3): tensor map 0 (argument 1): the "
            "tensor reaches past its argument's 1048576 bytes");
  t = KernelThunk();
  t.tensor_maps[1].argument = 2;
  EXPECT_FALSE(Run(t).ok());
  EXPECT_EQ(seen.calls, 0);
}

}  // namespace
}  // namespace xlite::gpu::emulator
