#ifndef XLITE_RUNTIME_ROOFLINE_CHART_H_
#define XLITE_RUNTIME_ROOFLINE_CHART_H_

// A roofline chart as an SVG document: log-log axes with arithmetic
// intensity (FLOP per byte moved) across and achieved FLOP/s up, the
// memory-bandwidth slope rising to each compute ceiling, and one labelled
// point per profiled kernel. A kernel under the slope is memory-bound, one
// under a ceiling compute-bound; the gap to the roof is what is left.

#include <string>
#include <vector>

namespace xlite::runtime {

/// A compute ceiling: one element type's peak.
struct RooflineCeiling {
  std::string label;  // "bf16"
  double flops_per_second = 0;
};

/// A profiled kernel.
struct RooflinePoint {
  std::string label;
  /// FLOP per byte; 0 when it moved no byte (drawn at the right edge).
  double intensity = 0;
  /// Achieved; 0 when it did no arithmetic (drawn hollow on the floor).
  double flops_per_second = 0;
};

struct RooflineChart {
  std::string title;
  /// A second line under the title (what the times are).
  std::string subtitle;
  /// The bandwidth slope; 0: none drawn.
  double bytes_per_second = 0;
  std::string bandwidth_label;  // "HBM 3350 GB/s"
  std::vector<RooflineCeiling> ceilings;
  std::vector<RooflinePoint> points;
};

/// The chart as a standalone SVG document. Each point is a <circle
/// class="kernel"> with a <title> and a text label; the axes span whole
/// decades around the points and the roof.
std::string RooflineSvg(const RooflineChart& chart);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_ROOFLINE_CHART_H_
