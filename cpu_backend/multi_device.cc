// RunOnDevices: N threads over one CpuExecutable and one exchange.

#include "cpu_backend/multi_device.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "cpu_backend/runtime_lib/collective_exchange.h"

namespace xlite::cpu {

absl::StatusOr<std::vector<Literal>> RunOnDevices(
    const CpuExecutable& executable, int64_t replicas, int64_t partitions,
    const std::vector<std::vector<Literal>>& arguments,
    const MultiDeviceOptions& options) {
  if (replicas < 1 || partitions < 1) {
    return absl::InvalidArgumentError("replicas and partitions must be >= 1");
  }
  const int64_t n = replicas * partitions;
  if (static_cast<int64_t>(arguments.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected arguments for ", n, " devices, got ", arguments.size()));
  }
  CollectiveExchange exchange(replicas, partitions, options.collective_timeout);
  std::vector<absl::StatusOr<Literal>> results(n,
                                               absl::UnknownError("not run"));
  auto run = [&](int64_t d) {
    RunOptions run_options;
    run_options.replica_id = d / partitions;
    run_options.partition_id = d % partitions;
    run_options.collectives = &exchange;
    if (d < static_cast<int64_t>(options.profiles.size())) {
      run_options.profile = options.profiles[d];
    }
    results[d] = executable.Run(arguments[d], run_options);
    exchange.Finish(d);
  };
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < n; ++d) threads.emplace_back(run, d);
  for (std::thread& t : threads) t.join();
  // A device that failed before its run (bad arguments) explains a
  // collective's failure; a collective's failure explains the runtime
  // errors of the others.
  for (int64_t d = 0; d < n; ++d) {
    if (!results[d].ok() &&
        results[d].status().code() != absl::StatusCode::kInternal) {
      return absl::Status(
          results[d].status().code(),
          absl::StrCat("device ", d, ": ", results[d].status().message()));
    }
  }
  if (std::string error = exchange.error(); !error.empty()) {
    return absl::AbortedError(error);
  }
  std::vector<Literal> out;
  for (int64_t d = 0; d < n; ++d) {
    if (!results[d].ok()) {
      return absl::Status(
          results[d].status().code(),
          absl::StrCat("device ", d, ": ", results[d].status().message()));
    }
    out.push_back(*std::move(results[d]));
  }
  return out;
}

}  // namespace xlite::cpu
