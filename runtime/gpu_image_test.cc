// The .xlx format: round trips, and every damaged, truncated or foreign
// file is refused with an error (no crash); the runner over a host device.
#include "runtime/gpu_image.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "runtime/gemm_description.h"
#include "runtime/gpu_image_runner.h"
#include "runtime/tensor_map_samples.h"

namespace xlite::runtime {
namespace {

// f32[4] parameter, a fill and a copy into the output, inside a while and
// a conditional so that nesting is exercised.
GpuImage SmallImage() {
  GpuImage image;
  image.module_name = "small";
  image.spec_name = "h100";
  image.sm_name = "sm_90a";
  image.parameter_shapes.push_back(
      Shape::WithDefaultLayout(PrimitiveType::kF32, {4}));
  image.result_shape =
      Shape::Tuple({Shape::WithDefaultLayout(PrimitiveType::kF32, {4})});
  GpuImageAllocation param{Allocation::Kind::kParameter, 16, 0, {}, ""};
  GpuImageAllocation out{Allocation::Kind::kOutput, 16, -1, {}, ""};
  GpuImageAllocation constant{
      Allocation::Kind::kConstant, 4, -1, {}, std::string("\0\0\0\0", 4)};
  image.allocations = {param, out, constant};
  image.outputs.push_back({{0}, Slice{1, 0, 16}});
  Thunk fill;
  fill.kind = Thunk::Kind::kMemset;
  fill.destination = Slice{1, 0, 16};
  fill.byte = 0x7f;
  Thunk copy;
  copy.kind = Thunk::Kind::kMemcpy;
  copy.instruction = "copy.1";
  copy.source = Slice{0, 0, 16};
  copy.destination = Slice{1, 0, 16};
  Thunk cond;
  cond.kind = Thunk::Kind::kConditional;
  cond.index_is_pred = true;
  cond.predicate = Slice{2, 0, 1};
  cond.children = {{fill}, {copy}};  // pred false: the copy
  image.thunks = {fill, cond};
  image.ptx = "// ptx";
  image.cubins["sm_90a"] = std::string("\x7f\x45LF\0", 5);  // "\x7fELF"
  image.emulator_ir = "; ir";
  return image;
}

// A device whose memory is the host's.
class HostDevice : public GpuDevice {
 public:
  absl::StatusOr<uint64_t> Allocate(int64_t bytes) override {
    blocks_.emplace_back(bytes, 0);
    return reinterpret_cast<uint64_t>(blocks_.back().data());
  }
  absl::Status Free(uint64_t) override { return absl::OkStatus(); }
  absl::Status CopyToDevice(uint64_t d, const void* s, int64_t n) override {
    std::memcpy(reinterpret_cast<void*>(d), s, n);
    return absl::OkStatus();
  }
  absl::Status CopyFromDevice(void* d, uint64_t s, int64_t n) override {
    std::memcpy(d, reinterpret_cast<void*>(s), n);
    return absl::OkStatus();
  }
  absl::Status Run(const ThunkSequence& thunks,
                   const std::vector<uint64_t>& a) override {
    for (const Thunk& t : thunks) {
      auto at = [&](const Slice& s) {
        return reinterpret_cast<uint8_t*>(a[s.allocation] + s.offset);
      };
      if (t.kind == Thunk::Kind::kMemset) {
        std::memset(at(t.destination), t.byte, t.destination.size);
      } else if (t.kind == Thunk::Kind::kMemcpy) {
        std::memcpy(at(t.destination), at(t.source), t.source.size);
      } else if (t.kind == Thunk::Kind::kConditional) {
        if (absl::Status s = Run(t.children[*at(t.predicate) ? 0 : 1], a);
            !s.ok()) {
          return s;
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  std::vector<std::vector<uint8_t>> blocks_;
};

TEST(GpuImage, RoundTrips) {
  const std::string bytes = SerializeGpuImage(SmallImage());
  absl::StatusOr<GpuImage> back = DeserializeGpuImage(bytes, "small.xlx");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(SerializeGpuImage(*back), bytes);
  EXPECT_EQ(back->thunks.size(), 2u);
  EXPECT_EQ(back->thunks[1].children.size(), 2u);
  EXPECT_EQ(back->cubins.at("sm_90a").size(), 5u);
  EXPECT_EQ(back->xlite_version, kXliteVersion);
}

// A kernel thunk's cost (what profiles of a .xlx read) survives the file;
// a negative one is refused.
TEST(GpuImage, ThunkCostsRoundTrip) {
  GpuImage image = SmallImage();
  Thunk kernel;
  kernel.kind = Thunk::Kind::kKernel;
  kernel.instruction = "fusion.2";
  kernel.kernel = "fusion_2";
  kernel.arguments = {Slice{0, 0, 16}, Slice{1, 0, 16}};
  kernel.cost = {32, 4, "f32", "fusion:kLoop:add"};
  image.thunks.push_back(kernel);
  absl::StatusOr<GpuImage> back =
      DeserializeGpuImage(SerializeGpuImage(image), "cost.xlx");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->thunks.back().cost, kernel.cost);

  image.thunks.back().cost.flops = -1;
  absl::StatusOr<GpuImage> bad =
      DeserializeGpuImage(SerializeGpuImage(image), "bad.xlx");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("negative cost"), std::string::npos)
      << bad.status().message();
}

TEST(GpuImage, RefusesEveryTruncation) {
  const std::string bytes = SerializeGpuImage(SmallImage());
  for (size_t n = 0; n < bytes.size(); ++n) {
    absl::StatusOr<GpuImage> r = DeserializeGpuImage(bytes.substr(0, n), "t");
    EXPECT_FALSE(r.ok()) << n;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("not a valid xlite GPU executable"),
                std::string::npos);
    }
  }
}

TEST(GpuImage, RefusesEveryFlippedByte) {
  const std::string bytes = SerializeGpuImage(SmallImage());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] ^= 0x5a;
    EXPECT_FALSE(DeserializeGpuImage(damaged, "d").ok()) << i;
  }
}

