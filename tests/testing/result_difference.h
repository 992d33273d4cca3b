#ifndef XLITE_TESTS_TESTING_RESULT_DIFFERENCE_H_
#define XLITE_TESTS_TESTING_RESULT_DIFFERENCE_H_

// The tolerance policy of cross-platform translation validation (the cpu
// backend against the interpreter): integers, pred and the bits of
// everything else that is not a float compare exactly; floats and
// complex numbers within 1e-3 absolute + 1e-3 relative, NaN where NaN
// (any NaN), infinities exactly.

#include <string>

#include "hlo/ir/literal.h"

namespace xlite::testing {

/// "" when `got` matches `want` under the policy; otherwise the first
/// difference ("result 1 element 3: 2 vs 5").
std::string ResultDifference(const Literal& got, const Literal& want);

}  // namespace xlite::testing

#endif  // XLITE_TESTS_TESTING_RESULT_DIFFERENCE_H_
