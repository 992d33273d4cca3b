#include "gpu_backend/emulator/warp_ldmatrix.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace xlite::gpu::emulator {

std::string ComputeWarpLdMatrix(int32_t count, const int64_t rows[32],
                                const uint8_t* shared, int64_t shared_bytes,
                                int32_t* const out[32]) {
  if (count != 1 && count != 2 && count != 4) {
    return absl::StrCat("ldmatrix of ", count, " matrices (1, 2 or 4)");
  }
  for (int lane = 0; lane < 8 * count; ++lane) {
    const int64_t at = rows[lane];
    if (at < 0 || at + 16 > shared_bytes || at % 16 != 0) {
      return absl::StrCat("ldmatrix: lane ", lane,
                          "'s row address (shared byte ", at,
                          ") is not a 16-byte aligned row inside the ",
                          shared_bytes, " bytes of the block");
    }
  }
  for (int lane = 0; lane < 32; ++lane) {
    for (int j = 0; j < count; ++j) {
      // Row lane / 4 of matrix j: the address lane 8 j + lane / 4 gave.
      const int64_t row = rows[8 * j + lane / 4];
      std::memcpy(&out[lane][j], shared + row + 4 * (lane % 4), 4);
    }
  }
  return "";
}

}  // namespace xlite::gpu::emulator
