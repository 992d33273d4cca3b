#include "gpu_backend/emulator/tma_box.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace xlite::gpu::emulator {

int64_t TmaBoxBytes(const EmulatedTensorMap& map) {
  int64_t bytes = map.element_bytes;
  for (uint32_t d = 0; d < map.rank && d < 5; ++d) bytes *= map.box[d];
  return bytes;
}

namespace {

std::string CheckMap(const EmulatedTensorMap& map) {
  if (map.rank < 1 || map.rank > 5 ||
      (map.element_bytes != 1 && map.element_bytes != 2 &&
       map.element_bytes != 4) ||
      map.box[0] * map.element_bytes % 16 != 0 ||
      (map.swizzle_128b != 0 && map.box[0] * map.element_bytes > 128)) {
    return absl::StrCat("cp.async.bulk.tensor: a bad tensor map (rank ",
                        map.rank, ", ", map.element_bytes,
                        "-byte elements, inner box ", map.box[0], ")");
  }
  for (uint32_t d = 0; d < map.rank; ++d) {
    if (map.box[d] < 1 || map.box[d] > 256 || map.dims[d] < 1) {
      return absl::StrCat("cp.async.bulk.tensor: tensor map dimension ", d,
                          " has size ", map.dims[d], " and box ", map.box[d]);
    }
  }
  return "";
}

}  // namespace

std::string GatherTmaBox(const EmulatedTensorMap& map, const int32_t* coords,
                         int64_t dst, int64_t shared_bytes,
                         std::vector<MbarrierTable::Chunk>& chunks) {
  if (std::string e = CheckMap(map); !e.empty()) return e;
  const int64_t align = map.swizzle_128b != 0 ? 1024 : 128;
  const int64_t total = TmaBoxBytes(map);
  if (dst % align != 0 || dst < 0 || dst + total > shared_bytes) {
    return absl::StrCat("cp.async.bulk.tensor: a box of ", total,
                        " bytes to shared byte ", dst, " (of ", shared_bytes,
                        "; it must be ", align, "-byte aligned)");
  }
  const int64_t bytes = map.element_bytes;
  const int64_t row_elements = map.box[0];
  const int64_t rows = total / (row_elements * bytes);
  chunks.assign(total / 16, MbarrierTable::Chunk{});
  for (int64_t r = 0; r < rows; ++r) {
    // The row's coordinates along dimensions 1.. (dimension 1 fastest).
    int64_t rest = r, offset = 0;
    bool inside = true;
    for (uint32_t d = 1; d < map.rank; ++d) {
      const int64_t c = coords[d] + rest % map.box[d];
      rest /= map.box[d];
      inside &= c >= 0 && c < static_cast<int64_t>(map.dims[d]);
      offset += c * static_cast<int64_t>(map.strides[d]);
    }
    for (int64_t i = 0; i < row_elements; ++i) {
      const int64_t at = (r * row_elements + i) * bytes;  // in the box
      const int64_t c0 = coords[0] + i;
      MbarrierTable::Chunk& chunk = chunks[at / 16];
      if (inside && c0 >= 0 && c0 < static_cast<int64_t>(map.dims[0])) {
        const auto* src =
            reinterpret_cast<const uint8_t*>(map.address + offset + c0 * bytes);
        std::memcpy(chunk.bytes + at % 16, src, bytes);
      }
    }
  }
  for (size_t c = 0; c < chunks.size(); ++c) {
    const int64_t at = dst + static_cast<int64_t>(c) * 16;
    chunks[c].at = map.swizzle_128b != 0 ? at ^ (((at >> 7) & 7) << 4) : at;
  }
  return "";
}

}  // namespace xlite::gpu::emulator
