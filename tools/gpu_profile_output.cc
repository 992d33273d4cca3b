#include "tools/gpu_profile_output.h"

#include <iostream>

#include "tools/tool_flags.h"

namespace xlite {

int ReportGpuProfile(const gpu::GpuProfileSource& source, bool print_table,
                     const std::string& json_path) {
  if (print_table) std::cerr << gpu::FormatGpuProfileTable(source);
  if (json_path.empty()) return kExitOk;
  if (absl::Status s = gpu::WriteGpuProfileFiles(source, json_path); !s.ok()) {
    std::cerr << s.message() << "\n";
    return kExitInputError;
  }
  return kExitOk;
}

}  // namespace xlite
