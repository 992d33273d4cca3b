#ifndef XLITE_CPU_BACKEND_PROFILE_REPORT_H_
#define XLITE_CPU_BACKEND_PROFILE_REPORT_H_

// The profile of a profiled module's runs (CompileOptions::profile), per
// device: for each site, sorted by total time, its calls, time, share of
// the run, bytes and FLOPs by the cost model (over all calls), achieved
// GB/s and GFLOP/s, and the share of the host's peak it reaches on the
// bound that applies (memory or compute). As a table for people and as
// JSON for tools; hlo-run --profile / --profile_json print them.

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_backend/host_peak.h"
#include "cpu_backend/profile_site.h"
#include "cpu_backend/runtime_lib/profile_counters.h"
#include "runtime/profile_format.h"

namespace xlite::cpu {

/// One device's counters.
struct DeviceProfile {
  int64_t replica = 0;
  int64_t partition = 0;
  const ProfileCounters* counters = nullptr;
};

/// One row of the report: a site and what its counters say.
struct ProfileRow {
  const ProfileSite* site = nullptr;
  int64_t calls = 0;
  double total_us = 0;
  double percent_of_run = 0;
  int64_t bytes = 0;  // over all calls
  int64_t flops = 0;  // over all calls
  runtime::AchievedRates rates;
};

/// The rows of one device, by total time (longest first, then site order);
/// a site that never ran is a row with no calls.
std::vector<ProfileRow> ProfileRows(const std::vector<ProfileSite>& sites,
                                    const ProfileCounters& counters,
                                    const HostPeak& peak);

/// The report as text tables, one per device (headed by its replica, and
/// partition where there are several, when there is more than one).
std::string FormatProfileTable(const std::string& module,
                               const std::vector<ProfileSite>& sites,
                               const std::vector<DeviceProfile>& devices,
                               const HostPeak& peak);

/// The same as one JSON object.
std::string FormatProfileJson(const std::string& module,
                              const std::vector<ProfileSite>& sites,
                              const std::vector<DeviceProfile>& devices,
                              const HostPeak& peak);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_PROFILE_REPORT_H_
