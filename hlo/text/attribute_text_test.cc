#include "hlo/text/attribute_text.h"

#include <gtest/gtest.h>

#include <string>

#include "hlo/ir/opcode_schema.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"

namespace xlite {
namespace {

TEST(AttributeText, EverySchemaAttributeHasAPrinterAndAParser) {
  EXPECT_TRUE(text_internal::AllAttributesHavePrinters());
  EXPECT_TRUE(text_internal::AllAttributesHaveParsers());
}

// The printer walks the schema row: attributes come out in XLA's order
// whatever order they were written in.
TEST(AttributeText, PrintsInTheRowsOrder) {
  auto module = ParseHloModule(R"(
HloModule m
ENTRY e {
  o = f32[3,4] parameter(0)
  i = s32[2,1] parameter(1)
  ROOT g = f32[2,4] gather(o, i), slice_sizes={1,4}, index_vector_dim=1,
      start_index_map={0}, collapsed_slice_dims={0}, offset_dims={1}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string printed = PrintModule(**module);
  EXPECT_NE(printed.find("gather(%o, %i), offset_dims={1}, "
                         "collapsed_slice_dims={0}, start_index_map={0}, "
                         "index_vector_dim=1, slice_sizes={1,4}"),
            std::string::npos)
      << printed;
}

// A required attribute missing is named; the row says which are required.
TEST(AttributeText, RequiredAttributesComeFromTheRow) {
  for (const OpcodeAttribute& a :
       GetOpcodeSchema(HloOpcode::kGather).attributes) {
    if (a.use != AttributeUse::kRequired) continue;
    EXPECT_FALSE(GetAttributeInfo(a.id).name.empty());
  }
  auto module = ParseHloModule(R"(
HloModule m
ENTRY e {
  o = f32[3,4] parameter(0)
  i = s32[2,1] parameter(1)
  ROOT g = f32[2,4] gather(o, i), offset_dims={1}, collapsed_slice_dims={0},
      start_index_map={0}, index_vector_dim=1
})");
  ASSERT_FALSE(module.ok());
  EXPECT_NE(
      module.status().message().find("gather requires attribute 'slice_sizes'"),
      std::string::npos)
      << module.status();
}

}  // namespace
}  // namespace xlite
