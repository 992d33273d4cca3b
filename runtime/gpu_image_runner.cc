#include "runtime/gpu_image_runner.h"

#include <array>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xlite::runtime {
namespace {

constexpr int64_t kAlignment = 256;
constexpr int kKinds = 4;

const Literal* LeafOf(const Literal& literal, const ShapeIndex& index) {
  const Literal* at = &literal;
  for (int64_t i : index) {
    if (!at->shape().IsTuple() || i < 0 ||
        i >= static_cast<int64_t>(at->tuple_elements().size())) {
      return nullptr;
    }
    at = &at->tuple_elements()[i];
  }
  return at;
}

// The arenas, freed when the run ends however it ends.
class Arenas {
 public:
  explicit Arenas(GpuDevice& device) : device_(device) {}
  ~Arenas() {
    for (uint64_t a : arenas_) {
      if (a != 0) (void)device_.Free(a);
    }
  }
  absl::StatusOr<uint64_t> Allocate(int64_t bytes) {
    absl::StatusOr<uint64_t> a = device_.Allocate(bytes);
    if (a.ok()) arenas_.push_back(*a);
    return a;
  }

 private:
  GpuDevice& device_;
  std::vector<uint64_t> arenas_;
};

absl::Status CopyArgument(const GpuImage& image, const GpuImageAllocation& a,
                          absl::Span<const Literal> arguments, uint64_t base,
                          GpuDevice& device) {
  const Shape& param = image.parameter_shapes[a.parameter_number];
  const Shape* shape = param.Subshape(a.parameter_index);
  const Literal* leaf = LeafOf(arguments[a.parameter_number], a.parameter_index);
  if (leaf == nullptr || shape == nullptr || leaf->shape().IsTuple() ||
      leaf->shape().dimensions() != shape->dimensions() ||
      leaf->shape().element_type() != shape->element_type() ||
      leaf->is_unknown()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument ", a.parameter_number, " does not have the shape ",
        param.ToString(false)));
  }
  const std::vector<uint8_t> bytes = leaf->PhysicalData(*shape);
  return device.CopyToDevice(
      base, bytes.data(),
      std::min<int64_t>(static_cast<int64_t>(bytes.size()), a.size));
}

}  // namespace

absl::StatusOr<Literal> RunGpuImage(const GpuImage& image, GpuDevice& device,
                                    absl::Span<const Literal> arguments) {
  if (arguments.size() != image.parameter_shapes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the module takes ", image.parameter_shapes.size(),
                     " arguments, got ", arguments.size()));
  }
  // Offsets within each kind's arena.
  std::array<int64_t, kKinds> arena_size{};
  std::vector<int64_t> offsets;
  for (const GpuImageAllocation& a : image.allocations) {
    int64_t& size = arena_size[static_cast<int>(a.kind)];
    offsets.push_back(size);
    size += (std::max<int64_t>(a.size, 1) + kAlignment - 1) / kAlignment *
            kAlignment;
  }
  Arenas arenas(device);
  std::array<uint64_t, kKinds> arena_base{};
  for (int k = 0; k < kKinds; ++k) {
    if (arena_size[k] == 0) continue;
    absl::StatusOr<uint64_t> base = arenas.Allocate(arena_size[k]);
    if (!base.ok()) return base.status();
    arena_base[k] = *base;
  }
  std::vector<uint64_t> bases;
  for (size_t i = 0; i < image.allocations.size(); ++i) {
    const GpuImageAllocation& a = image.allocations[i];
    bases.push_back(arena_base[static_cast<int>(a.kind)] + offsets[i]);
    absl::Status s;
    if (a.kind == Allocation::Kind::kConstant && !a.constant_bytes.empty()) {
      s = device.CopyToDevice(bases.back(), a.constant_bytes.data(),
                              static_cast<int64_t>(a.constant_bytes.size()));
    } else if (a.kind == Allocation::Kind::kParameter) {
      s = CopyArgument(image, a, arguments, bases.back(), device);
    }
    if (!s.ok()) return s;
  }
  if (absl::Status s = device.Run(image.thunks, bases); !s.ok()) return s;
  Literal result(image.result_shape);
  for (const GpuImageOutput& o : image.outputs) {
    const Shape* shape = image.result_shape.Subshape(o.index);
    std::vector<uint8_t> bytes(o.slice.size);
    if (absl::Status s = device.CopyFromDevice(
            bytes.data(), bases[o.slice.allocation] + o.slice.offset,
            o.slice.size);
        !s.ok()) {
      return s;
    }
    Literal* leaf = const_cast<Literal*>(LeafOf(result, o.index));
    if (leaf == nullptr || shape == nullptr) {
      return absl::InternalError("result leaf missing");
    }
    leaf->SetFromPhysicalData(*shape, bytes);
  }
  return result;
}

}  // namespace xlite::runtime
