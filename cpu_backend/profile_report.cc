#include "cpu_backend/profile_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace xlite::cpu {

namespace {

// Fills the rates and shares of `row` from its bytes, flops and time.
void FillRates(ProfileRow& row, double run_us, const HostPeak& peak) {
  row.percent_of_run = run_us > 0 ? 100.0 * row.total_us / run_us : 0;
  if (row.total_us <= 0) return;
  const double seconds = row.total_us * 1e-6;
  row.gbytes_per_second = row.bytes / seconds * 1e-9;
  row.gflops_per_second = row.flops / seconds * 1e-9;
  const double memory =
      peak.bytes_per_second > 0
          ? 100.0 * row.gbytes_per_second * 1e9 / peak.bytes_per_second
          : 0;
  const double compute =
      peak.flops_per_second > 0
          ? 100.0 * row.gflops_per_second * 1e9 / peak.flops_per_second
          : 0;
  row.compute_bound = compute > memory;
  row.percent_of_peak = std::max(memory, compute);
}

// Every row summed, as a row without a site.
ProfileRow Totals(const std::vector<ProfileRow>& rows, double run_us,
                  const HostPeak& peak) {
  ProfileRow total;
  for (const ProfileRow& r : rows) {
    total.calls += r.calls;
    total.total_us += r.total_us;
    total.bytes += r.bytes;
    total.flops += r.flops;
  }
  FillRates(total, run_us, peak);
  return total;
}

std::string OpLabel(const ProfileSite& site) {
  if (site.fusion_kind.empty()) return site.op;
  return absl::StrCat(site.op, ":", site.fusion_kind, ":", site.root);
}

std::string PeakShare(const ProfileRow& row) {
  if (row.total_us <= 0) return "-";
  return absl::StrFormat("%.1f %s", row.percent_of_peak,
                         row.compute_bound ? "fp" : "mem");
}

// The cells of one table line.
std::vector<std::string> Cells(const ProfileRow& row, const std::string& name,
                               const std::string& op) {
  const double mean = row.calls > 0 ? row.total_us / row.calls : 0;
  return {name,
          op,
          absl::StrCat(row.calls),
          absl::StrFormat("%.2f", row.total_us),
          absl::StrFormat("%.3f", mean),
          absl::StrFormat("%.1f", row.percent_of_run),
          absl::StrCat(row.bytes),
          absl::StrCat(row.flops),
          absl::StrFormat("%.2f", row.gbytes_per_second),
          absl::StrFormat("%.2f", row.gflops_per_second),
          PeakShare(row)};
}

// Lines of cells as aligned columns: the first two left-aligned, the
// numbers right-aligned.
std::string Columns(const std::vector<std::vector<std::string>>& lines) {
  std::vector<size_t> width(lines[0].size(), 0);
  for (const auto& line : lines) {
    for (size_t c = 0; c < line.size(); ++c) {
      width[c] = std::max(width[c], line[c].size());
    }
  }
  std::string out;
  for (const auto& line : lines) {
    std::string text = " ";
    for (size_t c = 0; c < line.size(); ++c) {
      const std::string pad(width[c] - line[c].size(), ' ');
      absl::StrAppend(&text, " ", c < 2 ? line[c] + pad : pad + line[c]);
    }
    text.erase(text.find_last_not_of(' ') + 1);
    absl::StrAppend(&out, text, "\n");
  }
  return out;
}

// ", replica R[, partition P]" where there are several devices.
std::string DeviceLabel(const std::vector<DeviceProfile>& devices,
                        const DeviceProfile& device) {
  if (devices.size() < 2) return "";
  const bool partitioned =
      std::any_of(devices.begin(), devices.end(),
                  [](const DeviceProfile& d) { return d.partition > 0; });
  return partitioned ? absl::StrCat(", replica ", device.replica,
                                    ", partition ", device.partition)
                     : absl::StrCat(", replica ", device.replica);
}

std::string DeviceTable(const std::string& module,
                        const std::vector<ProfileSite>& sites,
                        const DeviceProfile& device, const std::string& label,
                        const HostPeak& peak) {
  const ProfileCounters& counters = *device.counters;
  const double run_us = counters.run_nanos() * 1e-3;
  std::vector<ProfileRow> rows = ProfileRows(sites, counters, peak);
  const ProfileRow total = Totals(rows, run_us, peak);
  std::string out = absl::StrFormat(
      "profile of %s on cpu%s: %d run%s, %.2f us in all, %.2f us (%.1f%%) in "
      "%d timed sites; bytes and FLOPs by the cost model, over all calls\n",
      module, label,
      counters.runs(), counters.runs() == 1 ? "" : "s (accumulated)", run_us,
      total.total_us, total.percent_of_run, rows.size());
  std::vector<std::vector<std::string>> lines = {
      {"name", "op", "calls", "total us", "mean us", "% run", "bytes", "FLOPs",
       "GB/s", "GFLOP/s", "% peak"}};
  for (const ProfileRow& row : rows) {
    lines.push_back(Cells(row, row.site->name, OpLabel(*row.site)));
  }
  lines.push_back(Cells(total, "(total)", ""));
  return out + Columns(lines);
}

// JSON text of a string.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// The measured fields of a row (a site's or the totals').
std::string JsonRowFields(const ProfileRow& row) {
  const double mean = row.calls > 0 ? row.total_us / row.calls : 0;
  return absl::StrFormat(
      "\"calls\": %d, \"total_us\": %.3f, \"mean_us\": %.4f, "
      "\"percent_of_run\": %.2f, \"bytes\": %d, \"flops\": %d, "
      "\"gbytes_per_second\": %.4f, \"gflops_per_second\": %.4f, "
      "\"percent_of_peak\": %.2f, \"bound\": \"%s\"",
      row.calls, row.total_us, mean, row.percent_of_run, row.bytes, row.flops,
      row.gbytes_per_second, row.gflops_per_second, row.percent_of_peak,
      row.compute_bound ? "compute" : "memory");
}

std::string JsonSite(const ProfileRow& row) {
  const ProfileSite& s = *row.site;
  std::string fusion;
  if (!s.fusion_kind.empty()) {
    fusion = absl::StrCat(", \"fusion_kind\": ", Quote(s.fusion_kind),
                          ", \"root\": ", Quote(s.root));
  }
  return absl::StrCat("{\"name\": ", Quote(s.name), ", \"op\": ", Quote(s.op),
                      fusion, ", \"bytes_per_call\": ", s.cost.bytes(),
                      ", \"flops_per_call\": ", s.cost.flops, ", ",
                      JsonRowFields(row), "}");
}

std::string JsonDevice(const std::vector<ProfileSite>& sites,
                       const DeviceProfile& device, const HostPeak& peak) {
  const ProfileCounters& counters = *device.counters;
  const double run_us = counters.run_nanos() * 1e-3;
  std::vector<ProfileRow> rows = ProfileRows(sites, counters, peak);
  std::vector<std::string> parts;
  for (const ProfileRow& row : rows) parts.push_back(JsonSite(row));
  return absl::StrCat(
      "    {\"replica\": ", device.replica, ", \"partition\": ",
      device.partition, ", \"runs\": ",
      counters.runs(), ", \"run_us\": ", absl::StrFormat("%.3f", run_us),
      ",\n     \"sites\": [\n      ", absl::StrJoin(parts, ",\n      "),
      "],\n     \"totals\": {", JsonRowFields(Totals(rows, run_us, peak)),
      "}}");
}

}  // namespace

