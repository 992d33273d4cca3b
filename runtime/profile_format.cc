#include "runtime/profile_format.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace xlite::runtime {

AchievedRates RatesAgainstPeak(int64_t bytes, int64_t flops, double seconds,
                               const PeakRates& peak) {
  AchievedRates rates;
  if (seconds <= 0) return rates;
  const double bytes_per_second = bytes / seconds;
  const double flops_per_second = flops / seconds;
  rates.gbytes_per_second = bytes_per_second * 1e-9;
  rates.gflops_per_second = flops_per_second * 1e-9;
  if (peak.bytes_per_second > 0) {
    rates.percent_of_bandwidth =
        100.0 * bytes_per_second / peak.bytes_per_second;
  }
  if (peak.flops_per_second > 0) {
    rates.percent_of_compute = 100.0 * flops_per_second / peak.flops_per_second;
  }
  rates.compute_bound = rates.percent_of_compute > rates.percent_of_bandwidth;
  rates.percent_of_peak =
      std::max(rates.percent_of_bandwidth, rates.percent_of_compute);
  return rates;
}

double ArithmeticIntensity(int64_t bytes, int64_t flops) {
  return bytes > 0 ? static_cast<double>(flops) / bytes : 0;
}

std::string PeakShareCell(const AchievedRates& rates, double seconds,
                          const PeakRates& peak) {
  if (seconds <= 0 ||
      (peak.bytes_per_second <= 0 && peak.flops_per_second <= 0)) {
    return "-";
  }
  return absl::StrFormat("%.1f %s", rates.percent_of_peak,
                         rates.compute_bound ? "fp" : "mem");
}

std::string AlignColumns(const std::vector<std::vector<std::string>>& lines,
                         size_t left_aligned) {
  std::vector<size_t> width;
  for (const auto& line : lines) {
    width.resize(std::max(width.size(), line.size()), 0);
    for (size_t c = 0; c < line.size(); ++c) {
      width[c] = std::max(width[c], line[c].size());
    }
  }
  std::string out;
  for (const auto& line : lines) {
    std::string text = " ";
    for (size_t c = 0; c < line.size(); ++c) {
      const std::string pad(width[c] - line[c].size(), ' ');
      absl::StrAppend(&text, " ",
                      c < left_aligned ? line[c] + pad : pad + line[c]);
    }
    text.erase(text.find_last_not_of(' ') + 1);
    absl::StrAppend(&out, text, "\n");
  }
  return out;
}

std::string JsonQuote(absl::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
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

}  // namespace xlite::runtime
