#ifndef XLITE_TESTS_FUZZ_RANDOM_MODULE_H_
#define XLITE_TESTS_FUZZ_RANDOM_MODULE_H_

// A random HLO module generator, valid by construction: every module it
// writes parses and passes the verifier (the generator's own test checks
// this for thousands of seeds). The entry computation is a DAG of random
// instructions over random shapes (rank 0-4, size-0 and size-1
// dimensions, non-default layouts) and element types (pred, s1..s64,
// u1..u64, f16, bf16, f32, f64, c64, c128, every f8 type, f4e2m1fn,
// f8e8m0fnu), drawing from every elementwise opcode, compare (with its
// directions and total order), select, clamp, the conversions, the data
// movement opcodes (broadcast, reshape, transpose, slice, dynamic slices,
// pad with negative and interior padding, concatenate, reverse, iota,
// gather, scatter), reductions (variadic reduce and reduce-window with
// arbitrary reducers, sort with a comparator, map), dot and convolution,
// while loops with bounded trip counts, conditionals, calls, kLoop and
// kInput fusions, tuples, rng-bit-generator and topk.
//
// The generator only writes modules whose results XLA defines: float
// values whose NaN sign might differ between implementations never reach
// a bitcast-convert or a total-order comparison, sorts of several
// operands are stable, the `rng` opcode (unspecified bits) is not used.
//
//   SeededChoices choices(seed);
//   std::string text = RandomModuleText(choices);

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"
#include "tests/fuzz/choice_source.h"

namespace xlite::fuzz {

struct RandomModuleOptions {
  /// Upper bound on the instructions drawn for the entry computation
  /// (at least 1 is drawn; operand adaptation and called computations add
  /// a few more).
  int max_instructions = 30;
  /// Upper bound on the elements of any array the module holds.
  int64_t max_elements = 256;
  /// How deep called computations nest (a while body holding a call, ...).
  int max_depth = 2;
  /// Reducers that are not monoids and init values that are not their
  /// identities (results XLA leaves undefined; xlite promises XLA:CPU's
  /// order). Off: add, multiply, max, min, and, or, xor, arg-max.
  bool arbitrary_reducers = false;
  /// Every transpose takes an operand of rank 2 or 3 whose
  /// dimensions are all at least 16 (as many as max_elements allows), so
  /// that the GPU's tiled transpose kernel is reached (when the
  /// permutation moves the minor dimension). Off: every draw as before.
  bool tile_sized_transposes = false;
  /// The entry computation is one to three dot fusion shapes instead: a
  /// dot (plain, transposed operands, batch dimensions, column-major
  /// layouts; f32, bf16, f16, s8 x s8 -> s32, f8 into f32 or bf16, mixed
  /// floats; sides of 1-80 and tile multiples, K up to 300) whose operands
  /// come through converts, transposes, broadcasts, reshapes, copies and
  /// scalar scales, then an elementwise epilogue (bias, ReLU, tanh GELU,
  /// SiLU, scale, convert, residual add), the dot's or an epilogue value
  /// sometimes read by a second user. These are the shapes the GPU's
  /// tiled GEMM fusion gathers into one kernel
  /// (passes/tiled_gemm_fusion.h; random_dot_fusions.cc); arrays hold at
  /// most max_elements elements (tens of thousands make several tiles).
  /// The other opcode families are not drawn. Off: every draw as before.
  bool dot_fusions = false;
};

/// The HLO text of a random module.
std::string RandomModuleText(ChoiceSource& choices,
                             const RandomModuleOptions& options = {});

/// RandomModuleText parsed and verified; an error here is a generator bug
/// (the message holds the text).
absl::StatusOr<std::unique_ptr<HloModule>> RandomModule(
    ChoiceSource& choices, const RandomModuleOptions& options = {});

}  // namespace xlite::fuzz

#endif  // XLITE_TESTS_FUZZ_RANDOM_MODULE_H_
