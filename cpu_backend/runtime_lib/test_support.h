#ifndef XLITE_CPU_BACKEND_RUNTIME_LIB_TEST_SUPPORT_H_
#define XLITE_CPU_BACKEND_RUNTIME_LIB_TEST_SUPPORT_H_

// For the runtime library's tests (testonly): random operands, the
// evaluator's result of a module written as text, and comparison with the
// corpus conformance test's tolerances (tests/corpus/
// evaluator_conformance_test.cc).

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "hlo/ir/literal.h"

namespace xlite::rtlib_test {

/// (absolute, relative) tolerance of an element type, as the corpus.
std::pair<double, double> Tolerance(PrimitiveType type);

/// A literal of `shape` with random elements: real and imaginary parts
/// uniform in [lo, hi] for floats (rounded to the type), integers uniform in
/// [lo, hi] clamped to the type's range, pred 0/1.
Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng, double lo = -1,
                      double hi = 1);

/// Parses and verifies `hlo` and evaluates it on `args`.
absl::StatusOr<Literal> EvaluateHlo(const std::string& hlo,
                                    absl::Span<const Literal> args);

/// A literal of `shape` whose elements are the bytes at `data`.
Literal FromBytes(const Shape& shape, const void* data);

/// Every element of `got` equals `want`'s: bits for integers and pred,
/// within Tolerance for floats and complex (NaN matching NaN); tuples leaf
/// by leaf.
::testing::AssertionResult Near(const Literal& want, const Literal& got);

/// The bytes of `batch` rows x cols matrices of `bytes_per_element`, each
/// transposed (row-major <-> column-major).
std::vector<uint8_t> TransposeMatrices(const std::vector<uint8_t>& data,
                                       int64_t batch, int64_t rows,
                                       int64_t cols, int64_t bytes_per_element);

}  // namespace xlite::rtlib_test

#endif  // XLITE_CPU_BACKEND_RUNTIME_LIB_TEST_SUPPORT_H_
