#ifndef XLITE_GPU_BACKEND_EMULATOR_WARPGROUP_MMA_H_
#define XLITE_GPU_BACKEND_EMULATOR_WARPGROUP_MMA_H_

// What one warpgroup-wide `wgmma.mma_async.sync.aligned.m64nNkK` with
// both operands in shared memory computes, for the emulator: the two
// matrix descriptors are decoded here from the PTX ISA's "Matrix
// Descriptor Format" and "Shared Memory Matrix Layout" (no swizzling or
// the 128-byte swizzle, applied to the shared address as TMA writes it;
// K-major, or MN-major for transposed f16 and bf16 operands),
// independently of the emitter's encoder (codegen/gpu/wgmma_layout.h), and
// the 128 threads' accumulators are read and written by the ISA's
// fragment layout for D, so that a slip on either side shows up as a
// wrong answer or an error on the emulator instead of only on a GPU.
//
// Numbers: each D element is D plus the K products summed in K order in
// f32 (s32 for s8, wrapping); f16, bf16 and f8 products are exact in f32,
// tf32 operands drop their low 13 mantissa bits first.

#include <cstdint>
#include <string>
#include <vector>

namespace xlite::gpu::emulator {

/// The op word EmulatorTarget passes: codegen::WgmmaKind's value (A's)
/// in bits 0-7, N in bits 8-19, trans-a in bit 20, trans-b in bit 21, and
/// B's kind plus one in bits 24-30 where it differs (e4m3 x e5m2; `kind_b`
/// < 0: the same as A's).
int32_t WgmmaOpWord(int32_t kind, int64_t n, bool trans_a, bool trans_b,
                    int32_t kind_b = -1);

/// Bytes [lo, hi) of the block's shared memory.
struct WgmmaSpan {
  int64_t lo = 0, hi = 0;
};

/// The shared bytes the wgmma `op` with `desc_a` and `desc_b` reads: the
/// span of A's elements in spans[0], of B's in spans[1] (each element
/// inside, not each byte of the span read). Returns an error message for a
/// bad op word, or "".
std::string WgmmaReadSpans(int32_t op, uint64_t desc_a, uint64_t desc_b,
                           WgmmaSpan spans[2]);

/// The bytes of every element the wgmma reads, A's then B's, in element
/// order (elements outside `shared_bytes` are skipped: the wgmma fails on
/// them); empty for a bad op.
std::vector<uint8_t> WgmmaReadBytes(int32_t op, uint64_t desc_a,
                                    uint64_t desc_b, const uint8_t* shared,
                                    int64_t shared_bytes);

/// Whether the wgmma reads any of bytes [lo, hi) (false for a bad op).
bool WgmmaReadsAny(int32_t op, uint64_t desc_a, uint64_t desc_b, int64_t lo,
                   int64_t hi);

/// Reads the rows x k operand of `kind` (codegen::WgmmaKind's value) the
/// wgmma descriptor `desc` gives (transposed: MN-major) from `shared`
/// into `out`, row by row, as floats (s8 exactly); "" or an error naming
/// the operand `name`.
std::string ReadWarpgroupOperand(const std::string& name, uint64_t desc,
                                 int32_t kind, bool transposed, int64_t rows,
                                 int64_t k, const uint8_t* shared,
                                 int64_t shared_bytes, std::vector<float>& out);

/// The shared bytes [lo, hi) such an operand's elements span.
WgmmaSpan WarpgroupOperandSpan(uint64_t desc, int32_t kind, bool transposed,
                               int64_t rows, int64_t k);

/// Thread i's accumulators c[i] (N / 2 each, f32 or s32 bits) become
/// d[i] (which may be c[i]). `shared` is the block's shared memory of
/// `shared_bytes`. Returns an error message (a descriptor the emulator
/// does not model, a read outside shared memory, a bad op), or "".
std::string ComputeWarpgroupMma(int32_t op, uint64_t desc_a, uint64_t desc_b,
                                const uint8_t* shared, int64_t shared_bytes,
                                const int32_t* const c[128],
                                int32_t* const d[128]);

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_WARPGROUP_MMA_H_
