#include "cpu_backend/profile_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace xlite::cpu {

namespace {

runtime::PeakRates Roof(const HostPeak& peak) {
  return {peak.bytes_per_second, peak.flops_per_second};
}

// Fills the rates and shares of `row` from its bytes, flops and time.
void FillRates(ProfileRow& row, double run_us, const HostPeak& peak) {
  row.percent_of_run = run_us > 0 ? 100.0 * row.total_us / run_us : 0;
  row.rates = runtime::RatesAgainstPeak(row.bytes, row.flops,
                                        row.total_us * 1e-6, Roof(peak));
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

// The cells of one table line.
std::vector<std::string> Cells(const ProfileRow& row, const std::string& name,
                               const std::string& op, const HostPeak& peak) {
  const double mean = row.calls > 0 ? row.total_us / row.calls : 0;
  return {name,
          op,
          absl::StrCat(row.calls),
          absl::StrFormat("%.2f", row.total_us),
          absl::StrFormat("%.3f", mean),
          absl::StrFormat("%.1f", row.percent_of_run),
          absl::StrCat(row.bytes),
          absl::StrCat(row.flops),
          absl::StrFormat("%.2f", row.rates.gbytes_per_second),
          absl::StrFormat("%.2f", row.rates.gflops_per_second),
          runtime::PeakShareCell(row.rates, row.total_us, Roof(peak))};
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
    lines.push_back(Cells(row, row.site->name, OpLabel(*row.site), peak));
  }
  lines.push_back(Cells(total, "(total)", "", peak));
  return out + runtime::AlignColumns(lines, 2);
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
      row.rates.gbytes_per_second, row.rates.gflops_per_second,
      row.rates.percent_of_peak,
      row.rates.compute_bound ? "compute" : "memory");
}

std::string JsonSite(const ProfileRow& row) {
  const ProfileSite& s = *row.site;
  std::string fusion;
  if (!s.fusion_kind.empty()) {
    fusion =
        absl::StrCat(", \"fusion_kind\": ", runtime::JsonQuote(s.fusion_kind),
                     ", \"root\": ", runtime::JsonQuote(s.root));
  }
  return absl::StrCat("{\"name\": ", runtime::JsonQuote(s.name),
                      ", \"op\": ", runtime::JsonQuote(s.op), fusion,
                      ", \"bytes_per_call\": ", s.cost.bytes(),
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
      "{\n  \"module\": ", runtime::JsonQuote(module),
      ",\n  \"platform\": \"cpu\",\n",
      "  \"peak\": {\"source\": \"measured\", \"cpu\": ",
      runtime::JsonQuote(peak.cpu), ", \"threads\": 1, \"bytes_per_second\": ",
      absl::StrFormat("%.6g", peak.bytes_per_second),
      ", \"flops_per_second\": ",
      absl::StrFormat("%.6g", peak.flops_per_second),
      "},\n  \"timer_overhead_ns\": ",
      absl::StrFormat("%.1f", ProfileCounters::OverheadNanos()),
      ",\n  \"devices\": [\n", absl::StrJoin(parts, ",\n"), "\n  ]\n}\n");
}

}  // namespace xlite::cpu
