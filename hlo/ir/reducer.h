#ifndef XLITE_HLO_IR_REDUCER_H_
#define XLITE_HLO_IR_REDUCER_H_

// What a reduction's applied computation (its reducer) is, as far as the
// order of folding goes.

#include "hlo/ir/computation.h"

namespace xlite {

/// True when `reducer` is one binary operation on its two parameters whose
/// fold gives the same value in any order and grouping: maximum and
/// minimum (floating point too: exact, and NaN wins either way), integer
/// add and multiply (wrapping), and, or, xor on integers and pred. A
/// floating-point add or multiply is not (rounding depends on the order).
/// Two folds of one NaN-holding input may still carry different NaN
/// payloads.
bool IsReassociableReducer(const HloComputation& reducer);

/// True when single-operand reduce `reduce` gives the same value however
/// its elements are grouped, the init value included in any number of the
/// groups (as XLA:CPU's tree order includes it in every window): its
/// reducer is reassociable and either idempotent (maximum, minimum, and,
/// or) or its init value is a constant identity of it (0 for add and xor,
/// 1 for multiply).
bool IsReassociableReduce(const HloInstruction& reduce);

}  // namespace xlite

#endif  // XLITE_HLO_IR_REDUCER_H_