TEST(GpuImage, RefusesForeignAndNewerFiles) {
  EXPECT_FALSE(DeserializeGpuImage("HloModule m\n", "m.hlo").ok());
  EXPECT_FALSE(DeserializeGpuImage("", "empty").ok());
  std::string bytes = SerializeGpuImage(SmallImage());
  bytes[8] = kGpuImageFormatVersion + 1;
  absl::StatusOr<GpuImage> r = DeserializeGpuImage(bytes, "new.xlx");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                absl::StrCat("format version ", kGpuImageFormatVersion + 1)),
            std::string::npos);
}

TEST(GpuImage, RefusesSlicesOutsideTheirAllocation) {
  GpuImage image = SmallImage();
  image.thunks[0].destination = Slice{1, 8, 16};
  EXPECT_FALSE(DeserializeGpuImage(SerializeGpuImage(image), "b").ok());
  image = SmallImage();
  image.thunks[0].destination = Slice{7, 0, 1};
  EXPECT_FALSE(DeserializeGpuImage(SerializeGpuImage(image), "b").ok());
  image = SmallImage();
  image.outputs[0].slice = Slice{1, 0, 8};  // smaller than f32[4]
  EXPECT_FALSE(DeserializeGpuImage(SerializeGpuImage(image), "b").ok());
  image = SmallImage();
  image.allocations[0].parameter_number = 3;
  EXPECT_FALSE(DeserializeGpuImage(SerializeGpuImage(image), "b").ok());
}

// d = a[2,3] x b[3,4] with a workspace, all in allocation 0.
GpuImage GemmImage() {
  GpuImage image = SmallImage();
  image.allocations.push_back(
      GpuImageAllocation{Allocation::Kind::kTemp, 1024, -1, {}, ""});
  const int alloc = static_cast<int>(image.allocations.size()) - 1;
  auto f32 = [](std::vector<int64_t> dims) {
    return Shape::WithDefaultLayout(PrimitiveType::kF32, dims);
  };
  absl::StatusOr<GemmDescription> gemm = DescribeGemm(
      "__cublas$lt$matmul",
      R"({"gemm_backend_config":{"alpha_real":1,"beta":0,)"
      R"("dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],)"
      R"("rhs_contracting_dimensions":["0"]},"epilogue":"RELU"}})",
      {f32({2, 3}), f32({3, 4})},
      Shape::Tuple(
          {f32({2, 4}), Shape::WithDefaultLayout(PrimitiveType::kS8, {256})}));
  EXPECT_TRUE(gemm.ok()) << gemm.status();
  Thunk t;
  t.kind = Thunk::Kind::kGemm;
  t.instruction = "gemm.1";
  t.arguments = {Slice{alloc, 0, 24}, Slice{alloc, 256, 48},
                 Slice{alloc, 512, 32}, Slice{alloc, 768, 256}};
  t.gemm = std::make_shared<const GemmDescription>(*gemm);
  image.thunks.push_back(t);
  return image;
}

