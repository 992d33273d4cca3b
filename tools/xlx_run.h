#ifndef XLITE_TOOLS_XLX_RUN_H_
#define XLITE_TOOLS_XLX_RUN_H_

// Running a serialized GPU executable (.xlx) from the command line: shared
// by hlo-run (device or emulator) and hlo-run-gpu (the runtime-only
// runner, no LLVM). Reads the inputs (.npy or literal text), runs, prints
// and writes the results, and the profile of the runs when asked.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/gpu_device.h"
#include "runtime/gpu_image.h"

namespace xlite {

struct XlxRunOptions {
  std::vector<std::string> inputs;
  std::string output_dir;
  bool print_literals = false;
  int64_t iterations = 1;
  /// The platform's name for messages ("gpu", "gpu-emulator"); it also
  /// names the clock of profiles (CUDA events, or the emulator's host
  /// wall time).
  std::string platform = "gpu";
  /// Run on the image once it is read, before the device is made (GEMM
  /// autotuning); an error is printed as is and the run fails.
  std::function<absl::Status(runtime::GpuImage&)> prepare_image;
  /// --profile (a table on stderr) and --profile_json (JSON, and the
  /// roofline chart beside it): every kernel and GEMM of the runs, timed
  /// by the device, against the peaks of the spec the image was compiled
  /// for (unknown when that spec cannot be loaded here).
  bool profile = false;
  std::string profile_json;
};

using GpuDeviceFactory =
    std::function<absl::StatusOr<std::unique_ptr<runtime::GpuDevice>>(
        const runtime::GpuImage&)>;

/// Whether `path` names a .xlx file (by extension or magic).
bool IsXlxFile(const std::string& path);

/// Runs the .xlx at `path`; the tool's exit code, diagnostics on stderr.
int RunXlxFile(const std::string& path, const GpuDeviceFactory& make_device,
               const XlxRunOptions& options);

}  // namespace xlite

#endif  // XLITE_TOOLS_XLX_RUN_H_
