#include "gpu_backend/profile_report.h"

#include <algorithm>
#include <fstream>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/roofline_chart.h"

namespace xlite::gpu {
namespace {

using runtime::ThunkProfile;

double PeakFlops(const GpuTargetSpec& spec, const std::string& type) {
  auto it = spec.peak_tflops.find(type);
  return it == spec.peak_tflops.end() ? 0 : it->second * 1e12;
}

bool PeaksKnown(const GpuTargetSpec& spec) {
  if (spec.hbm_bandwidth_bytes_per_second > 0) return true;
  return std::any_of(spec.peak_tflops.begin(), spec.peak_tflops.end(),
                     [](const auto& p) { return p.second > 0; });
}

double RunMicros(const ThunkProfile& profile) {
  return profile.run_seconds() * 1e6;
}

void FillRates(GpuProfileRow& row, double run_us) {
  row.percent_of_run = run_us > 0 ? 100.0 * row.total_us / run_us : 0;
  row.rates = runtime::RatesAgainstPeak(row.bytes, row.flops,
                                        row.total_us * 1e-6, row.peak);
}

// Every row summed; against the bandwidth alone.
GpuProfileRow Totals(const std::vector<GpuProfileRow>& rows,
                     const GpuProfileSource& source) {
  GpuProfileRow total;
  for (const GpuProfileRow& r : rows) {
    total.calls += r.calls;
    total.total_us += r.total_us;
    total.bytes += r.bytes;
    total.flops += r.flops;
  }
  total.peak.bytes_per_second = source.spec.hbm_bandwidth_bytes_per_second;
  FillRates(total, RunMicros(*source.profile));
  return total;
}

std::string Kind(const ThunkProfile::Entry& e) {
  switch (e.kind) {
    case runtime::Thunk::Kind::kGemm:
      return "gemm";
    case runtime::Thunk::Kind::kBlockScaledDot:
      return "cudnn";
    default:
      return "kernel";
  }
}

std::string PeakLine(const GpuTargetSpec& spec) {
  if (!PeaksKnown(spec)) {
    return absl::StrCat("peak of ", spec.name,
                        ": unknown (the spec gives no bandwidth or peak "
                        "FLOP/s); no shares of the peak\n");
  }
  std::vector<std::string> tflops;
  for (const char* type : {"f64", "f32", "tf32", "bf16", "f16", "f8", "f4"}) {
    if (auto it = spec.peak_tflops.find(type); it != spec.peak_tflops.end()) {
      tflops.push_back(absl::StrFormat("%s %g", type, it->second));
    }
  }
  return absl::StrFormat(
      "peak of %s (%s, data sheet): HBM %.0f GB/s; dense TFLOP/s %s\n",
      spec.name, spec.SmName(), spec.hbm_bandwidth_bytes_per_second * 1e-9,
      tflops.empty() ? "unknown" : absl::StrJoin(tflops, ", "));
}

std::string ClockLine(ThunkProfile::Clock clock) {
  if (clock == ThunkProfile::Clock::kCudaEvents) {
    return "times: CUDA events recorded around each thunk on the device's "
           "stream\n";
  }
  return "times: emulator host wall time of each emulated thunk, not GPU "
         "time (the rates are the emulator's, far below the GPU's roof)\n";
}

std::vector<std::string> Cells(const GpuProfileRow& row,
                               const std::vector<std::string>& labels) {
  const double mean = row.calls > 0 ? row.total_us / row.calls : 0;
  std::vector<std::string> cells = labels;
  for (std::string cell :
       {absl::StrCat(row.calls), absl::StrFormat("%.2f", row.total_us),
        absl::StrFormat("%.3f", mean),
        absl::StrFormat("%.1f", row.percent_of_run), absl::StrCat(row.bytes),
        absl::StrCat(row.flops),
        absl::StrFormat("%.4g", row.rates.gbytes_per_second),
        absl::StrFormat("%.4g", row.rates.gflops_per_second * 1e-3),
        runtime::PeakShareCell(row.rates, row.total_us, row.peak)}) {
    cells.push_back(std::move(cell));
  }
  return cells;
}

std::string JsonRowFields(const GpuProfileRow& row) {
  const double mean = row.calls > 0 ? row.total_us / row.calls : 0;
  return absl::StrFormat(
      "\"calls\": %d, \"total_us\": %.3f, \"mean_us\": %.4f, "
      "\"percent_of_run\": %.2f, \"bytes\": %d, \"flops\": %d, "
      "\"arithmetic_intensity\": %.6g, \"gbytes_per_second\": %.6g, "
      "\"tflops_per_second\": %.6g, \"percent_of_bandwidth\": %.4g, "
      "\"percent_of_compute\": %.4g, \"percent_of_peak\": %.4g, "
      "\"bound\": \"%s\"",
      row.calls, row.total_us, mean, row.percent_of_run, row.bytes, row.flops,
      runtime::ArithmeticIntensity(row.bytes, row.flops),
      row.rates.gbytes_per_second, row.rates.gflops_per_second * 1e-3,
      row.rates.percent_of_bandwidth, row.rates.percent_of_compute,
      row.rates.percent_of_peak,
      row.rates.compute_bound ? "compute" : "memory");
}

std::string JsonKernel(const GpuProfileRow& row) {
  const ThunkProfile::Entry& e = *row.entry;
  return absl::StrCat("{\"name\": ", runtime::JsonQuote(e.name),
                      ", \"kind\": ", runtime::JsonQuote(Kind(e)),
                      ", \"instruction\": ", runtime::JsonQuote(e.instruction),
                      ", \"op\": ", runtime::JsonQuote(e.cost.label),
                      ", \"flop_type\": ", runtime::JsonQuote(e.cost.flop_type),
                      ", \"bytes_per_call\": ", e.cost.bytes,
                      ", \"flops_per_call\": ", e.cost.flops,
                      ", \"peak_flops_per_second\": ",
                      absl::StrFormat("%.6g", row.peak.flops_per_second), ", ",
                      JsonRowFields(row), "}");
}

std::string JsonPeak(const GpuTargetSpec& spec) {
  std::vector<std::string> tflops;
  for (const auto& [type, value] : spec.peak_tflops) {
    tflops.push_back(
        absl::StrFormat("%s: %g", runtime::JsonQuote(type), value));
  }
  return absl::StrCat(
      "{\"source\": \"spec\", \"gpu\": ", runtime::JsonQuote(spec.name),
      ", \"sm\": ", runtime::JsonQuote(spec.SmName()),
      ", \"hbm_bytes_per_second\": ",
      absl::StrFormat("%.6g", spec.hbm_bandwidth_bytes_per_second),
      ", \"tflops\": {", absl::StrJoin(tflops, ", "), "}}");
}

}  // namespace

std::vector<GpuProfileRow> GpuProfileRows(const GpuProfileSource& source) {
  const double run_us = RunMicros(*source.profile);
  std::vector<GpuProfileRow> rows;
  for (const ThunkProfile::Entry& e : source.profile->entries()) {
    GpuProfileRow row;
    row.entry = &e;
    row.calls = e.calls;
    row.total_us = e.seconds * 1e6;
    row.bytes = e.cost.bytes * e.calls;
    row.flops = e.cost.flops * e.calls;
    row.peak = {source.spec.hbm_bandwidth_bytes_per_second,
                PeakFlops(source.spec, e.cost.flop_type)};
    FillRates(row, run_us);
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const GpuProfileRow& a, const GpuProfileRow& b) {
                     return a.total_us > b.total_us;
                   });
  return rows;
}

