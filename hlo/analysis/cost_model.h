#ifndef XLITE_HLO_ANALYSIS_COST_MODEL_H_
#define XLITE_HLO_ANALYSIS_COST_MODEL_H_

// What one execution of an instruction costs, as a roofline needs it: the
// bytes it moves between memory and the core, and the arithmetic it does.
// A function of the instruction alone, so every backend (the CPU profiler
// today, GPU fusion decisions later) reads the same numbers.
//
// The model, per execution:
//   bytes   every operand leaf read once and every result leaf written once,
//           except where an instruction touches only part of an array:
//           slice, dynamic-slice and gather read only what they return;
//           an in-place dynamic-update-slice reads the update and the start
//           indices and writes the update window; an in-place scatter reads
//           indices, updates and the old values under them, and writes the
//           updated elements. A fusion counts its own operands and results,
//           a parameter read only by slices counting only those slices.
//   flops   an element-wise op (conversions included, a transcendental
//           counting as one) is one per result element; reduce: input
//           elements x the reducer's ops; reduce-window: result elements x
//           window x reducer ops; dot: 2 x result elements x contracted
//           size (2*M*N*K*batch); convolution: 2 x result elements x kernel
//           window x input features per group; a fusion sums its fused
//           instructions. Data movement, generators and control flow count
//           none (a loop's body is counted where its instructions run).

#include <cstdint>

#include "hlo/ir/instruction.h"

namespace xlite {

struct HloCost {
  /// Arithmetic operations (floating-point or integer).
  int64_t flops = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;

  int64_t bytes() const { return bytes_read + bytes_written; }
};

/// The cost of one execution of `hlo`. `updates_in_place`: whether a
/// dynamic-update-slice or scatter (or a fusion rooted at one) writes into
/// its operand's buffer, as buffer assignment arranges when it can; false
/// counts the copy of the whole operand.
HloCost CostOf(const HloInstruction& hlo, bool updates_in_place = true);

/// The arithmetic of one application of a scalar computation (a reducer,
/// comparator or combiner): its computing instructions, at least one.
int64_t ScalarComputationFlops(const HloComputation& computation);

}  // namespace xlite

#endif  // XLITE_HLO_ANALYSIS_COST_MODEL_H_
