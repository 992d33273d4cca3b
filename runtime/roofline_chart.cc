#include "runtime/roofline_chart.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace xlite::runtime {
namespace {

constexpr double kWidth = 960;
constexpr double kHeight = 640;
constexpr double kLeft = 100;
constexpr double kRight = 40;
constexpr double kTop = 70;
constexpr double kBottom = 70;

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A log axis over whole decades [10^lo, 10^hi].
struct LogAxis {
  int lo = 0;
  int hi = 1;
  double from = 0;  // pixel at 10^lo
  double to = 0;    // pixel at 10^hi

  // The decades around `values` (positive ones only; `fallback` when
  // there are none), at least two wide.
  static LogAxis Around(const std::vector<double>& values,
                        std::pair<int, int> fallback) {
    LogAxis axis;
    double low = 0, high = 0;
    for (double v : values) {
      if (!(v > 0) || !std::isfinite(v)) continue;
      low = low == 0 ? v : std::min(low, v);
      high = std::max(high, v);
    }
    if (high == 0) {
      axis.lo = fallback.first;
      axis.hi = fallback.second;
      return axis;
    }
    axis.lo = static_cast<int>(std::floor(std::log10(low / 2)));
    axis.hi = static_cast<int>(std::ceil(std::log10(high * 2)));
    if (axis.hi - axis.lo < 2) axis.hi = axis.lo + 2;
    return axis;
  }
  double Min() const { return std::pow(10.0, lo); }
  double Max() const { return std::pow(10.0, hi); }
  // The pixel of `v`, clamped to the axis.
  double At(double v) const {
    const double l =
        v > 0 ? std::clamp(std::log10(v), double(lo), double(hi)) : double(lo);
    return from + (to - from) * (l - lo) / (hi - lo);
  }
};

std::string Line(double x1, double y1, double x2, double y2,
                 const std::string& style) {
  return absl::StrFormat(
      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n", x1, y1,
      x2, y2, style);
}

std::string Text(double x, double y, const std::string& text,
                 const std::string& attributes) {
  return absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\" %s>%s</text>\n", x, y,
                         attributes, Escape(text));
}

// Decade grid lines, tick labels and axis titles.
std::string Axes(const LogAxis& x, const LogAxis& y) {
  std::string out;
  const std::string grid = "stroke=\"#dddddd\" stroke-width=\"1\"";
  for (int d = x.lo; d <= x.hi; ++d) {
    const double px = x.At(std::pow(10.0, d));
    absl::StrAppend(&out, Line(px, y.from, px, y.to, grid),
                    Text(px, y.from + 18, absl::StrCat("1e", d),
                         "text-anchor=\"middle\" font-size=\"12\""));
  }
  for (int d = y.lo; d <= y.hi; ++d) {
    const double py = y.At(std::pow(10.0, d));
    absl::StrAppend(&out, Line(x.from, py, x.to, py, grid),
                    Text(x.from - 8, py + 4, absl::StrCat("1e", d),
                         "text-anchor=\"end\" font-size=\"12\""));
  }
  const std::string axis = "stroke=\"#000000\" stroke-width=\"1.5\"";
  absl::StrAppend(
      &out, Line(x.from, y.from, x.to, y.from, axis),
      Line(x.from, y.from, x.from, y.to, axis),
      Text((x.from + x.to) / 2, kHeight - 25,
           "arithmetic intensity (FLOP per byte moved)",
           "text-anchor=\"middle\" font-size=\"14\""),
      Text(25, (y.from + y.to) / 2, "achieved FLOP/s",
           absl::StrFormat("text-anchor=\"middle\" font-size=\"14\" "
                           "transform=\"rotate(-90 25 %.1f)\"",
                           (y.from + y.to) / 2)));
  return out;
}

