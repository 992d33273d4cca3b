#include "runtime/thunk_profile.h"

namespace xlite::runtime {

void ThunkProfile::Record(const Thunk& thunk, double seconds) {
  auto [it, inserted] = index_.try_emplace(&thunk, entries_.size());
  if (inserted) {
    Entry entry;
    entry.name =
        thunk.kind == Thunk::Kind::kKernel ? thunk.kernel : thunk.instruction;
    entry.instruction = thunk.instruction;
    entry.kind = thunk.kind;
    entry.cost = thunk.cost;
    entries_.push_back(std::move(entry));
  }
  Entry& entry = entries_[it->second];
  ++entry.calls;
  entry.seconds += seconds;
}

void ThunkProfile::RecordRun(double seconds) {
  ++runs_;
  run_seconds_ += seconds;
}

std::string ClockDescription(ThunkProfile::Clock clock) {
  switch (clock) {
    case ThunkProfile::Clock::kCudaEvents:
      return "CUDA events";
    case ThunkProfile::Clock::kEmulatorHostWall:
      return "emulator host wall time";
  }
  return "unknown clock";
}

}  // namespace xlite::runtime
