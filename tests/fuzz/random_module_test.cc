// The generator writes valid modules: every seed's module parses and
// verifies, so does every byte string's (libFuzzer's inputs), and the
// modules cover the opcodes the generator promises.
#include "tests/fuzz/random_module.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "hlo/ir/opcode.h"

namespace xlite::fuzz {
namespace {

constexpr int kSeeds = 2000;

TEST(RandomModule, EverySeedParsesAndVerifies) {
  std::set<std::string> opcodes;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    SeededChoices choices(seed);
    absl::StatusOr<std::unique_ptr<HloModule>> module = RandomModule(choices);
    ASSERT_TRUE(module.ok()) << "seed " << seed << ": "
                             << module.status().message();
    for (const HloComputation* c : (*module)->computations()) {
      for (const HloInstruction* i : c->instructions()) {
        opcodes.insert(std::string(HloOpcodeString(i->opcode())));
      }
    }
  }
  for (const char* op :
       {"abs", "add", "atan2", "bitcast-convert", "broadcast", "call",
        "clamp", "compare", "complex", "concatenate", "conditional",
        "constant", "convert", "convolution", "copy", "dot",
        "dynamic-slice", "dynamic-update-slice", "fusion", "gather",
        "get-tuple-element", "iota", "map", "pad", "parameter", "reduce",
        "reduce-precision", "reduce-window", "reshape", "reverse",
        "rng-bit-generator", "scatter", "select", "slice", "sort", "topk",
        "transpose", "tuple", "while", "shift-right-arithmetic", "popcnt",
        "count-leading-zeros", "erf", "round-nearest-even"}) {
    EXPECT_TRUE(opcodes.count(op)) << "no " << op << " in " << kSeeds
                                   << " modules";
  }
}

TEST(RandomModule, ArbitraryReducersToo) {
  RandomModuleOptions options;
  options.arbitrary_reducers = true;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    SeededChoices choices(seed);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        RandomModule(choices, options);
    ASSERT_TRUE(module.ok()) << "seed " << seed << ": "
                             << module.status().message();
  }
}

TEST(RandomModule, SameSeedSameModule) {
  SeededChoices a(7), b(7);
  EXPECT_EQ(RandomModuleText(a), RandomModuleText(b));
}

TEST(RandomModule, EveryByteStringGivesAValidModule) {
  std::mt19937_64 gen(1);
  for (int n = 0; n < 500; ++n) {
    std::string bytes(gen() % 300, '\0');
    for (char& b : bytes) b = static_cast<char>(gen());
    ByteChoices choices(reinterpret_cast<const uint8_t*>(bytes.data()),
                        bytes.size());
    absl::StatusOr<std::unique_ptr<HloModule>> module = RandomModule(choices);
    ASSERT_TRUE(module.ok()) << module.status().message();
  }
  ByteChoices empty(nullptr, 0);
  EXPECT_TRUE(RandomModule(empty).ok());
}

}  // namespace
}  // namespace xlite::fuzz
