#ifndef XLITE_CPU_BACKEND_CONTRACTION_STRATEGY_H_
#define XLITE_CPU_BACKEND_CONTRACTION_STRATEGY_H_

// How the cpu backend computes a dot or a convolution: through the runtime
// library's Eigen GEMM (xlite_cpu_matmul, xlite_cpu_conv) or as emitted
// loops (the elemental emitter, one accumulation loop per output element).
// The decision is made here and nowhere else, from the instruction alone
// (shapes, element types, dimension numbers, window; never buffers), so
// that an HLO pass can ask it too: a fusion pass must not fuse producers
// into, or consumers onto, a contraction that goes to the library, since
// the library call reads and writes whole arrays in memory.
//
// The library takes a contraction when
//  - its element types are ones Eigen computes as XLA:CPU does: real
//    floats f16, bf16, f32, f64 on both operands and the result
//    (accumulated in f32, or f64 when any side is f64: narrow operands are
//    widened exactly before the product and the result rounded once, as
//    XLA:CPU's f16-to-f32 rewrite of dots and convolutions and the
//    evaluator do), or c64 / c128 throughout. Integer, pred and 8-bit
//    float contractions stay emitted, so they stay exact and XLA's;
//  - it is large enough that the call, and the copies into the dense
//    layouts the library reads, pay for themselves. Measured against the
//    emitted loops with hlo-run (figures in the .cc): a dot needs at least
//    8192 multiply-adds (batch * m * n * k) and a contracted size k of at
//    least 24 (16 for complex types: short contractions stay faster as
//    loops); a convolution at least 65536 multiply-adds, a patch depth
//    (window elements * input features) of at least 24 and input features
//    * output features of at least 32 (im2col of thin features costs more
//    than it saves). When f16 is on any side 512 multiply-adds suffice,
//    since the emitted loops convert every f16 element in software;
//  - for a convolution: 1 to 3 spatial dimensions, feature_group_count and
//    batch_group_count 1, no zero-sized dimension (any padding, strides,
//    dilations and window reversal).
// Operand and result layouts never decide: arrays the library cannot read
// in place are copied into a dense temporary.

#include <cstdint>
#include <optional>

#include "hlo/ir/instruction.h"

namespace xlite::cpu {

/// True when the cpu backend computes `hlo` by the runtime library's GEMM:
/// a `dot`, or a fusion that only wraps one (its root a dot whose operands
/// reach fusion parameters through nothing but bitcast, transpose and
/// copy), meeting the conditions above. False for anything else.
bool DotUsesLibrary(const HloInstruction& hlo);

/// True when the cpu backend computes `hlo` (a `convolution`) by im2col and
/// the runtime library's GEMM (xlite_cpu_conv). False for anything else.
bool ConvolutionUsesLibrary(const HloInstruction& hlo);

// The parts of the decision the emitter reuses.

/// The type the library computes a contraction of these element types in
/// (f32 or f64 for real floats, c64 or c128), or nullopt when the types
/// are not ones it takes.
std::optional<PrimitiveType> LibraryComputeType(PrimitiveType lhs,
                                                PrimitiveType rhs,
                                                PrimitiveType result);

/// The dot `hlo` computes: itself for a `dot`, the fused root for a fusion
/// that only wraps a dot (see DotUsesLibrary); null otherwise.
const HloInstruction* WrappedDot(const HloInstruction& hlo);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_CONTRACTION_STRATEGY_H_
