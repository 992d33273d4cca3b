// The .xlx format: round trips, and every damaged, truncated or foreign
// file is refused with an error (no crash); the runner over a host device.
#include "runtime/gpu_image.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include <cstring>

#include "runtime/gpu_image_runner.h"

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
  image.result_shape = Shape::Tuple(
      {Shape::WithDefaultLayout(PrimitiveType::kF32, {4})});
  GpuImageAllocation param{Allocation::Kind::kParameter, 16, 0, {}, ""};
  GpuImageAllocation out{Allocation::Kind::kOutput, 16, -1, {}, ""};
  GpuImageAllocation constant{Allocation::Kind::kConstant, 4, -1, {},
                              std::string("\0\0\0\0", 4)};
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
  image.cubins["sm_90a"] = std::string("\x7f" "ELF\0", 5);
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
  const uint32_t newer = kGpuImageFormatVersion + 1;
  bytes[8] = static_cast<char>(newer);  // the format version, little-endian
  absl::StatusOr<GpuImage> r = DeserializeGpuImage(bytes, "new.xlx");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(absl::StrCat("format version ", newer)),
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
