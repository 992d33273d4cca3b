#ifndef XLITE_CODEGEN_TESTING_TEST_VALUES_H_
#define XLITE_CODEGEN_TESTING_TEST_VALUES_H_

// Test-only: input arrays for differential tests of elementwise code — the
// edge values of each type (zeros of both signs, infinities, NaNs with
// payloads, denormals, the integer extremes, -1, shift counts around the
// width, conversion boundaries) and seeded random values.

#include <cstdint>
#include <utility>

#include "hlo/ir/literal.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::codegen::testing {

/// Every bit pattern of `type` (BitWidth(type) <= 16; pred: false, true).
Literal AllBitPatterns(PrimitiveType type);

/// `count` values of `type`: its edge values (as many as fit), then random
/// ones.
Literal EdgeAndRandom(PrimitiveType type, int64_t count, uint64_t seed);

/// Operand pairs: every pair of bit patterns for types of at most 8 bits;
/// otherwise every pair of edge values followed by `random_pairs` random
/// pairs.
std::pair<Literal, Literal> OperandPairs(PrimitiveType type,
                                         int64_t random_pairs, uint64_t seed);

/// Unary inputs: every bit pattern for types of at most 16 bits, else
/// EdgeAndRandom(type, count, seed).
Literal UnaryInputs(PrimitiveType type, int64_t count, uint64_t seed);

}  // namespace xlite::codegen::testing

#endif  // XLITE_CODEGEN_TESTING_TEST_VALUES_H_
