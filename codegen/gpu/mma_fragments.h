#ifndef XLITE_CODEGEN_GPU_MMA_FRAGMENTS_H_
#define XLITE_CODEGEN_GPU_MMA_FRAGMENTS_H_

// Where a lane's registers of one `mma.sync.aligned.m16n8kK.row.col` sit
// in A (16xK), B (Kx8) and C/D (16x8), for the kinds of MmaKind
// (codegen/kernel_target.h), from the PTX ISA's fragment tables. With
// g = lane / 4 and t = lane % 4, and `per` elements per 32-bit register
// (2 for f16/bf16, 1 for tf32, 4 for s8), every kind has the same shape:
//   A register r (0..3): row g + 8 (r % 2), columns
//       t * per + (r / 2) * K/2 and the per - 1 after it (low bits first);
//   B register r (0..1): rows t * per + r * K/2 and the per - 1 after it,
//       column g;
//   C/D element i (0..3): row g + 8 (i / 2), column 2t + i % 2.
// Consecutive elements of a register are consecutive in K, so a K-major
// tile in shared memory gives each register with one 32-bit load.
// (The emulator decodes the same registers from the ISA's per-element
// formulas, gpu_backend/emulator/warp_mma.cc, written separately.)

#include <cstdint>

#include "codegen/kernel_target.h"

namespace xlite::codegen::gpu {

/// K of one mma: 16 (f16, bf16), 8 (tf32), 32 (s8).
inline int64_t MmaK(MmaKind kind) {
  return kind == MmaKind::kTF32 ? 8 : kind == MmaKind::kS8 ? 32 : 16;
}

/// Operand elements per 32-bit fragment register.
inline int64_t MmaElementsPerRegister(MmaKind kind) {
  return kind == MmaKind::kTF32 ? 1 : kind == MmaKind::kS8 ? 4 : 2;
}

/// A register r: its row past g, and its first column past t * per.
inline int64_t MmaARowOffset(int64_t r) { return 8 * (r % 2); }
inline int64_t MmaAColumnOffset(MmaKind kind, int64_t r) {
  return (r / 2) * (MmaK(kind) / 2);
}

/// B register r: its first row (K) past t * per.
inline int64_t MmaBRowOffset(MmaKind kind, int64_t r) {
  return r * (MmaK(kind) / 2);
}

/// C/D element i: its row past g and its column past 2t.
inline int64_t MmaCRowOffset(int64_t i) { return 8 * (i / 2); }
inline int64_t MmaCColumnOffset(int64_t i) { return i % 2; }

}  // namespace xlite::codegen::gpu

#endif  // XLITE_CODEGEN_GPU_MMA_FRAGMENTS_H_