std::string FormatGpuProfileTable(const GpuProfileSource& source) {
  const ThunkProfile& profile = *source.profile;
  const std::vector<GpuProfileRow> rows = GpuProfileRows(source);
  const GpuProfileRow total = Totals(rows, source);
  std::string out = absl::StrCat(
      PeakLine(source.spec),
      absl::StrFormat(
          "profile of %s on %s (%s): %d run%s, %.2f us in all, %.2f us "
          "(%.1f%%) in %d kernels and library calls; bytes and FLOPs by the "
          "cost model, over all calls\n",
          source.module, source.platform, source.spec.name, profile.runs(),
          profile.runs() == 1 ? "" : "s (accumulated)", RunMicros(profile),
          total.total_us, total.percent_of_run, rows.size()),
      ClockLine(profile.clock()));
  std::vector<std::vector<std::string>> lines = {
      {"name", "kind", "op", "type", "calls", "total us", "mean us", "% run",
       "bytes", "FLOPs", "GB/s", "TFLOP/s", "% peak"}};
  for (const GpuProfileRow& row : rows) {
    const ThunkProfile::Entry& e = *row.entry;
    lines.push_back(
        Cells(row, {e.name, Kind(e), e.cost.label, e.cost.flop_type}));
  }
  lines.push_back(Cells(total, {"(total)", "", "", ""}));
  return out + runtime::AlignColumns(lines, 4);
}

