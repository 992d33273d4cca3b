// Parser behaviour that the printed text alone does not show: what a
// written form means (mesh replica groups expand to XLA's groups), and the
// warnings the parser gives for input XLA accepts.
#include "hlo/text/parser.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace xlite {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

// The expanded replica groups of the all-reduce of a module whose
// replica_groups= attribute is `groups`.
Groups MeshGroups(const std::string& groups) {
  const std::string text = absl::StrCat(R"(
HloModule m, replica_count=8
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(p), replica_groups=)",
                                        groups, R"(, to_apply=add
})");
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return {};
  const HloInstruction* r = (*module)->entry_computation()->root_instruction();
  return r->attrs().collective->replica_groups.Expanded();
}

TEST(ParserMesh, GroupsAlongTheNamedAxes) {
  // Devices [[0,1,2,3],[4,5,6,7]]: along 'b' the rows, along 'a' the columns.
  EXPECT_EQ(MeshGroups("mesh['a'=2,'b'=4] {'b'}"),
            (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(MeshGroups("mesh['a'=2,'b'=4] {'a'}"),
            (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  // Unquoted names, as older XLA printed them.
  EXPECT_EQ(MeshGroups("mesh[a=2,b=4] {a}"),
            (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  // All axes: one group; no axis: every device alone.
  EXPECT_EQ(MeshGroups("mesh['a'=2,'b'=2] {'a','b'}"), (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(MeshGroups("mesh['a'=2] {}"), (Groups{{0}, {1}}));
  // The order of the axes orders the devices in a group.
  EXPECT_EQ(MeshGroups("mesh['a'=2,'b'=2] {'b','a'}"), (Groups{{0, 2, 1, 3}}));
}

TEST(ParserMesh, SubAxes) {
  // x=8 split as [pre 2, size 2, rest 2]; the middle piece is grouped.
  EXPECT_EQ(MeshGroups("mesh['x'=8] {'x':(2)2}"),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  // Two sub-axes of one axis: x = [(1)2, middle 2, (4)2], major to minor.
  // Written (4)2 first, it orders the devices within a group.
  EXPECT_EQ(MeshGroups("mesh['x'=8] {'x':(4)2,'x':(1)2}"),
            (Groups{{0, 4, 1, 5}, {2, 6, 3, 7}}));
}

TEST(ParserMesh, ExplicitDeviceIds) {
  // Devices laid out [2,2,2] = 7 - linear index; groups along c then a.
  EXPECT_EQ(MeshGroups("mesh['a'=2,'b'=2,'c'=2], device_ids=(7,6,5,4,3,2,1,0) "
                       "{'c','a'}"),
            (Groups{{7, 3, 6, 2}, {5, 1, 4, 0}}));
}

TEST(ParserMesh, Errors) {
  for (const char* bad :
       {"mesh['a'=2] {'b'}", "mesh['a'=8] {'a':(3)2}",
        "mesh['a'=8] {'a','a':(1)2}", "mesh['a'=2,'a'=2] {'a'}",
        "mesh['a'=2], device_ids=(0,0) {'a'}"}) {
    const std::string text = absl::StrCat(
        "HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] "
        "parameter(1)\n ROOT s = f32[] add(a, b)\n}\nENTRY e {\n p = f32[4] "
        "parameter(0)\n ROOT r = f32[4] all-reduce(p), replica_groups=",
        bad, ", to_apply=add\n}");
    auto module = ParseHloModule(text);
    EXPECT_FALSE(module.ok()) << bad;
  }
}

TEST(ParserWarnings, ShortLiteralsWarnThroughTheSink) {
  std::vector<std::string> warnings;
  ParseOptions options;
  options.filename = "w.hlo";
  options.warnings = &warnings;
  auto module = ParseHloModule(
      "HloModule m\nENTRY e {\n  ROOT c = f32[3] constant(2)\n}", options);
  ASSERT_TRUE(module.ok()) << module.status().message();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].substr(0, warnings[0].find('\n')),
            "w.hlo:3:28: warning: a single value for an array of shape f32[3] "
            "sets element 0 only; the other 2 elements are zero (as XLA reads "
            "it)");
}

}  // namespace
}  // namespace xlite