// An MXFP8 block-scaled dot: f8e4m3fn[128,64] x f8e4m3fn[128,64] with
// f8e8m0fnu[128,4] scales and a global scale, in allocation `alloc`.
GpuImage BlockScaledDotImage() {
  GpuImage image = SmallImage();
  image.allocations.push_back(
      GpuImageAllocation{Allocation::Kind::kTemp, 1 << 17, -1, {}, ""});
  const int alloc = static_cast<int>(image.allocations.size()) - 1;
  auto shape = [](PrimitiveType t, std::vector<int64_t> dims) {
    return Shape::WithDefaultLayout(t, dims);
  };
  absl::StatusOr<BlockScaledDotDescription> dot = DescribeBlockScaledDot(
      {shape(PrimitiveType::kF8E4M3FN, {128, 64}),
       shape(PrimitiveType::kF8E4M3FN, {128, 64}),
       shape(PrimitiveType::kF8E8M0FNU, {128, 4}),
       shape(PrimitiveType::kF8E8M0FNU, {128, 4}),
       shape(PrimitiveType::kF32, {})},
      Shape::Tuple({shape(PrimitiveType::kF32, {128, 128}),
                    shape(PrimitiveType::kU8, {0})}));
  EXPECT_TRUE(dot.ok()) << dot.status();
  Thunk t;
  t.kind = Thunk::Kind::kBlockScaledDot;
  t.instruction = "cudnn-block-scaled-dot";
  t.arguments = {Slice{alloc, 0, 8192},    Slice{alloc, 8192, 8192},
                 Slice{alloc, 16384, 512}, Slice{alloc, 16896, 512},
                 Slice{alloc, 17408, 4},   Slice{alloc, 65536, 65536},
                 Slice{alloc, 17412, 0}};
  t.block_scaled_dot = std::make_shared<const BlockScaledDotDescription>(*dot);
  image.thunks.push_back(t);
  return image;
}

TEST(GpuImage, BlockScaledDotThunksRoundTripAndAreChecked) {
  const std::string bytes = SerializeGpuImage(BlockScaledDotImage());
  absl::StatusOr<GpuImage> back = DeserializeGpuImage(bytes, "bsd.xlx");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(SerializeGpuImage(*back), bytes);
  const Thunk& t = back->thunks.back();
  ASSERT_NE(t.block_scaled_dot, nullptr);
  EXPECT_EQ(t.block_scaled_dot->block_size, 32);
  EXPECT_TRUE(t.block_scaled_dot->has_global_scale());
  EXPECT_EQ(ThunkSequenceToString(back->thunks),
            ThunkSequenceToString(BlockScaledDotImage().thunks));
  // A result slice too small for f32[128,128]; a missing description.
  GpuImage image = BlockScaledDotImage();
  image.thunks.back().arguments[5].size = 1024;
  absl::StatusOr<GpuImage> small =
      DeserializeGpuImage(SerializeGpuImage(image), "s");
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.status().message().find("argument 5 out of bounds"),
            std::string::npos)
      << small.status();
  image = BlockScaledDotImage();
  image.thunks.back().block_scaled_dot = nullptr;
  EXPECT_FALSE(DeserializeGpuImage(SerializeGpuImage(image), "n").ok());
  // A format-4 image has no such thunk kind.
  EXPECT_FALSE(
      DeserializeGpuImage(SerializeGpuImage(BlockScaledDotImage(), 4), "v4")
          .ok());
}

