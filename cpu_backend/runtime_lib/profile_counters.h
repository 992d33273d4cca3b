#ifndef XLITE_CPU_BACKEND_RUNTIME_LIB_PROFILE_COUNTERS_H_
#define XLITE_CPU_BACKEND_RUNTIME_LIB_PROFILE_COUNTERS_H_

// Per-run timing counters for code compiled with CompileOptions::profile:
// the generated code brackets every kernel, library call and collective
// (a "site", numbered at compile time) with
//
//   void xlite_cpu_profile_begin(void* counters, int32_t site);
//   void xlite_cpu_profile_end(void* counters, int32_t site);
//
// where `counters` is the run context's profile pointer (a ProfileCounters,
// or null: then nothing is recorded). One ProfileCounters belongs to one
// device's thread; several runs accumulate into it. The clock is the
// monotonic steady clock (clock_gettime through the vDSO: a few tens of
// nanoseconds per begin/end pair, included in the times).

#include <cstdint>
#include <utility>
#include <vector>

namespace xlite::cpu {

class ProfileCounters {
 public:
  struct Site {
    int64_t calls = 0;
    int64_t nanos = 0;    // summed over the calls
    int64_t started = 0;  // the clock at the last begin
  };

  explicit ProfileCounters(int64_t sites) : sites_(sites) {}

  /// Monotonic nanoseconds.
  static int64_t Now();

  /// What one begin/end pair adds to a site's time on this host (measured
  /// once per process, in nanoseconds): the floor under every mean.
  static double OverheadNanos();

  void Begin(int32_t site) {
    if (site >= 0 && site < static_cast<int64_t>(sites_.size())) {
      sites_[site].started = Now();
    }
  }
  void End(int32_t site) {
    if (site >= 0 && site < static_cast<int64_t>(sites_.size())) {
      Site& s = sites_[site];
      s.nanos += Now() - s.started;
      ++s.calls;
    }
  }
  /// One whole run (the entry function's call) took `nanos`.
  void AddRun(int64_t nanos) {
    ++runs_;
    run_nanos_ += nanos;
  }

  const std::vector<Site>& sites() const { return sites_; }
  int64_t runs() const { return runs_; }
  int64_t run_nanos() const { return run_nanos_; }

 private:
  std::vector<Site> sites_;
  int64_t runs_ = 0;
  int64_t run_nanos_ = 0;
};

/// The two functions above, by name, for the JIT.
std::vector<std::pair<const char*, void*>> ProfileCounterSymbols();

}  // namespace xlite::cpu

extern "C" {
void xlite_cpu_profile_begin(void* counters, int32_t site);
void xlite_cpu_profile_end(void* counters, int32_t site);
}

#endif  // XLITE_CPU_BACKEND_RUNTIME_LIB_PROFILE_COUNTERS_H_