std::string FormatGpuProfileJson(const GpuProfileSource& source) {
  const ThunkProfile& profile = *source.profile;
  const std::vector<GpuProfileRow> rows = GpuProfileRows(source);
  std::vector<std::string> kernels;
  for (const GpuProfileRow& row : rows) kernels.push_back(JsonKernel(row));
  return absl::StrCat(
      "{\n  \"module\": ", runtime::JsonQuote(source.module),
      ",\n  \"platform\": ", runtime::JsonQuote(source.platform),
      ",\n  \"clock\": ",
      runtime::JsonQuote(runtime::ClockDescription(profile.clock())),
      ",\n  \"peak\": ", JsonPeak(source.spec),
      ",\n  \"runs\": ", profile.runs(),
      ",\n  \"run_us\": ", absl::StrFormat("%.3f", RunMicros(profile)),
      ",\n  \"kernels\": [\n    ", absl::StrJoin(kernels, ",\n    "),
      "\n  ],\n  \"totals\": {", JsonRowFields(Totals(rows, source)), "}\n}\n");
}

std::string FormatGpuRooflineSvg(const GpuProfileSource& source) {
  runtime::RooflineChart chart;
  chart.title =
      absl::StrCat("roofline of ", source.module, " on ", source.platform, " (",
                   source.spec.name, ", ", source.spec.SmName(), ")");
  chart.subtitle = absl::StrCat(
      "times: ", runtime::ClockDescription(source.profile->clock()),
      "; bytes and FLOPs by the cost model");
  chart.bytes_per_second = source.spec.hbm_bandwidth_bytes_per_second;
  chart.bandwidth_label =
      absl::StrFormat("HBM %.0f GB/s", chart.bytes_per_second * 1e-9);
  std::set<std::string> types;
  for (const GpuProfileRow& row : GpuProfileRows(source)) {
    const ThunkProfile::Entry& e = *row.entry;
    types.insert(e.cost.flop_type);
    chart.points.push_back({e.name,
                            runtime::ArithmeticIntensity(row.bytes, row.flops),
                            row.rates.gflops_per_second * 1e9});
  }
  for (const std::string& type : types) {
    const double peak = PeakFlops(source.spec, type);
    if (peak > 0) chart.ceilings.push_back({type, peak});
  }
  std::sort(
      chart.ceilings.begin(), chart.ceilings.end(),
      [](const runtime::RooflineCeiling& a, const runtime::RooflineCeiling& b) {
        return a.flops_per_second < b.flops_per_second;
      });
  return runtime::RooflineSvg(chart);
}

std::string RooflineSvgPath(const std::string& json_path) {
  if (absl::EndsWith(json_path, ".json")) {
    return absl::StrCat(json_path.substr(0, json_path.size() - 5), ".svg");
  }
  return absl::StrCat(json_path, ".svg");
}

absl::Status WriteGpuProfileFiles(const GpuProfileSource& source,
                                  const std::string& json_path) {
  const std::string svg_path = RooflineSvgPath(json_path);
  for (const auto& [path, text] :
       {std::pair{json_path, FormatGpuProfileJson(source)},
        std::pair{svg_path, FormatGpuRooflineSvg(source)}}) {
    std::ofstream out(path, std::ios::trunc);
    out << text;
    if (!out.good()) {
      return absl::PermissionDeniedError(
          absl::StrCat(path, ": error: cannot write the profile"));
    }
  }
  return absl::OkStatus();
}

}  // namespace xlite::gpu
