// The roofline chart: a well-formed SVG with the roof (bandwidth slope and
// ceilings) and one labelled point per kernel, whatever its numbers.
#include "runtime/roofline_chart.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace xlite::runtime {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(RooflineChart, DrawsTheRoofAndAPointPerKernel) {
  RooflineChart chart;
  chart.title = "profile of m <on> h100";
  chart.bytes_per_second = 3.35e12;
  chart.bandwidth_label = "HBM 3350 GB/s";
  chart.ceilings = {{"f32", 67e12}, {"bf16", 989e12}};
  chart.points = {{"fusion_1", 0.25, 1e11},
                  {"gemm.2", 100, 5e14},
                  {"copy_3", 0, 0}};  // no FLOPs, no bytes: still drawn
  const std::string svg = RooflineSvg(chart);
  EXPECT_TRUE(absl::StartsWith(svg, "<svg ")) << svg;
  EXPECT_TRUE(absl::EndsWith(svg, "</svg>\n"));
  EXPECT_EQ(Count(svg, "<circle class=\"kernel\""), 3);
  EXPECT_EQ(Count(svg, "class=\"ceiling\""), 2);
  EXPECT_EQ(Count(svg, "class=\"bandwidth\""), 1);
  for (const char* label : {">fusion_1<", ">gemm.2<", ">copy_3<",
                            "bf16 989 TFLOP/s", "HBM 3350 GB/s"}) {
    EXPECT_TRUE(absl::StrContains(svg, label)) << label;
  }
  EXPECT_TRUE(absl::StrContains(svg, "profile of m &lt;on&gt; h100"));
  EXPECT_FALSE(absl::StrContains(svg, "nan"));
  EXPECT_FALSE(absl::StrContains(svg, "inf"));
}

TEST(RooflineChart, AnEmptyProfileIsStillAChart) {
  const std::string svg = RooflineSvg(RooflineChart{});
  EXPECT_TRUE(absl::StartsWith(svg, "<svg "));
  EXPECT_EQ(Count(svg, "<circle"), 0);
}

}  // namespace
}  // namespace xlite::runtime