std::vector<ProfileRow> ProfileRows(const std::vector<ProfileSite>& sites,
                                    const ProfileCounters& counters,
                                    const HostPeak& peak) {
  const double run_us = counters.run_nanos() * 1e-3;
  std::vector<ProfileRow> rows;
  for (size_t i = 0; i < sites.size() && i < counters.sites().size(); ++i) {
    const ProfileCounters::Site& c = counters.sites()[i];
    ProfileRow row;
    row.site = &sites[i];
    row.calls = c.calls;
    row.total_us = c.nanos * 1e-3;
    row.bytes = sites[i].cost.bytes() * c.calls;
    row.flops = sites[i].cost.flops * c.calls;
    FillRates(row, run_us, peak);
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const ProfileRow& a, const ProfileRow& b) {
                     return a.total_us > b.total_us;
                   });
  return rows;
}

std::string FormatProfileTable(const std::string& module,
                               const std::vector<ProfileSite>& sites,
                               const std::vector<DeviceProfile>& devices,
                               const HostPeak& peak) {
  std::string out = absl::StrFormat(
      "peak of one core (measured, %s): %.2f GB/s memcpy (read + write), "
      "%.2f GFLOP/s f32 multiply-add; each call's time includes about %.0f ns "
      "of timer\n",
      peak.cpu, peak.bytes_per_second * 1e-9, peak.flops_per_second * 1e-9,
      ProfileCounters::OverheadNanos());
  for (const DeviceProfile& device : devices) {
    absl::StrAppend(&out, DeviceTable(module, sites, device,
                                      DeviceLabel(devices, device), peak));
  }
  return out;
}

std::string FormatProfileJson(const std::string& module,
                              const std::vector<ProfileSite>& sites,
                              const std::vector<DeviceProfile>& devices,
                              const HostPeak& peak) {
  std::vector<std::string> parts;
  for (const DeviceProfile& device : devices) {
    parts.push_back(JsonDevice(sites, device, peak));
  }
  return absl::StrCat(
      "{\n  \"module\": ", Quote(module), ",\n  \"platform\": \"cpu\",\n",
      "  \"peak\": {\"source\": \"measured\", \"cpu\": ", Quote(peak.cpu),
      ", \"threads\": 1, \"bytes_per_second\": ",
      absl::StrFormat("%.6g", peak.bytes_per_second),
      ", \"flops_per_second\": ", absl::StrFormat("%.6g", peak.flops_per_second),
      "},\n  \"timer_overhead_ns\": ",
      absl::StrFormat("%.1f", ProfileCounters::OverheadNanos()),
      ",\n  \"devices\": [\n", absl::StrJoin(parts, ",\n"), "\n  ]\n}\n");
}

}  // namespace xlite::cpu
