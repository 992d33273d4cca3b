// Buffer assignment on every module of the JAX corpus
// (tests/corpus/programs/*/{before,after}.hlo) and of the shared real-HLO
// corpus (../shared/hlo-corpus/real, when present): after InsertCopies the
// module still verifies, Build succeeds, and by brute force over every
// pair of values, two values of different buffers that are live at the
// same time never share a byte of one allocation. Must-alias sets (while
// state, conditional and call results) get one slice per leaf.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "hlo/analysis/verifier.h"
#include "hlo/text/parser.h"
#include "runtime/alias_analysis.h"
#include "runtime/buffer_assignment.h"
#include "tests/testing/paths.h"

namespace xlite::runtime {
namespace {

std::vector<std::string> Modules() {
  std::vector<std::string> files;
  for (const std::string& dir :
       testing::ListFiles("tests/corpus/programs", "")) {
    files.push_back(dir + "/before.hlo");
    files.push_back(dir + "/after.hlo");
  }
  if (std::optional<std::string> real = testing::SharedCorpusDir()) {
    for (const std::string& f : testing::ListFiles(*real, ".hlo")) {
      files.push_back(f);
    }
  }
  return files;
}

void ExpectSameSlices(const BufferAssignment& ba, const HloInstruction* a,
                      const HloInstruction* b, const std::string& what) {
  for (const ShapeIndex& leaf : LeafIndices(a->shape())) {
    absl::StatusOr<Slice> sa = ba.GetSlice(a, leaf);
    absl::StatusOr<Slice> sb = ba.GetSlice(b, leaf);
    ASSERT_TRUE(sa.ok() && sb.ok()) << what;
    EXPECT_EQ(*sa, *sb) << what << " %" << a->name() << " and %" << b->name()
                        << " at " << ShapeIndexToString(leaf);
  }
}

// Members of each must-alias set share their slices.
void CheckMustAlias(const HloModule& m, const BufferAssignment& ba) {
  for (const HloComputation* c : m.computations()) {
    if (!ba.IsSequential(c)) continue;
    for (const HloInstruction* h : c->instructions()) {
      if (h->opcode() == HloOpcode::kWhile) {
        ExpectSameSlices(ba, h, h->operand(0), "while init");
        ExpectSameSlices(ba, h, h->while_body()->root_instruction(),
                         "while body root");
        ExpectSameSlices(ba, h, h->while_body()->parameter_instruction(0),
                         "while body parameter");
        ExpectSameSlices(ba, h,
                         h->while_condition()->parameter_instruction(0),
                         "while condition parameter");
      } else if (h->opcode() == HloOpcode::kConditional ||
                 h->opcode() == HloOpcode::kCall) {
        for (const HloComputation* callee : h->called_computations()) {
          ExpectSameSlices(ba, h, callee->root_instruction(), "callee root");
        }
      }
    }
  }
}

void CheckNoOverlap(const BufferAssignment& ba) {
  const auto& values = ba.values();
  int64_t pairs = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const auto& a = values[i];
    if (a.slice.size == 0) continue;
    EXPECT_GE(a.slice.allocation, 0);
    EXPECT_LE(a.slice.offset + a.slice.size,
              ba.allocations()[a.slice.allocation].size);
    for (size_t j = i + 1; j < values.size(); ++j) {
      const auto& b = values[j];
      if (b.slice.size == 0 || a.buffer == b.buffer ||
          a.slice.allocation != b.slice.allocation || a.end < b.start ||
          b.end < a.start) {
        continue;
      }
      ++pairs;
      const bool apart = a.slice.offset + a.slice.size <= b.slice.offset ||
                         b.slice.offset + b.slice.size <= a.slice.offset;
      ASSERT_TRUE(apart) << "%" << a.instruction->name()
                         << ShapeIndexToString(a.index) << " and %"
                         << b.instruction->name()
                         << ShapeIndexToString(b.index)
                         << " are live together and overlap";
    }
  }
  ::testing::Test::RecordProperty("overlapping_pairs", std::to_string(pairs));
}

class BufferAssignmentCorpusTest
    : public ::testing::TestWithParam<std::string> {};

TEST_P(BufferAssignmentCorpusTest, LiveValuesNeverShareBytes) {
  const std::string& path = GetParam();
  std::optional<std::string> text = testing::ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  ParseOptions options;
  options.filename = path;
  auto module = ParseHloModule(*text, options);
  ASSERT_TRUE(module.ok()) << module.status().message();
  HloModule& m = **module;
  absl::StatusOr<bool> copied = InsertCopies(m);
  ASSERT_TRUE(copied.ok()) << path << ": " << copied.status().message();
  absl::Status verified = VerifyModule(m);
  ASSERT_TRUE(verified.ok()) << path << ": " << verified.message();
  absl::StatusOr<BufferAssignment> ba = BufferAssignment::Build(m);
  ASSERT_TRUE(ba.ok()) << path << ": " << ba.status().message();
  CheckNoOverlap(*ba);
  CheckMustAlias(m, *ba);
  // Every array leaf of every instruction of a sequential computation has
  // a slice, and every schedule is a valid order of its computation.
  for (const HloComputation* c : m.computations()) {
    if (!ba->IsSequential(c)) continue;
    EXPECT_EQ(static_cast<int64_t>(ba->Schedule(c).size()),
              c->instruction_count());
    for (const HloInstruction* h : c->instructions()) {
      for (const ShapeIndex& leaf : LeafIndices(h->shape())) {
        EXPECT_TRUE(ba->GetSlice(h, leaf).ok())
            << "%" << h->name() << ShapeIndexToString(leaf);
      }
    }
  }
  // A second InsertCopies finds nothing left to do.
  absl::StatusOr<bool> again = InsertCopies(m);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again) << path;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, BufferAssignmentCorpusTest, ::testing::ValuesIn(Modules()),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name;
      for (char ch : info.param) {
        name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      }
      return name.substr(name.size() > 100 ? name.size() - 100 : 0);
    });

}  // namespace
}  // namespace xlite::runtime
