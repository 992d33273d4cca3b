#ifndef XLITE_CODEGEN_GPU_WGMMA_LAYOUT_H_
#define XLITE_CODEGEN_GPU_WGMMA_LAYOUT_H_

// The shared-memory layout the warpgroup GEMM loop (tiled_gemm_wgmma.cc)
// keeps its operand tiles in, and the matrix descriptors wgmma reads them
// through (PTX ISA, "Matrix Descriptor Format" and "Shared Memory Matrix
// Layout"; no swizzling, K-major):
//   - a core matrix is 8 rows (along M or N) of 16 bytes (along K), the
//     rows one after the other: 128 contiguous bytes;
//   - core matrices adjacent along K are LBO bytes apart, along M or N
//     SBO bytes apart.
// A tile of R rows and K columns keeps each group of 8 rows' core
// matrices together along K: LBO = 128, SBO = 128 * K / (16 bytes of
// elements). Element (f, kk) (of `bytes` bytes) lies at byte
//   (f / 8) * SBO + (kk / E) * 128 + (f % 8) * 16 + (kk % E) * bytes,
// E = 16 / bytes. One wgmma reads 32 bytes of K (two core matrices)
// and 64 rows (A) or N rows (B).
//
// MN-major (transposed; f16 and bf16 only): a core matrix is 8 rows along
// K of 16 bytes along M or N; LBO still steps along K and SBO along M or
// N. Tiles keep each 8 K rows' core matrices together along M or N:
// SBO = 128, LBO = 128 * R / 8, and element (f, kk) lies at byte
//   (f / 8) * SBO + (kk / 8) * LBO + (kk % 8) * 16 + (f % 8) * 2.

#include <cstdint>

#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen::gpu {

/// Bytes between core matrices adjacent along K in every tile.
inline constexpr int64_t kWgmmaCoreBytes = 128;

/// The SBO of a tile whose rows span `block_k` elements of `bytes`.
inline int64_t WgmmaTileSbo(int64_t block_k, int64_t bytes) {
  return block_k * bytes / 16 * kWgmmaCoreBytes;
}

/// The 64-bit descriptor of the matrix starting at shared address
/// `address` (i32, 16-byte aligned) with `lbo` and `sbo`, no swizzling:
/// bits 0-13 address / 16, 16-29 lbo / 16, 32-45 sbo / 16, base offset
/// 0, swizzle mode 0 (bits 62-63).
inline llvm::Value* WgmmaDescriptor(llvm::IRBuilderBase& b,
                                    llvm::Value* address, int64_t lbo,
                                    int64_t sbo) {
  llvm::Value* start = b.CreateAnd(
      b.CreateLShr(b.CreateZExt(address, b.getInt64Ty()), 4), 0x3FFF);
  const uint64_t fields = ((static_cast<uint64_t>(lbo) >> 4) & 0x3FFF) << 16 |
                          ((static_cast<uint64_t>(sbo) >> 4) & 0x3FFF) << 32;
  return b.CreateOr(start, b.getInt64(fields));
}

}  // namespace xlite::codegen::gpu

#endif  // XLITE_CODEGEN_GPU_WGMMA_LAYOUT_H_
