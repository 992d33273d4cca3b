// The generator writes valid modules: every seed's module parses and
// verifies, so does every byte string's (libFuzzer's inputs), and the
// modules cover the opcodes the generator promises.
#include "tests/fuzz/random_module.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
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

// What a dot of a dot fusion shape looks like, as the names the test
// below expects: its types, forms and operand layouts.
void DescribeDot(const HloInstruction& dot, std::set<std::string>& seen) {
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  seen.insert(absl::StrCat(PrimitiveTypeName(lhs.element_type()), "x",
                           PrimitiveTypeName(rhs.element_type()), "->",
                           PrimitiveTypeName(dot.shape().element_type())));
  const DotDimensionNumbers& d = dot.attrs().dot->dnums;
  if (!d.lhs_batch_dimensions.empty()) seen.insert("batch");
  const std::vector<int64_t> zero = {0}, one = {1};
  if (lhs.rank() == 2 && d.lhs_contracting_dimensions == zero) {
    seen.insert("lhs contracting 0");
  }
  if (rhs.rank() == 2 && d.rhs_contracting_dimensions == one) {
    seen.insert("rhs contracting 1");
  }
  for (const Shape* s : {&lhs, &rhs}) {
    if (s->rank() == 2 && s->has_layout() &&
        s->layout().minor_to_major()[0] == 0) {
      seen.insert("column-major");
    }
  }
  for (const Shape* s : {&lhs, &rhs}) {
    for (int64_t size : s->dimensions()) {
      if (size > 64) seen.insert("over a tile");
    }
  }
}

// The dot fusion shapes (RandomModuleOptions::dot_fusions) are valid too,
// and hold what the option promises.
TEST(RandomModule, DotFusionShapes) {
  RandomModuleOptions options;
  options.dot_fusions = true;
  options.max_elements = 40000;
  std::set<std::string> seen;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    SeededChoices choices(seed);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        RandomModule(choices, options);
    ASSERT_TRUE(module.ok())
        << "seed " << seed << ": " << module.status().message();
    for (const HloInstruction* i :
         (*module)->entry_computation()->instructions()) {
      seen.insert(std::string(HloOpcodeString(i->opcode())));
      if (i->opcode() == HloOpcode::kDot) DescribeDot(*i, seen);
    }
  }
  const char* promised =
      "convert,transpose,broadcast,reshape,copy,divide,add,maximum,tanh,"
      "logistic,reduce,slice,negate,select,clamp,call,"
      "f32xf32->f32,bf16xbf16->bf16,bf16xbf16->f32,f16xf16->f16,s8xs8->s32,"
      "f8e4m3fnxf8e4m3fn->f32,f8e4m3fnxf8e4m3fn->bf16,f8e5m2xf8e5m2->f32,"
      "f8e4m3fnxf8e5m2->bf16,bf16xf32->f32,"
      "batch,lhs contracting 0,rhs contracting 1,column-major,over a tile";
  for (const std::string& want :
       std::vector<std::string>(absl::StrSplit(promised, ','))) {
    EXPECT_TRUE(seen.count(want)) << "no " << want << " in 1000 modules";
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
