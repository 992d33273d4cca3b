// Split-K: the rewritten module computes what the dot did (exactly here:
// small integers sum exactly in any order), with the contracting
// dimension padded to a multiple of the parts and split into a leading
// batch dimension, for plain, transposed and batched dots, floats and
// s8 -> s32; and the partial dot keeps precision and algorithm.
#include "passes/tiled_gemm_split_k.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/opcode.h"
#include "hlo/text/parser.h"

namespace xlite {
namespace {

std::vector<Literal> SmallIntegers(const HloModule& m) {
  std::vector<Literal> args;
  const HloComputation& entry = *m.entry_computation();
  for (int64_t p = 0; p < entry.num_parameters(); ++p) {
    Literal l(entry.parameter_instruction(p)->shape());
    for (int64_t i = 0; i < l.element_count(); ++i) {
      l.SetFromDouble(i, static_cast<double>((i * 7 + p * 3) % 9) - 4);
    }
    args.push_back(std::move(l));
  }
  return args;
}

HloInstruction* RootDot(HloModule& m) {
  for (HloInstruction* h : m.entry_computation()->instructions()) {
    if (h->opcode() == HloOpcode::kDot) return h;
  }
  return nullptr;
}

void ExpectSameResults(const std::string& text, int64_t splits,
                       const std::vector<int64_t>& partial_dims) {
  SCOPED_TRACE(text);
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> args = SmallIntegers(**module);
  absl::StatusOr<Literal> want = EvaluateModule(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  HloInstruction* dot = RootDot(**module);
  ASSERT_TRUE(CanSplitK(*dot));
  absl::StatusOr<HloInstruction*> partial = SplitK(dot, splits);
  ASSERT_TRUE(partial.ok()) << partial.status();
  EXPECT_EQ(std::vector<int64_t>((*partial)->shape().dimensions().begin(),
                                 (*partial)->shape().dimensions().end()),
            partial_dims);
  ASSERT_TRUE(VerifyModule(**module).ok()) << VerifyModule(**module);
  absl::StatusOr<Literal> got = EvaluateModule(**module, args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, *want);
}

TEST(TiledGemmSplitK, PlainDotWithPadding) {
  ExpectSameResults(R"(HloModule m
ENTRY e {
  a = bf16[5,301]{1,0} parameter(0)
  b = bf16[301,7]{1,0} parameter(1)
  ROOT d = bf16[5,7]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                    4, {4, 5, 7});
}

TEST(TiledGemmSplitK, TransposedOperandsAndBatch) {
  ExpectSameResults(R"(HloModule m
ENTRY e {
  a = f32[3,64,5]{2,1,0} parameter(0)
  b = f32[3,6,64]{2,1,0} parameter(1)
  ROOT d = f32[3,5,6]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={2}, operand_precision={highest,highest}
})",
                    8, {8, 3, 5, 6});
}

TEST(TiledGemmSplitK, S8ToS32) {
  ExpectSameResults(R"(HloModule m
ENTRY e {
  a = s8[4,100]{1,0} parameter(0)
  b = s8[100,9]{1,0} parameter(1)
  ROOT d = s32[4,9]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                    2, {2, 4, 9});
}

TEST(TiledGemmSplitK, KeepsPrecisionConfig) {
  auto module = ParseHloModule(R"(HloModule m
ENTRY e {
  a = f32[4,64]{1,0} parameter(0)
  b = f32[64,4]{1,0} parameter(1)
  ROOT d = f32[4,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,default}
})");
  ASSERT_TRUE(module.ok());
  absl::StatusOr<HloInstruction*> partial = SplitK(RootDot(**module), 2);
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ((*partial)->attrs().operand_precision,
            (std::vector<Precision>{Precision::kHighest, Precision::kDefault}));
}

TEST(TiledGemmSplitK, RefusesWhatItCannotSplit) {
  auto module = ParseHloModule(R"(HloModule m
ENTRY e {
  a = f32[4,8,8]{2,1,0} parameter(0)
  b = f32[8,8,4]{2,1,0} parameter(1)
  ROOT d = f32[4,4]{1,0} dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}
})");
  ASSERT_TRUE(module.ok());
  EXPECT_FALSE(CanSplitK(*RootDot(**module)));
  EXPECT_FALSE(SplitK(RootDot(**module), 2).ok());
}

}  // namespace
}  // namespace xlite
