#ifndef XLITE_GPU_BACKEND_EMULATOR_WARP_MMA_H_
#define XLITE_GPU_BACKEND_EMULATOR_WARP_MMA_H_

// What one warp-wide `mma.sync.aligned.m16n8kK.row.col` computes, for the
// emulator: the 32 lanes' fragment registers are read back into A (16xK),
// B (Kx8) and C (16x8) by the PTX ISA's fragment tables, written here from
// the ISA's text and independently of the kernel emitter's own table
// (codegen/gpu/mma_fragments.h), so that a layout slip on either side
// shows up as a wrong answer on the emulator instead of only on a GPU.
//
// Numbers: each D element is C plus the K products summed in K order in
// f32 (s32 for s8, wrapping). f16 and bf16 products are exact in f32;
// tf32 operands drop their low 13 mantissa bits first, as tensor cores
// ignore them. (A GPU sums in another, unspecified order, so its last bits
// may differ.)

#include <cstdint>

namespace xlite::gpu::emulator {

/// Lane l's registers: a[l] (4 i32), b[l] (2 i32), c[l] (4, f32 or s32
/// bits); writes d[l] (4). `kind` is codegen::MmaKind's value.
void ComputeWarpMma(int32_t kind, const int32_t* const a[32],
                    const int32_t* const b[32], const int32_t* const c[32],
                    int32_t* const d[32]);

/// The K of `kind` (16, 16, 8, 32), or 0 for an unknown kind.
int WarpMmaK(int32_t kind);

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_WARP_MMA_H_
