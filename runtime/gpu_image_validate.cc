#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/gemm_matrices.h"
#include "runtime/gpu_image.h"
#include "runtime/tensor_map.h"

namespace xlite::runtime {
namespace {

constexpr int64_t kMaxAllocationBytes = int64_t{1} << 42;

absl::Status Bad(absl::string_view name, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(name, ": not a valid xlite GPU executable (", why, ")"));
}

// `optional`: allocation -1 (no slice) is allowed.
bool SliceOk(const GpuImage& image, const Slice& s, bool optional) {
  if (s.allocation == -1) return optional;
  if (s.allocation < 0 ||
      s.allocation >= static_cast<int64_t>(image.allocations.size())) {
    return false;
  }
  const int64_t size = image.allocations[s.allocation].size;
  return s.offset >= 0 && s.size >= 0 && s.offset <= size &&
         s.size <= size - s.offset;
}

// One slice of `t` per shape of `shapes`, each inside its allocation and
// large enough for it.
absl::Status CheckArgumentSlices(const GpuImage& image, const Thunk& t,
                                 const std::vector<Shape>& shapes) {
  if (t.arguments.size() != shapes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(t.arguments.size(), " slices for ", shapes.size(),
                     " operands and results"));
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!SliceOk(image, t.arguments[i], false) ||
        t.arguments[i].size < shapes[i].ByteSizeOfElements()) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument ", i, " out of bounds"));
    }
  }
  return absl::OkStatus();
}

// A GEMM thunk: a description a GEMM thunk runs, one slice per operand
// and result leaf, each inside its allocation and large enough.
absl::Status ValidateGemm(const GpuImage& image, const Thunk& t) {
  if (t.gemm == nullptr) return absl::InvalidArgumentError("no description");
  if (absl::Status s = CheckGemmThunkSupport(*t.gemm); !s.ok()) return s;
  std::vector<Shape> shapes = t.gemm->operands;
  for (const Shape& leaf : t.gemm->ResultLeaves()) shapes.push_back(leaf);
  return CheckArgumentSlices(image, t, shapes);
}

// A block-scaled dot thunk: a description, one slice per operand, the
// result and the workspace, each inside its allocation and large enough.
absl::Status ValidateBlockScaledDot(const GpuImage& image, const Thunk& t) {
  if (t.block_scaled_dot == nullptr) {
    return absl::InvalidArgumentError("no description");
  }
  const BlockScaledDotDescription& dot = *t.block_scaled_dot;
  std::vector<Shape> shapes = dot.operands;
  shapes.push_back(dot.out());
  shapes.push_back(dot.result.tuple_shapes(1));
  return CheckArgumentSlices(image, t, shapes);
}

absl::Status ValidateThunks(const GpuImage& image, const ThunkSequence& thunks,
                            absl::string_view name) {
  for (const Thunk& t : thunks) {
    const std::string where = absl::StrCat("thunk of %", t.instruction);
    if (t.cost.bytes < 0 || t.cost.flops < 0) {
      return Bad(name, absl::StrCat(where, ": negative cost"));
    }
    if (!t.tensor_maps.empty() && t.kind != Thunk::Kind::kKernel) {
      return Bad(name, absl::StrCat(where, ": tensor maps but no kernel"));
    }
    switch (t.kind) {
      case Thunk::Kind::kKernel:
        if (t.kernel.empty() || t.grid <= 0 || t.block <= 0 ||
            t.grid > (int64_t{1} << 31) || t.block > 1024 ||
            t.shared_bytes < 0 || t.shared_bytes > (1 << 20)) {
          return Bad(name, absl::StrCat(where, ": bad kernel launch"));
        }
        for (const Slice& s : t.arguments) {
          if (!SliceOk(image, s, true)) {
            return Bad(name, absl::StrCat(where, ": argument out of bounds"));
          }
        }
        if (absl::Status s = ValidateKernelTensorMaps(t); !s.ok()) {
          return Bad(name, absl::StrCat(where, ": ", s.message()));
        }
        break;
      case Thunk::Kind::kMemcpy:
        if (!SliceOk(image, t.source, false) ||
            !SliceOk(image, t.destination, false) ||
            t.destination.size < t.source.size) {
          return Bad(name, absl::StrCat(where, ": copy out of bounds"));
        }
        break;
      case Thunk::Kind::kMemset:
        if (!SliceOk(image, t.destination, false)) {
          return Bad(name, absl::StrCat(where, ": fill out of bounds"));
        }
        break;
      case Thunk::Kind::kWhile:
      case Thunk::Kind::kConditional: {
        const bool loop = t.kind == Thunk::Kind::kWhile;
        if (!SliceOk(image, t.predicate, false) || t.predicate.size < 1 ||
            (!loop && !t.index_is_pred && t.predicate.size < 4) ||
            (loop ? t.children.size() != 2 : t.children.empty()) ||
            t.trip_count < -1 || (!loop && t.trip_count != -1)) {
          return Bad(name, absl::StrCat(where, ": bad control flow"));
        }
        break;
      }
      case Thunk::Kind::kGemm:
        if (absl::Status s = ValidateGemm(image, t); !s.ok()) {
          return Bad(name, absl::StrCat(where, ": ", s.message()));
        }
        break;
      case Thunk::Kind::kBlockScaledDot:
        if (absl::Status s = ValidateBlockScaledDot(image, t); !s.ok()) {
          return Bad(name, absl::StrCat(where, ": ", s.message()));
        }
        break;
    }
    for (const ThunkSequence& child : t.children) {
      if (absl::Status s = ValidateThunks(image, child, name); !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateGpuImage(const GpuImage& image, absl::string_view name) {
  for (const GpuImageAllocation& a : image.allocations) {
    if (a.size < 0 || a.size > kMaxAllocationBytes) {
      return Bad(name, "allocation size out of range");
    }
    if (a.kind == Allocation::Kind::kParameter) {
      if (a.parameter_number < 0 ||
          a.parameter_number >=
              static_cast<int64_t>(image.parameter_shapes.size())) {
        return Bad(name, "allocation of a parameter the module lacks");
      }
      const Shape* leaf = image.parameter_shapes[a.parameter_number].Subshape(
          a.parameter_index);
      if (leaf == nullptr || !leaf->IsArray() ||
          leaf->ByteSizeOfElements() > a.size) {
        return Bad(name, "allocation of a parameter leaf the shape lacks");
      }
    }
    if (a.kind == Allocation::Kind::kConstant &&
        static_cast<int64_t>(a.constant_bytes.size()) > a.size) {
      return Bad(name, "constant larger than its allocation");
    }
  }
  for (const GpuImageOutput& o : image.outputs) {
    const Shape* leaf = image.result_shape.Subshape(o.index);
    if (leaf == nullptr || !leaf->IsArray() ||
        !SliceOk(image, o.slice, false) ||
        leaf->ByteSizeOfElements() > o.slice.size) {
      return Bad(name, "result leaf out of bounds");
    }
  }
  return ValidateThunks(image, image.thunks, name);
}

}  // namespace xlite::runtime
