#ifndef XLITE_TOOLS_GPU_PROFILE_OUTPUT_H_
#define XLITE_TOOLS_GPU_PROFILE_OUTPUT_H_

// --profile and --profile_json for GPU runs, shared by hlo-run (an HLO
// module on the emulator, or a .xlx) and hlo-run-gpu: the table on stderr,
// the JSON and its roofline chart (SVG) written beside it.

#include <string>

#include "gpu_backend/profile_report.h"

namespace xlite {

/// Prints the table (`print_table`) and writes `json_path` and its chart
/// (when not empty); the tool's exit code, errors on stderr.
int ReportGpuProfile(const gpu::GpuProfileSource& source, bool print_table,
                     const std::string& json_path);

}  // namespace xlite

#endif  // XLITE_TOOLS_GPU_PROFILE_OUTPUT_H_
