#include "cpu_backend/runtime_lib/profile_counters.h"

#include <algorithm>
#include <chrono>

namespace xlite::cpu {

int64_t ProfileCounters::Now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double ProfileCounters::OverheadNanos() {
  static const double kOverhead = [] {
    constexpr int kPairs = 2000;
    ProfileCounters counters(1);
    double best = 1e300;
    for (int t = 0; t < 3; ++t) {
      counters = ProfileCounters(1);
      for (int i = 0; i < kPairs; ++i) {
        xlite_cpu_profile_begin(&counters, 0);
        xlite_cpu_profile_end(&counters, 0);
      }
      best = std::min(best, static_cast<double>(counters.sites()[0].nanos) /
                                kPairs);
    }
    return best;
  }();
  return kOverhead;
}

std::vector<std::pair<const char*, void*>> ProfileCounterSymbols() {
  return {
      {"xlite_cpu_profile_begin",
       reinterpret_cast<void*>(&xlite_cpu_profile_begin)},
      {"xlite_cpu_profile_end", reinterpret_cast<void*>(&xlite_cpu_profile_end)},
  };
}

}  // namespace xlite::cpu

extern "C" {

void xlite_cpu_profile_begin(void* counters, int32_t site) {
  if (counters != nullptr) {
    static_cast<xlite::cpu::ProfileCounters*>(counters)->Begin(site);
  }
}

void xlite_cpu_profile_end(void* counters, int32_t site) {
  if (counters != nullptr) {
    static_cast<xlite::cpu::ProfileCounters*>(counters)->End(site);
  }
}

}  // extern "C"
