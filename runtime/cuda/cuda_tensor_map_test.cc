// Tensor maps as the CUDA device encodes them, through a fake
// cuTensorMapEncodeTiled: the arguments the driver gets, the buffers that
// go to the launch, and the errors (no device needed).
#include "runtime/cuda/cuda_tensor_map.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime/tensor_map_samples.h"

namespace xlite::runtime::cuda {
namespace {

// What the fake driver was asked, one record per call.
struct EncodeCall {
  void* tensor_map;
  int data_type;
  uint32_t rank;
  uint64_t address;
  std::vector<uint64_t> dims, strides;
  std::vector<uint32_t> box, element_strides;
  int interleave, swizzle, l2_promotion, oob_fill;
};
std::vector<EncodeCall>* calls = nullptr;
CuResult fake_result = 0;

CuResult FakeEncode(void* tensor_map, int data_type, uint32_t rank,
                    void* address, const uint64_t* dims,
                    const uint64_t* strides, const uint32_t* box,
                    const uint32_t* element_strides, int interleave,
                    int swizzle, int l2_promotion, int oob_fill) {
  calls->push_back(
      {tensor_map, data_type, rank, reinterpret_cast<uint64_t>(address),
       std::vector<uint64_t>(dims, dims + rank),
       std::vector<uint64_t>(strides, strides + rank - 1),
       std::vector<uint32_t>(box, box + rank),
       std::vector<uint32_t>(element_strides, element_strides + rank),
       interleave, swizzle, l2_promotion, oob_fill});
  // Marks the buffer with the call's number, as the driver fills it.
  std::memset(tensor_map, static_cast<int>(calls->size()), 128);
  return fake_result;
}

CuResult FakeErrorString(CuResult, const char** text) {
  *text = "CUDA_ERROR_INVALID_VALUE";
  return 0;
}

// A u16[2,4096,64] swizzled in [1,128,64] boxes over argument 1, and a
// u8[64] over argument 0.
Thunk KernelThunk() {
  Thunk t;
  t.kind = Thunk::Kind::kKernel;
  t.kernel = "fusion_3";
  t.arguments = {Slice{0, 0, 64}, Slice{1, 0, 1 << 20}};
  t.tensor_maps = {runtime::testing::SwizzledTileMap(),
                   runtime::testing::VectorMap(1, 64, 32)};
  return t;
}

class CudaTensorMap : public ::testing::Test {
 protected:
  void SetUp() override {
    calls = &calls_;
    fake_result = 0;
    driver_.cuTensorMapEncodeTiled = &FakeEncode;
    driver_.cuGetErrorString = &FakeErrorString;
  }
  void TearDown() override { calls = nullptr; }

  CudaDriver driver_{};
  std::vector<EncodeCall> calls_;
  const std::vector<CuDevicePtr> addresses_ = {0x7000000100, 0x7000200000};
};

TEST_F(CudaTensorMap, EncodesEachMapInOrderIntoAlignedBuffers) {
  absl::StatusOr<std::vector<CuTensorMap>> maps =
      EncodeTensorMaps(driver_, KernelThunk(), addresses_);
  ASSERT_TRUE(maps.ok()) << maps.status();
  ASSERT_EQ(maps->size(), 2u);
  ASSERT_EQ(calls_.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(&(*maps)[i]) % 64, 0u);
    EXPECT_EQ((*maps)[i].opaque[0], 0x0101010101010101u * (i + 1));
  }
  const EncodeCall& big = calls_[0];
  EXPECT_EQ(big.data_type, kTensorMapDataTypeUint16);
  EXPECT_EQ(big.rank, 3u);
  EXPECT_EQ(big.address, addresses_[1]);
  EXPECT_EQ(big.dims, (std::vector<uint64_t>{64, 4096, 2}));
  EXPECT_EQ(big.strides, (std::vector<uint64_t>{128, 524288}));
  EXPECT_EQ(big.box, (std::vector<uint32_t>{64, 128, 1}));
  EXPECT_EQ(big.element_strides, (std::vector<uint32_t>{1, 1, 1}));
  EXPECT_EQ(big.interleave, 0);
  EXPECT_EQ(big.swizzle, 3);
  EXPECT_EQ(big.l2_promotion, 2);
  EXPECT_EQ(big.oob_fill, 0);
  const EncodeCall& small = calls_[1];
  EXPECT_EQ(small.data_type, kTensorMapDataTypeUint8);
  EXPECT_EQ(small.rank, 1u);
  EXPECT_EQ(small.address, addresses_[0]);
  EXPECT_EQ(small.dims, (std::vector<uint64_t>{64}));
  EXPECT_EQ(small.box, (std::vector<uint32_t>{32}));
  EXPECT_EQ(small.swizzle, 0);
}

TEST_F(CudaTensorMap, U32MapsAreUint32) {
  TensorMapDescription map = KernelThunk().tensor_maps[1];
  map.element_bytes = 4;
  map.strides = {4};
  map.box = {4};
  EXPECT_EQ(TiledEncodingOf(map, 0).data_type, kTensorMapDataTypeUint32);
}

TEST_F(CudaTensorMap, ADriverWithoutTmaFailsOnlyKernelsWithMaps) {
  driver_.cuTensorMapEncodeTiled = nullptr;
  absl::StatusOr<std::vector<CuTensorMap>> maps =
      EncodeTensorMaps(driver_, KernelThunk(), addresses_);
  ASSERT_FALSE(maps.ok());
  EXPECT_EQ(maps.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(maps.status().message(),
            "kernel fusion_3 takes TMA tensor maps, but this CUDA driver "
            "lacks cuTensorMapEncodeTiled (CUDA 12 on)");
  Thunk plain = KernelThunk();
  plain.tensor_maps.clear();
  maps = EncodeTensorMaps(driver_, plain, addresses_);
  ASSERT_TRUE(maps.ok()) << maps.status();
  EXPECT_TRUE(maps->empty());
}

TEST_F(CudaTensorMap, EncodeErrorsNameTheKernelAndTheMap) {
  fake_result = 1;
  absl::StatusOr<std::vector<CuTensorMap>> maps =
      EncodeTensorMaps(driver_, KernelThunk(), addresses_);
  ASSERT_FALSE(maps.ok());
  EXPECT_EQ(maps.status().message(),
            "cuTensorMapEncodeTiled(fusion_3, tensor map 0 tma(arg 1: u16 "
            "dims [64,4096,2] strides [2,128,524288] box [64,128,1] sw128)): "
            "CUDA error 1: CUDA_ERROR_INVALID_VALUE");
}

TEST_F(CudaTensorMap, InvalidMapsAreRefusedBeforeTheDriver) {
  Thunk t = KernelThunk();
  t.tensor_maps[1].box[0] = 8;  // 8 bytes: not a multiple of 16
  absl::StatusOr<std::vector<CuTensorMap>> maps =
      EncodeTensorMaps(driver_, t, addresses_);
  ASSERT_FALSE(maps.ok());
  EXPECT_EQ(maps.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(maps.status().message(),
            "kernel fusion_3: tensor map 1 (argument 0): the box's inner "
            "extent is 8 bytes (a multiple of 16)");
  EXPECT_TRUE(calls_.empty());
}

}  // namespace
}  // namespace xlite::runtime::cuda