TEST(GpuImage, GemmThunksRoundTrip) {
  const std::string bytes = SerializeGpuImage(GemmImage());
  absl::StatusOr<GpuImage> back = DeserializeGpuImage(bytes, "gemm.xlx");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(SerializeGpuImage(*back), bytes);
  const Thunk& t = back->thunks.back();
  ASSERT_NE(t.gemm, nullptr);
  EXPECT_EQ(t.gemm->config.epilogue, GemmEpilogue::kRelu);
  EXPECT_EQ(t.gemm->layout.workspace, 1);
  EXPECT_EQ(ThunkSequenceToString(back->thunks),
            ThunkSequenceToString(GemmImage().thunks));
  for (size_t n = 0; n < bytes.size(); n += 7) {
    EXPECT_FALSE(DeserializeGpuImage(bytes.substr(0, n), "t").ok()) << n;
  }
}

TEST(GpuImage, RefusesMalformedGemmRecords) {
  auto refused = [](const GpuImage& image, absl::string_view why) {
    absl::StatusOr<GpuImage> r =
        DeserializeGpuImage(SerializeGpuImage(image), "g.xlx");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(why), std::string::npos)
        << r.status().message();
  };
  GpuImage image = GemmImage();
  image.thunks.back().gemm = nullptr;
  refused(image, "no description");
  image = GemmImage();
  image.thunks.back().arguments.pop_back();
  refused(image, "3 slices for 4");
  image = GemmImage();
  image.thunks.back().arguments[2].size = 16;  // d needs 32 bytes
  refused(image, "argument 2 out of bounds");
  image = GemmImage();
  image.thunks.back().arguments[0].offset = 1020;
  refused(image, "out of bounds");
  // A description that does not check: contracting sizes disagree.
  image = GemmImage();
  GemmDescription bad = *image.thunks.back().gemm;
  bad.operands[1] = Shape::WithDefaultLayout(PrimitiveType::kF32, {5, 4});
  image.thunks.back().gemm = std::make_shared<const GemmDescription>(bad);
  refused(image, "bad GEMM of %gemm.1");
  // One no GEMM thunk runs (integers).
  image = GemmImage();
  bad = *image.thunks.back().gemm;
  bad.operands[0].set_element_type(PrimitiveType::kS8);
  bad.operands[1].set_element_type(PrimitiveType::kS8);
  image.thunks.back().gemm = std::make_shared<const GemmDescription>(bad);
  refused(image, "thunk of %gemm.1");
}

// The autotuned algorithm travels with its GEMM thunk (format 4); a
// format-3 image, written before there were any, still reads, untuned;
// older ones are refused with the range this build reads.
TEST(GpuImage, GemmAlgorithmsRoundTripAndFormat3StillReads) {
  GpuImage image = GemmImage();
  GemmAlgorithm algorithm;
  algorithm.data = {21, 0, 0x2a, 7, 0, 0, 0, ~uint64_t{0}};
  algorithm.label = "id=21 tile=20";
  algorithm.tuned_for = GemmAlgorithmScope("NVIDIA H100 (sm_90)", "130100");
  image.thunks.back().gemm_algorithm = algorithm;
  const std::string bytes = SerializeGpuImage(image);
  absl::StatusOr<GpuImage> back = DeserializeGpuImage(bytes, "tuned.xlx");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->thunks.back().gemm_algorithm.has_value());
  EXPECT_EQ(*back->thunks.back().gemm_algorithm, algorithm);
  EXPECT_EQ(SerializeGpuImage(*back), bytes);
  EXPECT_NE(ThunkSequenceToString(back->thunks)
                .find("epilogue=RELU ({3:0+24}, {3:256+48}, {3:512+32}, "
                      "{3:768+256}) algorithm=(id=21 tile=20)"),
            std::string::npos)
      << ThunkSequenceToString(back->thunks);
  for (size_t n = 0; n < bytes.size(); n += 5) {
    EXPECT_FALSE(DeserializeGpuImage(bytes.substr(0, n), "t").ok()) << n;
  }

  const std::string old = SerializeGpuImage(image, 3);
  EXPECT_EQ(old[8], 3);
  absl::StatusOr<GpuImage> untuned = DeserializeGpuImage(old, "old.xlx");
  ASSERT_TRUE(untuned.ok()) << untuned.status().message();
  EXPECT_FALSE(untuned->thunks.back().gemm_algorithm.has_value());
  EXPECT_EQ(ThunkSequenceToString(untuned->thunks),
            ThunkSequenceToString(GemmImage().thunks));

  std::string older = old;
  older[8] = 2;  // the checksum covers the payload, not the header
  absl::StatusOr<GpuImage> refused = DeserializeGpuImage(older, "v2.xlx");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "format version 2; this xlite (0.1.0) reads versions 3 to 7"),
            std::string::npos)
      << refused.status().message();
}

