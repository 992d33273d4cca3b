// The known-trip-count annotator: counted loops get XLA's
// known_trip_count (other config fields kept), loops that are not counted
// or whose counter would wrap get nothing, and KnownTripCount reads what
// XLA prints.
#include "passes/while_trip_count.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/strings/str_replace.h"
#include "hlo/text/parser.h"

namespace xlite {
namespace {

// A loop counting i from INIT while i DIR BOUND, adding STEP, in type T.
std::string CountedLoop(const std::string& type, const std::string& init,
                        const std::string& dir, const std::string& bound,
                        const std::string& step,
                        const std::string& config = "") {
  std::string text = R"(
HloModule m
cond {
  p = (T[], f32[4]) parameter(0)
  i = T[] get-tuple-element(p), index=0
  b = T[] constant(BOUND)
  ROOT c = pred[] compare(i, b), direction=DIR
}
body {
  p = (T[], f32[4]) parameter(0)
  i = T[] get-tuple-element(p), index=0
  s = T[] constant(STEP)
  n = T[] add(i, s)
  v = f32[4] get-tuple-element(p), index=1
  w = f32[4] add(v, v)
  ROOT t = (T[], f32[4]) tuple(n, w)
}
ENTRY e {
  z = T[] constant(INIT)
  x = f32[4] parameter(0)
  t = (T[], f32[4]) tuple(z, x)
  ROOT l = (T[], f32[4]) while(t), condition=cond, body=bodyCONFIG
})";
  return absl::StrReplaceAll(
      text, {{"T[]", type + "[]"}, {"INIT", init}, {"DIR", dir},
             {"BOUND", bound}, {"STEP", step},
             {"CONFIG", config.empty() ? "" : ", backend_config=" + config}});
}

std::optional<int64_t> Annotated(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return std::nullopt;
  EXPECT_TRUE(AnnotateWhileTripCounts(**module).ok());
  const HloInstruction* loop =
      (*module)->entry_computation()->root_instruction();
  return KnownTripCount(*loop);
}

TEST(WhileTripCount, CountedLoopsGetTheirCount) {
  EXPECT_EQ(Annotated(CountedLoop("s32", "0", "LT", "10", "1")), 10);
  EXPECT_EQ(Annotated(CountedLoop("s64", "3", "LT", "10", "2")), 4);
  EXPECT_EQ(Annotated(CountedLoop("s32", "0", "LE", "10", "5")), 3);
  EXPECT_EQ(Annotated(CountedLoop("s32", "10", "GT", "0", "-3")), 4);
  EXPECT_EQ(Annotated(CountedLoop("u32", "7", "LT", "3", "1")), 0);
}

TEST(WhileTripCount, NoCountWhereTheCounterWouldWrap) {
  // i <= 127 in s8 never ends: 127 + 1 wraps to -128.
  EXPECT_EQ(Annotated(CountedLoop("s8", "0", "LE", "127", "1")), std::nullopt);
  EXPECT_EQ(Annotated(CountedLoop("s8", "0", "LT", "127", "1")), 127);
  // 250 + 10 wraps to 4 in u8.
  EXPECT_EQ(Annotated(CountedLoop("u8", "0", "LT", "250", "10")), 25);
  EXPECT_EQ(Annotated(CountedLoop("u8", "0", "LT", "251", "10")),
            std::nullopt);
}

TEST(WhileTripCount, KeepsOtherConfigFieldsAndGivenCounts) {
  auto module = ParseHloModule(CountedLoop(
      "s32", "0", "LT", "6", "1", R"({"dynamic_variables":[]})"));
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(AnnotateWhileTripCounts(**module).ok());
  const HloInstruction* loop =
      (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(KnownTripCount(*loop), 6);
  EXPECT_NE(loop->backend_config().find("dynamic_variables"),
            std::string::npos);
  // A count the config already gives is kept (XLA trusts it too).
  EXPECT_EQ(Annotated(CountedLoop("s32", "0", "LT", "6", "1",
                                  R"({"known_trip_count":{"n":"2"}})")),
            2);
}

TEST(WhileTripCount, ReadsWhatXlaPrints) {
  auto module = ParseHloModule(CountedLoop(
      "s64", "0", "LT", "8", "1",
      R"({"known_trip_count":{"n":"8"},"known_init_step":{"init":"0","step":"1"},"known_induction_variable":{"tuple_index":"0"},"dynamic_variables":[]})"));
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(KnownTripCount(*(*module)->entry_computation()->root_instruction()),
            8);
  for (const char* bad : {R"({"known_trip_count":{"n":"-1"}})",
                          R"({"known_trip_count":{"n":"x"}})",
                          R"({"known_trip_count":7})", R"({"known_trip_count)"}) {
    auto m = ParseHloModule(CountedLoop("s32", "0", "LT", "4", "1", bad));
    if (!m.ok()) continue;  // not even a module
    EXPECT_EQ(KnownTripCount(*(*m)->entry_computation()->root_instruction()),
              std::nullopt)
        << bad;
  }
}

TEST(WhileTripCount, LoopsThatAreNotCountedGetNothing) {
  // The bound is a parameter: unknown at compile time.
  std::string text = CountedLoop("s32", "0", "LT", "10", "1");
  text = absl::StrReplaceAll(
      text, {{"b = s32[] constant(10)", "b = s32[] constant(10)\n  q = s32[] add(i, i)"},
             {"ROOT c = pred[] compare(i, b)", "ROOT c = pred[] compare(i, q)"}});
  EXPECT_EQ(Annotated(text), std::nullopt);
}

}  // namespace
}  // namespace xlite
