#ifndef XLITE_GPU_BACKEND_EMULATOR_WARP_LDMATRIX_H_
#define XLITE_GPU_BACKEND_EMULATOR_WARP_LDMATRIX_H_

// What one warp-wide `ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16`
// gives, for the emulator, from the PTX ISA's description: matrix j's 8
// rows (16 bytes each) come from the addresses lanes 8j .. 8j + 7 hold
// (lane 8j + r: row r), and lane i receives, of every matrix, the 32-bit
// word i % 4 of row i / 4 (b16 elements 2 (i % 4) and the next). Written
// apart from the kernel emitter's use of it (codegen/gpu/tiled_gemm_mma.cc),
// so that an address slip shows up on the emulator as a wrong answer.

#include <cstdint>
#include <string>

namespace xlite::gpu::emulator {

/// Lane l's row address is `rows[l]`, a byte offset into the block's
/// `shared` memory of `shared_bytes`; lane l's `count` registers go to
/// out[l]. Returns an error message (a bad count, a row address lanes
/// 0 .. 8 count - 1 give that is not 16-byte aligned or not inside shared
/// memory) or "".
std::string ComputeWarpLdMatrix(int32_t count, const int64_t rows[32],
                                const uint8_t* shared, int64_t shared_bytes,
                                int32_t* const out[32]);

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_WARP_LDMATRIX_H_
