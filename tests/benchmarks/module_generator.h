#ifndef XLITE_TESTS_BENCHMARKS_MODULE_GENERATOR_H_
#define XLITE_TESTS_BENCHMARKS_MODULE_GENERATOR_H_

#include <cstdint>
#include <string>

namespace xlite {

/// HLO text of a synthetic module shaped like a JAX training step dump:
/// repeated layers of dot, broadcast, elementwise math, reduce (with a
/// to_apply), reshape/transpose, compare/select, convert, slices and
/// concatenates, fusions with their fused computations, every instruction
/// carrying metadata. Has at least `min_instructions` instructions.
std::string GenerateLargeModule(int64_t min_instructions);

}  // namespace xlite

#endif  // XLITE_TESTS_BENCHMARKS_MODULE_GENERATOR_H_