// A kernel thunk reading a u16[2,4096,64] (1 MiB, allocation 3) by TMA in
// swizzled [1,128,64] boxes, and the parameter f32[4] whole.
GpuImage TensorMapImage() {
  GpuImage image = SmallImage();
  image.allocations.push_back(
      GpuImageAllocation{Allocation::Kind::kTemp, 1 << 20, -1, {}, ""});
  Thunk t;
  t.kind = Thunk::Kind::kKernel;
  t.instruction = "fusion.3";
  t.kernel = "fusion_3";
  t.grid = 64;
  t.block = 128;
  t.shared_bytes = 16384;
  t.arguments = {Slice{0, 0, 16}, Slice{3, 0, 1 << 20}};
  t.tensor_maps = {runtime::testing::SwizzledTileMap(),
                   runtime::testing::VectorMap(4, 4, 4)};
  image.thunks.push_back(t);
  return image;
}

TEST(GpuImage, TensorMapsRoundTrip) {
  const GpuImage image = TensorMapImage();
  const std::string bytes = SerializeGpuImage(image);
  EXPECT_EQ(bytes[8], 7);
  absl::StatusOr<GpuImage> back = DeserializeGpuImage(bytes, "tma.xlx");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->thunks.back().tensor_maps, image.thunks.back().tensor_maps);
  EXPECT_EQ(SerializeGpuImage(*back), bytes);
  EXPECT_NE(ThunkSequenceToString(back->thunks)
                .find("kernel fusion_3 grid=64 block=128 shared=16384 "
                      "({0:0+16}, {3:0+1048576}) tma(arg 1: u16 dims "
                      "[64,4096,2] strides [2,128,524288] box [64,128,1] "
                      "sw128) tma(arg 0: u32 dims [4] strides [4] box [4])\n"),
            std::string::npos)
      << ThunkSequenceToString(back->thunks);
  for (size_t n = 0; n < bytes.size(); n += 3) {
    EXPECT_FALSE(DeserializeGpuImage(bytes.substr(0, n), "t").ok()) << n;
  }
}

// Format 6 (no tensor maps) still reads; an image with tensor maps cannot
// be written without them, so it is written in format 7 whatever is asked.
TEST(GpuImage, Format6StillReadsAndTensorMapsNeedFormat7) {
  const std::string old = SerializeGpuImage(SmallImage(), 6);
  EXPECT_EQ(old[8], 6);
  absl::StatusOr<GpuImage> back = DeserializeGpuImage(old, "v6.xlx");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(SerializeGpuImage(*back), SerializeGpuImage(SmallImage()));
  const std::string raised = SerializeGpuImage(TensorMapImage(), 6);
  EXPECT_EQ(raised[8], 7);
  EXPECT_EQ(raised, SerializeGpuImage(TensorMapImage()));
}