// The bandwidth slope up to the highest ceiling, and each ceiling from
// where the slope meets it.
std::string Roof(const RooflineChart& chart, const LogAxis& x,
                 const LogAxis& y) {
  std::string out;
  double top = 0;
  for (const RooflineCeiling& c : chart.ceilings) {
    top = std::max(top, c.flops_per_second);
  }
  const double bw = chart.bytes_per_second;
  if (bw > 0) {
    // From the left edge (or where the slope enters the chart) to the top.
    const double x0 = std::max(x.Min(), y.Min() / bw);
    const double x1 = std::min(x.Max(), top > 0 ? top / bw : y.Max() / bw);
    if (x1 > x0) {
      absl::StrAppend(
          &out,
          Line(x.At(x0), y.At(bw * x0), x.At(x1), y.At(bw * x1),
               "class=\"bandwidth\" stroke=\"#1f77b4\" stroke-width=\"2\""),
          Text(x.At(x0) + 6, y.At(bw * x0) - 8, chart.bandwidth_label,
               "font-size=\"12\" fill=\"#1f77b4\""));
    }
  }
  for (const RooflineCeiling& c : chart.ceilings) {
    if (c.flops_per_second <= 0) continue;
    const double ridge = bw > 0 ? c.flops_per_second / bw : x.Min();
    const double py = y.At(c.flops_per_second);
    absl::StrAppend(
        &out,
        Line(x.At(ridge), py, x.to, py,
             "class=\"ceiling\" stroke=\"#d62728\" stroke-width=\"2\""),
        Text(x.to - 4, py - 6,
             absl::StrFormat("%s %.4g TFLOP/s", c.label,
                             c.flops_per_second * 1e-12),
             "text-anchor=\"end\" font-size=\"12\" fill=\"#d62728\""));
  }
  return out;
}

std::string Points(const RooflineChart& chart, const LogAxis& x,
                   const LogAxis& y) {
  std::string out;
  for (const RooflinePoint& p : chart.points) {
    const bool placed = p.intensity > 0 && p.flops_per_second > 0;
    const double px = p.intensity > 0 ? x.At(p.intensity) : x.to;
    const double py = y.At(p.flops_per_second);
    absl::StrAppend(
        &out,
        absl::StrFormat(
            "<circle class=\"kernel\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
            "fill=\"%s\" stroke=\"#2ca02c\" stroke-width=\"2\">"
            "<title>%s: %.4g FLOP/byte, %.4g FLOP/s</title></circle>\n",
            px, py, placed ? "#2ca02c" : "none", Escape(p.label), p.intensity,
            p.flops_per_second),
        Text(px + 7, py - 7, p.label, "font-size=\"11\""));
  }
  return out;
}

}  // namespace

std::string RooflineSvg(const RooflineChart& chart) {
  std::vector<double> xs, ys;
  for (const RooflinePoint& p : chart.points) {
    xs.push_back(p.intensity);
    ys.push_back(p.flops_per_second);
  }
  for (const RooflineCeiling& c : chart.ceilings) {
    ys.push_back(c.flops_per_second);
    if (chart.bytes_per_second > 0) {
      xs.push_back(c.flops_per_second / chart.bytes_per_second);
    }
  }
  LogAxis x = LogAxis::Around(xs, {-2, 3});
  LogAxis y = LogAxis::Around(ys, {6, 15});
  x.from = kLeft;
  x.to = kWidth - kRight;
  y.from = kHeight - kBottom;
  y.to = kTop;
  return absl::StrCat(
      absl::StrFormat(
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
          "font-family=\"sans-serif\">\n",
          kWidth, kHeight, kWidth, kHeight),
      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
      Text(kWidth / 2, 28, chart.title,
           "text-anchor=\"middle\" font-size=\"16\""),
      Text(kWidth / 2, 48, chart.subtitle,
           "text-anchor=\"middle\" font-size=\"12\" fill=\"#555555\""),
      Axes(x, y), Roof(chart, x, y), Points(chart, x, y), "</svg>\n");
}

}  // namespace xlite::runtime
