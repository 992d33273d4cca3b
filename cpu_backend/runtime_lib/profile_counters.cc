#include "cpu_backend/runtime_lib/profile_counters.h"

#include <chrono>

namespace xlite::cpu {

int64_t ProfileCounters::Now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
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