TEST(GpuImage, RefusesMalformedTensorMaps) {
  // `edit` applied to the first tensor map of TensorMapImage's kernel
  // thunk; the image refused with `why`.
  auto refused = [](void (*edit)(Thunk&), absl::string_view why) {
    GpuImage image = TensorMapImage();
    edit(image.thunks.back());
    absl::StatusOr<GpuImage> r =
        DeserializeGpuImage(SerializeGpuImage(image), "tma.xlx");
    ASSERT_FALSE(r.ok()) << why;
    EXPECT_NE(r.status().message().find(
                  absl::StrCat("tma.xlx: not a valid xlite GPU executable "
                               "(thunk of %fusion.3: ",
                               why)),
              std::string::npos)
        << r.status().message();
  };
  const std::string map0 = "tensor map 0 (argument 1): ";
  refused([](Thunk& t) { t.tensor_maps[0].argument = 2; },
          "tensor map 0 (argument 2): argument 2 out of range (the kernel "
          "has 2)");
  refused([](Thunk& t) { t.tensor_maps[1].argument = -1; },
          "tensor map 1 (argument -1): argument -1 out of range");
  refused(
      [](Thunk& t) {
        TensorMapDescription& m = t.tensor_maps[0];
        m.dims.clear(), m.strides.clear(), m.box.clear();
      },
      map0 + "rank 0 (1 to 5)");
  refused(
      [](Thunk& t) {
        TensorMapDescription& m = t.tensor_maps[0];
        m.dims.resize(6, 1), m.strides.resize(6, 16), m.box.resize(6, 1);
      },
      map0 + "rank 6 (1 to 5)");
  refused([](Thunk& t) { t.tensor_maps[0].box.pop_back(); },
          map0 + "3 dims, 3 strides, 2 box extents");
  refused([](Thunk& t) { t.tensor_maps[0].element_bytes = 3; },
          map0 + "element size 3 bytes (1, 2 or 4)");
  refused([](Thunk& t) { t.tensor_maps[0].strides[0] = 4; },
          map0 + "stride 0 is 4, not the element size 2");
  refused([](Thunk& t) { t.tensor_maps[0].dims[1] = 0; },
          map0 + "dim 1 is 0 (1 to 2^32)");
  refused([](Thunk& t) { t.tensor_maps[0].dims[2] = (int64_t{1} << 32) + 1; },
          map0 + "dim 2 is 4294967297");
  refused([](Thunk& t) { t.tensor_maps[0].strides[1] = 24; },
          map0 + "stride 1 is 24 (a positive multiple of 16 below 2^40)");
  refused([](Thunk& t) { t.tensor_maps[0].strides[1] = -128; },
          map0 + "stride 1 is -128");
  refused([](Thunk& t) { t.tensor_maps[0].strides[2] = int64_t{1} << 40; },
          map0 + "stride 2 is 1099511627776");
  refused([](Thunk& t) { t.tensor_maps[0].box[1] = 257; },
          map0 + "box extent 1 is 257 (1 to 256)");
  refused([](Thunk& t) { t.tensor_maps[0].box[2] = 0; },
          map0 + "box extent 2 is 0");
  refused([](Thunk& t) { t.tensor_maps[0].box[0] = 4; },
          map0 + "the box's inner extent is 8 bytes (a multiple of 16)");
  refused([](Thunk& t) { t.tensor_maps[0].box[0] = 128; },
          map0 +
              "the box's inner extent is 256 bytes, over the 128-byte "
              "swizzle row");
  refused([](Thunk& t) { t.tensor_maps[0].dims[1] = 4097; },
          map0 + "the tensor reaches past its argument's 1048576 bytes");
  // Largest dims and strides: the extent must not overflow into range.
  refused(
      [](Thunk& t) {
        TensorMapDescription& m = t.tensor_maps[0];
        m.dims = {64, int64_t{1} << 32, int64_t{1} << 32};
        m.strides = {2, (int64_t{1} << 40) - 16, (int64_t{1} << 40) - 16};
      },
      map0 + "the tensor reaches past");
  refused(
      [](Thunk& t) {
        t.arguments[1] = Slice{3, 8, 1024};
      },
      map0 +
          "its argument starts at offset 8 (TMA needs 16-byte "
          "alignment)");
  refused(
      [](Thunk& t) {
        t.arguments[1] = Slice{-1, 0, 0};
      },
      map0 + "its argument has no buffer");
  refused(
      [](Thunk& t) {
        t.kind = Thunk::Kind::kMemset;
        t.destination = Slice{3, 0, 16};
      },
      "tensor maps but no kernel");
  // Unswizzled, the 256-byte box row is fine.
  GpuImage image = TensorMapImage();
  image.thunks.back().tensor_maps[0].box[0] = 128;
  image.thunks.back().tensor_maps[0].swizzle_128b = false;
  EXPECT_TRUE(DeserializeGpuImage(SerializeGpuImage(image), "ok").ok());
}

TEST(GpuImageRunner, RunsThunksOverArenas) {
  absl::StatusOr<GpuImage> image =
      DeserializeGpuImage(SerializeGpuImage(SmallImage()), "small.xlx");
  ASSERT_TRUE(image.ok());
  Literal arg(image->parameter_shapes[0]);
  for (int i = 0; i < 4; ++i) arg.SetFromDouble(i, i * 2.0);
  HostDevice device;
  absl::StatusOr<Literal> r = RunGpuImage(*image, device, {arg});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tuple_elements()[0], arg);
  EXPECT_FALSE(RunGpuImage(*image, device, {}).ok());
}

}  // namespace
}  // namespace xlite::runtime
