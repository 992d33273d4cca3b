#include "runtime/tensor_map.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xlite::runtime {
namespace {

constexpr int64_t kMaxDim = int64_t{1} << 32;
constexpr int64_t kStrideLimit = int64_t{1} << 40;
constexpr int64_t kMaxBox = 256;
constexpr int64_t kSwizzleRowBytes = 128;

absl::Status Invalid(absl::string_view why) {
  return absl::InvalidArgumentError(why);
}

// Dims, strides and box, each entry in its range (rank already checked).
absl::Status CheckExtents(const TensorMapDescription& map) {
  for (size_t i = 0; i < map.dims.size(); ++i) {
    if (map.dims[i] < 1 || map.dims[i] > kMaxDim) {
      return Invalid(
          absl::StrCat("dim ", i, " is ", map.dims[i], " (1 to 2^32)"));
    }
    if (i >= 1 && (map.strides[i] <= 0 || map.strides[i] % 16 != 0 ||
                   map.strides[i] >= kStrideLimit)) {
      return Invalid(absl::StrCat("stride ", i, " is ", map.strides[i],
                                  " (a positive multiple of 16 below 2^40)"));
    }
    if (map.box[i] < 1 || map.box[i] > kMaxBox) {
      return Invalid(
          absl::StrCat("box extent ", i, " is ", map.box[i], " (1 to 256)"));
    }
  }
  const int64_t row_bytes = map.box[0] * map.element_bytes;
  if (row_bytes % 16 != 0) {
    return Invalid(absl::StrCat("the box's inner extent is ", row_bytes,
                                " bytes (a multiple of 16)"));
  }
  if (map.swizzle_128b && row_bytes > kSwizzleRowBytes) {
    return Invalid(absl::StrCat("the box's inner extent is ", row_bytes,
                                " bytes, over the 128-byte swizzle row"));
  }
  return absl::OkStatus();
}

// The byte just past the tensor's last element (dims and strides already
// checked: each term is below 2^72, so 128 bits cannot overflow).
unsigned __int128 TensorEndByte(const TensorMapDescription& map) {
  unsigned __int128 end = static_cast<unsigned __int128>(map.element_bytes);
  for (size_t i = 0; i < map.dims.size(); ++i) {
    end += static_cast<unsigned __int128>(map.dims[i] - 1) *
           static_cast<unsigned __int128>(map.strides[i]);
  }
  return end;
}

// `map` (already valid alone) over its argument's slice `s`.
absl::Status CheckSlice(const TensorMapDescription& map, const Slice& s) {
  if (s.allocation < 0) return Invalid("its argument has no buffer");
  if (s.offset % 16 != 0) {
    return Invalid(absl::StrCat("its argument starts at offset ", s.offset,
                                " (TMA needs 16-byte alignment)"));
  }
  if (TensorEndByte(map) > static_cast<unsigned __int128>(s.size)) {
    return Invalid(absl::StrCat("the tensor reaches past its argument's ",
                                s.size, " bytes"));
  }
  return absl::OkStatus();
}

const char* ElementName(int64_t element_bytes) {
  switch (element_bytes) {
    case 1:
      return "u8";
    case 2:
      return "u16";
    case 4:
      return "u32";
  }
  return "?";
}

}  // namespace

absl::Status ValidateTensorMap(const TensorMapDescription& map,
                               int64_t argument_count) {
  if (map.argument < 0 || map.argument >= argument_count) {
    return Invalid(absl::StrCat("argument ", map.argument,
                                " out of range (the kernel has ",
                                argument_count, ")"));
  }
  const int64_t rank = static_cast<int64_t>(map.dims.size());
  if (rank < 1 || rank > kMaxTensorMapRank) {
    return Invalid(absl::StrCat("rank ", rank, " (1 to 5)"));
  }
  if (static_cast<int64_t>(map.strides.size()) != rank ||
      static_cast<int64_t>(map.box.size()) != rank) {
    return Invalid(absl::StrCat(rank, " dims, ", map.strides.size(),
                                " strides, ", map.box.size(), " box extents"));
  }
  if (map.element_bytes != 1 && map.element_bytes != 2 &&
      map.element_bytes != 4) {
    return Invalid(
        absl::StrCat("element size ", map.element_bytes, " bytes (1, 2 or 4)"));
  }
  if (map.strides[0] != map.element_bytes) {
    return Invalid(absl::StrCat("stride 0 is ", map.strides[0],
                                ", not the element size ", map.element_bytes));
  }
  return CheckExtents(map);
}

absl::Status ValidateKernelTensorMaps(const Thunk& t) {
  const int64_t arguments = static_cast<int64_t>(t.arguments.size());
  for (size_t i = 0; i < t.tensor_maps.size(); ++i) {
    const TensorMapDescription& map = t.tensor_maps[i];
    absl::Status s = ValidateTensorMap(map, arguments);
    if (s.ok()) s = CheckSlice(map, t.arguments[map.argument]);
    if (!s.ok()) {
      return Invalid(absl::StrCat("tensor map ", i, " (argument ", map.argument,
                                  "): ", s.message()));
    }
  }
  return absl::OkStatus();
}

std::string TensorMapToString(const TensorMapDescription& map) {
  return absl::StrCat(
      "tma(arg ", map.argument, ": ", ElementName(map.element_bytes), " dims [",
      absl::StrJoin(map.dims, ","), "] strides [",
      absl::StrJoin(map.strides, ","), "] box [", absl::StrJoin(map.box, ","),
      "]", map.swizzle_128b ? " sw128" : "", ")");
}

}  // namespace xlite::runtime
